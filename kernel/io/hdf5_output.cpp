// Hdf5Output: gathering a model part into arrays and writing them with the
// HDF5 C API, plus the XDMF descriptor that points into the files.
#include "kernel/io/hdf5_output.h"

#include <hdf5.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/core/variable_registry.h"
#include "kernel/geometries/geometry_type.h"
#include "kernel/io/hdf5_handles.h"
#include "kernel/io/integration_point_average.h"
#include "kernel/io/nodal_radii.h"
#include "kernel/io/xml_text.h"
#include "kernel/model/id_index_map.h"
#include "kernel/model/model_part.h"

namespace tessera {

namespace {

namespace fs = std::filesystem;

constexpr int kLayoutVersion = 1;

// ---- HDF5 handles and errors ------------------------------------------------------------

// One open file; every failure is an error naming the file and what was written.
class H5File {
 public:
  H5File(const std::string& path, bool truncate, int compression)
      : path_(path), compression_(compression) {
    id_ = truncate ? H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)
                   : H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    if (id_ < 0)
      TESSERA_ERROR("HDF5Output: cannot ", truncate ? "create " : "open ", path,
                    " for writing: ", hdf5::LastErrorMessage());
  }
  ~H5File() {
    if (id_ >= 0) H5Fclose(id_);
  }
  H5File(const H5File&) = delete;
  H5File& operator=(const H5File&) = delete;

  void Close() {
    const herr_t status = H5Fclose(id_);
    id_ = -1;
    if (status < 0) Fail("closing the file");
  }

  [[noreturn]] void Fail(const std::string& what) const {
    TESSERA_ERROR("HDF5Output: ", path_, ": ", what, " failed: ", hdf5::LastErrorMessage());
  }

  // Whether every component of `path` exists (H5Lexists needs the parents).
  bool Exists(const std::string& path) const {
    std::size_t pos = 0;
    while (pos != std::string::npos) {
      pos = path.find('/', pos + 1);
      const std::string prefix = path.substr(0, pos);
      if (prefix.empty() || prefix == "/") continue;
      if (H5Lexists(id_, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    }
    return true;
  }

  void Delete(const std::string& path) {
    if (H5Ldelete(id_, path.c_str(), H5P_DEFAULT) < 0) Fail("removing " + path);
  }

  void Group(const std::string& path) {
    if (Exists(path)) return;
    hdf5::Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    hdf5::Handle group(H5Gcreate2(id_, path.c_str(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT),
                       H5Gclose);
    if (!group.valid()) Fail("creating group " + path);
  }

  void ExternalLink(const std::string& path, const std::string& file, const std::string& target) {
    hdf5::Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    if (H5Lcreate_external(file.c_str(), target.c_str(), id_, path.c_str(), lcpl.get(),
                           H5P_DEFAULT) < 0)
      Fail("linking " + path + " to " + file + ":" + target);
  }

  // A chunked dataset (rows are the first dimension), gzip-compressed when
  // asked; an empty one is contiguous (a chunk cannot be larger than its
  // fixed-size dataset). `what` names the data in errors (the variable).
  void Dataset(const std::string& path, hid_t type, const void* data,
               const std::vector<hsize_t>& dims, const std::string& what) {
    hdf5::Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    hdf5::Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    hsize_t elements = 1;
    for (hsize_t d : dims) elements *= d;
    if (elements > 0) {
      std::vector<hsize_t> chunk = dims;
      const hsize_t row_bytes = H5Tget_size(type) * (elements / dims[0]);
      constexpr hsize_t kChunkBytes = 1 << 20;
      chunk[0] = std::clamp<hsize_t>(kChunkBytes / std::max<hsize_t>(row_bytes, 1), 1, dims[0]);
      if (H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()) < 0)
        Fail("chunking " + path + " (" + what + ")");
      if (compression_ > 0) {
        if (H5Pset_shuffle(dcpl.get()) < 0 || H5Pset_deflate(dcpl.get(), compression_) < 0)
          Fail("setting gzip compression of " + path + " (" + what + ")");
      }
    }
    hdf5::Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                       H5Sclose);
    if (!space.valid()) Fail("making the dataspace of " + path + " (" + what + ")");
    hdf5::Handle set(
        H5Dcreate2(id_, path.c_str(), type, space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT),
        H5Dclose);
    if (!set.valid()) Fail("creating dataset " + path + " (" + what + ")");
    if (elements > 0 && H5Dwrite(set.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
      Fail("writing dataset " + path + " (" + what + ")");
  }

  void Dataset(const std::string& path, const std::vector<std::int64_t>& values,
               std::vector<hsize_t> dims, const std::string& what) {
    Dataset(path, H5T_NATIVE_INT64, values.data(), dims, what);
  }
  void Dataset(const std::string& path, const std::vector<double>& values,
               std::vector<hsize_t> dims, const std::string& what) {
    Dataset(path, H5T_NATIVE_DOUBLE, values.data(), dims, what);
  }

  template <class T>
  void Attribute(const std::string& object, const std::string& name, const T& value) {
    hdf5::Handle handle(H5Oopen(id_, object.c_str(), H5P_DEFAULT), H5Oclose);
    if (!handle.valid()) Fail("opening " + object + " for attribute " + name);
    if (H5Aexists(handle.get(), name.c_str()) > 0) H5Adelete(handle.get(), name.c_str());
    hdf5::Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    herr_t status = -1;
    if constexpr (std::is_same_v<T, std::string>) {
      hdf5::Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
      H5Tset_size(type.get(), H5T_VARIABLE);
      H5Tset_cset(type.get(), H5T_CSET_UTF8);
      hdf5::Handle attribute(
          H5Acreate2(handle.get(), name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
          H5Aclose);
      const char* text = value.c_str();
      if (attribute.valid()) status = H5Awrite(attribute.get(), type.get(), &text);
    } else {
      const hid_t type = std::is_same_v<T, double> ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64;
      hdf5::Handle attribute(
          H5Acreate2(handle.get(), name.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
          H5Aclose);
      if (attribute.valid()) status = H5Awrite(attribute.get(), type, &value);
    }
    if (status < 0) Fail("writing attribute " + name + " of " + object);
  }

 private:
  std::string path_;
  int compression_;
  hid_t id_ = -1;
};

// ---- small helpers ------------------------------------------------------------------------

using xml::Escaped;
using xml::ExactDouble;

template <class T>
T ValueOf(const DataValueContainer& data, const Variable<T>& variable) {
  return std::get<T>(data.GetValue(static_cast<const VariableBase&>(variable)));
}

// FNV-1a over the mesh, to notice when it changed between outputs.
struct Signature {
  std::uint64_t value = 14695981039346656037ull;
  template <class T>
  void Add(const T& item) {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &item, sizeof(T));
    for (unsigned char b : bytes) value = (value ^ b) * 1099511628211ull;
  }
  void Add(const std::string& text) {
    for (char c : text) Add(c);
    Add(text.size());
  }
};

// ---- data arrays ---------------------------------------------------------------------------

struct Array {
  bool integer = false;
  std::vector<double> reals;
  std::vector<std::int32_t> ints;
  std::vector<hsize_t> dims;  // rows first
};

// One value per row into an array: double (n), Array3 (n, 3), Quaternion
// (n, 4: w x y z), Vector (n, length), Matrix (n, rows, cols), int and bool
// int32 (n). Vectors and matrices of entities without a value (empty) are zeros;
// the others must share one shape.
Array MakeArray(const VariableBase& variable, const std::vector<Value>& values,
                const std::string& where) {
  Array array;
  const std::size_t n = values.size();
  const ValueKind kind = variable.IsComponent() ? ValueKind::Double : variable.Kind();
  switch (kind) {
    case ValueKind::String:
      TESSERA_ERROR("HDF5Output: ", where, " lists ", variable.Name(),
                    ", which holds strings; HDF5 results hold numbers only: remove it");
    case ValueKind::Int:
    case ValueKind::Bool:
      array.integer = true;
      array.dims = {n};
      array.ints.reserve(n);
      for (const Value& v : values)
        array.ints.push_back(kind == ValueKind::Int ? std::get<int>(v) : std::get<bool>(v));
      return array;
    case ValueKind::Double:
      array.dims = {n};
      for (const Value& v : values) array.reals.push_back(std::get<double>(v));
      return array;
    case ValueKind::Array3:
      array.dims = {n, 3};
      array.reals.reserve(3 * n);
      for (const Value& v : values) {
        const Array3& a = std::get<Array3>(v);
        array.reals.insert(array.reals.end(), a.begin(), a.end());
      }
      return array;
    case ValueKind::Quaternion:
      array.dims = {n, 4};
      for (const Value& v : values) {
        const Quaternion& q = std::get<Quaternion>(v);
        array.reals.insert(array.reals.end(), {q.w, q.x, q.y, q.z});
      }
      return array;
    case ValueKind::Vector:
    case ValueKind::Matrix: {
      const bool matrix = kind == ValueKind::Matrix;
      Eigen::Index rows = 0, cols = 0;
      for (const Value& v : values) {
        const Eigen::Index r = matrix ? std::get<Matrix>(v).rows() : std::get<Vector>(v).size();
        const Eigen::Index c = matrix ? std::get<Matrix>(v).cols() : 1;
        if (r * c == 0) continue;
        if (rows * cols != 0 && (r != rows || c != cols))
          TESSERA_ERROR("HDF5Output: ", where, " lists ", variable.Name(),
                        ", whose values have different sizes (", rows, "x", cols, " and ", r, "x",
                        c, "); a dataset needs one shape");
        rows = r;
        cols = c;
      }
      array.dims = matrix ? std::vector<hsize_t>{n, hsize_t(rows), hsize_t(cols)}
                          : std::vector<hsize_t>{n, hsize_t(rows)};
      array.reals.assign(n * rows * cols, 0.0);
      for (std::size_t i = 0; i < n; ++i) {
        const double* data = matrix ? std::get<Matrix>(values[i]).data()  // row-major
                                    : std::get<Vector>(values[i]).data();
        const Eigen::Index size =
            matrix ? std::get<Matrix>(values[i]).size() : std::get<Vector>(values[i]).size();
        if (size > 0) std::copy(data, data + size, array.reals.begin() + i * rows * cols);
      }
      return array;
    }
  }
  return array;
}

// Double and Array3 columns, the bulk of nodal output, are copied directly.
bool GatherColumn(const DataColumn& column, const VariableBase& variable,
                  const std::vector<IndexType>& points, Array& array) {
  if (const auto* c = dynamic_cast<const TypedDataColumn<double>*>(&column)) {
    array.dims = {points.size()};
    array.reals.reserve(points.size());
    for (IndexType p : points) array.reals.push_back((*c)[p]);
    return true;
  }
  if (const auto* c = dynamic_cast<const TypedDataColumn<Array3>*>(&column)) {
    if (variable.IsComponent()) {
      array.dims = {points.size()};
      for (IndexType p : points) array.reals.push_back((*c)[p][variable.ComponentIndex()]);
    } else {
      array.dims = {points.size(), 3};
      array.reals.reserve(3 * points.size());
      for (IndexType p : points)
        array.reals.insert(array.reals.end(), (*c)[p].begin(), (*c)[p].end());
    }
    return true;
  }
  return false;
}

void WriteArray(H5File& file, const std::string& path, const Array& array,
                const std::string& what) {
  if (array.integer)
    file.Dataset(path, H5T_NATIVE_INT32, array.ints.data(), array.dims, what);
  else
    file.Dataset(path, H5T_NATIVE_DOUBLE, array.reals.data(), array.dims, what);
}

// ---- the mesh -------------------------------------------------------------------------------

// XDMF topology names and Mixed codes (XDMF's XdmfTopologyType).
const char* XdmfTopologyName(GeometryFamily family) {
  switch (family) {
    case GeometryFamily::Point:
    case GeometryFamily::Sphere:
      return "Polyvertex";
    case GeometryFamily::Line:
      return "Polyline";
    case GeometryFamily::Triangle:
      return "Triangle";
    case GeometryFamily::Quadrilateral:
      return "Quadrilateral";
    case GeometryFamily::Tetrahedron:
      return "Tetrahedron";
    case GeometryFamily::Hexahedron:
      return "Hexahedron";
  }
  return "";
}

int XdmfMixedCode(GeometryFamily family) {
  switch (family) {
    case GeometryFamily::Point:
    case GeometryFamily::Sphere:
      return 1;
    case GeometryFamily::Line:
      return 2;
    case GeometryFamily::Triangle:
      return 4;
    case GeometryFamily::Quadrilateral:
      return 5;
    case GeometryFamily::Tetrahedron:
      return 6;
    case GeometryFamily::Hexahedron:
      return 9;
  }
  return 0;
}

struct Block {  // the entities of one geometry type, in model part order
  std::string geometry;
  int nodes = 0;
  std::vector<std::int64_t> ids, connectivity, properties;
};

struct Mesh {
  std::vector<IndexType> points;  // root node positions, in row order
  std::vector<IndexType> local;   // root node position -> row
  std::vector<Entity*> elements, conditions;
  std::vector<Block> element_blocks, condition_blocks;
  bool has_spheres = false;
};

template <class Range>
void AddEntities(Range range, Mesh& mesh, std::vector<Entity*>& entities,
                 std::vector<Block>& blocks) {
  for (auto& entity : range) {
    const Geometry& geometry = entity.GetGeometry();
    const std::string name(geometry.Type().Name());
    mesh.has_spheres = mesh.has_spheres || geometry.Type().Family() == GeometryFamily::Sphere;
    auto block = std::find_if(blocks.begin(), blocks.end(),
                              [&](const Block& b) { return b.geometry == name; });
    if (block == blocks.end()) {
      blocks.push_back({name, static_cast<int>(geometry.size()), {}, {}, {}});
      block = blocks.end() - 1;
    }
    for (std::size_t i = 0; i < geometry.size(); ++i) {
      const IndexType node = geometry.NodeIndex(i);
      if (mesh.local[node] == kInvalidIndex) {  // a node the model part does not list
        mesh.local[node] = static_cast<IndexType>(mesh.points.size());
        mesh.points.push_back(node);
      }
    }
    block->ids.push_back(entity.Id());
    for (std::size_t i = 0; i < geometry.size(); ++i)
      block->connectivity.push_back(entity.GetGeometry()[i].Id());
    block->properties.push_back(entity.HasProperties() ? entity.GetProperties().Id() : -1);
    entities.push_back(&entity);
  }
}

Mesh BuildMesh(ModelPart& part) {
  Mesh mesh;
  mesh.local.assign(part.Nodal().Size(), kInvalidIndex);
  mesh.points = part.NodeIndices();
  for (IndexType i = 0; i < mesh.points.size(); ++i) mesh.local[mesh.points[i]] = i;
  AddEntities(part.Elements(), mesh, mesh.elements, mesh.element_blocks);
  AddEntities(part.Conditions(), mesh, mesh.conditions, mesh.condition_blocks);
  return mesh;
}

// RADIUS per row: an element's own RADIUS, else the node's (historical, else
// non-historical), else 0.
std::vector<double> Radii(ModelPart& part, const Mesh& mesh) {
  std::vector<double> radii = NodalRadii(part, mesh.points);
  for (const Entity* entity : mesh.elements) {
    const Geometry& geometry = entity->GetGeometry();
    if (geometry.Type().Family() == GeometryFamily::Sphere && entity->Has(RADIUS))
      radii[mesh.local[geometry.NodeIndex(0)]] = ValueOf(entity->Data(), RADIUS);
  }
  return radii;
}

// The cells the XDMF shows: the elements if there are any, else the conditions,
// else the nodes as vertices. `container` is "Elements", "Conditions" or "Nodes".
struct Topology {
  std::string container;
  std::string type;  // XDMF TopologyType
  int nodes_per_cell = 0;
  std::size_t cells = 0;
  std::vector<std::int64_t> data;
  std::vector<hsize_t> dims;
};

Topology BuildTopology(const Mesh& mesh) {
  Topology topology;
  const std::vector<Entity*>& cells = !mesh.elements.empty() ? mesh.elements : mesh.conditions;
  topology.container = !mesh.elements.empty()     ? "Elements"
                       : !mesh.conditions.empty() ? "Conditions"
                                                  : "Nodes";
  if (cells.empty()) {
    topology.type = "Polyvertex";
    topology.nodes_per_cell = 1;
    topology.cells = mesh.points.size();
    for (std::size_t i = 0; i < mesh.points.size(); ++i) topology.data.push_back(i);
    topology.dims = {mesh.points.size(), 1};
    return topology;
  }
  topology.cells = cells.size();
  const GeometryType& first = cells.front()->GetGeometry().Type();
  const bool uniform = std::all_of(cells.begin(), cells.end(), [&](const Entity* e) {
    return e->GetGeometry().Type().Family() == first.Family() &&
           e->GetGeometry().size() == cells.front()->GetGeometry().size();
  });
  for (const Entity* entity : cells) {
    const Geometry& geometry = entity->GetGeometry();
    if (!uniform) {
      const GeometryFamily family = geometry.Type().Family();
      topology.data.push_back(XdmfMixedCode(family));
      if (family == GeometryFamily::Point || family == GeometryFamily::Sphere ||
          family == GeometryFamily::Line)
        topology.data.push_back(static_cast<std::int64_t>(geometry.size()));
    }
    for (std::size_t i = 0; i < geometry.size(); ++i)
      topology.data.push_back(mesh.local[geometry.NodeIndex(i)]);
  }
  if (uniform) {
    topology.type = XdmfTopologyName(first.Family());
    topology.nodes_per_cell = static_cast<int>(cells.front()->GetGeometry().size());
    topology.dims = {cells.size(), static_cast<hsize_t>(topology.nodes_per_cell)};
  } else {
    topology.type = "Mixed";
    topology.dims = {topology.data.size()};
  }
  return topology;
}

// Rows of a sub model part's sorted set of root positions in the model part's
// sorted set (a subset).
std::vector<std::int64_t> RowsIn(const std::vector<IndexType>& subset,
                                 const std::vector<IndexType>& set) {
  std::vector<std::int64_t> rows;
  rows.reserve(subset.size());
  auto it = set.begin();
  for (IndexType p : subset) {
    it = std::lower_bound(it, set.end(), p);
    rows.push_back(it - set.begin());
  }
  return rows;
}

void AddToSignature(Signature& signature, ModelPart& sub, const Mesh& mesh, ModelPart& part) {
  signature.Add(sub.Name());
  for (IndexType p : sub.NodeIndices()) signature.Add(mesh.local[p]);
  signature.Add(sub.NodeIndices().size());
  for (std::int64_t r : RowsIn(sub.ElementIndices(), part.ElementIndices())) signature.Add(r);
  signature.Add(sub.ElementIndices().size());
  for (std::int64_t r : RowsIn(sub.ConditionIndices(), part.ConditionIndices())) signature.Add(r);
  signature.Add(sub.ConditionIndices().size());
  for (ModelPart* child : sub.SubModelParts()) AddToSignature(signature, *child, mesh, part);
  signature.Add(std::string("end"));
}

std::uint64_t MeshSignature(ModelPart& part, const Mesh& mesh, const std::vector<double>& radii) {
  Signature signature;
  const NodalDatabase& db = part.Nodal();
  for (IndexType p : mesh.points) {
    signature.Add(db.Id(p));
    signature.Add(db.InitialCoordinates(p));
  }
  signature.Add(mesh.points.size());
  for (const auto* blocks : {&mesh.element_blocks, &mesh.condition_blocks}) {
    for (const Block& block : *blocks) {
      signature.Add(block.geometry);
      for (auto v : block.ids) signature.Add(v);
      for (auto v : block.connectivity) signature.Add(v);
      for (auto v : block.properties) signature.Add(v);
    }
    signature.Add(std::string("blocks"));
  }
  for (double r : radii) signature.Add(r);
  for (ModelPart* child : part.SubModelParts()) AddToSignature(signature, *child, mesh, part);
  return signature.value;
}

void WriteBlocks(H5File& file, const std::string& group, const std::vector<Block>& blocks,
                 bool with_mesh) {
  for (const Block& block : blocks) {
    const std::string path = group + "/" + block.geometry;
    const hsize_t n = block.ids.size();
    file.Dataset(path + "/Ids", block.ids, {n}, "ids");
    if (!with_mesh) continue;
    file.Dataset(path + "/Connectivities", block.connectivity, {n, hsize_t(block.nodes)},
                 "connectivities");
    file.Dataset(path + "/PropertiesIds", block.properties, {n}, "properties ids");
    file.Attribute(path, "Name", block.geometry);
    file.Attribute(path, "NumberOfNodes", std::int64_t{block.nodes});
  }
}

void WriteSubModelPart(H5File& file, const std::string& path, ModelPart& sub, const Mesh& mesh,
                       ModelPart& part) {
  static const std::set<std::string> reserved = {
      "Nodes", "Elements", "Conditions", "NodeIndices", "ElementIndices", "ConditionIndices"};
  if (reserved.count(sub.Name()))
    TESSERA_ERROR("HDF5Output: sub model part ", sub.FullName(), " is named like a group of the ",
                  "layout (", sub.Name(), "); rename it to write it to HDF5");
  file.Group(path);
  NodalDatabase& db = part.Nodal();
  std::vector<std::int64_t> ids, rows;
  for (IndexType p : sub.NodeIndices()) {
    ids.push_back(db.Id(p));
    rows.push_back(mesh.local[p]);
  }
  file.Dataset(path + "/Nodes/Ids", ids, {ids.size()}, "sub model part node ids");
  file.Dataset(path + "/NodeIndices", rows, {rows.size()}, "sub model part node indices");
  const auto entities = [&](const std::vector<IndexType>& subset, const std::vector<IndexType>& set,
                            const std::vector<Entity*>& all, const char* name,
                            const char* indices) {
    const std::vector<std::int64_t> rows = RowsIn(subset, set);
    file.Dataset(path + "/" + indices, rows, {rows.size()}, indices);
    std::vector<Block> blocks;
    for (std::int64_t r : rows) {
      const Entity& entity = *all[r];
      const std::string geometry(entity.GetGeometry().Type().Name());
      auto block = std::find_if(blocks.begin(), blocks.end(),
                                [&](const Block& b) { return b.geometry == geometry; });
      if (block == blocks.end()) {
        blocks.push_back({geometry, 0, {}, {}, {}});
        block = blocks.end() - 1;
      }
      block->ids.push_back(entity.Id());
    }
    WriteBlocks(file, path + "/" + name, blocks, false);
  };
  entities(sub.ElementIndices(), part.ElementIndices(), mesh.elements, "Elements",
           "ElementIndices");
  entities(sub.ConditionIndices(), part.ConditionIndices(), mesh.conditions, "Conditions",
           "ConditionIndices");
  for (ModelPart* child : sub.SubModelParts())
    WriteSubModelPart(file, path + "/" + child->Name(), *child, mesh, part);
}

void WriteMesh(H5File& file, const std::string& group, ModelPart& part, const Mesh& mesh,
               const Topology& topology, const std::vector<double>& radii) {
  file.Group(group);
  file.Attribute(group, "__model_part_name", part.FullName());
  const NodalDatabase& db = part.Nodal();
  const hsize_t n = mesh.points.size();
  std::vector<std::int64_t> ids;
  std::vector<double> coordinates;
  ids.reserve(n);
  coordinates.reserve(3 * n);
  for (IndexType p : mesh.points) {
    ids.push_back(db.Id(p));
    const Array3& x = db.InitialCoordinates(p);
    coordinates.insert(coordinates.end(), x.begin(), x.end());
  }
  file.Dataset(group + "/Nodes/Local/Ids", ids, {n}, "node ids");
  file.Dataset(group + "/Nodes/Local/Coordinates", coordinates, {n, 3}, "node coordinates");
  file.Group(group + "/Elements");
  WriteBlocks(file, group + "/Elements", mesh.element_blocks, true);
  file.Group(group + "/Conditions");
  WriteBlocks(file, group + "/Conditions", mesh.condition_blocks, true);
  file.Group(group + "/SubModelParts");
  for (ModelPart* child : part.SubModelParts())
    WriteSubModelPart(file, group + "/SubModelParts/" + child->Name(), *child, mesh, part);

  const std::string xdmf = group + "/Xdmf/" + topology.container + "/Topology";
  file.Dataset(xdmf, topology.data, topology.dims, "XDMF topology");
  file.Attribute(xdmf, "TopologyType", topology.type);
  if (!radii.empty()) file.Dataset(group + "/Xdmf/RADIUS", radii, {n}, "sphere radii");
}

// ---- XDMF ----------------------------------------------------------------------------------

std::string DataItem(const std::string& file, const std::string& path,
                     const std::vector<hsize_t>& dims, bool integer, int precision) {
  std::ostringstream os;
  os << "<DataItem Format=\"HDF\" NumberType=\"" << (integer ? "Int" : "Float") << "\" Precision=\""
     << precision << "\" Dimensions=\"";
  for (std::size_t i = 0; i < dims.size(); ++i) os << (i ? " " : "") << dims[i];
  os << "\">" << Escaped(file) << ":" << Escaped(path) << "</DataItem>";
  return os.str();
}

// An attribute for a dataset of (n), (n, 3) or (n, k); higher ranks (matrices)
// stay in the .h5 only.
std::string XdmfAttribute(const std::string& name, const char* center, const std::string& file,
                          const std::string& path, const Array& array) {
  if (array.dims.size() > 2) return "";
  const char* type = array.dims.size() == 1 ? "Scalar" : array.dims[1] == 3 ? "Vector" : "Matrix";
  return std::string("      <Attribute Name=\"") + Escaped(name) + "\" AttributeType=\"" + type +
         "\" Center=\"" + center + "\">\n        " +
         DataItem(file, path, array.dims, array.integer, array.integer ? 4 : 8) +
         "\n      </Attribute>\n";
}

const VariableBase* ResolveVariable(const std::string& name, const char* key) {
  try {
    return &VariableRegistry::Instance().Get(name);
  } catch (const Error& e) {
    TESSERA_ERROR("HDF5Output setting '", key, "': ", e.what());
  }
}

const Flag* ResolveFlag(const std::string& name, const char* key) {
  if (const Flag* flag = VariableRegistry::Instance().FindFlag(name)) return flag;
  std::string known;
  for (const std::string& n : VariableRegistry::Instance().FlagNames())
    known += (known.empty() ? "" : ", ") + n;
  TESSERA_ERROR("HDF5Output setting '", key, "': unknown flag '", name, "'; known flags: ", known);
}

// A flag of every row as int32 0/1 (Kratos' HDF5 flag datasets).
template <class IsSet>
Array FlagArray(std::size_t rows, IsSet&& is_set) {
  Array array;
  array.integer = true;
  array.dims = {rows};
  array.ints.resize(rows);
  for (std::size_t r = 0; r < rows; ++r) array.ints[r] = is_set(r) ? 1 : 0;
  return array;
}

}  // namespace

// ---- Hdf5Output -----------------------------------------------------------------------------

Parameters Hdf5Output::GetDefaultParameters() {
  return Parameters(R"({
    "model_part_name": "",
    "output_control_type": "step",
    "output_interval": 1.0,
    "output_path": "hdf5_output",
    "file_name": "",
    "file_mode": "single_file",
    "file_label": "step",
    "compression": null,
    "write_deformed_configuration": false,
    "write_xdmf": true,
    "nodal_solution_step_data_variables": [],
    "nodal_data_value_variables": [],
    "element_data_value_variables": [],
    "condition_data_value_variables": [],
    "gauss_point_variables": [],
    "nodal_flags": [],
    "element_flags": [],
    "condition_flags": []
  })");
}

Hdf5Output::Hdf5Output(ModelPart& model_part, Parameters settings)
    : model_part_(model_part), settings_(std::move(settings)) {
  settings_.ValidateAndAssignDefaults(GetDefaultParameters());
  output_path_ = settings_.GetString("output_path");
  if (output_path_.empty()) output_path_ = ".";
  base_name_ = settings_.GetString("file_name");
  if (base_name_.empty()) {
    base_name_ = model_part.FullName();
    std::replace(base_name_.begin(), base_name_.end(), '.', '_');
  }
  if (base_name_.find('/') != std::string::npos)
    TESSERA_ERROR("HDF5Output setting 'file_name' is '", base_name_,
                  "': a name without folders (put the folder in 'output_path')");
  const std::string mode = settings_.GetString("file_mode");
  if (mode != "single_file" && mode != "file_per_step")
    TESSERA_ERROR("HDF5Output setting 'file_mode' is '", mode,
                  "'; allowed values: \"single_file\", \"file_per_step\"");
  single_file_ = mode == "single_file";
  const std::string label = settings_.GetString("file_label");
  if (label != "step" && label != "time")
    TESSERA_ERROR("HDF5Output setting 'file_label' is '", label,
                  "'; allowed values: \"step\", \"time\"");
  label_by_time_ = label == "time";
  const Parameters compression = settings_["compression"];
  if (compression.IsNull()) {
    compression_ = 0;
  } else if (compression.IsBool()) {
    compression_ = compression.GetBool() ? 4 : 0;
  } else if (compression.IsInt() && compression.GetInt() >= 0 && compression.GetInt() <= 9) {
    compression_ = compression.GetInt();
  } else {
    TESSERA_ERROR("HDF5Output setting 'compression' must be false, true (gzip level 4) or a gzip ",
                  "level from 0 (none) to 9");
  }
  if (compression_ > 0 && H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0)
    TESSERA_ERROR("HDF5Output setting 'compression': this HDF5 library has no gzip filter");
  const std::string control = settings_.GetString("output_control_type");
  if (control != "step" && control != "time")
    TESSERA_ERROR("HDF5Output setting 'output_control_type' is '", control,
                  "'; allowed values: \"step\", \"time\"");
  if (settings_.GetDouble("output_interval") <= 0.0)
    TESSERA_ERROR("HDF5Output setting 'output_interval' must be positive, not ",
                  settings_.GetDouble("output_interval"));
  write_deformed_ = settings_.GetBool("write_deformed_configuration");
  write_xdmf_ = settings_.GetBool("write_xdmf");

  const auto variables = [&](const char* key, std::vector<const VariableBase*>& out) {
    for (const std::string& name : settings_.GetStringArray(key)) {
      const VariableBase* variable = ResolveVariable(name, key);
      if (std::find(out.begin(), out.end(), variable) != out.end())
        TESSERA_ERROR("HDF5Output setting '", key, "' lists ", name, " twice");
      out.push_back(variable);
    }
  };
  variables("nodal_solution_step_data_variables", nodal_historical_);
  variables("nodal_data_value_variables", nodal_non_historical_);
  variables("element_data_value_variables", element_data_);
  variables("condition_data_value_variables", condition_data_);
  variables("gauss_point_variables", gauss_point_);
  const auto flags = [&](const char* key, std::vector<const Flag*>& out) {
    for (const std::string& name : settings_.GetStringArray(key)) {
      const Flag* flag = ResolveFlag(name, key);
      if (std::find(out.begin(), out.end(), flag) != out.end())
        TESSERA_ERROR("HDF5Output setting '", key, "' lists ", name, " twice");
      out.push_back(flag);
    }
  };
  flags("nodal_flags", nodal_flags_);
  flags("element_flags", element_flags_);
  flags("condition_flags", condition_flags_);
  for (const VariableBase* variable : gauss_point_)
    if (std::find(element_data_.begin(), element_data_.end(), variable) != element_data_.end())
      TESSERA_ERROR("HDF5Output: ", variable->Name(), " is listed in both ",
                    "'element_data_value_variables' and 'gauss_point_variables', which write ",
                    "the same dataset ElementDataValues/", variable->Name(), "; keep one");
}

std::string Hdf5Output::XdmfFileName() const {
  return (fs::path(output_path_) / (base_name_ + ".xdmf")).string();
}

// One PrintOutput: where it writes, the mesh it gathered and the datasets it
// wrote (kept for the step's XDMF grid).
struct Hdf5Output::Step {
  struct Written {
    std::string name, path;
    Array array;  // data emptied after writing; dims and type kept for the XDMF
    const char* center;
  };

  int number = 0;
  double time = 0.0;
  std::string label;      // the step or the time, as file_label says
  std::string file_name;  // relative to the output path
  std::string path;
  std::string results;  // the results group
  std::optional<H5File> file;
  Mesh mesh;
  Topology topology;
  std::vector<double> radii;  // per point, where spheres or radii are shown
  std::vector<Written> written;
  std::string coordinates_path;  // the deformed coordinates, if written
};

void Hdf5Output::PrintOutput() {
  hdf5::QuietErrors quiet;
  Step step;
  OpenStepFile(step);
  WriteMeshIfChanged(step);
  WriteResults(step);
  step.file->Close();
  last_files_ = {step.path};
  if (write_xdmf_) {
    AddXdmfGrid(step);
    WriteXdmf();
  }
}

void Hdf5Output::OpenStepFile(Step& step) {
  const ProcessInfo& info = model_part_.GetProcessInfo();
  step.number = ValueOf(info, STEP);
  step.time = ValueOf(info, TIME);
  step.label = label_by_time_ ? ExactDouble(step.time) : std::to_string(step.number);
  try {
    fs::create_directories(output_path_);
  } catch (const fs::filesystem_error& e) {
    TESSERA_ERROR("HDF5Output: cannot create the output folder ", output_path_, ": ",
                  e.code().message());
  }
  step.file_name = single_file_ ? base_name_ + ".h5" : base_name_ + "_" + step.label + ".h5";
  step.path = (fs::path(output_path_) / step.file_name).string();
  step.results = single_file_ ? "/ResultsData/" + step.label : "/ResultsData";
  const bool truncate = !single_file_ || !file_created_ || !fs::exists(step.path);
  H5File& file = step.file.emplace(step.path, truncate, compression_);
  if (truncate) {
    file.Attribute("/", "TesseraHdf5LayoutVersion", std::int64_t{kLayoutVersion});
    file.Attribute("/", "FileMode", std::string(single_file_ ? "single_file" : "file_per_step"));
    if (single_file_) {
      file_created_ = true;
      has_mesh_ = false;
    }
  }
  if (single_file_ && file.Exists(step.results)) {  // the same label again: replace it
    file.Delete(step.results);
    if (mesh_file_ == step.file_name && mesh_group_.rfind(step.results + "/", 0) == 0)
      has_mesh_ = false;
  }
}

// The mesh is written when it changed since the last output; otherwise the
// step's file links to where it is.
void Hdf5Output::WriteMeshIfChanged(Step& step) {
  ModelPart& part = model_part_;
  NodalDatabase& db = part.Nodal();
  H5File& file = *step.file;
  step.mesh = BuildMesh(part);
  step.topology = BuildTopology(step.mesh);
  const bool nodes_have_radius =
      db.HasHistoricalVariable(RADIUS) || db.HasNonHistoricalColumn(RADIUS);
  const bool radius_needed =
      step.mesh.has_spheres || (step.topology.container == "Nodes" && nodes_have_radius);
  if (radius_needed) step.radii = Radii(part, step.mesh);
  const std::uint64_t signature = MeshSignature(part, step.mesh, step.radii);
  const bool reuse = has_mesh_ && signature == mesh_signature_ &&
                     (single_file_ || (mesh_file_ != step.file_name &&
                                       fs::exists(fs::path(output_path_) / mesh_file_)));
  if (!reuse) {
    mesh_group_ =
        single_file_ && file.Exists("/ModelData") ? step.results + "/ModelData" : "/ModelData";
    mesh_file_ = step.file_name;
    WriteMesh(file, mesh_group_, part, step.mesh, step.topology, step.radii);
    has_mesh_ = true;
    mesh_signature_ = signature;
  } else if (!single_file_) {
    file.ExternalLink("/ModelData", mesh_file_, mesh_group_);
  }
}

void Hdf5Output::WriteResults(Step& step) {
  ModelPart& part = model_part_;
  NodalDatabase& db = part.Nodal();
  const ProcessInfo& info = part.GetProcessInfo();
  H5File& file = *step.file;
  const Mesh& mesh = step.mesh;
  const std::string& path = step.path;
  const std::string& results = step.results;
  file.Group(results);
  file.Attribute(results, "TIME", step.time);
  file.Attribute(results, "STEP", std::int64_t{step.number});
  file.Attribute(results, "ModelData", mesh_group_);
  if (!single_file_) file.Attribute(results, "ModelDataFile", mesh_file_);
  const std::string where = "model part " + part.FullName();
  const auto write = [&](const std::string& group, const std::string& name, Array array,
                         const char* center) {
    const std::string dataset = results + "/" + group + "/" + name;
    WriteArray(file, dataset, array, name + " of " + where);
    array.reals.clear();
    array.ints.clear();
    step.written.push_back({name, dataset, std::move(array), center});
  };
  std::vector<Value> values(mesh.points.size());
  for (const VariableBase* variable : nodal_historical_) {
    if (!db.HasHistoricalVariable(*variable))
      TESSERA_ERROR("HDF5Output: ", path, ": nodal_solution_step_data_variables lists ",
                    variable->Name(), ", which is not a solution-step variable of ", where,
                    " (add it with AddNodalSolutionStepVariable, or list it in "
                    "nodal_data_value_variables)");
    Array array;
    if (!GatherColumn(db.HistoricalColumnBase(*variable), *variable, mesh.points, array)) {
      for (std::size_t i = 0; i < mesh.points.size(); ++i)
        values[i] = db.GetHistorical(*variable, mesh.points[i]);
      array = MakeArray(*variable, values, path + ": nodal_solution_step_data_variables");
    }
    write("NodalSolutionStepData", variable->Name(), std::move(array), "Node");
  }
  for (const VariableBase* variable : nodal_non_historical_) {
    Array array;
    if (!db.HasNonHistoricalColumn(*variable) ||
        !GatherColumn(db.NonHistoricalColumnBase(*variable), *variable, mesh.points, array)) {
      for (std::size_t i = 0; i < mesh.points.size(); ++i)
        values[i] = db.GetNonHistorical(*variable, mesh.points[i]);
      array = MakeArray(*variable, values, path + ": nodal_data_value_variables");
    }
    write("NodalDataValues", variable->Name(), std::move(array), "Node");
  }
  const auto entity_data = [&](const std::vector<Entity*>& entities,
                               const std::vector<const VariableBase*>& variables, const char* key,
                               const char* group, const char* center) {
    std::vector<Value> cell_values(entities.size());
    for (const VariableBase* variable : variables) {
      for (std::size_t c = 0; c < entities.size(); ++c)
        cell_values[c] = entities[c]->Data().GetValue(*variable);
      write(group, variable->Name(), MakeArray(*variable, cell_values, path + ": " + key), center);
    }
  };
  const char* element_center = step.topology.container == "Elements" ? "Cell" : nullptr;
  const char* condition_center = step.topology.container == "Conditions" ? "Cell" : nullptr;
  entity_data(mesh.elements, element_data_, "element_data_value_variables", "ElementDataValues",
              element_center);
  entity_data(mesh.conditions, condition_data_, "condition_data_value_variables",
              "ConditionDataValues", condition_center);
  {
    std::vector<Value> cell_values(mesh.elements.size());
    for (const VariableBase* variable : gauss_point_) {
      const std::string setting = "HDF5Output: " + path + ": gauss_point_variables";
      for (std::size_t c = 0; c < mesh.elements.size(); ++c)
        cell_values[c] = IntegrationPointAverage(*mesh.elements[c], *variable, info, setting);
      write("ElementDataValues", variable->Name(),
            MakeArray(*variable, cell_values, path + ": gauss_point_variables"), element_center);
    }
  }
  for (const Flag* flag : nodal_flags_)
    write("NodalFlagValues", flag->Name(),
          FlagArray(mesh.points.size(),
                    [&](std::size_t r) { return (db.Flags(mesh.points[r]) & flag->Mask()) != 0; }),
          "Node");
  for (const Flag* flag : element_flags_)
    write(
        "ElementFlagValues", flag->Name(),
        FlagArray(mesh.elements.size(), [&](std::size_t r) { return mesh.elements[r]->Is(*flag); }),
        element_center);
  for (const Flag* flag : condition_flags_)
    write("ConditionFlagValues", flag->Name(),
          FlagArray(mesh.conditions.size(),
                    [&](std::size_t r) { return mesh.conditions[r]->Is(*flag); }),
          condition_center);
  if (write_deformed_) {
    Array array;
    array.dims = {mesh.points.size(), 3};
    for (IndexType p : mesh.points)
      array.reals.insert(array.reals.end(), db.Coordinates(p).begin(), db.Coordinates(p).end());
    step.coordinates_path = results + "/NodalCoordinates";
    WriteArray(file, step.coordinates_path, array, "current coordinates of " + where);
  }
}

// The step's <Grid> in the XDMF descriptor's time series.
void Hdf5Output::AddXdmfGrid(const Step& step) {
  std::ostringstream grid;
  grid << "    <Grid Name=\"" << Escaped(model_part_.FullName()) << "_" << Escaped(step.label)
       << "\" GridType=\"Uniform\">\n"
       << "      <Time Value=\"" << ExactDouble(step.time) << "\"/>\n"
       << "      <Topology TopologyType=\"" << step.topology.type << "\" NumberOfElements=\""
       << step.topology.cells << "\"";
  if (step.topology.type == "Polyvertex" || step.topology.type == "Polyline")
    grid << " NodesPerElement=\"" << step.topology.nodes_per_cell << "\"";
  grid << ">\n        "
       << DataItem(mesh_file_, mesh_group_ + "/Xdmf/" + step.topology.container + "/Topology",
                   step.topology.dims, true, 8)
       << "\n      </Topology>\n"
       << "      <Geometry GeometryType=\"XYZ\">\n        "
       << (write_deformed_ ? DataItem(step.file_name, step.coordinates_path,
                                      {step.mesh.points.size(), 3}, false, 8)
                           : DataItem(mesh_file_, mesh_group_ + "/Nodes/Local/Coordinates",
                                      {step.mesh.points.size(), 3}, false, 8))
       << "\n      </Geometry>\n";
  std::set<std::pair<std::string, std::string>> names;
  bool radius_written = false;
  for (const Step::Written& w : step.written) {
    if (!w.center) continue;
    std::string name = w.name;
    if (!names.insert({name, w.center}).second) {  // e.g. one variable historical and not
      name += w.path.find("/NodalDataValues/") != std::string::npos ? "_NonHistorical" : "_Data";
      names.insert({name, w.center});
    }
    radius_written = radius_written || (w.name == "RADIUS" && std::string(w.center) == "Node");
    grid << XdmfAttribute(name, w.center, step.file_name, w.path, w.array);
  }
  if (!step.radii.empty() && !radius_written) {
    Array radius;
    radius.dims = {step.mesh.points.size()};
    grid << XdmfAttribute("RADIUS", "Node", mesh_file_, mesh_group_ + "/Xdmf/RADIUS", radius);
  }
  grid << "    </Grid>\n";
  auto entry = std::find_if(xdmf_steps_.begin(), xdmf_steps_.end(),
                            [&](const XdmfStep& s) { return s.label == step.label; });
  if (step.mesh.points.empty()) {  // nothing to show; readers reject empty grids
    if (entry != xdmf_steps_.end()) xdmf_steps_.erase(entry);
  } else if (entry != xdmf_steps_.end()) {
    *entry = {step.label, step.time, grid.str()};
  } else {
    xdmf_steps_.push_back({step.label, step.time, grid.str()});
  }
}

void Hdf5Output::WriteXdmf() const {
  // Written to a temporary and renamed, so a run killed mid-write keeps the
  // previous, valid descriptor.
  const fs::path path = XdmfFileName();
  const fs::path temporary = fs::path(path.string() + ".tmp");
  {
    std::ofstream os(temporary);
    if (!os) TESSERA_ERROR("HDF5Output: cannot open ", temporary.string(), " for writing");
    os << "<?xml version=\"1.0\" ?>\n"
       << "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
       << "<Xdmf Version=\"2.0\">\n"
       << "  <Domain>\n"
       << "  <Grid Name=\"" << Escaped(model_part_.FullName())
       << "\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
    for (const XdmfStep& step : xdmf_steps_) os << step.grid;
    os << "  </Grid>\n"
       << "  </Domain>\n"
       << "</Xdmf>\n";
    os.close();
    if (!os) TESSERA_ERROR("HDF5Output: writing ", temporary.string(), " failed");
  }
  fs::rename(temporary, path);
}

}  // namespace tessera
