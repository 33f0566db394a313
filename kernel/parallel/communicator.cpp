// The serial communicator, the reductions every communicator shares (sums in
// ascending rank order over AllGather), and the choice of the run's
// communicator.
#include "kernel/parallel/communicator.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <numeric>

#include "kernel/core/error.h"
#include "kernel/core/ordered_double.h"

namespace tessera {

#ifdef TESSERA_WITH_MPI
// kernel/parallel/mpi_communicator.cpp
std::shared_ptr<const Communicator> MakeMPICommunicator();
#endif

namespace {

template <class T>
T SumInRankOrder(const std::vector<T>& values) {
  T sum = T(0);
  for (const T& v : values) sum += v;  // ascending rank: the same bits on every rank
  return sum;
}

// A double as a signed integer of the same order (OrderedBits with its top
// bit flipped: two's complement), and back.
std::int64_t OrderedInteger(double value) {
  return static_cast<std::int64_t>(OrderedBits(value) ^ (std::uint64_t{1} << 63));
}

double FromOrderedInteger(std::int64_t ordered) {
  return FromOrderedBits(static_cast<std::uint64_t>(ordered) ^ (std::uint64_t{1} << 63));
}

// `values` reduced (`reduce`, in place) as the integers of the same order.
template <class ReduceIntegers>
void ReduceAsOrderedIntegers(std::vector<double>& values, ReduceIntegers reduce) {
  std::vector<std::int64_t> ordered(values.size());
  std::transform(values.begin(), values.end(), ordered.begin(), OrderedInteger);
  reduce(ordered);
  std::transform(ordered.begin(), ordered.end(), values.begin(), FromOrderedInteger);
}

void CheckRoot(int root, int size) {
  TESSERA_CHECK(root >= 0 && root < size, "communicator: root rank ", root,
                " is not a rank of a communicator of size ", size);
}

}  // namespace

double Communicator::SumAll(double value) const { return SumInRankOrder(AllGather(value)); }
std::int64_t Communicator::SumAll(std::int64_t value) const {
  return Reduce(value, IntegerReduction::kSum);
}
double Communicator::MinAll(double value) const {
  const auto all = AllGather(value);
  return *std::min_element(all.begin(), all.end());
}
std::int64_t Communicator::MinAll(std::int64_t value) const {
  return Reduce(value, IntegerReduction::kMin);
}
double Communicator::MaxAll(double value) const {
  const auto all = AllGather(value);
  return *std::max_element(all.begin(), all.end());
}
std::int64_t Communicator::MaxAll(std::int64_t value) const {
  return Reduce(value, IntegerReduction::kMax);
}

std::int64_t Communicator::Reduce(std::int64_t value, IntegerReduction reduction) const {
  const auto all = AllGather(value);
  if (reduction == IntegerReduction::kSum) return SumInRankOrder(all);
  return reduction == IntegerReduction::kMin ? *std::min_element(all.begin(), all.end())
                                             : *std::max_element(all.begin(), all.end());
}

void Communicator::Reduce(std::vector<std::int64_t>& values, IntegerReduction reduction) const {
  for (std::int64_t& v : values) v = Reduce(v, reduction);
}

void Communicator::SumAll(std::vector<std::int64_t>& values) const {
  Reduce(values, IntegerReduction::kSum);
}

void Communicator::MinAll(std::vector<double>& values) const {
  ReduceAsOrderedIntegers(values, [this](std::vector<std::int64_t>& ordered) {
    Reduce(ordered, IntegerReduction::kMin);
  });
}

void Communicator::MaxAll(std::vector<double>& values) const {
  ReduceAsOrderedIntegers(values, [this](std::vector<std::int64_t>& ordered) {
    Reduce(ordered, IntegerReduction::kMax);
  });
}

void Communicator::Broadcast(std::string& text, int root) const {
  std::vector<std::int64_t> codes(text.begin(), text.end());
  Broadcast(codes, root);
  text.assign(codes.begin(), codes.end());
}

void SerialCommunicator::Broadcast(std::vector<double>&, int root) const { CheckRoot(root, 1); }
void SerialCommunicator::Broadcast(std::vector<std::int64_t>&, int root) const {
  CheckRoot(root, 1);
}

std::vector<std::vector<double>> SerialCommunicator::Gather(const std::vector<double>& local,
                                                            int root) const {
  CheckRoot(root, 1);
  return {local};
}

std::vector<std::vector<std::int64_t>> SerialCommunicator::Gather(
    const std::vector<std::int64_t>& local, int root) const {
  CheckRoot(root, 1);
  return {local};
}

std::vector<std::vector<double>> SerialCommunicator::Exchange(
    const std::vector<int>& neighbours, const std::vector<std::vector<double>>& send) const {
  TESSERA_CHECK(neighbours.empty() && send.empty(),
                "serial communicator: Exchange with neighbour ranks in a run of one rank");
  return {};
}

void Communicator::ExchangeKnownSizes(const std::vector<int>& neighbours,
                                      const std::vector<std::vector<double>>& send,
                                      std::vector<std::vector<double>>& receive) const {
  TESSERA_CHECK(receive.size() == neighbours.size(), "communicator: ExchangeKnownSizes with ",
                neighbours.size(), " neighbours but ", receive.size(), " receive buffers");
  std::vector<std::vector<double>> received = Exchange(neighbours, send);
  for (std::size_t k = 0; k < neighbours.size(); ++k) {
    TESSERA_CHECK(received[k].size() == receive[k].size(), "communicator: rank ", Rank(),
                  " expected ", receive[k].size(), " doubles from rank ", neighbours[k], ", got ",
                  received[k].size());
    receive[k] = std::move(received[k]);
  }
}

void SerialCommunicator::Abort(int code) const {
  std::cout.flush();
  std::cerr.flush();
  std::_Exit(code);
}

bool MPIBuilt() {
#ifdef TESSERA_WITH_MPI
  return true;
#else
  return false;
#endif
}

bool LaunchedByMPI() {
  // OpenMPI's mpirun, and PMI/PMIx launchers (MPICH's hydra, Slurm's srun).
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

std::shared_ptr<const Communicator> DefaultCommunicator() {
  static const std::shared_ptr<const Communicator> communicator =
      []() -> std::shared_ptr<const Communicator> {
#ifdef TESSERA_WITH_MPI
    if (LaunchedByMPI()) return MakeMPICommunicator();
#endif
    return std::make_shared<SerialCommunicator>();
  }();
  return communicator;
}

}  // namespace tessera
