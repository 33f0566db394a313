// The Area Distributed Method (thesis §4.3.3, App. B) for the wall contacts
// of one sphere: how the force of a contact reaches the faces it rests on.
//
// Direct interpolation gives each contact's force to its own face, with the
// shape functions at the contact point (4.57). When a flat face kinks under
// the sphere into two, one contact becomes two and the total force jumps
// (§4.3.2 b). ADM makes the force follow the sphere's intersection area
// instead:
//   - every face the sphere reaches (the Fast Intersection Test, before the
//     Distance Hierarchy) is a slave of the contact that shadows it (the
//     Distance Hierarchy's elimination, followed to a surviving contact), and
//     every surviving contact is a master and a slave of itself (App. B);
//   - A_e: the area of the circle the sphere cuts in the face's plane, inside
//     the face (App. C, circle_face_intersection.h), with its centroid x̄_e;
//     A_m = Σ of the master's slaves' A_e, A_T = Σ A_e;
//   - the master's normal force is scaled by A_m / A_T (B.1);
//   - the master's force reaches slave e in the share A_e / A_m, spread over
//     e's nodes with the shape functions at x̄_e (B.2).
// The sum over the nodes is the sum of the (scaled) forces on the sphere, as
// with direct interpolation. Segment walls have no area: where the sphere's
// faces have none at all (A_T = 0) the contacts keep direct interpolation.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "applications/dem/walls/rigid_face_storage.h"

namespace tessera::dem {

// How the force of a wall contact reaches the wall's nodes.
enum class WallForceTransfer : std::uint8_t {
  kDirect = 0,           // the contact's face, shape functions at the contact point (4.57)
  kAreaDistributed = 1,  // ADM (App. B)
};

// "direct" / "area_distributed"; anything else is an error naming `where` and both.
WallForceTransfer WallForceTransferFromName(const std::string& name, const std::string& where);
const char* WallForceTransferName(WallForceTransfer transfer);

// One candidate face of a sphere under ADM.
struct AreaShare {
  int master = -1;    // the contact whose force it carries (index among the candidates), -1: none
  double area = 0.0;  // A_e (0 for a face the sphere does not reach)
  std::array<double, 4> weights{};  // the face's shape functions at x̄_e
};

// The surface a master contact presses on under ADM: the area-weighted mean
// over its slave faces e (A_e / A_m) of their planes' distance from the
// sphere's centre d_e, their normals (from the centre towards the plane, as
// FaceContactGeometry's; then normalised)
// and the motion of their intersection centroids x̄_e (velocity and last
// displacement, the face's shape functions at x̄_e).
//
// The thesis (B.1) evaluates the master's force with the master face's own
// overlap and normal, and its motion at the master's contact point, while
// the force reaches the faces at their centroids: where the faces move
// apart (a dent forming under the sphere), the power the sphere gives the
// wall (force times the contact point's velocity) is not the power the
// faces receive (the shares times their centroids' velocities), and the
// coupled energy drifts. With the overlap R - Σ (A_e/A_m) d_e, since x̄_e
// lies in the plane of e, its rate is the sphere's velocity against the
// centroids' (the weights held): the powers agree but for the faces'
// rotation. On one flat face, or coplanar ones, it is the thesis' force.
// Faces turned from the master's normal by kSameSurfaceAngle or more (the
// other side of a convex edge) count with the master's own distance and
// normal; from half of it they blend in, so that the surface stays
// continuous.
// (30°: V4.4's energy drift was smallest with it among 15-45°,
// applications/coupling/benchmarks/v4_4_prism_in_box.py.)
inline constexpr double kSameSurfaceAngle = 0.5235987755982988;  // 30°
struct MasterSurface {
  double distance = 0.0;
  Array3 normal{};
  Array3 velocity{}, displacement{};
};

// Fills surface[m] for every master m with master_area[m] > 0 from the
// shares that DistributeByArea wrote.
void AverageMasterSurfaces(const RigidFaceStorage& faces, const std::uint32_t* face_ids,
                           std::size_t count, const Array3& centre, const AreaShare* shares,
                           const double* master_area, const FaceContactGeometry* kept,
                           MasterSurface* surface);

// Per face row, 1 where its contacts use ADM: every face with `transfer`
// kAreaDistributed, else the faces of the sub model parts of `walls` named in
// `parts` (names below `walls` or full names; an unknown name is an error
// listing the wall parts).
std::vector<std::uint8_t> AreaDistributedFaces(ModelPart& walls, const RigidFaceStorage& faces,
                                               WallForceTransfer transfer,
                                               const std::vector<std::string>& parts);

// A_e and the weights at x̄_e of face f for a sphere (centre, radius): the
// circle it cuts in the face's plane, inside the face (App. C; a warped
// quadrilateral sub-triangle by sub-triangle); 0 for a segment or a face
// the sphere does not cut. Leaves share.master as it is.
void CircleFaceAreaShare(const RigidFaceStorage& faces, std::uint32_t f, const Array3& centre,
                         double radius, AreaShare& share);

// ADM for the `count` candidate faces of one sphere (centre, radius):
// `reached[c]` whether the sphere reaches face face_ids[c] (before the Distance
// Hierarchy) and the face is under ADM, `shadowed_by` the hierarchy's eliminations
// (ApplyDistanceHierarchy), `kept` the contacts it kept. Writes shares[c] and,
// per master m, master_area[m] = A_m; returns A_T.
double DistributeByArea(const RigidFaceStorage& faces, const std::uint32_t* face_ids,
                        std::size_t count, const Array3& centre, double radius,
                        const std::uint8_t* reached, const int* shadowed_by,
                        const FaceContactGeometry* kept, AreaShare* shares, double* master_area);

}  // namespace tessera::dem
