// Process: a piece of work hooked into the stages of an analysis (apply a
// boundary condition, write output, check a result), Kratos' Process API.
// Python processes derive from the same class through the bindings.
#pragma once

#include <string>

namespace tessera {

class Process {
 public:
  virtual ~Process() = default;
  virtual void ExecuteInitialize() {}
  virtual void ExecuteBeforeSolutionLoop() {}
  virtual void ExecuteInitializeSolutionStep() {}
  virtual void ExecuteFinalizeSolutionStep() {}
  virtual void ExecuteBeforeOutputStep() {}
  virtual void ExecuteAfterOutputStep() {}
  virtual void ExecuteFinalize() {}
  // Runs the whole process at once (for processes used as utilities).
  virtual void Execute() {}
  virtual int Check() { return 0; }
  virtual std::string Info() const { return "Process"; }
};

}  // namespace tessera
