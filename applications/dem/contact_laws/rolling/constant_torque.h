// DEMRollingFrictionModelConstantTorque: thesis eq. 2.42 ("model A" of
// Wensrich & Katterfeld / Ai et al. 2011): M_r = -μ_r R_r |F_n| w_rel /
// |w_rel|, μ_r = ROLLING_FRICTION [-]. A rolling friction model is a struct
// of static members (rolling_friction.h lists the models): kName, its Kratos
// name, and Magnitude, |M_r| before the one-step limit, a template over the
// number type (double, or the batch kernel's lanes).
#pragma once

namespace tessera::dem {

struct ConstantTorqueRolling {
  static constexpr const char* kName = "DEMRollingFrictionModelConstantTorque";

  // μ_r R_r |F_n|.
  template <class T>
  [[gnu::always_inline]] static T Magnitude(const T& coefficient, const T& rolling_radius,
                                            const T& normal_force, const T& /*spin*/) {
    return coefficient * rolling_radius * normal_force;
  }
};

}  // namespace tessera::dem
