// Python binding of tessera::Parameters with Kratos' Python API (Parameters(json),
// params["key"], GetDouble, AddValue, ValidateAndAssignDefaults, ...), so that
// Kratos-style stages and processes port over unchanged. Vectors and matrices
// come back as numpy arrays and are accepted from any sequence of numbers.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "kernel/parameters/parameters.h"
#include "kernel/python/bindings.h"

namespace py = pybind11;

namespace tessera::python {
namespace {

// "key 'a.b'" or "the root value", for the messages of the conversions below.
std::string Name(const Parameters& p) {
  const std::string path = p.Path();
  return path.empty() ? "the root value" : "key '" + path + "'";
}

std::string TypeName(const py::handle& value) {
  return py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>();
}

py::array_t<double> ToNumpy(const Vector& vector) {
  py::array_t<double> array(static_cast<py::ssize_t>(vector.size()));
  std::copy(vector.data(), vector.data() + vector.size(), array.mutable_data());
  return array;
}

py::array_t<double> ToNumpy(const Matrix& matrix) {
  py::array_t<double> array(
      {static_cast<py::ssize_t>(matrix.rows()), static_cast<py::ssize_t>(matrix.cols())});
  // tessera::Matrix is row-major, as is a default (C-order) numpy array.
  std::copy(matrix.data(), matrix.data() + matrix.size(), array.mutable_data());
  return array;
}

bool IsNumber(const py::handle& item) {
  // Not str (float("1.5") would succeed, and a string in a vector is a mistake), nor
  // a numpy array, which also implements the number protocol.
  return PyNumber_Check(item.ptr()) && !PyComplex_Check(item.ptr()) &&
         !py::isinstance<py::str>(item) && !py::isinstance<py::bytes>(item) &&
         !py::isinstance<py::array>(item);
}

// The items of any iterable but a string (whose characters are never what is meant).
std::vector<py::object> Items(const py::handle& value, const std::string& what) {
  if (py::isinstance<py::str>(value) || py::isinstance<py::bytes>(value) ||
      !py::hasattr(value, "__iter__")) {
    throw py::type_error(what + ": expected a sequence, got " + TypeName(value));
  }
  std::vector<py::object> items;
  for (py::handle item : value) items.push_back(py::reinterpret_borrow<py::object>(item));
  return items;
}

bool IsNumericArray(const py::handle& value) {
  if (!py::isinstance<py::array>(value)) return false;
  const char kind = py::reinterpret_borrow<py::array>(value).dtype().kind();
  return kind == 'b' || kind == 'i' || kind == 'u' || kind == 'f';
}

Vector ToVector(const py::handle& value, const std::string& what) {
  if (IsNumericArray(value)) {
    const auto array =
        py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(value);
    if (array.ndim() != 1) {
      throw py::value_error(what + ": expected a 1-D sequence of numbers, got an array with " +
                            std::to_string(array.ndim()) + " dimensions");
    }
    return Eigen::Map<const Vector>(array.data(), array.shape(0));
  }
  const std::vector<py::object> items = Items(value, what);
  Vector vector(static_cast<Eigen::Index>(items.size()));
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!IsNumber(items[i])) {
      throw py::type_error(what + ": item [" + std::to_string(i) + "] is a " + TypeName(items[i]) +
                           ", expected a number");
    }
    vector[static_cast<Eigen::Index>(i)] = items[i].cast<double>();
  }
  return vector;
}

Matrix ToMatrix(const py::handle& value, const std::string& what) {
  if (IsNumericArray(value)) {
    const auto array =
        py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(value);
    if (array.ndim() != 2) {
      throw py::value_error(what + ": expected a 2-D sequence of numbers, got an array with " +
                            std::to_string(array.ndim()) + " dimensions");
    }
    return Eigen::Map<const Matrix>(array.data(), array.shape(0), array.shape(1));
  }
  const std::vector<py::object> rows = Items(value, what);
  std::vector<Vector> row_vectors;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    row_vectors.push_back(ToVector(rows[i], what + ", row [" + std::to_string(i) + "]"));
    if (row_vectors[i].size() != row_vectors[0].size()) {
      throw py::value_error(what + ": row [" + std::to_string(i) + "] has " +
                            std::to_string(row_vectors[i].size()) + " items but row [0] has " +
                            std::to_string(row_vectors[0].size()));
    }
  }
  const Eigen::Index cols = row_vectors.empty() ? 0 : row_vectors[0].size();
  Matrix matrix(static_cast<Eigen::Index>(rows.size()), cols);
  for (std::size_t i = 0; i < row_vectors.size(); ++i) {
    matrix.row(static_cast<Eigen::Index>(i)) = row_vectors[i].transpose();
  }
  return matrix;
}

std::vector<std::string> ToStrings(const py::handle& value, const std::string& what) {
  const std::vector<py::object> items = Items(value, what);
  std::vector<std::string> strings;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!py::isinstance<py::str>(items[i])) {
      throw py::type_error(what + ": item [" + std::to_string(i) + "] is a " + TypeName(items[i]) +
                           ", expected a str");
    }
    strings.push_back(items[i].cast<std::string>());
  }
  return strings;
}

py::list ToList(const std::vector<std::string>& strings) {
  py::list list;
  for (const std::string& s : strings) list.append(s);
  return list;
}

// Python-style index: negative counts from the end.
std::size_t Index(const Parameters& p, py::ssize_t index) {
  if (index < 0) {
    const auto size = static_cast<py::ssize_t>(p.size());
    if (index + size < 0) {
      throw py::index_error(p.Origin() + ": item [" + std::to_string(index) + "] of " + Name(p) +
                            " is out of range: the array has " + std::to_string(size) + " items");
    }
    index += size;
  }
  return static_cast<std::size_t>(index);
}

// What the typed Append overloads did not take: a number they could not (an int
// beyond the C++ int range) or a sequence, which is a vector unless its first item
// is itself a sequence.
void AppendOther(Parameters& p, const py::object& value) {
  if (IsNumber(value)) {
    p.Append(value.cast<double>());
    return;
  }
  const std::string what = "Append to " + Name(p);
  const bool nested =
      IsNumericArray(value) ? py::reinterpret_borrow<py::array>(value).ndim() == 2 : [&] {
        const std::vector<py::object> items = Items(value, what);
        return !items.empty() && !IsNumber(items[0]) && py::hasattr(items[0], "__iter__");
      }();
  if (nested) {
    p.Append(ToMatrix(value, what));
  } else {
    p.Append(ToVector(value, what));
  }
}

std::string Fsdecode(const py::object& path) {
  return py::module_::import("os").attr("fsdecode")(path).cast<std::string>();
}

}  // namespace

void AddParametersToPython(py::module_& m) {
  py::class_<Parameters> cls(m, "Parameters", R"doc(
JSON settings, as in Kratos: a handle to a value inside a shared JSON document, so
params["solver_settings"]["time_stepping"].SetDouble("time_step", 0.1) changes the
document. Errors name the file and the key path ("solver_settings.time_step").)doc");

  // ---- construction ----------------------------------------------------------------------
  cls.def(py::init<const std::string&>(), py::arg("json_string") = "{}")
      // Parameters(open("ProjectParameters.json")) reads the file and keeps its name.
      .def(py::init([](const py::object& file) {
             if (!py::hasattr(file, "read")) {
               throw py::type_error("Parameters() takes a JSON string or a file object, got " +
                                    TypeName(file));
             }
             const py::object text = file.attr("read")();
             const std::string origin = py::hasattr(file, "name")
                                            ? py::str(file.attr("name")).cast<std::string>()
                                            : "<file>";
             return Parameters::FromString(py::isinstance<py::bytes>(text)
                                               ? text.cast<std::string>()
                                               : py::str(text).cast<std::string>(),
                                           origin);
           }),
           py::arg("file"))
      .def_static(
          "FromFile", [](const py::object& path) { return Parameters::FromFile(Fsdecode(path)); },
          py::arg("path"), "Reads a JSON file (str or os.PathLike).")
      .def_static("FromString", &Parameters::FromString, py::arg("json_string"), py::arg("origin"),
                  "Parses a JSON string whose errors name `origin`.")
      .def("Clone", &Parameters::Clone, "A deep copy as a new, independent document.")
      .def("__copy__", &Parameters::Clone)  // as in Kratos: copies are deep
      .def(
          "__deepcopy__", [](const Parameters& p, const py::object&) { return p.Clone(); },
          py::arg("memo"))
      .def(py::pickle(
          [](const Parameters& p) { return py::make_tuple(p.WriteJsonString(), p.Origin()); },
          [](const py::tuple& state) {
            return Parameters::FromString(state[0].cast<std::string>(),
                                          state[1].cast<std::string>());
          }))
      .def("Origin", &Parameters::Origin, "The file the document was read from, or '<string>'.")
      .def("Path", &Parameters::Path, "The key path of this value, e.g. 'a.b[2].c'.");

  // ---- navigation and the Python container protocol -------------------------------------------
  cls.def(
         "__getitem__", [](Parameters& p, const std::string& key) { return p[key]; },
         py::arg("key"))
      .def(
          "__getitem__", [](Parameters& p, py::ssize_t index) { return p[Index(p, index)]; },
          py::arg("index"))
      .def(
          "__setitem__",
          [](Parameters& p, const std::string& key, const Parameters& value) {
            p.SetValue(key, value);
          },
          py::arg("key"), py::arg("value"))
      .def(
          "__setitem__",
          [](Parameters& p, py::ssize_t index, const Parameters& value) {
            p.SetArrayItem(Index(p, index), value);
          },
          py::arg("index"), py::arg("value"))
      .def("__contains__", &Parameters::Has, py::arg("key"))
      .def("__len__", &Parameters::size)
      .def("size", &Parameters::size)
      .def("__iter__",
           [](const Parameters& p) {
             // Keys of an object (like a dict), items of an array (like a list).
             if (!p.IsArray() && !p.IsSubParameter()) {
               throw py::type_error(p.Origin() + ": " + Name(p) +
                                    " is neither an object nor an array, so it cannot be iterated");
             }
             py::list list;
             if (p.IsArray()) {
               for (std::size_t i = 0; i < p.size(); ++i) list.append(p[i]);
             } else {
               for (const std::string& key : p.keys()) list.append(key);
             }
             return py::iter(list);
           })
      .def("keys", [](const Parameters& p) { return ToList(p.keys()); })
      .def("values",
           [](const Parameters& p) {
             py::list list;
             if (p.IsArray()) {
               for (std::size_t i = 0; i < p.size(); ++i) list.append(p[i]);
             } else {
               for (const auto& [key, value] : p) list.append(value);
             }
             return list;
           })
      .def("items",
           [](const Parameters& p) {
             py::list list;
             for (const auto& [key, value] : p) list.append(py::make_tuple(key, value));
             return list;
           })
      .def("Has", &Parameters::Has, py::arg("key"))
      .def(
          "GetValue", [](Parameters& p, const std::string& key) { return p[key]; }, py::arg("key"))
      .def(
          "GetArrayItem", [](Parameters& p, py::ssize_t index) { return p[Index(p, index)]; },
          py::arg("index"))
      .def("__str__", &Parameters::PrettyPrintJsonString)
      .def("__repr__", &Parameters::PrettyPrintJsonString);

  // ---- type queries
  // -------------------------------------------------------------------------------
  cls.def("IsNull", &Parameters::IsNull)
      .def("IsNumber", &Parameters::IsNumber)
      .def("IsDouble", &Parameters::IsDouble)
      .def("IsInt", &Parameters::IsInt)
      .def("IsBool", &Parameters::IsBool)
      .def("IsString", &Parameters::IsString)
      .def("IsArray", &Parameters::IsArray)
      .def("IsVector", &Parameters::IsVector)
      .def("IsMatrix", &Parameters::IsMatrix)
      .def("IsStringArray", &Parameters::IsStringArray)
      .def("IsSubParameter", &Parameters::IsSubParameter);

  // ---- getters: of this value, or of its key ----------------------------------------------------
  cls.def("GetDouble", py::overload_cast<>(&Parameters::GetDouble, py::const_))
      .def("GetDouble", py::overload_cast<const std::string&>(&Parameters::GetDouble, py::const_),
           py::arg("key"))
      .def("GetInt", py::overload_cast<>(&Parameters::GetInt, py::const_))
      .def("GetInt", py::overload_cast<const std::string&>(&Parameters::GetInt, py::const_),
           py::arg("key"))
      .def("GetBool", py::overload_cast<>(&Parameters::GetBool, py::const_))
      .def("GetBool", py::overload_cast<const std::string&>(&Parameters::GetBool, py::const_),
           py::arg("key"))
      .def("GetString", py::overload_cast<>(&Parameters::GetString, py::const_))
      .def("GetString", py::overload_cast<const std::string&>(&Parameters::GetString, py::const_),
           py::arg("key"))
      .def("GetVector", [](const Parameters& p) { return ToNumpy(p.GetVector()); })
      .def(
          "GetVector",
          [](const Parameters& p, const std::string& key) { return ToNumpy(p.GetVector(key)); },
          py::arg("key"))
      .def("GetMatrix", [](const Parameters& p) { return ToNumpy(p.GetMatrix()); })
      .def(
          "GetMatrix",
          [](const Parameters& p, const std::string& key) { return ToNumpy(p.GetMatrix(key)); },
          py::arg("key"))
      .def("GetStringArray", [](const Parameters& p) { return ToList(p.GetStringArray()); })
      .def(
          "GetStringArray",
          [](const Parameters& p, const std::string& key) { return ToList(p.GetStringArray(key)); },
          py::arg("key"));

  // ---- setters: replace this value, or the value of an existing key ----------------------------
  cls.def("SetDouble", py::overload_cast<double>(&Parameters::SetDouble), py::arg("value"))
      .def("SetDouble", py::overload_cast<const std::string&, double>(&Parameters::SetDouble),
           py::arg("key"), py::arg("value"))
      .def("SetInt", py::overload_cast<int>(&Parameters::SetInt), py::arg("value"))
      .def("SetInt", py::overload_cast<const std::string&, int>(&Parameters::SetInt),
           py::arg("key"), py::arg("value"))
      .def("SetBool", py::overload_cast<bool>(&Parameters::SetBool), py::arg("value"))
      .def("SetBool", py::overload_cast<const std::string&, bool>(&Parameters::SetBool),
           py::arg("key"), py::arg("value"))
      .def("SetString", py::overload_cast<const std::string&>(&Parameters::SetString),
           py::arg("value"))
      .def("SetString",
           py::overload_cast<const std::string&, const std::string&>(&Parameters::SetString),
           py::arg("key"), py::arg("value"))
      .def(
          "SetVector",
          [](Parameters& p, const py::object& value) {
            p.SetVector(ToVector(value, "SetVector of " + Name(p)));
          },
          py::arg("value"))
      .def(
          "SetVector",
          [](Parameters& p, const std::string& key, const py::object& value) {
            p.SetVector(key, ToVector(value, "SetVector('" + key + "')"));
          },
          py::arg("key"), py::arg("value"))
      .def(
          "SetMatrix",
          [](Parameters& p, const py::object& value) {
            p.SetMatrix(ToMatrix(value, "SetMatrix of " + Name(p)));
          },
          py::arg("value"))
      .def(
          "SetMatrix",
          [](Parameters& p, const std::string& key, const py::object& value) {
            p.SetMatrix(key, ToMatrix(value, "SetMatrix('" + key + "')"));
          },
          py::arg("key"), py::arg("value"))
      .def(
          "SetStringArray",
          [](Parameters& p, const py::object& value) {
            p.SetStringArray(ToStrings(value, "SetStringArray of " + Name(p)));
          },
          py::arg("value"))
      .def(
          "SetStringArray",
          [](Parameters& p, const std::string& key, const py::object& value) {
            p.SetStringArray(key, ToStrings(value, "SetStringArray('" + key + "')"));
          },
          py::arg("key"), py::arg("value"))
      .def("SetValue", py::overload_cast<const Parameters&>(&Parameters::SetValue),
           py::arg("value"))
      .def("SetValue",
           py::overload_cast<const std::string&, const Parameters&>(&Parameters::SetValue),
           py::arg("key"), py::arg("value"))
      .def(
          "SetArrayItem",
          [](Parameters& p, py::ssize_t index, const Parameters& value) {
            p.SetArrayItem(Index(p, index), value);
          },
          py::arg("index"), py::arg("value"));

  // ---- adding, removing, appending
  // -----------------------------------------------------------------
  cls.def("AddEmptyValue", &Parameters::AddEmptyValue, py::arg("key"))
      .def("AddEmptyArray", &Parameters::AddEmptyArray, py::arg("key"))
      .def("AddValue", &Parameters::AddValue, py::arg("key"), py::arg("value"))
      .def("AddDouble", &Parameters::AddDouble, py::arg("key"), py::arg("value"))
      .def("AddInt", &Parameters::AddInt, py::arg("key"), py::arg("value"))
      .def("AddBool", py::overload_cast<const std::string&, bool>(&Parameters::AddBool),
           py::arg("key"), py::arg("value"))
      .def("AddString", &Parameters::AddString, py::arg("key"), py::arg("value"))
      .def(
          "AddVector",
          [](Parameters& p, const std::string& key, const py::object& value) {
            p.AddVector(key, ToVector(value, "AddVector('" + key + "')"));
          },
          py::arg("key"), py::arg("value"))
      .def(
          "AddMatrix",
          [](Parameters& p, const std::string& key, const py::object& value) {
            p.AddMatrix(key, ToMatrix(value, "AddMatrix('" + key + "')"));
          },
          py::arg("key"), py::arg("value"))
      .def(
          "AddStringArray",
          [](Parameters& p, const std::string& key, const py::object& value) {
            p.AddStringArray(key, ToStrings(value, "AddStringArray('" + key + "')"));
          },
          py::arg("key"), py::arg("value"))
      .def("RemoveValue", &Parameters::RemoveValue, py::arg("key"))
      // Order matters: pybind11 tries overloads in turn, and a Python bool is an int.
      .def("Append", py::overload_cast<bool>(&Parameters::Append), py::arg("value"))
      .def("Append", py::overload_cast<int>(&Parameters::Append), py::arg("value"))
      .def("Append", py::overload_cast<double>(&Parameters::Append), py::arg("value"))
      .def("Append", py::overload_cast<const std::string&>(&Parameters::Append), py::arg("value"))
      .def("Append", py::overload_cast<const Parameters&>(&Parameters::Append), py::arg("value"))
      .def("Append", &AppendOther, py::arg("value"));

  // ---- output, comparison, validation
  // -----------------------------------------------------------------
  cls.def("WriteJsonString", &Parameters::WriteJsonString)
      .def("PrettyPrintJsonString", &Parameters::PrettyPrintJsonString)
      .def("IsEquivalentTo", &Parameters::IsEquivalentTo, py::arg("other"))
      .def("HasSameKeysAndTypeOfValuesAs", &Parameters::HasSameKeysAndTypeOfValuesAs,
           py::arg("other"))
      .def("ValidateAndAssignDefaults", &Parameters::ValidateAndAssignDefaults, py::arg("defaults"))
      .def("RecursivelyValidateAndAssignDefaults",
           &Parameters::RecursivelyValidateAndAssignDefaults, py::arg("defaults"))
      .def("ValidateDefaults", &Parameters::ValidateDefaults, py::arg("defaults"))
      .def("RecursivelyValidateDefaults", &Parameters::RecursivelyValidateDefaults,
           py::arg("defaults"))
      .def("AddMissingParameters", &Parameters::AddMissingParameters, py::arg("defaults"))
      .def("RecursivelyAddMissingParameters", &Parameters::RecursivelyAddMissingParameters,
           py::arg("defaults"));
}

}  // namespace tessera::python
