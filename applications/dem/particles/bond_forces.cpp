// The bonds' force pass (AddBondForces, continuum_bonds.h): every bond's
// law evaluated, its forces added to its two spheres' rows, its history
// updated.
//
// Bonds are visited row by row of their first sphere (the list is sorted by
// it), in blocks of rows, each thread a contiguous range of blocks in order;
// a row adds its bonds as the first sphere as they are evaluated, in list
// order, and what the second spheres take waits in slots (SecondSlots: a
// ring in cache, or the bonds' columns), which every row then adds, in list
// order: a block right after its own first pass where all the bonds of its
// second spheres are its thread's, the others after all first passes.
// Where the processor has AVX2, runs of four intact bonds of one law are
// evaluated together, one vector lane per bond (EvaluateFour): the geometry,
// the turning of the stored springs, the dashpots, the moment and the
// torques on the lanes, and the law's Normal and ShearScale too where the law
// writes them as templates over the number type (kLaneTemplates: DEM_Dempack,
// its state loaded slot by slot where the law reads it: LaneState), else
// lane by lane on doubles. The lanes take their constants from the table of
// the distinct ones (ContinuumBonds::constant_table). The lanes repeat
// EvaluateBond operation for operation, with selects where it branches; this
// file is compiled with -ffp-contract=off, so that nothing is fused either
// way: a bond gets bitwise the same results from both
// (test_dem_bond_lanes.py).

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "applications/dem/contact_laws/bond_laws.h"
#include "applications/dem/particles/continuum_bonds.h"
#include "applications/dem/utilities/avx2_lanes.h"
#include "applications/dem/utilities/parallel_rows.h"

namespace tessera::dem {
namespace {

constexpr auto kIntact = static_cast<std::uint8_t>(BondState::kIntact);

// v with its component along the unit vector n removed.
Array3 Tangential(const Array3& v, const Array3& n) { return v - Dot(v, n) * n; }

// What one bond gives its spheres in one evaluation: the force on the first
// sphere (the second takes minus), its elastic part, the two torques, and
// the powers (where asked for).
struct BondResult {
  Array3 force, elastic, torque_first, torque_second;
  double damping_power = 0.0, friction_power = 0.0;
};

// Bond b's forces, moment and powers of this evaluation and its history;
// reads the rows only.
template <class Law>
BondResult EvaluateBond(std::size_t b, ContinuumBonds& bonds, const BondParameters& law,
                        const ParticleStorage& p, const PeriodicBox& periodic, double dt,
                        bool velocity_step) {
  const std::uint32_t i = bonds.first[b], j = bonds.second[b];
  const BondConstants& c = bonds.constants[b];
  // The law's state, copied out of its slots and back (at the end).
  double law_state[kMaxBondStateSize];
  bonds.GetLawState(b, law_state);
  Array3 d = p.position[j] - p.position[i];
  if (periodic.active) d = periodic.Nearest(d);
  const double distance = Norm(d);
  // Coincident centres have no direction (CheckFiniteState reports blow-ups).
  if (!(distance > 0.0)) return BondResult{};
  const Array3 n = (1.0 / distance) * d;
  // The contact point divides the line of centres as the radii do; or
  // Kratos' arms (bond_law.h, BondLeverArms): for the slip from the spheres'
  // overlap, for the torques from the bond's shortening.
  double arm_i = distance * c.first_share;
  double arm_j = distance - arm_i;
  double torque_arm_i = arm_i, torque_arm_j = arm_j;
  if (bonds.lever_arms == BondLeverArms::kKratos) {
    const double overlap = p.radius[i] + p.radius[j] - distance;
    const double shortening = c.rest_length - distance;
    const double share_j = 1.0 - c.overlap_share;
    arm_i = p.radius[i] - c.overlap_share * overlap;
    arm_j = p.radius[j] - share_j * overlap;
    torque_arm_i = p.radius[i] - c.overlap_share * shortening;
    torque_arm_j = p.radius[j] - share_j * shortening;
  }
  const Array3 relative_velocity = (p.velocity[j] - Cross(p.angular_velocity[j], arm_j * n)) -
                                   (p.velocity[i] + Cross(p.angular_velocity[i], arm_i * n));
  Array3 slip, turn;
  if (velocity_step) {
    slip = dt * relative_velocity;
    turn = dt * (p.angular_velocity[j] - p.angular_velocity[i]);
  } else {
    slip = (p.delta_displacement[j] - Cross(p.delta_rotation[j], arm_j * n)) -
           (p.delta_displacement[i] + Cross(p.delta_rotation[i], arm_i * n));
    turn = p.delta_rotation[j] - p.delta_rotation[i];
  }
  // The stored spring forces and moment turn with the bond: by the rotation
  // taking the last direction m to n, R v = (m.n) v + a x v + (a.v) a / (1 + m.n)
  // with a = m x n (exact, no root; a bond turning by half a turn in one step
  // is no bond any more, so m.n > -1).
  const Array3& m = bonds.direction[b];
  const double cosine = Dot(m, n);
  const Array3 axis = Cross(m, n);
  const double axis_scale = cosine > -1.0 ? 1.0 / (1.0 + cosine) : 0.0;
  auto turned = [&](const Array3& v) {
    return cosine * v + Cross(axis, v) + (Dot(axis, v) * axis_scale) * axis;
  };

  // Normal force, compression positive, of the law while the bond holds;
  // a broken bond pushes with k_n where it is shorter than its rest length,
  // from the plastic offset it broke with (Law::BrokenNormal), and once its
  // crack has opened (BrokenBonds "frictional": the spheres parted beyond
  // both the rest length and touch, bond_law.h) with k_n where the spheres
  // overlap. The crack opens only for a bond broken before this step, so
  // that the four-lane pass, which takes bonds intact at the step's start,
  // and this one agree; the step it opens both forces are zero.
  std::uint8_t& state = bonds.state[b];
  double shortening = c.rest_length - distance;
  double normal_criterion = 0.0, shear_criterion = 0.0;
  double normal;
  if (state == kIntact) {
    normal = Law::Normal(law, c, shortening, law_state, state, normal_criterion);
  } else {
    if (bonds.broken_bonds == BrokenBonds::kFrictional) {
      const double touch = p.radius[i] + p.radius[j];
      if (distance > std::max(c.rest_length, touch)) bonds.opened[b] = 1;
      if (bonds.opened[b]) shortening = touch - distance;
    }
    normal = bonds.opened[b] ? (shortening > 0.0 ? c.normal_stiffness * shortening : 0.0)
                             : Law::BrokenNormal(law, c, shortening, law_state);
  }
  const bool intact = state == kIntact;
  // Springs and dashpots act while the bond holds or a broken one is
  // shorter than its rest length (the four-lane pass' test, which a bond
  // breaking in tension on its reloading line, shorter than L but past its
  // plastic offset, meets the step it breaks).
  const bool loaded = intact || shortening > 0.0;
  // BrokenBonds "kratos": Kratos' DEM_Dempack leaves a broken bond's shear
  // force to the bond's state (below), not to a friction slider.
  const bool kratos_broken = !intact && bonds.broken_bonds == BrokenBonds::kKratos;

  // Shear spring (force on the first sphere): turned with the bond (and kept
  // in its tangent plane against round-off), then dragged along by the slip of
  // the second sphere's contact point. An intact bond's law may hold it
  // damaged: the stored force is then its share of the undamaged spring's.
  Array3 shear{};
  if (kratos_broken) {
    // Broken in tension (now, by the normal branch, or before): the force it
    // had, turned with the pair, no increment, while the spheres are
    // neighbours in Kratos' search; after a shear failure none.
    const double gap = distance - p.radius[i] - p.radius[j];
    if (state == static_cast<std::uint8_t>(BondState::kTensionFailure) && gap <= bonds.broken_reach)
      shear = Tangential(turned(bonds.shear_force[b]), n);
  } else if (loaded) {
    const Array3 stored =
        intact ? Law::HistoryScale(law_state) * bonds.shear_force[b] : bonds.shear_force[b];
    shear = Tangential(turned(stored), n) + c.tangential_stiffness * Tangential(slip, n);
  }
  const Array3 tangential_velocity = Tangential(relative_velocity, n);
  bool sliding = false;
  double friction_power = 0.0;
  if (intact) {
    const double scale = Law::ShearScale(law, c, normal, Norm(shear), Norm(Tangential(slip, n)),
                                         law_state, state, shear_criterion);
    shear = scale * shear;
    // Kratos' DEM_Dempack: the step a bond breaks in shear leaves it (1 - D)
    // of the strength with D = 1, nothing (the frictional model keeps this
    // step's force where the law has no shear damage).
    if (bonds.broken_bonds == BrokenBonds::kKratos &&
        state == static_cast<std::uint8_t>(BondState::kShearFailure))
      shear = Array3{};
  } else if (loaded && !kratos_broken) {
    const double shear_norm = Norm(shear);
    const double limit = law.friction * std::max(normal, 0.0);
    if (shear_norm > limit) {
      if (shear_norm > 0.0) shear = (limit / shear_norm) * shear;
      sliding = true;
      friction_power = limit * Norm(tangential_velocity);
    }
  }
  bonds.failure_criterion[b] = state == kIntact ? std::max(normal_criterion, shear_criterion) : 1.0;

  // Dashpots: while the bond holds, or a broken one is compressed.
  Array3 damping{};
  double damping_power = 0.0;
  if (loaded) {
    const double approach = Dot(relative_velocity, n);  // > 0: separating
    damping = (c.normal_damping * approach) * n;
    damping_power = c.normal_damping * approach * approach;
    if (!sliding) {
      damping += c.tangential_damping * tangential_velocity;
      damping_power += c.tangential_damping * Dot(tangential_velocity, tangential_velocity);
    }
  }

  // Rotational springs (moment on the first sphere), intact bonds only. A
  // bond without them keeps the zero moment it was made with: its history is
  // neither read nor written.
  const bool rotational = c.bending_stiffness > 0.0 || c.twisting_stiffness > 0.0;
  Array3 moment{};
  if (state == kIntact && rotational) {
    const double relative_twist = Dot(turn, n);
    moment = turned(bonds.moment[b]) + c.bending_stiffness * (turn - relative_twist * n) +
             (c.twisting_stiffness * relative_twist) * n;
  }

  const Array3 elastic = shear - normal * n;
  const Array3 tangential = shear + Tangential(damping, n);
  BondResult result{elastic + damping,
                    elastic,
                    Cross(torque_arm_i * n, tangential) + moment,
                    Cross(torque_arm_j * n, tangential) - moment,
                    damping_power,
                    friction_power};

  bonds.normal_force[b] = normal;
  bonds.shear_force[b] = shear;
  if (rotational) bonds.moment[b] = moment;
  bonds.direction[b] = n;
  if (bonds.keep_force) bonds.length[b] = distance;
  bonds.SetLawState(b, law_state);
  return result;
}

// ---------------------------------------------------------------- four lanes

using avx2::All;
using avx2::Any;
using avx2::kLanes;
using avx2::Mask;
using avx2::Select;
using avx2::Splat;
using avx2::Sqrt;
using avx2::Vec;

// The Math of a bond law's templates (DempackBond's NormalOf, ShearScaleOf)
// on four lanes. Not always_inline: the law's templates have no target of
// their own, so these calls are inlined once those are, into EvaluateFour.
struct LaneMath {
  using Mask = avx2::Mask;
  [[gnu::target("avx2")]] static Vec Sqrt(Vec x) { return avx2::Sqrt(x); }
  [[gnu::target("avx2")]] static Vec Select(Mask m, Vec a, Vec b) { return avx2::Select(m, a, b); }
  [[gnu::target("avx2")]] static bool Any(Mask m) { return avx2::Any(m); }
};

// Three components on the lanes, with Array3's operations in its order.
struct V3 {
  Vec x, y, z;
};
TESSERA_AVX2 V3 operator+(const V3& a, const V3& b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
TESSERA_AVX2 V3 operator-(const V3& a, const V3& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
// Array3 * s: each component times s.
TESSERA_AVX2 V3 operator*(const V3& a, Vec s) { return {a.x * s, a.y * s, a.z * s}; }
TESSERA_AVX2 Vec Dot(const V3& a, const V3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
TESSERA_AVX2 V3 Cross(const V3& a, const V3& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
TESSERA_AVX2 V3 Tangential(const V3& v, const V3& n) { return v - n * Dot(v, n); }
TESSERA_AVX2 V3 Select(Mask m, const V3& a, const V3& b) {
  return {Select(m, a.x, b.x), Select(m, a.y, b.y), Select(m, a.z, b.z)};
}

// The rows index[0..3] of an Array3 column: x and y of each row in one
// 16-byte load, unpacked; z element by element.
TESSERA_AVX2 V3 Gather(const Array3* rows, const std::uint32_t* index) {
  const double* r0 = rows[index[0]].data;
  const double* r1 = rows[index[1]].data;
  const double* r2 = rows[index[2]].data;
  const double* r3 = rows[index[3]].data;
  const __m256d even =
      _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(r0)), _mm_loadu_pd(r2), 1);
  const __m256d odd =
      _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(r1)), _mm_loadu_pd(r3), 1);
  return {reinterpret_cast<Vec>(_mm256_unpacklo_pd(even, odd)),
          reinterpret_cast<Vec>(_mm256_unpackhi_pd(even, odd)), Vec{r0[2], r1[2], r2[2], r3[2]}};
}
TESSERA_AVX2 Array3 Lane(const V3& v, int l) { return Array3{v.x[l], v.y[l], v.z[l]}; }
// Four consecutive Array3 (twelve doubles) as x, y and z of the lanes, and
// back: three 32-byte loads or stores and a transpose.
TESSERA_AVX2 V3 LoadFour(const Array3* rows) {
  const double* p = rows->data;
  const __m256d v0 = _mm256_loadu_pd(p), v1 = _mm256_loadu_pd(p + 4), v2 = _mm256_loadu_pd(p + 8);
  const __m256d u0 = _mm256_blend_pd(v0, v1, 0b1100);       // x0 y0 x2 y2
  const __m256d u1 = _mm256_permute2f128_pd(v0, v2, 0x21);  // z0 x1 z2 x3
  const __m256d u2 = _mm256_blend_pd(v1, v2, 0b1100);       // y1 z1 y3 z3
  return {reinterpret_cast<Vec>(_mm256_blend_pd(u0, u1, 0b1010)),
          reinterpret_cast<Vec>(_mm256_shuffle_pd(u0, u2, 0b0101)),
          reinterpret_cast<Vec>(_mm256_blend_pd(u1, u2, 0b1010))};
}
TESSERA_AVX2 void StoreFour(Array3* rows, const V3& v) {
  const __m256d x = reinterpret_cast<__m256d>(v.x), y = reinterpret_cast<__m256d>(v.y),
                z = reinterpret_cast<__m256d>(v.z);
  const __m256d u0 = _mm256_unpacklo_pd(x, y);       // x0 y0 x2 y2
  const __m256d u1 = _mm256_blend_pd(z, x, 0b1010);  // z0 x1 z2 x3
  const __m256d u2 = _mm256_unpackhi_pd(y, z);       // y1 z1 y3 z3
  double* p = rows->data;
  _mm256_storeu_pd(p, _mm256_permute2f128_pd(u0, u1, 0x20));
  _mm256_storeu_pd(p + 4, _mm256_permute2f128_pd(u2, u0, 0x30));
  _mm256_storeu_pd(p + 8, _mm256_permute2f128_pd(u1, u2, 0x31));
}
// A constant of the four bonds c[0..3] (pointers into the constant table).
TESSERA_AVX2 Vec Constant(const BondConstants* const* c, double BondConstants::*member) {
  return Vec{c[0]->*member, c[1]->*member, c[2]->*member, c[3]->*member};
}
// v turned with the bond from its last direction m to n (EvaluateBond's
// `turned`): cos v + a x v + (a.v) a / (1 + cos), a = m x n.
TESSERA_AVX2 V3 Turned(const V3& v, Vec cosine, const V3& axis, Vec axis_scale) {
  return (v * cosine + Cross(axis, v)) + axis * (Dot(axis, v) * axis_scale);
}

// What the first spheres of four bonds take (EvaluateFour); the powers go
// to the bonds' slots at once. `slots`: the law-state slots the lanes read
// (bit k for slot k), which the pass prefetches for the bonds ahead.
// On the lanes as they are (no transpose, nothing initialised).
struct FourResults {
  V3 force, elastic, torque_first, torque_second;
  unsigned slots;
};

// The law state of bonds b0 .. b0 + 3 on the lanes, as the law's templates
// index it (s[slot]): a slot is loaded (one 32-byte load from the
// slot-major column) where the law first reads it, so that the slots of the
// rare branches (damage) stay in memory while no lane takes them; `Store`
// writes back the slots that changed.
template <std::size_t kSlots>
struct LaneState {
  double* column;     // ContinuumBonds::law_state
  std::size_t bonds;  // its bonds: slot k of bond b at column[k * bonds + b]
  std::uint32_t b0;
  unsigned loaded = 0;
  Vec value[kSlots], original[kSlots];  // valid where loaded
  LaneState(double* column_, std::size_t bonds_, std::uint32_t b0_)
      : column(column_), bonds(bonds_), b0(b0_) {}
  [[gnu::always_inline]] Vec& operator[](std::size_t k) {
    if (!(loaded >> k & 1u)) {
      std::memcpy(&value[k], column + k * bonds + b0, sizeof(Vec));
      original[k] = value[k];
      loaded |= 1u << k;
    }
    return value[k];
  }
  [[gnu::always_inline]] bool Loaded(std::size_t k) const { return loaded >> k & 1u; }
  // Slot k's value written back in the lanes that differ bitwise from what
  // was loaded, by one masked store: no branch on the data (whether a slot
  // changed differs from bond to bond), and a cache line where no lane
  // changed stays clean (no write-back to memory).
  [[gnu::always_inline, gnu::target("avx2")]] void Store(std::size_t k, const Vec& v) {
    using Bits = long long __attribute__((vector_size(32)));
    const Bits changed = reinterpret_cast<Bits>(v) != reinterpret_cast<Bits>(original[k]);
    _mm256_maskstore_pd(column + k * bonds + b0, reinterpret_cast<__m256i>(changed),
                        reinterpret_cast<__m256d>(v));
  }
};

// Bonds b0 .. b0 + 3 (intact, of law `law`) as EvaluateBond would evaluate
// them one by one: what the first spheres take into `out`, what the second
// spheres take into the bonds' slots; false, with nothing changed, where a
// pair's centres coincide (EvaluateBond's own case).
template <class Law, bool kPowers>
[[gnu::target("avx2")]] bool EvaluateFour(std::uint32_t b0, ContinuumBonds& bonds,
                                          const BondParameters& law, const ParticleStorage& p,
                                          const PeriodicBox& periodic, double dt,
                                          bool velocity_step, FourResults& out) {
  const std::uint32_t* fi = bonds.first.data() + b0;
  const std::uint32_t* sj = bonds.second.data() + b0;
  V3 d;
  if (periodic.active) {
    for (int l = 0; l < kLanes; ++l) {
      const Array3 dl = periodic.Nearest(p.position[sj[l]] - p.position[fi[l]]);
      d.x[l] = dl[0], d.y[l] = dl[1], d.z[l] = dl[2];
    }
  } else {
    d = Gather(p.position.data(), sj) - Gather(p.position.data(), fi);
  }
  const Vec distance = Sqrt(Dot(d, d));
  if (!All(distance > Splat(0.0))) return false;
  // The four bonds' constants from the table (Index): bonds that share them
  // read one entry, in cache.
  const BondConstants* c[kLanes];
  for (int l = 0; l < kLanes; ++l)
    c[l] = bonds.constant_table.data() + bonds.constant_index[b0 + l];
  const V3 n = d * (Splat(1.0) / distance);
  const Vec arm_i = distance * Constant(c, &BondConstants::first_share);
  const Vec arm_j = distance - arm_i;
  const V3 arm_i_n = n * arm_i, arm_j_n = n * arm_j;
  const V3 spin_i = Gather(p.angular_velocity.data(), fi);
  const V3 spin_j = Gather(p.angular_velocity.data(), sj);
  const V3 relative_velocity = (Gather(p.velocity.data(), sj) - Cross(spin_j, arm_j_n)) -
                               (Gather(p.velocity.data(), fi) + Cross(spin_i, arm_i_n));
  V3 slip, turn;
  if (velocity_step) {
    slip = relative_velocity * Splat(dt);
    turn = (spin_j - spin_i) * Splat(dt);
  } else {
    const V3 rotation_i = Gather(p.delta_rotation.data(), fi);
    const V3 rotation_j = Gather(p.delta_rotation.data(), sj);
    slip = (Gather(p.delta_displacement.data(), sj) - Cross(rotation_j, arm_j_n)) -
           (Gather(p.delta_displacement.data(), fi) + Cross(rotation_i, arm_i_n));
    turn = rotation_j - rotation_i;
  }
  const V3 m = LoadFour(bonds.direction.data() + b0);
  const Vec cosine = Dot(m, n);
  const V3 axis = Cross(m, n);
  const Vec axis_scale =
      Select(cosine > Splat(-1.0), Splat(1.0) / (Splat(1.0) + cosine), Splat(0.0));

  const Vec shortening = Constant(c, &BondConstants::rest_length) - distance;
  const V3 zero{Splat(0.0), Splat(0.0), Splat(0.0)};
  const Vec tangential_stiffness = Constant(c, &BondConstants::tangential_stiffness);
  const V3 tangential_velocity = Tangential(relative_velocity, n);
  const V3 tangential_slip = Tangential(slip, n);
  Vec normal{}, scale = Splat(1.0);
  Mask intact{}, loaded{}, sliding = Splat(0.0) != Splat(0.0);
  V3 shear;
  double friction_power[kLanes] = {};
  // The trial shear force: the stored one scaled by `history`, turned with
  // the pair, plus this step's spring; zero where the bond is not loaded.
  const auto trial_shear = [&](const Vec& history) __attribute__((target("avx2"))) {
    const V3 stored = LoadFour(bonds.shear_force.data() + b0) * history;
    return Select(loaded,
                  Tangential(Turned(stored, cosine, axis, axis_scale), n) +
                      tangential_slip * tangential_stiffness,
                  zero);
  };
  // A broken bond under compression slides on its friction (lane l).
  const auto slide_broken = [&](int l, double shear_norm) __attribute__((target("avx2"))) {
    const double limit = law.friction * std::max(normal[l], 0.0);
    if (shear_norm > limit) {
      if (shear_norm > 0.0) scale[l] = limit / shear_norm;
      sliding[l] = -1;
      if constexpr (kPowers) friction_power[l] = limit * Norm(Lane(tangential_velocity, l));
    }
  };
  if constexpr (requires { Law::kLaneTemplates; }) {
    // The law on the lanes (its templates), its state loaded slot by slot
    // as the law reads it and the changed slots stored back at the end.
    constexpr std::size_t kSlots = Law::kStateSize;
    LaneState<kSlots> s{bonds.law_state.data(), bonds.size(), b0};
    const Vec k0 = Constant(c, &BondConstants::normal_stiffness);
    const Vec area = Constant(c, &BondConstants::area);
    Mask tension_failed, shear_failed;
    Vec normal_criterion, shear_criterion;
    normal = Law::template NormalOf<Vec, LaneMath>(law, k0, area, shortening, s, tension_failed,
                                                   normal_criterion);
    intact = tension_failed == Mask{};
    loaded = intact | (shortening > Splat(0.0));
    // 1 where broken: the stored force as it is.
    shear = trial_shear(Select(intact, Law::HistoryScaleOf(s), Splat(1.0)));
    const Vec shear_norm = Sqrt(Dot(shear, shear));
    const Vec slip_norm = Sqrt(Dot(tangential_slip, tangential_slip));
    // The law's shear factor where intact: the state of the lanes that broke
    // in tension stays as Normal left it (`normal_state`, kept only where a
    // lane broke: rare).
    const bool all_intact = All(intact);
    const unsigned normal_slots = s.loaded;
    Vec normal_state[kSlots];
    if (!all_intact) {
      for (std::size_t k = 0; k < kSlots; ++k)
        if (s.Loaded(k)) normal_state[k] = s.value[k];
    }
    const Vec law_scale = Law::template ShearScaleOf<Vec, LaneMath>(
        law, tangential_stiffness, area, normal, shear_norm, slip_norm, s, shear_failed,
        shear_criterion);
    shear_failed = shear_failed & intact;
    scale = Select(intact, law_scale, scale);
    // A bond that broke in tension this step slides as a broken one (rare: lane by lane).
    if (!all_intact) {
      for (int l = 0; l < kLanes; ++l)
        if (!intact[l] && loaded[l]) slide_broken(l, shear_norm[l]);
    }
    // std::max(normal, shear criterion) while intact, 1 once broken.
    const Mask holds = intact & (shear_failed == Mask{});
    const Vec criterion =
        Select(holds, Select(normal_criterion < shear_criterion, shear_criterion, normal_criterion),
               Splat(1.0));
    std::memcpy(bonds.failure_criterion.data() + b0, &criterion, sizeof criterion);
    if (!All(holds)) {
      for (int l = 0; l < kLanes; ++l) {
        if (tension_failed[l])
          bonds.state[b0 + l] = static_cast<std::uint8_t>(BondState::kTensionFailure);
        else if (shear_failed[l])
          bonds.state[b0 + l] = static_cast<std::uint8_t>(BondState::kShearFailure);
      }
    }
    for (std::size_t k = 0; k < kSlots; ++k) {
      if (!s.Loaded(k)) continue;  // neither read nor written
      if (all_intact) {
        s.Store(k, s.value[k]);
      } else {
        const Vec before = normal_slots >> k & 1u ? normal_state[k] : s.original[k];
        s.Store(k, Select(intact, s.value[k], before));
      }
    }
    out.slots = s.loaded;
  } else {
    // The law's normal force, lane by lane.
    double normal_criterion[kLanes] = {}, shear_criterion[kLanes] = {};
    Vec history{};
    // The lanes' law states, copied out of their slots and back at the end.
    double law_states[kLanes][kMaxBondStateSize];
    for (int l = 0; l < kLanes; ++l) {
      const std::uint32_t b = b0 + l;
      double* const law_state = law_states[l];
      bonds.GetLawState(b, law_state);
      std::uint8_t& state = bonds.state[b];
      normal[l] = Law::Normal(law, *c[l], shortening[l], law_state, state, normal_criterion[l]);
      const bool holds = state == kIntact;
      intact[l] = holds ? -1 : 0;
      loaded[l] = holds || shortening[l] > 0.0 ? -1 : 0;
      history[l] = holds ? Law::HistoryScale(law_state) : 1.0;  // 1: the stored force as it is
    }
    shear = trial_shear(history);
    const Vec shear_norm = Sqrt(Dot(shear, shear));
    const Vec slip_norm = Sqrt(Dot(tangential_slip, tangential_slip));

    // The law's shear factor (intact) or the broken bond's slider, lane by lane.
    for (int l = 0; l < kLanes; ++l) {
      const std::uint32_t b = b0 + l;
      double* const law_state = law_states[l];
      std::uint8_t& state = bonds.state[b];
      if (intact[l]) {
        scale[l] = Law::ShearScale(law, *c[l], normal[l], shear_norm[l], slip_norm[l], law_state,
                                   state, shear_criterion[l]);
      } else if (loaded[l]) {
        slide_broken(l, shear_norm[l]);
      }
      bonds.failure_criterion[b] =
          state == kIntact ? std::max(normal_criterion[l], shear_criterion[l]) : 1.0;
      bonds.SetLawState(b, law_state);
    }
  }
  shear = shear * scale;

  // Dashpots: while the bond holds, or a broken one is compressed.
  const Vec approach = Dot(relative_velocity, n);  // > 0: separating
  const Vec normal_damping = Constant(c, &BondConstants::normal_damping) * approach;
  const Vec tangential_damping = Constant(c, &BondConstants::tangential_damping);
  const V3 axial_damping = n * normal_damping;
  const V3 damping = Select(
      loaded,
      Select(sliding, axial_damping, axial_damping + tangential_velocity * tangential_damping),
      zero);

  // Rotational springs, intact bonds only.
  const Vec bending = Constant(c, &BondConstants::bending_stiffness);
  const Vec twisting = Constant(c, &BondConstants::twisting_stiffness);
  const Mask springs = (bending > Splat(0.0)) | (twisting > Splat(0.0));
  const bool any_springs = Any(springs), all_springs = All(springs);
  V3 moment = zero;
  if (any_springs) {
    Mask rotational{};
    for (int l = 0; l < kLanes; ++l)
      rotational[l] = bonds.state[b0 + l] == kIntact && springs[l] ? -1 : 0;
    const Vec relative_twist = Dot(turn, n);
    moment = Select(rotational,
                    (Turned(LoadFour(bonds.moment.data() + b0), cosine, axis, axis_scale) +
                     (turn - n * relative_twist) * bending) +
                        n * (twisting * relative_twist),
                    zero);
  }

  const V3 elastic = shear - n * normal;
  const V3 tangential = shear + Tangential(damping, n);
  const V3 force = elastic + damping;
  const V3 torque_first = Cross(arm_i_n, tangential) + moment;
  const V3 torque_second = Cross(arm_j_n, tangential) - moment;
  Vec damping_power{};
  if constexpr (kPowers) {
    const Vec axial_power = normal_damping * approach;
    damping_power = Select(
        loaded,
        Select(sliding, axial_power,
               axial_power + tangential_damping * Dot(tangential_velocity, tangential_velocity)),
        Splat(0.0));
  }
  out.force = force, out.elastic = elastic, out.torque_first = torque_first;
  out.torque_second = torque_second;
  if constexpr (kPowers) {
    std::memcpy(bonds.damping_power.data() + b0, &damping_power, sizeof damping_power);
    std::memcpy(bonds.friction_power.data() + b0, friction_power, sizeof friction_power);
  }
  if (any_springs && !all_springs) {
    for (int l = 0; l < kLanes; ++l)
      if (springs[l]) bonds.moment[b0 + l] = Lane(moment, l);
  }
  std::memcpy(bonds.normal_force.data() + b0, &normal, sizeof normal);
  StoreFour(bonds.shear_force.data() + b0, shear);
  if (all_springs) StoreFour(bonds.moment.data() + b0, moment);
  StoreFour(bonds.direction.data() + b0, n);
  if (bonds.keep_force) std::memcpy(bonds.length.data() + b0, &distance, sizeof distance);
  return true;
}

bool BondLanesAvailable() {
  static const bool available = __builtin_cpu_supports("avx2");
  return available;
}

// ---------------------------------------------------------------- the pass

// Rows per block of the first pass.
constexpr std::size_t kBlockRows = 256;
// Bonds per thread in the ring of the second spheres' parts (SecondSlots):
// 192 KiB, in the core's cache; a simple cubic specimen 32 cells across
// takes them about 3,200 bonds after it gives them.
constexpr std::uint32_t kRing = 4096;

// Where what the second spheres take (the force on the first sphere, its
// elastic part, the torque on the second) waits for their rows to add it:
// where the row adds it within kRing bonds, in this thread's ring, which
// stays in cache; else in the bonds' columns (force, elastic, torque_second).
// The ring saves the columns' traffic to memory, a fifth of a bonded step's.
// Without a ring (ring_force null), the columns.
struct SecondSlots {
  ContinuumBonds* bonds;
  bool elastic;
  Array3 *ring_force = nullptr, *ring_elastic = nullptr, *ring_torque = nullptr;
  // Per block: 1 where its rows add their parts after all first passes.
  const std::uint8_t* waiting = nullptr;
  std::size_t to_block = 0, rows = 0;  // this thread's blocks end at to_block

  // The first bond after the bonds whose second spheres are in `block` (the
  // block's rows add their parts once the bonds before it are evaluated).
  std::uint32_t After(std::size_t block) const {
    return bonds->first_start[std::min(rows, (block + 1) * kBlockRows)];
  }
  bool InRing(std::uint32_t b) const {
    if (ring_force == nullptr) return false;
    const std::size_t block = bonds->second[b] / kBlockRows;
    return block < to_block && !waiting[block] && b + kRing >= After(block);
  }
  void Put(std::uint32_t b, const Array3& force, const Array3& elastic_part,
           const Array3& torque) const {
    if (InRing(b)) {
      const std::uint32_t r = b & (kRing - 1);
      ring_force[r] = force;
      if (elastic) ring_elastic[r] = elastic_part;
      ring_torque[r] = torque;
    } else {
      bonds->force[b] = force;
      if (elastic) bonds->elastic[b] = elastic_part;
      bonds->torque_second[b] = torque;
    }
  }
};

// Adds bond b's result to its first sphere's row and leaves the second's in
// its slot (EvaluateRun does the same for four bonds).
template <bool kPowers>
inline void AddFirst(std::uint32_t b, const BondResult& r, ContinuumBonds& bonds,
                     ParticleStorage& p, bool elastic, const SecondSlots& slots) {
  const std::uint32_t i = bonds.first[b];
  p.contact_force[i] += r.force;
  if (elastic) p.elastic_force[i] += r.elastic;
  p.torque[i] += r.torque_first;
  slots.Put(b, r.force, r.elastic, r.torque_second);
  if constexpr (kPowers) {
    bonds.damping_power[b] = r.damping_power;
    bonds.friction_power[b] = r.friction_power;
  }
}

// How many bonds ahead of the group being evaluated its arrays are fetched.
constexpr std::uint32_t kPrefetchAhead = 32;

// The cache lines of bonds b .. b + 3 in the arrays the evaluation streams
// through: the rows of a large specimen's bonds do not fit the cache, and a
// dozen arrays at once are more streams than the hardware prefetcher follows.
// The groups go four bonds after four, so the line of a group's first byte
// is the last one of the group before (or starts at it, where the line
// before is that group's last): fetched are the line of the last byte and,
// where four values span more than a line (Array3: 96 bytes), the line
// before it.
template <class T>
inline void PrefetchColumn(const T* column, std::uint32_t b, bool write) {
  const char* to = reinterpret_cast<const char*>(column + b + kLanes) - 1;
  if constexpr (sizeof(T) * kLanes > 64) {
    if (write)
      __builtin_prefetch(to - 64, 1, 3);
    else
      __builtin_prefetch(to - 64, 0, 3);
  }
  if (write)
    __builtin_prefetch(to, 1, 3);
  else
    __builtin_prefetch(to, 0, 3);
}
// `slots`: the law-state slots to fetch (bit k for slot k).
inline void PrefetchBonds(const ContinuumBonds& bonds, std::uint32_t b, std::uint32_t end,
                          unsigned slots) {
  if (b + kLanes > end) return;
  PrefetchColumn(bonds.first.data(), b, false);
  PrefetchColumn(bonds.second.data(), b, false);
  PrefetchColumn(bonds.constant_index.data(), b, false);
  PrefetchColumn(bonds.shear_force.data(), b, true);
  PrefetchColumn(bonds.direction.data(), b, true);
  PrefetchColumn(bonds.normal_force.data(), b, true);
  PrefetchColumn(bonds.failure_criterion.data(), b, true);
#pragma GCC unroll 8
  for (std::size_t k = 0; k < kMaxBondStateSize; ++k)
    if (slots >> k & 1u) PrefetchColumn(bonds.law_state.data() + k * bonds.size(), b, true);
}

// Bonds from `begin` of law L, in list order, four at a time where they are
// intact, else one by one, up to the last four before `end`; returns the
// first bond left. Its own function on the avx2 target, so that EvaluateFour
// is inlined and its results stay in registers.
template <class L, bool kPowers>
[[gnu::target("avx2")]] std::uint32_t EvaluateLanes(std::uint32_t begin, std::uint32_t end,
                                                    ContinuumBonds& bonds,
                                                    const BondParameters& law, ParticleStorage& p,
                                                    const PeriodicBox& periodic, double dt,
                                                    bool velocity_step, bool elastic,
                                                    const SecondSlots& slots) {
  std::uint32_t b = begin;
  const std::uint8_t* state = bonds.state.data();
  // The law-state slots the bonds so far read (all of them: the same set
  // from group to group, where the last group's would change with the data).
  unsigned state_slots = 0;
  while (b + kLanes <= end) {
    PrefetchBonds(bonds, b + kPrefetchAhead, end, state_slots);
    FourResults four;
    if ((state[b] | state[b + 1] | state[b + 2] | state[b + 3]) == kIntact &&
        EvaluateFour<L, kPowers>(b, bonds, law, p, periodic, dt, velocity_step, four)) {
      state_slots |= four.slots;
#pragma GCC unroll 4
      for (int l = 0; l < kLanes; ++l) {
        const std::uint32_t i = bonds.first[b + l];
        const Array3 force = Lane(four.force, l), elastic_part = Lane(four.elastic, l);
        p.contact_force[i] += force;
        if (elastic) p.elastic_force[i] += elastic_part;
        p.torque[i] += Lane(four.torque_first, l);
        slots.Put(b + l, force, elastic_part, Lane(four.torque_second, l));
      }
      b += kLanes;
      continue;
    }
    AddFirst<kPowers>(b, EvaluateBond<L>(b, bonds, law, p, periodic, dt, velocity_step), bonds, p,
                      elastic, slots);
    ++b;
  }
  return b;
}

// Bonds [begin, end) of law L, in list order: four at a time where they are
// intact and `lanes` (EvaluateLanes), else one by one.
template <class L, bool kPowers>
void EvaluateRun(std::uint32_t begin, std::uint32_t end, ContinuumBonds& bonds,
                 const BondParameters& law, ParticleStorage& p, const PeriodicBox& periodic,
                 double dt, bool velocity_step, bool elastic, bool lanes,
                 const SecondSlots& slots) {
  std::uint32_t b = begin;
  if (lanes)
    b = EvaluateLanes<L, kPowers>(begin, end, bonds, law, p, periodic, dt, velocity_step, elastic,
                                  slots);
  for (; b < end; ++b)
    AddFirst<kPowers>(b, EvaluateBond<L>(b, bonds, law, p, periodic, dt, velocity_step), bonds, p,
                      elastic, slots);
}

}  // namespace

BondPower AddBondForces(ContinuumBonds& bonds, const BondTable& table, ParticleStorage& p,
                        const PeriodicBox& periodic, double dt, bool velocity_step, bool powers,
                        bool lanes) {
  const std::size_t m = bonds.size(), n = p.size();
  // Rows were added (inlets), or the bonds renumbered, made or restored.
  if (bonds.row_start.size() != n + 1 || bonds.constant_index.size() != m) bonds.Index(n);
  // The elastic parts only where the rows sum them (ELASTIC_FORCES declared).
  const bool elastic = !p.elastic_force.empty();
  bonds.force.resize(m), bonds.elastic.resize(elastic ? m : 0), bonds.torque_second.resize(m);
  bonds.damping_power.resize(powers ? m : 0), bonds.friction_power.resize(powers ? m : 0);
  bonds.failure_criterion.resize(m);
  bonds.length.resize(bonds.keep_force ? m : 0);
  bonds.opened.resize(m, 0);  // bonds made without the column (C++ tests)
  // The lanes take the arms on the line of centres and frictional broken
  // bonds; Kratos' arms and broken bonds go one by one.
  lanes = lanes && BondLanesAvailable() && bonds.lever_arms == BondLeverArms::kCentres &&
          bonds.broken_bonds == BrokenBonds::kFrictional;
  // First pass: each block of rows evaluates the bonds whose first sphere it
  // holds (a contiguous run of the list) and adds them to those rows.
  const std::size_t blocks = (n + kBlockRows - 1) / kBlockRows;
  auto evaluate_block = [&]<bool kPowers>(std::size_t block, std::bool_constant<kPowers>,
                                          const SecondSlots& slots) {
    const std::uint32_t begin = bonds.first_start[block * kBlockRows];
    const std::uint32_t end = bonds.first_start[std::min(n, (block + 1) * kBlockRows)];
    if (bonds.uniform_law >= 0) {
      const BondParameters& law = table.Parameters(bonds.law[begin < end ? begin : 0]);
      BondLaws::Visit(static_cast<ContactLaw>(law.law), [&]<class L>(std::type_identity<L>) {
        EvaluateRun<L, kPowers>(begin, end, bonds, law, p, periodic, dt, velocity_step, elastic,
                                lanes, slots);
      });
      return;
    }
    // Runs of bonds of one material pair.
    for (std::uint32_t b = begin; b < end;) {
      std::uint32_t run_end = b + 1;
      while (run_end < end && bonds.law[run_end] == bonds.law[b]) ++run_end;
      const BondParameters& law = table.Parameters(bonds.law[b]);
      BondLaws::Visit(static_cast<ContactLaw>(law.law), [&]<class L>(std::type_identity<L>) {
        EvaluateRun<L, kPowers>(b, run_end, bonds, law, p, periodic, dt, velocity_step, elastic,
                                lanes, slots);
      });
      b = run_end;
    }
  };
  // Second pass: every row adds its bonds as the second sphere (their slots).
  const auto add_second = [&](std::size_t block, const SecondSlots& slots) {
    // The block's bonds from `in_ring` on wait in the ring (SecondSlots::InRing).
    const std::uint32_t after = slots.After(block);
    const std::uint32_t in_ring = slots.ring_force == nullptr ? std::uint32_t(-1)
                                  : after > kRing             ? after - kRing
                                                              : 0;
    for (std::size_t i = block * kBlockRows; i < std::min(n, (block + 1) * kBlockRows); ++i) {
      for (std::uint32_t k = bonds.row_start[i]; k < bonds.row_start[i + 1]; ++k) {
        const std::uint32_t b = bonds.row_bonds[k];
        if (b >= in_ring) {
          const std::uint32_t r = b & (kRing - 1);
          p.contact_force[i] -= slots.ring_force[r];
          if (elastic) p.elastic_force[i] -= slots.ring_elastic[r];
          p.torque[i] += slots.ring_torque[r];
        } else {
          p.contact_force[i] -= bonds.force[b];
          if (elastic) p.elastic_force[i] -= bonds.elastic[b];
          p.torque[i] += bonds.torque_second[b];
        }
      }
    }
  };
  // The smallest first sphere of the bonds whose second sphere is in `block`
  // (a row's bonds as the second sphere are in list order, so sorted by first
  // sphere); the block's first row where there are none.
  const auto earliest_first = [&](std::size_t block) {
    std::size_t earliest = block * kBlockRows;
    for (std::size_t i = block * kBlockRows; i < std::min(n, (block + 1) * kBlockRows); ++i)
      if (bonds.row_start[i] < bonds.row_start[i + 1])
        earliest =
            std::min<std::size_t>(earliest, bonds.first[bonds.row_bonds[bonds.row_start[i]]]);
    return earliest;
  };
  // Each thread takes a contiguous range of blocks, in order, and adds a
  // block's second spheres right after its first pass where all their bonds
  // are its own (first spheres in its range, evaluated by then): their slots
  // are still in cache. The blocks whose second spheres have bonds from
  // another thread's range wait for all first passes. (A first pass writes
  // only its block's rows and its bonds' slots, and each row sums in the same
  // order either way: the same results for any number of threads.)
  const int threads =
      n < kMinimumParallelRows || ParallelThreads() == 1 || blocks < 2 ? 1 : ParallelThreads();
  std::vector<std::uint8_t> waiting(blocks, 0);
  auto first_pass = [&]<bool kPowers>(std::bool_constant<kPowers> with_powers) {
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
      const auto t = static_cast<std::size_t>(omp_get_thread_num());
      const auto count = static_cast<std::size_t>(omp_get_num_threads());
      const std::size_t from = blocks * t / count, to = blocks * (t + 1) / count;
      for (std::size_t block = from; block < to; ++block)
        waiting[block] = earliest_first(block) < from * kBlockRows ? 1 : 0;
      // This thread's ring (kept between steps); none where the force
      // column is read after the pass (ContinuumBonds::keep_force).
      static thread_local std::vector<Array3> ring;
      ring.resize(3 * std::size_t{kRing});
      Array3* const at = bonds.keep_force ? nullptr : ring.data();
      const SecondSlots slots{
          &bonds,         elastic, at, at ? at + kRing : nullptr, at ? at + 2 * kRing : nullptr,
          waiting.data(), to,      n};
      for (std::size_t block = from; block < to; ++block) {
        evaluate_block(block, with_powers, slots);
        if (!waiting[block]) add_second(block, slots);
      }
    }
  };
  if (powers)
    first_pass(std::true_type{});
  else
    first_pass(std::false_type{});
  const SecondSlots columns{&bonds, elastic};
  ParallelBlocks(n, blocks, [&](std::size_t block) {
    if (waiting[block]) add_second(block, columns);
  });
  BondPower power;
  if (!powers) return power;
  power.damping = SumRows(m, [&](std::size_t b) { return bonds.damping_power[b]; });
  power.friction = SumRows(m, [&](std::size_t b) { return bonds.friction_power[b]; });
  return power;
}

}  // namespace tessera::dem
