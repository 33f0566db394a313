// Node: a light handle (database, position) on one row of a NodalDatabase.
//
// Nodes are not heap objects: a handle is a few words and is created on the
// fly when iterating a model part. Removing nodes compacts the rows and a
// strategy may reorder them (the DEM keeps its spheres' nodes in the order of
// its particle rows); a handle notices such a change of layout by the
// database's layout counter and finds its node again by id, so a handle a
// script keeps across steps stays valid as long as its node exists (after
// that, using it is an error naming the node).
#pragma once

#include "kernel/core/error.h"
#include "kernel/model/nodal_database.h"

namespace tessera {

class Node {
 public:
  Node(NodalDatabase* database, IndexType index)
      : db_(database), index_(index), id_(database->Id(index)), layout_(database->Layout()) {}

  IdType Id() const { return db_->Id(Index()); }
  // The node's current position in the database.
  IndexType Index() const {
    if (layout_ != db_->Layout()) Relocate();
    return index_;
  }
  NodalDatabase& Database() const { return *db_; }

  // Current and initial (reference) coordinates.
  Array3& Coordinates() const { return db_->Coordinates(Index()); }
  Array3& InitialCoordinates() const { return db_->InitialCoordinates(Index()); }
  double X() const { return Coordinates()[0]; }
  double Y() const { return Coordinates()[1]; }
  double Z() const { return Coordinates()[2]; }
  double X0() const { return InitialCoordinates()[0]; }
  double Y0() const { return InitialCoordinates()[1]; }
  double Z0() const { return InitialCoordinates()[2]; }

  // Historical (solution-step) values; step 0 is the current step.
  template <class T>
  T& GetSolutionStepValue(const Variable<T>& variable, int step = 0) const {
    return db_->Historical(variable, Index(), step);
  }
  template <class T>
  T& FastGetSolutionStepValue(const Variable<T>& variable, int step = 0) const {
    return db_->Historical(variable, Index(), step);
  }
  bool SolutionStepsDataHas(const VariableBase& variable) const {
    return db_->HasHistoricalVariable(variable);
  }

  // Non-historical values.
  template <class T>
  T& GetValue(const Variable<T>& variable) const {
    return db_->NonHistorical(variable, Index());
  }
  template <class T>
  void SetValue(const Variable<T>& variable, const T& value) const {
    db_->NonHistorical(variable, Index()) = value;
  }
  bool Has(const VariableBase& variable) const { return db_->HasNonHistorical(variable, Index()); }

  // Degrees of freedom.
  void AddDof(const VariableBase& variable, const VariableBase* reaction = nullptr) const {
    db_->AddDof(variable, Index(), reaction);
  }
  bool HasDofFor(const VariableBase& variable) const { return db_->HasDof(variable, Index()); }
  void Fix(const VariableBase& variable) const { db_->Fix(variable, Index()); }
  void Free(const VariableBase& variable) const { db_->Free(variable, Index()); }
  bool IsFixed(const VariableBase& variable) const { return db_->IsFixed(variable, Index()); }

  // Flags.
  bool Is(const Flag& flag) const { return (db_->Flags(Index()) & flag.Mask()) != 0; }
  void Set(const Flag& flag, bool value = true) const {
    FlagWord& word = db_->Flags(Index());
    word = value ? (word | flag.Mask()) : (word & ~flag.Mask());
  }

  friend bool operator==(const Node& a, const Node& b) {
    return a.db_ == b.db_ && a.Index() == b.Index();
  }

 private:
  // After a change of layout: the node's new position, found by id. This
  // updates the handle itself, so one handle must not be used by two threads
  // at once.
  void Relocate() const {
    const IndexType found = db_->FindIndex(id_);
    if (found == kInvalidIndex)
      TESSERA_ERROR("node ", id_, " was removed from its model part; this handle is stale");
    index_ = found;
    layout_ = db_->Layout();
  }

  NodalDatabase* db_;
  mutable IndexType index_;
  IdType id_;
  mutable std::uint64_t layout_;
};

}  // namespace tessera
