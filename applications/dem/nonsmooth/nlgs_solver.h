// The NLGS / projected Gauss-Seidel solver of the non-smooth contact problem
// of one Moreau-Jean step (Jean 1999): sweep the contacts, solve each
// one exactly (local_coulomb_solver.h) with the others frozen at their latest
// impulses, until the impulses stop changing.
//
// Storage is ELG (Exchange Local Global): no W_ab is stored; the bodies'
// velocities carry every impulse applied so far (v = v_free + M^-1 H P), so a
// contact's current velocity U = H* v already holds U_free + sum_b W_ab P_b,
// and b = U - W_aa P_a is what the local problem needs. A change dP of one
// contact's impulse is added to its two bodies at once. Sweeps run serially
// in a fixed order (forward, backward, symmetric: forward then backward,
// random: a seeded shuffle per sweep), so results do not depend on threads.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "applications/dem/nonsmooth/contact_frame.h"
#include "applications/dem/nonsmooth/local_coulomb_solver.h"

namespace tessera::dem::nonsmooth {

enum class SweepOrder : std::uint8_t { kForward, kBackward, kSymmetric, kRandom };
SweepOrder SweepOrderFromName(const std::string& name, const std::string& where);

struct NlgsSettings {
  SweepOrder order = SweepOrder::kForward;
  double relaxation = 1.0;   // P <- w P_local + (1 - w) P, 0 < w < 2
  double tolerance = 1e-10;  // max |dP| of a sweep <= tolerance * max |P|
  int max_iterations = 1000;
  std::uint64_t seed = 1;  // of the random order
  // With a rank split (NlgsRankSplit): the sweeps each rank makes between
  // two exchanges of the interface impulses. Convergence is checked at the
  // exchanges only, on each impulse's change since the last exchange.
  int sweeps_per_exchange = 1;
};

// The bodies as the solver sees them: velocities (in: free velocities; out:
// the step's end velocities) and diagonal inverse masses and inertias per
// component (0 where a component is fixed or the body does not move).
struct NonsmoothBodies {
  std::vector<Array3> velocity, angular_velocity;
  std::vector<Array3> inv_mass, inv_inertia;
  // Bodies from first_tensor_body on (rigid clusters, after the spheres) turn
  // with the full world inverse inertia inv_inertia_tensor[b - first_tensor_body]
  // instead of the diagonal inv_inertia.
  std::size_t first_tensor_body = static_cast<std::size_t>(-1);
  std::vector<Matrix3> inv_inertia_tensor;
  // Nodes of deformable walls (FE nodes in the coupling application): no
  // rotation, per-component inverse (lumped) mass, 0 where a component is
  // fixed. Empty without deformable walls.
  std::vector<Array3> node_velocity, node_inv_mass;

  // The change of body b's angular velocity for the angular impulse m.
  Array3 Turn(std::size_t b, const Array3& m) const {
    if (b < first_tensor_body) {
      const Array3& d = inv_inertia[b];
      return {d[0] * m[0], d[1] * m[1], d[2] * m[2]};
    }
    return Multiply(inv_inertia_tensor[b - first_tensor_body], m);
  }
};

// The contacts of one step as rows (struct of arrays); i and j are bodies.
struct NonsmoothContacts {
  std::vector<std::uint32_t> body_i;
  std::vector<std::int64_t> body_j;  // -1: a rigid wall (velocity wall_velocity)
  std::vector<ContactFrame> frame;   // n from j (or the wall) towards i
  std::vector<Array3> arm_i, arm_j;  // contact point - centre
  std::vector<Array3> wall_velocity;
  std::vector<Matrix3> w;     // the local Delassus block
  std::vector<Array3> shift;  // the impact law's target shift (local): e_n U_N^-, e_t U_T^-
  std::vector<double> mu;
  std::vector<double> gap;         // gap at activation (q_m)
  std::vector<Array3> impulse;     // local P: in the warm start, out the solution
  std::vector<std::uint64_t> key;  // identity for the next step's warm start
  std::vector<LocalStatus> status;
  // A contact on a deformable wall (j = -1): its side's velocity is
  // sum_a N_a v_a over the nodes node_slot[node_begin[k] + a], a <
  // node_count[k], with the weights node_weight (the face's shape functions
  // at the contact point), instead of wall_velocity; node_count 0 otherwise.
  std::vector<std::uint32_t> node_begin;
  std::vector<std::uint8_t> node_count;
  std::vector<std::uint32_t> node_slot;
  std::vector<double> node_weight;

  std::size_t size() const { return body_i.size(); }
  // Makes contact k (the last added) a deformable-wall contact.
  void AddNodes(std::size_t k, const std::uint32_t* slots, const double* weights, int count);
  void clear();
  // Appends a row with the frame of `normal`; the caller fills w, shift, mu.
  std::size_t Add(std::uint32_t i, std::int64_t j, const Array3& normal, const Array3& arm_i,
                  const Array3& arm_j, const Array3& wall_velocity, double gap, std::uint64_t key);
};

struct NlgsReport {
  int iterations = 0;
  bool converged = true;
  double change = 0.0;                 // last sweep's (split: block's) max |dP| / max |P|
  double law_residual = 0.0;           // max over contacts of LocalLawResidual (m/s)
  std::size_t interface_contacts = 0;  // with a rank split: those exchanged
  int exchanges = 0;                   // with a rank split: message rounds of the sweeps
  // With a rank split: the seconds of this rank's sweeps (the exchanges
  // excluded) and the contacts they swept, summed over the sweeps: the
  // rank's measured speed ("balance": "time", distributed_moreau_jean.h).
  double sweep_seconds = 0.0;
  std::size_t swept_contacts = 0;
};

// The relative velocity of contact k (world) from the current body velocities.
Array3 ContactVelocity(const NonsmoothBodies& bodies, const NonsmoothContacts& c, std::size_t k);

// Builds w[k] from the bodies' inverse masses (Delassus blocks in the local
// frame).
void BuildDelassusBlocks(const NonsmoothBodies& bodies, NonsmoothContacts& c);

// The sweeps split over the ranks of a distributed run, every rank holding
// every body and contact alike (parallel/distributed_moreau_jean.h):
// processor-block Gauss-Seidel. Rank r sweeps the contacts k with
// contact_rank[k] == r, in the serial order restricted to them. A body (or
// a deformable wall's node) that contacts of two or more ranks touch is an
// interface body and the contacts touching it interface contacts: after each sweep (or each
// sweeps_per_exchange sweeps) their owners' impulses go to every rank,
// which applies the change of the others' to its copies (in the serial
// contact order), so that each rank's next sweep sees them (Jacobi between
// ranks, Gauss-Seidel within). Convergence is the serial criterion on the
// global maxima. After the last sweep every contact's
// impulse and every touched body's and node's velocities are taken from their owner
// (a body's: the rank of the first contact touching it), so the replicas
// hold the same bits. Where no contact component spans two ranks the
// sweeps are the serial ones restricted to each component: the serial
// run's bits.
struct NlgsRankSplit {
  int rank = 0, size = 1;
  std::vector<int> contact_rank;  // per contact, filled by the caller each step
  // In place, element by element over the ranks, the same bits on every
  // rank (each entry is non-zero on one rank at most: exact). One call per
  // sweep (impulses and the sweep's maxima) and one after the last.
  std::function<void(std::vector<double>&)> sum;
};

// Applies the warm-start impulses to the velocities, then sweeps (all
// contacts, or with `split` this rank's).
NlgsReport SolveNlgs(NonsmoothBodies& bodies, NonsmoothContacts& contacts,
                     const NlgsSettings& settings, const NlgsRankSplit* split = nullptr);

}  // namespace tessera::dem::nonsmooth
