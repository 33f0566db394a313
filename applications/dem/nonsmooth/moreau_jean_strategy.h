// MoreauJeanStrategy: non-smooth contact dynamics (NSCD, Moreau 1988, Jean
// 1999; digest 002 §A9) for the spheres and rigid walls of a DEM model, the
// alternative to ExplicitSolverStrategy chosen by "solver_settings":
// {"strategy": "moreau_jean_strategy"}. Rigid spheres, impulses, a
// set-valued contact law, and time steps set by the motion, not by contact
// stiffness.
//
// One step of length h (theta-scheme, theta in [1/2, 1]):
//   1. free velocities v_free = v + h M^-1 (m g + applied loads);
//   2. the mid configuration q_m = q + h (1 - theta) v;
//   3. contacts at q_m: sphere pairs and sphere-face features (neighbour
//      search and wall geometry of the DEM application), active where the
//      predicted gap g(q_m) + theta h min(U_N,free, 0) <= 0 ("predicted_gap")
//      or where g(q_m) <= 0 ("midpoint_gap");
//   4. the contact problem U = U_free + W P with the Newton impact law
//      0 <= U_N+ + e_n min(U_N-, 0) _|_ P_N >= 0 and the isotropic Coulomb
//      cone (mu: the pair's DYNAMIC_FRICTION), tangential target
//      U_T+ + e_t U_T- (e_t: tangential_restitution, 0 by default), solved by
//      NLGS with the exact local solver (nlgs_solver.h), warm-started from the
//      previous step's impulses of the same contacts;
//   5. v+ = v_free + M^-1 H P and q+ = q_m + h theta v+.
// e_n is the pair's COEFFICIENT_OF_RESTITUTION. Every step records its
// violation measures (MoreauJeanStepReport).
//
// Not covered: rigid clusters (Cluster3D) and inlets (errors of the stage),
// bonds, periodic domains and 2D discs (errors here); free rigid walls and
// glued particles (explicit strategy only). Walls moved by processes are
// followed (their nodes' coordinates and velocities, read every step).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "applications/dem/contact_laws/contact_law.h"
#include "applications/dem/nonsmooth/nlgs_solver.h"
#include "applications/dem/particles/particle_storage.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "applications/dem/utilities/neighbour_search.h"
#include "applications/dem/walls/rigid_face_storage.h"

namespace tessera {
class ModelPart;
}

namespace tessera::dem::nonsmooth {

struct MoreauJeanSettings {
  double theta = 0.5;
  std::string activation = "predicted_gap";  // or "midpoint_gap"
  std::string sweep_order = "forward";       // forward, backward, symmetric, random
  double relaxation = 1.0;
  bool warm_start = true;
  double tolerance = 1e-8;
  int max_iterations = 2000;
  double tangential_restitution = 0.0;
  std::uint64_t seed = 1;
};

// The violation measures of one step.
struct MoreauJeanStepReport {
  std::size_t contacts = 0;  // active contacts
  int iterations = 0;        // NLGS sweeps
  bool converged = true;
  double change = 0.0;           // last sweep's relative impulse change
  double law_residual = 0.0;     // max local law residual (m/s)
  double max_penetration = 0.0;  // max overlap of the active contacts at the step's end (m)
  double max_impulse = 0.0;      // max |P| (N s)
};

class MoreauJeanStrategy {
 public:
  // `walls` may be null. The model parts must outlive the strategy.
  MoreauJeanStrategy(ModelPart& spheres, ModelPart* walls, DemSettings settings,
                     MoreauJeanSettings nonsmooth);

  void Initialize();
  void SolveSolutionStep(double time);
  void ReadFromNodes();
  void WriteToNodes();
  void SetDeltaTime(double dt);
  double DeltaTime() const { return settings_.delta_time; }

  const MoreauJeanStepReport& LastStep() const { return last_; }
  const std::vector<MoreauJeanStepReport>& History() const { return history_; }
  std::size_t StepCount() const { return history_.size(); }
  std::size_t NumberOfSearches() const { return history_.size() + 1; }

  ParticleStorage& Particles() { return particles_; }
  const NonsmoothContacts& Contacts() const { return contacts_; }
  double MaximumSpeed() const;
  double KineticEnergy() const;
  Array3 LinearMomentum() const;
  Array3 AngularMomentum(const Array3& origin) const;

 private:
  void CheckSupported() const;
  void FindContacts(const std::vector<Array3>& q_mid, const NonsmoothBodies& free);

  ModelPart& spheres_;
  ModelPart* walls_;
  DemSettings settings_;
  MoreauJeanSettings ns_;
  NlgsSettings nlgs_;
  bool predicted_gap_ = true;
  MaterialIndex material_index_;
  MaterialTable table_;
  ParticleStorage particles_;
  RigidFaceStorage faces_;
  NeighbourSearch search_;
  NonsmoothContacts contacts_;
  // The previous step's impulses (world), by contact key, sorted.
  std::vector<std::uint64_t> previous_keys_;
  std::vector<Array3> previous_impulses_;
  MoreauJeanStepReport last_;
  std::vector<MoreauJeanStepReport> history_;
  bool initialized_ = false;
};

}  // namespace tessera::dem::nonsmooth
