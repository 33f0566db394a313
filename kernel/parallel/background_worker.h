// BackgroundWorker: one persistent thread that runs a task with its own number
// of OpenMP threads while the calling thread goes on with other work.
//
// A partitioned coupling overlaps two solvers' independent halves of a step
// (the structure's internal forces at u_n+1 while the DEM steps with the
// walls at u_n+1) by splitting the threads between them. Each half's results
// do not depend on its thread count, so the overlap changes no bit. The
// thread persists because libgomp keeps one team per thread that starts
// parallel regions: made once, not every step. Start hands over a task; Wait
// blocks until it ends and rethrows what it threw, in the caller's thread.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace tessera {

class BackgroundWorker {
 public:
  BackgroundWorker();
  ~BackgroundWorker();
  BackgroundWorker(const BackgroundWorker&) = delete;
  BackgroundWorker& operator=(const BackgroundWorker&) = delete;

  // Runs task() on the worker with `threads` OpenMP threads (at least 1).
  // An error if the previous task has not been waited for.
  void Start(std::function<void()> task, int threads);
  // Blocks until the task started last has ended (at once when none runs);
  // rethrows its exception.
  void Wait();
  bool Busy() const;
  // Wall-clock seconds the task started last took (0 before the first).
  double LastTaskSeconds() const;

 private:
  void Loop();

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::function<void()> task_;
  int threads_ = 1;
  bool pending_ = false;  // started and not yet finished
  bool stop_ = false;
  std::exception_ptr error_;
  double seconds_ = 0.0;
  std::thread thread_;  // last: it starts after the other members exist
};

}  // namespace tessera
