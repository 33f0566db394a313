// SaveModelPart / LoadModelPart: model part state <-> checkpoint datasets.
#include "kernel/io/model_part_checkpoint.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include "kernel/core/variable_registry.h"
#include "kernel/io/checkpoint_file.h"
#include "kernel/io/value_bytes.h"
#include "kernel/model/model_part.h"

namespace tessera {

// Friend of NodalDatabase, ProcessInfo and ModelPart: the checkpoint reads and
// writes their private members wholesale.
struct CheckpointAccess {
  static std::vector<std::unique_ptr<DataColumn>>& HistoricalSteps(NodalDatabase& db,
                                                                   const VariableBase& v) {
    return db.historical_[db.Slot(v.StorageVariable())];
  }
  static auto& NonHistorical(NodalDatabase& db) { return db.non_historical_; }
  static std::vector<FlagWord>& Flags(NodalDatabase& db) { return db.flags_; }
  static std::vector<DofColumn>& Dofs(NodalDatabase& db) { return db.dofs_; }
  static std::deque<DataValueContainer>& Previous(ProcessInfo& info) { return info.previous_; }
  static std::vector<Element::Pointer>& Elements(ModelPart& root) { return root.all_elements_; }
  static std::vector<Condition::Pointer>& Conditions(ModelPart& root) {
    return root.all_conditions_;
  }
  static ModelPart::IndexSet& Nodes(ModelPart& part) { return part.nodes_; }
  static ModelPart::IndexSet& ElementSet(ModelPart& part) { return part.elements_; }
  static ModelPart::IndexSet& ConditionSet(ModelPart& part) { return part.conditions_; }
  static const std::map<IdType, Properties::Pointer>& PropertiesMap(const ModelPart& part) {
    return part.properties_;
  }
};

namespace {

std::size_t PodSize(ValueKind kind) {
  switch (kind) {
    case ValueKind::Double:
      return sizeof(double);
    case ValueKind::Int:
      return sizeof(int);
    case ValueKind::Bool:
      return sizeof(BoolSlot);
    case ValueKind::Array3:
      return sizeof(Array3);
    case ValueKind::Quaternion:
      return sizeof(Quaternion);
    default:
      return 0;  // Vector, Matrix, String: encoded value by value
  }
}

void SaveColumn(DataColumn& column, CheckpointWriter& writer, const std::string& name) {
  const std::size_t pod = PodSize(column.GetVariable().Kind());
  if (pod) {
    writer.WriteBytes(name, column.RawData(), pod * column.Size());
    return;
  }
  ByteSink sink;
  for (IndexType i = 0; i < column.Size(); ++i) sink.PutValue(column.Get(i));
  writer.Write(name, sink.Bytes());
}

void LoadColumn(DataColumn& column, const CheckpointReader& reader, const std::string& name) {
  const std::size_t pod = PodSize(column.GetVariable().Kind());
  if (pod) {
    reader.ReadBytesInto(name, column.RawData(), pod * column.Size());
    return;
  }
  const std::vector<std::uint8_t> bytes = reader.ReadBytes(name);
  ByteSource source(bytes, name);
  for (IndexType i = 0; i < column.Size(); ++i) column.Set(i, source.GetValue());
  source.ExpectEnd();
}

template <class T>
std::vector<T> AsVector(const T* data, std::size_t n) {
  return std::vector<T>(data, data + n);
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += n + '\n';
  return text;
}

std::vector<std::string> SplitNames(const std::string& text) {
  std::vector<std::string> names;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    names.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return names;
}

const VariableBase& VariableNamed(const std::string& name, const CheckpointReader& reader) {
  const VariableBase* v = VariableRegistry::Instance().Find(name);
  if (!v)
    TESSERA_ERROR("checkpoint ", reader.Path(), " holds variable ", name,
                  ", which is not registered (import the application that defines it)");
  return *v;
}

[[noreturn]] void OtherDeck(const CheckpointReader& reader, const ModelPart& part,
                            const std::string& what) {
  TESSERA_ERROR("checkpoint ", reader.Path(), " does not belong to this deck: model part '",
                part.Name(), "' ", what);
}

// Every model part of the tree below `part` (not itself), with its dotted path.
void ForEachSubPart(ModelPart& part, const std::string& prefix,
                    const std::function<void(ModelPart&, const std::string&)>& fn) {
  for (ModelPart* child : part.SubModelParts()) {
    const std::string path = prefix.empty() ? child->Name() : prefix + "." + child->Name();
    fn(*child, path);
    ForEachSubPart(*child, path, fn);
  }
}

template <class TEntity>
void SaveEntities(const std::vector<typename TEntity::Pointer>& all, CheckpointWriter& writer,
                  const std::string& group) {
  std::vector<std::int64_t> ids, properties;
  std::vector<std::uint64_t> flags, defined, offsets{0};
  std::vector<double> state;
  ByteSink data;
  for (const auto& e : all) {
    ids.push_back(e->Id());
    properties.push_back(e->HasProperties() ? e->GetProperties().Id() : -1);
    flags.push_back(e->Flags());
    defined.push_back(e->DefinedFlags());
    data.PutContainer(e->Data());
    e->SaveState(state);
    offsets.push_back(state.size());
  }
  writer.Write(group + "/Ids", ids);
  writer.Write(group + "/PropertiesIds", properties);
  writer.Write(group + "/Flags", flags);
  writer.Write(group + "/DefinedFlags", defined);
  writer.Write(group + "/Data", data.Bytes());
  writer.Write(group + "/State", state);
  writer.Write(group + "/StateOffsets", offsets);
}

template <class TEntity>
void LoadEntities(ModelPart& root, std::vector<typename TEntity::Pointer>& all,
                  const CheckpointReader& reader, const std::string& group, const char* kind) {
  const std::vector<std::int64_t> ids = reader.ReadInt64(group + "/Ids");
  bool same = ids.size() == all.size();
  for (std::size_t k = 0; same && k < ids.size(); ++k) same = all[k]->Id() == ids[k];
  if (!same)
    OtherDeck(reader, root,
              "has " + std::to_string(all.size()) + " " + kind + " where the checkpoint has " +
                  std::to_string(ids.size()) + " (or other ids)");
  const auto properties = reader.ReadInt64(group + "/PropertiesIds");
  const auto flags = reader.ReadUInt64(group + "/Flags");
  const auto defined = reader.ReadUInt64(group + "/DefinedFlags");
  const auto data = reader.ReadBytes(group + "/Data");
  const auto state = reader.ReadDoubles(group + "/State");
  const auto offsets = reader.ReadUInt64(group + "/StateOffsets");
  TESSERA_CHECK(properties.size() == ids.size() && flags.size() == ids.size() &&
                    defined.size() == ids.size() && offsets.size() == ids.size() + 1 &&
                    offsets.back() == state.size(),
                "checkpoint ", reader.Path(), ": the datasets of ", group,
                " disagree in length (damaged file)");
  ByteSource source(data, group + "/Data");
  const ProcessInfo& info = root.GetProcessInfo();
  for (std::size_t k = 0; k < ids.size(); ++k) {
    TEntity& e = *all[k];
    if (properties[k] >= 0 && (!e.HasProperties() || e.GetProperties().Id() != properties[k])) {
      if (!root.HasProperties(properties[k]))
        OtherDeck(reader, root, "has no properties " + std::to_string(properties[k]));
      e.SetProperties(root.GetProperties(properties[k]));
    }
    e.SetFlagWords(flags[k], defined[k]);
    source.GetContainer(e.Data());
    std::span<const double> own(state.data() + offsets[k], offsets[k + 1] - offsets[k]);
    e.LoadState(own, info);
    if (!own.empty())
      TESSERA_ERROR("checkpoint ", reader.Path(), ": ", e.Info(), " left ", own.size(),
                    " values of its saved state unread (saved by another element type?)");
  }
  source.ExpectEnd();
}

std::vector<std::int64_t> IdsOf(const ModelPart::IndexSet& set,
                                const std::function<IdType(IndexType)>& id) {
  std::vector<std::int64_t> ids;
  ids.reserve(set.size());
  for (IndexType i : set) ids.push_back(id(i));
  return ids;
}

}  // namespace

void SaveModelPart(const ModelPart& const_part, CheckpointWriter& writer,
                   const std::string& group) {
  ModelPart& root = const_cast<ModelPart&>(const_part).GetRootModelPart();
  NodalDatabase& db = root.Nodal();
  const std::size_t n = db.Size();
  writer.WriteString(group + "/Name", root.Name());
  writer.Write(group + "/BufferSize", std::vector<std::int64_t>{db.BufferSize()});
  writer.Write(group + "/Nodes/Ids", AsVector<std::int64_t>(db.AllIds().data(), n));
  writer.WriteBytes(group + "/Nodes/Coordinates", db.AllCoordinates().data(), n * sizeof(Array3));
  writer.WriteBytes(group + "/Nodes/InitialCoordinates", db.AllInitialCoordinates().data(),
                    n * sizeof(Array3));
  writer.Write(group + "/Nodes/Flags", CheckpointAccess::Flags(db));

  std::vector<std::string> names;
  for (const VariableBase* v : db.HistoricalVariables()) {
    names.push_back(v->Name());
    auto& steps = CheckpointAccess::HistoricalSteps(db, *v);
    for (std::size_t s = 0; s < steps.size(); ++s)
      SaveColumn(*steps[s], writer,
                 group + "/Nodes/Historical/" + v->Name() + "/" + std::to_string(s));
  }
  writer.WriteString(group + "/Nodes/HistoricalVariables", JoinNames(names));

  // Non-historical columns in name order (the map's order is not stable).
  const VariableRegistry& registry = VariableRegistry::Instance();
  names.clear();
  for (auto& [id, entry] : CheckpointAccess::NonHistorical(db))
    names.push_back(registry.ById(id).Name());
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    auto& entry = CheckpointAccess::NonHistorical(db).at(registry.Find(name)->Id());
    SaveColumn(*entry.column, writer, group + "/Nodes/NonHistorical/" + name + "/Values");
    writer.Write(group + "/Nodes/NonHistorical/" + name + "/IsSet", entry.is_set);
  }
  writer.WriteString(group + "/Nodes/NonHistoricalVariables", JoinNames(names));

  names.clear();
  std::vector<std::string> reactions;
  for (const DofColumn& dof : db.DofColumns()) {
    names.push_back(dof.variable->Name());
    reactions.push_back(dof.reaction ? dof.reaction->Name() : "");
    const std::string g = group + "/Nodes/Dofs/" + dof.variable->Name();
    writer.Write(g + "/Present", dof.present);
    writer.Write(g + "/Fixed", dof.fixed);
    writer.Write(g + "/EquationIds",
                 AsVector<std::int64_t>(dof.equation_id.data(), dof.equation_id.size()));
  }
  writer.WriteString(group + "/Nodes/DofVariables", JoinNames(names));
  writer.WriteString(group + "/Nodes/DofReactions", JoinNames(reactions));

  ByteSink info;
  info.PutContainer(root.GetProcessInfo());
  const auto& previous = CheckpointAccess::Previous(root.GetProcessInfo());
  info.Put<std::uint64_t>(previous.size());
  for (const DataValueContainer& step : previous) info.PutContainer(step);
  writer.Write(group + "/ProcessInfo", info.Bytes());

  SaveEntities<Element>(CheckpointAccess::Elements(root), writer, group + "/Elements");
  SaveEntities<Condition>(CheckpointAccess::Conditions(root), writer, group + "/Conditions");

  ByteSink properties;
  const auto& all_properties = CheckpointAccess::PropertiesMap(root);
  properties.Put<std::uint64_t>(all_properties.size());
  for (const auto& [id, p] : all_properties) {
    properties.Put<std::int64_t>(id);
    properties.PutContainer(p->Data());
  }
  writer.Write(group + "/Properties", properties.Bytes());

  // Sub model parts: members by id, and their data.
  names.clear();
  ByteSink part_data;
  part_data.PutContainer(root.Data());
  auto& elements = CheckpointAccess::Elements(root);
  auto& conditions = CheckpointAccess::Conditions(root);
  ForEachSubPart(root, "", [&](ModelPart& part, const std::string& path) {
    names.push_back(path);
    const std::string g = group + "/SubModelParts/" + path;
    writer.Write(g + "/NodeIds", IdsOf(part.NodeIndices(), [&](IndexType i) { return db.Id(i); }));
    writer.Write(g + "/ElementIds",
                 IdsOf(part.ElementIndices(), [&](IndexType i) { return elements[i]->Id(); }));
    writer.Write(g + "/ConditionIds",
                 IdsOf(part.ConditionIndices(), [&](IndexType i) { return conditions[i]->Id(); }));
    part_data.PutContainer(part.Data());
  });
  writer.WriteString(group + "/SubModelPartNames", JoinNames(names));
  writer.Write(group + "/ModelPartData", part_data.Bytes());
}

void LoadModelPart(ModelPart& part, const CheckpointReader& reader, const std::string& group) {
  ModelPart& root = part.GetRootModelPart();
  NodalDatabase& db = root.Nodal();
  TESSERA_CHECK(reader.Has(group), "checkpoint ", reader.Path(), " holds no model part at ", group);
  const std::string name = reader.ReadString(group + "/Name");
  if (name != root.Name()) OtherDeck(reader, root, "is saved there as '" + name + "'");

  // The nodes: the same ids, laid out in the saved order.
  const std::vector<std::int64_t> ids = reader.ReadInt64(group + "/Nodes/Ids");
  if (ids.size() != db.Size())
    OtherDeck(reader, root,
              "has " + std::to_string(db.Size()) + " nodes where the checkpoint has " +
                  std::to_string(ids.size()));
  if (!std::equal(ids.begin(), ids.end(), db.AllIds().begin())) {
    std::vector<IndexType> order(ids.size());
    for (std::size_t k = 0; k < ids.size(); ++k) {
      const IndexType i = db.FindIndex(ids[k]);
      if (i == kInvalidIndex) OtherDeck(reader, root, "has no node " + std::to_string(ids[k]));
      order[k] = i;
    }
    root.ReorderNodes(order);
  }
  const std::size_t n = db.Size();
  const int buffer = static_cast<int>(reader.ReadInt64(group + "/BufferSize").at(0));
  if (buffer != db.BufferSize()) db.SetBufferSize(buffer);
  reader.ReadBytesInto(group + "/Nodes/Coordinates", db.AllCoordinates().data(),
                       n * sizeof(Array3));
  reader.ReadBytesInto(group + "/Nodes/InitialCoordinates", db.AllInitialCoordinates().data(),
                       n * sizeof(Array3));
  {
    const auto flags = reader.ReadUInt64(group + "/Nodes/Flags");
    TESSERA_CHECK(flags.size() == n, "checkpoint ", reader.Path(), ": ", group, "/Nodes/Flags has ",
                  flags.size(), " entries for ", n, " nodes");
    CheckpointAccess::Flags(db) = flags;
  }

  const auto historical = SplitNames(reader.ReadString(group + "/Nodes/HistoricalVariables"));
  for (const std::string& v_name : historical) {
    const VariableBase& v = VariableNamed(v_name, reader);
    if (!db.HasHistoricalVariable(v))
      OtherDeck(reader, root, "has no solution-step variable " + v_name);
    auto& steps = CheckpointAccess::HistoricalSteps(db, v);
    for (std::size_t s = 0; s < steps.size(); ++s)
      LoadColumn(*steps[s], reader,
                 group + "/Nodes/Historical/" + v_name + "/" + std::to_string(s));
  }
  if (historical.size() != db.HistoricalVariables().size())
    OtherDeck(reader, root,
              "has " + std::to_string(db.HistoricalVariables().size()) +
                  " solution-step variables where the checkpoint has " +
                  std::to_string(historical.size()));

  auto& non_historical = CheckpointAccess::NonHistorical(db);
  non_historical.clear();
  for (const std::string& v_name :
       SplitNames(reader.ReadString(group + "/Nodes/NonHistoricalVariables"))) {
    const VariableBase& v = VariableNamed(v_name, reader);
    DataColumn& column = db.NonHistoricalColumnBase(v);
    LoadColumn(column, reader, group + "/Nodes/NonHistorical/" + v_name + "/Values");
    auto mask = reader.ReadBytes(group + "/Nodes/NonHistorical/" + v_name + "/IsSet");
    TESSERA_CHECK(mask.size() == n, "checkpoint ", reader.Path(), ": the set-mask of ", v_name,
                  " has ", mask.size(), " entries for ", n, " nodes");
    non_historical.at(v.StorageVariable().Id()).is_set = std::move(mask);
  }

  auto& dofs = CheckpointAccess::Dofs(db);
  dofs.clear();
  const auto dof_names = SplitNames(reader.ReadString(group + "/Nodes/DofVariables"));
  const auto reactions = SplitNames(reader.ReadString(group + "/Nodes/DofReactions"));
  for (std::size_t k = 0; k < dof_names.size(); ++k) {
    DofColumn dof;
    dof.variable = &VariableNamed(dof_names[k], reader);
    dof.reaction = k < reactions.size() && !reactions[k].empty()
                       ? &VariableNamed(reactions[k], reader)
                       : nullptr;
    const std::string g = group + "/Nodes/Dofs/" + dof_names[k];
    dof.present = reader.ReadBytes(g + "/Present");
    dof.fixed = reader.ReadBytes(g + "/Fixed");
    const auto equation_ids = reader.ReadInt64(g + "/EquationIds");
    dof.equation_id.assign(equation_ids.begin(), equation_ids.end());
    TESSERA_CHECK(dof.present.size() == n && dof.fixed.size() == n && dof.equation_id.size() == n,
                  "checkpoint ", reader.Path(), ": the dof columns of ", dof_names[k],
                  " do not have one entry per node");
    dofs.push_back(std::move(dof));
  }

  {
    const auto bytes = reader.ReadBytes(group + "/ProcessInfo");
    ByteSource source(bytes, group + "/ProcessInfo");
    ProcessInfo& info = root.GetProcessInfo();
    source.GetContainer(info);
    auto& previous = CheckpointAccess::Previous(info);
    previous.clear();
    const auto steps = source.Get<std::uint64_t>();
    for (std::uint64_t s = 0; s < steps; ++s) source.GetContainer(previous.emplace_back());
    source.ExpectEnd();
  }

  {
    const auto bytes = reader.ReadBytes(group + "/Properties");
    ByteSource source(bytes, group + "/Properties");
    const auto count = source.Get<std::uint64_t>();
    for (std::uint64_t k = 0; k < count; ++k) {
      const auto id = source.Get<std::int64_t>();
      source.GetContainer(root.GetPropertiesOrCreate(id)->Data());
    }
    source.ExpectEnd();
  }

  LoadEntities<Element>(root, CheckpointAccess::Elements(root), reader, group + "/Elements",
                        "elements");
  LoadEntities<Condition>(root, CheckpointAccess::Conditions(root), reader, group + "/Conditions",
                          "conditions");

  const auto part_names = SplitNames(reader.ReadString(group + "/SubModelPartNames"));
  const auto part_bytes = reader.ReadBytes(group + "/ModelPartData");
  ByteSource part_data(part_bytes, group + "/ModelPartData");
  part_data.GetContainer(root.Data());
  auto& elements = CheckpointAccess::Elements(root);
  auto& conditions = CheckpointAccess::Conditions(root);
  for (const std::string& path : part_names) {
    if (!root.HasSubModelPart(path)) OtherDeck(reader, root, "has no sub model part " + path);
    ModelPart& sub = root.GetSubModelPart(path);
    const std::string g = group + "/SubModelParts/" + path;
    auto positions = [&](const std::vector<std::int64_t>& member_ids, auto&& index_of) {
      ModelPart::IndexSet set;
      set.reserve(member_ids.size());
      for (std::int64_t id : member_ids) set.push_back(index_of(id));
      std::sort(set.begin(), set.end());
      return set;
    };
    CheckpointAccess::Nodes(sub) =
        positions(reader.ReadInt64(g + "/NodeIds"), [&](std::int64_t id) {
          const IndexType i = db.FindIndex(id);
          if (i == kInvalidIndex) OtherDeck(reader, root, "has no node " + std::to_string(id));
          return i;
        });
    auto entity_index = [&](const auto& all, const char* kind) {
      return [&all, &reader, &root, kind](std::int64_t id) {
        const auto it = std::lower_bound(all.begin(), all.end(), id,
                                         [](const auto& e, std::int64_t v) { return e->Id() < v; });
        // Entities are usually sorted by id; fall back to a scan otherwise.
        if (it != all.end() && (*it)->Id() == id) return static_cast<IndexType>(it - all.begin());
        for (std::size_t k = 0; k < all.size(); ++k)
          if (all[k]->Id() == id) return static_cast<IndexType>(k);
        OtherDeck(reader, root, std::string("has no ") + kind + " " + std::to_string(id));
      };
    };
    CheckpointAccess::ElementSet(sub) =
        positions(reader.ReadInt64(g + "/ElementIds"), entity_index(elements, "element"));
    CheckpointAccess::ConditionSet(sub) =
        positions(reader.ReadInt64(g + "/ConditionIds"), entity_index(conditions, "condition"));
    part_data.GetContainer(sub.Data());
  }
  part_data.ExpectEnd();
}

}  // namespace tessera
