// Non-viscous background damping of a particle's unbalanced force and torque
// (GlobalDamping α, quasi-static runs), in one of two forms:
//
//   vector (default): the thesis' eq. 5.18-5.19, one force against the motion,
//     F -= α |F| v/|v|,  T -= α |T| ω/|ω|;
//   per_component: Kratos' SphericParticle, each Cartesian component on its
//     own (Cundall's local damping), F_k *= 1 - α sign(F_k v_k), the same for
//     T and ω; components whose velocity is imposed are left alone.
//
// Both oppose the motion with α of the unbalanced force: a force that drives
// the motion is reduced, one that brakes it enlarged. They agree where force
// and velocity are parallel and differ elsewhere (Kratos' DEM3D_contact_models
// deck: docs/validation.md).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "applications/dem/strategies/row_integration.h"
#include "kernel/core/array3.h"
#include "kernel/core/error.h"

namespace tessera::dem {

enum class GlobalDampingForm : std::uint8_t { kVector, kPerComponent };

inline GlobalDampingForm GlobalDampingFormFromName(const std::string& name,
                                                   const std::string& where) {
  if (name == "vector") return GlobalDampingForm::kVector;
  if (name == "per_component") return GlobalDampingForm::kPerComponent;
  TESSERA_ERROR(where, ": unknown global damping form '", name,
                "'; expected \"vector\" (thesis 5.18) or \"per_component\" (Kratos)");
}

inline const char* GlobalDampingFormName(GlobalDampingForm form) {
  return form == GlobalDampingForm::kPerComponent ? "per_component" : "vector";
}

// Damps `force` and `torque` of a particle moving at `velocity`, `spin` with
// imposed dofs `fixed` (FixedBits); returns the power the damping takes out,
// -F_d · v - T_d · ω >= 0.
inline double ApplyGlobalDamping(GlobalDampingForm form, double alpha, std::uint8_t fixed,
                                 const Array3& velocity, const Array3& spin, Array3& force,
                                 Array3& torque) {
  if (form == GlobalDampingForm::kVector) {
    const double speed = Norm(velocity), rate = Norm(spin);
    const double force_norm = Norm(force), torque_norm = Norm(torque);
    if (speed > 0.0) force -= (alpha * force_norm / speed) * velocity;
    if (rate > 0.0) torque -= (alpha * torque_norm / rate) * spin;
    return alpha * (force_norm * speed + torque_norm * rate);
  }
  // F_k (1 - α sign(F_k v_k)) changes F_k by -α |F_k| sign(v_k): power α |F_k v_k|.
  double power = 0.0;
  const auto damp = [&](double& f, double v, bool imposed) {
    const double product = f * v;
    if (imposed || product == 0.0) return;
    f *= product > 0.0 ? 1.0 - alpha : 1.0 + alpha;
    power += alpha * std::abs(product);
  };
  for (int k = 0; k < 3; ++k) {
    damp(force[k], velocity[k], FixedDof(fixed, k));
    damp(torque[k], spin[k], FixedDof(fixed, 3 + k));
  }
  return power;
}

}  // namespace tessera::dem
