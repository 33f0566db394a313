// BackgroundWorker (background_worker.h): a task handed over under a mutex,
// the worker woken by one condition variable and the waiter by another.
#include "kernel/parallel/background_worker.h"

#include <chrono>
#include <utility>

#include "kernel/core/error.h"
#include "kernel/parallel/parallel_for.h"

namespace tessera {

BackgroundWorker::BackgroundWorker() : thread_([this] { Loop(); }) {}

BackgroundWorker::~BackgroundWorker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void BackgroundWorker::Start(std::function<void()> task, int threads) {
  TESSERA_CHECK(task, "BackgroundWorker: the task is empty");
  {
    std::lock_guard<std::mutex> lock(mutex_);
    TESSERA_CHECK(!pending_, "BackgroundWorker: a task is running; Wait for it before starting ",
                  "another");
    task_ = std::move(task);
    threads_ = threads > 0 ? threads : 1;
    error_ = nullptr;
    pending_ = true;
  }
  wake_.notify_one();
}

void BackgroundWorker::Wait() {
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return !pending_; });
    error = std::exchange(error_, nullptr);
  }
  if (error) std::rethrow_exception(error);
}

bool BackgroundWorker::Busy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return pending_;
}

double BackgroundWorker::LastTaskSeconds() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return seconds_;
}

void BackgroundWorker::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || (pending_ && task_); });
    if (stop_) return;
    std::function<void()> task = std::move(task_);
    task_ = nullptr;
    const int threads = threads_;
    lock.unlock();
    std::exception_ptr error;
    const auto start = std::chrono::steady_clock::now();
    try {
      SetParallelThreads(threads);
      task();
    } catch (...) {
      error = std::current_exception();
    }
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    lock.lock();
    error_ = error;
    seconds_ = elapsed.count();
    pending_ = false;
    done_.notify_all();
  }
}

}  // namespace tessera
