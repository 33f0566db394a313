// Sphere-sphere contacts evaluated in batches, one structure of arrays per
// batch. The DEM strategy's pair pass hands a run of consecutive candidates of
// its contact list to EvaluateAndApplyPairBatch, which finds the candidates
// that touch (four at a time) and settles the others, evaluates the contact
// law for the touching ones four at a time (AVX2 vectors, one lane per
// contact) or eight at a time (AVX-512, where the processor has it), updates
// their history in place and adds their forces to the spheres' rows in list
// order. Processors without AVX2 keep the scalar loop.
//
// The contact law is the law's own Force template (laws/law_defaults.h), the
// source ComputeContactForce (contact_force.h) runs on doubles, here on the
// vectors; the geometry around it is the strategy's scalar pair loop's,
// operation for operation, with selects where that has branches and without
// fused multiply-adds: a contact gets bitwise the same force, torque and
// history from either path, so the choice of path changes no result
// (test_dem_contact_batch.py, tests/cpp/test_contact_law_lanes.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "applications/dem/contact_laws/contact_force.h"
#include "applications/dem/contact_laws/contact_law.h"
#include "applications/dem/contact_laws/rolling_friction.h"
#include "applications/dem/strategies/energy_bookkeeping.h"
#include "applications/dem/utilities/periodic_box.h"
#include "kernel/core/array3.h"

namespace tessera::dem {

// The pair table as arrays indexed by pair (a * materials + b), so that the
// batch loop reads each parameter with one indexed load.
struct PairTableArrays {
  std::vector<double> young, shear, damping_ratio;
  std::vector<double> friction;            // static, dynamic: two per pair
  std::vector<double> share;               // of the overlap taken by the first sphere
  std::vector<double> tangential_damping;  // TangentialDampingFactor (>= 0)
  std::vector<double> defined;             // 1: the pair has a material relation, else 0
  std::vector<PairParameters> pairs;       // FRICTION_DECAY (DecayedFriction), rolling resistance
  bool any_friction_decay = false;         // some pair blends its frictions
  // Rolling resistance (rolling_friction.h): the coefficient of a pair with a
  // model (else 0), and its RollingFrictionModel id as a double (0: none).
  std::vector<double> rolling_friction, rolling_model;
  bool any_rolling = false;  // some pair has a rolling resistance model
};

// The scratch of one batch: the touching candidates in list order
// (touching[t] = c - first candidate) with their geometry, then the rolling
// torques of the law's lanes.
struct PairContactBatch {
  static constexpr std::size_t kCapacity = 256;
  // The touching list is padded to whole groups of the widest law's lanes.
  static constexpr std::size_t kWidestGroup = 8;
  static constexpr std::size_t kPadded = kCapacity + kWidestGroup;
  std::uint32_t touching[kPadded];
  std::size_t touching_count = 0;
  // Per touching candidate, from the pass that finds them: the separation
  // x_j - x_i (nearest image), its square and the two radii. The last one is
  // repeated up to a whole group.
  double dx[kPadded], dy[kPadded], dz[kPadded], distance2[kPadded];
  double radius_first[kPadded], radius_second[kPadded];
  // Per touching candidate, where its forces go: its cross slot, or kNoSlot.
  std::uint32_t cross_slot[kPadded];
  static constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};
  // Rolling resistance torque on the first sphere and its power, where the
  // table has any rolling model (read only for pairs that have one).
  double rolling[3][kCapacity], rolling_power[kCapacity];
  // The first touching candidate of a pair without relation, or -1.
  std::int64_t first_undefined = -1;
};

// A pair contact's force as the pair pass keeps it for DEM_STRESS_TENSOR: the
// force on the first sphere, the normal (first to second) and the two arms
// along it. Read only where the candidate's state says touching.
struct KeptPairForce {
  Array3 force, normal;
  double arm_first, arm_second;
};

// What the kernel reads (the spheres' rows, the candidate list, the pair table)
// and the contact history it updates.
struct PairBatchInput {
  const Array3* position;
  const Array3* velocity;
  const Array3* spin;
  const Array3* step_displacement;  // read unless velocity_step
  const Array3* step_rotation;
  const double* radius;
  const double* mass;
  const double* inertia;  // for rolling resistance (EvaluateAndApplyPairBatch)
  const int* material;
  std::uint32_t materials;
  const std::uint32_t* first;  // the candidate list
  const std::uint32_t* second;
  PairHistory* history;  // per candidate, updated in place
  std::uint8_t* state;   // per candidate: PairState bits, updated in place
  const PairTableArrays* table;
  double dt;
  // Velocity Verlet inside a step: relative displacement = relative velocity × Δt.
  bool velocity_step;
  // Dissipated powers wanted (energy bookkeeping); else they are not computed.
  bool powers;
  // A periodic domain (if active): separations to the nearest image, with
  // PeriodicBox::Nearest's arithmetic.
  PeriodicBox periodic;
  // The pair index (a * materials + b) of every candidate where all spheres are
  // of one material, else -1: the kernel then reads the table once per batch.
  std::int32_t uniform_pair = -1;
  // The contact law on eight lanes (EightLanePairContactBatchAvailable), else
  // on four.
  bool eight_lanes = false;
  // Per candidate, where DEM_STRESS_TENSOR is written, each contact's force
  // and arms (else null).
  KeptPairForce* kept = nullptr;
};

// Where EvaluateAndApplyPairBatch adds a block's forces: row i of a contact
// (i, j) receives F, row j -F, or, where j lies past `row_end` (in a later
// block), the next of the block's cross slots takes -F, which j's block
// gathers. Every cross candidate takes a slot in list order, touching or not
// (zero then), as in the strategy's pair loop.
struct PairBatchRows {
  Array3* contact_force;
  Array3* elastic_force;  // null, as cross_elastic, where they are not summed
  Array3* torque;
  Array3* cross_force;
  Array3* cross_elastic;
  Array3* cross_torque;
  // Per row, the powers of its contacts as first sphere, summed (energy
  // bookkeeping); null if not tracked.
  DissipationPower* dissipation;
  std::uint32_t row_end;
  std::uint32_t next_slot;  // advanced by each batch
};

// A cross slot that gets nothing this step (its candidate is apart, or of a
// pair without relation). Separate stores: a chained assignment would reload
// each value it had just stored.
inline void ClearCrossSlot(PairBatchRows& rows, std::uint32_t slot) {
  rows.cross_force[slot] = Array3{};
  if (rows.cross_elastic) rows.cross_elastic[slot] = Array3{};
  rows.cross_torque[slot] = Array3{};
}

// What one contact (i, j) gives, as computed on sphere i (j gets -force).
struct PairContactSums {
  Array3 force, torque_first, torque_second;
  double normal_force, damping_power, friction_power;
};

// Adds contact (i, j) to the rows, as both pair paths (the kernel and the
// strategy's scalar loop) do, contact by contact in list order: row i gets the
// force and the torque of its arm, then, if `rolls` (the pair has a rolling
// model), the rolling resistance torque `rolling`, and the powers; row j, or
// cross slot `slot` if not PairContactBatch::kNoSlot, the opposite. The
// elastic part goes separately (AddPairContactElastic).
inline void AddPairContactTerms(bool rolls, std::uint32_t i, std::uint32_t j, std::uint32_t slot,
                                const PairContactSums& sums, const Array3& rolling,
                                double rolling_power, PairBatchRows& rows) {
  Array3 torque_second = sums.torque_second;
  rows.contact_force[i] += sums.force;
  rows.torque[i] += sums.torque_first;
  if (rolls) {
    rows.torque[i] += rolling;
    torque_second -= rolling;
  }
  if (rows.dissipation) {
    DissipationPower& row = rows.dissipation[i];
    row.damping += sums.damping_power;
    row.friction += sums.friction_power;
    row.rolling += rolling_power;
  }
  if (slot != PairContactBatch::kNoSlot) {
    rows.cross_force[slot] = -sums.force;
    rows.cross_torque[slot] = torque_second;
  } else {
    rows.contact_force[j] -= sums.force;
    rows.torque[j] += torque_second;
  }
}

// The elastic part of contact (i, j), where the rows sum it (rows.elastic_force
// not null): to row i, its opposite to row j or to cross slot `slot`. Apart
// from AddPairContactTerms, so that the kernel tests once per group of lanes
// whether to add them, not once per contact; each row's elastic sum keeps the
// list order.
inline void AddPairContactElastic(std::uint32_t i, std::uint32_t j, std::uint32_t slot,
                                  const Array3& elastic, PairBatchRows& rows) {
  rows.elastic_force[i] += elastic;
  if (slot != PairContactBatch::kNoSlot)
    rows.cross_elastic[slot] = -elastic;
  else
    rows.elastic_force[j] -= elastic;
}

// AddPairContactTerms with the rolling resistance of the pair computed here
// (R_r the smaller radius, thesis 2.42), and the elastic part `elastic` where
// summed: the strategy's scalar pair loop.
inline void AddPairContact(const PairBatchInput& in, const PairParameters& pair, std::uint32_t i,
                           std::uint32_t j, std::uint32_t slot, const PairContactSums& sums,
                           const Array3& elastic, PairBatchRows& rows) {
  const bool rolls = pair.rolling_model != RollingFrictionModel::kNone;
  Array3 rolling{};
  double rolling_power = 0.0;
  if (rolls) {
    const Array3 relative_spin = in.spin[i] - in.spin[j];
    rolling = RollingResistanceTorque(
        pair.rolling_model, pair.rolling_friction, std::min(in.radius[i], in.radius[j]),
        sums.normal_force, relative_spin, 1.0 / in.inertia[i] + 1.0 / in.inertia[j], in.dt);
    rolling_power = -Dot(rolling, relative_spin);
  }
  AddPairContactTerms(rolls, i, j, slot, sums, rolling, rolling_power, rows);
  if (rows.elastic_force) AddPairContactElastic(i, j, slot, elastic, rows);
}

// Whether this processor runs the batch kernel (AVX2).
bool PairContactBatchAvailable();
// Whether it runs the eight-lane contact law and touching test too (AVX-512
// F, DQ and VL, and BMI2).
bool EightLanePairContactBatchAvailable();

// Whether `law` has a batch kernel (the 3D linear and Hertz laws).
inline bool HasPairContactBatch(ContactLaw law) { return LawHasBatch(law); }

// Evaluates candidates [begin, end) (end - begin <= kCapacity), every defined
// pair of law `law` (HasPairContactBatch), and adds the forces, the rolling
// resistance torque of pairs that have one and the dissipated powers to the
// rows in list order, with the sums of the strategy's scalar pair loop. Only if
// PairContactBatchAvailable(). Returns the first candidate of a pair without
// relation (given no force), or -1.
std::int64_t EvaluateAndApplyPairBatch(ContactLaw law, const PairBatchInput& in,
                                       std::uint32_t begin, std::uint32_t end,
                                       PairContactBatch& batch, PairBatchRows& rows);

}  // namespace tessera::dem
