// The MPI communicator (MPI_COMM_WORLD): the only file of the kernel that
// includes mpi.h. MPI is initialised on first use (MPI_THREAD_FUNNELED: only
// the main thread calls MPI; OpenMP loops run between calls) and finalised at
// exit, unless something else (e.g. mpi4py) initialised it first.
// The C interface only: the deprecated C++ bindings add nothing and warn.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdlib>
#include <iostream>
#include <memory>

#include "kernel/core/error.h"
#include "kernel/parallel/communicator.h"

namespace tessera {

namespace {

constexpr int kSizeTag = 4201;
constexpr int kDataTag = 4202;
constexpr int kKnownSizeTag = 4203;  // ExchangeKnownSizes

void Check(int status, const char* what) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(status, text, &length);
  TESSERA_ERROR("MPI communicator: ", what, " failed: ", std::string(text, length));
}

template <class T>
MPI_Datatype TypeOf();
template <>
MPI_Datatype TypeOf<double>() {
  return MPI_DOUBLE;
}
template <>
MPI_Datatype TypeOf<std::int64_t>() {
  return MPI_INT64_T;
}

void FinaliseAtExit() {
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (!finalised) MPI_Finalize();
}

class MPICommunicator final : public Communicator {
 public:
  MPICommunicator() {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) {
      int provided = 0;
      Check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
      std::atexit(FinaliseAtExit);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }

  int Rank() const override { return rank_; }
  int Size() const override { return size_; }
  bool IsDistributed() const override { return true; }
  void Barrier() const override { Check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

  std::vector<double> AllGather(double value) const override { return AllGatherOf(value); }
  std::vector<std::int64_t> AllGather(std::int64_t value) const override {
    return AllGatherOf(value);
  }

  void Broadcast(std::vector<double>& values, int root) const override {
    BroadcastOf(values, root);
  }
  void Broadcast(std::vector<std::int64_t>& values, int root) const override {
    BroadcastOf(values, root);
  }

  std::vector<std::vector<double>> Gather(const std::vector<double>& local,
                                          int root) const override {
    return GatherOf(local, root);
  }
  std::vector<std::vector<std::int64_t>> Gather(const std::vector<std::int64_t>& local,
                                                int root) const override {
    return GatherOf(local, root);
  }

  std::vector<std::vector<double>> Exchange(
      const std::vector<int>& neighbours,
      const std::vector<std::vector<double>>& send) const override {
    TESSERA_CHECK(neighbours.size() == send.size(), "MPI communicator: Exchange with ",
                  neighbours.size(), " neighbours but ", send.size(), " buffers");
    const std::size_t n = neighbours.size();
    for (int q : neighbours)
      TESSERA_CHECK(q >= 0 && q < size_ && q != rank_, "MPI communicator: rank ", rank_,
                    " cannot exchange with rank ", q, " (size ", size_, ")");
    // Sizes first, then the data, both non-blocking.
    std::vector<long long> send_sizes(n), recv_sizes(n);
    std::vector<MPI_Request> requests(2 * n);
    for (std::size_t k = 0; k < n; ++k) {
      send_sizes[k] = static_cast<long long>(send[k].size());
      Check(MPI_Irecv(&recv_sizes[k], 1, MPI_LONG_LONG, neighbours[k], kSizeTag, MPI_COMM_WORLD,
                      &requests[k]),
            "MPI_Irecv");
      Check(MPI_Isend(&send_sizes[k], 1, MPI_LONG_LONG, neighbours[k], kSizeTag, MPI_COMM_WORLD,
                      &requests[n + k]),
            "MPI_Isend");
    }
    Check(MPI_Waitall(static_cast<int>(2 * n), requests.data(), MPI_STATUSES_IGNORE),
          "MPI_Waitall");
    std::vector<std::vector<double>> received(n);
    for (std::size_t k = 0; k < n; ++k) {
      received[k].resize(static_cast<std::size_t>(recv_sizes[k]));
      Check(MPI_Irecv(received[k].data(), static_cast<int>(recv_sizes[k]), MPI_DOUBLE,
                      neighbours[k], kDataTag, MPI_COMM_WORLD, &requests[k]),
            "MPI_Irecv");
      Check(MPI_Isend(send[k].data(), static_cast<int>(send[k].size()), MPI_DOUBLE, neighbours[k],
                      kDataTag, MPI_COMM_WORLD, &requests[n + k]),
            "MPI_Isend");
    }
    Check(MPI_Waitall(static_cast<int>(2 * n), requests.data(), MPI_STATUSES_IGNORE),
          "MPI_Waitall");
    return received;
  }

  void ExchangeKnownSizes(const std::vector<int>& neighbours,
                          const std::vector<std::vector<double>>& send,
                          std::vector<std::vector<double>>& receive) const override {
    const std::size_t n = neighbours.size();
    TESSERA_CHECK(send.size() == n && receive.size() == n,
                  "MPI communicator: ExchangeKnownSizes with ", n, " neighbours but ", send.size(),
                  " send and ", receive.size(), " receive buffers");
    std::vector<MPI_Request> requests(2 * n);
    for (std::size_t k = 0; k < n; ++k) {
      const int q = neighbours[k];
      TESSERA_CHECK(q >= 0 && q < size_ && q != rank_, "MPI communicator: rank ", rank_,
                    " cannot exchange with rank ", q, " (size ", size_, ")");
      Check(MPI_Irecv(receive[k].data(), static_cast<int>(receive[k].size()), MPI_DOUBLE, q,
                      kKnownSizeTag, MPI_COMM_WORLD, &requests[k]),
            "MPI_Irecv");
      Check(MPI_Isend(send[k].data(), static_cast<int>(send[k].size()), MPI_DOUBLE, q,
                      kKnownSizeTag, MPI_COMM_WORLD, &requests[n + k]),
            "MPI_Isend");
    }
    std::vector<MPI_Status> statuses(2 * n);
    Check(MPI_Waitall(static_cast<int>(2 * n), requests.data(), statuses.data()), "MPI_Waitall");
    for (std::size_t k = 0; k < n; ++k) {
      int count = 0;
      Check(MPI_Get_count(&statuses[k], MPI_DOUBLE, &count), "MPI_Get_count");
      TESSERA_CHECK(static_cast<std::size_t>(count) == receive[k].size(), "MPI communicator: rank ",
                    rank_, " expected ", receive[k].size(), " doubles from rank ", neighbours[k],
                    ", got ", count);
    }
  }

  [[noreturn]] void Abort(int code) const override {
    std::cout.flush();
    std::cerr.flush();
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);  // MPI_Abort does not return; this keeps the promise if it did
  }

 protected:
  std::int64_t Reduce(std::int64_t value, IntegerReduction reduction) const override {
    std::int64_t result = 0;
    Check(MPI_Allreduce(&value, &result, 1, MPI_INT64_T, OpOf(reduction), MPI_COMM_WORLD),
          "MPI_Allreduce");
    return result;
  }
  void Reduce(std::vector<std::int64_t>& values, IntegerReduction reduction) const override {
    Check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_INT64_T,
                        OpOf(reduction), MPI_COMM_WORLD),
          "MPI_Allreduce");
  }

 private:
  static MPI_Op OpOf(IntegerReduction reduction) {
    return reduction == IntegerReduction::kSum   ? MPI_SUM
           : reduction == IntegerReduction::kMin ? MPI_MIN
                                                 : MPI_MAX;
  }
  void CheckRoot(int root) const {
    TESSERA_CHECK(root >= 0 && root < size_, "MPI communicator: root rank ", root,
                  " is not a rank of a communicator of size ", size_);
  }

  template <class T>
  std::vector<T> AllGatherOf(T value) const {
    std::vector<T> all(static_cast<std::size_t>(size_));
    Check(MPI_Allgather(&value, 1, TypeOf<T>(), all.data(), 1, TypeOf<T>(), MPI_COMM_WORLD),
          "MPI_Allgather");
    return all;
  }

  template <class T>
  void BroadcastOf(std::vector<T>& values, int root) const {
    CheckRoot(root);
    long long n = static_cast<long long>(values.size());
    Check(MPI_Bcast(&n, 1, MPI_LONG_LONG, root, MPI_COMM_WORLD), "MPI_Bcast");
    values.resize(static_cast<std::size_t>(n));
    Check(MPI_Bcast(values.data(), static_cast<int>(n), TypeOf<T>(), root, MPI_COMM_WORLD),
          "MPI_Bcast");
  }

  template <class T>
  std::vector<std::vector<T>> GatherOf(const std::vector<T>& local, int root) const {
    CheckRoot(root);
    const int n = static_cast<int>(local.size());
    std::vector<int> counts(rank_ == root ? size_ : 0), offsets;
    Check(MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, root, MPI_COMM_WORLD),
          "MPI_Gather");
    std::vector<T> all;
    if (rank_ == root) {
      offsets.assign(size_, 0);
      for (int r = 1; r < size_; ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
      all.resize(static_cast<std::size_t>(offsets[size_ - 1] + counts[size_ - 1]));
    }
    Check(MPI_Gatherv(local.data(), n, TypeOf<T>(), all.data(), counts.data(), offsets.data(),
                      TypeOf<T>(), root, MPI_COMM_WORLD),
          "MPI_Gatherv");
    std::vector<std::vector<T>> parts;
    if (rank_ == root)
      for (int r = 0; r < size_; ++r)
        parts.emplace_back(all.begin() + offsets[r], all.begin() + offsets[r] + counts[r]);
    return parts;
  }

  int rank_ = 0;
  int size_ = 1;
};

}  // namespace

std::shared_ptr<const Communicator> MakeMPICommunicator() {
  return std::make_shared<MPICommunicator>();
}

}  // namespace tessera
