// Convergence criteria of the Newton-Raphson strategy (Kratos' semantics).
//
//   ResidualCriteria      ratio = |r| / |r_0|, absolute = |r| / n, where r is the
//                         right-hand side over the free dofs after the update,
//                         r_0 the one at the start of the step, n the number of
//                         free dofs (Kratos divides by n, not sqrt(n)).
//   DisplacementCriteria  ratio = |dx| / |x|, absolute = |dx| / sqrt(n), with dx
//                         the last increment and x the free dofs' values.
// Each is converged when ratio <= relative tolerance OR absolute < absolute
// tolerance. AndCriteria / OrCriteria combine two criteria.
// In a distributed run (SetReduction) the norms and n are global: each free
// dof counts once, on its owner (FreeDofReduction).
#pragma once

#include <cmath>
#include <iostream>
#include <string>

#include "kernel/model/model_part.h"
#include "kernel/solving/dof_set.h"
#include "kernel/solving/free_dof_reduction.h"

namespace tessera {

class ConvergenceCriteria {
 public:
  using Pointer = std::shared_ptr<ConvergenceCriteria>;
  virtual ~ConvergenceCriteria() = default;

  // Whether the strategy must rebuild the right-hand side after each update
  // (and at the start of a step) for this criterion to read it.
  virtual bool ActualizeRHSFlag() const { return false; }

  // b: the full right-hand side (free dofs first), when ActualizeRHSFlag().
  virtual void InitializeSolutionStep(ModelPart&, const DofSet&, const Vector& /*b*/) {}
  // After the update of iteration NL_ITERATION_NUMBER: dx the increment (free dofs),
  // b the right-hand side at the updated state (when ActualizeRHSFlag()).
  virtual bool PostCriteria(ModelPart& model_part, const DofSet& dofs, const Vector& dx,
                            const Vector& b) = 0;
  virtual void FinalizeSolutionStep(ModelPart&, const DofSet&) {}

  // Global norms over the ranks of a distributed system (nullptr: serial).
  virtual void SetReduction(const FreeDofReduction* reduction) { reduction_ = reduction; }
  void SetEchoLevel(int level) { echo_level_ = level; }
  int GetEchoLevel() const { return echo_level_; }
  // The ratio and absolute norm of the last check (for reports and tests).
  double LastRatio() const { return last_ratio_; }
  double LastAbsoluteNorm() const { return last_absolute_; }

 protected:
  // The number of free dofs: global in a distributed run.
  std::size_t FreeDofs(const DofSet& dofs) const {
    return reduction_ ? reduction_->GlobalFreeDofs() : dofs.NumberOfFreeDofs();
  }
  const FreeDofReduction* reduction_ = nullptr;
  int echo_level_ = 0;
  double last_ratio_ = 0.0;
  double last_absolute_ = 0.0;
};

class ResidualCriteria : public ConvergenceCriteria {
 public:
  ResidualCriteria(double relative_tolerance, double absolute_tolerance)
      : relative_(relative_tolerance), absolute_(absolute_tolerance) {}

  bool ActualizeRHSFlag() const override { return true; }

  void InitializeSolutionStep(ModelPart&, const DofSet& dofs, const Vector& b) override {
    initial_norm_ = FreeNorm(dofs, b);
  }

  bool PostCriteria(ModelPart&, const DofSet& dofs, const Vector&, const Vector& b) override {
    const std::size_t n = FreeDofs(dofs);
    if (n == 0) return true;
    const double norm = FreeNorm(dofs, b);
    last_ratio_ = initial_norm_ == 0.0 ? 0.0 : norm / initial_norm_;
    last_absolute_ = norm / static_cast<double>(n);
    const bool converged = last_ratio_ <= relative_ || last_absolute_ < absolute_;
    if (echo_level_ > 0)
      std::cout << "RESIDUAL CRITERION :: ratio = " << last_ratio_ << " (" << relative_
                << "); norm = " << last_absolute_ << " (" << absolute_ << ")"
                << (converged ? " converged" : "") << "\n";
    return converged;
  }

 private:
  double FreeNorm(const DofSet& dofs, const Vector& b) const {
    if (reduction_) return std::sqrt(reduction_->SquaredNorm(b));
    return b.head(static_cast<Eigen::Index>(dofs.NumberOfFreeDofs())).norm();
  }
  double relative_, absolute_;
  double initial_norm_ = 0.0;
};

class DisplacementCriteria : public ConvergenceCriteria {
 public:
  DisplacementCriteria(double relative_tolerance, double absolute_tolerance)
      : relative_(relative_tolerance), absolute_(absolute_tolerance) {}

  bool PostCriteria(ModelPart&, const DofSet& dofs, const Vector& dx, const Vector&) override {
    const std::size_t n = FreeDofs(dofs);
    if (n == 0) return true;
    double correction = 0.0, reference = 0.0;
    if (reduction_) {
      correction = std::sqrt(reduction_->SquaredNorm(dx));
      reference = std::sqrt(reduction_->SquaredNormOfValues(dofs));
    } else {
      correction = dx.norm();
      for (std::size_t eq = 0; eq < n; ++eq) reference += dofs.Value(eq) * dofs.Value(eq);
      reference = std::sqrt(reference);
    }
    // A zero solution with a zero correction has converged; a zero solution with a
    // nonzero correction is measured against the correction itself (ratio 1).
    if (reference == 0.0) reference = correction;
    last_ratio_ = correction == 0.0 ? 0.0 : correction / reference;
    last_absolute_ = correction / std::sqrt(static_cast<double>(n));
    const bool converged = last_ratio_ <= relative_ || last_absolute_ < absolute_;
    if (echo_level_ > 0)
      std::cout << "DISPLACEMENT CRITERION :: ratio = " << last_ratio_ << " (" << relative_
                << "); norm = " << last_absolute_ << " (" << absolute_ << ")"
                << (converged ? " converged" : "") << "\n";
    return converged;
  }

 private:
  double relative_, absolute_;
};

// Both (And) or either (Or) of two criteria. Both are always evaluated, so each
// keeps its state (initial residual, last ratio) up to date.
class CombinedCriteria : public ConvergenceCriteria {
 public:
  CombinedCriteria(Pointer first, Pointer second, bool require_both)
      : first_(std::move(first)), second_(std::move(second)), require_both_(require_both) {}

  bool ActualizeRHSFlag() const override {
    return first_->ActualizeRHSFlag() || second_->ActualizeRHSFlag();
  }
  void SetReduction(const FreeDofReduction* reduction) override {
    ConvergenceCriteria::SetReduction(reduction);
    first_->SetReduction(reduction);
    second_->SetReduction(reduction);
  }
  void InitializeSolutionStep(ModelPart& mp, const DofSet& dofs, const Vector& b) override {
    first_->InitializeSolutionStep(mp, dofs, b);
    second_->InitializeSolutionStep(mp, dofs, b);
  }
  bool PostCriteria(ModelPart& mp, const DofSet& dofs, const Vector& dx, const Vector& b) override {
    const bool a = first_->PostCriteria(mp, dofs, dx, b);
    const bool c = second_->PostCriteria(mp, dofs, dx, b);
    return require_both_ ? (a && c) : (a || c);
  }
  void FinalizeSolutionStep(ModelPart& mp, const DofSet& dofs) override {
    first_->FinalizeSolutionStep(mp, dofs);
    second_->FinalizeSolutionStep(mp, dofs);
  }

 private:
  Pointer first_, second_;
  bool require_both_;
};

class AndCriteria : public CombinedCriteria {
 public:
  AndCriteria(Pointer first, Pointer second)
      : CombinedCriteria(std::move(first), std::move(second), true) {}
};
class OrCriteria : public CombinedCriteria {
 public:
  OrCriteria(Pointer first, Pointer second)
      : CombinedCriteria(std::move(first), std::move(second), false) {}
};

}  // namespace tessera
