// The pair pass: the sphere-sphere contact forces of every candidate, in
// force blocks of rows (the class comment in dem_strategy.h), by the batch
// kernel (contact_laws/pair_contact_batch.h) or the scalar loop; each row
// starts from its wall contacts (wall_contact_pass.cpp), and a complete block
// is finished (integration.cpp) while its rows are in cache.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>

#include "applications/dem/contact_laws/contact_force.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "applications/dem/strategies/parallel_error.h"
#include "applications/dem/utilities/parallel_rows.h"

namespace tessera::dem {

namespace {

// The pair pass's batch results, one per thread (a few tens of KB, reused).
// Not inlined: inlined, the compiler recomputed the thread-local address (a
// call to __tls_get_addr from this shared library) at every candidate of the
// pair loop, 1.5 % of a packed-bed step.
[[gnu::noinline]] PairContactBatch& ThreadBatch() {
  static thread_local PairContactBatch batch;
  return batch;
}

// What the scalar loop reads besides the batch's input (PairBatchInput): the
// candidates of each row, the material pairs' parameters (a * materials + b),
// the share of the overlap taken by the first sphere, TangentialDampingFactor,
// whether the domain is periodic, and the side table of extra history per
// candidate (null where the run keeps none: PairContacts::extra_history).
struct ScalarPairTable {
  const std::uint32_t* first_start;
  const PairParameters* pairs;
  const double* pair_share;
  const double* pair_tangential_damping;
  bool periodic;
  ExtraHistoryRow* extra_history;
  // Each candidate's force and arms, where DEM_STRESS_TENSOR is written (else null).
  KeptPairForce* kept;
};

// One row's candidates, one contact at a time (any law, any processor): the
// reference that the batch kernel equals bitwise. kExtra: with the side
// table's rows (table.extra_history), compiled apart so that a run without a
// law that keeps more history runs the loop it always did. Adds to the block's `rows`
// (rows below `end`, cross slots past it) as the kernel does; a contact of a
// pair without relation is recorded in `pending_error`.
template <bool kExtra>
void ScalarPairRow(const PairBatchInput& batch_input, const ScalarPairTable& table, std::size_t i,
                   std::size_t end, PairBatchRows& rows, std::int64_t& pending_error) {
  // Raw pointers, as in the pass (ComputeParticleContacts says why).
  const Array3* const position = batch_input.position;
  const Array3* const velocity = batch_input.velocity;
  const Array3* const spin = batch_input.spin;
  const Array3* const step_displacement = batch_input.step_displacement;
  const Array3* const step_rotation = batch_input.step_rotation;
  const double* const radius = batch_input.radius;
  const double* const mass = batch_input.mass;
  const int* const material = batch_input.material;
  const std::size_t materials = batch_input.materials;
  const std::uint32_t* const first_start = table.first_start;
  const std::uint32_t* const second = batch_input.second;
  PairHistory* const history = batch_input.history;
  std::uint8_t* const state = batch_input.state;
  const PairParameters* const pairs = table.pairs;
  const double* const pair_share = table.pair_share;
  const double* const pair_tangential_damping = table.pair_tangential_damping;
  const bool periodic = table.periodic;
  const PeriodicBox& box = batch_input.periodic;
  const bool displacement_is_velocity_step = batch_input.velocity_step;
  const double dt = batch_input.dt;
  // A candidate that is no contact (now) loses its history and gives its
  // cross slot, if it has one, nothing (the batch kernel settles its own).
  ExtraHistoryRow* const extra_history = table.extra_history;
  KeptPairForce* const kept = table.kept;
  auto clear_candidate = [&](std::uint32_t c, bool cross) {
    if (kept) kept[c] = {};
    if (state[c]) {
      history[c] = PairHistory{};
      if constexpr (kExtra) extra_history[c] = ExtraHistoryRow{};
    }
    state[c] = 0;
    if (!cross) return;
    ClearCrossSlot(rows, rows.next_slot++);
  };
  const Array3 xi = position[i];
  const double ri = radius[i], mi = mass[i];
  const std::size_t material_i = static_cast<std::size_t>(material[i]);
  for (std::uint32_t c = first_start[i]; c < first_start[i + 1]; ++c) {
    const std::uint32_t j = second[c];
    const bool cross = j >= end;
    const Array3 d = periodic ? box.Nearest(position[j] - xi) : position[j] - xi;
    const double distance2 = Dot(d, d);
    const double reach = ri + radius[j];
    const std::size_t pair_index = material_i * materials + material[j];
    const PairParameters* pair = &pairs[pair_index];
    if (!(distance2 < reach * reach && distance2 > 0.0)) {
      clear_candidate(c, cross);
      continue;
    }
    if (!pair->defined) {
      RecordError(pending_error, static_cast<std::int64_t>(c));
      clear_candidate(c, cross);
      continue;
    }
    const double distance = std::sqrt(distance2);
    const double overlap = reach - distance;
    // 1/d, R* = r_i r_j / (r_i + r_j) and m* = m_i m_j / (m_i + m_j) from one
    // division (divisions, not the products, bound this loop).
    const double mass_sum = mi + mass[j];
    const double inverse = 1.0 / (reach * mass_sum * distance);
    const Array3 normal = d * (reach * mass_sum * inverse);
    const double pair_radius = ri * radius[j] * mass_sum * distance * inverse;
    const double pair_mass = mi * mass[j] * reach * distance * inverse;
    // Contact point: the overlap split between the spheres as two springs in
    // series (thesis eq. 2.8 with the sign of its erratum).
    // Both arms lie along the normal: arm_i = a_i n, arm_j = -a_j n. Hence
    // w_j x arm_j - w_i x arm_i = -(a_j w_j + a_i w_i) x n, one cross product
    // for both spheres, and arm x F = a (n x F) for both torques.
    const double share_i = pair_share[pair_index];
    const double a_i = ri - share_i * overlap;
    const double a_j = radius[j] - (1.0 - share_i) * overlap;
    const Array3 relative_velocity =
        (velocity[j] - velocity[i]) - Cross(a_j * spin[j] + a_i * spin[i], normal);
    const Array3 relative_displacement =
        displacement_is_velocity_step
            ? relative_velocity * dt
            : (step_displacement[j] - step_displacement[i]) -
                  Cross(a_j * step_rotation[j] + a_i * step_rotation[i], normal);
    PairHistory& record = history[c];
    std::uint8_t sliding = state[c] & kPairSliding ? 1 : 0;
    double* extra = nullptr;
    if constexpr (kExtra) extra = extra_history[c].data();
    const ContactForce f =
        ComputeContactForce(*pair, overlap, StiffnessRadius(pair->law, pair_radius, ri, radius[j]),
                            pair_mass, normal, relative_velocity, relative_displacement,
                            {record.tangential_force, record.tangential_stiffness,
                             record.normal_elastic_force, sliding},
                            dt, pair_tangential_damping[pair_index], extra);
    state[c] = sliding ? kPairTouching | kPairSliding : kPairTouching;
    if (kept) kept[c] = {f.force, normal, a_i, a_j};
    const Array3 moment = Cross(normal, f.force);
    AddPairContact(
        batch_input, *pair, static_cast<std::uint32_t>(i), j,
        cross ? rows.next_slot++ : PairContactBatch::kNoSlot,
        {f.force, a_i * moment, a_j * moment, f.normal_force, f.damping_power, f.friction_power},
        f.elastic_force, rows);
  }
}

}  // namespace

bool ExplicitSolverStrategy::RelativeDisplacementIsVelocityStep() const {
  // Not at Initialize (no increment made yet), nor without rotation (the
  // spins, which the velocity form reads, are then not integrated).
  if (!settings_.rotation || step_ == 0) return false;
  // Velocity Verlet computes the forces inside the step, with the velocities
  // that made its increments (KickAndDrift).
  if (settings_.scheme == TranslationalScheme::kVelocityVerlet) return true;
  // Symplectic Euler computes them with the velocities of the last
  // integration, which made the increments, unless a row moved otherwise
  // since: glued to a wall, a member of a cluster, a velocity dof fixed (a
  // process may have imposed a new velocity before these forces), or
  // inserted after the integration. Then every contact keeps the increments
  // (Kratos' form), so that the same rows give the same forces as before. (A
  // velocity that a script sets on a free node between steps enters the next
  // tangential increment as v Δt rather than as the motion already made: the
  // two differ by O(Δt) in that one step, as the schemes themselves do.)
  return increments_are_velocity_steps_ && glued_.size() == 0 && !ClustersInRun() &&
         std::none_of(particles_.fixed.begin(), particles_.fixed.end(),
                      [](std::uint8_t bits) { return bits != 0; });
}

void ExplicitSolverStrategy::ComputeParticleContacts(bool finish, AfterGather then, bool drift) {
  PairContacts& pc = pairs_;
  ParticleStorage& p = particles_;
  const std::size_t n = p.size();
  // Every rank of a distributed run takes the serial run's form of the
  // increments: the motion made wherever a row of any rank moved otherwise
  // (its own rows may have no fixed dof, glued sphere or newcomer, or none
  // at all: decided before the return below). Velocity Verlet's form does
  // not depend on the rows.
  bool velocity_step_in_run = RelativeDisplacementIsVelocityStep();
  if (hooks_.any_rank && settings_.rotation && step_ != 0 &&
      settings_.scheme != TranslationalScheme::kVelocityVerlet)
    velocity_step_in_run = !hooks_.any_rank(!velocity_step_in_run);
  const std::size_t block_rows = settings_.tuning.force_block_rows;
  const std::size_t blocks = (n + block_rows - 1) / block_rows;
  block_finished_.assign(blocks, 0);
  block_done_.assign(blocks, 0);
  if (n == 0) return;
  std::uint8_t* const block_done = block_done_.data();
  std::uint8_t* const block_finished = block_finished_.data();
  const std::uint32_t* const earliest_source = pc.earliest_source_block.data();
  const std::uint32_t* const latest_target = pc.latest_target_block.data();
  // The blocks kicked and drifted so far (`drift`: one thread, block order).
  std::size_t drifted_blocks = 0;
  const IntegrationRows integration_rows(p);
  const bool quads = QuadRowUpdates();
  const IntegrationConstants integration = Integration();
  // Raw pointers: the loop stores bytes (the candidates' state), which may alias
  // anything, so a vector's data pointer would be reloaded after each of them.
  const int* const material = p.material.data();
  Array3* const contact_force = p.contact_force.data();
  Array3* const torque = p.torque.data();
  // The elastic parts are summed only where the rows hold ELASTIC_FORCES
  // (ParticleStorage): null otherwise, the cross slots' too.
  const bool sum_elastic = !p.elastic_force.empty();
  pc.cross_elastic.resize(sum_elastic ? pc.cross_force.size() : 0);
  Array3* const elastic_force = sum_elastic ? p.elastic_force.data() : nullptr;
  const std::uint32_t* const first_start = pc.first_start.data();
  Array3* const cross_force = pc.cross_force.data();
  Array3* const cross_elastic = sum_elastic ? pc.cross_elastic.data() : nullptr;
  Array3* const cross_torque = pc.cross_torque.data();
  DissipationPower* const dissipation = pair_dissipation_.data();
  const bool track_dissipation = settings_.energy_calculation;
  const std::size_t materials = table_.size();
  // Where the increments are the velocities times Δt, the relative
  // displacement at the contact is the relative velocity times Δt: no
  // gathering of the increments (RelativeDisplacementIsVelocityStep).
  const bool displacement_is_velocity_step = velocity_step_in_run;
  const double dt = settings_.delta_time;
  const bool batched =
      settings_.tuning.batched_pair_contacts && batch_law_valid_ && PairContactBatchAvailable();
  // Where DEM_STRESS_TENSOR is written, each candidate's force and arms.
  pc.kept.resize(keep_contact_forces_ ? pc.second.size() : 0);
  wall_contacts_.arm.resize(keep_contact_forces_ ? wall_contacts_.particle.size() : 0);
  const ContactLaw batch_law = batch_law_;
  // What the scalar loop reads besides the batch input; in a periodic domain
  // both paths take the nearest images.
  const ScalarPairTable scalar_table{first_start,
                                     &table_.Pair(0, 0),
                                     pair_arrays_.share.data(),
                                     pair_arrays_.tangential_damping.data(),
                                     settings_.periodic,
                                     pc.keeps_extra_history ? pc.extra_history.data() : nullptr,
                                     keep_contact_forces_ ? pc.kept.data() : nullptr};
  // One material for every sphere (the common case): every candidate is of one
  // pair, and the kernel reads the table once per batch.
  const bool one_material =
      std::all_of(material, material + n, [m = material[0]](int k) { return k == m; });
  const std::int32_t uniform_pair =
      one_material
          ? static_cast<std::int32_t>(static_cast<std::size_t>(material[0]) * (materials + 1))
          : -1;
  const PairBatchInput batch_input{
      p.position.data(),
      p.velocity.data(),
      p.angular_velocity.data(),
      p.delta_displacement.data(),
      p.delta_rotation.data(),
      p.radius.data(),
      p.mass.data(),
      p.inertia.data(),
      material,
      static_cast<std::uint32_t>(materials),
      pc.first.data(),
      pc.second.data(),
      pc.history.data(),
      pc.state.data(),
      &pair_arrays_,
      dt,
      displacement_is_velocity_step,
      track_dissipation,
      periodic_,
      uniform_pair,
      settings_.tuning.eight_lane_pair_contacts && EightLanePairContactBatchAvailable(),
      keep_contact_forces_ ? pc.kept.data() : nullptr};
  // Captured by value: pointers read through a reference to the enclosing frame
  // would be reloaded after every byte store as well.
  ParallelBlocks(n, blocks, [=, this, &pc, &drifted_blocks](std::size_t b) {
    const std::size_t begin = b * block_rows, end = std::min(n, begin + block_rows);
    // The rows this block's contacts read (its own and later blocks' up to the
    // latest target) kicked and drifted first; each row once, before any read.
    if (drift) {
      const std::size_t last = std::min(n, (latest_target[b] + std::size_t{1}) * block_rows);
      KickAndDriftRowRange(integration_rows, integration, drifted_blocks * block_rows, last, quads);
      drifted_blocks = std::max<std::size_t>(drifted_blocks, latest_target[b] + std::size_t{1});
    }
    // Once the block is done, its rows are finished at once if every block
    // with a contact into them is done too: then nothing else adds to these
    // rows or reads them in this pass (later blocks' contacts have both
    // spheres in later blocks), and their data is still in cache. The order
    // of every sum is that of GatherForces, so the result is the same.
    auto finish_block = [&] {
      if (!finish) return;
      std::atomic_ref<std::uint8_t>(block_done[b]).store(1, std::memory_order_release);
      for (std::size_t s = earliest_source[b]; s < b; ++s)
        if (std::atomic_ref<std::uint8_t>(block_done[s]).load(std::memory_order_acquire) == 0)
          return;
      FinishRows(begin, end, then);
      block_finished[b] = 1;
    };
    // Each row starts from its wall contacts; rows of this block then receive
    // the forces of this block's contacts as they come.
    StartRowsFromWallContacts(begin, end);
    // Where the block's contacts add their forces (AddPairContact): its rows,
    // and its cross slots, numbered from the block's first in list order.
    if (track_dissipation) std::fill(dissipation + begin, dissipation + end, DissipationPower{});
    PairBatchRows rows{contact_force,
                       elastic_force,
                       torque,
                       cross_force,
                       cross_elastic,
                       cross_torque,
                       track_dissipation ? dissipation : nullptr,
                       static_cast<std::uint32_t>(end),
                       pc.cross_block_start[b]};

    if (!batched) {
      if (kExtraHistoryDoubles > 0 && scalar_table.extra_history)
        for (std::size_t i = begin; i < end; ++i)
          ScalarPairRow<(kExtraHistoryDoubles > 0)>(batch_input, scalar_table, i, end, rows,
                                                    pending_pair_error_);
      else
        for (std::size_t i = begin; i < end; ++i)
          ScalarPairRow<false>(batch_input, scalar_table, i, end, rows, pending_pair_error_);
      finish_block();
      return;
    }
    // The block's candidates in runs of up to a batch: the kernel evaluates a
    // run, updates its history and adds its forces to the rows in list order.
    PairContactBatch& batch = ThreadBatch();
    const std::uint32_t block_end = first_start[end];
    for (std::uint32_t run = first_start[begin]; run < block_end;
         run += static_cast<std::uint32_t>(PairContactBatch::kCapacity)) {
      const std::uint32_t run_end = std::min<std::uint32_t>(
          block_end, run + static_cast<std::uint32_t>(PairContactBatch::kCapacity));
      const std::int64_t undefined =
          EvaluateAndApplyPairBatch(batch_law, batch_input, run, run_end, batch, rows);
      if (undefined >= 0) RecordError(pending_pair_error_, undefined);
    }
    finish_block();
  });
}

}  // namespace tessera::dem
