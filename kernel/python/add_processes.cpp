// Python binding of the Process base class (subclassable from Python), the
// factory of processes registered in C++ by name and the kernel's C++ processes
// that scripts build directly (Kratos' names).
#include "kernel/model/model.h"
#include "kernel/parameters/parameters.h"
#include "kernel/processes/skin_detection_process.h"
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

  // keep_alive: the process refers to the model part (which keeps its Model alive).
  py::class_<SkinDetectionProcess, Process, std::shared_ptr<SkinDetectionProcess>>(
      m, "SkinDetectionProcess",
      "Makes the skin of a model part's elements a sub model part of conditions "
      "(kernel/processes/skin_detection_process.h); Execute() runs it")
      .def(py::init<ModelPart&, Parameters>(), py::arg("model_part"),
           py::arg("parameters") = Parameters(), py::keep_alive<1, 2>())
      .def_static("GetDefaultParameters", &SkinDetectionProcess::GetDefaultParameters);
  // Kratos has one class per dimension; here one class serves both.
  m.attr("SkinDetectionProcess2D") = m.attr("SkinDetectionProcess");
  m.attr("SkinDetectionProcess3D") = m.attr("SkinDetectionProcess");
}

}  // namespace tessera::python
