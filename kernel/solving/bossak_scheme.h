// Implicit second-order time integration of M a + D v + f_int(u) = f_ext
// (Kratos' ResidualBasedBossakDisplacementScheme and, with alpha_m = 0,
// ResidualBasedNewmarkDisplacementScheme).
//
// Newmark's relations on the step [t_n, t_n+1], with du = u_n+1 - u_n:
//   a_n+1 = c0 du - c2 v_n - c3 a_n,     v_n+1 = c1 du - c4 v_n - c5 a_n,
//   c0 = 1/(beta dt^2), c1 = gamma/(beta dt), c2 = 1/(beta dt),
//   c3 = 1/(2 beta) - 1, c4 = gamma/beta - 1, c5 = dt/2 (gamma/beta - 2).
// Bossak (Wood, Bossak, Zienkiewicz 1980) evaluates the inertia at
// (1 - alpha_m) a_n+1 + alpha_m a_n, and keeps second order and unconditional
// stability with beta = (1 - alpha_m)^2 beta_N, gamma = 1/2 - alpha_m
// (beta_N = 1/4 gives the trapezoidal rule, which conserves energy, when
// alpha_m = 0). alpha_m in [-1/3, 0] damps the high frequencies.
//
// Local systems: LHS = K + (1 - alpha_m) c0 M + c1 D,
//                RHS = f_ext - f_int - M[(1 - alpha_m) a_n+1 + alpha_m a_n] - D v_n+1.
// The unknown is the displacement-like vector variable (default DISPLACEMENT)
// whose time derivatives are the velocity and acceleration variables given at
// construction; they must be solution-step variables with a buffer of 2.
#pragma once

#include "kernel/core/kernel_variables.h"
#include "kernel/solving/scheme.h"

namespace tessera {

class ResidualBasedBossakDisplacementScheme : public Scheme {
 public:
  // alpha_m: Bossak's mass-weighting parameter (Kratos' damp_factor_m, default
  // -0.3); newmark_beta: beta_N (default 1/4).
  explicit ResidualBasedBossakDisplacementScheme(
      double alpha_m = -0.3, double newmark_beta = 0.25,
      const Variable<Array3>& displacement = DISPLACEMENT,
      const Variable<Array3>& velocity = VELOCITY,
      const Variable<Array3>& acceleration = ACCELERATION)
      : alpha_m_(alpha_m),
        beta_((1.0 - alpha_m) * (1.0 - alpha_m) * newmark_beta),
        gamma_(0.5 - alpha_m),
        displacement_(displacement),
        velocity_(velocity),
        acceleration_(acceleration) {
    TESSERA_CHECK(alpha_m <= 0.0 && alpha_m >= -1.0 / 3.0,
                  "Bossak scheme: alpha_m (damp_factor_m) = ", alpha_m,
                  " is outside [-1/3, 0], where the scheme is unconditionally stable");
    TESSERA_CHECK(newmark_beta > 0.0 && newmark_beta <= 0.5,
                  "Bossak scheme: newmark_beta = ", newmark_beta, " must lie in (0, 1/2]");
  }

  double AlphaM() const { return alpha_m_; }
  double Beta() const { return beta_; }
  double Gamma() const { return gamma_; }

  void Initialize(ModelPart& model_part) override {
    const NodalDatabase& db = model_part.Nodal();
    for (const Variable<Array3>* v : {&displacement_, &velocity_, &acceleration_})
      TESSERA_CHECK(db.HasHistoricalVariable(*v), "Bossak scheme: ", v->Name(),
                    " must be a solution-step variable of model part '", model_part.Name(), "'");
    TESSERA_CHECK(db.BufferSize() >= 2, "Bossak scheme: model part '", model_part.Name(),
                  "' needs a buffer size of at least 2 (it has ", db.BufferSize(), ")");
    Scheme::Initialize(model_part);
  }

  void InitializeSolutionStep(ModelPart& model_part) override {
    const ProcessInfo& info = model_part.GetProcessInfo();
    const double dt = info.Has(DELTA_TIME) ? info.GetValue(DELTA_TIME) : 0.0;
    TESSERA_CHECK(dt > 0.0, "Bossak scheme: DELTA_TIME of model part '", model_part.Name(), "' is ",
                  dt, "; the time step must be positive");
    c0_ = 1.0 / (beta_ * dt * dt);
    c1_ = gamma_ / (beta_ * dt);
    c2_ = 1.0 / (beta_ * dt);
    c3_ = 0.5 / beta_ - 1.0;
    c4_ = gamma_ / beta_ - 1.0;
    c5_ = 0.5 * dt * (gamma_ / beta_ - 2.0);
    dt_ = dt;
    Scheme::InitializeSolutionStep(model_part);
  }

  // Free dofs: u = u_n + dt v_n + dt^2/2 a_n (constant-acceleration guess);
  // fixed dofs keep their prescribed value. Then v, a follow from Newmark.
  void Predict(ModelPart& model_part, const DofSet& dofs) override {
    NodalDatabase& db = model_part.Nodal();
    auto& u_n = db.HistoricalColumn(displacement_, 1);
    auto& v_n = db.HistoricalColumn(velocity_, 1);
    auto& a_n = db.HistoricalColumn(acceleration_, 1);
    ParallelFor(dofs.NumberOfFreeDofs(), [&](std::size_t eq) {
      const auto [node, i] = NodeAndComponent(dofs, eq);
      dofs.Value(eq) = u_n[node][i] + dt_ * v_n[node][i] + 0.5 * dt_ * dt_ * a_n[node][i];
    });
    UpdateDerivatives(db, dofs);
  }

  void Update(ModelPart& model_part, const DofSet& dofs, const Vector& dx) override {
    TESSERA_CHECK(static_cast<std::size_t>(dx.size()) == dofs.NumberOfFreeDofs(),
                  "Bossak scheme: the increment has ", dx.size(), " entries for ",
                  dofs.NumberOfFreeDofs(), " free dofs");
    ParallelFor(dofs.NumberOfFreeDofs(), [&](std::size_t eq) { dofs.Value(eq) += dx[eq]; });
    UpdateDerivatives(model_part.Nodal(), dofs);
  }

  void CalculateSystemContributions(Entity& e, Matrix& lhs, Vector& rhs,
                                    const ProcessInfo& info) override {
    e.CalculateLocalSystem(lhs, rhs, info);
    AddDynamics(e, &lhs, &rhs, info);
  }
  void CalculateRHSContribution(Entity& e, Vector& rhs, const ProcessInfo& info) override {
    e.CalculateRightHandSide(rhs, info);
    AddDynamics(e, nullptr, &rhs, info);
  }
  void CalculateLHSContribution(Entity& e, Matrix& lhs, const ProcessInfo& info) override {
    e.CalculateLeftHandSide(lhs, info);
    AddDynamics(e, &lhs, nullptr, info);
  }

 private:
  std::pair<IndexType, int> NodeAndComponent(const DofSet& dofs, std::size_t eq) const {
    return dofs.NodeAndComponent(eq, displacement_, "Bossak scheme");
  }

  // v and a of every dof (free and fixed) from its displacement increment.
  void UpdateDerivatives(NodalDatabase& db, const DofSet& dofs) const {
    auto [u, v, a, u_n, v_n, a_n] = SecondOrderColumns(db, displacement_, velocity_, acceleration_);
    ParallelFor(dofs.size(), [&](std::size_t eq) {
      const auto [n, i] = NodeAndComponent(dofs, eq);
      const double du = u[n][i] - u_n[n][i];
      a[n][i] = c0_ * du - c2_ * v_n[n][i] - c3_ * a_n[n][i];
      v[n][i] = c1_ * du - c4_ * v_n[n][i] - c5_ * a_n[n][i];
    });
  }

  // Adds the inertia and damping terms to the entity's static local system.
  void AddDynamics(Entity& e, Matrix* lhs, Vector* rhs, const ProcessInfo& info) const {
    thread_local Matrix mass, damping;
    thread_local Vector values, previous;
    e.CalculateMassMatrix(mass, info);
    e.CalculateDampingMatrix(damping, info);
    if (mass.size() > 0) {
      if (lhs) lhs->noalias() += ((1.0 - alpha_m_) * c0_) * mass;
      if (rhs) {
        e.GetSecondDerivativesVector(values, 0);
        e.GetSecondDerivativesVector(previous, 1);
        values = (1.0 - alpha_m_) * values + alpha_m_ * previous;
        rhs->noalias() -= mass * values;
      }
    }
    if (damping.size() > 0) {
      if (lhs) lhs->noalias() += c1_ * damping;
      if (rhs) {
        e.GetFirstDerivativesVector(values, 0);
        rhs->noalias() -= damping * values;
      }
    }
  }

  double alpha_m_, beta_, gamma_;
  const Variable<Array3>& displacement_;
  const Variable<Array3>& velocity_;
  const Variable<Array3>& acceleration_;
  double dt_ = 0.0, c0_ = 0.0, c1_ = 0.0, c2_ = 0.0, c3_ = 0.0, c4_ = 0.0, c5_ = 0.0;
};

}  // namespace tessera
