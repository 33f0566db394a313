// NodalDatabase: everything a root model part knows per node, as columns.
//
// Ids, coordinates, flags, historical variables (a buffer of past steps per
// variable), non-historical values and degrees of freedom (fixity, equation
// ids) are each one contiguous array indexed by the node's position. Sub model
// parts and elements refer to nodes by that position. Removing nodes compacts
// every column and reports the old-to-new position map.
#pragma once

#include <limits>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "kernel/core/flags.h"
#include "kernel/model/data_column.h"
#include "kernel/model/id_index_map.h"

namespace tessera {

// The degrees of freedom of one variable (DISPLACEMENT_X, TEMPERATURE...) over all nodes.
struct DofColumn {
  const VariableBase* variable = nullptr;
  const VariableBase* reaction = nullptr;  // may be null
  std::vector<std::uint8_t> present;       // the node has this dof
  std::vector<std::uint8_t> fixed;         // Dirichlet-constrained
  std::vector<IdType> equation_id;
};

class NodalDatabase {
 public:
  explicit NodalDatabase(int buffer_size = 1);

  // ---- nodes
  std::size_t Size() const { return ids_.size(); }
  // Appends a node; an id already present is an error.
  IndexType AddNode(IdType id, const Array3& coordinates);
  IndexType FindIndex(IdType id) const;  // kInvalidIndex if absent
  IndexType IndexOf(IdType id) const;    // error if absent
  bool HasNode(IdType id) const { return FindIndex(id) != kInvalidIndex; }
  IdType Id(IndexType i) const { return ids_[i]; }
  void SetId(IndexType i, IdType id);
  Array3& Coordinates(IndexType i) { return coordinates_[i]; }
  const Array3& Coordinates(IndexType i) const { return coordinates_[i]; }
  Array3& InitialCoordinates(IndexType i) { return initial_coordinates_[i]; }
  const Array3& InitialCoordinates(IndexType i) const { return initial_coordinates_[i]; }
  std::vector<Array3>& AllCoordinates() { return coordinates_; }
  std::vector<Array3>& AllInitialCoordinates() { return initial_coordinates_; }
  const std::vector<IdType>& AllIds() const { return ids_; }
  FlagWord& Flags(IndexType i) { return flags_[i]; }
  FlagWord Flags(IndexType i) const { return flags_[i]; }
  void Reserve(std::size_t n);

  // Removes the nodes for which remove[i] is true; returns old -> new positions
  // (kInvalidIndex for removed nodes).
  std::vector<IndexType> RemoveNodes(const std::vector<std::uint8_t>& remove);
  // Reorders the nodes: the node at position order[k] moves to position k
  // (order must be a permutation of 0..Size()-1); returns old -> new positions.
  std::vector<IndexType> PermuteNodes(const std::vector<IndexType>& order);
  // Keeps the nodes at positions order[k] (each at most once), moved to
  // position k, and removes the others: a removal and a reordering in one
  // pass over the columns. Returns old -> new positions (kInvalidIndex for
  // removed nodes).
  std::vector<IndexType> KeepNodesInOrder(const std::vector<IndexType>& order);
  // Counts the changes of positions of existing nodes (removal, reordering):
  // Node handles compare it to find out that their position moved.
  std::uint64_t Layout() const { return layout_; }

  // ---- historical variables (a buffer of BufferSize() steps; step 0 = current)
  void AddHistoricalVariable(const VariableBase& variable);
  bool HasHistoricalVariable(const VariableBase& variable) const {
    return Slot(variable.StorageVariable()) >= 0;
  }
  std::vector<const VariableBase*> HistoricalVariables() const;
  int BufferSize() const { return buffer_size_; }
  void SetBufferSize(int size);
  // Moves every step one back (step k+1 <- step k) and starts the new step 0 as a
  // copy of the previous one, like Kratos' CloneSolutionStep.
  void CloneSolutionStep();

  template <class T>
  TypedDataColumn<T>& HistoricalColumn(const Variable<T>& variable, int step = 0) {
    return static_cast<TypedDataColumn<T>&>(HistoricalColumnBase(variable, step));
  }
  DataColumn& HistoricalColumnBase(const VariableBase& variable, int step = 0);

  template <class T>
  T& Historical(const Variable<T>& variable, IndexType node, int step = 0) {
    if constexpr (std::is_same_v<T, double>) {
      if (variable.IsComponent())
        return static_cast<TypedDataColumn<Array3>&>(
            HistoricalColumnBase(*variable.Source(), step))[node][variable.ComponentIndex()];
    }
    return HistoricalColumn(variable, step)[node];
  }
  Value GetHistorical(const VariableBase& variable, IndexType node, int step = 0);
  void SetHistorical(const VariableBase& variable, IndexType node, const Value& value,
                     int step = 0);

  // ---- non-historical values (a column is created on first write)
  template <class T>
  T& NonHistorical(const Variable<T>& variable, IndexType node) {
    if constexpr (std::is_same_v<T, double>) {
      if (variable.IsComponent()) {
        auto& column =
            static_cast<TypedDataColumn<Array3>&>(NonHistoricalColumnBase(*variable.Source()));
        MarkSet(*variable.Source(), node);
        return column[node][variable.ComponentIndex()];
      }
    }
    auto& column = static_cast<TypedDataColumn<T>&>(NonHistoricalColumnBase(variable));
    MarkSet(variable, node);
    return column[node];
  }
  bool HasNonHistorical(const VariableBase& variable, IndexType node) const;
  bool HasNonHistoricalColumn(const VariableBase& variable) const {
    return non_historical_.count(variable.StorageVariable().Id()) > 0;
  }
  DataColumn& NonHistoricalColumnBase(const VariableBase& variable);
  Value GetNonHistorical(const VariableBase& variable, IndexType node) const;
  void SetNonHistorical(const VariableBase& variable, IndexType node, const Value& value);

  // ---- degrees of freedom
  void AddDof(const VariableBase& variable, IndexType node, const VariableBase* reaction = nullptr);
  bool HasDof(const VariableBase& variable, IndexType node) const;
  void Fix(const VariableBase& variable, IndexType node);  // adds the dof if missing
  void Free(const VariableBase& variable, IndexType node);
  bool IsFixed(const VariableBase& variable, IndexType node) const;
  IdType& EquationId(const VariableBase& variable, IndexType node);
  DofColumn* FindDofColumn(const VariableBase& variable);
  const DofColumn* FindDofColumn(const VariableBase& variable) const;
  const std::vector<DofColumn>& DofColumns() const { return dofs_; }

 private:
  friend struct CheckpointAccess;  // kernel/io/model_part_checkpoint.cpp
  int Slot(const VariableBase& storage_variable) const {
    const auto id = storage_variable.Id();
    return id < slot_of_variable_.size() ? slot_of_variable_[id] : -1;
  }
  void MarkSet(const VariableBase& variable, IndexType node);
  DofColumn& GetOrAddDofColumn(const VariableBase& variable, const VariableBase* reaction);
  // Every column keeps the rows kept[0], kept[1], ... in that order.
  void GatherRows(const std::vector<IndexType>& kept);

  int buffer_size_;
  std::uint64_t layout_ = 0;
  std::vector<IdType> ids_;
  IdIndexMap index_of_id_;
  std::vector<Array3> coordinates_, initial_coordinates_;
  std::vector<FlagWord> flags_;

  std::vector<int> slot_of_variable_;  // variable id -> slot in historical_, or -1
  std::vector<std::vector<std::unique_ptr<DataColumn>>> historical_;  // [slot][step]

  struct NonHistoricalEntry {
    std::unique_ptr<DataColumn> column;
    std::vector<std::uint8_t> is_set;
  };
  std::unordered_map<std::uint32_t, NonHistoricalEntry> non_historical_;

  std::vector<DofColumn> dofs_;
};

}  // namespace tessera
