// Node: a light handle (database, position) on one row of a NodalDatabase.
//
// Nodes are not heap objects: a handle is two words and is created on the fly
// when iterating a model part. It stays valid until nodes are removed from its
// root model part (removal compacts the rows).
#pragma once

#include "kernel/model/nodal_database.h"

namespace tessera {

class Node {
 public:
  Node(NodalDatabase* database, IndexType index) : db_(database), index_(index) {}

  IdType Id() const { return db_->Id(index_); }
  IndexType Index() const { return index_; }
  NodalDatabase& Database() const { return *db_; }

  // Current and initial (reference) coordinates.
  Array3& Coordinates() const { return db_->Coordinates(index_); }
  Array3& InitialCoordinates() const { return db_->InitialCoordinates(index_); }
  double X() const { return Coordinates()[0]; }
  double Y() const { return Coordinates()[1]; }
  double Z() const { return Coordinates()[2]; }
  double X0() const { return InitialCoordinates()[0]; }
  double Y0() const { return InitialCoordinates()[1]; }
  double Z0() const { return InitialCoordinates()[2]; }

  // Historical (solution-step) values; step 0 is the current step.
  template <class T>
  T& GetSolutionStepValue(const Variable<T>& variable, int step = 0) const {
    return db_->Historical(variable, index_, step);
  }
  template <class T>
  T& FastGetSolutionStepValue(const Variable<T>& variable, int step = 0) const {
    return db_->Historical(variable, index_, step);
  }
  bool SolutionStepsDataHas(const VariableBase& variable) const {
    return db_->HasHistoricalVariable(variable);
  }

  // Non-historical values.
  template <class T>
  T& GetValue(const Variable<T>& variable) const {
    return db_->NonHistorical(variable, index_);
  }
  template <class T>
  void SetValue(const Variable<T>& variable, const T& value) const {
    db_->NonHistorical(variable, index_) = value;
  }
  bool Has(const VariableBase& variable) const { return db_->HasNonHistorical(variable, index_); }

  // Degrees of freedom.
  void AddDof(const VariableBase& variable, const VariableBase* reaction = nullptr) const {
    db_->AddDof(variable, index_, reaction);
  }
  bool HasDofFor(const VariableBase& variable) const { return db_->HasDof(variable, index_); }
  void Fix(const VariableBase& variable) const { db_->Fix(variable, index_); }
  void Free(const VariableBase& variable) const { db_->Free(variable, index_); }
  bool IsFixed(const VariableBase& variable) const { return db_->IsFixed(variable, index_); }

  // Flags.
  bool Is(const Flag& flag) const { return (db_->Flags(index_) & flag.Mask()) != 0; }
  void Set(const Flag& flag, bool value = true) const {
    FlagWord& word = db_->Flags(index_);
    word = value ? (word | flag.Mask()) : (word & ~flag.Mask());
  }

  friend bool operator==(const Node& a, const Node& b) {
    return a.db_ == b.db_ && a.index_ == b.index_;
  }

 private:
  NodalDatabase* db_;
  IndexType index_;
};

}  // namespace tessera
