// RigidFaceStorage: the rigid wall faces of a DEM model as rows of arrays, and
// the contact geometry of a sphere against one face.
//
// A row is one RigidFace3D3N (triangle) or RigidFace3D4N (quadrilateral)
// condition of the walls model part: its vertex coordinates and velocities
// (re-read from the nodes every step, so that walls moved by processes or
// scripts are seen where they are) and its material. Part 1 of the DEM
// application handles contact with the face itself: the sphere centre must
// project inside the face. Contact with edges and vertices (RigidFace3D2N,
// RigidEdge3D2N, and a centre projecting outside every face) is not handled.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "applications/dem/utilities/neighbour_search.h"
#include "kernel/core/array3.h"
#include "kernel/core/types.h"

namespace tessera {
class ModelPart;
}

namespace tessera::dem {

class MaterialIndex;

struct RigidFaceStorage {
  std::vector<std::array<Array3, 4>> points;      // current vertex coordinates
  std::vector<std::array<Array3, 4>> velocities;  // nodal VELOCITY of the vertices
  // Vertex displacement over the last step (the wall's share of the tangential
  // displacement of a contact).
  std::vector<std::array<Array3, 4>> delta_displacement;
  std::vector<std::array<IndexType, 4>> nodes;  // positions in the walls' root database
  std::vector<std::uint8_t> vertex_count;       // 3 or 4
  std::vector<int> material;
  std::vector<IdType> condition_id;
  FaceBoxes boxes;

  std::size_t size() const { return material.size(); }
};

// Fills `faces` from the conditions of `walls`. A RigidFace3D3N/3D4N passes its
// Check() (no degenerate face) and needs properties with YOUNG_MODULUS and
// POISSON_RATIO; RigidFace3D2N and RigidEdge3D2N are reported as not supported yet.
void FillRigidFaces(ModelPart& walls, MaterialIndex& materials, RigidFaceStorage& faces);

// Re-reads vertex coordinates and velocities from the nodes; the displacement
// since the previous read becomes delta_displacement. Updates the boxes.
void UpdateRigidFaces(ModelPart& walls, RigidFaceStorage& faces);

// The contact of a sphere (centre, radius) with face f when its centre projects
// inside the face (boundary included) and the sphere reaches the face's plane.
struct FaceContactGeometry {
  bool inside = false;              // the centre projects inside the face
  double distance = 0.0;            // from the centre to the face's plane
  Array3 normal{};                  // unit, from the centre towards the face
  Array3 projection{};              // the centre projected onto the face
  std::array<double, 4> weights{};  // shape-function weights of the vertices at the projection
};
FaceContactGeometry FaceContact(const RigidFaceStorage& faces, std::size_t f, const Array3& centre);

}  // namespace tessera::dem
