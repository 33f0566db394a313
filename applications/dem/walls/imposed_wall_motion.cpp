// Imposed rigid-body motion of wall sub model parts (see imposed_wall_motion.h).
#include "applications/dem/walls/imposed_wall_motion.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "applications/dem/dem_variables.h"
#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/model/model_part.h"

namespace tessera::dem {
namespace {

// The factor f(t) of a velocity V f(t) and its integral from 0 to t.
struct Profile {
  double factor = 0.0, integral = 0.0;
};
Profile VelocityProfile(double time, double start, double stop, double period) {
  Profile p;
  const double active = std::clamp(time, start, stop) - start;  // time spent moving
  const bool moving = time >= start && time <= stop;
  if (period > 0.0) {
    const double phase = 2.0 * std::numbers::pi / period;
    p.factor = moving ? std::sin(phase * active) : 0.0;
    p.integral = (1.0 - std::cos(phase * active)) / phase;
  } else {
    p.factor = moving ? 1.0 : 0.0;
    p.integral = active;
  }
  return p;
}

template <class T>
T Value(ModelPart& part, const Variable<T>& variable, T fallback) {
  return part.Has(variable) ? part.GetValue(variable) : fallback;
}

void Collect(ModelPart& part, std::vector<ImposedWallMotion>& motions) {
  for (ModelPart* child : part.SubModelParts()) Collect(*child, motions);
  if (!Value(part, RIGID_BODY_MOTION, false)) return;
  ImposedWallMotion m;
  m.part = part.FullName();
  m.linear_velocity =
      part.Has(LINEAR_VELOCITY) ? part.GetValue(LINEAR_VELOCITY) : Value(part, VELOCITY, Array3{});
  m.angular_velocity = Value(part, ANGULAR_VELOCITY, Array3{});
  if (Norm(m.linear_velocity) == 0.0 && Norm(m.angular_velocity) == 0.0) return;
  m.rotation_center = Value(part, ROTATION_CENTER, Array3{});
  m.velocity_period = Value(part, VELOCITY_PERIOD, 0.0);
  m.velocity_start = Value(part, VELOCITY_START_TIME, 0.0);
  m.velocity_stop = Value(part, VELOCITY_STOP_TIME, 1e300);
  m.angular_period = Value(part, ANGULAR_VELOCITY_PERIOD, 0.0);
  m.angular_start = Value(part, ANGULAR_VELOCITY_START_TIME, 0.0);
  m.angular_stop = Value(part, ANGULAR_VELOCITY_STOP_TIME, 1e300);
  const auto check = [&](bool ok, const char* what) {
    if (!ok) TESSERA_ERROR("wall sub model part ", m.part, ": ", what);
  };
  check(m.velocity_period >= 0.0, "VELOCITY_PERIOD must be >= 0 (0: constant velocity)");
  check(m.angular_period >= 0.0, "ANGULAR_VELOCITY_PERIOD must be >= 0 (0: constant velocity)");
  check(m.velocity_stop >= m.velocity_start, "VELOCITY_STOP_TIME is before VELOCITY_START_TIME");
  check(m.angular_stop >= m.angular_start,
        "ANGULAR_VELOCITY_STOP_TIME is before ANGULAR_VELOCITY_START_TIME");
  for (auto&& node : part.Nodes()) {
    m.nodes.push_back(node.Index());
    m.initial.push_back(node.Coordinates());
  }
  motions.push_back(std::move(m));
}

}  // namespace

Array3 RotateByVector(const Array3& theta, const Array3& v) {
  const double angle = Norm(theta);
  if (!(angle > 0.0)) return v;
  const Array3 k = theta / angle;
  return std::cos(angle) * v + std::sin(angle) * Cross(k, v) +
         (1.0 - std::cos(angle)) * Dot(k, v) * k;
}

ImposedMotionState ImposedMotionAt(const ImposedWallMotion& m, double time) {
  const Profile linear =
      VelocityProfile(time, m.velocity_start, m.velocity_stop, m.velocity_period);
  const Profile angular = VelocityProfile(time, m.angular_start, m.angular_stop, m.angular_period);
  ImposedMotionState state;
  state.centre = m.rotation_center + linear.integral * m.linear_velocity;
  state.theta = angular.integral * m.angular_velocity;
  state.velocity = linear.factor * m.linear_velocity;
  state.angular_velocity = angular.factor * m.angular_velocity;
  return state;
}

std::vector<ImposedWallMotion> ReadImposedWallMotions(ModelPart& walls) {
  std::vector<ImposedWallMotion> motions;
  Collect(walls, motions);
  return motions;
}

void MoveImposedWalls(ModelPart& walls, const std::vector<ImposedWallMotion>& motions,
                      double time) {
  if (motions.empty()) return;
  NodalDatabase& db = walls.Nodal();
  Array3* displacement =
      db.HasHistoricalVariable(DISPLACEMENT) ? db.HistoricalColumn(DISPLACEMENT).Data() : nullptr;
  Array3* velocity =
      db.HasHistoricalVariable(VELOCITY) ? db.HistoricalColumn(VELOCITY).Data() : nullptr;
  for (const ImposedWallMotion& m : motions) {
    const ImposedMotionState state = ImposedMotionAt(m, time);
    for (std::size_t k = 0; k < m.nodes.size(); ++k) {
      const IndexType node = m.nodes[k];
      const Array3 arm = RotateByVector(state.theta, m.initial[k] - m.rotation_center);
      db.Coordinates(node) = state.centre + arm;
      if (displacement) displacement[node] = db.Coordinates(node) - db.InitialCoordinates(node);
      if (velocity) velocity[node] = state.velocity + Cross(state.angular_velocity, arm);
    }
  }
}

}  // namespace tessera::dem
