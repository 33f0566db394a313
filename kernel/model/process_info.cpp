// ProcessInfo step buffer.
#include "kernel/model/process_info.h"

#include "kernel/core/error.h"

namespace tessera {

const DataValueContainer& ProcessInfo::GetPreviousSolutionStepInfo(int step) const {
  if (step == 0) return *this;
  if (step < 0 || step > static_cast<int>(previous_.size()))
    TESSERA_ERROR("process info of ", step, " steps back is not kept (buffer holds ",
                  previous_.size(), ")");
  return previous_[step - 1];
}

}  // namespace tessera
