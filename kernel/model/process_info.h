// ProcessInfo: the values a whole model part shares during a step (TIME,
// DELTA_TIME, STEP, solver flags), with a buffer of the previous steps' values.
#pragma once

#include <deque>

#include "kernel/core/data_value_container.h"

namespace tessera {

class ProcessInfo : public DataValueContainer {
 public:
  // Keeps a copy of the current values as step 1 (at most `buffer_size - 1`
  // previous steps are kept).
  void CloneSolutionStep(int buffer_size) {
    previous_.push_front(static_cast<const DataValueContainer&>(*this));
    while (static_cast<int>(previous_.size()) > std::max(0, buffer_size - 1)) previous_.pop_back();
  }
  // step 0 is this one; error if not kept.
  const DataValueContainer& GetPreviousSolutionStepInfo(int step = 1) const;

 private:
  friend struct CheckpointAccess;  // kernel/io/model_part_checkpoint.cpp
  std::deque<DataValueContainer> previous_;
};

}  // namespace tessera
