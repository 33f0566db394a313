// BackgroundWorker (kernel/parallel/background_worker.h): the task runs on
// another thread with the thread count asked for, Wait rethrows its error in
// the caller, and a second Start before Wait is refused.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "kernel/core/error.h"
#include "kernel/parallel/background_worker.h"
#include "kernel/parallel/parallel_for.h"

namespace tessera {
namespace {

TEST(BackgroundWorker, RunsTheTaskOnItsThreadWithItsThreadCount) {
  BackgroundWorker worker;
  const std::thread::id caller = std::this_thread::get_id();
  std::thread::id ran_on;
  int threads_seen = 0;
  const int callers_threads = ParallelThreads();
  worker.Start(
      [&] {
        ran_on = std::this_thread::get_id();
        threads_seen = ParallelThreads();
      },
      3);
  worker.Wait();
  EXPECT_NE(ran_on, caller);
  EXPECT_EQ(threads_seen, 3);
  EXPECT_EQ(ParallelThreads(), callers_threads);  // the caller's count is its own
  EXPECT_FALSE(worker.Busy());
  EXPECT_GE(worker.LastTaskSeconds(), 0.0);
}

TEST(BackgroundWorker, WaitRethrowsTheTasksErrorAndTheWorkerGoesOn) {
  BackgroundWorker worker;
  worker.Start([] { TESSERA_ERROR("the task failed"); }, 1);
  try {
    worker.Wait();
    FAIL() << "Wait did not rethrow";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("the task failed"), std::string::npos);
  }
  int sum = 0;
  worker.Start([&] { sum = 42; }, 1);
  worker.Wait();
  EXPECT_EQ(sum, 42);
  worker.Wait();  // nothing running: returns at once
}

TEST(BackgroundWorker, RefusesASecondTaskBeforeWait) {
  BackgroundWorker worker;
  std::atomic<bool> release{false};
  worker.Start(
      [&] {
        while (!release) std::this_thread::yield();
      },
      1);
  EXPECT_TRUE(worker.Busy());
  EXPECT_THROW(worker.Start([] {}, 1), Error);
  release = true;
  worker.Wait();
}

}  // namespace
}  // namespace tessera
