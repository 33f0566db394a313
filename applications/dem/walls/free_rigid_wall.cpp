// Free rigid-body walls (see free_rigid_wall.h).
#include "applications/dem/walls/free_rigid_wall.h"

#include <cmath>
#include <unordered_map>

#include "applications/dem/dem_variables.h"
#include "applications/dem/strategies/gear_scheme.h"
#include "applications/dem/walls/rigid_face_storage.h"
#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/model/model_part.h"

namespace tessera::dem {
namespace {

Array3 Multiply(const Matrix33& a, const Array3& x) {
  return {Dot(a[0], x), Dot(a[1], x), Dot(a[2], x)};
}
Array3 MultiplyTransposed(const Matrix33& a, const Array3& x) {
  return x[0] * a[0] + x[1] * a[1] + x[2] * a[2];
}

// exp([θ]x): the rotation by |θ| about θ / |θ| (Rodrigues), as rows.
Matrix33 RotationMatrix(const Array3& theta) {
  const double angle = Norm(theta);
  Matrix33 q{Array3{1, 0, 0}, Array3{0, 1, 0}, Array3{0, 0, 1}};
  if (!(angle > 0.0)) return q;
  const Array3 k = theta / angle;
  const double c = std::cos(angle), s = std::sin(angle), t = 1.0 - c;
  q[0] = {c + t * k[0] * k[0], t * k[0] * k[1] - s * k[2], t * k[0] * k[2] + s * k[1]};
  q[1] = {t * k[1] * k[0] + s * k[2], c + t * k[1] * k[1], t * k[1] * k[2] - s * k[0]};
  q[2] = {t * k[2] * k[0] - s * k[1], t * k[2] * k[1] + s * k[0], c + t * k[2] * k[2]};
  return q;
}

// Q R: row i of the product is sum_k Q[i][k] R[k].
Matrix33 Turn(const Matrix33& q, const Matrix33& r) {
  Matrix33 out;
  for (int i = 0; i < 3; ++i) out[i] = q[i][0] * r[0] + q[i][1] * r[1] + q[i][2] * r[2];
  return out;
}

bool ImposedNow(const FreeRigidWall& b, double time) {
  return time >= b.imposed_start && time <= b.imposed_stop;
}

// ω = R I^-1 R^T L, then the imposed angular components (L follows them).
void UpdateAngularVelocity(FreeRigidWall& b, double time) {
  // R maps body to world components; R^T L are the body components of L.
  const Array3 l_body = MultiplyTransposed(b.rotation, b.angular_momentum);
  const Array3 w_body = {l_body[0] / b.inertia[0], l_body[1] / b.inertia[1],
                         l_body[2] / b.inertia[2]};
  b.angular_velocity = Multiply(b.rotation, w_body);
  if (!ImposedNow(b, time)) return;
  bool any = false;
  for (int k = 0; k < 3; ++k)
    if (b.imposed[3 + k]) b.angular_velocity[k] = b.imposed_value[3 + k], any = true;
  if (!any) return;
  const Array3 w = MultiplyTransposed(b.rotation, b.angular_velocity);
  b.angular_momentum =
      Multiply(b.rotation, Array3{b.inertia[0] * w[0], b.inertia[1] * w[1], b.inertia[2] * w[2]});
}

template <class T>
T Value(ModelPart& part, const Variable<T>& variable, T fallback) {
  return part.Has(variable) ? part.GetValue(variable) : fallback;
}

void Collect(ModelPart& part, const std::vector<std::string>& excluded,
             std::vector<FreeRigidWall>& bodies) {
  for (ModelPart* child : part.SubModelParts()) Collect(*child, excluded, bodies);
  if (!Value(part, FREE_BODY_MOTION, false)) return;
  FreeRigidWall b;
  b.part = part.FullName();
  for (const std::string& name : excluded)
    if (name == b.part) return;
  const auto check = [&](bool ok, auto... what) {
    if (!ok) TESSERA_ERROR("wall sub model part ", b.part, " (FREE_BODY_MOTION 1): ", what...);
  };
  check(part.Has(RIGID_BODY_MASS), "RIGID_BODY_MASS is missing");
  b.mass = part.GetValue(RIGID_BODY_MASS);
  check(b.mass > 0.0 && std::isfinite(b.mass), "RIGID_BODY_MASS must be > 0, got ", b.mass);
  check(part.Has(RIGID_BODY_INERTIAS), "RIGID_BODY_INERTIAS [3] (principal moments) is missing");
  b.inertia = part.GetValue(RIGID_BODY_INERTIAS);
  for (int k = 0; k < 3; ++k)
    check(b.inertia[k] > 0.0 && std::isfinite(b.inertia[k]),
          "RIGID_BODY_INERTIAS must be > 0 in every component, got ", b.inertia);
  const bool imposed_motion = Value(part, RIGID_BODY_MOTION, false) &&
                              (Norm(Value(part, LINEAR_VELOCITY, Array3{})) > 0.0 ||
                               Norm(Value(part, ANGULAR_VELOCITY, Array3{})) > 0.0);
  check(!imposed_motion,
        "RIGID_BODY_MOTION 1 with a LINEAR_VELOCITY or ANGULAR_VELOCITY imposes the motion of a "
        "free body; use FREE_BODY_MOTION 0 or IMPOSED_VELOCITY_*_VALUE components");
  // Kratos places the body at the origin when no centre of mass is given.
  b.centre = b.initial_centre = Value(part, RIGID_BODY_CENTER_OF_MASS, Array3{});
  const Variable<double>* initial[6] = {
      &INITIAL_VELOCITY_X_VALUE,         &INITIAL_VELOCITY_Y_VALUE,
      &INITIAL_VELOCITY_Z_VALUE,         &INITIAL_ANGULAR_VELOCITY_X_VALUE,
      &INITIAL_ANGULAR_VELOCITY_Y_VALUE, &INITIAL_ANGULAR_VELOCITY_Z_VALUE};
  const Variable<double>* imposed[6] = {
      &IMPOSED_VELOCITY_X_VALUE,         &IMPOSED_VELOCITY_Y_VALUE,
      &IMPOSED_VELOCITY_Z_VALUE,         &IMPOSED_ANGULAR_VELOCITY_X_VALUE,
      &IMPOSED_ANGULAR_VELOCITY_Y_VALUE, &IMPOSED_ANGULAR_VELOCITY_Z_VALUE};
  for (int k = 0; k < 6; ++k) {
    const double v0 = Value(part, *initial[k], 0.0);
    (k < 3 ? b.velocity[k] : b.angular_velocity[k - 3]) = v0;
    b.imposed[k] = part.Has(*imposed[k]);
    if (b.imposed[k]) b.imposed_value[k] = part.GetValue(*imposed[k]);
  }
  b.imposed_start = Value(part, VELOCITY_START_TIME, 0.0);
  b.imposed_stop = Value(part, VELOCITY_STOP_TIME, 1e300);
  check(b.imposed_stop >= b.imposed_start, "VELOCITY_STOP_TIME is before VELOCITY_START_TIME");
  b.applied_force = Value(part, EXTERNAL_APPLIED_FORCE, Array3{});
  b.applied_moment = Value(part, EXTERNAL_APPLIED_MOMENT, Array3{});
  b.angular_momentum = {b.inertia[0] * b.angular_velocity[0], b.inertia[1] * b.angular_velocity[1],
                        b.inertia[2] * b.angular_velocity[2]};
  for (auto&& node : part.Nodes()) {
    b.nodes.push_back(node.Index());
    b.body_offset.push_back(node.Coordinates() - b.centre);
  }
  check(!b.nodes.empty(), "the part has no nodes");
  bodies.push_back(std::move(b));
}

}  // namespace

void ReadFreeWallLoads(ModelPart& walls, std::vector<FreeRigidWall>& bodies) {
  if (bodies.empty()) return;
  auto visit = [&](auto&& self, ModelPart& part) -> void {
    for (ModelPart* child : part.SubModelParts()) self(self, *child);
    if (!Value(part, FREE_BODY_MOTION, false)) return;
    const std::string name = part.FullName();
    for (FreeRigidWall& b : bodies)
      if (b.part == name) {
        b.applied_force = Value(part, EXTERNAL_APPLIED_FORCE, Array3{});
        b.applied_moment = Value(part, EXTERNAL_APPLIED_MOMENT, Array3{});
      }
  };
  visit(visit, walls);
}

std::vector<FreeRigidWall> ReadFreeRigidWalls(ModelPart& walls,
                                              const std::vector<std::string>& excluded) {
  std::vector<FreeRigidWall> bodies;
  Collect(walls, excluded, bodies);
  std::unordered_map<IndexType, std::size_t> owner;
  for (std::size_t b = 0; b < bodies.size(); ++b)
    for (IndexType node : bodies[b].nodes) {
      const auto [it, inserted] = owner.emplace(node, b);
      if (!inserted)
        TESSERA_ERROR("wall sub model parts ", bodies[it->second].part, " and ", bodies[b].part,
                      " are both FREE_BODY_MOTION bodies and share a node; a node can move with "
                      "one rigid body only");
    }
  return bodies;
}

std::vector<int> FreeWallOfFaces(const std::vector<FreeRigidWall>& bodies,
                                 const RigidFaceStorage& faces, std::size_t node_count) {
  std::vector<int> node_body(node_count, -1);
  for (std::size_t b = 0; b < bodies.size(); ++b)
    for (IndexType node : bodies[b].nodes) node_body[node] = static_cast<int>(b);
  std::vector<int> face_body(faces.size(), -1);
  for (std::size_t f = 0; f < faces.size(); ++f) {
    const int first = node_body[faces.nodes[f][0]];
    bool whole = first >= 0;
    for (int k = 1; k < faces.vertex_count[f]; ++k)
      whole = whole && node_body[faces.nodes[f][k]] == first;
    face_body[f] = whole ? first : -1;
  }
  return face_body;
}

void KickFreeWall(FreeRigidWall& b, const Array3& gravity, double h, double time) {
  const Array3 force = b.contact_force + b.applied_force + b.mass * gravity;
  const bool imposed = ImposedNow(b, time);
  for (int k = 0; k < 3; ++k)
    b.velocity[k] =
        imposed && b.imposed[k] ? b.imposed_value[k] : b.velocity[k] + h * force[k] / b.mass;
  b.angular_momentum += h * (b.contact_moment + b.applied_moment);
  UpdateAngularVelocity(b, time);
}

namespace {
// The rotational half of DriftFreeWall.
void TurnFreeWall(FreeRigidWall& b, double dt, double time) {
  // The orientation turns with ω of the half-turned body (explicit midpoint,
  // second order; ω changes within the step when the inertia is anisotropic).
  const Matrix33 start = b.rotation;
  b.rotation = Turn(RotationMatrix(0.5 * dt * b.angular_velocity), start);
  UpdateAngularVelocity(b, time);
  b.rotation = Turn(RotationMatrix(dt * b.angular_velocity), start);
  UpdateAngularVelocity(b, time);
}

// The rotational half of KickFreeWall: L += M h.
void KickFreeWallRotation(FreeRigidWall& b, double h, double time) {
  b.angular_momentum += h * (b.contact_moment + b.applied_moment);
  UpdateAngularVelocity(b, time);
}
}  // namespace

void DriftFreeWall(FreeRigidWall& b, double dt, double time) {
  b.centre += dt * b.velocity;
  TurnFreeWall(b, dt, time);
}

void StartFreeWallGear(FreeRigidWall& b, const Array3& gravity, double virtual_mass) {
  const Array3 force = b.contact_force + b.applied_force + b.mass * gravity;
  b.gear = {force * (virtual_mass / b.mass), Array3{}, Array3{}};
}

void GearPredictFreeWall(FreeRigidWall& b, double dt, double virtual_mass, double time) {
  const bool imposed = ImposedNow(b, time);
  for (int k = 0; k < 3; ++k) {
    const bool held = imposed && b.imposed[k];
    if (held) {
      b.velocity[k] = b.imposed_value[k];
      b.gear[0][k] = b.gear[1][k] = b.gear[2][k] = 0.0;
    }
    b.centre[k] += GearPredict(b.velocity[k], b.gear[0][k], b.gear[1][k], b.gear[2][k], dt, held);
  }
  KickFreeWallRotation(b, virtual_mass * 0.5 * dt, time);
  TurnFreeWall(b, dt, time);
}

void GearCorrectFreeWall(FreeRigidWall& b, const Array3& gravity, double virtual_mass, double dt,
                         double time) {
  const Array3 force = b.contact_force + b.applied_force + b.mass * gravity;
  const bool imposed = ImposedNow(b, time);
  for (int k = 0; k < 3; ++k) {
    const bool held = imposed && b.imposed[k];
    b.centre[k] += GearCorrect(b.velocity[k], b.gear[0][k], b.gear[1][k], b.gear[2][k],
                               force[k] * virtual_mass / b.mass, dt, held);
  }
  KickFreeWallRotation(b, virtual_mass * 0.5 * dt, time);
}

void PlaceFreeWallNodes(ModelPart& walls, const FreeRigidWall& b) {
  NodalDatabase& db = walls.Nodal();
  Array3* displacement =
      db.HasHistoricalVariable(DISPLACEMENT) ? db.HistoricalColumn(DISPLACEMENT).Data() : nullptr;
  Array3* velocity =
      db.HasHistoricalVariable(VELOCITY) ? db.HistoricalColumn(VELOCITY).Data() : nullptr;
  Array3* spin = db.HasHistoricalVariable(ANGULAR_VELOCITY)
                     ? db.HistoricalColumn(ANGULAR_VELOCITY).Data()
                     : nullptr;
  for (std::size_t k = 0; k < b.nodes.size(); ++k) {
    const IndexType node = b.nodes[k];
    const Array3 arm = Multiply(b.rotation, b.body_offset[k]);
    db.Coordinates(node) = b.centre + arm;
    if (displacement) displacement[node] = db.Coordinates(node) - db.InitialCoordinates(node);
    if (velocity) velocity[node] = b.velocity + Cross(b.angular_velocity, arm);
    if (spin) spin[node] = b.angular_velocity;
  }
}

}  // namespace tessera::dem
