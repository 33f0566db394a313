// Python bindings of the result writers: tessera.VtkOutput, tessera.GidOutput and
// tessera.Hdf5Output.
// The output processes of tessera.output wrap them with the step control.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "kernel/io/gid_output.h"
#include "kernel/io/hdf5_output.h"
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

  py::class_<Hdf5Output>(m, "Hdf5Output",
                         "Writes a model part and its results as HDF5 (Kratos' HDF5Application "
                         "layout) plus an XDMF descriptor for ParaView")
      .def(py::init<ModelPart&, Parameters>(), py::arg("model_part"), py::arg("parameters"),
           py::keep_alive<1, 2>())
      .def("PrintOutput", &Hdf5Output::PrintOutput,
           "Writes the current step (STEP, TIME of the ProcessInfo)")
      .def("GetLastWrittenFiles", &Hdf5Output::LastWrittenFiles)
      .def("GetXdmfFileName", &Hdf5Output::XdmfFileName)
      .def_static("GetDefaultParameters", &Hdf5Output::GetDefaultParameters);
}

}  // namespace tessera::python
