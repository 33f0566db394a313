// The .mdpa writer: builds the whole text in one string with std::to_chars
// (no iostreams) and writes it with one fwrite.
#include "kernel/io/mdpa_writer.h"

#include <array>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <map>
#include <typeindex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "kernel/core/variable_registry.h"
#include "kernel/geometries/geometry_type.h"
#include "kernel/model/model_part.h"
#include "kernel/registry/registry.h"

namespace tessera {
namespace {

template <class T>
std::string FindRegisteredName(const T& entity) {
  constexpr bool is_element = std::is_same_v<T, Element>;
  const Registry& registry = Registry::Instance();
  const GeometryType* type = entity.GetGeometry().TypePointer();
  // Names come sorted (the registry is a std::map), so the first match is the
  // alphabetically first when an application registers aliases.
  for (const std::string& name : is_element ? registry.ElementNames() : registry.ConditionNames()) {
    const T* prototype;
    const GeometryType* prototype_type;
    if constexpr (is_element) {
      prototype = registry.ElementPrototype(name);
      prototype_type = &registry.ElementGeometry(name);
    } else {
      prototype = registry.ConditionPrototype(name);
      prototype_type = &registry.ConditionGeometry(name);
    }
    if (prototype && typeid(*prototype) == typeid(entity) && prototype_type == type) return name;
  }
  TESSERA_ERROR("no registered ", is_element ? "element" : "condition", " name for ", entity.Info(),
                " (C++ class ", typeid(entity).name(), ", geometry ",
                type ? std::string(type->Name()) : std::string("none"),
                "): it cannot be written to an .mdpa file");
}

// Names by (class, geometry type): one registry scan per kind of entity.
template <class T>
class NameCache {
 public:
  const std::string& Of(const T& entity) {
    const Key key{std::type_index(typeid(entity)), entity.GetGeometry().TypePointer()};
    auto it = names_.find(key);
    if (it == names_.end()) it = names_.emplace(key, FindRegisteredName(entity)).first;
    return it->second;
  }

 private:
  using Key = std::pair<std::type_index, const GeometryType*>;
  std::map<Key, std::string> names_;
};

bool IsZero(const Value& value) {
  return std::visit(
      [](const auto& v) -> bool {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, double>)
          return v == 0.0;
        else if constexpr (std::is_same_v<T, int>)
          return v == 0;
        else if constexpr (std::is_same_v<T, bool>)
          return !v;
        else if constexpr (std::is_same_v<T, Array3>)
          return v[0] == 0 && v[1] == 0 && v[2] == 0;
        else if constexpr (std::is_same_v<T, Vector>)
          return v.size() == 0;
        else if constexpr (std::is_same_v<T, Matrix>)
          return v.size() == 0;
        else if constexpr (std::is_same_v<T, std::string>)
          return v.empty();
        else
          return v == Quaternion{};
      },
      value);
}

class Writer {
 public:
  explicit Writer(ModelPart& model_part) : mp_(model_part), db_(model_part.Nodal()) {}

  std::string Run() {
    out_.reserve(256 + 64 * mp_.NumberOfNodes() + 80 * mp_.NumberOfElements() +
                 48 * mp_.NumberOfConditions());
    out_ += "// Written by Tessera's MdpaWriter\n\n";
    WriteDataBlock("ModelPartData", mp_.Data(), "", true);
    WriteTables();
    WriteProperties();
    WriteNodes();
    WriteGeometries();
    WriteEntities<Element>("Elements", mp_.Elements(), element_names_);
    WriteEntities<Condition>("Conditions", mp_.Conditions(), condition_names_);
    WriteConstraints();
    WriteNodalData();
    WriteEntityData<Element>("ElementalData", mp_.Elements());
    WriteEntityData<Condition>("ConditionalData", mp_.Conditions());
    for (ModelPart* child : mp_.SubModelParts()) WriteSubModelPart(*child, "");
    return std::move(out_);
  }

 private:
  // ------------------------------------------------------------------ formatting
  void Int(long long v) {
    char buffer[24];
    const auto r = std::to_chars(buffer, buffer + sizeof buffer, v);
    out_.append(buffer, r.ptr);
  }
  void Double(double v) {
    char buffer[32];
    // Shortest text that reads back to the same double.
    const auto r = std::to_chars(buffer, buffer + sizeof buffer, v);
    out_.append(buffer, r.ptr);
  }
  void Space() { out_ += ' '; }
  void Line() { out_ += '\n'; }
  void DoubleList(const double* v, std::size_t n) {
    out_ += '(';
    for (std::size_t i = 0; i < n; ++i) {
      if (i) out_ += ", ";
      Double(v[i]);
    }
    out_ += ')';
  }
  void String(const std::string& s) {
    bool bare = !s.empty() && s[0] != '"' && s.find("//") == std::string::npos;
    for (char c : s) {
      if (c == '\n') TESSERA_ERROR("cannot write a string value with a line break: '", s, "'");
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') bare = false;
    }
    if (bare) {
      out_ += s;
      return;
    }
    if (s.find('"') != std::string::npos)
      TESSERA_ERROR("cannot write the string value '", s,
                    "': it needs quotes (blanks, '//' or empty) and contains '\"'");
    out_ += '"';
    out_ += s;
    out_ += '"';
  }
  void WriteValue(const Value& value) {
    std::visit(
        [this](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, double>) {
            Double(v);
          } else if constexpr (std::is_same_v<T, int>) {
            Int(v);
          } else if constexpr (std::is_same_v<T, bool>) {
            out_ += v ? "true" : "false";
          } else if constexpr (std::is_same_v<T, Array3>) {
            out_ += "[3]";
            DoubleList(v.data, 3);
          } else if constexpr (std::is_same_v<T, Vector>) {
            out_ += '[';
            Int(v.size());
            out_ += ']';
            DoubleList(v.data(), static_cast<std::size_t>(v.size()));
          } else if constexpr (std::is_same_v<T, Matrix>) {
            out_ += '[';
            Int(v.rows());
            out_ += ',';
            Int(v.cols());
            out_ += "](";
            for (Eigen::Index i = 0; i < v.rows(); ++i) {
              if (i) out_ += ',';
              DoubleList(v.data() + i * v.cols(), static_cast<std::size_t>(v.cols()));
            }
            out_ += ')';
          } else if constexpr (std::is_same_v<T, std::string>) {
            String(v);
          } else {
            const double q[4] = {v.w, v.x, v.y, v.z};
            out_ += "[4]";
            DoubleList(q, 4);
          }
        },
        value);
  }
  const std::string& VariableName(std::uint32_t id) const {
    return VariableRegistry::Instance().ById(id).Name();
  }
  IdType NodeId(IndexType i) const { return db_.Id(i); }

  // ------------------------------------------------------------------ blocks
  void WriteDataBlock(const char* kind, const DataValueContainer& data, const std::string& indent,
                      bool skip_if_empty) {
    if (skip_if_empty && data.Empty()) return;
    out_ += indent + "Begin " + kind + "\n";
    for (const auto& [id, value] : data.Entries()) {
      out_ += indent + "  " + VariableName(id) + ' ';
      WriteValue(value);
      Line();
    }
    out_ += indent + "End " + kind + "\n\n";
  }

  void WriteTableRows(const Table& table, const std::string& indent) {
    for (std::size_t i = 0; i < table.Size(); ++i) {
      out_ += indent;
      Double(table.X()[i]);
      Space();
      Double(table.Y()[i]);
      Line();
    }
  }

  void WriteTables() {
    for (IdType id : mp_.TableIds()) {
      const Table& table = mp_.GetTable(id);
      out_ += "Begin Table ";
      Int(id);
      if (!table.XName().empty()) out_ += ' ' + table.XName() + ' ' + table.YName();
      Line();
      WriteTableRows(table, "  ");
      out_ += "End Table\n\n";
    }
  }

  void WriteProperties() {
    for (const Properties::Pointer& p : mp_.PropertiesList()) {
      out_ += "Begin Properties ";
      Int(p->Id());
      Line();
      for (const auto& [id, value] : p->Data().Entries()) {
        out_ += "  " + VariableName(id) + ' ';
        WriteValue(value);
        Line();
      }
      for (const auto& [xy, table] : p->Tables()) {
        out_ += "  Begin Table " + VariableName(xy.first) + ' ' + VariableName(xy.second) + '\n';
        WriteTableRows(table, "    ");
        out_ += "  End Table\n";
      }
      out_ += "End Properties\n\n";
    }
  }

  void WriteNodes() {
    out_ += "Begin Nodes\n";
    for (IndexType i : mp_.NodeIndices()) {
      const Array3& x = db_.Coordinates(i);
      Int(db_.Id(i));
      Space();
      Double(x[0]);
      Space();
      Double(x[1]);
      Space();
      Double(x[2]);
      Line();
    }
    out_ += "End Nodes\n\n";
  }

  void WriteConnectivity(const Geometry& g) {
    for (std::size_t k = 0; k < g.size(); ++k) {
      Space();
      Int(NodeId(g.NodeIndex(k)));
    }
    Line();
  }

  void WriteGeometries() {
    const GeometryType* open = nullptr;
    for (IndexType index : mp_.GeometryIndices()) {
      const Geometry& g = mp_.GeometryAt(index);
      if (g.TypePointer() != open) {
        if (open) out_ += "End Geometries\n\n";
        open = g.TypePointer();
        out_ += "Begin Geometries ";
        out_ += open->Name();
        Line();
      }
      Int(mp_.GeometryId(index));
      WriteConnectivity(g);
    }
    if (open) out_ += "End Geometries\n\n";
  }

  // Consecutive entities of the same registered name share one block.
  template <class T, class Range>
  void WriteEntities(const char* kind, Range range, NameCache<T>& names) {
    const std::string* open = nullptr;
    for (const T& entity : range) {
      const std::string& name = names.Of(entity);
      if (!open || *open != name) {
        if (open) out_ += std::string("End ") + kind + "\n\n";
        open = &name;
        out_ += std::string("Begin ") + kind + ' ' + name + '\n';
      }
      Int(entity.Id());
      Space();
      Int(entity.HasProperties() ? entity.GetPropertiesPointer()->Id() : 0);
      WriteConnectivity(entity.GetGeometry());
    }
    if (open) out_ += std::string("End ") + kind + "\n\n";
  }

  void WriteConstraints() {
    const MasterSlaveConstraint* open = nullptr;
    for (IndexType index : mp_.MasterSlaveConstraintIndices()) {
      const MasterSlaveConstraint& c = mp_.MasterSlaveConstraintAt(index);
      if (!open || open->type != c.type || open->variable != c.variable) {
        if (open) out_ += "End Constraints\n\n";
        open = &c;
        out_ += "Begin Constraints " + c.type + ' ' + c.variable->Name() + '\n';
      }
      Int(c.id);
      Space();
      Double(c.constant);
      out_ += " [";
      Int(static_cast<long long>(c.weights.size()));
      out_ += ']';
      DoubleList(c.weights.data(), c.weights.size());
      Space();
      Int(NodeId(c.slave));
      for (IndexType m : c.masters) {
        Space();
        Int(NodeId(m));
      }
      Line();
    }
    if (open) out_ += "End Constraints\n\n";
  }

  // ------------------------------------------------------------------ nodal data
  // `id fixed value` for a scalar or component: the nodes where it is set
  // (non-zero when historical) or fixed.
  void WriteScalarNodalData(const VariableBase& variable, bool historical) {
    const auto& scalar = static_cast<const Variable<double>&>(variable);
    const DofColumn* dofs = db_.FindDofColumn(variable);
    const std::size_t start = out_.size();
    out_ += "Begin NodalData " + variable.Name() + '\n';
    bool any = false;
    for (IndexType i : mp_.NodeIndices()) {
      const bool fixed = dofs && dofs->fixed[i];
      double value = 0.0;
      bool set;
      if (historical) {
        value = db_.Historical(scalar, i);
        set = value != 0.0;
      } else {
        set = db_.HasNonHistorical(variable, i);
        if (set) value = db_.NonHistorical(scalar, i);
      }
      if (!set && !fixed) continue;
      any = true;
      Int(db_.Id(i));
      out_ += fixed ? " 1 " : " 0 ";
      Double(value);
      Line();
    }
    if (!any) {
      out_.resize(start);
      return;
    }
    out_ += "End NodalData\n\n";
  }

  // `id 0 value` for any other kind.
  void WriteValueNodalData(const VariableBase& variable, bool historical) {
    const std::size_t start = out_.size();
    out_ += "Begin NodalData " + variable.Name() + '\n';
    bool any = false;
    for (IndexType i : mp_.NodeIndices()) {
      Value value;
      if (historical) {
        value = db_.GetHistorical(variable, i);
        if (IsZero(value)) continue;
      } else {
        if (!db_.HasNonHistorical(variable, i)) continue;
        value = db_.GetNonHistorical(variable, i);
      }
      any = true;
      Int(db_.Id(i));
      out_ += " 0 ";
      WriteValue(value);
      Line();
    }
    if (!any) {
      out_.resize(start);
      return;
    }
    out_ += "End NodalData\n\n";
  }

  void WriteNodalData() {
    const VariableRegistry& registry = VariableRegistry::Instance();
    std::unordered_map<const VariableBase*, std::array<const VariableBase*, 3>> components;
    for (std::uint32_t id = 0; id < registry.Size(); ++id) {
      const VariableBase& v = registry.ById(id);
      if (v.IsComponent() && v.ComponentIndex() >= 0 && v.ComponentIndex() < 3)
        components[v.Source()][v.ComponentIndex()] = &v;
    }
    auto dof_components = [&](const VariableBase& v) -> const std::array<const VariableBase*, 3>* {
      auto it = components.find(&v);
      if (it == components.end()) return nullptr;
      for (const VariableBase* c : it->second)
        if (!c) return nullptr;
      for (const VariableBase* c : it->second)
        if (db_.FindDofColumn(*c)) return &it->second;
      return nullptr;
    };
    std::unordered_set<const VariableBase*> written;
    for (const VariableBase* v : db_.HistoricalVariables()) {
      if (v->Kind() == ValueKind::Double) {
        WriteScalarNodalData(*v, true);
        written.insert(v);
      } else if (const auto* comps =
                     v->Kind() == ValueKind::Array3 ? dof_components(*v) : nullptr) {
        for (const VariableBase* c : *comps) {
          WriteScalarNodalData(*c, true);
          written.insert(c);
        }
      } else {
        WriteValueNodalData(*v, true);
      }
    }
    for (std::uint32_t id = 0; id < registry.Size(); ++id) {
      const VariableBase& v = registry.ById(id);
      // A variable both historical and non-historical cannot be told apart in
      // .mdpa (the reader picks by the model part's solution-step variables).
      if (v.IsComponent() || !db_.HasNonHistoricalColumn(v) || db_.HasHistoricalVariable(v))
        continue;
      if (v.Kind() == ValueKind::Double) {
        WriteScalarNodalData(v, false);
        written.insert(&v);
      } else {
        WriteValueNodalData(v, false);
      }
    }
    // Fixed degrees of freedom of variables that hold no value of their own
    // (e.g. a component of a non-historical vector): `id 1 value`.
    for (const DofColumn& dofs : db_.DofColumns()) {
      if (written.count(dofs.variable)) continue;
      const std::size_t start = out_.size();
      out_ += "Begin NodalData " + dofs.variable->Name() + '\n';
      bool any = false;
      for (IndexType i : mp_.NodeIndices()) {
        if (!dofs.fixed[i]) continue;
        any = true;
        Int(db_.Id(i));
        out_ += " 1 ";
        WriteValue(db_.GetNonHistorical(*dofs.variable, i));
        Line();
      }
      if (any)
        out_ += "End NodalData\n\n";
      else
        out_.resize(start);
    }
    for (const std::string& name : registry.FlagNames()) {
      const FlagWord mask = registry.FindFlag(name)->Mask();
      const std::size_t start = out_.size();
      out_ += "Begin NodalData " + name + '\n';
      bool any = false;
      for (IndexType i : mp_.NodeIndices()) {
        if (!(db_.Flags(i) & mask)) continue;
        any = true;
        Int(db_.Id(i));
        Line();
      }
      if (any)
        out_ += "End NodalData\n\n";
      else
        out_.resize(start);
    }
  }

  template <class T, class Range>
  void WriteEntityData(const char* kind, Range range) {
    // Variables in order of first appearance, each with its (entity, value) rows.
    std::vector<std::uint32_t> order;
    std::unordered_map<std::uint32_t, std::vector<std::pair<IdType, const Value*>>> rows;
    for (const T& entity : range) {
      for (const auto& [id, value] : entity.Data().Entries()) {
        auto [it, inserted] = rows.try_emplace(id);
        if (inserted) order.push_back(id);
        it->second.emplace_back(entity.Id(), &value);
      }
    }
    for (std::uint32_t id : order) {
      out_ += std::string("Begin ") + kind + ' ' + VariableName(id) + '\n';
      for (const auto& [entity_id, value] : rows[id]) {
        Int(entity_id);
        Space();
        WriteValue(*value);
        Line();
      }
      out_ += std::string("End ") + kind + "\n\n";
    }
  }

  // ------------------------------------------------------------------ sub model parts
  void IdList(const char* kind, const std::vector<IdType>& ids, const std::string& indent,
              bool always) {
    if (ids.empty() && !always) return;
    out_ += indent + "  Begin " + kind + '\n';
    for (IdType id : ids) {
      out_ += indent;
      out_ += "    ";
      Int(id);
      Line();
    }
    out_ += indent + "  End " + kind + '\n';
  }

  void WriteSubModelPart(ModelPart& part, const std::string& indent) {
    out_ += indent + "Begin SubModelPart " + part.Name() + '\n';
    WriteDataBlock("SubModelPartData", part.Data(), indent + "  ", true);
    IdList("SubModelPartTables", part.TableIds(), indent, false);
    std::vector<IdType> ids;
    for (const Properties::Pointer& p : part.PropertiesList()) ids.push_back(p->Id());
    IdList("SubModelPartProperties", ids, indent, false);
    ids.clear();
    for (IndexType i : part.NodeIndices()) ids.push_back(db_.Id(i));
    IdList("SubModelPartNodes", ids, indent, true);
    ids.clear();
    for (const Element& e : part.Elements()) ids.push_back(e.Id());
    IdList("SubModelPartElements", ids, indent, true);
    ids.clear();
    for (const Condition& c : part.Conditions()) ids.push_back(c.Id());
    IdList("SubModelPartConditions", ids, indent, true);
    ids.clear();
    for (IndexType i : part.GeometryIndices()) ids.push_back(part.GeometryId(i));
    IdList("SubModelPartGeometries", ids, indent, false);
    ids.clear();
    for (IndexType i : part.MasterSlaveConstraintIndices())
      ids.push_back(part.MasterSlaveConstraintAt(i).id);
    IdList("SubModelPartConstraints", ids, indent, false);
    for (ModelPart* child : part.SubModelParts()) WriteSubModelPart(*child, indent + "  ");
    out_ += indent + "End SubModelPart\n";
    if (indent.empty()) Line();
  }

  ModelPart& mp_;
  NodalDatabase& db_;
  std::string out_;
  NameCache<Element> element_names_;
  NameCache<Condition> condition_names_;
};

}  // namespace

std::string RegisteredElementName(const Element& element) { return FindRegisteredName(element); }

std::string RegisteredConditionName(const Condition& condition) {
  return FindRegisteredName(condition);
}

std::string MdpaWriter::WriteToString(ModelPart& model_part) const {
  return Writer(model_part).Run();
}

void MdpaWriter::WriteFile(ModelPart& model_part, const std::string& path) const {
  const std::string text = WriteToString(model_part);
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) TESSERA_ERROR("cannot open '", path, "' for writing: ", std::strerror(errno));
  const std::size_t written = std::fwrite(text.data(), 1, text.size(), file);
  const bool closed = std::fclose(file) == 0;
  if (written != text.size() || !closed)
    TESSERA_ERROR("cannot write '", path, "': ", std::strerror(errno));
}

}  // namespace tessera
