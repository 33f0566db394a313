// PetscLinearSolver: a LinearSolver over PETSc's KSP (a Krylov method with a
// preconditioner, algebraic multigrid among them: GAMG, hypre's BoomerAMG),
// for one process or for the ranks of a distributed run.
//
// Serial (the "petsc" solver_type): the builder's free x free matrix is copied
// into a sequential AIJ matrix on PETSC_COMM_SELF and solved; the result is
// the Eigen solvers' in every respect but speed.
//
// Distributed (DistributedBuilderAndSolver): each rank holds the local system
// of its own elements, rows and columns numbered locally; SetDistribution
// gives each local equation its global row and says which ones this rank
// owns. The local matrix is added into a PETSc MPIAIJ matrix (partial sums at
// shared rows add up over the ranks, off-rank rows travel in PETSc's
// assembly), the owned rows of the right-hand side (already summed over the
// ranks) set the MPI vector, and the solution comes back on every local
// equation, owned and ghost.
//
// The matrix is preallocated from the sparsity once per pattern (PETSc's
// MATPREALLOCATOR: every rank's local pattern, ghost rows included), so
// assembly never allocates; only the values change between solves.
//
// This header does not include petsc.h: the kernel's other sources and the
// plugins compile without PETSc. In a build without it (TESSERA_WITH_PETSC
// off) creating one is an error that says so.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "kernel/linear_solvers/petsc_settings.h"
#include "kernel/solving/linear_solver.h"

namespace tessera {

// Whether this build has PETSc (TESSERA_WITH_PETSC).
bool PetscBuilt();

class PetscLinearSolver final : public LinearSolver {
 public:
  // distributed: over all ranks of the run (PETSC_COMM_WORLD); else this
  // process alone (PETSC_COMM_SELF).
  PetscLinearSolver(PetscSolverSettings settings, bool distributed);
  ~PetscLinearSolver() override;

  // Distributed only; collective. global_ids[i]: the global row of local
  // equation i; owned[i]: this rank owns it; this rank owns the global rows
  // [first_owned, first_owned + owned_count), global_count over all ranks.
  void SetDistribution(std::vector<std::int64_t> global_ids, std::vector<std::uint8_t> owned,
                       std::int64_t first_owned, std::int64_t owned_count,
                       std::int64_t global_count);

  // A: the local matrix (all local equations); b: the local right-hand side,
  // whose owned entries are the global values; x: the solution at every local
  // equation. Collective when distributed.
  void Solve(const SparseMatrix& A, Vector& x, const Vector& b) override;
  // Solve in two calls, distributed only (collective): LoadMatrix adds A into
  // the PETSc matrix, SolveLoaded solves with it. A is not needed in between,
  // so its owner may free it before the preconditioner is built
  // (DistributedBuilderAndSolver::SystemSolve).
  void LoadMatrix(const SparseMatrix& A);
  void SolveLoaded(Vector& x, const Vector& b);
  void Clear() override;
  // GAMG with rigid_body_modes: the equations' positions and components.
  bool AdditionalPhysicalDataIsNeeded() const override;
  void ProvideAdditionalData(const std::vector<double>& coordinates,
                             const std::vector<int>& components) override;
  bool IsDirect() const override;
  std::string Info() const override;

  const PetscSolverSettings& Settings() const { return settings_; }

 private:
  struct Impl;
  void MakeKsp();
  PetscSolverSettings settings_;
  bool distributed_;
  std::unique_ptr<Impl> impl_;
};

// The solver a "linear_solver_settings" object with "solver_type": "petsc"
// names (serial).
LinearSolver::Pointer CreatePetscLinearSolver(const Parameters& settings);

}  // namespace tessera
