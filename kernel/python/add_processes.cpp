// Python binding of the Process base class (subclassable from Python) and the
// factory of processes registered in C++ by name.
#include "kernel/model/model.h"
#include "kernel/parameters/parameters.h"
#include "kernel/python/bindings.h"
#include "kernel/registry/registry.h"

namespace py = pybind11;

namespace tessera::python {
namespace {

// Lets Python classes override the hooks when C++ calls them.
class PyProcess : public Process {
 public:
  using Process::Process;
  void ExecuteInitialize() override { PYBIND11_OVERRIDE(void, Process, ExecuteInitialize); }
  void ExecuteBeforeSolutionLoop() override {
    PYBIND11_OVERRIDE(void, Process, ExecuteBeforeSolutionLoop);
  }
  void ExecuteInitializeSolutionStep() override {
    PYBIND11_OVERRIDE(void, Process, ExecuteInitializeSolutionStep);
  }
  void ExecuteFinalizeSolutionStep() override {
    PYBIND11_OVERRIDE(void, Process, ExecuteFinalizeSolutionStep);
  }
  void ExecuteBeforeOutputStep() override {
    PYBIND11_OVERRIDE(void, Process, ExecuteBeforeOutputStep);
  }
  void ExecuteAfterOutputStep() override {
    PYBIND11_OVERRIDE(void, Process, ExecuteAfterOutputStep);
  }
  void ExecuteFinalize() override { PYBIND11_OVERRIDE(void, Process, ExecuteFinalize); }
  void Execute() override { PYBIND11_OVERRIDE(void, Process, Execute); }
  int Check() override { PYBIND11_OVERRIDE(int, Process, Check); }
  std::string Info() const override { PYBIND11_OVERRIDE(std::string, Process, Info); }
};

}  // namespace

void AddProcessesToPython(py::module_& m) {
  py::class_<Process, PyProcess, std::shared_ptr<Process>>(m, "Process")
      .def(py::init<>())
      .def("ExecuteInitialize", &Process::ExecuteInitialize)
      .def("ExecuteBeforeSolutionLoop", &Process::ExecuteBeforeSolutionLoop)
      .def("ExecuteInitializeSolutionStep", &Process::ExecuteInitializeSolutionStep)
      .def("ExecuteFinalizeSolutionStep", &Process::ExecuteFinalizeSolutionStep)
      .def("ExecuteBeforeOutputStep", &Process::ExecuteBeforeOutputStep)
      .def("ExecuteAfterOutputStep", &Process::ExecuteAfterOutputStep)
      .def("ExecuteFinalize", &Process::ExecuteFinalize)
      .def("Execute", &Process::Execute)
      .def("Check", &Process::Check)
      .def("Info", &Process::Info);
  m.def(
      "CreateRegisteredProcess",
      [](const std::string& name, Model& model, Parameters parameters) {
        return std::shared_ptr<Process>(
            Registry::Instance().CreateProcess(name, model, std::move(parameters)));
      },
      "A process registered in C++ under that name");
}

}  // namespace tessera::python
