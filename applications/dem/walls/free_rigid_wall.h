// Free rigid-body walls: wall sub model parts that move as one rigid body under
// the particles' contact forces, gravity and an applied force and moment, read
// from the SubModelPartData of a DEM_FEM_boundary mdpa as Kratos writes it:
//   FREE_BODY_MOTION 1, RIGID_BODY_MASS, RIGID_BODY_CENTER_OF_MASS [3],
//   RIGID_BODY_INERTIAS [3] (principal moments about body axes that coincide
//   with x, y, z at the start), INITIAL_VELOCITY_{X,Y,Z}_VALUE,
//   INITIAL_ANGULAR_VELOCITY_{X,Y,Z}_VALUE, EXTERNAL_APPLIED_FORCE_{X,Y,Z},
//   EXTERNAL_APPLIED_MOMENT_{X,Y,Z}, IMPOSED_VELOCITY_{X,Y,Z}_VALUE and
//   IMPOSED_ANGULAR_VELOCITY_{X,Y,Z}_VALUE (a component held at that value
//   while VELOCITY_START_TIME <= t <= VELOCITY_STOP_TIME, free otherwise).
// Like Kratos' rigid body element, the body feels m g.
//
// Motion (Newton-Euler about the centre of mass c):
//   m dv/dt = F,   dL/dt = M,   L = R I R^T ω,   dR/dt = [ω]x R,
// with the world angular momentum L as the rotational state: a kick adds
// M h to L exactly, and a drift turns the orientation R by the rotation vector
// ω dt (exact exponential map, Rodrigues), with ω = R I^-1 R^T L taken at the
// half-turned orientation (explicit midpoint: second order for anisotropic
// inertia, exact about a principal axis), ω re-derived from L afterwards. The
// strategy composes kicks and drifts to match the particles' scheme
// (dem_strategy.cpp). Nodes are placed rigidly, x = c + R X_body, with
// velocity v + ω × (x - c).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "kernel/core/array3.h"
#include "kernel/core/types.h"

namespace tessera {
class ModelPart;
}

namespace tessera::dem {

struct RigidFaceStorage;

// Rows of a 3 x 3 matrix.
using Matrix33 = std::array<Array3, 3>;

struct FreeRigidWall {
  std::string part;  // full name of the sub model part, for messages
  double mass = 0.0;
  Array3 inertia{};  // principal moments, body frame
  Array3 centre{}, velocity{}, angular_velocity{}, angular_momentum{};
  Matrix33 rotation{Array3{1, 0, 0}, Array3{0, 1, 0}, Array3{0, 0, 1}};  // body -> world
  Array3 applied_force{}, applied_moment{};
  // Imposed components: velocity x, y, z then angular velocity x, y, z.
  std::array<bool, 6> imposed{};
  std::array<double, 6> imposed_value{};
  double imposed_start = 0.0, imposed_stop = 1e300;
  // Resultant of the particles' contacts on the body (moment about the centre)
  // at the last force evaluation.
  Array3 contact_force{}, contact_moment{};
  std::vector<IndexType> nodes;     // positions in the walls' root database
  std::vector<Array3> body_offset;  // X - c at the start (the body frame)
  Array3 initial_centre{};
  // Gear_Predictor_Corrector only: the centre's acceleration and its first
  // two rates (strategies/gear_scheme.h).
  std::array<Array3, 3> gear{};
};

// The moment about the body's centre of a contact whose force on the
// particle is `force`, at `point`, with rolling resistance torque `rolling`
// on the particle: what a contact adds to contact_moment (the serial sum and
// the distributed run's, written once so both have the same bits).
inline Array3 ContactMomentOnWall(const FreeRigidWall& body, const Array3& point,
                                  const Array3& force, const Array3& rolling) {
  return Cross(point - body.centre, -force) - rolling;
}

// The sub model parts of `walls` (any depth) with FREE_BODY_MOTION true, except
// those named in `excluded` (full names; walls that a process moves). Errors
// name the part and the key: RIGID_BODY_MASS or an inertia missing or <= 0, a
// part that also has an imposed RIGID_BODY_MOTION velocity, a node in two free
// bodies, VELOCITY_STOP_TIME before VELOCITY_START_TIME.
std::vector<FreeRigidWall> ReadFreeRigidWalls(ModelPart& walls,
                                              const std::vector<std::string>& excluded);

// The applied loads (EXTERNAL_APPLIED_FORCE / _MOMENT of each body's sub model
// part, zero where absent) read again, as a process may change them between
// steps (apply_forces_and_moments_to_walls_process).
void ReadFreeWallLoads(ModelPart& walls, std::vector<FreeRigidWall>& bodies);

// Per face row of `faces`, the free wall it belongs to (all its nodes in that
// body), or -1.
std::vector<int> FreeWallOfFaces(const std::vector<FreeRigidWall>& bodies,
                                 const RigidFaceStorage& faces, std::size_t node_count);

// v += (F + m g) h / m and L += M h, with F, M the contact resultant plus the
// applied load; then the imposed components at `time`.
void KickFreeWall(FreeRigidWall& body, const Array3& gravity, double h, double time);
// c += v dt, R <- exp([ω_mid dt]x) R, ω from L (imposed components kept).
void DriftFreeWall(FreeRigidWall& body, double dt, double time);
// Gear_Predictor_Corrector (strategies/gear_scheme.h) for the translation:
// the centre and v predicted by their Taylor series from a, a', a'' before
// the forces, corrected with a = (F + m g) c / m after them (c the
// VirtualMassCoefficient); imposed components move at their value. The
// rotation as under Velocity Verlet: a half kick of L and the turn with the
// prediction, the other half kick with the correction.
void StartFreeWallGear(FreeRigidWall& body, const Array3& gravity, double virtual_mass);
void GearPredictFreeWall(FreeRigidWall& body, double dt, double virtual_mass, double time);
void GearCorrectFreeWall(FreeRigidWall& body, const Array3& gravity, double virtual_mass, double dt,
                         double time);
// Node coordinates, DISPLACEMENT, VELOCITY and (when declared) ANGULAR_VELOCITY.
void PlaceFreeWallNodes(ModelPart& walls, const FreeRigidWall& body);

}  // namespace tessera::dem
