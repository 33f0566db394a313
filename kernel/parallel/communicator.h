// Communicator: what a distributed run needs of its ranks — identity (Rank,
// Size), Barrier, global reductions, broadcast, gathers of variable-length
// arrays, and point-to-point exchange of buffers with neighbour ranks — behind
// one interface with two implementations: the serial one (one rank, always
// built) and the MPI one (kernel/parallel/mpi_communicator.cpp, built with
// TESSERA_WITH_MPI; this header does not include mpi.h, so nothing that uses a
// Communicator depends on MPI).
//
// Reductions are deterministic: a sum of doubles gathers all ranks' values
// and adds them in ascending rank order, so it is the same bits on every rank
// and on every run, whatever MPI's reduction tree would have done; integer
// sums, minima and maxima are exact in any order and are one collective
// (MPI_Allreduce), of O(log P) messages and no array of P values.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tessera {

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int Rank() const = 0;
  virtual int Size() const = 0;
  // True for the MPI communicator of a run started by mpirun (any size),
  // false for the serial one.
  virtual bool IsDistributed() const = 0;
  virtual void Barrier() const = 0;

  // Every rank's value, in rank order, on every rank.
  virtual std::vector<double> AllGather(double value) const = 0;
  virtual std::vector<std::int64_t> AllGather(std::int64_t value) const = 0;

  // Sums in ascending rank order (identical bits on every rank).
  double SumAll(double value) const;
  std::int64_t SumAll(std::int64_t value) const;
  double MinAll(double value) const;
  std::int64_t MinAll(std::int64_t value) const;
  double MaxAll(double value) const;
  std::int64_t MaxAll(std::int64_t value) const;
  // Element-wise over the ranks, in place (every rank passes as many
  // values): integer sums, and minima and maxima of doubles (exact in any
  // order: reduced as integers that order as the doubles do; no NaN). One
  // collective each, whatever the length.
  void SumAll(std::vector<std::int64_t>& values) const;
  void MinAll(std::vector<double>& values) const;
  void MaxAll(std::vector<double>& values) const;

  // The root's values replace the others' (sizes included).
  virtual void Broadcast(std::vector<double>& values, int root) const = 0;
  virtual void Broadcast(std::vector<std::int64_t>& values, int root) const = 0;
  void Broadcast(std::string& text, int root) const;

  // Each rank's array (any length) on the root, in rank order; empty elsewhere.
  virtual std::vector<std::vector<double>> Gather(const std::vector<double>& local,
                                                  int root) const = 0;
  virtual std::vector<std::vector<std::int64_t>> Gather(const std::vector<std::int64_t>& local,
                                                        int root) const = 0;

  // Sends send[k] to neighbours[k] and returns what neighbours[k] sent here,
  // for every k (any lengths; the neighbour lists of two ranks must name each
  // other). Non-blocking underneath, so the order of the list cannot deadlock.
  virtual std::vector<std::vector<double>> Exchange(
      const std::vector<int>& neighbours, const std::vector<std::vector<double>>& send) const = 0;
  // Exchange where both sides know the lengths (a halo refreshed every step):
  // receive[k], sized by the caller as neighbours[k] sends, is filled in
  // place. MPI: one round of messages instead of two, and no allocation
  // where the buffers keep their size; by default through Exchange. A length
  // that differs is an error.
  virtual void ExchangeKnownSizes(const std::vector<int>& neighbours,
                                  const std::vector<std::vector<double>>& send,
                                  std::vector<std::vector<double>>& receive) const;

  // Ends every rank of the run with `code` (MPI_Abort); the serial one exits.
  [[noreturn]] virtual void Abort(int code) const = 0;

 protected:
  enum class IntegerReduction { kSum, kMin, kMax };
  // SumAll, MinAll and MaxAll of an integer; by default from AllGather.
  virtual std::int64_t Reduce(std::int64_t value, IntegerReduction reduction) const;
  // The same element-wise, in place; by default one Reduce per element.
  virtual void Reduce(std::vector<std::int64_t>& values, IntegerReduction reduction) const;
};

// One rank: reductions return their argument, Exchange with no neighbour is
// empty (naming any is an error).
class SerialCommunicator final : public Communicator {
 public:
  int Rank() const override { return 0; }
  int Size() const override { return 1; }
  bool IsDistributed() const override { return false; }
  void Barrier() const override {}
  std::vector<double> AllGather(double value) const override { return {value}; }
  std::vector<std::int64_t> AllGather(std::int64_t value) const override { return {value}; }
  void Broadcast(std::vector<double>& values, int root) const override;
  void Broadcast(std::vector<std::int64_t>& values, int root) const override;
  std::vector<std::vector<double>> Gather(const std::vector<double>& local,
                                          int root) const override;
  std::vector<std::vector<std::int64_t>> Gather(const std::vector<std::int64_t>& local,
                                                int root) const override;
  std::vector<std::vector<double>> Exchange(
      const std::vector<int>& neighbours,
      const std::vector<std::vector<double>>& send) const override;
  [[noreturn]] void Abort(int code) const override;
};

// Whether this build has the MPI communicator.
bool MPIBuilt();
// Whether this process was started by an MPI launcher (mpirun/mpiexec: its
// environment names a rank), so that the MPI communicator can be made.
bool LaunchedByMPI();

// The communicator of the run: the MPI one (initialising MPI on first use and
// finalising it at exit) where MPIBuilt() and LaunchedByMPI(), else the serial
// one. The same object on every call.
std::shared_ptr<const Communicator> DefaultCommunicator();

}  // namespace tessera
