// ModelPart implementation: membership sets, creation, removal and sub model parts.
#include "kernel/model/model_part.h"

#include <algorithm>

#include "kernel/core/kernel_variables.h"
#include "kernel/core/variable_registry.h"
#include "kernel/geometries/geometry_type.h"
#include "kernel/geometries/geometry_types.h"
#include "kernel/registry/registry.h"

namespace tessera {
namespace {

// set <- set ∪ add, both sorted and unique afterwards.
void MergeInto(ModelPart::IndexSet& set, const ModelPart::IndexSet& add) {
  if (add.empty()) return;
  if (set.empty() || add.front() > set.back()) {
    set.insert(set.end(), add.begin(), add.end());
    return;
  }
  ModelPart::IndexSet merged;
  merged.reserve(set.size() + add.size());
  std::set_union(set.begin(), set.end(), add.begin(), add.end(), std::back_inserter(merged));
  set.swap(merged);
}

void SortUnique(ModelPart::IndexSet& v) {
  if (!std::is_sorted(v.begin(), v.end())) std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// Maps positions through new_index, dropping removed ones (order is kept
// because removal compacts monotonically).
void Remap(ModelPart::IndexSet& set, const std::vector<IndexType>& new_index) {
  std::size_t out = 0;
  for (IndexType i : set)
    if (new_index[i] != kInvalidIndex) set[out++] = new_index[i];
  set.resize(out);
}

// Sorts a set of distinct positions below n (a set remapped by a
// reordering of the nodes): a large set by marking its positions, one pass
// over n (sorting a root's every node was a third of a distributed DEM
// run's reorder at a search), a small one by sorting.
void SortPositions(ModelPart::IndexSet& set, std::size_t n) {
  if (set.size() * 16 < n) {
    std::sort(set.begin(), set.end());
    return;
  }
  std::vector<std::uint8_t> in(n, 0);
  for (IndexType i : set) in[i] = 1;
  std::size_t out = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (in[i]) set[out++] = static_cast<IndexType>(i);
}

std::string ListIds(const std::vector<IdType>& ids) {
  std::string s;
  for (std::size_t i = 0; i < ids.size() && i < 10; ++i)
    s += (i ? ", " : "") + std::to_string(ids[i]);
  if (ids.size() > 10) s += ", ...";
  return s;
}

}  // namespace

ModelPart::ModelPart(std::string name, int buffer_size, Model* model)
    : name_(std::move(name)),
      root_(this),
      model_(model),
      nodal_(std::make_unique<NodalDatabase>(buffer_size)),
      process_info_(std::make_unique<ProcessInfo>()) {
  if (name_.empty() || name_.find('.') != std::string::npos)
    TESSERA_ERROR("invalid model part name '", name_, "' (must be non-empty, without '.')");
}

ModelPart::ModelPart(std::string name, ModelPart* parent)
    : name_(std::move(name)), parent_(parent), root_(parent->root_), model_(parent->model_) {
  if (name_.empty() || name_.find('.') != std::string::npos)
    TESSERA_ERROR("invalid sub model part name '", name_, "' in ", parent->FullName());
}

ModelPart::~ModelPart() = default;

std::string ModelPart::FullName() const {
  return parent_ ? parent_->FullName() + "." + name_ : name_;
}

template <class Fn>
void ModelPart::ForEachInTree(Fn&& fn) {
  fn(*this);
  for (auto& [name, child] : children_) child->ForEachInTree(fn);
}

// ---------------------------------------------------------------- variables, time

void ModelPart::AddNodalSolutionStepVariable(const VariableBase& variable) {
  root_->nodal_->AddHistoricalVariable(variable);
}

bool ModelPart::HasNodalSolutionStepVariable(const VariableBase& variable) const {
  return root_->nodal_->HasHistoricalVariable(variable);
}

int ModelPart::GetBufferSize() const { return root_->nodal_->BufferSize(); }
void ModelPart::SetBufferSize(int size) { root_->nodal_->SetBufferSize(size); }

void ModelPart::CloneTimeStep(double time) {
  if (IsSubModelPart())
    TESSERA_ERROR("CloneTimeStep must be called on the root model part, not on ", FullName());
  nodal_->CloneSolutionStep();
  const double previous_time = process_info_->GetValue(TIME);
  process_info_->CloneSolutionStep(nodal_->BufferSize());
  process_info_->SetValue(TIME, time);
  process_info_->SetValue(DELTA_TIME, time - previous_time);
}

// ---------------------------------------------------------------- nodes

Node ModelPart::CreateNewNode(IdType id, double x, double y, double z) {
  const IndexType index = root_->nodal_->AddNode(id, Array3{x, y, z});
  for (ModelPart* p = this; p; p = p->parent_) p->nodes_.push_back(index);
  return Node(root_->nodal_.get(), index);
}

void ModelPart::AddNode(IdType id) { AddNodes(std::span<const IdType>(&id, 1)); }

void ModelPart::AddNodes(std::span<const IdType> ids) {
  IndexSet indices;
  indices.reserve(ids.size());
  for (IdType id : ids) {
    const IndexType i = root_->nodal_->FindIndex(id);
    if (i == kInvalidIndex)
      TESSERA_ERROR("cannot add node ", id, " to ", FullName(), ": no such node in ", root_->name_);
    indices.push_back(i);
  }
  AddNodesByIndex(std::move(indices));
}

void ModelPart::AddNodesByIndex(IndexSet indices) {
  SortUnique(indices);
  for (ModelPart* p = this; p && p != root_; p = p->parent_) MergeInto(p->nodes_, indices);
}

bool ModelPart::HasNode(IdType id) const {
  const IndexType i = root_->nodal_->FindIndex(id);
  return i != kInvalidIndex && std::binary_search(nodes_.begin(), nodes_.end(), i);
}

Node ModelPart::GetNode(IdType id) {
  const IndexType i = root_->nodal_->FindIndex(id);
  if (i == kInvalidIndex || !std::binary_search(nodes_.begin(), nodes_.end(), i))
    TESSERA_ERROR("model part ", FullName(), " has no node ", id);
  return Node(root_->nodal_.get(), i);
}

// ---------------------------------------------------------------- elements, conditions

namespace {
Geometry::NodeIndices ResolveNodes(const NodalDatabase& db, std::span<const IdType> ids,
                                   const char* kind, IdType entity_id) {
  Geometry::NodeIndices nodes;
  for (IdType id : ids) {
    const IndexType i = db.FindIndex(id);
    if (i == kInvalidIndex)
      TESSERA_ERROR(kind, " ", entity_id, " refers to node ", id, ", which is not defined");
    nodes.push_back(i);
  }
  return nodes;
}
}  // namespace

Element& ModelPart::AddElement(Element::Pointer element) {
  ModelPart& root = *root_;
  if (element->HasProperties() && !root.properties_.count(element->GetPropertiesPointer()->Id()))
    root.properties_[element->GetPropertiesPointer()->Id()] = element->GetPropertiesPointer();
  const auto index = static_cast<IndexType>(root.all_elements_.size());
  if (!root.element_index_.Insert(element->Id(), index))
    TESSERA_ERROR("element ", element->Id(), " is defined twice");
  root.all_elements_.push_back(std::move(element));
  for (ModelPart* p = this; p; p = p->parent_) p->elements_.push_back(index);
  return *root.all_elements_.back();
}

Condition& ModelPart::AddCondition(Condition::Pointer condition) {
  ModelPart& root = *root_;
  if (condition->HasProperties() &&
      !root.properties_.count(condition->GetPropertiesPointer()->Id()))
    root.properties_[condition->GetPropertiesPointer()->Id()] = condition->GetPropertiesPointer();
  const auto index = static_cast<IndexType>(root.all_conditions_.size());
  if (!root.condition_index_.Insert(condition->Id(), index))
    TESSERA_ERROR("condition ", condition->Id(), " is defined twice");
  root.all_conditions_.push_back(std::move(condition));
  for (ModelPart* p = this; p; p = p->parent_) p->conditions_.push_back(index);
  return *root.all_conditions_.back();
}

Element& ModelPart::CreateNewElement(const std::string& name, IdType id,
                                     std::span<const IdType> node_ids,
                                     Properties::Pointer properties) {
  if (root_->element_index_.Contains(id)) TESSERA_ERROR("element ", id, " is defined twice");
  auto nodes = ResolveNodes(*root_->nodal_, node_ids, "element", id);
  return AddElement(Registry::Instance().CreateElement(name, id, root_->nodal_.get(),
                                                       std::move(nodes), std::move(properties)));
}

Condition& ModelPart::CreateNewCondition(const std::string& name, IdType id,
                                         std::span<const IdType> node_ids,
                                         Properties::Pointer properties) {
  if (root_->condition_index_.Contains(id)) TESSERA_ERROR("condition ", id, " is defined twice");
  auto nodes = ResolveNodes(*root_->nodal_, node_ids, "condition", id);
  return AddCondition(Registry::Instance().CreateCondition(
      name, id, root_->nodal_.get(), std::move(nodes), std::move(properties)));
}

IndexType ModelPart::ElementIndexOf(IdType id) const { return root_->element_index_.Find(id); }

IndexType ModelPart::ConditionIndexOf(IdType id) const { return root_->condition_index_.Find(id); }

void ModelPart::AddElements(std::span<const IdType> ids) {
  IndexSet indices;
  for (IdType id : ids) {
    const IndexType i = ElementIndexOf(id);
    if (i == kInvalidIndex)
      TESSERA_ERROR("cannot add element ", id, " to ", FullName(), ": no such element in ",
                    root_->name_);
    indices.push_back(i);
  }
  AddElementsByIndex(std::move(indices));
}

void ModelPart::AddConditions(std::span<const IdType> ids) {
  IndexSet indices;
  for (IdType id : ids) {
    const IndexType i = ConditionIndexOf(id);
    if (i == kInvalidIndex)
      TESSERA_ERROR("cannot add condition ", id, " to ", FullName(), ": no such condition in ",
                    root_->name_);
    indices.push_back(i);
  }
  AddConditionsByIndex(std::move(indices));
}

void ModelPart::AddElementsByIndex(IndexSet indices) {
  SortUnique(indices);
  for (ModelPart* p = this; p && p != root_; p = p->parent_) MergeInto(p->elements_, indices);
}

void ModelPart::AddConditionsByIndex(IndexSet indices) {
  SortUnique(indices);
  for (ModelPart* p = this; p && p != root_; p = p->parent_) MergeInto(p->conditions_, indices);
}

bool ModelPart::HasElement(IdType id) const {
  const IndexType i = ElementIndexOf(id);
  return i != kInvalidIndex && std::binary_search(elements_.begin(), elements_.end(), i);
}

bool ModelPart::HasCondition(IdType id) const {
  const IndexType i = ConditionIndexOf(id);
  return i != kInvalidIndex && std::binary_search(conditions_.begin(), conditions_.end(), i);
}

Element& ModelPart::GetElement(IdType id) {
  if (!HasElement(id)) TESSERA_ERROR("model part ", FullName(), " has no element ", id);
  return *root_->all_elements_[ElementIndexOf(id)];
}

Condition& ModelPart::GetCondition(IdType id) {
  if (!HasCondition(id)) TESSERA_ERROR("model part ", FullName(), " has no condition ", id);
  return *root_->all_conditions_[ConditionIndexOf(id)];
}

// ---------------------------------------------------------------- geometries, constraints

Geometry& ModelPart::CreateNewGeometry(const std::string& type_name, IdType id,
                                       std::span<const IdType> node_ids) {
  ModelPart& root = *root_;
  const GeometryType& type = GetGeometryType(type_name);
  auto nodes = ResolveNodes(*root.nodal_, node_ids, "geometry", id);
  if (static_cast<int>(nodes.size()) != type.PointsNumber())
    TESSERA_ERROR("geometry ", id, " (", type_name, ") needs ", type.PointsNumber(), " nodes, got ",
                  nodes.size());
  const auto index = static_cast<IndexType>(root.all_geometries_.size());
  if (!root.geometry_index_.Insert(id, index)) TESSERA_ERROR("geometry ", id, " is defined twice");
  root.all_geometries_.emplace_back(&type, root.nodal_.get(), std::move(nodes));
  root.geometry_ids_.push_back(id);
  for (ModelPart* p = this; p; p = p->parent_) p->geometries_.push_back(index);
  return root.all_geometries_.back();
}

void ModelPart::AddGeometries(std::span<const IdType> ids) {
  IndexSet indices;
  for (IdType id : ids) {
    const IndexType index = root_->geometry_index_.Find(id);
    if (index == kInvalidIndex)
      TESSERA_ERROR("cannot add geometry ", id, " to ", FullName(), ": no such geometry");
    indices.push_back(index);
  }
  SortUnique(indices);
  for (ModelPart* p = this; p && p != root_; p = p->parent_) MergeInto(p->geometries_, indices);
}

bool ModelPart::HasGeometry(IdType id) const {
  const IndexType index = root_->geometry_index_.Find(id);
  return index != kInvalidIndex &&
         std::binary_search(geometries_.begin(), geometries_.end(), index);
}

Geometry& ModelPart::GetGeometry(IdType id) {
  if (!HasGeometry(id)) TESSERA_ERROR("model part ", FullName(), " has no geometry ", id);
  return root_->all_geometries_[root_->geometry_index_.Find(id)];
}

MasterSlaveConstraint& ModelPart::AddMasterSlaveConstraint(MasterSlaveConstraint constraint) {
  ModelPart& root = *root_;
  if (constraint.masters.size() != constraint.weights.size())
    TESSERA_ERROR("constraint ", constraint.id, " has ", constraint.masters.size(),
                  " master nodes but ", constraint.weights.size(), " weights");
  const auto index = static_cast<IndexType>(root.all_constraints_.size());
  if (!root.constraint_index_.Insert(constraint.id, index))
    TESSERA_ERROR("constraint ", constraint.id, " is defined twice");
  root.all_constraints_.push_back(std::move(constraint));
  for (ModelPart* p = this; p; p = p->parent_) p->constraints_.push_back(index);
  return root.all_constraints_.back();
}

void ModelPart::AddMasterSlaveConstraints(std::span<const IdType> ids) {
  IndexSet indices;
  for (IdType id : ids) {
    const IndexType index = root_->constraint_index_.Find(id);
    if (index == kInvalidIndex)
      TESSERA_ERROR("cannot add constraint ", id, " to ", FullName(), ": no such constraint");
    indices.push_back(index);
  }
  SortUnique(indices);
  for (ModelPart* p = this; p && p != root_; p = p->parent_) MergeInto(p->constraints_, indices);
}

bool ModelPart::HasMasterSlaveConstraint(IdType id) const {
  const IndexType index = root_->constraint_index_.Find(id);
  return index != kInvalidIndex &&
         std::binary_search(constraints_.begin(), constraints_.end(), index);
}

MasterSlaveConstraint& ModelPart::GetMasterSlaveConstraint(IdType id) {
  if (!HasMasterSlaveConstraint(id))
    TESSERA_ERROR("model part ", FullName(), " has no constraint ", id);
  return root_->all_constraints_[root_->constraint_index_.Find(id)];
}

// ---------------------------------------------------------------- removal

void ModelPart::RemapAll(std::vector<IndexType> ModelPart::*set,
                         const std::vector<IndexType>& new_index) {
  root_->ForEachInTree([&](ModelPart& part) { Remap(part.*set, new_index); });
}

void ModelPart::RemapGeometryNodes(const std::vector<IndexType>& new_index) {
  ModelPart& root = *root_;
  auto remap = [&](Geometry& g) {
    for (IndexType& i : g.NodeIndicesList()) i = new_index[i];
  };
  for (auto& e : root.all_elements_) remap(e->GetGeometry());
  for (auto& c : root.all_conditions_) remap(c->GetGeometry());
  for (auto& g : root.all_geometries_) remap(g);
}

void ModelPart::CheckNoUsers(const std::vector<std::uint8_t>& remove) const {
  const ModelPart& root = *root_;
  const NodalDatabase& db = *root.nodal_;
  // `who` names the user only for the error: a removal between steps (the
  // DEM's ghosts, its bounding box) must not build a string per element.
  auto check_users = [&](const Geometry& g, const auto& who) {
    for (std::size_t k = 0; k < g.size(); ++k)
      if (remove[g.NodeIndex(k)])
        TESSERA_ERROR("cannot remove node ", db.Id(g.NodeIndex(k)), ": ", who(),
                      " still uses it (remove it first)");
  };
  for (const auto& e : root.all_elements_)
    check_users(e->GetGeometry(), [&e] { return e->Info(); });
  for (const auto& c : root.all_conditions_)
    check_users(c->GetGeometry(), [&c] { return c->Info(); });
  for (std::size_t g = 0; g < root.all_geometries_.size(); ++g)
    check_users(root.all_geometries_[g],
                [&] { return "geometry " + std::to_string(root.geometry_ids_[g]); });
}

void ModelPart::RemapConstraintsAfterRemoval(const std::vector<IndexType>& new_index) {
  ModelPart& root = *root_;
  std::erase_if(root.all_constraints_, [&](const MasterSlaveConstraint& c) {
    if (new_index[c.slave] == kInvalidIndex) return true;
    return std::any_of(c.masters.begin(), c.masters.end(),
                       [&](IndexType m) { return new_index[m] == kInvalidIndex; });
  });
  // Constraints that lost a node are dropped with it; rebuild their positions.
  std::vector<IndexType> constraint_new(root.constraint_index_.Size(), kInvalidIndex);
  for (IndexType k = 0; k < root.all_constraints_.size(); ++k)
    constraint_new[root.constraint_index_.Find(root.all_constraints_[k].id)] = k;
  root.constraint_index_.Clear();
  for (IndexType k = 0; k < root.all_constraints_.size(); ++k) {
    auto& c = root.all_constraints_[k];
    c.slave = new_index[c.slave];
    for (IndexType& m : c.masters) m = new_index[m];
    root.constraint_index_.Insert(c.id, k);
  }
  RemapAll(&ModelPart::constraints_, constraint_new);
}

void ModelPart::RemoveNodesFlagged(const Flag& flag) {
  ModelPart& root = *root_;
  NodalDatabase& db = *root.nodal_;
  std::vector<std::uint8_t> remove(db.Size(), 0);
  bool any = false;
  for (IndexType i = 0; i < db.Size(); ++i)
    if (db.Flags(i) & flag.Mask()) remove[i] = 1, any = true;
  if (!any) return;
  CheckNoUsers(remove);
  const std::vector<IndexType> new_index = db.RemoveNodes(remove);
  RemapAll(&ModelPart::nodes_, new_index);
  RemapGeometryNodes(new_index);
  RemapConstraintsAfterRemoval(new_index);
}

void ModelPart::KeepNodesInOrder(const std::vector<IndexType>& order) {
  ModelPart& root = *root_;
  NodalDatabase& db = *root.nodal_;
  if (order.size() == db.Size()) return ReorderNodes(order);
  std::vector<std::uint8_t> remove(db.Size(), 1);
  for (IndexType i : order)
    if (i < remove.size()) remove[i] = 0;  // (KeepNodesInOrder names a bad order)
  CheckNoUsers(remove);
  const std::vector<IndexType> new_index = db.KeepNodesInOrder(order);
  root.ForEachInTree([&](ModelPart& part) {
    Remap(part.nodes_, new_index);
    SortPositions(part.nodes_, db.Size());
  });
  RemapGeometryNodes(new_index);
  RemapConstraintsAfterRemoval(new_index);
}

void ModelPart::ReorderNodes(const std::vector<IndexType>& order) {
  ModelPart& root = *root_;
  const std::vector<IndexType> new_index = root.nodal_->PermuteNodes(order);
  root.ForEachInTree([&](ModelPart& part) {
    for (IndexType& i : part.nodes_) i = new_index[i];
    SortPositions(part.nodes_, new_index.size());
  });
  RemapGeometryNodes(new_index);
  for (MasterSlaveConstraint& c : root.all_constraints_) {
    c.slave = new_index[c.slave];
    for (IndexType& m : c.masters) m = new_index[m];
  }
}

namespace {
template <class T>
std::vector<IndexType> CompactEntities(std::vector<std::unique_ptr<T>>& all, IdIndexMap& index_of,
                                       const Flag& flag) {
  std::vector<IndexType> new_index(all.size(), kInvalidIndex);
  std::size_t out = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i]->Is(flag)) continue;
    new_index[i] = static_cast<IndexType>(out);
    all[out++] = std::move(all[i]);
  }
  all.resize(out);
  index_of.Clear();
  index_of.Reserve(all.size());
  for (IndexType i = 0; i < all.size(); ++i) index_of.Insert(all[i]->Id(), i);
  return new_index;
}
}  // namespace

void ModelPart::RemoveElementsFlagged(const Flag& flag) {
  ModelPart& root = *root_;
  const auto new_index = CompactEntities(root.all_elements_, root.element_index_, flag);
  RemapAll(&ModelPart::elements_, new_index);
}

void ModelPart::RemoveConditionsFlagged(const Flag& flag) {
  ModelPart& root = *root_;
  const auto new_index = CompactEntities(root.all_conditions_, root.condition_index_, flag);
  RemapAll(&ModelPart::conditions_, new_index);
}

// ---------------------------------------------------------------- properties, tables

Properties::Pointer ModelPart::CreateNewProperties(IdType id) {
  auto& all = root_->properties_;
  auto it = all.find(id);
  Properties::Pointer p = it != all.end() ? it->second : std::make_shared<Properties>(id);
  for (ModelPart* m = this; m; m = m->parent_) m->properties_[id] = p;
  return p;
}

void ModelPart::AddProperties(Properties::Pointer properties) {
  const IdType id = properties->Id();
  for (ModelPart* m = this; m; m = m->parent_) m->properties_[id] = properties;
}

void ModelPart::AddPropertiesById(IdType id) {
  auto it = root_->properties_.find(id);
  if (it == root_->properties_.end())
    TESSERA_ERROR("cannot add properties ", id, " to ", FullName(), ": not defined in ",
                  root_->name_);
  AddProperties(it->second);
}

bool ModelPart::HasProperties(IdType id) const { return properties_.count(id) > 0; }

Properties::Pointer ModelPart::GetProperties(IdType id) {
  auto it = properties_.find(id);
  if (it == properties_.end()) {
    std::vector<IdType> ids;
    for (const auto& [k, v] : properties_) ids.push_back(k);
    TESSERA_ERROR("model part ", FullName(), " has no properties ", id,
                  " (it has: ", ids.empty() ? "none" : ListIds(ids), ")");
  }
  return it->second;
}

Properties::Pointer ModelPart::GetPropertiesOrCreate(IdType id) {
  return HasProperties(id) ? GetProperties(id) : CreateNewProperties(id);
}

std::vector<Properties::Pointer> ModelPart::PropertiesList() const {
  std::vector<Properties::Pointer> out;
  for (const auto& [id, p] : properties_) out.push_back(p);
  return out;
}

void ModelPart::AddTable(IdType id, Table table) {
  root_->all_tables_[id] = std::move(table);
  for (ModelPart* m = this; m; m = m->parent_) {
    auto pos = std::lower_bound(m->tables_.begin(), m->tables_.end(), id);
    if (pos == m->tables_.end() || *pos != id) m->tables_.insert(pos, id);
  }
}

void ModelPart::AddTableById(IdType id) {
  if (!root_->all_tables_.count(id))
    TESSERA_ERROR("cannot add table ", id, " to ", FullName(), ": not defined in ", root_->name_);
  for (ModelPart* m = this; m; m = m->parent_) {
    auto pos = std::lower_bound(m->tables_.begin(), m->tables_.end(), id);
    if (pos == m->tables_.end() || *pos != id) m->tables_.insert(pos, id);
  }
}

bool ModelPart::HasTable(IdType id) const {
  return std::binary_search(tables_.begin(), tables_.end(), id);
}

Table& ModelPart::GetTable(IdType id) {
  if (!HasTable(id)) TESSERA_ERROR("model part ", FullName(), " has no table ", id);
  return root_->all_tables_.at(id);
}

std::vector<IdType> ModelPart::TableIds() const { return tables_; }

// ---------------------------------------------------------------- sub model parts

ModelPart* ModelPart::FindChild(const std::string& name) const {
  auto it = children_.find(name);
  return it == children_.end() ? nullptr : it->second.get();
}

ModelPart& ModelPart::CreateSubModelPart(const std::string& name) {
  const auto dot = name.find('.');
  const std::string head = name.substr(0, dot);
  ModelPart* child = FindChild(head);
  if (!child) {
    auto created = std::make_unique<ModelPart>(head, this);
    child = created.get();
    children_.emplace(head, std::move(created));
  }
  return dot == std::string::npos ? *child : child->CreateSubModelPart(name.substr(dot + 1));
}

bool ModelPart::HasSubModelPart(const std::string& name) const {
  const auto dot = name.find('.');
  const ModelPart* child = FindChild(name.substr(0, dot));
  if (!child) return false;
  return dot == std::string::npos || child->HasSubModelPart(name.substr(dot + 1));
}

ModelPart& ModelPart::GetSubModelPart(const std::string& name) {
  const auto dot = name.find('.');
  ModelPart* child = FindChild(name.substr(0, dot));
  if (!child) {
    std::string names;
    for (const auto& [n, c] : children_) names += (names.empty() ? "" : ", ") + n;
    TESSERA_ERROR("model part ", FullName(), " has no sub model part '", name.substr(0, dot),
                  "' (it has: ", names.empty() ? "none" : names, ")");
  }
  return dot == std::string::npos ? *child : child->GetSubModelPart(name.substr(dot + 1));
}

void ModelPart::RemoveSubModelPart(const std::string& name) {
  const auto dot = name.rfind('.');
  if (dot != std::string::npos) {
    GetSubModelPart(name.substr(0, dot)).RemoveSubModelPart(name.substr(dot + 1));
    return;
  }
  if (!children_.erase(name))
    TESSERA_ERROR("model part ", FullName(), " has no sub model part ", name);
}

std::vector<std::string> ModelPart::GetSubModelPartNames() const {
  std::vector<std::string> names;
  for (const auto& [name, child] : children_) names.push_back(name);
  return names;
}

std::vector<ModelPart*> ModelPart::SubModelParts() {
  std::vector<ModelPart*> out;
  for (auto& [name, child] : children_) out.push_back(child.get());
  return out;
}

}  // namespace tessera
