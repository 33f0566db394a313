// The force of one contact: the inner loop of the DEM strategy, inline and
// without virtual calls (one branch on the pair's law, over the list of laws
// in contact_laws.h). Formulas and their sources are listed in contact_law.h
// and in each law's header (laws/).
#pragma once

#include <cmath>
#include <cstdint>

#include "applications/dem/contact_laws/contact_law.h"
#include "applications/dem/contact_laws/contact_laws.h"

namespace tessera::dem {

// What a contact carries from one step to the next.
struct ContactHistoryRef {
  Array3& tangential_force;      // elastic tangential force on the first body
  double& tangential_stiffness;  // k_t of the previous step (0: new contact)
  double& normal_elastic_force;  // F_ne of the previous step
  std::uint8_t& sliding;         // slid in the previous step
};

// A sphere pair's spring and the stiffness and normal force it was made with,
// as one record: the pair lists keep one per candidate, and the contact law
// reads and writes all of it at once, so that a touching contact costs one or
// two cache lines rather than one per field (in a loose packing nearly every
// touching contact's lines are its own). Its sliding flag lives in the
// candidate's state byte (PairState), which the touching test reads anyway.
struct PairHistory {
  Array3 tangential_force{};
  double tangential_stiffness = 0.0;
  double normal_elastic_force = 0.0;
};
static_assert(sizeof(PairHistory) == 5 * sizeof(double));
// Every law's history fits the record (a law that keeps more fails here, by name).
template <class Laws>
constexpr bool HistoriesFit() {
  Laws::ForEach([]<class L>(std::type_identity<L>) {
    static_assert(L::kHistoryDoubles <= sizeof(PairHistory) / sizeof(double),
                  "the law keeps more history than PairHistory holds");
  });
  return true;
}
static_assert(HistoriesFit<ContactLaws>());

// The bits of a pair candidate's state byte: whether it touched at its last
// evaluation, and whether it slid then. Zero: apart, with a cleared history.
enum PairState : std::uint8_t { kPairTouching = 1, kPairSliding = 2 };

struct ContactForce {
  Array3 force;          // on the first body (the second gets -force)
  Array3 elastic_force;  // its elastic part (normal elastic + tangential spring)
  double normal_force = 0.0;
  double elastic_energy = 0.0;  // normal elastic energy stored in the contact
  // Power of the dissipative parts at this evaluation (energy_bookkeeping.h):
  // the dashpots (normal, and tangential while sticking) and the slider.
  double damping_power = 0.0;
  double friction_power = 0.0;
};

// Kratos' friction coefficient at squared tangential sliding speed v2, for a
// pair with FRICTION_DECAY (p.friction_decay >= 0).
inline double DecayedFriction(const PairParameters& p, double v2) {
  return p.dynamic_friction +
         (p.static_friction - p.dynamic_friction) * std::exp(-p.friction_decay * std::sqrt(v2));
}

// Force on body i of a contact with body j. `normal` is the unit vector from i
// towards j, `overlap` > 0, `relative_velocity` the velocity of j relative to i at
// the contact point and `relative_displacement` its increment over the last step
// (thesis eq. 2.10, 2.31). `radius` and `mass` are the pair's equivalent values;
// `dt` the time step (for the slider's dissipated power);
// `tangential_damping_factor`, when >= 0, is TangentialDampingFactor(p).
// Always inlined: it is the body of the contact loops, and a call per contact
// costs as much as the arithmetic (and outputs a caller ignores cost nothing).
// `Laws`: the list of laws p.law indexes (a test's list may add its own).
template <class Laws = ContactLaws>
[[gnu::always_inline]] inline ContactForce ComputeContactForce(
    const PairParameters& p, double overlap, double radius, double mass, const Array3& normal,
    const Array3& relative_velocity, const Array3& relative_displacement, ContactHistoryRef history,
    double dt, double tangential_damping_factor = -1.0) {
  double kn, kt, fne, energy;
  Laws::Visit(p.law, [&]<class L>(std::type_identity<L>) {
    L::template Elastic<double, ScalarMath>(p.effective_young, p.effective_shear, radius, overlap,
                                            kn, kt, fne);
    energy = L::Energy(fne, overlap);
  });
  const double xi = p.damping_ratio;
  const double cn = xi > 0.0 ? 2.0 * xi * std::sqrt(mass * kn) : 0.0;
  // k_t / k_n = 4 G* / E* for both laws, so c_t = c_n sqrt(4 G* / E*): a caller
  // that has the factor per material pair saves a square root per contact.
  const double ct = xi <= 0.0                          ? 0.0
                    : tangential_damping_factor >= 0.0 ? cn * tangential_damping_factor
                                                       : 2.0 * xi * std::sqrt(mass * kt);
  const double overlap_rate = -Dot(relative_velocity, normal);
  double fn = fne + cn * overlap_rate;
  if (fn < 0.0) fn = 0.0;

  // The spring force of the previous step, turned into the new tangent plane
  // with its magnitude kept.
  Array3 spring = history.tangential_force;
  const double old_norm2 = Dot(spring, spring);
  if (old_norm2 > 0.0) {
    spring -= Dot(spring, normal) * normal;
    const double new_norm2 = Dot(spring, spring);
    spring = new_norm2 > 0.0 ? spring * std::sqrt(old_norm2 / new_norm2) : Array3{};
    // Unloading: the contact area shrinks and the stored force with it.
    if (fne < history.normal_elastic_force && history.tangential_stiffness > 0.0)
      spring *= kt / history.tangential_stiffness;
  }
  const Array3 tangential_displacement =
      relative_displacement - Dot(relative_displacement, normal) * normal;
  spring += kt * tangential_displacement;
  const Array3 tangential_velocity = relative_velocity - Dot(relative_velocity, normal) * normal;
  Array3 tangential = spring + ct * tangential_velocity;

  const double mu = p.friction_decay >= 0.0
                        ? DecayedFriction(p, Dot(tangential_velocity, tangential_velocity))
                    : history.sliding ? p.dynamic_friction
                                      : p.static_friction;
  const double limit = mu * fn;
  const double trial2 = Dot(tangential, tangential);  // squared: no root unless it slips
  // The relative velocity does work on the contact: F · v with F on the first
  // body and v of the second relative to it; the dashpot part is dissipated.
  double damping_power = (fn - fne) * overlap_rate;
  double friction_power = 0.0;
  if (trial2 > limit * limit) {
    // Slip: the force is capped and the spring keeps only what the slider passes.
    tangential = tangential * (limit / std::sqrt(trial2));
    // The slider dissipates the capped force times the slip, the part of this
    // step's tangential displacement the spring does not keep.
    if (kt > 0.0 && dt > 0.0) friction_power = Dot(tangential, spring - tangential) / (kt * dt);
    spring = tangential;
    history.sliding = 1;
  } else {
    history.sliding = 0;
    damping_power += ct * Dot(tangential_velocity, tangential_velocity);
  }
  history.tangential_force = spring;
  history.tangential_stiffness = kt;
  history.normal_elastic_force = fne;

  ContactForce out;
  out.force = tangential - fn * normal;
  out.elastic_force = spring - fne * normal;
  out.normal_force = fn;
  out.elastic_energy = energy;
  out.damping_power = damping_power;
  out.friction_power = friction_power;
  return out;
}

// The normal elastic energy stored in a contact of pair p, from the history
// of its last force evaluation: F_ne and k_t (k_t: 0 if never evaluated), by
// the law's StoredEnergy (its Energy, to rounding). The sphere-sphere contacts
// keep no energy of their own, as writing one per contact and step cost more
// than the rare sums of it (GetEnergies).
template <class Laws = ContactLaws>
inline double NormalElasticEnergy(const PairParameters& p, double normal_elastic_force,
                                  double tangential_stiffness) {
  const double f2 = normal_elastic_force * normal_elastic_force;
  if (!(p.effective_young > 0.0)) return 0.0;
  return Laws::Visit(p.law, [&]<class L>(std::type_identity<L>) {
    return L::StoredEnergy(p, f2, tangential_stiffness);
  });
}

// sqrt(k_t / k_n) = sqrt(4 G* / E*), the same for the linear and the Hertz law.
inline double TangentialDampingFactor(const PairParameters& p) {
  return p.effective_young > 0.0 ? std::sqrt(4.0 * p.effective_shear / p.effective_young) : 0.0;
}

// Clears the history of a contact that has come apart.
inline void ResetContactHistory(ContactHistoryRef history) {
  history.tangential_force = Array3{};
  history.tangential_stiffness = 0.0;
  history.normal_elastic_force = 0.0;
  history.sliding = 0;
}

}  // namespace tessera::dem
