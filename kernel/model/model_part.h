// ModelPart: a mesh with its data — nodes, elements, conditions, geometries,
// constraints, properties, tables, process info — and named sub model parts at
// any depth.
//
// The root model part owns everything: the NodalDatabase (per-node columns) and
// the entity objects. A sub model part holds sorted sets of positions into the
// root's containers; adding an entity to a sub model part adds it to all its
// ancestors, so a parent always contains its children.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kernel/model/element.h"
#include "kernel/model/master_slave_constraint.h"

namespace tessera {

class Model;

class ModelPart {
 public:
  using IndexSet = std::vector<IndexType>;  // sorted, unique positions in the root

  // ---- ranges over members (positions resolved against the root)
  class NodeRange {
   public:
    class iterator {
     public:
      iterator(NodalDatabase* db, const IndexType* p) : db_(db), p_(p) {}
      Node operator*() const { return Node(db_, *p_); }
      iterator& operator++() {
        ++p_;
        return *this;
      }
      bool operator!=(const iterator& o) const { return p_ != o.p_; }
      bool operator==(const iterator& o) const { return p_ == o.p_; }

     private:
      NodalDatabase* db_;
      const IndexType* p_;
    };
    NodeRange(NodalDatabase* db, const IndexSet& set) : db_(db), set_(&set) {}
    iterator begin() const { return {db_, set_->data()}; }
    iterator end() const { return {db_, set_->data() + set_->size()}; }
    std::size_t size() const { return set_->size(); }
    Node operator[](std::size_t i) const { return Node(db_, (*set_)[i]); }

   private:
    NodalDatabase* db_;
    const IndexSet* set_;
  };

  template <class T>
  class EntityRange {
   public:
    class iterator {
     public:
      iterator(const std::vector<std::unique_ptr<T>>* all, const IndexType* p) : all_(all), p_(p) {}
      T& operator*() const { return *(*all_)[*p_]; }
      T* operator->() const { return (*all_)[*p_].get(); }
      iterator& operator++() {
        ++p_;
        return *this;
      }
      bool operator!=(const iterator& o) const { return p_ != o.p_; }
      bool operator==(const iterator& o) const { return p_ == o.p_; }

     private:
      const std::vector<std::unique_ptr<T>>* all_;
      const IndexType* p_;
    };
    EntityRange(const std::vector<std::unique_ptr<T>>& all, const IndexSet& set)
        : all_(&all), set_(&set) {}
    iterator begin() const { return {all_, set_->data()}; }
    iterator end() const { return {all_, set_->data() + set_->size()}; }
    std::size_t size() const { return set_->size(); }
    T& operator[](std::size_t i) const { return *(*all_)[(*set_)[i]]; }

   private:
    const std::vector<std::unique_ptr<T>>* all_;
    const IndexSet* set_;
  };

  // A root model part (made by Model::CreateModelPart).
  ModelPart(std::string name, int buffer_size, Model* model);
  // A sub model part (made by CreateSubModelPart).
  ModelPart(std::string name, ModelPart* parent);
  ModelPart(const ModelPart&) = delete;
  ModelPart& operator=(const ModelPart&) = delete;
  ~ModelPart();

  // ---- identity
  const std::string& Name() const { return name_; }
  std::string FullName() const;  // "Root.Child.Grandchild"
  bool IsSubModelPart() const { return parent_ != nullptr; }
  ModelPart& GetParentModelPart() { return parent_ ? *parent_ : *this; }
  ModelPart& GetRootModelPart() { return *root_; }
  const ModelPart& GetRootModelPart() const { return *root_; }
  Model& GetModel() const { return *model_; }

  // ---- nodal variables and time
  void AddNodalSolutionStepVariable(const VariableBase& variable);
  bool HasNodalSolutionStepVariable(const VariableBase& variable) const;
  int GetBufferSize() const;
  void SetBufferSize(int size);
  NodalDatabase& Nodal() { return *root_->nodal_; }
  const NodalDatabase& Nodal() const { return *root_->nodal_; }
  ProcessInfo& GetProcessInfo() { return *root_->process_info_; }
  const ProcessInfo& GetProcessInfo() const { return *root_->process_info_; }
  // Advances the nodal buffer and process info one step and sets TIME and
  // DELTA_TIME (= time - previous TIME), as Kratos' CloneTimeStep does. STEP is
  // left to the solver or stage (Kratos' AdvanceInTime increments it). Root only.
  void CloneTimeStep(double time);

  // ---- nodes
  Node CreateNewNode(IdType id, double x, double y, double z);
  void AddNode(IdType id);
  void AddNodes(std::span<const IdType> ids);
  void AddNodesByIndex(IndexSet indices);  // any order, duplicates allowed
  bool HasNode(IdType id) const;
  Node GetNode(IdType id);
  std::size_t NumberOfNodes() const { return nodes_.size(); }
  const IndexSet& NodeIndices() const { return nodes_; }
  NodeRange Nodes() { return NodeRange(root_->nodal_.get(), nodes_); }

  // ---- elements and conditions (objects owned by the root)
  Element& CreateNewElement(const std::string& name, IdType id, std::span<const IdType> node_ids,
                            Properties::Pointer properties);
  Condition& CreateNewCondition(const std::string& name, IdType id,
                                std::span<const IdType> node_ids, Properties::Pointer properties);
  // Inserts an already built element/condition into the root and this part.
  Element& AddElement(Element::Pointer element);
  Condition& AddCondition(Condition::Pointer condition);
  void AddElements(std::span<const IdType> ids);
  void AddConditions(std::span<const IdType> ids);
  void AddElementsByIndex(IndexSet indices);
  void AddConditionsByIndex(IndexSet indices);
  bool HasElement(IdType id) const;
  bool HasCondition(IdType id) const;
  Element& GetElement(IdType id);
  Condition& GetCondition(IdType id);
  std::size_t NumberOfElements() const { return elements_.size(); }
  std::size_t NumberOfConditions() const { return conditions_.size(); }
  const IndexSet& ElementIndices() const { return elements_; }
  const IndexSet& ConditionIndices() const { return conditions_; }
  EntityRange<Element> Elements() { return {root_->all_elements_, elements_}; }
  EntityRange<Condition> Conditions() { return {root_->all_conditions_, conditions_}; }

  // ---- mesh geometries (the .mdpa Geometries block: ids independent of elements)
  Geometry& CreateNewGeometry(const std::string& type_name, IdType id,
                              std::span<const IdType> node_ids);
  void AddGeometries(std::span<const IdType> ids);
  bool HasGeometry(IdType id) const;
  Geometry& GetGeometry(IdType id);
  std::size_t NumberOfGeometries() const { return geometries_.size(); }
  const IndexSet& GeometryIndices() const { return geometries_; }
  IdType GeometryId(IndexType index) const { return root_->geometry_ids_[index]; }
  Geometry& GeometryAt(IndexType index) { return root_->all_geometries_[index]; }

  // ---- master-slave constraints
  MasterSlaveConstraint& AddMasterSlaveConstraint(MasterSlaveConstraint constraint);
  void AddMasterSlaveConstraints(std::span<const IdType> ids);
  bool HasMasterSlaveConstraint(IdType id) const;
  MasterSlaveConstraint& GetMasterSlaveConstraint(IdType id);
  std::size_t NumberOfMasterSlaveConstraints() const { return constraints_.size(); }
  const IndexSet& MasterSlaveConstraintIndices() const { return constraints_; }
  MasterSlaveConstraint& MasterSlaveConstraintAt(IndexType index) {
    return root_->all_constraints_[index];
  }

  // ---- removal (on any level; removes from the root and every sub model part)
  // Removes nodes whose flag is set; an element or condition still using one is an error.
  void RemoveNodesFlagged(const Flag& flag);
  void RemoveElementsFlagged(const Flag& flag);
  void RemoveConditionsFlagged(const Flag& flag);
  // Reorders the root's nodes (on any level: the root's database): the node at
  // position order[k] moves to position k. Ids, values, sub model parts,
  // elements, conditions, geometries and constraints follow; Node handles find
  // their node again (node.h). For locality: a strategy that reads nodes in
  // its own order lays them out in that order.
  void ReorderNodes(const std::vector<IndexType>& order);
  // As ReorderNodes, but the nodes absent from `order` are removed (as by
  // RemoveNodesFlagged: no element, condition or geometry may use them, and
  // constraints that use them go): one pass over the nodal columns instead
  // of a removal and a reordering (the distributed DEM's rows, which leave
  // and arrive at each search and are kept in key order).
  void KeepNodesInOrder(const std::vector<IndexType>& order);

  // ---- properties (shared objects owned by the root)
  Properties::Pointer CreateNewProperties(IdType id);  // returns the existing one if present
  void AddProperties(Properties::Pointer properties);
  void AddPropertiesById(IdType id);
  bool HasProperties(IdType id) const;
  Properties::Pointer GetProperties(IdType id);
  Properties::Pointer GetPropertiesOrCreate(IdType id);
  std::size_t NumberOfProperties() const { return properties_.size(); }
  std::vector<Properties::Pointer> PropertiesList() const;

  // ---- tables (owned by the root; sub model parts list ids)
  void AddTable(IdType id, Table table);
  void AddTableById(IdType id);
  bool HasTable(IdType id) const;
  Table& GetTable(IdType id);
  std::size_t NumberOfTables() const { return tables_.size(); }
  std::vector<IdType> TableIds() const;

  // ---- data of the model part itself (ModelPartData / SubModelPartData)
  DataValueContainer& Data() { return data_; }
  const DataValueContainer& Data() const { return data_; }
  template <class T>
  T GetValue(const Variable<T>& variable) const {
    return data_.GetValue(variable);
  }
  template <class T>
  void SetValue(const Variable<T>& variable, const T& value) {
    data_.SetValue(variable, value);
  }
  bool Has(const VariableBase& variable) const { return data_.Has(variable); }

  // ---- sub model parts; names may be dotted paths ("Inlets.Inlet1")
  ModelPart& CreateSubModelPart(const std::string& name);
  bool HasSubModelPart(const std::string& name) const;
  ModelPart& GetSubModelPart(const std::string& name);
  void RemoveSubModelPart(const std::string& name);
  std::size_t NumberOfSubModelParts() const { return children_.size(); }
  std::vector<std::string> GetSubModelPartNames() const;
  std::vector<ModelPart*> SubModelParts();

 private:
  friend struct CheckpointAccess;  // kernel/io/model_part_checkpoint.cpp
  ModelPart* FindChild(const std::string& name) const;
  template <class Fn>
  void ForEachInTree(Fn&& fn);
  void RemapAll(std::vector<IndexType> ModelPart::*set, const std::vector<IndexType>& new_index);
  // The node positions of every element, condition and mesh geometry of the
  // root through new_index (after a removal or a reordering of the nodes).
  void RemapGeometryNodes(const std::vector<IndexType>& new_index);
  // An error where an element, condition or geometry of the root uses a node
  // with remove[i] set.
  void CheckNoUsers(const std::vector<std::uint8_t>& remove) const;
  // The constraints through new_index after a removal: those that lost a node go.
  void RemapConstraintsAfterRemoval(const std::vector<IndexType>& new_index);
  IndexType ElementIndexOf(IdType id) const;
  IndexType ConditionIndexOf(IdType id) const;

  std::string name_;
  ModelPart* parent_ = nullptr;
  ModelPart* root_ = nullptr;
  Model* model_ = nullptr;

  IndexSet nodes_, elements_, conditions_, geometries_, constraints_;
  std::map<IdType, Properties::Pointer> properties_;
  std::vector<IdType> tables_;  // sorted ids
  DataValueContainer data_;
  std::map<std::string, std::unique_ptr<ModelPart>> children_;

  // Owned by the root only.
  std::unique_ptr<NodalDatabase> nodal_;
  std::unique_ptr<ProcessInfo> process_info_;
  std::vector<Element::Pointer> all_elements_;
  std::vector<Condition::Pointer> all_conditions_;
  std::vector<Geometry> all_geometries_;
  std::vector<IdType> geometry_ids_;
  std::vector<MasterSlaveConstraint> all_constraints_;
  IdIndexMap element_index_, condition_index_, geometry_index_, constraint_index_;
  std::map<IdType, Table> all_tables_;
};

}  // namespace tessera
