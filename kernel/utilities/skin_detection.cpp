// The boundary faces of a mesh, found by sorting every element face by its
// sorted node positions: a face that occurs once bounds the mesh.
#include "kernel/utilities/skin_detection.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "kernel/core/error.h"
#include "kernel/geometries/geometry_types.h"
#include "kernel/model/model_part.h"

namespace tessera {
namespace {

enum class SkinRole { None, Solid, Membrane };

// What the skin of one element type is made of; the few types of a mesh are
// looked up once each, not per element.
struct TypeInfo {
  const GeometryType* type = nullptr;
  SkinRole role = SkinRole::None;
  std::vector<const GeometryType*> face_types;  // per local face (solids and plane cells)
};

// The geometry type of a face, which has the family GeometryType::FaceFamily
// gives and lives in the cell's working space.
const GeometryType& FaceGeometryType(const GeometryType& cell, int face) {
  const auto& nodes = cell.FacesNodes()[face];
  const GeometryType* type = nullptr;
  switch (cell.FaceFamily(face)) {
    case GeometryFamily::Line:
      type = &GetGeometryType(cell.WorkingSpaceDimension() == 2 ? "Line2D2" : "Line3D2");
      break;
    case GeometryFamily::Triangle:
      type = &GetGeometryType("Triangle3D3");
      break;
    case GeometryFamily::Quadrilateral:
      type = &GetGeometryType("Quadrilateral3D4");
      break;
    default:
      break;
  }
  // A higher-order cell would have faces with more nodes than these linear types.
  TESSERA_CHECK(type != nullptr && type->PointsNumber() == static_cast<int>(nodes.size()),
                "skin detection: face ", face, " of ", cell.Name(), " has ", nodes.size(),
                " nodes and no matching face geometry type");
  return *type;
}

TypeInfo DescribeType(const GeometryType& type) {
  TypeInfo info;
  info.type = &type;
  const int local = type.LocalDimension();
  const int working = type.WorkingSpaceDimension();
  if (local == 2 && working == 3) {
    info.role = SkinRole::Membrane;
  } else if (local >= 2 && local == working) {
    info.role = SkinRole::Solid;
    for (int face = 0; face < type.FacesNumber(); ++face) {
      TESSERA_CHECK(type.FacesNodes()[face].size() <= std::size_t(SkinFace::kMaxNodes),
                    "skin detection: ", type.Name(), " has a face of ",
                    type.FacesNodes()[face].size(), " nodes; at most ", SkinFace::kMaxNodes,
                    " are supported");
      info.face_types.push_back(&FaceGeometryType(type, face));
    }
  }
  return info;
}

const TypeInfo& Lookup(std::vector<TypeInfo>& infos, const GeometryType& type) {
  for (const TypeInfo& info : infos)
    if (info.type == &type) return info;
  infos.push_back(DescribeType(type));
  return infos.back();
}

// One element face, keyed by its node positions in ascending order (padded), so
// that the two elements sharing a face give equal keys whatever their orders.
struct FaceRecord {
  std::array<IndexType, SkinFace::kMaxNodes> key;
  IndexType element;  // ordinal in the model part's element list
  std::uint32_t face;
};

constexpr IndexType kPad = std::numeric_limits<IndexType>::max();

// Insertion sort of the first count (at most four) entries: cheaper than
// std::sort for so few.
void SortKey(std::array<IndexType, SkinFace::kMaxNodes>& key, std::size_t count) {
  for (std::size_t a = 1; a < count; ++a)
    for (std::size_t b = a; b > 0 && key[b - 1] > key[b]; --b) std::swap(key[b - 1], key[b]);
}

// Whether the element's node order is inverted (negative Jacobian at the
// centre, in the initial configuration, whose orientation is the mesh's own):
// its FacesNodes() then point in, so its faces are reversed.
bool IsInverted(const Element& element) {
  const Geometry& geometry = element.GetGeometry();
  const Geometry::Points points = geometry.InitialPoints();
  const GeometryType& type = geometry.Type();
  return type.DeterminantOfJacobian(std::span<const Array3>(points.data(), points.size()),
                                    type.LocalCenter()) < 0.0;
}

}  // namespace

std::vector<SkinFace> FindSkinFaces(ModelPart& model_part) {
  auto elements = model_part.Elements();
  const NodalDatabase& db = model_part.Nodal();
  std::vector<TypeInfo> infos;
  infos.reserve(8);  // references into it are kept only within one iteration

  // Count first, so the records are one allocation.
  std::size_t face_count = 0;
  for (const Element& element : elements) {
    const TypeInfo& info = Lookup(infos, element.GetGeometry().Type());
    if (info.role == SkinRole::Solid) face_count += info.face_types.size();
  }

  // (element ordinal, local face) of every skin face; -1 for a membrane.
  std::vector<std::pair<IndexType, int>> skin;
  std::vector<FaceRecord> records;
  records.reserve(face_count);
  for (IndexType e = 0; e < elements.size(); ++e) {
    const Element& element = elements[e];
    const Geometry& geometry = element.GetGeometry();
    const TypeInfo& info = Lookup(infos, geometry.Type());
    if (info.role == SkinRole::Membrane) {
      skin.emplace_back(e, -1);
      continue;
    }
    if (info.role != SkinRole::Solid) continue;
    const auto& faces = geometry.Type().FacesNodes();
    for (std::uint32_t f = 0; f < faces.size(); ++f) {
      FaceRecord record{{kPad, kPad, kPad, kPad}, e, f};
      const std::size_t count = std::min(faces[f].size(), record.key.size());  // checked above
      for (std::size_t k = 0; k < count; ++k) record.key[k] = geometry.NodeIndex(faces[f][k]);
      SortKey(record.key, count);
      records.push_back(record);
    }
  }

  std::sort(records.begin(), records.end(),
            [](const FaceRecord& a, const FaceRecord& b) { return a.key < b.key; });
  for (std::size_t i = 0; i < records.size();) {
    std::size_t j = i + 1;
    while (j < records.size() && records[j].key == records[i].key) ++j;
    if (j == i + 1) skin.emplace_back(records[i].element, static_cast<int>(records[i].face));
    i = j;
  }
  records = {};  // the largest buffer, no longer needed

  std::vector<SkinFace> result;
  result.reserve(skin.size());
  for (const auto& [e, f] : skin) {
    const Element& element = elements[e];
    const Geometry& geometry = element.GetGeometry();
    const GeometryType& type = geometry.Type();
    SkinFace face;
    face.parent_id = element.Id();
    face.local_face = f;
    if (f < 0) {  // a membrane: the element itself, in its own order
      TESSERA_CHECK(geometry.size() <= std::size_t(SkinFace::kMaxNodes),
                    "skin detection in model part ", model_part.FullName(), ": element ",
                    element.Id(), " (", type.Name(), ") has ", geometry.size(),
                    " nodes; a skin face has at most ", SkinFace::kMaxNodes);
      face.geometry = &type;
      face.nodes_number = static_cast<int>(geometry.size());
      for (std::size_t k = 0; k < geometry.size(); ++k)
        face.node_ids[k] = db.Id(geometry.NodeIndex(k));
    } else {
      const auto& local = type.FacesNodes()[f];
      face.geometry = Lookup(infos, type).face_types[f];
      face.nodes_number = static_cast<int>(local.size());
      for (std::size_t k = 0; k < local.size(); ++k)
        face.node_ids[k] = db.Id(geometry.NodeIndex(local[k]));
      // Reversing the order flips the normal; a polygon keeps its first node first.
      if (IsInverted(element)) {
        auto* begin = face.node_ids.data() + (face.nodes_number > 2 ? 1 : 0);
        std::reverse(begin, face.node_ids.data() + face.nodes_number);
      }
    }
    result.push_back(face);
  }
  std::sort(result.begin(), result.end(), [](const SkinFace& a, const SkinFace& b) {
    return a.parent_id != b.parent_id ? a.parent_id < b.parent_id : a.local_face < b.local_face;
  });
  return result;
}

}  // namespace tessera
