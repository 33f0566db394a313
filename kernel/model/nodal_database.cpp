// Implementation of the per-node column store.
#include "kernel/model/nodal_database.h"

#include <algorithm>

#include "kernel/core/error.h"
#include "kernel/model/row_gather.h"

namespace tessera {

std::unique_ptr<DataColumn> MakeDataColumn(const VariableBase& v, std::size_t n) {
  switch (v.Kind()) {
    case ValueKind::Double:
      return std::make_unique<TypedDataColumn<double>>(static_cast<const Variable<double>&>(v), n);
    case ValueKind::Int:
      return std::make_unique<TypedDataColumn<int>>(static_cast<const Variable<int>&>(v), n);
    case ValueKind::Bool:
      return std::make_unique<TypedDataColumn<bool>>(static_cast<const Variable<bool>&>(v), n);
    case ValueKind::Array3:
      return std::make_unique<TypedDataColumn<Array3>>(static_cast<const Variable<Array3>&>(v), n);
    case ValueKind::Vector:
      return std::make_unique<TypedDataColumn<Vector>>(static_cast<const Variable<Vector>&>(v), n);
    case ValueKind::Matrix:
      return std::make_unique<TypedDataColumn<Matrix>>(static_cast<const Variable<Matrix>&>(v), n);
    case ValueKind::String:
      return std::make_unique<TypedDataColumn<std::string>>(
          static_cast<const Variable<std::string>&>(v), n);
    case ValueKind::Quaternion:
      return std::make_unique<TypedDataColumn<Quaternion>>(
          static_cast<const Variable<Quaternion>&>(v), n);
  }
  TESSERA_ERROR("unsupported variable kind");
}

NodalDatabase::NodalDatabase(int buffer_size) : buffer_size_(std::max(1, buffer_size)) {}

void NodalDatabase::Reserve(std::size_t n) {
  ids_.reserve(n);
  coordinates_.reserve(n);
  initial_coordinates_.reserve(n);
  flags_.reserve(n);
  index_of_id_.Reserve(n);
}

IndexType NodalDatabase::AddNode(IdType id, const Array3& x) {
  const auto index = static_cast<IndexType>(ids_.size());
  if (!index_of_id_.Insert(id, index)) TESSERA_ERROR("node ", id, " is defined twice");
  ids_.push_back(id);
  coordinates_.push_back(x);
  initial_coordinates_.push_back(x);
  flags_.push_back(0);
  const std::size_t n = ids_.size();
  for (auto& steps : historical_)
    for (auto& column : steps) column->Resize(n);
  for (auto& [id_, entry] : non_historical_) {
    entry.column->Resize(n);
    entry.is_set.resize(n, 0);
  }
  for (DofColumn& dofs : dofs_) {
    dofs.present.resize(n, 0);
    dofs.fixed.resize(n, 0);
    dofs.equation_id.resize(n, 0);
  }
  return index;
}

IndexType NodalDatabase::FindIndex(IdType id) const { return index_of_id_.Find(id); }

IndexType NodalDatabase::IndexOf(IdType id) const {
  const IndexType i = FindIndex(id);
  if (i == kInvalidIndex) TESSERA_ERROR("node ", id, " does not exist");
  return i;
}

void NodalDatabase::SetId(IndexType i, IdType id) {
  if (ids_[i] == id) return;
  if (index_of_id_.Contains(id))
    TESSERA_ERROR("cannot renumber node ", ids_[i], " to ", id, ": taken");
  index_of_id_.Erase(ids_[i]);
  index_of_id_.Insert(id, i);
  ids_[i] = id;
}

std::vector<IndexType> NodalDatabase::RemoveNodes(const std::vector<std::uint8_t>& remove) {
  std::vector<IndexType> new_index(ids_.size(), kInvalidIndex);
  std::vector<IndexType> kept;
  kept.reserve(ids_.size());
  for (IndexType i = 0; i < ids_.size(); ++i) {
    if (remove[i]) continue;
    new_index[i] = static_cast<IndexType>(kept.size());
    kept.push_back(i);
  }
  if (kept.size() != ids_.size()) GatherRows(kept);
  return new_index;
}

std::vector<IndexType> NodalDatabase::PermuteNodes(const std::vector<IndexType>& order) {
  if (order.size() != ids_.size())
    TESSERA_ERROR("PermuteNodes: an order of ", order.size(), " positions for ", ids_.size(),
                  " nodes");
  return KeepNodesInOrder(order);  // every node kept: a permutation
}

std::vector<IndexType> NodalDatabase::KeepNodesInOrder(const std::vector<IndexType>& order) {
  const std::size_t n = ids_.size();
  std::vector<IndexType> new_index(n, kInvalidIndex);
  for (IndexType k = 0; k < order.size(); ++k) {
    if (order[k] >= n || new_index[order[k]] != kInvalidIndex)
      TESSERA_ERROR("KeepNodesInOrder: position ", order[k], " at ", k, " of ", n,
                    " nodes is out of range or listed twice (not a permutation of a subset)");
    new_index[order[k]] = k;
  }
  GatherRows(order);
  return new_index;
}

void NodalDatabase::GatherRows(const std::vector<IndexType>& kept) {
  // One description of the gather for every column (runs of rows moved by
  // block copies, row_gather.h). A reordering stays in the same storage:
  // numpy views remain valid.
  const RowGather gather(kept);
  if (gather.Identity(ids_.size())) {  // nothing moves
    ++layout_;
    return;
  }
  gather.Apply(ids_);
  gather.Apply(coordinates_);
  gather.Apply(initial_coordinates_);
  gather.Apply(flags_);
  for (auto& steps : historical_)
    for (auto& column : steps) column->Compact(gather);
  for (auto& [id, entry] : non_historical_) {
    entry.column->Compact(gather);
    gather.Apply(entry.is_set);
  }
  for (DofColumn& dofs : dofs_) {
    gather.Apply(dofs.present);
    gather.Apply(dofs.fixed);
    gather.Apply(dofs.equation_id);
  }
  if (index_of_id_.Size() == ids_.size()) {  // a reordering: the same ids, new positions
    for (IndexType i = 0; i < ids_.size(); ++i)
      if (kept[i] != i) index_of_id_.Set(ids_[i], i);
  } else {
    index_of_id_.Clear();
    index_of_id_.Reserve(ids_.size());
    for (IndexType i = 0; i < ids_.size(); ++i) index_of_id_.Insert(ids_[i], i);
  }
  ++layout_;
}

void NodalDatabase::AddHistoricalVariable(const VariableBase& variable) {
  const VariableBase& storage = variable.StorageVariable();
  if (HasHistoricalVariable(storage)) return;
  if (slot_of_variable_.size() <= storage.Id()) slot_of_variable_.resize(storage.Id() + 1, -1);
  slot_of_variable_[storage.Id()] = static_cast<int>(historical_.size());
  std::vector<std::unique_ptr<DataColumn>> steps;
  for (int s = 0; s < buffer_size_; ++s) steps.push_back(MakeDataColumn(storage, ids_.size()));
  historical_.push_back(std::move(steps));
}

std::vector<const VariableBase*> NodalDatabase::HistoricalVariables() const {
  std::vector<const VariableBase*> out;
  for (const auto& steps : historical_) out.push_back(&steps.front()->GetVariable());
  return out;
}

void NodalDatabase::SetBufferSize(int size) {
  size = std::max(1, size);
  for (auto& steps : historical_) {
    while (static_cast<int>(steps.size()) < size)
      steps.push_back(MakeDataColumn(steps.front()->GetVariable(), ids_.size()));
    steps.resize(size);
  }
  buffer_size_ = size;
}

void NodalDatabase::CloneSolutionStep() {
  if (buffer_size_ < 2) return;
  for (auto& steps : historical_) {
    // Rotating the owning pointers moves every step back without copying data;
    // only the new current step is filled, from the one just before it.
    std::rotate(steps.rbegin(), steps.rbegin() + 1, steps.rend());
    steps[0]->CopyFrom(*steps[1]);
  }
}

DataColumn& NodalDatabase::HistoricalColumnBase(const VariableBase& variable, int step) {
  const int slot = Slot(variable.StorageVariable());
  if (slot < 0)
    TESSERA_ERROR("variable ", variable.Name(),
                  " is not a historical (solution-step) variable of this model part; add it "
                  "with AddNodalSolutionStepVariable before reading nodes");
  if (step < 0 || step >= buffer_size_)
    TESSERA_ERROR("step ", step, " of ", variable.Name(), " is outside the buffer of size ",
                  buffer_size_);
  return *historical_[slot][step];
}

Value NodalDatabase::GetHistorical(const VariableBase& variable, IndexType node, int step) {
  if (variable.IsComponent()) {
    auto& column = static_cast<TypedDataColumn<Array3>&>(HistoricalColumnBase(variable, step));
    return column[node][variable.ComponentIndex()];
  }
  return HistoricalColumnBase(variable, step).Get(node);
}

void NodalDatabase::SetHistorical(const VariableBase& variable, IndexType node, const Value& value,
                                  int step) {
  const Value converted = ConvertValueFor(variable, value);
  if (variable.IsComponent()) {
    auto& column = static_cast<TypedDataColumn<Array3>&>(HistoricalColumnBase(variable, step));
    column[node][variable.ComponentIndex()] = std::get<double>(converted);
    return;
  }
  HistoricalColumnBase(variable, step).Set(node, converted);
}

DataColumn& NodalDatabase::NonHistoricalColumnBase(const VariableBase& variable) {
  const VariableBase& storage = variable.StorageVariable();
  auto it = non_historical_.find(storage.Id());
  if (it == non_historical_.end()) {
    NonHistoricalEntry entry{MakeDataColumn(storage, ids_.size()),
                             std::vector<std::uint8_t>(ids_.size(), 0)};
    it = non_historical_.emplace(storage.Id(), std::move(entry)).first;
  }
  return *it->second.column;
}

void NodalDatabase::MarkSet(const VariableBase& variable, IndexType node) {
  non_historical_.at(variable.StorageVariable().Id()).is_set[node] = 1;
}

bool NodalDatabase::HasNonHistorical(const VariableBase& variable, IndexType node) const {
  auto it = non_historical_.find(variable.StorageVariable().Id());
  return it != non_historical_.end() && it->second.is_set[node];
}

Value NodalDatabase::GetNonHistorical(const VariableBase& variable, IndexType node) const {
  auto it = non_historical_.find(variable.StorageVariable().Id());
  if (it == non_historical_.end())
    return variable.IsComponent() ? Value(0.0) : ZeroValueOf(variable);
  const Value v = it->second.column->Get(node);
  return variable.IsComponent() ? Value(std::get<Array3>(v)[variable.ComponentIndex()]) : v;
}

void NodalDatabase::SetNonHistorical(const VariableBase& variable, IndexType node,
                                     const Value& value) {
  const Value converted = ConvertValueFor(variable, value);
  DataColumn& column = NonHistoricalColumnBase(variable);
  MarkSet(variable, node);
  if (variable.IsComponent()) {
    auto& c = static_cast<TypedDataColumn<Array3>&>(column);
    c[node][variable.ComponentIndex()] = std::get<double>(converted);
    return;
  }
  column.Set(node, converted);
}

DofColumn* NodalDatabase::FindDofColumn(const VariableBase& variable) {
  for (DofColumn& d : dofs_)
    if (d.variable == &variable) return &d;
  return nullptr;
}

const DofColumn* NodalDatabase::FindDofColumn(const VariableBase& variable) const {
  for (const DofColumn& d : dofs_)
    if (d.variable == &variable) return &d;
  return nullptr;
}

DofColumn& NodalDatabase::GetOrAddDofColumn(const VariableBase& variable,
                                            const VariableBase* reaction) {
  if (DofColumn* d = FindDofColumn(variable)) {
    if (reaction && !d->reaction) d->reaction = reaction;
    return *d;
  }
  if (variable.Kind() != ValueKind::Double)
    TESSERA_ERROR("a degree of freedom must be a scalar or a component; ", variable.Name(),
                  " holds a ", ValueKindName(variable.Kind()));
  const std::size_t n = ids_.size();
  dofs_.push_back(DofColumn{&variable, reaction, std::vector<std::uint8_t>(n, 0),
                            std::vector<std::uint8_t>(n, 0), std::vector<IdType>(n, 0)});
  return dofs_.back();
}

void NodalDatabase::AddDof(const VariableBase& variable, IndexType node,
                           const VariableBase* reaction) {
  GetOrAddDofColumn(variable, reaction).present[node] = 1;
}

bool NodalDatabase::HasDof(const VariableBase& variable, IndexType node) const {
  const DofColumn* d = FindDofColumn(variable);
  return d && d->present[node];
}

void NodalDatabase::Fix(const VariableBase& variable, IndexType node) {
  DofColumn& d = GetOrAddDofColumn(variable, nullptr);
  d.present[node] = 1;
  d.fixed[node] = 1;
}

void NodalDatabase::Free(const VariableBase& variable, IndexType node) {
  if (DofColumn* d = FindDofColumn(variable)) d->fixed[node] = 0;
}

bool NodalDatabase::IsFixed(const VariableBase& variable, IndexType node) const {
  const DofColumn* d = FindDofColumn(variable);
  return d && d->fixed[node];
}

IdType& NodalDatabase::EquationId(const VariableBase& variable, IndexType node) {
  DofColumn* d = FindDofColumn(variable);
  if (!d || !d->present[node])
    TESSERA_ERROR("node ", ids_[node], " has no degree of freedom ", variable.Name());
  return d->equation_id[node];
}

}  // namespace tessera
