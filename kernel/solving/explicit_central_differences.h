// Explicit central differences with a lumped (diagonal) mass (Kratos'
// ExplicitCentralDifferencesScheme with its explicit strategy), in the
// velocity-Verlet form that stores full-step velocities:
//   v_n+1/2 = v_n + dt/2 a_n,          u_n+1 = u_n + dt v_n+1/2,
//   r_n+1   = f_ext - f_int(u_n+1)     (the entities' right-hand sides),
//   a_n+1   = (r_n+1 / m - alpha v_n+1/2) / (1 + alpha dt/2),
//   v_n+1   = v_n+1/2 + dt/2 a_n+1.
// alpha is Rayleigh's mass-proportional damping (D = alpha M, taken at v_n+1
// through the half-step relation, so the update stays explicit with a diagonal
// mass); stiffness-proportional damping (beta K) is not provided here.
//
// Stable for dt < 2 / omega_max (the elements' critical step, estimated by the
// application). The mass is the entities' CalculateLumpedMassVector, assembled
// once (and again when the dofs are renumbered); the residual is assembled by
// the builder's coloured loop, so the result does not depend on the number of
// threads. The unknown is a vector variable (default DISPLACEMENT) whose
// derivatives are the velocity and acceleration variables (buffer >= 2). Fixed
// dofs keep the value their processes prescribe; their v and a follow by
// differences.
//
// Distributed (SetInterfaceSum): each rank holds its elements and the nodes
// they use; after every assembly of the mass and of the residual, the values
// of the nodes shared with other ranks are replaced by their sums over the
// ranks (kernel/parallel/interface_sum.h), so every rank updates its nodes,
// owned or ghost, from the same totals.
#pragma once

#include <memory>

#include "kernel/core/kernel_variables.h"
#include "kernel/parallel/interface_sum.h"
#include "kernel/solving/builder_and_solver.h"
#include "kernel/solving/scheme.h"
#include "kernel/solving/solving_strategy.h"

namespace tessera {

class ExplicitCentralDifferencesStrategy {
 public:
  struct Settings {
    double mass_damping = 0.0;  // Rayleigh alpha
    bool compute_reactions = true;
    bool move_mesh = false;
  };

  ExplicitCentralDifferencesStrategy(ModelPart& model_part, BuilderAndSolver::Pointer builder,
                                     Settings settings,
                                     const Variable<Array3>& displacement = DISPLACEMENT,
                                     const Variable<Array3>& velocity = VELOCITY,
                                     const Variable<Array3>& acceleration = ACCELERATION)
      : model_part_(model_part),
        builder_(std::move(builder)),
        settings_(settings),
        scheme_(std::make_shared<ResidualBasedIncrementalUpdateStaticScheme>()),
        displacement_(displacement),
        velocity_(velocity),
        acceleration_(acceleration) {
    TESSERA_CHECK(builder_, "explicit central differences need a builder");
    TESSERA_CHECK(settings.mass_damping >= 0.0,
                  "explicit central differences: rayleigh_alpha = ", settings.mass_damping,
                  " must be non-negative");
  }

  void Initialize() {
    const NodalDatabase& db = model_part_.Nodal();
    for (const Variable<Array3>* v : {&displacement_, &velocity_, &acceleration_})
      TESSERA_CHECK(db.HasHistoricalVariable(*v), "explicit central differences: ", v->Name(),
                    " must be a solution-step variable of model part '", model_part_.Name(), "'");
    TESSERA_CHECK(db.BufferSize() >= 2, "explicit central differences: model part '",
                  model_part_.Name(), "' needs a buffer size of at least 2");
    if (!scheme_->IsInitialized()) scheme_->Initialize(model_part_);
    initialized_ = true;
  }

  void InitializeSolutionStep() {
    if (!initialized_) Initialize();
    const bool first = !builder_->GetDofSet().IsSetUp();
    if (first) {
      builder_->SetUpDofSet(model_part_);
      builder_->SetUpSystem(model_part_);
      SetUpInterface();
      AssembleMass();
    } else if (builder_->FixityChanged()) {
      builder_->Renumber(model_part_);
      SetUpInterface();
      AssembleMass();
    }
    scheme_->InitializeSolutionStep(model_part_);
    if (first && !continued_) InitialAcceleration();
  }

  void Predict() {}

  // A distributed run: the shared nodes' masses and residuals are summed over
  // the ranks after each assembly. Before the first step.
  void SetInterfaceSum(std::shared_ptr<InterfaceSum> interface_sum) {
    interface_sum_ = std::move(interface_sum);
  }

  // A run continued from a checkpoint: the restored a_n is the one the
  // interrupted run's last Kick computed, so the first step must not replace
  // it by the initial acceleration M^-1 f(u_n) (which differs under damping
  // and in the last bits).
  void ContinueFromCheckpoint() { continued_ = true; }

  // One step, Drift() then Kick(). A partitioned explicit coupling calls the
  // two halves itself, so that the loads another solver computes at the
  // drifted configuration u_n+1 (a DEM's contact forces on the structure's
  // skin) enter the residual of the same step.
  bool SolveSolutionStep() {
    Drift();
    Kick();
    return true;
  }

  // v_n+1/2 = v_n + dt/2 a_n and u_n+1 = u_n + dt v_n+1/2 on the free dofs
  // (fixed ones keep what their processes prescribe); the mesh moves with
  // them where move_mesh is set.
  void Drift() {
    kick_begun_ = false;
    const double dt = TimeStep();
    const DofSet& dofs = builder_->GetDofSet();
    NodalDatabase& db = model_part_.Nodal();
    auto [u, v, a, u_n, v_n, a_n] = SecondOrderColumns(db, displacement_, velocity_, acceleration_);
    const std::size_t n_free = dofs.NumberOfFreeDofs();
    ParallelFor(dofs.size(), [&](std::size_t eq) {
      const auto [n, i] = NodeAndComponent(dofs, eq);
      if (eq < n_free) {
        v[n][i] = v_n[n][i] + 0.5 * dt * a_n[n][i];
        u[n][i] = u_n[n][i] + dt * v[n][i];
      }
    });
    if (settings_.move_mesh) MoveMesh();
  }

  // The conditions of `part` carry loads that another solver computes at
  // u_n+1 within the step (a DEM's contact forces on the structure's skin):
  // BeginKick leaves them to Kick. Before the first step.
  void DeferConditionsOf(ModelPart& part) {
    std::vector<const Entity*> deferred;
    for (Condition& c : part.Conditions()) deferred.push_back(&c);
    builder_->DeferEntities(std::move(deferred));
  }

  // The part of Kick that needs no deferred load: every other entity's local
  // right-hand side at u_n+1, after Drift. It writes only the builder's
  // buffers, so a coupling may run it on some threads while the other solver
  // steps on the others; the residual Kick then sums is bitwise the same.
  void BeginKick() {
    builder_->BeginRHS(*scheme_, model_part_);
    kick_begun_ = true;
  }

  // The residual at u_n+1, a_n+1 from it, v_n+1 = v_n+1/2 + dt/2 a_n+1 on the
  // free dofs; the fixed dofs' v and a by differences; the reactions.
  void Kick() {
    const double dt = TimeStep();
    const DofSet& dofs = builder_->GetDofSet();
    NodalDatabase& db = model_part_.Nodal();
    auto [u, v, a, u_n, v_n, a_n] = SecondOrderColumns(db, displacement_, velocity_, acceleration_);
    const std::size_t n_free = dofs.NumberOfFreeDofs();
    const double alpha = settings_.mass_damping;
    if (kick_begun_)
      builder_->FinishRHS(*scheme_, model_part_, b_);
    else
      builder_->BuildRHS(*scheme_, model_part_, b_);
    kick_begun_ = false;
    if (interface_sum_) interface_sum_->Sum(b_);
    ParallelFor(dofs.size(), [&](std::size_t eq) {
      const auto [n, i] = NodeAndComponent(dofs, eq);
      if (eq < n_free) {
        a[n][i] = (b_[eq] / mass_[eq] - alpha * v[n][i]) / (1.0 + 0.5 * alpha * dt);
        v[n][i] += 0.5 * dt * a[n][i];
      } else {
        v[n][i] = (u[n][i] - u_n[n][i]) / dt;
        a[n][i] = (v[n][i] - v_n[n][i]) / dt;
      }
    });
    if (settings_.compute_reactions) builder_->CalculateReactions(b_);
  }

  void FinalizeSolutionStep() { scheme_->FinalizeSolutionStep(model_part_); }

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
    mass_.resize(0);
    b_.resize(0);
  }
  int GetIterationNumber() const { return 1; }
  BuilderAndSolver& GetBuilderAndSolver() { return *builder_; }
  // The lumped mass per equation (free dofs first).
  const Vector& GetLumpedMass() const { return mass_; }
  const Vector& GetResidual() const { return b_; }

  void MoveMesh() { MoveMeshByDisplacement(model_part_, displacement_); }

 private:
  // The scheme hook that hands the builder an entity's lumped mass as its
  // "right-hand side", so the mass is assembled by the same coloured loop.
  class LumpedMassScheme : public ResidualBasedIncrementalUpdateStaticScheme {
   public:
    void CalculateRHSContribution(Entity& e, Vector& rhs, const ProcessInfo& info) override {
      e.CalculateLumpedMassVector(rhs, info);
      if (rhs.size() == 0) {  // massless entity (a load condition)
        thread_local std::vector<IdType> ids;
        e.EquationIdVector(ids, info);
        rhs.setZero(static_cast<Eigen::Index>(ids.size()));
      }
    }
  };

  double TimeStep() const {
    const ProcessInfo& info = model_part_.GetProcessInfo();
    const double dt = info.Has(DELTA_TIME) ? info.GetValue(DELTA_TIME) : 0.0;
    TESSERA_CHECK(dt > 0.0, "explicit central differences: DELTA_TIME of model part '",
                  model_part_.Name(), "' is ", dt, "; the time step must be positive");
    return dt;
  }

  std::pair<IndexType, int> NodeAndComponent(const DofSet& dofs, std::size_t eq) const {
    return dofs.NodeAndComponent(eq, displacement_, "explicit central differences");
  }

  void AssembleMass() {
    LumpedMassScheme mass_scheme;
    builder_->BuildRHS(mass_scheme, model_part_, mass_);
    if (interface_sum_) interface_sum_->Sum(mass_);
    const DofSet& dofs = builder_->GetDofSet();
    for (std::size_t eq = 0; eq < dofs.NumberOfFreeDofs(); ++eq)
      if (!(mass_[eq] > 0.0)) {
        const auto [n, i] = NodeAndComponent(dofs, eq);
        TESSERA_ERROR("explicit central differences: free dof ", dofs.VariableOf(eq).Name(),
                      " of node ", model_part_.Nodal().Id(n), " has lumped mass ", mass_[eq],
                      " (no element with a positive DENSITY carries it)");
      }
  }

  // The interface's equations by (node id, component), after each numbering.
  void SetUpInterface() {
    if (!interface_sum_) return;
    const DofSet& dofs = builder_->GetDofSet();
    std::vector<IdType> node_ids(dofs.size());
    std::vector<int> components(dofs.size());
    for (std::size_t eq = 0; eq < dofs.size(); ++eq) {
      const auto [n, i] = NodeAndComponent(dofs, eq);
      node_ids[eq] = model_part_.Nodal().Id(n);
      components[eq] = i;
    }
    interface_sum_->SetUp(node_ids, components);
  }

  // a_0 = r(u_0) / m - alpha v_0, so that the first half step is consistent.
  void InitialAcceleration() {
    const DofSet& dofs = builder_->GetDofSet();
    NodalDatabase& db = model_part_.Nodal();
    builder_->BuildRHS(*scheme_, model_part_, b_);
    if (interface_sum_) interface_sum_->Sum(b_);
    for (int step : {0, 1}) {
      auto& a = db.HistoricalColumn(acceleration_, step);
      auto& v = db.HistoricalColumn(velocity_, step);
      ParallelFor(dofs.NumberOfFreeDofs(), [&](std::size_t eq) {
        const auto [n, i] = NodeAndComponent(dofs, eq);
        a[n][i] = b_[eq] / mass_[eq] - settings_.mass_damping * v[n][i];
      });
    }
  }

  ModelPart& model_part_;
  BuilderAndSolver::Pointer builder_;
  Settings settings_;
  std::shared_ptr<ResidualBasedIncrementalUpdateStaticScheme> scheme_;
  const Variable<Array3>& displacement_;
  const Variable<Array3>& velocity_;
  const Variable<Array3>& acceleration_;
  bool kick_begun_ = false;  // BeginKick since the last Drift
  Vector mass_, b_;
  bool initialized_ = false;
  bool continued_ = false;                       // ContinueFromCheckpoint()
  std::shared_ptr<InterfaceSum> interface_sum_;  // distributed runs only
};

}  // namespace tessera
