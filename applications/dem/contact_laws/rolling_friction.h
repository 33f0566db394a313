// Rolling resistance of a contact (RollingFrictionOption), chosen per material
// pair by DEM_ROLLING_FRICTION_MODEL_NAME as Kratos names the models:
//
//   DEMRollingFrictionModelConstantTorque  thesis eq. 2.42 ("model A" of
//       Wensrich & Katterfeld / Ai et al. 2011):
//       M_r = -mu_r R_r |F_n| w_rel / |w_rel|, mu_r = ROLLING_FRICTION [-]
//   DEMRollingFrictionModelViscousTorque   ("model B" of Ai et al. 2011):
//       M_r = -mu_r |F_n| R_r (R_r w_rel), proportional to the rolling velocity
//       R_r w_rel; here mu_r = ROLLING_FRICTION has units of s/m.
//
// R_r is the smaller radius of the two spheres and the sphere's radius against a
// wall (thesis §2.5.3-2.5.4); against walls mu_r is the material relation's
// ROLLING_FRICTION as well (Kratos), ROLLING_FRICTION_WITH_WALLS only in legacy
// decks without relations. w_rel = w_i - w_j (w_i against a wall); the
// torque acts on i, its opposite on j.
//
// Limit: within one step the torque alone must not reverse the relative
// rotation: |M_r| dt (1/I_i + 1/I_j) <= |w_rel|, i.e. at most the torque that
// brings w_rel to zero in this step. Without it a constant torque makes w_rel
// chatter around zero at rest (the instability Irazábal's variant addresses).
#pragma once

#include <cstdint>
#include <string>

#include "kernel/core/array3.h"

namespace tessera::dem {

enum class RollingFrictionModel : std::uint8_t { kNone = 0, kConstantTorque, kViscousTorque };

// The model of a Kratos name; an unknown name is an error listing the known ones.
RollingFrictionModel RollingFrictionModelFromName(const std::string& name,
                                                  const std::string& where);
const char* RollingFrictionModelName(RollingFrictionModel model);

// Torque on body i (j gets the opposite). `inverse_inertia_sum` = 1/I_i + 1/I_j
// (1/I_i against a wall).
inline Array3 RollingResistanceTorque(RollingFrictionModel model, double coefficient,
                                      double rolling_radius, double normal_force,
                                      const Array3& relative_angular_velocity,
                                      double inverse_inertia_sum, double dt) {
  if (model == RollingFrictionModel::kNone) return Array3{};
  const double spin = Norm(relative_angular_velocity);
  if (!(spin > 0.0) || !(normal_force > 0.0)) return Array3{};
  double magnitude = coefficient * rolling_radius * normal_force;
  // Every model by name, no default: a new one is a -Wswitch warning here.
  switch (model) {
    case RollingFrictionModel::kConstantTorque:
      break;
    case RollingFrictionModel::kViscousTorque:
      magnitude *= rolling_radius * spin;
      break;
    case RollingFrictionModel::kNone:
      return Array3{};
  }
  const double stopping = spin / (dt * inverse_inertia_sum);
  if (magnitude > stopping) magnitude = stopping;
  return (-magnitude / spin) * relative_angular_velocity;
}

}  // namespace tessera::dem
