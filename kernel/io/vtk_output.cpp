// VtkOutput: gathering a model part into arrays and writing them as VTK XML.
#include "kernel/io/vtk_output.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/core/variable_registry.h"
#include "kernel/geometries/geometry_type.h"
#include "kernel/io/integration_point_average.h"
#include "kernel/io/integration_point_extrapolation.h"
#include "kernel/io/nodal_radii.h"
#include "kernel/io/xml_text.h"
#include "kernel/model/model_part.h"

namespace tessera {

namespace {

namespace fs = std::filesystem;

// ---- small helpers ------------------------------------------------------------------

// Reads through the type-erased accessor, which serves every value kind alike.
template <class T>
T ValueOf(const DataValueContainer& data, const Variable<T>& variable) {
  return std::get<T>(data.GetValue(static_cast<const VariableBase&>(variable)));
}

std::string BaseNameOf(const ModelPart& model_part) {
  std::string name = model_part.FullName();
  std::replace(name.begin(), name.end(), '.', '_');
  return name;
}

using xml::Escaped;
using xml::ExactDouble;

int VtkCellType(GeometryFamily family) {
  // Numbers from VTK's vtkCellType.h.
  switch (family) {
    case GeometryFamily::Point:
    case GeometryFamily::Sphere:
      return 1;  // VTK_VERTEX
    case GeometryFamily::Line:
      return 3;  // VTK_LINE
    case GeometryFamily::Triangle:
      return 5;
    case GeometryFamily::Quadrilateral:
      return 9;
    case GeometryFamily::Tetrahedron:
      return 10;
    case GeometryFamily::Hexahedron:
      return 12;
  }
  TESSERA_ERROR("VtkOutput: geometry family ", FamilyName(family), " has no VTK cell type");
}

// ---- data arrays ----------------------------------------------------------------------

struct DataArray {
  enum class Type { Float64, Int32, Int64, UInt8 };
  std::string name;
  Type type = Type::Float64;
  int components = 1;
  std::vector<double> reals;           // Float64
  std::vector<std::int64_t> integers;  // the integer types
  std::size_t Tuples() const {
    return (type == Type::Float64 ? reals.size() : integers.size()) / components;
  }
};

const char* TypeName(DataArray::Type type) {
  switch (type) {
    case DataArray::Type::Float64:
      return "Float64";
    case DataArray::Type::Int32:
      return "Int32";
    case DataArray::Type::Int64:
      return "Int64";
    case DataArray::Type::UInt8:
      return "UInt8";
  }
  return "";
}

// Number of doubles a value flattens to (0 for an empty Vector or Matrix, which
// is what entities without the value hold); -1 for strings.
int ComponentsOf(const Value& value) {
  switch (KindOfValue(value)) {
    case ValueKind::Double:
    case ValueKind::Int:
    case ValueKind::Bool:
      return 1;
    case ValueKind::Array3:
      return 3;
    case ValueKind::Quaternion:
      return 4;
    case ValueKind::Vector:
      return static_cast<int>(std::get<Vector>(value).size());
    case ValueKind::Matrix:
      return static_cast<int>(std::get<Matrix>(value).size());
    case ValueKind::String:
      return -1;
  }
  return -1;
}

// Appends the components of a value, padded with zeros up to `components`.
void AppendFlattened(const Value& value, int components, std::vector<double>& out) {
  const std::size_t start = out.size();
  switch (KindOfValue(value)) {
    case ValueKind::Double:
      out.push_back(std::get<double>(value));
      break;
    case ValueKind::Int:
      out.push_back(std::get<int>(value));
      break;
    case ValueKind::Bool:
      out.push_back(std::get<bool>(value) ? 1.0 : 0.0);
      break;
    case ValueKind::Array3: {
      const Array3& a = std::get<Array3>(value);
      out.insert(out.end(), a.begin(), a.end());
      break;
    }
    case ValueKind::Quaternion: {
      const Quaternion& q = std::get<Quaternion>(value);
      out.insert(out.end(), {q.w, q.x, q.y, q.z});
      break;
    }
    case ValueKind::Vector: {
      const Vector& v = std::get<Vector>(value);
      out.insert(out.end(), v.data(), v.data() + v.size());
      break;
    }
    case ValueKind::Matrix: {
      const Matrix& m = std::get<Matrix>(value);  // row-major storage
      out.insert(out.end(), m.data(), m.data() + m.size());
      break;
    }
    case ValueKind::String:
      break;
  }
  out.resize(start + components, 0.0);
}

// One array of `name` from one value per tuple. Ints and bools become Int32;
// everything else Float64 with as many components as the longest value (values
// of Vector or Matrix variables must all have that length or be empty).
DataArray MakeArray(const std::string& name, const VariableBase& variable,
                    const std::vector<Value>& values, const std::string& where) {
  DataArray array;
  array.name = name;
  const ValueKind kind = variable.IsComponent() ? ValueKind::Double : variable.Kind();
  if (kind == ValueKind::String)
    TESSERA_ERROR("VtkOutput: variable ", variable.Name(), " in ", where,
                  " holds strings, which VTK cannot show; remove it from the list");
  if (kind == ValueKind::Int || kind == ValueKind::Bool) {
    array.type = DataArray::Type::Int32;
    array.integers.reserve(values.size());
    for (const Value& v : values)
      array.integers.push_back(kind == ValueKind::Int ? std::get<int>(v) : std::get<bool>(v));
    return array;
  }
  int components = 0;
  for (const Value& v : values) {
    const int n = ComponentsOf(v);
    if (n != 0 && components != 0 && n != components)
      TESSERA_ERROR("VtkOutput: variable ", variable.Name(), " in ", where,
                    " has values of different sizes (", components, " and ", n,
                    "); a VTK array needs one size");
    components = std::max(components, n);
  }
  array.components = std::max(components, 1);
  array.reals.reserve(values.size() * array.components);
  for (const Value& v : values) AppendFlattened(v, array.components, array.reals);
  return array;
}

// Double and Array3 columns, the bulk of nodal output, are copied directly
// rather than through one type-erased Value per node. False for other kinds.
bool GatherColumn(const DataColumn& column, const VariableBase& variable,
                  const std::vector<IndexType>& points, DataArray& array) {
  array.name = variable.Name();
  if (const auto* c = dynamic_cast<const TypedDataColumn<double>*>(&column)) {
    array.reals.reserve(points.size());
    for (IndexType p : points) array.reals.push_back((*c)[p]);
    return true;
  }
  if (const auto* c = dynamic_cast<const TypedDataColumn<Array3>*>(&column)) {
    if (variable.IsComponent()) {  // DISPLACEMENT_X: one entry of the source's column
      array.reals.reserve(points.size());
      for (IndexType p : points) array.reals.push_back((*c)[p][variable.ComponentIndex()]);
    } else {
      array.components = 3;
      array.reals.reserve(3 * points.size());
      for (IndexType p : points)
        array.reals.insert(array.reals.end(), (*c)[p].begin(), (*c)[p].end());
    }
    return true;
  }
  return false;
}

// ---- the mesh of one model part ------------------------------------------------------------

struct Mesh {
  std::vector<IndexType> points;  // root node positions, in output order
  std::vector<std::int64_t> connectivity, offsets, types;
  std::vector<Entity*> entities;  // one per cell; empty when nodes are written as vertices
  bool entities_are_elements = true;
  bool has_spheres = false;
};

template <class Range>
void AddEntityCells(Range range, std::vector<IndexType>& local, Mesh& mesh) {
  mesh.entities.reserve(range.size());
  for (auto& entity : range) {
    const Geometry& geometry = entity.GetGeometry();
    const GeometryFamily family = geometry.Type().Family();
    mesh.has_spheres = mesh.has_spheres || family == GeometryFamily::Sphere;
    for (std::size_t i = 0; i < geometry.size(); ++i) {
      const IndexType node = geometry.NodeIndex(i);
      if (local[node] == kInvalidIndex) {  // a node the model part does not list
        local[node] = static_cast<IndexType>(mesh.points.size());
        mesh.points.push_back(node);
      }
      mesh.connectivity.push_back(local[node]);
    }
    mesh.offsets.push_back(static_cast<std::int64_t>(mesh.connectivity.size()));
    mesh.types.push_back(VtkCellType(family));
    mesh.entities.push_back(&entity);
  }
}

Mesh BuildMesh(ModelPart& model_part, bool use_elements, bool use_conditions) {
  Mesh mesh;
  const IndexType n_root = static_cast<IndexType>(model_part.Nodal().Size());
  std::vector<IndexType> local(n_root, kInvalidIndex);
  mesh.points = model_part.NodeIndices();
  for (IndexType i = 0; i < mesh.points.size(); ++i) local[mesh.points[i]] = i;
  if (use_elements) {
    AddEntityCells(model_part.Elements(), local, mesh);
  } else if (use_conditions) {
    mesh.entities_are_elements = false;
    AddEntityCells(model_part.Conditions(), local, mesh);
  } else {  // nodes as vertices
    for (IndexType i = 0; i < mesh.points.size(); ++i) {
      mesh.connectivity.push_back(i);
      mesh.offsets.push_back(i + 1);
      mesh.types.push_back(1);
    }
  }
  return mesh;
}

// ---- writing ---------------------------------------------------------------------------------

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void WriteBase64(std::ostream& os, const std::vector<unsigned char>& bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const std::uint32_t v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += kBase64[(v >> 18) & 63];
    out += kBase64[(v >> 12) & 63];
    out += kBase64[(v >> 6) & 63];
    out += kBase64[v & 63];
  }
  if (i < bytes.size()) {
    const bool two = i + 1 < bytes.size();
    const std::uint32_t v = (bytes[i] << 16) | (two ? bytes[i + 1] << 8 : 0);
    out += kBase64[(v >> 18) & 63];
    out += kBase64[(v >> 12) & 63];
    out += two ? kBase64[(v >> 6) & 63] : '=';
    out += '=';
  }
  os << out;
}

template <class T>
void AppendBytes(std::vector<unsigned char>& bytes, T value) {
  unsigned char raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));
  bytes.insert(bytes.end(), raw, raw + sizeof(T));
}

class VtuWriter {
 public:
  VtuWriter(std::ostream& os, bool binary, int precision)
      : os_(os), binary_(binary), precision_(precision) {}

  void Write(const DataArray& array, const char* indent) {
    os_ << indent << "<DataArray type=\"" << TypeName(array.type) << "\" Name=\""
        << Escaped(array.name) << "\"";
    if (array.components != 1) os_ << " NumberOfComponents=\"" << array.components << "\"";
    // Required by readers for FieldData, and a consistency check everywhere else.
    os_ << " NumberOfTuples=\"" << array.Tuples() << "\"";
    os_ << " format=\"" << (binary_ ? "binary" : "ascii") << "\">\n";
    if (binary_)
      WriteBinary(array);
    else
      WriteAscii(array);
    os_ << indent << "</DataArray>\n";
  }

 private:
  void WriteAscii(const DataArray& array) {
    const std::size_t tuples = array.Tuples();
    const int n = array.components;
    if (array.type == DataArray::Type::Float64) {
      os_ << std::scientific << std::setprecision(precision_);
      for (std::size_t t = 0; t < tuples; ++t) {
        for (int c = 0; c < n; ++c) os_ << (c ? " " : "") << array.reals[t * n + c];
        os_ << '\n';
      }
      os_ << std::defaultfloat;
    } else {
      // Integer arrays are short per tuple: many tuples on a line keeps files small.
      const int per_line = n == 1 ? 20 : 1;
      for (std::size_t t = 0; t < tuples; ++t) {
        for (int c = 0; c < n; ++c) os_ << (c ? " " : "") << array.integers[t * n + c];
        os_ << ((t + 1) % per_line == 0 || t + 1 == tuples ? '\n' : ' ');
      }
    }
  }

  // VTK's uncompressed inline binary: base64 of (UInt64 byte count, raw data).
  void WriteBinary(const DataArray& array) {
    std::vector<unsigned char> bytes;
    std::uint64_t size = 0;
    switch (array.type) {
      case DataArray::Type::Float64:
        size = array.reals.size() * 8;
        break;
      case DataArray::Type::Int64:
        size = array.integers.size() * 8;
        break;
      case DataArray::Type::Int32:
        size = array.integers.size() * 4;
        break;
      case DataArray::Type::UInt8:
        size = array.integers.size();
        break;
    }
    bytes.reserve(size + 8);
    AppendBytes(bytes, size);
    switch (array.type) {
      case DataArray::Type::Float64:
        for (double v : array.reals) AppendBytes(bytes, v);
        break;
      case DataArray::Type::Int64:
        for (std::int64_t v : array.integers) AppendBytes(bytes, v);
        break;
      case DataArray::Type::Int32:
        for (std::int64_t v : array.integers) AppendBytes(bytes, static_cast<std::int32_t>(v));
        break;
      case DataArray::Type::UInt8:
        for (std::int64_t v : array.integers) AppendBytes(bytes, static_cast<std::uint8_t>(v));
        break;
    }
    WriteBase64(os_, bytes);
    os_ << '\n';
  }

  std::ostream& os_;
  bool binary_;
  int precision_;
};

DataArray IntegerArray(std::string name, DataArray::Type type, std::vector<std::int64_t> values) {
  DataArray array;
  array.name = std::move(name);
  array.type = type;
  array.integers = std::move(values);
  return array;
}

const VariableBase* ResolveVariable(const std::string& name, const char* key) {
  try {
    return &VariableRegistry::Instance().Get(name);
  } catch (const Error& e) {
    TESSERA_ERROR("VtkOutput setting '", key, "': ", e.what());
  }
}

const Flag* ResolveFlag(const std::string& name, const char* key) {
  if (const Flag* flag = VariableRegistry::Instance().FindFlag(name)) return flag;
  std::string known;
  for (const std::string& n : VariableRegistry::Instance().FlagNames())
    known += (known.empty() ? "" : ", ") + n;
  TESSERA_ERROR("VtkOutput setting '", key, "': unknown flag '", name, "'; known flags: ", known);
}

}  // namespace

// ---- VtkOutput ---------------------------------------------------------------------------------

Parameters VtkOutput::GetDefaultParameters() {
  return Parameters(R"({
    "model_part_name": "",
    "output_control_type": "step",
    "output_interval": 1.0,
    "file_format": "ascii",
    "output_precision": 7,
    "output_sub_model_parts": false,
    "output_path": "VTK_Output",
    "custom_name_prefix": "",
    "custom_name_postfix": "",
    "write_deformed_configuration": false,
    "write_ids": false,
    "entity_type": "automatic",
    "nodal_solution_step_data_variables": [],
    "nodal_data_value_variables": [],
    "nodal_flags": [],
    "element_data_value_variables": [],
    "element_flags": [],
    "condition_data_value_variables": [],
    "condition_flags": [],
    "gauss_point_variables_in_elements": [],
    "gauss_point_variables_extrapolated_to_nodes": []
  })");
}

VtkOutput::VtkOutput(ModelPart& model_part, Parameters settings)
    : model_part_(model_part), settings_(std::move(settings)) {
  settings_.ValidateAndAssignDefaults(GetDefaultParameters());

  output_path_ = settings_.GetString("output_path");
  if (output_path_.empty()) output_path_ = ".";
  const std::string format = settings_.GetString("file_format");
  if (format != "ascii" && format != "binary")
    TESSERA_ERROR("VtkOutput setting 'file_format' is '", format,
                  "'; allowed values: \"ascii\", \"binary\"");
  binary_ = format == "binary";
  precision_ = settings_.GetInt("output_precision");
  if (precision_ < 1 || precision_ > 17)
    TESSERA_ERROR("VtkOutput setting 'output_precision' is ", precision_,
                  "; it must be between 1 and 17 (digits after the point in scientific notation)");
  const std::string control = settings_.GetString("output_control_type");
  if (control != "step" && control != "time")
    TESSERA_ERROR("VtkOutput setting 'output_control_type' is '", control,
                  "'; allowed values: \"step\", \"time\"");
  if (settings_.GetDouble("output_interval") <= 0.0)
    TESSERA_ERROR("VtkOutput setting 'output_interval' must be positive, not ",
                  settings_.GetDouble("output_interval"));
  const std::string entity = settings_.GetString("entity_type");
  if (entity == "automatic")
    entity_type_ = EntityType::Automatic;
  else if (entity == "element")
    entity_type_ = EntityType::Element;
  else if (entity == "condition")
    entity_type_ = EntityType::Condition;
  else
    TESSERA_ERROR("VtkOutput setting 'entity_type' is '", entity,
                  "'; allowed values: \"automatic\", \"element\", \"condition\"");
  write_deformed_ = settings_.GetBool("write_deformed_configuration");
  write_ids_ = settings_.GetBool("write_ids");

  const auto variables = [&](const char* key, std::vector<const VariableBase*>& out) {
    for (const std::string& name : settings_.GetStringArray(key))
      out.push_back(ResolveVariable(name, key));
  };
  variables("nodal_solution_step_data_variables", nodal_historical_);
  variables("nodal_data_value_variables", nodal_non_historical_);
  variables("element_data_value_variables", element_data_);
  variables("condition_data_value_variables", condition_data_);
  variables("gauss_point_variables_in_elements", gauss_point_);
  variables("gauss_point_variables_extrapolated_to_nodes", gauss_point_nodal_);
  const auto flags = [&](const char* key, std::vector<const Flag*>& out) {
    for (const std::string& name : settings_.GetStringArray(key))
      out.push_back(ResolveFlag(name, key));
  };
  flags("nodal_flags", nodal_flags_);
  flags("element_flags", element_flags_);
  flags("condition_flags", condition_flags_);
}

void VtkOutput::PrintOutput() {
  const ProcessInfo& info = model_part_.GetProcessInfo();
  const int step = ValueOf(info, STEP);
  const double time = ValueOf(info, TIME);
  fs::create_directories(output_path_);

  // The model parts to write now; sub model parts created since the last call
  // get a collection of their own.
  std::vector<ModelPart*> parts{&model_part_};
  if (settings_.GetBool("output_sub_model_parts")) {
    for (std::size_t i = 0; i < parts.size(); ++i)
      for (ModelPart* child : parts[i]->SubModelParts()) parts.push_back(child);
  }
  last_files_.clear();
  for (ModelPart* part : parts) {
    const std::string base = settings_.GetString("custom_name_prefix") + BaseNameOf(*part) +
                             settings_.GetString("custom_name_postfix");
    auto it = std::find_if(collections_.begin(), collections_.end(),
                           [&](const Collection& c) { return c.base_name == base; });
    if (it == collections_.end()) {
      collections_.push_back({part, base, {}});
      it = collections_.end() - 1;
    }
    it->model_part = part;
    WriteModelPart(*it, step, time);
    WritePvd(*it);
  }
}

void VtkOutput::WriteModelPart(Collection& collection, int step, double time) {
  ModelPart& part = *collection.model_part;
  NodalDatabase& db = part.Nodal();
  const ProcessInfo& info = part.GetProcessInfo();

  bool use_elements = false, use_conditions = false;
  switch (entity_type_) {
    case EntityType::Automatic:
      use_elements = part.NumberOfElements() > 0;
      use_conditions = !use_elements && part.NumberOfConditions() > 0;
      break;
    case EntityType::Element:
      use_elements = part.NumberOfElements() > 0;
      break;
    case EntityType::Condition:
      use_conditions = part.NumberOfConditions() > 0;
      break;
  }
  const Mesh mesh = BuildMesh(part, use_elements, use_conditions);
  const bool vertices_only = !use_elements && !use_conditions;
  const std::string where = "model part " + part.FullName();

  // ---- point data
  std::vector<DataArray> point_data;
  std::vector<Value> values(mesh.points.size());
  for (const VariableBase* variable : nodal_historical_) {
    if (!db.HasHistoricalVariable(*variable))
      TESSERA_ERROR("VtkOutput: nodal_solution_step_data_variables lists ", variable->Name(),
                    ", which is not a solution-step variable of ", where,
                    " (add it with AddNodalSolutionStepVariable, or list it in "
                    "nodal_data_value_variables)");
    DataArray array;
    if (GatherColumn(db.HistoricalColumnBase(*variable), *variable, mesh.points, array)) {
      point_data.push_back(std::move(array));
      continue;
    }
    for (std::size_t i = 0; i < mesh.points.size(); ++i)
      values[i] = db.GetHistorical(*variable, mesh.points[i]);
    point_data.push_back(MakeArray(variable->Name(), *variable, values, where));
  }
  for (const VariableBase* variable : nodal_non_historical_) {
    DataArray array;
    if (db.HasNonHistoricalColumn(*variable) &&
        GatherColumn(db.NonHistoricalColumnBase(*variable), *variable, mesh.points, array)) {
      point_data.push_back(std::move(array));  // rows never set hold the zero, as Get gives
      continue;
    }
    for (std::size_t i = 0; i < mesh.points.size(); ++i)
      values[i] = db.GetNonHistorical(*variable, mesh.points[i]);
    point_data.push_back(MakeArray(variable->Name(), *variable, values, where));
  }
  // Integration point results extrapolated to the nodes of the part's elements
  // and averaged there (Kratos' IntegrationValuesExtrapolationToNodesProcess,
  // area_average true); nodes of no element show the zero.
  for (const VariableBase* variable : gauss_point_nodal_) {
    const NodalExtrapolation nodal = ExtrapolateIntegrationValuesToNodes(
        part, *variable, true, "VtkOutput: gauss_point_variables_extrapolated_to_nodes");
    for (std::size_t i = 0; i < mesh.points.size(); ++i) values[i] = nodal.values[mesh.points[i]];
    point_data.push_back(MakeArray(variable->Name(), *variable, values,
                                   "gauss_point_variables_extrapolated_to_nodes"));
  }
  for (const Flag* flag : nodal_flags_) {
    std::vector<std::int64_t> set(mesh.points.size());
    for (std::size_t i = 0; i < mesh.points.size(); ++i)
      set[i] = (db.Flags(mesh.points[i]) & flag->Mask()) != 0;
    point_data.push_back(IntegerArray(flag->Name(), DataArray::Type::Int32, std::move(set)));
  }
  // Spheres need their radius as point data for ParaView's glyph filter.
  const bool radius_listed = std::any_of(point_data.begin(), point_data.end(),
                                         [](const DataArray& a) { return a.name == "RADIUS"; });
  const bool nodes_have_radius =
      db.HasHistoricalVariable(RADIUS) || db.HasNonHistoricalColumn(RADIUS);
  if (!radius_listed && (mesh.has_spheres || (vertices_only && nodes_have_radius))) {
    std::vector<double> radii = NodalRadii(part, mesh.points);
    if (mesh.has_spheres) {  // an element's own RADIUS wins over the node's
      for (std::size_t c = 0; c < mesh.entities.size(); ++c) {
        const Entity& entity = *mesh.entities[c];
        if (entity.GetGeometry().Type().Family() == GeometryFamily::Sphere && entity.Has(RADIUS))
          radii[mesh.connectivity[mesh.offsets[c] - 1]] = ValueOf(entity.Data(), RADIUS);
      }
    }
    DataArray array;
    array.name = "RADIUS";
    array.reals = std::move(radii);
    point_data.push_back(std::move(array));
  }
  if (write_ids_) {
    std::vector<std::int64_t> ids(mesh.points.size());
    for (std::size_t i = 0; i < mesh.points.size(); ++i) ids[i] = db.Id(mesh.points[i]);
    point_data.push_back(IntegerArray("NODE_ID", DataArray::Type::Int64, std::move(ids)));
  }

  // ---- cell data (only for entities; vertices made from nodes have none)
  std::vector<DataArray> cell_data;
  if (!vertices_only) {
    const std::size_t n = mesh.entities.size();
    values.assign(n, Value{});
    const auto& data_variables = use_elements ? element_data_ : condition_data_;
    const std::string data_key =
        use_elements ? "element_data_value_variables" : "condition_data_value_variables";
    for (const VariableBase* variable : data_variables) {
      for (std::size_t c = 0; c < n; ++c) values[c] = mesh.entities[c]->Data().GetValue(*variable);
      cell_data.push_back(MakeArray(variable->Name(), *variable, values, data_key));
    }
    for (const VariableBase* variable : gauss_point_) {
      for (std::size_t c = 0; c < n; ++c)
        values[c] = IntegrationPointAverage(*mesh.entities[c], *variable, info,
                                            "VtkOutput: gauss_point_variables_in_elements");
      cell_data.push_back(
          MakeArray(variable->Name(), *variable, values, "gauss_point_variables_in_elements"));
    }
    for (const Flag* flag : use_elements ? element_flags_ : condition_flags_) {
      std::vector<std::int64_t> set(n);
      for (std::size_t c = 0; c < n; ++c) set[c] = mesh.entities[c]->Is(*flag);
      cell_data.push_back(IntegerArray(flag->Name(), DataArray::Type::Int32, std::move(set)));
    }
    if (write_ids_) {
      std::vector<std::int64_t> ids(n), properties(n);
      for (std::size_t c = 0; c < n; ++c) {
        ids[c] = mesh.entities[c]->Id();
        properties[c] =
            mesh.entities[c]->HasProperties() ? mesh.entities[c]->GetProperties().Id() : -1;
      }
      cell_data.push_back(IntegerArray(use_elements ? "ELEMENT_ID" : "CONDITION_ID",
                                       DataArray::Type::Int64, std::move(ids)));
      cell_data.push_back(
          IntegerArray("PROPERTIES_ID", DataArray::Type::Int64, std::move(properties)));
    }
  }

  // ---- geometry arrays
  DataArray points;
  points.name = "Points";
  points.components = 3;
  points.reals.reserve(3 * mesh.points.size());
  for (IndexType node : mesh.points) {
    const Array3& x = write_deformed_ ? db.Coordinates(node) : db.InitialCoordinates(node);
    points.reals.insert(points.reals.end(), x.begin(), x.end());
  }
  const DataArray connectivity =
      IntegerArray("connectivity", DataArray::Type::Int64, mesh.connectivity);
  const DataArray offsets = IntegerArray("offsets", DataArray::Type::Int64, mesh.offsets);
  const DataArray types = IntegerArray("types", DataArray::Type::UInt8, mesh.types);
  DataArray time_value;
  time_value.name = "TimeValue";
  time_value.reals = {time};

  // ---- the file
  const std::string file_name = collection.base_name + "_" + std::to_string(step) + ".vtu";
  const fs::path path = fs::path(output_path_) / file_name;
  std::ofstream os(path, std::ios::binary);
  if (!os) TESSERA_ERROR("VtkOutput: cannot open ", path.string(), " for writing");
  const char* byte_order =
      std::endian::native == std::endian::little ? "LittleEndian" : "BigEndian";
  os << "<?xml version=\"1.0\"?>\n"
     << "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"" << byte_order
     << "\" header_type=\"UInt64\">\n"
     << "  <UnstructuredGrid>\n";
  VtuWriter writer(os, binary_, precision_);
  // TimeValue field data lets ParaView place a lone .vtu in time as well.
  os << "    <FieldData>\n";
  writer.Write(time_value, "      ");
  os << "    </FieldData>\n";
  os << "    <Piece NumberOfPoints=\"" << mesh.points.size() << "\" NumberOfCells=\""
     << mesh.types.size() << "\">\n";
  os << "      <Points>\n";
  writer.Write(points, "        ");
  os << "      </Points>\n";
  os << "      <Cells>\n";
  writer.Write(connectivity, "        ");
  writer.Write(offsets, "        ");
  writer.Write(types, "        ");
  os << "      </Cells>\n";
  os << "      <PointData>\n";
  for (const DataArray& array : point_data) writer.Write(array, "        ");
  os << "      </PointData>\n";
  os << "      <CellData>\n";
  for (const DataArray& array : cell_data) writer.Write(array, "        ");
  os << "      </CellData>\n";
  os << "    </Piece>\n"
     << "  </UnstructuredGrid>\n"
     << "</VTKFile>\n";
  os.close();
  if (!os) TESSERA_ERROR("VtkOutput: writing ", path.string(), " failed");
  last_files_.push_back(path.string());

  auto entry = std::find_if(collection.steps.begin(), collection.steps.end(),
                            [&](const auto& s) { return s.second == file_name; });
  if (entry != collection.steps.end())
    entry->first = time;
  else
    collection.steps.emplace_back(time, file_name);
}

void VtkOutput::WritePvd(const Collection& collection) const {
  // Written to a temporary and renamed over the old one, so that a run killed
  // mid-write still leaves the previous, valid collection.
  const fs::path path = fs::path(output_path_) / (collection.base_name + ".pvd");
  const fs::path temporary = fs::path(path.string() + ".tmp");
  {
    std::ofstream os(temporary);
    if (!os) TESSERA_ERROR("VtkOutput: cannot open ", temporary.string(), " for writing");
    os << "<?xml version=\"1.0\"?>\n"
       << "<VTKFile type=\"Collection\" version=\"1.0\">\n"
       << "  <Collection>\n";
    for (const auto& [time, file] : collection.steps)
      os << "    <DataSet timestep=\"" << ExactDouble(time) << "\" group=\"\" part=\"0\" file=\""
         << Escaped(file) << "\"/>\n";
    os << "  </Collection>\n"
       << "</VTKFile>\n";
    os.close();
    if (!os) TESSERA_ERROR("VtkOutput: writing ", temporary.string(), " failed");
  }
  fs::rename(temporary, path);
}

}  // namespace tessera
