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
// Every `rebalance_every` steps the boxes are bisected again where the
// largest owned count exceeds `imbalance_threshold` times the mean (from
// the replicated centres: every rank alike, no message).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "applications/dem/parallel/distributed_dem.h"
#include "applications/dem/parallel/rcb_decomposition.h"
#include "kernel/core/types.h"

namespace tessera {
class Communicator;
}

namespace tessera::dem {

namespace nonsmooth {
class MoreauJeanStrategy;
}

class DistributedMoreauJean {
 public:
  // "balance": "time" is an error naming the key (the split's cost is not measured yet).
  DistributedMoreauJean(nonsmooth::MoreauJeanStrategy& strategy,
                        std::shared_ptr<const Communicator> communicator,
                        DistributedDemSettings settings);
  // After the strategy's Initialize (on every rank alike): the boxes and
  // the split installed in the strategy.
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

  // In place, element by element over the ranks (rank order: the same
  // bits on every rank; collective).
  void SumOverRanks(std::vector<double>& values) const;

 private:
  void Bisect();

  nonsmooth::MoreauJeanStrategy& s_;
  std::shared_ptr<const Communicator> comm_;
  DistributedDemSettings settings_;
  int rank_ = 0, size_ = 1;
  std::vector<RcbBox> boxes_;
  std::vector<int> others_;
  int steps_ = 0;
  int rebalances_ = 0;
  mutable std::vector<std::vector<double>> out_, in_;
};

}  // namespace tessera::dem
