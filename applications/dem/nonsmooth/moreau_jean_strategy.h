// MoreauJeanStrategy: non-smooth contact dynamics (NSCD, Moreau 1988, Jean
// 1999) for the spheres and rigid walls of a DEM model, the
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
// Energies (EnergyCalculationOption, Energies()): kinetic and gravitational
// as the explicit strategy counts them, no elastic energy (rigid contacts),
// and what the impulses dissipate: contact k's impulse P_k does the work
// P_k . 1/2 (U+_k + U-_k) over the step (U the relative velocity at the
// step's end and start), of which the normal part, P_N 1/2 (U_N+ + U_N-),
// is the impact law's loss (restitution: dissipated_damping) and the rest
// friction's (dissipated_friction). Since v+ - v- = M^-1 (h F + H P), the
// kinetic energy changes by h F . v_mean + sum_k P_k . 1/2 (U+_k + U-_k),
// and with theta = 1/2 the weight's potential by -h F . v_mean: kinetic +
// gravitational + dissipated is then constant to rounding for spheres
// between fixed walls (a resting contact does no work; a cluster's
// inertia turns within the step, a wall moving at V adds P . V: not
// counted, as for the explicit strategy). With theta > 1/2 the scheme's
// own numerical dissipation shows as the balance's drift.
//
// Rigid clusters (Cluster3D, SetClusterModelPart) are bodies of the contact
// problem: mass M, world inverse inertia R(q_m) diag(1/I) R(q_m)^T at the mid
// orientation, contacts on their member spheres with arms from the cluster
// centre (members of one cluster never touch). Their mid configuration is
// their rigid motion over h (1 - theta) with the start-of-step V and L
// (particles/rigid_clusters.h: the RK-4 quaternion turn); after the solve
// L+ = I_w(q_m) w+, and the motion over h theta with V+ and L+ ends the step;
// the members are placed from it.
//
// Deformable walls (the coupling application's FE skin, SetDeformableNodes):
// the vertices of their faces are nodes of a structure with lumped masses.
// A sphere-face contact then has the nodes on its other side, through the
// face's shape functions N_a at the contact point: the node's block
// sum_a N_a^2 / m_a in the Delassus operator, the wall velocity
// sum_a N_a v_a in the law, and -N_a P on node a. Before each step the
// coupling gives the nodes' inverse masses, free velocities (those that
// move them over the next step without contact) and start velocities (the
// impact law's U-); after it, DeformableNodeImpulses() are the impulses on
// the nodes (their sum is minus the impulses on the spheres).
//
// Distributed runs (SetRankSplit, parallel/distributed_moreau_jean.h): every
// rank holds every body and contact; each sweeps its own contacts
// (NlgsRankSplit) and the replicas end each step with the same bits.
//
// Not covered: inlets (an error of the stage), bonds, periodic domains and 2D
// discs (errors here); free rigid walls and glued particles (explicit strategy
// only). Walls moved by processes are
// followed (their nodes' coordinates and velocities, read every step).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "applications/dem/contact_laws/contact_law.h"
#include "applications/dem/nonsmooth/nlgs_solver.h"
#include "applications/dem/particles/particle_storage.h"
#include "applications/dem/particles/rigid_clusters.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "applications/dem/strategies/energy_bookkeeping.h"
#include "applications/dem/utilities/neighbour_search.h"
#include "applications/dem/walls/rigid_face_storage.h"

namespace tessera {
class ModelPart;
}

namespace tessera::dem {
struct MoreauJeanCheckpointAccess;
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
  int sweeps_per_exchange = 1;  // distributed: local sweeps between exchanges (NlgsSettings)
};

// The violation measures of one step.
struct MoreauJeanStepReport {
  std::size_t contacts = 0;  // active contacts
  int iterations = 0;        // NLGS sweeps
  bool converged = true;
  double change = 0.0;                 // last sweep's relative impulse change
  double law_residual = 0.0;           // max local law residual (m/s)
  double max_penetration = 0.0;        // max overlap of the active contacts at the step's end (m)
  double max_impulse = 0.0;            // max |P| (N s)
  std::size_t interface_contacts = 0;  // distributed: contacts exchanged at each exchange
  int exchanges = 0;                   // distributed: message rounds of the sweeps
};

class MoreauJeanStrategy {
 public:
  // `walls` may be null. The model parts must outlive the strategy.
  MoreauJeanStrategy(ModelPart& spheres, ModelPart* walls, DemSettings settings,
                     MoreauJeanSettings nonsmooth);

  // The Cluster3D model part, before Initialize: its clusters' spheres are
  // created in the spheres model part and move as rigid bodies.
  void SetClusterModelPart(ModelPart& clusters) { clusters_part_ = &clusters; }
  void Initialize();
  void SolveSolutionStep(double time);
  void ReadFromNodes();
  void WriteToNodes();
  void SetDeltaTime(double dt);
  double DeltaTime() const { return settings_.delta_time; }

  const MoreauJeanStepReport& LastStep() const { return last_; }
  const std::vector<MoreauJeanStepReport>& History() const { return history_; }
  // A distributed run (parallel/distributed_moreau_jean.h): every rank holds
  // every sphere; rank `rank` of `size` sweeps the contacts whose first
  // body's mid centre rank_of gives it, the others' reaching it through
  // `sum` (NlgsRankSplit). An empty rank_of: the serial solve.
  void SetRankSplit(int rank, int size, std::function<int(const Array3&)> rank_of,
                    std::function<void(std::vector<double>&)> sum);
  std::size_t StepCount() const { return history_.size(); }
  std::size_t NumberOfSearches() const { return history_.size() + 1; }

  ParticleStorage& Particles() { return particles_; }
  const RigidClusters& Clusters() const { return clusters_; }
  const NonsmoothContacts& Contacts() const { return contacts_; }
  // The rows of each contact of the last step (j: -1 for a wall).
  const std::vector<std::uint32_t>& ContactRowsI() const { return contact_row_i_; }
  const std::vector<std::int64_t>& ContactRowsJ() const { return contact_row_j_; }
  // Of a distributed run (SetRankSplit): the rank that swept each contact of the last step.
  const std::vector<int>& ContactRanks() const { return split_.contact_rank; }
  // Of a distributed run: this rank's sweep seconds and swept contacts
  // (NlgsReport) summed over this process' steps (not checkpointed: a
  // measure of the host, not of the run).
  double SplitSweepSeconds() const { return split_sweep_seconds_; }
  double SplitSweptContacts() const { return split_swept_contacts_; }
  // The positions (in the walls' root nodal database) of the nodes of the
  // deformable walls, one per structure node (slot k = entry k); after
  // Initialize. A face with some but not all of its vertices listed is an
  // error. An empty list makes every wall rigid again.
  void SetDeformableNodes(const std::vector<IndexType>& wall_node_positions);
  // Per slot: inverse masses per component (0: fixed), free velocities and
  // start-of-step velocities; before each SolveSolutionStep.
  void SetDeformableNodeState(std::vector<Array3> inv_mass, std::vector<Array3> free_velocity,
                              std::vector<Array3> start_velocity);
  std::size_t NumberOfDeformableNodes() const { return node_inv_mass_.size(); }
  // The last step's impulse on each slot's node (world, N s).
  const std::vector<Array3>& DeformableNodeImpulses() const { return node_impulse_; }
  double MaximumSpeed() const;
  double KineticEnergy() const;
  // Kinetic (translational, rotational), gravitational and, with
  // DemSettings.energy_calculation, dissipated since Initialize (J).
  EnergyTotals Energies() const;
  Array3 LinearMomentum() const;
  Array3 AngularMomentum(const Array3& origin) const;

 private:
  void CheckSupported() const;
  // BoundingBoxOption: deletes the free spheres whose centre, and the
  // clusters whose centre, left the box (within its start and stop times),
  // as ExplicitSolverStrategy does; the warm-start impulses follow the rows.
  void RemoveOutsideBoundingBox(double time);
  // Body of each row: the row itself for a free sphere, rows + k for a member
  // of cluster k.
  std::size_t BodyOf(std::size_t row) const {
    return particles_.cluster[row] == 0 ? row : particles_.size() + particles_.cluster[row] - 1;
  }
  // Contacts at the rows' mid positions q_mid; arms from the bodies' mid
  // centres; `start` the bodies' start-of-step velocities (the impact law's U-).
  void FindContacts(const std::vector<Array3>& q_mid, const std::vector<Array3>& body_centre,
                    const NonsmoothBodies& free, const NonsmoothBodies& start);

  friend struct tessera::dem::MoreauJeanCheckpointAccess;  // io/dem_checkpoint.cpp

  ModelPart& spheres_;
  ModelPart* walls_;
  ModelPart* clusters_part_ = nullptr;
  RigidClusters clusters_;
  // The rows of each contact (contacts_ holds bodies).
  std::vector<std::uint32_t> contact_row_i_;
  std::vector<std::int64_t> contact_row_j_;
  DemSettings settings_;
  MoreauJeanSettings ns_;
  NlgsSettings nlgs_;
  NlgsRankSplit split_;
  std::function<int(const Array3&)> rank_of_;
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
  double split_sweep_seconds_ = 0.0, split_swept_contacts_ = 0.0;
  // energy_calculation: the impulses' normal and tangential losses summed
  // over the steps (see the file comment).
  double dissipated_normal_ = 0.0, dissipated_tangential_ = 0.0;
  bool initialized_ = false;
  // Deformable walls: the slot of each face vertex (-1: a rigid face), the
  // slots' inverse masses, free and start velocities, and impulses.
  std::vector<IndexType> deformable_positions_;
  std::vector<std::array<std::int32_t, 4>> face_slot_;
  std::vector<Array3> node_inv_mass_, node_free_velocity_, node_start_velocity_, node_impulse_;
  bool node_state_set_ = false;
};

}  // namespace tessera::dem::nonsmooth
