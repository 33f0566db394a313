// DistributedBuilderAndSolver: the builder-and-solver of an implicit solver in
// a distributed run ("parallel_type": "MPI"), over the piece of the mesh
// DistributeModelPart left to this rank.
//
// Each rank numbers the dofs of its own elements and conditions locally, as the
// serial builder does (fixed dofs eliminated, free ones first), and assembles
// its elements' contributions: at the nodes it shares with other ranks the
// local tangent and residual are partial sums.
//
// Global numbering: the free dofs of the nodes a rank owns (the METIS
// partition's node owner) get consecutive global rows, rank after rank, in
// local equation order; the ghost dofs (shared nodes another rank owns) learn
// their global rows from their owner in one exchange with the neighbours.
//
// Residual: the local residuals are summed over the ranks at the shared
// equations (InterfaceSum, ascending rank order), so every rank holds the
// global residual of all its equations: the reactions at shared supports and
// the criteria's norms need nothing more. Tangent: the local matrices are
// added into one PETSc MPIAIJ matrix (PetscLinearSolver), and each rank's
// local matrix is freed before the preconditioner is built, so that the two
// copies of the system do not both stay through the solve's peak (on the
// static cantilever's 2 ranks, 229 MiB a rank); the solution comes
// back to every local equation, owned and ghost, so each rank updates its
// own nodes and copies alike, and the next assembly needs no halo exchange.
// Convergence norms and the free-dof count are global (FreeDofReduction).
#pragma once

#include <memory>
#include <vector>

#include "kernel/linear_solvers/petsc_linear_solver.h"
#include "kernel/parallel/communicator.h"
#include "kernel/parallel/interface_sum.h"
#include "kernel/solving/builder_and_solver.h"

namespace tessera {

class DistributedBuilderAndSolver final : public BuilderAndSolver, public FreeDofReduction {
 public:
  // neighbours, shared_nodes, owned_nodes: DistributeModelPart's LocalMesh.
  DistributedBuilderAndSolver(std::shared_ptr<const Communicator> communicator,
                              std::vector<int> neighbours,
                              std::vector<std::vector<IdType>> shared_nodes,
                              std::vector<IdType> owned_nodes, PetscSolverSettings settings);

  // The serial set-up, then the global numbering and the interface (collective).
  void SetUpSystem(ModelPart& model_part) override;
  void Build(Scheme& scheme, ModelPart& model_part, SparseMatrix& A, Vector& b) override;
  void BuildRHS(Scheme& scheme, ModelPart& model_part, Vector& b) override;
  void FinishRHS(Scheme& scheme, ModelPart& model_part, Vector& b) override;
  // A is added into PETSc's matrix, then freed before the preconditioner is
  // built (A is empty afterwards; the next Build computes its pattern again).
  void SystemSolve(SparseMatrix& A, Vector& dx, const Vector& b) override;
  const FreeDofReduction* Reduction() const override { return this; }
  // Whether any rank's fixity changed: the renumbering that follows is
  // collective, so every rank must take it (collective).
  bool FixityChanged() const override;

  std::size_t GlobalFreeDofs() const override { return global_free_; }
  double SquaredNorm(const Vector& v) const override;
  double SquaredNormOfValues(const DofSet& dofs) const override;

  // The global row of each local free equation, and which ones this rank owns.
  const std::vector<std::int64_t>& GlobalIds() const { return global_ids_; }
  const std::vector<std::uint8_t>& Owned() const { return owned_; }

 private:
  std::shared_ptr<const Communicator> communicator_;
  std::vector<IdType> owned_nodes_;  // ascending
  InterfaceSum interface_;
  std::shared_ptr<PetscLinearSolver> petsc_;
  std::vector<std::int64_t> global_ids_;
  std::vector<std::uint8_t> owned_;
  std::size_t global_free_ = 0;
};

}  // namespace tessera
