// InterfaceSum (kernel/parallel/interface_sum.h) without MPI: a stand-in
// communicator plays one rank of a run, handing back what its neighbours
// "sent", so the summation order and the equation matching are checked where
// the build has no MPI.
#include <gtest/gtest.h>

#include <map>

#include "kernel/core/error.h"
#include "kernel/parallel/interface_sum.h"

namespace tessera {
namespace {

// Rank `rank` of `size`; Exchange returns the preset buffer of each neighbour
// and records what was sent.
class ScriptedCommunicator final : public Communicator {
 public:
  ScriptedCommunicator(int rank, int size, std::map<int, std::vector<double>> incoming)
      : rank_(rank), size_(size), incoming_(std::move(incoming)) {}
  int Rank() const override { return rank_; }
  int Size() const override { return size_; }
  bool IsDistributed() const override { return true; }
  void Barrier() const override {}
  std::vector<double> AllGather(double v) const override { return {v}; }
  std::vector<std::int64_t> AllGather(std::int64_t v) const override { return {v}; }
  void Broadcast(std::vector<double>&, int) const override {}
  void Broadcast(std::vector<std::int64_t>&, int) const override {}
  std::vector<std::vector<double>> Gather(const std::vector<double>& l, int) const override {
    return {l};
  }
  std::vector<std::vector<std::int64_t>> Gather(const std::vector<std::int64_t>& l,
                                                int) const override {
    return {l};
  }
  std::vector<std::vector<double>> Exchange(
      const std::vector<int>& neighbours,
      const std::vector<std::vector<double>>& send) const override {
    std::vector<std::vector<double>> received;
    for (std::size_t k = 0; k < neighbours.size(); ++k) {
      sent[neighbours[k]] = send[k];
      received.push_back(incoming_.at(neighbours[k]));
    }
    return received;
  }
  [[noreturn]] void Abort(int) const override { std::abort(); }

  mutable std::map<int, std::vector<double>> sent;

 private:
  int rank_, size_;
  std::map<int, std::vector<double>> incoming_;
};

TEST(InterfaceSum, AddsTheRanksContributionsInAscendingRankOrder) {
  // Rank 1 of 3 shares node 7 (x, y) with ranks 0 and 2 and node 9 (x, y)
  // with rank 2 only. In ascending rank order node 7's x is
  // (1e16 + 1) + (-1e16) = 0 in doubles; rank 1 first would give
  // (1 + 1e16) - 1e16 = 0 too, but rank 2 before rank 1 gives 1.
  auto comm = std::make_shared<ScriptedCommunicator>(
      1, 3, std::map<int, std::vector<double>>{{0, {1e16, 2.0}}, {2, {-1e16, 3.0, 10.0, 20.0}}});
  InterfaceSum sum(comm, {0, 2}, {{7}, {7, 9}});
  // Local equations: node 9 y, node 5 x (interior), node 7 x, node 7 y, node 9 x.
  sum.SetUp({9, 5, 7, 7, 9}, {1, 0, 0, 1, 0});
  Vector values(5);
  values << 200.0, 42.0, 1.0, 4.0, 100.0;
  sum.Sum(values);
  EXPECT_EQ(values[2], 0.0);              // node 7 x: 1e16, +1, -1e16 in rank order
  EXPECT_EQ(values[3], 2.0 + 4.0 + 3.0);  // node 7 y
  EXPECT_EQ(values[4], 100.0 + 10.0);     // node 9 x: ranks 1, 2
  EXPECT_EQ(values[0], 200.0 + 20.0);     // node 9 y
  EXPECT_EQ(values[1], 42.0);             // interior: untouched
  // Sent in (node id, component) order, the order the neighbour expects.
  EXPECT_EQ(comm->sent.at(0), (std::vector<double>{1.0, 4.0}));
  EXPECT_EQ(comm->sent.at(2), (std::vector<double>{1.0, 4.0, 100.0, 200.0}));
}

TEST(InterfaceSum, DisagreeingNeighbourIsAnError) {
  auto comm =
      std::make_shared<ScriptedCommunicator>(0, 2, std::map<int, std::vector<double>>{{1, {1.0}}});
  InterfaceSum sum(comm, {1}, {{3}});
  sum.SetUp({3, 3}, {0, 1});
  Vector values = Vector::Zero(2);
  EXPECT_THROW(sum.Sum(values), Error);
}

TEST(InterfaceSum, NeighboursMustBeAscendingAndOthers) {
  auto comm = std::make_shared<ScriptedCommunicator>(1, 3, std::map<int, std::vector<double>>{});
  EXPECT_THROW(InterfaceSum(comm, {2, 0}, {{1}, {1}}), Error);
  EXPECT_THROW(InterfaceSum(comm, {1}, {{1}}), Error);
}

}  // namespace
}  // namespace tessera
