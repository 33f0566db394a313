// Wall-clock time the DEM strategy spends per phase of its step (a profile in
// the terms of the thesis' Table 6.2), accumulated since Initialize() or the
// last reset:
//   wall_motion       imposed wall motion and re-reading the face rows
//   search_particles  DE-DE candidate search and the merge of the pair lists
//                     (bounding-box deletion and the spatial sort of the
//                     rows included)
//   search_walls      DE-FE candidate search (face boxes against particles)
//                     and the merge of the wall-contact lists
//   forces            the blocked contact pass: pair contacts and wall
//                     contacts (closest feature, Distance Hierarchy, force)
//   integration       gather of the cross-block forces, gravity, background
//                     damping and the update of velocities and positions
//                     (one fused pass), and Velocity Verlet's first half kick
//   energy            dissipated-energy sums (EnergyCalculationOption only)
//   node_sync         ReadFromNodes and WriteToNodes
// Each phase is timed as a whole by std::chrono::steady_clock, outside the
// parallel loops: a few clock reads per step, nothing per contact.
#pragma once

#include <array>
#include <chrono>
#include <utility>

namespace tessera::dem {

struct PhaseTimings {
  double wall_motion = 0.0;
  double search_particles = 0.0;
  double search_walls = 0.0;
  double forces = 0.0;
  double integration = 0.0;
  double energy = 0.0;
  double node_sync = 0.0;
};

// Every phase with its name (the keys of GetTimings()), in step order.
inline constexpr std::array<std::pair<const char*, double PhaseTimings::*>, 7> kPhaseTerms{{
    {"wall_motion", &PhaseTimings::wall_motion},
    {"search_particles", &PhaseTimings::search_particles},
    {"search_walls", &PhaseTimings::search_walls},
    {"forces", &PhaseTimings::forces},
    {"integration", &PhaseTimings::integration},
    {"energy", &PhaseTimings::energy},
    {"node_sync", &PhaseTimings::node_sync},
}};

// A stopwatch over consecutive phases: Lap(slot) adds the seconds since the
// previous lap (or construction) to `slot` and starts the next phase.
class PhaseClock {
 public:
  void Lap(double& slot) {
    const auto now = std::chrono::steady_clock::now();
    slot += std::chrono::duration<double>(now - start_).count();
    start_ = now;
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// Adds the lifetime of the object (one phase in one scope) to `slot`.
class ScopedPhase {
 public:
  explicit ScopedPhase(double& slot) : slot_(slot) {}
  ~ScopedPhase() { clock_.Lap(slot_); }
  ScopedPhase(const ScopedPhase&) = delete;
  ScopedPhase& operator=(const ScopedPhase&) = delete;

 private:
  double& slot_;
  PhaseClock clock_;
};

}  // namespace tessera::dem
