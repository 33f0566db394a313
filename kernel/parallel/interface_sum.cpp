// InterfaceSum: shared-node equation lists and their rank-ordered sum.
#include "kernel/parallel/interface_sum.h"

#include <algorithm>
#include <map>
#include <utility>

#include "kernel/core/error.h"

namespace tessera {

InterfaceSum::InterfaceSum(std::shared_ptr<const Communicator> communicator,
                           std::vector<int> neighbours,
                           std::vector<std::vector<IdType>> shared_nodes)
    : communicator_(std::move(communicator)),
      neighbours_(std::move(neighbours)),
      shared_nodes_(std::move(shared_nodes)) {
  TESSERA_CHECK(communicator_, "InterfaceSum needs a communicator");
  TESSERA_CHECK(neighbours_.size() == shared_nodes_.size(), "InterfaceSum: ", neighbours_.size(),
                " neighbours but ", shared_nodes_.size(), " shared-node lists");
  TESSERA_CHECK(std::is_sorted(neighbours_.begin(), neighbours_.end()) &&
                    std::adjacent_find(neighbours_.begin(), neighbours_.end()) == neighbours_.end(),
                "InterfaceSum: the neighbour ranks must be ascending and distinct");
  for (int q : neighbours_)
    TESSERA_CHECK(q != communicator_->Rank() && q >= 0 && q < communicator_->Size(),
                  "InterfaceSum: rank ", communicator_->Rank(), " cannot neighbour rank ", q);
}

void InterfaceSum::SetUp(const std::vector<IdType>& eq_node_ids,
                         const std::vector<int>& eq_components) {
  TESSERA_CHECK(eq_node_ids.size() == eq_components.size(),
                "InterfaceSum::SetUp: ", eq_node_ids.size(), " node ids but ", eq_components.size(),
                " components");
  std::map<std::pair<IdType, int>, std::size_t> equation_of;
  for (std::size_t eq = 0; eq < eq_node_ids.size(); ++eq)
    equation_of.emplace(std::make_pair(eq_node_ids[eq], eq_components[eq]), eq);
  equations_number_ = eq_node_ids.size();
  equations_.assign(neighbours_.size(), {});
  interface_equations_.clear();
  for (std::size_t k = 0; k < neighbours_.size(); ++k)
    for (IdType id : shared_nodes_[k])
      for (auto it = equation_of.lower_bound({id, 0});
           it != equation_of.end() && it->first.first == id; ++it) {
        equations_[k].push_back(it->second);
        interface_equations_.push_back(it->second);
      }
  std::sort(interface_equations_.begin(), interface_equations_.end());
  interface_equations_.erase(std::unique(interface_equations_.begin(), interface_equations_.end()),
                             interface_equations_.end());
  slot_.assign(equations_number_, -1);
  for (std::size_t i = 0; i < interface_equations_.size(); ++i)
    slot_[interface_equations_[i]] = static_cast<std::ptrdiff_t>(i);
  set_up_ = true;
}

void InterfaceSum::Sum(Vector& values) const {
  TESSERA_CHECK(set_up_, "InterfaceSum::Sum before SetUp");
  TESSERA_CHECK(static_cast<std::size_t>(values.size()) == equations_number_,
                "InterfaceSum::Sum: ", values.size(), " values for ", equations_number_,
                " equations");
  std::vector<std::vector<double>> send(neighbours_.size());
  for (std::size_t k = 0; k < neighbours_.size(); ++k) {
    send[k].reserve(equations_[k].size());
    for (std::size_t eq : equations_[k]) send[k].push_back(values[static_cast<Eigen::Index>(eq)]);
  }
  const auto received = communicator_->Exchange(neighbours_, send);
  const int rank = communicator_->Rank();
  for (std::size_t k = 0; k < neighbours_.size(); ++k)
    TESSERA_CHECK(received[k].size() == equations_[k].size(), "InterfaceSum: rank ", rank,
                  " shares ", equations_[k].size(), " equations with rank ", neighbours_[k],
                  ", which sent ", received[k].size(),
                  " (the ranks disagree on the shared nodes' dofs)");
  std::vector<double> total(interface_equations_.size(), 0.0);
  auto add_own = [&] {
    for (std::size_t i = 0; i < interface_equations_.size(); ++i)
      total[i] += values[static_cast<Eigen::Index>(interface_equations_[i])];
  };
  bool own_added = false;
  for (std::size_t k = 0; k < neighbours_.size(); ++k) {
    if (!own_added && neighbours_[k] > rank) {
      add_own();
      own_added = true;
    }
    for (std::size_t j = 0; j < equations_[k].size(); ++j)
      total[static_cast<std::size_t>(slot_[equations_[k][j]])] += received[k][j];
  }
  if (!own_added) add_own();
  for (std::size_t i = 0; i < interface_equations_.size(); ++i)
    values[static_cast<Eigen::Index>(interface_equations_[i])] = total[i];
}

}  // namespace tessera
