// Python bindings of the .mdpa IO with Kratos' names: the IO flags class,
// ModelPartIO(path, flags).ReadModelPart/WriteModelPart, and Kratos'
// ReorderConsecutiveFromGivenIdsModelPartIO (the DEM stage's renumbering read).
#include <pybind11/pybind11.h>

#include "kernel/io/model_part_io.h"
#include "kernel/model/model_part.h"
#include "kernel/python/bindings.h"

namespace py = pybind11;

namespace tessera::python {
namespace {

// A tag type: Python sees `IO` as a class holding Kratos' flag constants.
struct IoFlags {};

// Any os.PathLike or str.
std::string PathString(const py::object& path) {
  return py::module_::import("os").attr("fspath")(path).cast<std::string>();
}

}  // namespace

void AddIoToPython(py::module_& m) {
  py::class_<IoFlags> io(m, "IO", "Kratos' IO flags, combined with |: IO.READ | IO.MESH_ONLY");
  io.attr("READ") = ModelPartIO::READ;
  io.attr("WRITE") = ModelPartIO::WRITE;
  io.attr("MESH_ONLY") = ModelPartIO::MESH_ONLY;
  io.attr("SKIP_TIMER") = ModelPartIO::SKIP_TIMER;

  py::class_<ModelPartIO>(m, "ModelPartIO",
                          "Reads and writes .mdpa files (the path with or without '.mdpa')")
      .def(py::init([](const py::object& path, int flags, bool renumber, IdType node_id_offset,
                       IdType element_id_offset, IdType condition_id_offset) {
             MdpaReadOptions options;
             options.renumber = renumber;
             options.node_id_offset = node_id_offset;
             options.element_id_offset = element_id_offset;
             options.condition_id_offset = condition_id_offset;
             return ModelPartIO(PathString(path), flags, options);
           }),
           py::arg("path"), py::arg("flags") = ModelPartIO::READ, py::kw_only(),
           py::arg("renumber") = false, py::arg("node_id_offset") = 0,
           py::arg("element_id_offset") = 0, py::arg("condition_id_offset") = 0,
           "flags: IO.READ (default), IO.WRITE, IO.MESH_ONLY. renumber=True maps node, element "
           "and condition ids, in order of first appearance, to offset+1, offset+2, ...")
      .def("ReadModelPart", &ModelPartIO::ReadModelPart, py::arg("model_part"))
      .def("WriteModelPart", &ModelPartIO::WriteModelPart, py::arg("model_part"))
      .def_property_readonly("Path", &ModelPartIO::Path)
      .def_property_readonly("Flags", &ModelPartIO::Flags)
      .def("__repr__", [](const ModelPartIO& io) {
        return "ModelPartIO('" + io.Path() + "', flags=" + std::to_string(io.Flags()) + ")";
      });

  m.def(
      "ReorderConsecutiveFromGivenIdsModelPartIO",
      [](const py::object& path, IdType node_id_offset, IdType element_id_offset,
         IdType condition_id_offset, int flags) {
        MdpaReadOptions options;
        options.renumber = true;
        options.node_id_offset = node_id_offset;
        options.element_id_offset = element_id_offset;
        options.condition_id_offset = condition_id_offset;
        return ModelPartIO(PathString(path), flags, options);
      },
      py::arg("path"), py::arg("node_id_offset") = 0, py::arg("element_id_offset") = 0,
      py::arg("condition_id_offset") = 0, py::arg("flags") = ModelPartIO::READ,
      "Kratos' renumbering reader: a ModelPartIO with renumber=True and these offsets");
}

}  // namespace tessera::python
