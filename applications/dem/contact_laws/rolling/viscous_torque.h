// DEMRollingFrictionModelViscousTorque ("model B" of Ai et al. 2011): M_r =
// -μ_r |F_n| R_r (R_r w_rel), proportional to the rolling velocity R_r w_rel;
// here μ_r = ROLLING_FRICTION has units of s/m. (What a model provides:
// rolling/constant_torque.h.)
#pragma once

namespace tessera::dem {

struct ViscousTorqueRolling {
  static constexpr const char* kName = "DEMRollingFrictionModelViscousTorque";

  // μ_r R_r |F_n| (R_r |w_rel|).
  template <class T>
  [[gnu::always_inline]] static T Magnitude(const T& coefficient, const T& rolling_radius,
                                            const T& normal_force, const T& spin) {
    return coefficient * rolling_radius * normal_force * (rolling_radius * spin);
  }
};

}  // namespace tessera::dem
