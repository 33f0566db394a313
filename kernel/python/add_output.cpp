// Python bindings of the result writers: tessera.VtkOutput and tessera.GidOutput.
// The output processes of tessera.output wrap them with the step control.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "kernel/io/gid_output.h"
#include "kernel/io/vtk_output.h"
#include "kernel/model/model_part.h"
#include "kernel/python/bindings.h"

namespace tessera::python {

namespace py = pybind11;

void AddOutputToPython(py::module_& m) {
  // keep_alive<1, 2>: the writer holds a reference to the model part, so the
  // Python model part (and through it its Model) must live as long as the writer.
  py::class_<VtkOutput>(m, "VtkOutput",
                        "Writes a model part as VTK XML .vtu files plus a .pvd collection")
      .def(py::init<ModelPart&, Parameters>(), py::arg("model_part"), py::arg("parameters"),
           py::keep_alive<1, 2>())
      .def("PrintOutput", &VtkOutput::PrintOutput,
           "Writes the current step (STEP, TIME of the ProcessInfo)")
      .def("GetLastWrittenFiles", &VtkOutput::LastWrittenFiles)
      .def_static("GetDefaultParameters", &VtkOutput::GetDefaultParameters);

  py::class_<GidOutput>(m, "GidOutput",
                        "Writes a model part and its results as GiD ASCII .post.msh/.post.res")
      .def(py::init<ModelPart&, Parameters>(), py::arg("model_part"), py::arg("parameters"),
           py::keep_alive<1, 2>())
      .def("PrintOutput", &GidOutput::PrintOutput)
      .def("ExecuteFinalize", &GidOutput::ExecuteFinalize)
      .def("GetMeshFileName", &GidOutput::MeshFileName)
      .def("GetResultFileName", &GidOutput::ResultFileName)
      .def_static("GetDefaultParameters", &GidOutput::GetDefaultParameters);
}

}  // namespace tessera::python
