// DistributedBuilderAndSolver: global numbering of the free dofs, the
// residual's interface sum, and the global norms.
#include "kernel/linear_solvers/distributed_builder_and_solver.h"

#include <algorithm>

namespace tessera {

DistributedBuilderAndSolver::DistributedBuilderAndSolver(
    std::shared_ptr<const Communicator> communicator, std::vector<int> neighbours,
    std::vector<std::vector<IdType>> shared_nodes, std::vector<IdType> owned_nodes,
    PetscSolverSettings settings)
    : BuilderAndSolver(std::make_shared<PetscLinearSolver>(std::move(settings), true)),
      communicator_(communicator),
      owned_nodes_(std::move(owned_nodes)),
      interface_(communicator, std::move(neighbours), std::move(shared_nodes)) {
  petsc_ = std::static_pointer_cast<PetscLinearSolver>(solver_);
  std::sort(owned_nodes_.begin(), owned_nodes_.end());
}

void DistributedBuilderAndSolver::SetUpSystem(ModelPart& model_part) {
  BuilderAndSolver::SetUpSystem(model_part);
  const NodalDatabase& db = dofs_.Database();
  const std::vector<DofSet::Dof>& dofs = dofs_.Dofs();
  const std::size_t n_total = dofs.size();
  const std::size_t n_free = dofs_.NumberOfFreeDofs();
  const std::size_t n_columns = db.DofColumns().size();
  const int rank = communicator_->Rank();

  // Shared equations are matched by (node id, dof column): the ranks add the
  // same dofs to every node, so the columns agree.
  std::vector<IdType> node_ids(n_total);
  std::vector<int> columns(n_total);
  for (std::size_t eq = 0; eq < n_total; ++eq) {
    node_ids[eq] = db.Id(dofs[eq].node);
    columns[eq] = static_cast<int>(dofs[eq].column);
  }
  interface_.SetUp(node_ids, columns);

  // Owned free equations: consecutive global rows from this rank's offset.
  owned_.assign(n_free, 0);
  std::int64_t n_owned = 0;
  for (std::size_t eq = 0; eq < n_free; ++eq)
    if (std::binary_search(owned_nodes_.begin(), owned_nodes_.end(), node_ids[eq])) {
      owned_[eq] = 1;
      ++n_owned;
    }
  const std::vector<std::int64_t> counts = communicator_->AllGather(n_owned);
  std::int64_t first = 0, total = 0;
  for (int q = 0; q < static_cast<int>(counts.size()); ++q) {
    if (q < rank) first += counts[q];
    total += counts[q];
  }
  global_ids_.assign(n_free, -1);
  std::int64_t next = first;
  for (std::size_t eq = 0; eq < n_free; ++eq)
    if (owned_[eq]) global_ids_[eq] = next++;

  // Ghosts: per shared node and dof column, the owner sends the global row
  // (-1 from a rank that does not own it, or for a fixed or absent dof).
  std::vector<std::int64_t> equation_of(db.Size() * n_columns, -1);
  for (std::size_t eq = 0; eq < n_free; ++eq)
    equation_of[dofs[eq].node * n_columns + dofs[eq].column] = static_cast<std::int64_t>(eq);
  const std::vector<int>& neighbours = interface_.Neighbours();
  const std::vector<std::vector<IdType>>& shared = interface_.SharedNodes();
  std::vector<std::vector<double>> send(neighbours.size());
  for (std::size_t k = 0; k < neighbours.size(); ++k) {
    send[k].reserve(1 + shared[k].size() * n_columns);
    send[k].push_back(static_cast<double>(n_columns));
    for (IdType id : shared[k]) {
      const IndexType node = db.IndexOf(id);
      for (std::size_t c = 0; c < n_columns; ++c) {
        const std::int64_t eq = equation_of[node * n_columns + c];
        send[k].push_back(eq >= 0 && owned_[eq] ? static_cast<double>(global_ids_[eq]) : -1.0);
      }
    }
  }
  const auto received = communicator_->Exchange(neighbours, send);
  for (std::size_t k = 0; k < neighbours.size(); ++k) {
    TESSERA_CHECK(received[k].size() == send[k].size() &&
                      static_cast<std::size_t>(received[k][0]) == n_columns,
                  "DistributedBuilderAndSolver: rank ", rank, " and rank ", neighbours[k],
                  " disagree on the dofs of their ", shared[k].size(),
                  " shared nodes (every rank must add the same dofs to every node)");
    std::size_t p = 1;
    for (IdType id : shared[k]) {
      const IndexType node = db.IndexOf(id);
      for (std::size_t c = 0; c < n_columns; ++c, ++p) {
        const std::int64_t eq = equation_of[node * n_columns + c];
        if (received[k][p] >= 0.0 && eq >= 0 && !owned_[eq])
          global_ids_[eq] = static_cast<std::int64_t>(received[k][p]);
      }
    }
  }
  for (std::size_t eq = 0; eq < n_free; ++eq)
    TESSERA_CHECK(global_ids_[eq] >= 0, "DistributedBuilderAndSolver: dof ",
                  dofs_.VariableOf(eq).Name(), " of node ", node_ids[eq], " is free on rank ", rank,
                  " but its owner sent no equation for it (fixed there, or absent): "
                  "the ranks must fix the same dofs");
  global_free_ = static_cast<std::size_t>(total);
  petsc_->SetDistribution(global_ids_, owned_, first, n_owned, total);
}

void DistributedBuilderAndSolver::Build(Scheme& scheme, ModelPart& model_part, SparseMatrix& A,
                                        Vector& b) {
  BuilderAndSolver::Build(scheme, model_part, A, b);
  interface_.Sum(b);
}

void DistributedBuilderAndSolver::BuildRHS(Scheme& scheme, ModelPart& model_part, Vector& b) {
  BuilderAndSolver::BuildRHS(scheme, model_part, b);
  interface_.Sum(b);
}

void DistributedBuilderAndSolver::FinishRHS(Scheme& scheme, ModelPart& model_part, Vector& b) {
  BuilderAndSolver::FinishRHS(scheme, model_part, b);
  interface_.Sum(b);
}

void DistributedBuilderAndSolver::SystemSolve(SparseMatrix& A, Vector& dx, const Vector& b) {
  const auto n = static_cast<Eigen::Index>(dofs_.NumberOfFreeDofs());
  rhs_free_ = b.head(n);
  petsc_->LoadMatrix(A);
  // The multigrid hierarchy is built next, on top of PETSc's copy: the local
  // one goes first. Its pattern is computed again at the next build (a
  // Newton iteration's ComputePattern; a linear solve has none). Its arrays
  // are blocks of their own (kernel/core/heap.h): their pages go back now.
  SparseMatrix().swap(A);  // (assigning an empty matrix would keep A's arrays)
  petsc_->SolveLoaded(dx, rhs_free_);
}

bool DistributedBuilderAndSolver::FixityChanged() const {
  const std::int64_t changed = BuilderAndSolver::FixityChanged() ? 1 : 0;
  return communicator_->MaxAll(changed) > 0;
}

double DistributedBuilderAndSolver::SquaredNorm(const Vector& v) const {
  double sum = 0.0;
  for (std::size_t eq = 0; eq < owned_.size(); ++eq)
    if (owned_[eq]) sum += v[static_cast<Eigen::Index>(eq)] * v[static_cast<Eigen::Index>(eq)];
  return communicator_->SumAll(sum);
}

double DistributedBuilderAndSolver::SquaredNormOfValues(const DofSet& dofs) const {
  double sum = 0.0;
  for (std::size_t eq = 0; eq < owned_.size(); ++eq)
    if (owned_[eq]) sum += dofs.Value(eq) * dofs.Value(eq);
  return communicator_->SumAll(sum);
}

}  // namespace tessera
