// DofSet: the degrees of freedom a model part's elements and conditions act on,
// and their equation numbering.
//
// Fixed dofs are eliminated: the free dofs get equations 0 .. NumberOfFreeDofs()-1
// and the fixed ones the numbers after them, so the system solved is the
// free x free block and the fixed rows of the right-hand side give the
// reactions. Numbering runs over node positions, and within a node over the
// database's dof columns (DISPLACEMENT_X, _Y, _Z ...), so the dofs of a node are
// neighbours and the result does not depend on the thread count.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "kernel/core/error.h"
#include "kernel/core/flags.h"
#include "kernel/model/model_part.h"
#include "kernel/solving/sparse_types.h"

namespace tessera {

class DofSet {
 public:
  struct Dof {
    IndexType node;        // position in the nodal database
    std::uint32_t column;  // index into NodalDatabase::DofColumns()
  };

  // The active elements and conditions of a model part (what every loop of the
  // solving stack runs over), elements first, in model part order.
  static std::vector<Entity*> ActiveEntities(ModelPart& model_part) {
    std::vector<Entity*> entities;
    entities.reserve(model_part.NumberOfElements() + model_part.NumberOfConditions());
    for (Element& e : model_part.Elements())
      if (e.Is(ACTIVE)) entities.push_back(&e);
    for (Condition& c : model_part.Conditions())
      if (c.Is(ACTIVE)) entities.push_back(&c);
    return entities;
  }

  // Collects the dofs the entities list (GetDofList) and numbers them. Every
  // listed dof must have been added to its node (Node::AddDof) and its variable
  // must be a solution-step variable; errors name the entity, node and variable.
  void SetUp(ModelPart& model_part) {
    NodalDatabase& db = model_part.Nodal();
    db_ = &db;
    const auto& columns = db.DofColumns();
    const std::size_t n_nodes = db.Size();
    std::vector<std::vector<std::uint8_t>> used(columns.size(),
                                                std::vector<std::uint8_t>(n_nodes, 0));
    const std::vector<Entity*> entities = ActiveEntities(model_part);
    const ProcessInfo& info = model_part.GetProcessInfo();
    std::vector<std::vector<DofReference>> buffers(static_cast<std::size_t>(ParallelThreads()));
    ParallelForChecked(entities.size(), [&](std::size_t k) {
      auto& dofs = buffers[static_cast<std::size_t>(omp_get_thread_num())];
      entities[k]->GetDofList(dofs, info);
      for (const DofReference& d : dofs) {
        const std::uint32_t c = ColumnOf(*d.variable, *entities[k], d.node);
        // Every writer stores the same 1: atomic only to keep the race defined.
        std::atomic_ref<std::uint8_t>(used[c][d.node]).store(1, std::memory_order_relaxed);
      }
    });
    for (std::size_t c = 0; c < columns.size(); ++c) {
      bool any = false;
      for (std::uint8_t u : used[c]) any = any || u;
      if (!any) continue;
      const VariableBase& v = *columns[c].variable;
      if (!db.HasHistoricalVariable(v))
        TESSERA_ERROR("degree of freedom ", v.Name(), ": ", v.StorageVariable().Name(),
                      " must be a solution-step variable of the model part (add it before "
                      "reading the mesh)");
      if (columns[c].reaction && !db.HasHistoricalVariable(*columns[c].reaction))
        TESSERA_ERROR("reaction ", columns[c].reaction->Name(), " of dof ", v.Name(), ": ",
                      columns[c].reaction->StorageVariable().Name(),
                      " must be a solution-step variable of the model part");
    }
    dofs_.clear();
    for (IndexType node = 0; node < n_nodes; ++node)
      for (std::uint32_t c = 0; c < columns.size(); ++c)
        if (used[c][node]) dofs_.push_back({node, c});
    Number();
  }

  // Renumbers the collected dofs for the current fixity (free first).
  void Number() {
    const auto& columns = db_->DofColumns();
    std::vector<DofColumn*> writable;  // the same columns, for writing equation ids
    for (const DofColumn& c : columns) writable.push_back(db_->FindDofColumn(*c.variable));
    std::vector<Dof> ordered;
    ordered.reserve(dofs_.size());
    for (int pass = 0; pass < 2; ++pass) {
      const bool want_fixed = pass == 1;
      if (want_fixed) n_free_ = ordered.size();
      for (const Dof& d : dofs_)
        if ((columns[d.column].fixed[d.node] != 0) == want_fixed) ordered.push_back(d);
    }
    dofs_.swap(ordered);
    fixed_.resize(dofs_.size());
    for (std::size_t eq = 0; eq < dofs_.size(); ++eq) {
      const Dof& d = dofs_[eq];
      writable[d.column]->equation_id[d.node] = static_cast<IdType>(eq);
      fixed_[eq] = columns[d.column].fixed[d.node];
    }
  }

  // Whether a dof was fixed or freed since the last numbering.
  bool FixityChanged() const {
    const auto& columns = db_->DofColumns();
    for (std::size_t eq = 0; eq < dofs_.size(); ++eq)
      if (columns[dofs_[eq].column].fixed[dofs_[eq].node] != fixed_[eq]) return true;
    return false;
  }

  std::size_t size() const { return dofs_.size(); }
  std::size_t NumberOfFreeDofs() const { return n_free_; }
  std::size_t NumberOfFixedDofs() const { return dofs_.size() - n_free_; }
  const std::vector<Dof>& Dofs() const { return dofs_; }  // in equation order
  bool IsSetUp() const { return db_ != nullptr; }
  NodalDatabase& Database() const { return *db_; }

  // The variable of a dof and its current (step 0) value.
  const Variable<double>& VariableOf(std::size_t eq) const {
    return static_cast<const Variable<double>&>(*db_->DofColumns()[dofs_[eq].column].variable);
  }
  double& Value(std::size_t eq) const { return db_->Historical(VariableOf(eq), dofs_[eq].node); }
  // (node, component) of a dof that is a component of the vector variable
  // `source` (DISPLACEMENT_Y of DISPLACEMENT: component 1); `who` names the
  // caller in the error otherwise.
  std::pair<IndexType, int> NodeAndComponent(std::size_t eq, const VariableBase& source,
                                             const char* who) const {
    const Variable<double>& v = VariableOf(eq);
    TESSERA_CHECK(v.IsComponent() && v.Source() == &source, who, ": dof ", v.Name(),
                  " is not a component of ", source.Name());
    return {dofs_[eq].node, v.ComponentIndex()};
  }
  // The reaction variable of a dof's column, or nullptr.
  const Variable<double>* ReactionOf(std::size_t eq) const {
    return static_cast<const Variable<double>*>(db_->DofColumns()[dofs_[eq].column].reaction);
  }

 private:
  std::uint32_t ColumnOf(const VariableBase& variable, const Entity& entity, IndexType node) const {
    const auto& columns = db_->DofColumns();
    for (std::uint32_t c = 0; c < columns.size(); ++c)
      if (columns[c].variable == &variable) {
        if (!columns[c].present[node]) break;
        return c;
      }
    TESSERA_ERROR(entity.Info(), " acts on ", variable.Name(), " of node ", db_->Id(node),
                  ", which has no such degree of freedom (the solver adds dofs with "
                  "Node::AddDof before the strategy is set up)");
  }

  NodalDatabase* db_ = nullptr;
  std::vector<Dof> dofs_;
  std::vector<std::uint8_t> fixed_;
  std::size_t n_free_ = 0;
};

}  // namespace tessera
