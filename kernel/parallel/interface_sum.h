// InterfaceSum: the halo exchange of an explicit FE solver. A node that the
// elements of several ranks use gets a partial sum of its nodal forces (and
// lumped masses) on each of those ranks; InterfaceSum replaces every partial
// sum by the total, adding the ranks' contributions in ascending rank order
// (starting from zero), so that every rank that holds the node ends with the
// same bits whatever order the messages arrive in. With equal totals, the
// owner and the ghosts of a node compute the same update, so no second
// exchange of the updated values is needed.
#pragma once

#include <memory>
#include <vector>

#include "kernel/core/types.h"
#include "kernel/parallel/communicator.h"

namespace tessera {

class InterfaceSum {
 public:
  // neighbours: the ranks sharing nodes with this one, ascending;
  // shared_nodes[k]: the ascending ids of the nodes shared with neighbours[k].
  InterfaceSum(std::shared_ptr<const Communicator> communicator, std::vector<int> neighbours,
               std::vector<std::vector<IdType>> shared_nodes);

  // The local equations: equation eq is component eq_components[eq] of node
  // eq_node_ids[eq]. Again whenever the equations are renumbered.
  void SetUp(const std::vector<IdType>& eq_node_ids, const std::vector<int>& eq_components);

  // values[eq] of the shared equations becomes the sum over the ranks that
  // share them, in ascending rank order. Collective among neighbours.
  void Sum(Vector& values) const;

  const Communicator& GetCommunicator() const { return *communicator_; }
  const std::vector<int>& Neighbours() const { return neighbours_; }
  const std::vector<std::vector<IdType>>& SharedNodes() const { return shared_nodes_; }

 private:
  std::shared_ptr<const Communicator> communicator_;
  std::vector<int> neighbours_;
  std::vector<std::vector<IdType>> shared_nodes_;
  // Per neighbour, the local equations sent and received, in (node id,
  // component) order, which both sides share.
  std::vector<std::vector<std::size_t>> equations_;
  std::vector<std::size_t> interface_equations_;  // union, ascending
  std::vector<std::ptrdiff_t> slot_;              // eq -> position in interface_equations_
  std::size_t equations_number_ = 0;
  bool set_up_ = false;
};

}  // namespace tessera
