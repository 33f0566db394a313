// GidOutput: the GiD ASCII .post.msh and .post.res writers.
#include "kernel/io/gid_output.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>

#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/core/variable_registry.h"
#include "kernel/io/integration_point_average.h"
#include "kernel/model/model_part.h"

namespace tessera {

namespace {

namespace fs = std::filesystem;

// Reads through the type-erased accessor, which serves every value kind alike.
template <class T>
T ValueOf(const DataValueContainer& data, const Variable<T>& variable) {
  return std::get<T>(data.GetValue(static_cast<const VariableBase&>(variable)));
}

constexpr GeometryFamily kFamilies[] = {GeometryFamily::Point,       GeometryFamily::Line,
                                        GeometryFamily::Triangle,    GeometryFamily::Quadrilateral,
                                        GeometryFamily::Tetrahedron, GeometryFamily::Hexahedron,
                                        GeometryFamily::Sphere};

const char* GidElementType(GeometryFamily family) {
  switch (family) {
    case GeometryFamily::Point:
      return "Point";
    case GeometryFamily::Line:
      return "Linear";
    case GeometryFamily::Triangle:
      return "Triangle";
    case GeometryFamily::Quadrilateral:
      return "Quadrilateral";
    case GeometryFamily::Tetrahedron:
      return "Tetrahedra";
    case GeometryFamily::Hexahedron:
      return "Hexahedra";
    case GeometryFamily::Sphere:
      return "Sphere";
  }
  return "";
}

// Shortest text that reads back as the same double: results keep full precision.
std::string Num(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

const VariableBase* ResolveVariable(const std::string& name, const char* key) {
  try {
    return &VariableRegistry::Instance().Get(name);
  } catch (const Error& e) {
    TESSERA_ERROR("GidOutput setting '", key, "': ", e.what());
  }
}

enum class ResultType { Scalar, Vector, Matrix };

ValueKind KindOf(const VariableBase& variable) {
  return variable.IsComponent() ? ValueKind::Double : variable.Kind();
}

ResultType ResultTypeOf(const VariableBase& variable, const char* key) {
  switch (KindOf(variable)) {
    case ValueKind::Double:
    case ValueKind::Int:
    case ValueKind::Bool:
      return ResultType::Scalar;
    case ValueKind::Array3:
      return ResultType::Vector;
    case ValueKind::Vector:
    case ValueKind::Matrix:
      return ResultType::Matrix;
    default:
      TESSERA_ERROR("GidOutput setting '", key, "': ", variable.Name(), " holds ",
                    ValueKindName(KindOf(variable)),
                    ", which GiD cannot show; results are double, int, bool, Array3, Vector or "
                    "Matrix");
  }
}

// Writes " v1 v2 ..." for one value in the layout of its GiD result type.
void WriteValue(std::ostream& os, const Value& value, const VariableBase& variable) {
  switch (KindOfValue(value)) {
    case ValueKind::Double:
      os << ' ' << Num(std::get<double>(value));
      return;
    case ValueKind::Int:
      os << ' ' << std::get<int>(value);
      return;
    case ValueKind::Bool:
      os << ' ' << (std::get<bool>(value) ? 1 : 0);
      return;
    case ValueKind::Array3:
      for (double v : std::get<Array3>(value)) os << ' ' << Num(v);
      return;
    case ValueKind::Vector: {
      // Voigt order of the kernel (xx, yy, zz, xy, yz, xz) is GiD's Matrix order;
      // a plane one (xx, yy, xy) is spread out; an empty one (no value) is zero.
      const Vector& v = std::get<Vector>(value);
      double m[6] = {0, 0, 0, 0, 0, 0};
      if (v.size() == 6) {
        for (int i = 0; i < 6; ++i) m[i] = v[i];
      } else if (v.size() == 3) {
        m[0] = v[0], m[1] = v[1], m[3] = v[2];
      } else if (v.size() != 0) {
        TESSERA_ERROR("GidOutput: ", variable.Name(), " has a value of size ", v.size(),
                      "; GiD matrix results need 6 (xx, yy, zz, xy, yz, xz) or 3 (xx, yy, xy)");
      }
      for (double x : m) os << ' ' << Num(x);
      return;
    }
    case ValueKind::Matrix: {
      const Matrix& a = std::get<Matrix>(value);
      double m[6] = {0, 0, 0, 0, 0, 0};
      const Eigen::Index n = a.rows();
      if (n != a.cols() || n > 3 || n == 1)
        TESSERA_ERROR("GidOutput: ", variable.Name(), " has a ", a.rows(), "x", a.cols(),
                      " value; GiD matrix results need 2x2 or 3x3");
      if (n >= 2) {  // the symmetric part
        m[0] = a(0, 0), m[1] = a(1, 1), m[3] = 0.5 * (a(0, 1) + a(1, 0));
      }
      if (n == 3) {
        m[2] = a(2, 2), m[4] = 0.5 * (a(1, 2) + a(2, 1)), m[5] = 0.5 * (a(0, 2) + a(2, 0));
      }
      for (double x : m) os << ' ' << Num(x);
      return;
    }
    default:
      TESSERA_ERROR("GidOutput: ", variable.Name(), " cannot be written as a GiD result");
  }
}

void WriteResultHeader(std::ostream& os, const VariableBase& variable, ResultType type,
                       const std::string& label, const std::string& location) {
  static const char* names[] = {"Scalar", "Vector", "Matrix"};
  os << "Result \"" << variable.Name() << "\" \"Kratos\" " << label << ' '
     << names[static_cast<int>(type)] << ' ' << location << '\n';
  if (type == ResultType::Vector) os << "ComponentNames \"X\", \"Y\", \"Z\"\n";
  if (type == ResultType::Matrix)
    os << "ComponentNames \"XX\", \"YY\", \"ZZ\", \"XY\", \"YZ\", \"XZ\"\n";
  os << "Values\n";
}

// The nodes to write: the model part's, then any node its written entities use
// that it does not list.
std::vector<IndexType> OutputNodes(ModelPart& model_part, bool conditions) {
  std::vector<IndexType> nodes = model_part.NodeIndices();
  std::vector<std::uint8_t> listed(model_part.Nodal().Size(), 0);
  for (IndexType i : nodes) listed[i] = 1;
  const auto add = [&](const Entity& entity) {
    const Geometry& g = entity.GetGeometry();
    for (std::size_t i = 0; i < g.size(); ++i)
      if (!listed[g.NodeIndex(i)]) {
        listed[g.NodeIndex(i)] = 1;
        nodes.push_back(g.NodeIndex(i));
      }
  };
  for (const Element& e : model_part.Elements()) add(e);
  if (conditions)
    for (const Condition& c : model_part.Conditions()) add(c);
  return nodes;
}

double NodalRadius(NodalDatabase& db, IndexType node) {
  if (db.HasHistoricalVariable(RADIUS)) return db.Historical(RADIUS, node);
  if (db.HasNonHistoricalColumn(RADIUS)) return std::get<double>(db.GetNonHistorical(RADIUS, node));
  return 0.0;
}

std::ofstream Open(const std::string& path, std::ios::openmode mode) {
  std::ofstream os(path, mode);
  if (!os) TESSERA_ERROR("GidOutput: cannot open ", path, " for writing");
  return os;
}

void Close(std::ofstream& os, const std::string& path) {
  os.close();
  if (!os) TESSERA_ERROR("GidOutput: writing ", path, " failed");
}

}  // namespace

Parameters GidOutput::GetDefaultParameters() {
  return Parameters(R"({
    "model_part_name": "",
    "output_path": ".",
    "output_name": "",
    "file_label": "step",
    "multiple_files": false,
    "write_deformed_mesh": false,
    "write_conditions": true,
    "nodal_results": [],
    "nodal_nonhistorical_results": [],
    "gauss_point_results": []
  })");
}

GidOutput::GidOutput(ModelPart& model_part, Parameters settings)
    : model_part_(model_part), settings_(std::move(settings)) {
  settings_.ValidateAndAssignDefaults(GetDefaultParameters());
  output_path_ = settings_.GetString("output_path");
  if (output_path_.empty()) output_path_ = ".";
  output_name_ = settings_.GetString("output_name");
  if (output_name_.empty()) {
    output_name_ = model_part.FullName();
    std::replace(output_name_.begin(), output_name_.end(), '.', '_');
  }
  const std::string label = settings_.GetString("file_label");
  if (label != "step" && label != "time")
    TESSERA_ERROR("GidOutput setting 'file_label' is '", label,
                  "'; allowed values: \"step\", \"time\"");
  time_label_ = label == "time";
  multiple_files_ = settings_.GetBool("multiple_files");
  write_deformed_ = settings_.GetBool("write_deformed_mesh");
  write_conditions_ = settings_.GetBool("write_conditions");
  const auto variables = [&](const char* key, std::vector<const VariableBase*>& out) {
    for (const std::string& name : settings_.GetStringArray(key)) {
      out.push_back(ResolveVariable(name, key));
      ResultTypeOf(*out.back(), key);  // fails now for types GiD cannot show
    }
  };
  variables("nodal_results", nodal_historical_);
  variables("nodal_nonhistorical_results", nodal_non_historical_);
  variables("gauss_point_results", gauss_point_);
  const fs::path base = fs::path(output_path_) / output_name_;
  mesh_file_ = base.string() + ".post.msh";
  result_file_ = base.string() + ".post.res";
}

void GidOutput::PrintOutput() {
  const ProcessInfo& info = model_part_.GetProcessInfo();
  const std::string label =
      time_label_ ? Num(ValueOf(info, TIME)) : std::to_string(ValueOf(info, STEP));
  // Fail before writing anything if a listed variable is not stored historically.
  for (const VariableBase* variable : nodal_historical_)
    if (!model_part_.Nodal().HasHistoricalVariable(*variable))
      TESSERA_ERROR("GidOutput: nodal_results lists ", variable->Name(),
                    ", which is not a solution-step variable of model part ",
                    model_part_.FullName(),
                    " (add it with AddNodalSolutionStepVariable, or list it in "
                    "nodal_nonhistorical_results)");
  fs::create_directories(output_path_);
  if (multiple_files_) {
    const fs::path base = fs::path(output_path_) / (output_name_ + "_" + label);
    mesh_file_ = base.string() + ".post.msh";
    result_file_ = base.string() + ".post.res";
    WriteMesh(mesh_file_);
    StartResultFile(result_file_);
  } else if (!mesh_written_) {
    WriteMesh(mesh_file_);
    StartResultFile(result_file_);
    mesh_written_ = true;
  }
  WriteResults(result_file_, label);
}

void GidOutput::WriteMesh(const std::string& path) {
  NodalDatabase& db = model_part_.Nodal();
  std::ofstream os = Open(path, std::ios::out | std::ios::trunc);
  const std::vector<IndexType> nodes = OutputNodes(model_part_, write_conditions_);
  bool coordinates_written = false;

  const auto begin_block = [&](const std::string& name, GeometryFamily family, int nnode) {
    os << "MESH \"" << name << "\" dimension 3 ElemType " << GidElementType(family) << " Nnode "
       << nnode << "\n";
    os << "Coordinates\n";
    if (!coordinates_written) {  // shared by all blocks
      for (IndexType node : nodes) {
        const Array3& x = write_deformed_ ? db.Coordinates(node) : db.InitialCoordinates(node);
        os << db.Id(node) << ' ' << Num(x[0]) << ' ' << Num(x[1]) << ' ' << Num(x[2]) << '\n';
      }
      coordinates_written = true;
    }
    os << "End Coordinates\n";
    os << "Elements\n";
  };
  const auto end_block = [&] { os << "End Elements\n\n"; };

  // One block per family of the entities in `range`, in a fixed family order.
  const auto write_entities = [&](auto range, const std::string& suffix, bool record) {
    for (GeometryFamily family : kFamilies) {
      bool started = false;
      for (const auto& entity : range) {
        const Geometry& g = entity.GetGeometry();
        if (g.Type().Family() != family) continue;
        const std::string name = output_name_ + "_" + GidElementType(family) + suffix;
        if (!started) {
          begin_block(name, family, static_cast<int>(g.size()));
          if (record) element_meshes_.emplace_back(family, name);
          started = true;
        }
        os << entity.Id();
        for (std::size_t i = 0; i < g.size(); ++i) os << ' ' << db.Id(g.NodeIndex(i));
        if (family == GeometryFamily::Sphere) {
          const double radius =
              entity.Has(RADIUS) ? ValueOf(entity.Data(), RADIUS) : NodalRadius(db, g.NodeIndex(0));
          os << ' ' << Num(radius);
        }
        os << ' ' << (entity.HasProperties() ? entity.GetProperties().Id() : 0) << '\n';
      }
      if (started) end_block();
    }
  };

  element_meshes_.clear();
  write_entities(model_part_.Elements(), "", true);
  if (write_conditions_) write_entities(model_part_.Conditions(), "_conditions", false);
  if (model_part_.NumberOfElements() == 0 &&
      (!write_conditions_ || model_part_.NumberOfConditions() == 0)) {
    // Nodes only: GiD shows nothing without elements, so each node becomes one.
    const bool spheres = db.HasHistoricalVariable(RADIUS) || db.HasNonHistoricalColumn(RADIUS);
    const GeometryFamily family = spheres ? GeometryFamily::Sphere : GeometryFamily::Point;
    begin_block(output_name_ + "_" + GidElementType(family), family, 1);
    for (IndexType node : nodes) {
      os << db.Id(node) << ' ' << db.Id(node);
      if (spheres) os << ' ' << Num(NodalRadius(db, node));
      os << " 0\n";
    }
    end_block();
  }
  Close(os, path);
}

void GidOutput::StartResultFile(const std::string& path) {
  std::ofstream os = Open(path, std::ios::out | std::ios::trunc);
  os << "GiD Post Results File 1.0\n\n";
  if (!gauss_point_.empty()) {
    for (const auto& [family, mesh] : element_meshes_) {
      os << "GaussPoints \"" << mesh << "_gp\" ElemType " << GidElementType(family) << " \"" << mesh
         << "\"\n"
         << "Number Of Gauss Points: 1\n"
         << "Natural Coordinates: Internal\n"
         << "End GaussPoints\n\n";
    }
  }
  Close(os, path);
}

void GidOutput::WriteResults(const std::string& path, const std::string& label) {
  NodalDatabase& db = model_part_.Nodal();
  std::ofstream os = Open(path, std::ios::out | std::ios::app);
  const std::vector<IndexType> nodes = OutputNodes(model_part_, write_conditions_);

  const auto nodal = [&](const std::vector<const VariableBase*>& variables, bool historical,
                         const char* key) {
    for (const VariableBase* variable : variables) {
      WriteResultHeader(os, *variable, ResultTypeOf(*variable, key), label, "OnNodes");
      for (IndexType node : nodes) {
        os << db.Id(node);
        WriteValue(
            os,
            historical ? db.GetHistorical(*variable, node) : db.GetNonHistorical(*variable, node),
            *variable);
        os << '\n';
      }
      os << "End Values\n\n";
    }
  };
  nodal(nodal_historical_, true, "nodal_results");
  nodal(nodal_non_historical_, false, "nodal_nonhistorical_results");

  const ProcessInfo& info = model_part_.GetProcessInfo();
  for (const VariableBase* variable : gauss_point_) {
    const ResultType type = ResultTypeOf(*variable, "gauss_point_results");
    for (const auto& [family, mesh] : element_meshes_) {
      WriteResultHeader(os, *variable, type, label, "OnGaussPoints \"" + mesh + "_gp\"");
      for (Element& element : model_part_.Elements()) {
        if (element.GetGeometry().Type().Family() != family) continue;
        os << element.Id();
        WriteValue(os,
                   IntegrationPointAverage(element, *variable, info,
                                           "GidOutput setting 'gauss_point_results'"),
                   *variable);
        os << '\n';
      }
      os << "End Values\n\n";
    }
  }
  Close(os, path);
}

}  // namespace tessera
