// Scheme: how a solving strategy turns the entities' local contributions into
// the system and the solution increment back into nodal values (Kratos'
// Scheme). The static scheme here is ResidualBasedIncrementalUpdateStaticScheme:
// local systems are the entities' own (tangent, residual), and the update adds
// the increment to the dofs' current values.
#pragma once

#include "kernel/model/model_part.h"
#include "kernel/solving/dof_set.h"

namespace tessera {

// The current (step 0) and previous (step 1) columns of a displacement-like
// vector variable and its two time derivatives, for the time integrators.
struct SecondOrderColumns {
  using Column = TypedDataColumn<Array3>;
  SecondOrderColumns(NodalDatabase& db, const Variable<Array3>& x, const Variable<Array3>& x_dot,
                     const Variable<Array3>& x_ddot)
      : u(db.HistoricalColumn(x)),
        v(db.HistoricalColumn(x_dot)),
        a(db.HistoricalColumn(x_ddot)),
        u_n(db.HistoricalColumn(x, 1)),
        v_n(db.HistoricalColumn(x_dot, 1)),
        a_n(db.HistoricalColumn(x_ddot, 1)) {}
  Column &u, &v, &a, &u_n, &v_n, &a_n;
};

class Scheme {
 public:
  using Pointer = std::shared_ptr<Scheme>;
  virtual ~Scheme() = default;

  // Entity Initialize hooks (once, before the first step).
  virtual void Initialize(ModelPart& model_part) {
    const ProcessInfo& info = model_part.GetProcessInfo();
    ForEachEntity(model_part, [&](Entity& e) { e.Initialize(info); });
    initialized_ = true;
  }
  bool IsInitialized() const { return initialized_; }

  virtual void InitializeSolutionStep(ModelPart& model_part) {
    const ProcessInfo& info = model_part.GetProcessInfo();
    ForEachEntity(model_part, [&](Entity& e) { e.InitializeSolutionStep(info); });
  }
  virtual void FinalizeSolutionStep(ModelPart& model_part) {
    const ProcessInfo& info = model_part.GetProcessInfo();
    ForEachEntity(model_part, [&](Entity& e) { e.FinalizeSolutionStep(info); });
  }
  virtual void InitializeNonLinIteration(ModelPart& model_part) {
    const ProcessInfo& info = model_part.GetProcessInfo();
    ForEachEntity(model_part, [&](Entity& e) { e.InitializeNonLinearIteration(info); });
  }
  virtual void FinalizeNonLinIteration(ModelPart& model_part) {
    const ProcessInfo& info = model_part.GetProcessInfo();
    ForEachEntity(model_part, [&](Entity& e) { e.FinalizeNonLinearIteration(info); });
  }

  // Values of the unknowns before the first iteration of a step.
  virtual void Predict(ModelPart&, const DofSet&) {}
  // Adds the increment dx (one entry per free dof) to the unknowns.
  virtual void Update(ModelPart& model_part, const DofSet& dofs, const Vector& dx) = 0;

  // Local tangent and residual of one entity (LHS, RHS = f_ext - f_int).
  virtual void CalculateSystemContributions(Entity& e, Matrix& lhs, Vector& rhs,
                                            const ProcessInfo& info) {
    e.CalculateLocalSystem(lhs, rhs, info);
  }
  virtual void CalculateRHSContribution(Entity& e, Vector& rhs, const ProcessInfo& info) {
    e.CalculateRightHandSide(rhs, info);
  }
  virtual void CalculateLHSContribution(Entity& e, Matrix& lhs, const ProcessInfo& info) {
    e.CalculateLeftHandSide(lhs, info);
  }

  // Entity Check()s; throws naming the first entity at fault.
  virtual int Check(ModelPart& model_part) {
    const ProcessInfo& info = model_part.GetProcessInfo();
    for (Entity* e : DofSet::ActiveEntities(model_part)) e->Check(info);
    return 0;
  }

 protected:
  template <class Fn>
  static void ForEachEntity(ModelPart& model_part, Fn&& fn) {
    const std::vector<Entity*> entities = DofSet::ActiveEntities(model_part);
    ParallelForChecked(entities.size(), [&](std::size_t k) { fn(*entities[k]); });
  }

 private:
  bool initialized_ = false;
};

class ResidualBasedIncrementalUpdateStaticScheme : public Scheme {
 public:
  void Update(ModelPart&, const DofSet& dofs, const Vector& dx) override {
    TESSERA_CHECK(static_cast<std::size_t>(dx.size()) == dofs.NumberOfFreeDofs(),
                  "static scheme: the increment has ", dx.size(), " entries for ",
                  dofs.NumberOfFreeDofs(), " free dofs");
    // Each free dof is one distinct (node, variable) entry: no two iterations write
    // the same value.
    ParallelFor(dofs.NumberOfFreeDofs(), [&](std::size_t eq) { dofs.Value(eq) += dx[eq]; });
  }
};

}  // namespace tessera
