// The contact lists (ExplicitSolverStrategy::PairContacts, WallContacts): the
// search that fills them, the merge that carries each candidate's history into
// the new list (history_carry_over.h), the candidates of rows inserted between
// searches, and the adaptive search's test of whether the lists may miss a
// contact (the class comment in dem_strategy.h).
#include <algorithm>
#include <cmath>
#include <cstddef>

#include "applications/dem/strategies/dem_strategy.h"
#include "applications/dem/strategies/history_carry_over.h"
#include "applications/dem/utilities/parallel_rows.h"
#include "kernel/core/error.h"
#include "kernel/core/heap.h"

namespace tessera::dem {

void ExplicitSolverStrategy::PairContacts::Resize(std::size_t n) {
  first.resize(n);
  second.resize(n);
  history.resize(n);
  state.resize(n);
  if (keeps_extra_history) extra_history.resize(n);
}

std::size_t ExplicitSolverStrategy::PairContacts::HeldBytes() const {
  return VectorBytes(first, second, history, extra_history, state, first_start, cross_block_start,
                     cross_row_start, cross_row_slot, cross_force, cross_elastic, cross_torque,
                     kept, earliest_source_block, latest_target_block);
}

void ExplicitSolverStrategy::PairContacts::Index(std::size_t n, std::size_t block_rows) {
  const std::size_t m = first.size();
  first_start.assign(n + 1, 0);
  for (std::size_t c = 0; c < m; ++c) ++first_start[first[c] + 1];
  for (std::size_t i = 0; i < n; ++i) first_start[i + 1] += first_start[i];
  // The block of every row, from a table: dividing the row numbers by the
  // block size took up to six 64-bit integer divisions per candidate.
  const std::size_t blocks = (n + block_rows - 1) / block_rows;
  std::vector<std::uint32_t> block_of(n);
  for (std::size_t b = 0; b < blocks; ++b)
    std::fill(block_of.begin() + static_cast<std::ptrdiff_t>(b * block_rows),
              block_of.begin() + static_cast<std::ptrdiff_t>(std::min(n, (b + 1) * block_rows)),
              static_cast<std::uint32_t>(b));
  // Slots of the cross contacts in list order: the list is sorted by first, so
  // each block's slots are contiguous and a block numbers its own from its start.
  cross_block_start.assign(blocks + 1, 0);
  cross_row_start.assign(n + 1, 0);
  earliest_source_block.resize(blocks);
  latest_target_block.resize(blocks);
  for (std::size_t b = 0; b < blocks; ++b)
    earliest_source_block[b] = latest_target_block[b] = static_cast<std::uint32_t>(b);
  for (std::size_t c = 0; c < m; ++c) {
    const std::uint32_t source = block_of[first[c]], target = block_of[second[c]];
    if (source == target) continue;
    ++cross_block_start[source + 1];
    ++cross_row_start[second[c] + 1];
    earliest_source_block[target] = std::min(earliest_source_block[target], source);
    latest_target_block[source] = std::max(latest_target_block[source], target);
  }
  for (std::size_t b = 0; b < blocks; ++b) cross_block_start[b + 1] += cross_block_start[b];
  for (std::size_t i = 0; i < n; ++i) cross_row_start[i + 1] += cross_row_start[i];
  const std::size_t slots = cross_row_start[n];
  cross_row_slot.resize(slots);
  cross_force.resize(slots);
  cross_torque.resize(slots);
  // (cross_elastic is sized by the force evaluation, which knows whether the
  // elastic forces are summed.)
  std::vector<std::uint32_t> cursor(cross_row_start.begin(), cross_row_start.end() - 1);
  std::uint32_t slot = 0;
  for (std::size_t c = 0; c < m; ++c)
    if (block_of[first[c]] != block_of[second[c]]) cross_row_slot[cursor[second[c]]++] = slot++;
}

void ExplicitSolverStrategy::WallContacts::Resize(std::size_t n) {
  particle.resize(n);
  face.resize(n);
  tangential_force.resize(n);
  tangential_stiffness.resize(n);
  normal_elastic_force.resize(n);
  sliding.resize(n);
  active.resize(n);
  if (keeps_extra_history) extra_history.resize(n);
  force.resize(n);
  elastic_force.resize(n);
  rolling.resize(n);
  energy.resize(n);
  dissipation.resize(n);
  weights.resize(n);
  normal.resize(n);
  point.resize(n);
}

std::size_t ExplicitSolverStrategy::WallContacts::HeldBytes() const {
  return VectorBytes(particle, face, tangential_force, tangential_stiffness, normal_elastic_force,
                     sliding, active, extra_history, force, elastic_force, rolling, energy,
                     dissipation, weights, normal, point, arm, adm_master, adm_fraction,
                     adm_distributed, adm_gradient_force, adm_vertex_force, particle_start);
}

// ---------------------------------------------------------------- search

void ExplicitSolverStrategy::CheckFiniteState(double time) const {
  const ParticleStorage& p = particles_;
  const std::size_t n = p.size();
  // The first bad row in row order (deterministic for any thread count).
  std::size_t bad = n;
  for (std::size_t i = 0; i < n && bad == n; ++i)
    for (int k = 0; k < 3; ++k)
      if (!std::isfinite(p.position[i][k]) || !std::isfinite(p.velocity[i][k]) ||
          !std::isfinite(p.angular_velocity[i][k]))
        bad = i;
  if (bad == n) return;
  // The Hertz estimate depends on the impact speed: the largest finite one.
  double speed = 0.0;
  for (std::size_t i = 0; i < n; ++i)
    if (const double v = Norm(p.velocity[i]); std::isfinite(v)) speed = std::max(speed, v);
  const TimeStepEstimate estimate = EstimateTimeStep(speed);
  TESSERA_ERROR("the DEM run diverged: at step ", step_, " (time ", time, ") sphere element ",
                p.element_id[bad], " has position ", p.position[bad], ", velocity ",
                p.velocity[bad], " and angular velocity ", p.angular_velocity[bad],
                ". The time step ", settings_.delta_time,
                " is probably too large for the contacts (estimated critical time step ",
                estimate.critical_time_step, "): reduce MaxTimeStep or the stiffness");
}

void ExplicitSolverStrategy::DropIntraClusterPairs(std::vector<std::uint32_t>& first,
                                                   std::vector<std::uint32_t>& second) const {
  const std::uint32_t* cluster = particles_.cluster.data();
  std::size_t out = 0;
  for (std::size_t c = 0; c < first.size(); ++c) {
    const std::uint32_t a = cluster[first[c]];
    if (a != 0 && a == cluster[second[c]]) continue;
    first[out] = first[c];
    second[out] = second[c];
    ++out;
  }
  first.resize(out);
  second.resize(out);
}

void ExplicitSolverStrategy::Search(double time) {
  PhaseClock clock;
  const std::size_t n = particles_.size();
  CheckFiniteState(time);
  if (settings_.tuning.sort_rows_frequency > 0 && n >= settings_.tuning.sort_rows_minimum &&
      (!sorted_once_ || step_ - last_sort_step_ >= settings_.tuning.sort_rows_frequency)) {
    SortRows();
    last_sort_step_ = step_;
    sorted_once_ = true;
  }

  // ---- particle pairs: new candidates, histories carried over by merging.
  search_.FindParticlePairs(particles_.position, particles_.radius, settings_.search_tolerance,
                            scratch_first_, scratch_second_);
  if (!clusters_.empty()) DropIntraClusterPairs(scratch_first_, scratch_second_);
  if (!bonds_.empty()) bonds_.DropBondedPairs(scratch_first_, scratch_second_);
  {
    // The new pairs replace the old ones (which the scratch lists keep for the
    // next search to overwrite); the histories follow column by column.
    PairContacts& pc = pairs_;
    MatchSortedPairs(pc.first, pc.second, scratch_first_, scratch_second_, scratch_cursor_);
    pc.first.swap(scratch_first_);
    pc.second.swap(scratch_second_);
    CarryHistories(pc, scratch_cursor_);
    pc.Index(n, settings_.tuning.force_block_rows);
  }
  clock.Lap(timings_.search_particles);

  // ---- particle-face candidates.
  {
    WallContacts& w = wall_contacts_;
    std::vector<std::uint32_t>& particle = wall_scratch_particle_;
    std::vector<std::uint32_t>& face = wall_scratch_face_;
    if (faces_.size() > 0) {
      // On the pair search's grid: the particles have not moved since.
      search_.FindWallCandidates(particles_.position, particles_.radius,
                                 wall_region_.Select(faces_.boxes), settings_.wall_search_tolerance,
                                 particle, face, /*positions_unchanged=*/true);
      wall_region_.ToFaceRows(face);
      KeepFacesInReach(faces_, particles_.position, particles_.radius,
                       settings_.wall_search_tolerance, particle, face);
    } else {
      particle.clear(), face.clear();
    }
    MatchSortedPairs(w.particle, w.face, particle, face, scratch_cursor_);
    w.particle.swap(particle);
    w.face.swap(face);
    // The faces in reach keep their sub-triangles until the next search.
    KeepSubTrianglesOf(faces_, w.face, face_area_distributed_);
    // With the last contact point, for the hand-over of histories between faces.
    CarryHistories(w, scratch_cursor_, w.point);
    // What the force evaluation writes starts at zero, as in a new list.
    const std::size_t m = w.particle.size();
    w.force.assign(m, Array3{});
    w.elastic_force.assign(m, Array3{});
    w.rolling.assign(m, Array3{});
    w.energy.assign(m, 0.0);
    w.dissipation.assign(m, DissipationPower{});
    w.weights.assign(m, std::array<double, 4>{});
    w.normal.assign(m, Array3{});
    w.particle_start.assign(n + 1, 0);
    for (std::size_t c = 0; c < m; ++c) ++w.particle_start[w.particle[c] + 1];
    for (std::size_t i = 0; i < n; ++i) w.particle_start[i + 1] += w.particle_start[i];
  }
  // Only what the settings use: no per-particle memory for switched-off terms.
  global_damping_power_.assign(settings_.global_damping > 0.0 ? n : 0, 0.0);
  pair_dissipation_.assign(settings_.energy_calculation ? n : 0, DissipationPower{});
  // The scratch lists keep their capacity for the next search, and the heap
  // keeps what this search freed for the next one, which takes about as much:
  // a search takes no fresh pages from the system. Where the lists have
  // shrunk to half of their longest (particles deleted, a bed gone quiet), the
  // scratch is freed and the heap gives its free pages back
  // (kernel/core/heap.h).
  const std::size_t lists = pairs_.first.size() + wall_contacts_.particle.size();
  longest_lists_ = std::max(longest_lists_, lists);
  if (2 * lists < longest_lists_) {
    for (std::vector<std::uint32_t>* scratch : {&scratch_first_, &scratch_second_, &scratch_cursor_,
                                                &wall_scratch_particle_, &wall_scratch_face_})
      std::vector<std::uint32_t>().swap(*scratch);
    ReleaseFreedHeapMemory();
    longest_lists_ = lists;
  }
  // The kept forces (DEM_STRESS_TENSOR) were the old lists': none until the next pass.
  pairs_.kept.clear();
  wall_contacts_.arm.clear();
  ShareRowsWithNodes();
  RememberSearchPositions();
  ++searches_;
  clock.Lap(timings_.search_walls);
}

void ExplicitSolverStrategy::AddCandidatesOfNewRows(std::size_t first_new) {
  const std::size_t n = particles_.size();
  if (first_new >= n) return;
  // The rows that may pair with a new one: those in the box of the new rows
  // widened by the largest reach, in increasing order (so that the subset's
  // sorted pairs map to sorted pairs of rows), then the new rows.
  Array3 low = particles_.position[first_new], high = low;
  double new_radius = 0.0, any_radius = 0.0;
  for (std::size_t i = first_new; i < n; ++i) {
    for (int k = 0; k < 3; ++k) {
      low[k] = std::min(low[k], particles_.position[i][k]);
      high[k] = std::max(high[k], particles_.position[i][k]);
    }
    new_radius = std::max(new_radius, particles_.radius[i]);
  }
  for (double r : particles_.radius) any_radius = std::max(any_radius, r);
  const double reach = new_radius + any_radius + settings_.search_tolerance;
  std::vector<std::uint32_t> rows;
  std::vector<Array3> position;
  std::vector<double> radius;
  for (std::size_t i = 0; i < n; ++i) {
    const Array3& x = particles_.position[i];
    // (A periodic domain has neighbours across its faces: every row.)
    bool near = i >= first_new || settings_.periodic;
    if (!near) {
      near = true;
      for (int k = 0; k < 3; ++k) near = near && x[k] >= low[k] - reach && x[k] <= high[k] + reach;
    }
    if (!near) continue;
    rows.push_back(static_cast<std::uint32_t>(i));
    position.push_back(x);
    radius.push_back(particles_.radius[i]);
  }
  insertion_search_.FindParticlePairs(position, radius, settings_.search_tolerance, scratch_first_,
                                      scratch_second_);
  // Keep the pairs with a new row (the second one: new rows come last).
  std::size_t added = 0;
  for (std::size_t c = 0; c < scratch_first_.size(); ++c)
    if (rows[scratch_second_[c]] >= first_new) {
      scratch_first_[added] = rows[scratch_first_[c]];
      scratch_second_[added] = rows[scratch_second_[c]];
      ++added;
    }

  // Merge with the current list, both sorted by (first, second); an existing
  // contact keeps everything, a new one starts fresh.
  {
    PairContacts& pc = pairs_;
    const std::size_t old_count = pc.first.size();
    std::vector<std::uint32_t> first(old_count + added), second(old_count + added);
    std::vector<std::uint32_t>& source = scratch_cursor_;
    source.resize(old_count + added);
    std::size_t o = 0, a = 0;
    for (std::size_t c = 0; c < old_count + added; ++c) {
      const bool take_old =
          a == added || (o < old_count &&
                         (pc.first[o] < scratch_first_[a] ||
                          (pc.first[o] == scratch_first_[a] && pc.second[o] < scratch_second_[a])));
      if (take_old) {
        first[c] = pc.first[o];
        second[c] = pc.second[o];
        source[c] = static_cast<std::uint32_t>(o++);
      } else {
        first[c] = scratch_first_[a];
        second[c] = scratch_second_[a];
        source[c] = kFreshContact;
        ++a;
      }
    }
    pc.first.swap(first);
    pc.second.swap(second);
    CarryHistories(pc, source);
    pc.Index(n, settings_.tuning.force_block_rows);
  }

  // Wall candidates of the new rows, appended (the list is sorted by particle).
  if (faces_.size() > 0) {
    position.assign(particles_.position.begin() + static_cast<std::ptrdiff_t>(first_new),
                    particles_.position.end());
    radius.assign(particles_.radius.begin() + static_cast<std::ptrdiff_t>(first_new),
                  particles_.radius.end());
    insertion_search_.FindWallCandidates(position, radius, wall_region_.Select(faces_.boxes),
                                         settings_.wall_search_tolerance, scratch_first_,
                                         scratch_second_);
    wall_region_.ToFaceRows(scratch_second_);
    KeepFacesInReach(faces_, position, radius, settings_.wall_search_tolerance, scratch_first_,
                     scratch_second_);
    WallContacts& w = wall_contacts_;
    const std::size_t old_count = w.particle.size();
    w.Resize(old_count + scratch_first_.size());  // new entries value-initialised: fresh
    for (std::size_t c = 0; c < scratch_first_.size(); ++c) {
      w.particle[old_count + c] = static_cast<std::uint32_t>(first_new + scratch_first_[c]);
      w.face[old_count + c] = scratch_second_[c];
    }
    if (!scratch_first_.empty()) KeepSubTrianglesOf(faces_, w.face, face_area_distributed_);
  }
  WallContacts& w = wall_contacts_;
  w.particle_start.assign(n + 1, 0);
  for (std::uint32_t p : w.particle) ++w.particle_start[p + 1];
  for (std::size_t i = 0; i < n; ++i) w.particle_start[i + 1] += w.particle_start[i];
  global_damping_power_.resize(settings_.global_damping > 0.0 ? n : 0, 0.0);
  pair_dissipation_.resize(settings_.energy_calculation ? n : 0, DissipationPower{});
}

// ---------------------------------------------------------------- adaptive search

bool ExplicitSolverStrategy::AdaptiveSearchArmed() const {
  // With a search every step there is nothing to decide; a zero tolerance
  // promises no margin (class comment), so it arms nothing.
  return settings_.adaptive_search && settings_.search_frequency > 1 &&
         (settings_.search_tolerance > 0.0 ||
          (settings_.wall_search_tolerance > 0.0 && faces_.size() > 0));
}

void ExplicitSolverStrategy::RememberSearchPositions() {
  if (!AdaptiveSearchArmed()) return;  // no copy of the positions where nothing reads it
  const std::size_t n = particles_.size();
  // assign keeps the capacity: no allocation once the rows have stopped growing.
  search_position_.assign(particles_.position.data(), particles_.position.data() + n);
  search_face_points_.assign(faces_.points.begin(), faces_.points.end());
  wall_displacement_ = 0.0;
}

namespace {

// The largest squared displacement of a row from `reference` (to the nearest
// periodic image where `periodic` is active) and, with kDrift, the largest
// squared speed and squared F/m: a max, exact in any order, so the same for
// any number of threads.
struct RowMotion {
  double moved2 = 0.0, speed2 = 0.0, accel2 = 0.0;
};

template <bool kDrift, bool kPeriodic>
RowMotion LargestRowMotion(std::size_t n, const Array3* position, const Array3* reference,
                           const Array3* velocity, const Array3* force, const double* mass,
                           const PeriodicBox& periodic) {
  double moved2 = 0.0, speed2 = 0.0, accel2 = 0.0;
  const auto count = static_cast<std::ptrdiff_t>(n);
  const bool parallel = n >= kMinimumParallelRows && ParallelThreads() > 1;
#pragma omp parallel for schedule(static) reduction(max : moved2, speed2, accel2) if (parallel)
  for (std::ptrdiff_t i = 0; i < count; ++i) {
    Array3 d = position[i] - reference[i];
    if constexpr (kPeriodic) d = periodic.Nearest(d);
    moved2 = std::max(moved2, Dot(d, d));
    if constexpr (kDrift) {
      speed2 = std::max(speed2, Dot(velocity[i], velocity[i]));
      accel2 = std::max(accel2, Dot(force[i], force[i]) / (mass[i] * mass[i]));
    }
  }
  return {moved2, speed2, accel2};
}

}  // namespace

bool ExplicitSolverStrategy::CandidatesMayMissContacts(bool before_drift) {
  const std::size_t n = particles_.size();
  // Rows deleted without a search since (none do today): no reference, search.
  if (search_position_.size() != n || search_face_points_.size() != faces_.size()) return true;
  const Array3* x = particles_.position.data();
  const Array3* x0 = search_position_.data();
  RowMotion motion;
  if (before_drift)
    motion =
        LargestRowMotion<true, false>(n, x, x0, particles_.velocity.data(), particles_.force.data(),
                                      particles_.mass.data(), periodic_);
  else if (settings_.periodic)
    motion = LargestRowMotion<false, true>(n, x, x0, nullptr, nullptr, nullptr, periodic_);
  else
    motion = LargestRowMotion<false, false>(n, x, x0, nullptr, nullptr, nullptr, periodic_);
  double particle = std::sqrt(motion.moved2);
  if (before_drift) {
    // Velocity Verlet's drift: Δt |v + c Δt/2 F/m| (fixed components not
    // kicked), at most Δt (|v| + c Δt/2 |F|/m), each term at its largest.
    const double dt = settings_.delta_time;
    particle +=
        dt * (std::sqrt(motion.speed2) + VirtualMassKick(0.5 * dt) * std::sqrt(motion.accel2));
  }
  const double pair_tolerance = settings_.search_tolerance;
  if (pair_tolerance > 0.0 && 2.0 * particle > pair_tolerance) return true;
  const double wall_tolerance = settings_.wall_search_tolerance;
  if (!(wall_tolerance > 0.0) || faces_.size() == 0) return false;
  if (particle > wall_tolerance) return true;  // before the faces' pass
  // A point of a face is a combination of its vertices with weights >= 0
  // summing to 1, so it moves at most as far as its farthest vertex. A face
  // standing still this step (no vertex velocity or displacement) is where it
  // was at the step before, counted then: the largest displacement since the
  // search is kept from step to step (every step between two searches comes
  // here), and only the faces in motion are measured, none on fixed walls.
  double wall2 = wall_displacement_ * wall_displacement_;
  for (std::size_t f = 0; f < faces_.size(); ++f) {
    if (faces_.still[f]) continue;
    for (int k = 0; k < faces_.vertex_count[f]; ++k) {
      const Array3 d = faces_.points[f][k] - search_face_points_[f][k];
      wall2 = std::max(wall2, Dot(d, d));
    }
  }
  wall_displacement_ = std::sqrt(wall2);
  return particle + wall_displacement_ > wall_tolerance;
}

}  // namespace tessera::dem
