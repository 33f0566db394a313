// Imposed rigid-body motion of wall sub model parts, read from the
// SubModelPartData of a DEM_FEM_boundary mdpa as Kratos writes it:
//   RIGID_BODY_MOTION 1, LINEAR_VELOCITY [3] (older decks: VELOCITY [3]),
//   VELOCITY_PERIOD, VELOCITY_START_TIME, VELOCITY_STOP_TIME,
//   ANGULAR_VELOCITY [3], ROTATION_CENTER [3], ANGULAR_VELOCITY_PERIOD,
//   ANGULAR_VELOCITY_START_TIME, ANGULAR_VELOCITY_STOP_TIME.
//
// Each velocity acts between its start and stop times; with a period T > 0 it
// is modulated as V sin(2π (t - t_start) / T). The rotation centre travels with
// the translation. Positions are the exact integrals of these velocities from
// the initial coordinates (no drift over long runs):
//   x(t) = c0 + d(t) + R(θ(t)) (x0 - c0),   v = V(t) + ω(t) × (x - c0 - d(t)),
// where d and θ = |Θ| along ω/|ω| are the time integrals of the two velocities.
// The nodes' coordinates, DISPLACEMENT and VELOCITY are written, so contact
// sees the wall where it is and with the velocity at the contact point.
#pragma once

#include <string>
#include <vector>

#include "kernel/core/array3.h"
#include "kernel/core/types.h"

namespace tessera {
class ModelPart;
}

namespace tessera::dem {

struct ImposedWallMotion {
  std::string part;              // full name of the sub model part, for messages
  std::vector<IndexType> nodes;  // positions in the walls' root database
  std::vector<Array3> initial;   // their coordinates when the motion was read
  Array3 linear_velocity{}, angular_velocity{}, rotation_center{};
  double velocity_period = 0.0, velocity_start = 0.0, velocity_stop = 1e300;
  double angular_period = 0.0, angular_start = 0.0, angular_stop = 1e300;
};

// The moving sub model parts of `walls` (RIGID_BODY_MOTION true and a nonzero
// linear or angular velocity), with their nodes' current coordinates as the
// initial ones. A negative period or a stop time before the start time is an
// error naming the part and the key.
std::vector<ImposedWallMotion> ReadImposedWallMotions(ModelPart& walls);

// Where the motion has taken its reference configuration (the coordinates it
// was read with) at `time`: a point x0 of it is at
//   centre + RotateByVector(theta, x0 - m.rotation_center)
// with velocity velocity + angular_velocity × (that point - centre).
struct ImposedMotionState {
  Array3 centre{};            // the rotation centre, moved by the translation
  Array3 theta{};             // rotation vector (angle |theta| about theta / |theta|)
  Array3 velocity{};          // of the translation
  Array3 angular_velocity{};  // of the rotation
};
ImposedMotionState ImposedMotionAt(const ImposedWallMotion& m, double time);

// Rotation of v by the angle |theta| about theta / |theta| (Rodrigues).
Array3 RotateByVector(const Array3& theta, const Array3& v);

// Places the nodes of every motion at time `time` and sets their velocity.
void MoveImposedWalls(ModelPart& walls, const std::vector<ImposedWallMotion>& motions, double time);

}  // namespace tessera::dem
