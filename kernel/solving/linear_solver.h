// LinearSolver: one interface over the direct and iterative solvers of the
// solving stack, chosen by name from Kratos-style "linear_solver_settings".
//
//   "sparse_lu"  Eigen's SparseLU (supernodal LU, COLAMD ordering): direct, any
//                non-singular matrix.
//   "cg"         Eigen's ConjugateGradient, preconditioner "diagonal" (Jacobi,
//                the default) or "incomplete_cholesky"; symmetric positive
//                definite matrices only.
//   "bicgstab"   Eigen's BiCGSTAB, preconditioner "diagonal" or "ilut"
//                (incomplete LU with threshold); any non-singular matrix.
//
// Kratos' names map to the nearest of these (KratosSolverNames()):
// skyline_lu_factorization, super_lu, LinearSolversApplication.sparse_lu,
// pardiso_lu... -> sparse_lu; amgcl -> cg with incomplete Cholesky when its
// krylov_type is "cg" (the structural default here), else bicgstab with ILUT.
// The iterative solvers use Eigen's relative residual ||b - Ax|| / ||b|| as
// "tolerance" (Kratos' meaning) and throw when they do not reach it within
// "max_iteration": an unconverged linear solve is never returned silently.
//
//   "petsc"      PETSc's Krylov methods and preconditioners (algebraic multigrid:
//                "pc_type": "gamg" or "hypre"), in a build with PETSc
//                (kernel/linear_solvers/petsc_linear_solver.h, its own keys in
//                petsc_settings.h).
#pragma once

#include <Eigen/IterativeLinearSolvers>
#include <Eigen/SparseLU>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "kernel/core/error.h"
#include "kernel/parameters/parameters.h"
#include "kernel/solving/sparse_types.h"

namespace tessera {

class LinearSolver {
 public:
  using Pointer = std::shared_ptr<LinearSolver>;
  virtual ~LinearSolver() = default;

  // Solves A x = b. For iterative solvers x holds the initial guess on entry.
  // Throws a tessera::Error when the matrix is singular or the iteration fails.
  virtual void Solve(const SparseMatrix& A, Vector& x, const Vector& b) = 0;
  // Forgets factorisations and symbolic analyses (the next Solve starts afresh).
  virtual void Clear() {}
  // Kratos' AdditionalPhysicalDataIsNeeded / ProvideAdditionalData: a solver
  // that wants each equation's node position and vector component (algebraic
  // multigrid's rigid-body modes) gets them after every numbering.
  // coordinates: 3 per equation (the node's initial position); components:
  // the component of a vector variable (DISPLACEMENT_Y: 1), -1 for a scalar dof.
  virtual bool AdditionalPhysicalDataIsNeeded() const { return false; }
  virtual void ProvideAdditionalData(const std::vector<double>& /*coordinates*/,
                                     const std::vector<int>& /*components*/) {}
  virtual bool IsDirect() const = 0;
  virtual std::string Info() const = 0;

  // Iterations and relative residual of the last solve (0 and 0 for direct solvers).
  int LastIterations() const { return last_iterations_; }
  double LastError() const { return last_error_; }

 protected:
  int last_iterations_ = 0;
  double last_error_ = 0.0;
};

// The "petsc" solver (kernel/linear_solvers/petsc_linear_solver.cpp; an error
// in a build without PETSc).
LinearSolver::Pointer CreatePetscLinearSolver(const Parameters& settings);

// ---------------------------------------------------------------------------
// Direct: Eigen::SparseLU. The symbolic analysis (column ordering, elimination
// tree) depends only on the sparsity pattern, so it is redone only when the
// pattern changes between calls; each call refactorises the values.
class SparseLUSolver final : public LinearSolver {
 public:
  using ColumnMatrix = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

  void Solve(const SparseMatrix& A, Vector& x, const Vector& b) override {
    TESSERA_CHECK(A.rows() == A.cols() && A.rows() == b.size(), "sparse_lu: matrix is ", A.rows(),
                  " x ", A.cols(), ", right-hand side has ", b.size(), " entries");
    if (A.rows() == 0) {
      x.resize(0);
      return;
    }
    column_ = A;  // SparseLU works on compressed columns
    column_.makeCompressed();
    if (!SamePattern(column_)) {
      lu_.analyzePattern(column_);
      StorePattern(column_);
    }
    lu_.factorize(column_);
    if (lu_.info() != Eigen::Success)
      TESSERA_ERROR("sparse_lu: the system matrix (", A.rows(),
                    " equations) is singular: ", lu_.lastErrorMessage(),
                    ". A structure with an unconstrained rigid-body motion, an element with "
                    "zero stiffness or a dof no element stiffens gives this");
    x = lu_.solve(b);
    if (lu_.info() != Eigen::Success) TESSERA_ERROR("sparse_lu: the back substitution failed");
  }
  void Clear() override {
    outer_.clear();
    inner_.clear();
  }
  bool IsDirect() const override { return true; }
  std::string Info() const override { return "sparse_lu (Eigen SparseLU, COLAMD ordering)"; }

 private:
  bool SamePattern(const ColumnMatrix& m) const {
    return static_cast<std::size_t>(m.outerSize() + 1) == outer_.size() &&
           static_cast<std::size_t>(m.nonZeros()) == inner_.size() &&
           std::equal(outer_.begin(), outer_.end(), m.outerIndexPtr()) &&
           std::equal(inner_.begin(), inner_.end(), m.innerIndexPtr());
  }
  void StorePattern(const ColumnMatrix& m) {
    outer_.assign(m.outerIndexPtr(), m.outerIndexPtr() + m.outerSize() + 1);
    inner_.assign(m.innerIndexPtr(), m.innerIndexPtr() + m.nonZeros());
  }

  ColumnMatrix column_;
  Eigen::SparseLU<ColumnMatrix, Eigen::COLAMDOrdering<int>> lu_;
  std::vector<int> outer_, inner_;
};

// ---------------------------------------------------------------------------
// Iterative solvers: a Krylov method with a preconditioner, both from Eigen.
template <class Krylov>
class IterativeSolver final : public LinearSolver {
 public:
  IterativeSolver(std::string name, double tolerance, int max_iterations)
      : name_(std::move(name)), tolerance_(tolerance), max_iterations_(max_iterations) {}

  void Solve(const SparseMatrix& A, Vector& x, const Vector& b) override {
    TESSERA_CHECK(A.rows() == A.cols() && A.rows() == b.size(), name_, ": matrix is ", A.rows(),
                  " x ", A.cols(), ", right-hand side has ", b.size(), " entries");
    if (A.rows() == 0) {
      x.resize(0);
      return;
    }
    if (x.size() != b.size()) x = Vector::Zero(b.size());
    krylov_.setTolerance(tolerance_);
    krylov_.setMaxIterations(max_iterations_);
    krylov_.compute(A);
    if (krylov_.info() != Eigen::Success)
      TESSERA_ERROR(name_, ": the preconditioner could not be built (", A.rows(),
                    " equations); the matrix may be singular or, for cg, not "
                    "positive definite");
    x = krylov_.solveWithGuess(b, x);
    last_iterations_ = static_cast<int>(krylov_.iterations());
    last_error_ = krylov_.error();
    if (krylov_.info() != Eigen::Success || !(last_error_ <= tolerance_))
      TESSERA_ERROR(name_, ": no convergence in ", last_iterations_,
                    " iterations (relative "
                    "residual ",
                    last_error_, ", tolerance ", tolerance_,
                    "); raise "
                    "max_iteration, or use \"sparse_lu\"");
  }
  bool IsDirect() const override { return false; }
  std::string Info() const override {
    return name_ + " (tolerance " + std::to_string(tolerance_) + ", max_iteration " +
           std::to_string(max_iterations_) + ")";
  }

 private:
  std::string name_;
  double tolerance_;
  int max_iterations_;
  Krylov krylov_;
};

// Lower|Upper: Eigen uses the full symmetric matrix, which for row-major storage
// lets the matrix-vector product run on all threads (row by row: deterministic).
using CGDiagonal = Eigen::ConjugateGradient<SparseMatrix, Eigen::Lower | Eigen::Upper,
                                            Eigen::DiagonalPreconditioner<double>>;
using CGIncompleteCholesky = Eigen::ConjugateGradient<
    SparseMatrix, Eigen::Lower | Eigen::Upper,
    Eigen::IncompleteCholesky<double, Eigen::Lower, Eigen::AMDOrdering<int>>>;
using BiCGSTABDiagonal = Eigen::BiCGSTAB<SparseMatrix, Eigen::DiagonalPreconditioner<double>>;
using BiCGSTABIlut = Eigen::BiCGSTAB<SparseMatrix, Eigen::IncompleteLUT<double, int>>;

// Kratos solver names and the Tessera solver each maps to.
inline const std::map<std::string, std::string>& KratosSolverNames() {
  static const std::map<std::string, std::string> names = {
      {"skyline_lu_factorization", "sparse_lu"},
      {"super_lu", "sparse_lu"},
      {"ExternalSolversApplication.super_lu", "sparse_lu"},
      {"LinearSolversApplication.sparse_lu", "sparse_lu"},
      {"LinearSolversApplication.sparse_qr", "sparse_lu"},
      {"LinearSolversApplication.pardiso_lu", "sparse_lu"},
      {"LinearSolversApplication.pardiso_ldlt", "sparse_lu"},
      {"LinearSolversApplication.sparse_lu_complex", "sparse_lu"},
      {"pardiso_lu", "sparse_lu"},
      {"klu", "sparse_lu"},
      {"amgcl", "amgcl"},
      {"conjugate_gradient", "cg"},
      {"LinearSolversApplication.sparse_cg", "cg"},
      {"bicgstab", "bicgstab"},
      {"BICGSTABSolver", "bicgstab"},
      {"CGSolver", "cg"},
  };
  return names;
}

// Builds the solver a "linear_solver_settings" object names (an empty object
// gives sparse_lu). The settings are validated on a copy: an unknown key is an
// error that names it and lists the allowed ones.
inline LinearSolver::Pointer CreateLinearSolver(const Parameters& settings) {
  Parameters copy = settings.Clone();
  if (!copy.IsSubParameter())
    TESSERA_ERROR(settings.Origin(), ": key '", settings.Path(),
                  "' must be an object {\"solver_type\": ...}");
  std::string requested = copy.Has("solver_type") ? copy.GetString("solver_type") : "sparse_lu";
  std::string name = requested;
  if (auto it = KratosSolverNames().find(requested); it != KratosSolverNames().end())
    name = it->second;
  static const std::set<std::string> own = {"sparse_lu", "cg", "bicgstab", "amgcl", "petsc"};
  if (!own.count(name)) {
    std::string known = "sparse_lu, cg, bicgstab, petsc";
    for (const auto& [kratos, mapped] : KratosSolverNames()) known += ", " + kratos;
    TESSERA_ERROR(settings.Origin(), ": key '",
                  settings.Path().empty() ? "solver_type" : settings.Path() + ".solver_type",
                  "' is '", requested, "'; known linear solvers: ", known);
  }
  if (name == "petsc") return CreatePetscLinearSolver(settings);
  // Keys Kratos' solvers accept. Those without a counterpart here (amgcl's
  // multigrid tuning, scaling, verbosity) are accepted so that decks run
  // unchanged; they tune an algorithm this build replaces, and say nothing about
  // the solution.
  Parameters defaults(R"({
      "solver_type": "sparse_lu", "tolerance": 1e-9, "max_iteration": 1000,
      "preconditioner_type": "", "krylov_type": "cg", "scaling": false, "verbosity": 0,
      "echo_level": 0, "smoother_type": "", "coarsening_type": "", "coarse_enough": 0,
      "max_levels": 0, "pre_sweeps": 0, "post_sweeps": 0, "gmres_krylov_space_dimension": 0,
      "use_block_matrices_if_possible": false, "use_gpgpu": false, "block_size": 1,
      "provide_coordinates": false, "max_iterations": 0, "reform_preconditioner_at_each_step": true
  })");
  copy.ValidateAndAssignDefaults(defaults);
  const double tolerance = copy.GetDouble("tolerance");
  int max_iterations = copy.GetInt("max_iteration");
  if (copy.GetInt("max_iterations") > 0) max_iterations = copy.GetInt("max_iterations");
  TESSERA_CHECK(tolerance > 0.0, settings.Origin(), ": linear solver tolerance must be positive");
  TESSERA_CHECK(max_iterations > 0, settings.Origin(),
                ": linear solver max_iteration must be positive");
  std::string preconditioner = copy.GetString("preconditioner_type");

  if (name == "sparse_lu") return std::make_shared<SparseLUSolver>();
  if (name == "amgcl") {
    // The nearest: an incomplete factorisation in place of the multigrid
    // preconditioner, the Krylov method amgcl was asked for.
    const std::string krylov = copy.GetString("krylov_type");
    name = (krylov == "cg" || krylov == "lgmres" || krylov.empty()) ? "cg" : "bicgstab";
    preconditioner = name == "cg" ? "incomplete_cholesky" : "ilut";
  }
  if (name == "cg") {
    if (preconditioner.empty() || preconditioner == "diagonal" || preconditioner == "jacobi")
      return std::make_shared<IterativeSolver<CGDiagonal>>("cg (diagonal)", tolerance,
                                                           max_iterations);
    if (preconditioner == "incomplete_cholesky" || preconditioner == "ilu0" ||
        preconditioner == "ichol")
      return std::make_shared<IterativeSolver<CGIncompleteCholesky>>("cg (incomplete Cholesky)",
                                                                     tolerance, max_iterations);
  } else {  // bicgstab
    if (preconditioner.empty() || preconditioner == "diagonal" || preconditioner == "jacobi")
      return std::make_shared<IterativeSolver<BiCGSTABDiagonal>>("bicgstab (diagonal)", tolerance,
                                                                 max_iterations);
    if (preconditioner == "ilut" || preconditioner == "ilu0")
      return std::make_shared<IterativeSolver<BiCGSTABIlut>>("bicgstab (ILUT)", tolerance,
                                                             max_iterations);
  }
  TESSERA_ERROR(settings.Origin(), ": preconditioner_type '", preconditioner,
                "' is not "
                "available for ",
                name, "; use \"diagonal\" or ",
                name == "cg" ? "\"incomplete_cholesky\"" : "\"ilut\"");
}

}  // namespace tessera
