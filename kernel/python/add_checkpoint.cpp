// Python bindings of the checkpoint container and the model part checkpoint:
// tessera.CheckpointWriter / CheckpointReader (numpy arrays in and out) and
// tessera.SaveModelPart / LoadModelPart. Python-side state (a stage's time, a
// process's counters, a plugin's arrays) is written through the same objects.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "kernel/io/checkpoint_file.h"
#include "kernel/io/model_part_checkpoint.h"
#include "kernel/model/model_part.h"
#include "kernel/python/bindings.h"

namespace tessera::python {

namespace py = pybind11;

namespace {

template <class T>
std::vector<T> ToVector(const py::array& array) {
  auto typed = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(array);
  return std::vector<T>(typed.data(), typed.data() + typed.size());
}

template <class T>
py::array_t<T> ToArray(std::vector<T> values) {
  py::array_t<T> out(static_cast<py::ssize_t>(values.size()));
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

void WriteArray(CheckpointWriter& writer, const std::string& name, const py::array& array) {
  const py::dtype dtype = array.dtype();
  if (dtype.is(py::dtype::of<double>()))
    writer.Write(name, ToVector<double>(array));
  else if (dtype.is(py::dtype::of<std::int64_t>()) || dtype.is(py::dtype::of<std::int32_t>()))
    writer.Write(name, ToVector<std::int64_t>(array));
  else if (dtype.is(py::dtype::of<std::uint64_t>()))
    writer.Write(name, ToVector<std::uint64_t>(array));
  else if (dtype.is(py::dtype::of<std::uint32_t>()))
    writer.Write(name, ToVector<std::uint32_t>(array));
  else if (dtype.is(py::dtype::of<std::uint8_t>()) || dtype.is(py::dtype::of<bool>()))
    writer.Write(name, ToVector<std::uint8_t>(array));
  else
    throw py::type_error("CheckpointWriter.Write(" + name + "): dtype " +
                         py::repr(dtype).cast<std::string>() +
                         " is not one of float64, int64, int32, uint64, uint32, uint8, bool");
}

}  // namespace

void AddCheckpointToPython(py::module_& m) {
  py::class_<CheckpointWriter>(m, "CheckpointWriter",
                               "Writes a checkpoint to a temporary file; Commit() renames it "
                               "over the path")
      .def(py::init<std::string>(), py::arg("path"))
      .def("Write", &WriteArray, py::arg("name"), py::arg("array"),
           "A one-dimensional dataset (the array is flattened, C order)")
      .def("WriteString", &CheckpointWriter::WriteString)
      .def("SetAttribute", py::overload_cast<const std::string&, const std::string&>(
                               &CheckpointWriter::SetAttribute))
      .def("SetAttribute",
           py::overload_cast<const std::string&, std::int64_t>(&CheckpointWriter::SetAttribute))
      .def("SetAttribute",
           py::overload_cast<const std::string&, double>(&CheckpointWriter::SetAttribute))
      .def("Commit", &CheckpointWriter::Commit)
      .def_property_readonly("path", &CheckpointWriter::Path);

  py::class_<CheckpointReader>(m, "CheckpointReader",
                               "Opens a checkpoint; refuses files that are not one, are "
                               "truncated or of another layout version")
      .def(py::init<std::string>(), py::arg("path"))
      .def("Has", &CheckpointReader::Has)
      .def("List", &CheckpointReader::List)
      .def("ListDatasets", &CheckpointReader::ListDatasets, py::arg("group") = "/")
      .def("ReadRawBytes",
           [](const CheckpointReader& r, const std::string& n) {
             const std::vector<std::uint8_t> b = r.ReadRawBytes(n);
             return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
           })
      .def("ReadDoubles", [](const CheckpointReader& r,
                             const std::string& n) { return ToArray(r.ReadDoubles(n)); })
      .def("ReadInt64",
           [](const CheckpointReader& r, const std::string& n) { return ToArray(r.ReadInt64(n)); })
      .def("ReadUInt64",
           [](const CheckpointReader& r, const std::string& n) { return ToArray(r.ReadUInt64(n)); })
      .def("ReadUInt32",
           [](const CheckpointReader& r, const std::string& n) { return ToArray(r.ReadUInt32(n)); })
      .def("ReadBytes",
           [](const CheckpointReader& r, const std::string& n) { return ToArray(r.ReadBytes(n)); })
      .def("ReadString", &CheckpointReader::ReadString)
      .def("HasAttribute", &CheckpointReader::HasAttribute)
      .def("StringAttribute", &CheckpointReader::StringAttribute)
      .def("IntAttribute", &CheckpointReader::IntAttribute)
      .def("DoubleAttribute", &CheckpointReader::DoubleAttribute)
      .def_property_readonly("path", &CheckpointReader::Path);

  m.attr("CHECKPOINT_LAYOUT_VERSION") = kCheckpointLayoutVersion;
  m.def("SaveModelPart", &SaveModelPart, py::arg("model_part"), py::arg("writer"), py::arg("group"),
        "The root model part's complete state under `group`");
  m.def("LoadModelPart", &LoadModelPart, py::arg("model_part"), py::arg("reader"), py::arg("group"),
        "Overwrites the state of a model part built from the same deck with the saved one");
}

}  // namespace tessera::python
