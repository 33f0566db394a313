// The force of one contact: the inner loop of the DEM strategy, inline and
// without virtual calls (one branch on the pair's law, over the list of laws
// in contact_laws.h), each law's Force template on doubles (the batch kernel
// runs the same templates on its vectors). Formulas and their sources are
// listed in contact_law.h, laws/viscous_coulomb.h and each law's header
// (laws/). Also where a contact's history lives (PairHistory, LawExtraHistory).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "applications/dem/contact_laws/contact_law.h"
#include "applications/dem/contact_laws/contact_laws.h"
#include "kernel/core/error.h"

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
static_assert(sizeof(PairHistory) == kViscousCoulombHistoryDoubles * sizeof(double));

// The history of a law that keeps more than the record's five doubles
// (kHistoryDoubles > 5: damage, plastic state): the record holds the first
// five, as for every law, and the rest lives in a side table of
// LawExtraHistory<L> doubles per contact, which only a law that needs it
// reads. The record keeps its 40 bytes, so the laws that keep five or less
// read and write exactly what they did; the scalar path takes the side
// table's row (ComputeContactForce's `extra_history`), and such a law offers
// no batch kernel (kBatch = false: the kernel reads the records only).
template <class L>
inline constexpr std::size_t LawExtraHistory =
    L::kHistoryDoubles > kViscousCoulombHistoryDoubles
        ? L::kHistoryDoubles - kViscousCoulombHistoryDoubles
        : 0;

// The doubles of side table per contact that the laws of a list need: the
// widest law's extra history.
template <class Laws>
constexpr std::size_t ExtraHistoryDoubles() {
  std::size_t widest = 0;
  Laws::ForEach([&]<class L>(std::type_identity<L>) {
    static_assert(!(L::kBatch && LawExtraHistory<L> > 0),
                  "the batch kernel keeps the five-double record only: a law with more "
                  "history sets kBatch = false");
    widest = std::max(widest, LawExtraHistory<L>);
  });
  return widest;
}

// The side table of the DEM strategy's contact lists: one row of the widest
// extra history of the build's laws per contact, carried, permuted and erased
// with the records. Its doubles are scalars of the pair (they stay as they
// are when the pair's two bodies change places), and a new contact's row is
// zero. Where no law of the build keeps more than five doubles the rows are
// empty and the lists never touch them (`if constexpr` on the width); where
// some law does, a run allocates the table only when one of its material
// pairs uses such a law (LawKeepsExtraHistory).
inline constexpr std::size_t kExtraHistoryDoubles = ExtraHistoryDoubles<ContactLaws>();
using ExtraHistoryRow = std::array<double, kExtraHistoryDoubles>;

// Whether `law` keeps doubles in the side table.
template <class Laws = ContactLaws>
inline bool LawKeepsExtraHistory(ContactLaw law) {
  return Laws::Visit(law, []<class L>(std::type_identity<L>) { return LawExtraHistory<L> > 0; });
}

// The error of a law with extra history evaluated without its side table row.
[[noreturn, gnu::cold, gnu::noinline]] inline void ThrowMissingExtraHistory(const char* law,
                                                                            std::size_t doubles) {
  TESSERA_ERROR("contact law ", law, " keeps ", doubles,
                " doubles of history per contact; this contact list stores ",
                static_cast<std::size_t>(kViscousCoulombHistoryDoubles));
}

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
// `extra_history`: the doubles a law keeps past the five of the record
// (kHistoryDoubles - 5, LawExtraHistory), null for the laws that keep five or less.
// `elastic_slider`: Kratos' split of the Coulomb cap between spring and
// dashpot (LawContact::elastic_slider).
// The arithmetic is the law's Force (laws/law_defaults.h) on doubles, the
// source that the batch kernel runs on its lanes.
// Always inlined: it is the body of the contact loops, and a call per contact
// costs as much as the arithmetic (and outputs a caller ignores cost nothing).
// `Laws`: the list of laws p.law indexes (a test's list may add its own).
template <class Laws = ContactLaws>
[[gnu::always_inline]] inline ContactForce ComputeContactForce(
    const PairParameters& p, double overlap, double radius, double mass, const Array3& normal,
    const Array3& relative_velocity, const Array3& relative_displacement, ContactHistoryRef history,
    double dt, double tangential_damping_factor = -1.0, double* extra_history = nullptr,
    bool elastic_slider = false) {
  const LawContact<double> c{overlap,
                             radius,
                             mass,
                             normal[0],
                             normal[1],
                             normal[2],
                             relative_velocity[0],
                             relative_velocity[1],
                             relative_velocity[2],
                             relative_displacement[0],
                             relative_displacement[1],
                             relative_displacement[2],
                             p.effective_young,
                             p.effective_shear,
                             p.damping_ratio,
                             tangential_damping_factor,
                             tangential_damping_factor >= 0.0,
                             dt,
                             p.restitution,
                             elastic_slider};
  // μ: FRICTION_DECAY's blend with the sliding speed, else static while
  // sticking and dynamic once it slid.
  auto friction = [&p](bool sliding, double tvx, double tvy, double tvz) {
    return p.friction_decay >= 0.0 ? DecayedFriction(p, tvx * tvx + tvy * tvy + tvz * tvz)
           : sliding               ? p.dynamic_friction
                                   : p.static_friction;
  };
  ContactForce out;
  Laws::Visit(p.law, [&]<class L>(std::type_identity<L>) {
    constexpr std::size_t kDoubles = L::kHistoryDoubles;
    static_assert(kDoubles >= kViscousCoulombHistoryDoubles,
                  "a law's history starts with the viscous Coulomb record");
    double h[kDoubles];
    h[kSpringX] = history.tangential_force[0];
    h[kSpringY] = history.tangential_force[1];
    h[kSpringZ] = history.tangential_force[2];
    h[kTangentialStiffness] = history.tangential_stiffness;
    h[kNormalElasticForce] = history.normal_elastic_force;
    if constexpr (kDoubles > kViscousCoulombHistoryDoubles) {
      if (extra_history == nullptr) ThrowMissingExtraHistory(L::kName, kDoubles);
      for (std::size_t k = kViscousCoulombHistoryDoubles; k < kDoubles; ++k)
        h[k] = extra_history[k - kViscousCoulombHistoryDoubles];
    }
    const LawForce<double, bool> f =
        L::template Force<L, double, ScalarMath, true>(c, h, history.sliding != 0, friction);
    history.tangential_force = Array3{h[kSpringX], h[kSpringY], h[kSpringZ]};
    history.tangential_stiffness = h[kTangentialStiffness];
    history.normal_elastic_force = h[kNormalElasticForce];
    if constexpr (kDoubles > kViscousCoulombHistoryDoubles)
      for (std::size_t k = kViscousCoulombHistoryDoubles; k < kDoubles; ++k)
        extra_history[k - kViscousCoulombHistoryDoubles] = h[k];
    history.sliding = f.slip ? 1 : 0;
    double ex, ey, ez;
    L::ElasticForce(c, h, ex, ey, ez);
    out.force = Array3{f.fx, f.fy, f.fz};
    out.elastic_force = Array3{ex, ey, ez};
    out.normal_force = f.normal_force;
    // A law whose stored energy depends on more than F_ne and δ (a plastic
    // law's unloading spring) gives it from its history.
    if constexpr (requires { L::HistoryEnergy(c, h); })
      out.elastic_energy = L::HistoryEnergy(c, h);
    else
      out.elastic_energy = L::Energy(h[kNormalElasticForce], overlap);
    out.damping_power = f.damping_power;
    out.friction_power = f.friction_power;
  });
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
