// DistributedMoreauJean: the Moreau-Jean strategy (nonsmooth/) over MPI
// ranks (docs/architecture.md, "Distributed Moreau-Jean").
//
// Every rank holds every sphere, cluster and wall (replicated state) and
// runs the step's predictor, contact detection and Delassus blocks on all
// of them, as the serial run does; the NLGS sweeps, the step's dominant
// cost, are split. A recursive coordinate bisection (rcb_decomposition.h)
// of the spheres' centres gives each rank a box; a contact is swept by the
// rank whose box holds its first body's mid centre (a pair's lower row),
// in the serial order restricted to its contacts, and only the impulses of
// interface contacts (those touching a body that contacts of two ranks
// touch) travel after each sweep (NlgsRankSplit: processor-block
// Gauss-Seidel, Jacobi between ranks). After the solve every contact's
// impulse and every body's velocity come from their owners, so every
// rank's replica holds the same bits and the end of the step, again on
// every rank, keeps them alike. A run is then the serial one up to the NLGS
// tolerance (where contact chains cross the cuts), and bit for bit where no
// chain crosses a cut (one rank included).
//
// A sphere is owned, for output, by the rank whose box holds its centre.
// Every `rebalance_every` steps (of the strategy's count, which checkpoints
// keep) the boxes are bisected again where the largest owned count exceeds `imbalance_threshold`
// times the mean (from the replicated centres: every rank alike, no message). With "balance":
// "contacts" the bisection shares the last step's contacts instead, each
// on the sphere that heads it (the sweeps' work; the rest of the step is
// every rank's), each cut moved by up to kInterfaceWindow of its set's
// contacts where it then crosses fewer pair contacts (the interface, whose
// Jacobi coupling between the ranks costs sweeps), and the check compares
// each box's contacts. With "balance": "time" each rank measures its own
// sweeps (their seconds and the contacts they swept, the exchanges
// excluded) over the interval; the check compares the ranks' sweep seconds
// and the bisection, by contacts as above, gives each rank a share in
// proportion to its speed (contacts swept per second, a damped average
// over the checks), for cores of unequal speed. Every rank takes the same
// gathered times, so the boxes agree; they depend on the host's timings,
// and so, to the NLGS tolerance, do the results (the cuts decide the
// Jacobi coupling).
//
// Checkpoints: each rank's file holds the whole replicated state (the
// strategy's, as a serial run saves it) and, under <group>/Distributed, the
// boxes and the rebalancing counters, so that a run continued on as many
// ranks sweeps with the same boxes and goes on bit for bit. On another rank
// count any one rank's file is the serial state (resized_checkpoint.py,
// MergeReplicatedRankFiles), which each rank bisects afresh (Start).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "applications/dem/parallel/distributed_dem.h"
#include "applications/dem/parallel/rcb_decomposition.h"
#include "kernel/core/types.h"

namespace tessera {
class CheckpointReader;
class CheckpointWriter;
class Communicator;
}  // namespace tessera

namespace tessera::dem {

namespace nonsmooth {
class MoreauJeanStrategy;
}

class DistributedMoreauJean {
 public:
  // How far from its share of the contacts a cut may go to cross fewer
  // (RcbLoadBalance::window): interface contacts cost sweeps (Jacobi
  // between the ranks); 5 % gained over the cut at the share on the
  // medium settling bed (docs/performance.md).
  static constexpr double kInterfaceWindow = 0.05;

  // "balance": "count", "contacts" or "time" (another value is an error
  // naming the key).
  DistributedMoreauJean(nonsmooth::MoreauJeanStrategy& strategy,
                        std::shared_ptr<const Communicator> communicator,
                        DistributedDemSettings settings);
  // After the strategy's Initialize (on every rank alike), or after its
  // state was loaded from a serial or merged checkpoint: the boxes bisected
  // from the present state and the split installed in the strategy.
  void Start();
  // After each step: the rebalancing check.
  void AfterStep();

  // Rows, and their element ids, whose centre lies in this rank's box.
  std::vector<std::size_t> OwnedRows() const;
  std::vector<IdType> OwnedElementIds() const;
  std::size_t NumberOfOwned() const { return OwnedRows().size(); }
  // A hash of the bits of every row's position, velocity and angular
  // velocity: equal on every rank while the replicas agree.
  std::uint64_t ReplicaDigest() const;
  const std::vector<RcbBox>& Boxes() const { return boxes_; }
  int Rebalances() const { return rebalances_; }
  // The contacts each rank swept in the last step (every rank knows all).
  std::vector<std::int64_t> SweptContacts() const;
  // Each box's share of the balanced loads (owned spheres, or the contacts
  // they head) when the boxes were last bisected.
  const std::vector<double>& BisectionLoads() const { return bisection_loads_; }
  // The ranks' weights at the last bisection (their measured speeds with
  // "time"; empty: equal shares).
  const std::vector<double>& BisectionWeights() const { return bisection_weights_; }

  // This rank's boxes and counters under `group` (every rank saves the same
  // values, each in its own file); LoadState, after Start and the
  // strategy's state, takes them back (an error naming the file where
  // another rank count or rank wrote it).
  void SaveState(CheckpointWriter& writer, const std::string& group) const;
  void LoadState(const CheckpointReader& reader, const std::string& group);

  // In place, element by element over the ranks (rank order: the same
  // bits on every rank; collective).
  void SumOverRanks(std::vector<double>& values) const;

 private:
  // `weights`: each rank's share of the loads (empty: equal shares).
  void Bisect(const std::vector<double>& row_loads, const std::vector<double>& weights = {});
  bool BalancesContacts() const { return settings_.balance != "count"; }
  bool BalancesTime() const { return settings_.balance == "time"; }
  // With "time", at a check: the ranks' sweep seconds since the last, their
  // speeds updated; a new bisection where the slowest rank's seconds exceed
  // the threshold times the mean. Returns whether it bisected.
  bool RebalanceByTime(const std::vector<double>& row_loads);
  // Per row, the number of the last step's contacts it heads (with
  // "contacts" or "time"; otherwise 1 a row: the owned count).
  std::vector<double> RowLoads() const;
  // The summed row loads of each box.
  std::vector<double> BoxLoads(const std::vector<double>& row_loads) const;

  nonsmooth::MoreauJeanStrategy& s_;
  std::shared_ptr<const Communicator> comm_;
  DistributedDemSettings settings_;
  int rank_ = 0, size_ = 1;
  std::vector<RcbBox> boxes_;
  std::vector<int> others_;
  int rebalances_ = 0;
  std::vector<double> bisection_loads_, bisection_weights_;
  // "time": each rank's damped speed (contacts swept per second; 0: not
  // measured yet), checkpointed; the strategy's sweep totals at the last check.
  std::vector<double> speed_;
  double seconds_mark_ = 0.0, swept_mark_ = 0.0;
  mutable std::vector<std::vector<double>> out_, in_;
};

}  // namespace tessera::dem
