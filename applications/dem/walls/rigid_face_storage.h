// RigidFaceStorage: the rigid wall faces of a DEM model as rows of arrays, and
// the contact geometry of a sphere against one face.
//
// A row is one RigidFace3D3N (triangle) or RigidFace3D4N (quadrilateral)
// condition of the walls model part: its vertex coordinates and velocities
// (re-read from the nodes every step, so that walls moved by processes or
// scripts are seen where they are) and its material. A sphere touches a face
// on its facet, one of its edges or one of its vertices (Fast Intersection Test
// and Contact Type Hierarchy, thesis §3.3-3.4); the Distance Hierarchy between
// the faces a sphere touches is in distance_hierarchy.h. A RigidEdge2D2N
// segment (2D runs), and a RigidFace3D2N or RigidEdge3D2N segment in 3D runs, is
// a row with two vertices: a disc or sphere touches the segment or an end point
// (the closest point of the segment; edge weights 1 - η, η).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "applications/dem/utilities/neighbour_search.h"
#include "applications/dem/walls/circle_face_intersection.h"
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
  // 1 where every vertex's velocity and last displacement are exactly zero
  // (a wall standing still): its contacts need no wall motion at the point.
  std::vector<std::uint8_t> still;
  std::vector<std::array<IndexType, 4>> nodes;  // positions in the walls' root database
  std::vector<std::uint8_t> vertex_count;       // 3 or 4 (2: a segment)
  std::vector<int> material;
  std::vector<IdType> condition_id;
  FaceBoxes boxes;
  // The plane of a triangle or quadrilateral, kept with its vertices so that
  // the contact test of every candidate does not recompute it: the unit
  // normal (from the vertex order; a warped quadrilateral's from its
  // diagonals), a point of the plane (a quadrilateral's vertex mean), and
  // whether the face spans a plane at all.
  std::vector<Array3> plane_normal, plane_origin;
  std::vector<std::uint8_t> has_plane;
  // Whether the face, seen along its normal, is a convex polygon (every
  // triangle; a quadrilateral whose corners all turn the same way): then a
  // sphere whose centre projects outside one edge's line by more than its
  // lateral reach (FaceContact: from the radius, plane distance and warp) is
  // off the face.
  std::vector<std::uint8_t> convex;
  // The largest distance of a vertex from that plane (a warped
  // quadrilateral's; rounding for a triangle): every point of the face's
  // edges lies within it of the plane.
  std::vector<double> warp;
  // The face's area (a segment's length: unit thickness), from the vertices
  // as its plane is: the walls' nodal area (DEM_NODAL_AREA) sums it every
  // step.
  std::vector<double> area;
  // 1 / the mass of each vertex's node where the walls' nodes carry a
  // NODAL_MASS (non-historical, > 0: the nodes of a deformable structure's
  // skin, set by the DE-FE coupling), else 0 (a rigid wall, of infinite
  // mass); `massive[f]` is 1 where some vertex of face f has a mass.
  std::vector<std::array<double, 4>> inverse_mass;
  std::vector<std::uint8_t> massive;
  // A quadrilateral's four sub-triangles (x_cm, their normals and edge
  // lengths: QuadSubTriangles): what the Area Distributed Method's areas on
  // a warped face need of the face alone, computed once per move rather than
  // per sphere, for the faces `keeps_sub_triangles` marks (`computed` 0 for
  // the others, whose areas compute them per sphere: the same bits).
  std::vector<QuadSubTriangles> sub_triangles;
  // 1 for an area-distributed quadrilateral that some sphere has among its
  // wall candidates (KeepSubTrianglesOf, at each search): a skin's faces
  // away from the spheres move without the sub-triangles.
  std::vector<std::uint8_t> keeps_sub_triangles;

  std::size_t size() const { return material.size(); }
};

// The mass a contact's dashpots are sized with (c = 2 ξ sqrt(m k), thesis
// 2.19) for a sphere of mass `sphere_mass` on face f at the point of weights
// `w`: the sphere's own mass against a rigid face; against a face whose
// nodes have masses M_k, the reduced mass of the sphere and the wall point,
// m_s m_w / (m_s + m_w), where 1/m_w = Σ w_k² / M_k (a force F at the point
// loads node k with w_k F, and the point's velocity is Σ w_k v_k, so the
// point accelerates as a mass m_w would). The restitution coefficient is the
// two bodies' (as for two spheres): a dashpot sized with the sphere's mass
// alone, acting on a light FE node, exceeds that node's damping-reduced
// explicit stability limit.
inline double ContactDampingMass(const RigidFaceStorage& faces, std::size_t f,
                                 const std::array<double, 4>& w, double sphere_mass) {
  double compliance = 0.0;  // 1 / m_w
  for (int k = 0; k < faces.vertex_count[f]; ++k)
    compliance += w[k] * w[k] * faces.inverse_mass[f][k];
  return sphere_mass / (1.0 + sphere_mass * compliance);
}

// Recomputes face f's box, plane, warp, convexity and area from its vertices
// (`points`): after a vertex of a row is moved in place.
void UpdateFaceGeometry(RigidFaceStorage& faces, std::size_t f);

// Marks the faces that keep their sub-triangles (RigidFaceStorage::
// keeps_sub_triangles): the quadrilaterals among `candidate_faces` (the wall
// candidates' faces) flagged in `area_distributed` (none if it is empty);
// computes those of the newly marked.
void KeepSubTrianglesOf(RigidFaceStorage& faces, const std::vector<std::uint32_t>& candidate_faces,
                        const std::vector<std::uint8_t>& area_distributed);

// Fills `faces` from the conditions of `walls`. A RigidFace3D3N/3D4N (3D runs)
// or RigidEdge2D2N (`dimension` 2) passes its Check() (no degenerate face) and
// needs properties with YOUNG_MODULUS and POISSON_RATIO; so do RigidFace3D2N
// and RigidEdge3D2N segments in 3D runs. A wall of the other dimension is an
// error.
void FillRigidFaces(ModelPart& walls, MaterialIndex& materials, RigidFaceStorage& faces,
                    int dimension = 3);

// Re-reads vertex coordinates and velocities from the nodes; the displacement
// since the previous read becomes delta_displacement. Updates the boxes.
void UpdateRigidFaces(ModelPart& walls, RigidFaceStorage& faces);
// UpdateRigidFaces for the faces f with mask[f] == which only (the others
// keep their vertices, velocities and displacements as they are).
void UpdateRigidFacesWhere(ModelPart& walls, RigidFaceStorage& faces,
                           const std::vector<std::uint8_t>& mask, std::uint8_t which);

// The closest feature of face f to a sphere (centre, radius), written to `g`:
// the facet when the centre projects inside the face (boundary included), else
// the closest point of its boundary, an edge or a vertex (thesis §3.3-3.4).
// When the sphere does not reach the face, g.type is kNone and the rest of `g`
// is left as it was: a sphere's loop over its candidate faces, most of them
// out of reach, then writes no whole geometry for each.
enum class FaceContactType : std::uint8_t { kNone = 0, kFacet = 1, kEdge = 2, kVertex = 3 };
struct FaceContactGeometry {
  FaceContactType type = FaceContactType::kNone;
  double distance = 0.0;            // from the centre to the contact point
  Array3 normal{};                  // unit, from the centre towards the contact point
  Array3 point{};                   // the contact point Pc on the face
  std::array<double, 4> weights{};  // shape-function weights of the vertices at Pc
};
void FaceContact(const RigidFaceStorage& faces, std::size_t f, const Array3& centre, double radius,
                 FaceContactGeometry& g);

// Keeps the particle-face candidates (particle[c], face[c]) whose face the
// sphere enlarged by `tolerance` reaches (FaceContact with radius r_i +
// tolerance), in their order. The search's boxes let through every sphere
// near a face's box: for a slanted face most of them are far from the face
// itself, and each would cost a contact test every step until the next search.
void KeepFacesInReach(const RigidFaceStorage& faces, const std::vector<Array3>& position,
                      const std::vector<double>& radius, double tolerance,
                      std::vector<std::uint32_t>& particle, std::vector<std::uint32_t>& face);

}  // namespace tessera::dem
