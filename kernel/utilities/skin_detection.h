// Skin detection: the boundary faces ("skin") of the mesh made by the elements
// of a model part, each oriented so that its normal points out of the body.
//
// - Solids (Tetrahedra3D4, Hexahedra3D8) give the faces that belong to exactly
//   one element (Triangle3D3 / Quadrilateral3D4 faces).
// - Plane cells (Triangle2D3, Quadrilateral2D4) give the edges that belong to
//   exactly one element (Line2D2 faces, counter-clockwise around the body, so
//   that the line normal of GeometryType::AreaNormal points out).
// - Surface cells in 3D (membranes: Triangle3D3, Quadrilateral3D4) are skin
//   themselves, in their own node order.
// - Other cells (points, lines, spheres) have no skin and are skipped.
//
// The faces and their outward order come from GeometryType::FacesNodes(); an
// element with a negative Jacobian (inverted node order) has its faces reversed,
// so that they still point out. Shared faces are found by sorting the faces by
// their sorted node positions: O(n log n), no allocation per face.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "kernel/core/types.h"

namespace tessera {

class GeometryType;
class ModelPart;

struct SkinFace {
  static constexpr int kMaxNodes = 4;

  // The first NodesNumber() entries are the face's node ids, ordered so that the
  // right-hand rule (for Line2D2: the tangent turned by -90 degrees) gives the
  // outward normal; the others are 0.
  std::array<IdType, kMaxNodes> node_ids{};
  int nodes_number = 0;
  IdType parent_id = 0;  // the element the face bounds
  // Index into the parent's GeometryType::FacesNodes(); -1 when the face is the
  // parent element itself (a membrane).
  int local_face = -1;
  // The face's geometry type: Triangle3D3, Quadrilateral3D4 or Line2D2.
  const GeometryType* geometry = nullptr;

  std::span<const IdType> NodeIds() const { return {node_ids.data(), std::size_t(nodes_number)}; }
};

// The skin faces of the elements of model_part, ordered by parent element id,
// then by local face index. Only the elements of model_part count: a face shared
// with an element outside it is skin. Throws (naming the model part and the
// element) for a cell whose faces have more than SkinFace::kMaxNodes nodes.
std::vector<SkinFace> FindSkinFaces(ModelPart& model_part);

}  // namespace tessera
