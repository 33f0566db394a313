// Implicit solving strategies (Kratos' ResidualBasedLinearStrategy and
// ResidualBasedNewtonRaphsonStrategy) over a scheme, a builder-and-solver and,
// for Newton, a convergence criterion.
//
// One step: InitializeSolutionStep (dofs numbered on first use, renumbered when
// the fixity changed or when asked to at every step; entity step hooks; the
// step's initial residual for the criterion), Predict, SolveSolutionStep
// (iterations), FinalizeSolutionStep. Solve() runs the four.
//
// Newton iteration k: build tangent A and residual b at the current values,
// solve A dx = b, update the dofs, move the mesh (x = X + DISPLACEMENT) when
// asked, rebuild b at the new state if the criterion reads it, and test
// convergence. Reactions are -b at the last state (REACTION = f_int - f_ext at
// the supports).
#pragma once

#include <iostream>
#include <memory>

#include "kernel/core/kernel_variables.h"
#include "kernel/solving/builder_and_solver.h"
#include "kernel/solving/convergence_criteria.h"
#include "kernel/solving/scheme.h"

namespace tessera {

// x = X + u for the nodes of the model part (Kratos' MoveMesh); nothing when
// the model part has no such solution-step variable.
inline void MoveMeshByDisplacement(ModelPart& model_part, const Variable<Array3>& displacement) {
  NodalDatabase& db = model_part.Nodal();
  if (!db.HasHistoricalVariable(displacement)) return;
  auto& u = db.HistoricalColumn(displacement);
  const ModelPart::IndexSet& nodes = model_part.NodeIndices();
  ParallelFor(nodes.size(), [&](std::size_t i) {
    const IndexType n = nodes[i];
    db.Coordinates(n) = db.InitialCoordinates(n) + u[n];
  });
}

struct StrategySettings {
  int max_iterations = 30;
  bool compute_reactions = true;
  bool reform_dofs_at_each_step = false;
  // x = X + DISPLACEMENT after each update, for the nodes with DISPLACEMENT.
  bool move_mesh = false;
  int echo_level = 0;
};

class ImplicitSolvingStrategy {
 public:
  ImplicitSolvingStrategy(ModelPart& model_part, Scheme::Pointer scheme,
                          BuilderAndSolver::Pointer builder, StrategySettings settings)
      : model_part_(model_part),
        scheme_(std::move(scheme)),
        builder_(std::move(builder)),
        settings_(settings) {
    TESSERA_CHECK(scheme_ && builder_, "solving strategy needs a scheme and a builder");
  }
  virtual ~ImplicitSolvingStrategy() = default;

  virtual void Initialize() {
    if (!scheme_->IsInitialized()) scheme_->Initialize(model_part_);
    initialized_ = true;
  }

  virtual void InitializeSolutionStep() {
    if (!initialized_) Initialize();
    if (!builder_->GetDofSet().IsSetUp() || settings_.reform_dofs_at_each_step) {
      builder_->SetUpDofSet(model_part_);
      builder_->SetUpSystem(model_part_);
    } else if (builder_->FixityChanged() || !builder_->IsSystemSetUp()) {
      builder_->Renumber(model_part_);
    }
    builder_->InitializeSystem(A_, dx_, b_);
    scheme_->InitializeSolutionStep(model_part_);
    step_initialized_ = true;
  }

  virtual void Predict() {
    if (!step_initialized_) InitializeSolutionStep();
    scheme_->Predict(model_part_, builder_->GetDofSet());
    if (settings_.move_mesh) MoveMesh();
  }

  // True when the step converged.
  virtual bool SolveSolutionStep() = 0;

  virtual void FinalizeSolutionStep() {
    scheme_->FinalizeSolutionStep(model_part_);
    step_initialized_ = false;
  }

  // The whole step; returns whether it converged.
  bool Solve() {
    InitializeSolutionStep();
    Predict();
    const bool converged = SolveSolutionStep();
    FinalizeSolutionStep();
    return converged;
  }

  int Check() { return scheme_->Check(model_part_); }
  void Clear() {
    builder_->Clear();
    SparseMatrix().swap(A_);  // freed (assigning an empty one keeps the arrays)
    dx_.resize(0);
    b_.resize(0);
    step_initialized_ = false;
  }

  int GetIterationNumber() const { return iterations_; }
  const SparseMatrix& GetSystemMatrix() const { return A_; }
  const Vector& GetResidual() const { return b_; }
  const Vector& GetIncrement() const { return dx_; }
  BuilderAndSolver& GetBuilderAndSolver() { return *builder_; }
  const DofSet& GetDofSet() const { return builder_->GetDofSet(); }
  ModelPart& GetModelPart() { return model_part_; }
  StrategySettings& Settings() { return settings_; }

  // Current coordinates = initial coordinates + DISPLACEMENT (Kratos' MoveMesh).
  void MoveMesh() { MoveMeshByDisplacement(model_part_, DISPLACEMENT); }

 protected:
  // One linearised solve at the current state: build, solve, update, move mesh.
  void BuildSolveUpdate() {
    builder_->Build(*scheme_, model_part_, A_, b_);
    builder_->SystemSolve(A_, dx_, b_);
    scheme_->Update(model_part_, builder_->GetDofSet(), dx_);
    if (settings_.move_mesh) MoveMesh();
  }

  ModelPart& model_part_;
  Scheme::Pointer scheme_;
  BuilderAndSolver::Pointer builder_;
  StrategySettings settings_;
  SparseMatrix A_;
  Vector dx_, b_;
  int iterations_ = 0;
  bool initialized_ = false;
  bool step_initialized_ = false;
};

// One solve per step; for problems linear in the unknowns.
class ResidualBasedLinearStrategy : public ImplicitSolvingStrategy {
 public:
  using ImplicitSolvingStrategy::ImplicitSolvingStrategy;

  bool SolveSolutionStep() override {
    if (!step_initialized_) InitializeSolutionStep();
    model_part_.GetProcessInfo().SetValue(NL_ITERATION_NUMBER, 1);
    scheme_->InitializeNonLinIteration(model_part_);
    BuildSolveUpdate();
    scheme_->FinalizeNonLinIteration(model_part_);
    iterations_ = 1;
    if (settings_.compute_reactions) {
      builder_->BuildRHS(*scheme_, model_part_, b_);
      builder_->CalculateReactions(b_);
    }
    return true;
  }
};

class ResidualBasedNewtonRaphsonStrategy : public ImplicitSolvingStrategy {
 public:
  ResidualBasedNewtonRaphsonStrategy(ModelPart& model_part, Scheme::Pointer scheme,
                                     ConvergenceCriteria::Pointer criteria,
                                     BuilderAndSolver::Pointer builder, StrategySettings settings)
      : ImplicitSolvingStrategy(model_part, std::move(scheme), std::move(builder), settings),
        criteria_(std::move(criteria)) {
    TESSERA_CHECK(criteria_, "Newton-Raphson strategy needs a convergence criterion");
    TESSERA_CHECK(settings.max_iterations > 0, "Newton-Raphson: max_iteration must be positive");
    criteria_->SetReduction(builder_->Reduction());
  }

  void InitializeSolutionStep() override {
    ImplicitSolvingStrategy::InitializeSolutionStep();
    if (criteria_->ActualizeRHSFlag()) builder_->BuildRHS(*scheme_, model_part_, b_);
    criteria_->InitializeSolutionStep(model_part_, builder_->GetDofSet(), b_);
  }

  bool SolveSolutionStep() override {
    if (!step_initialized_) InitializeSolutionStep();
    ProcessInfo& info = model_part_.GetProcessInfo();
    bool converged = false;
    iterations_ = 0;
    bool residual_is_current = false;
    while (iterations_ < settings_.max_iterations) {
      ++iterations_;
      info.SetValue(NL_ITERATION_NUMBER, iterations_);
      scheme_->InitializeNonLinIteration(model_part_);
      BuildSolveUpdate();
      scheme_->FinalizeNonLinIteration(model_part_);
      residual_is_current = false;
      if (criteria_->ActualizeRHSFlag()) {
        builder_->BuildRHS(*scheme_, model_part_, b_);
        residual_is_current = true;
      }
      converged = criteria_->PostCriteria(model_part_, builder_->GetDofSet(), dx_, b_);
      if (converged) break;
    }
    if (!converged && settings_.echo_level > 0)
      std::cout << "Newton-Raphson: no convergence after " << iterations_ << " iterations\n";
    if (settings_.compute_reactions) {
      if (!residual_is_current) builder_->BuildRHS(*scheme_, model_part_, b_);
      builder_->CalculateReactions(b_);
    }
    return converged;
  }

  void FinalizeSolutionStep() override {
    criteria_->FinalizeSolutionStep(model_part_, builder_->GetDofSet());
    ImplicitSolvingStrategy::FinalizeSolutionStep();
  }

  ConvergenceCriteria& GetConvergenceCriteria() { return *criteria_; }

 private:
  ConvergenceCriteria::Pointer criteria_;
};

}  // namespace tessera
