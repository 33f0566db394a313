// BuilderAndSolver: the global system of a model part — dof numbering, CSR
// sparsity, parallel assembly of tangent and residual, the linear solve, and
// reactions (Kratos' ResidualBasedEliminationBuilderAndSolver).
//
// Fixed dofs are eliminated (DofSet numbers them after the free ones): A is the
// free x free block of the tangent, b holds every dof's residual, free rows
// first, and the fixed rows of b are the reactions' source. Because the local
// systems are residuals evaluated at the current values (imposed values
// included), the free block alone gives the correct Newton increment.
//
// Determinism: the entities are coloured (greedily, in model part order) so
// that no two entities of one colour share an equation; colours are assembled
// one after another, the entities of a colour in parallel. Every matrix and
// vector entry therefore receives its contributions in colour order whatever
// the thread count, and the assembled system is bitwise the same for 1 or N
// threads. Entities beyond 64 colours (not met by finite-element meshes) are
// assembled serially at the end, in order.
//
// A right-hand side alone (BuildRHS: the explicit step's residual, the mass)
// is built in two passes that add the same terms in the same order: the
// entities' local vectors, in entity order, into one buffer; then each
// equation sums its terms from the buffer in the coloured order (colour by
// colour, the serial entities last, an entity's own repeated ids in local
// order), from zero. The entities are thus visited in model part order, whose
// neighbours share nodes and lie near each other in memory, instead of once
// per colour across the whole mesh; the result is bitwise the coloured one.
// The first pass can be split (BeginRHS, FinishRHS): entities whose loads
// another solver computes in the same step (DeferEntities) are evaluated
// after it, the others meanwhile; the sums are unchanged.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "kernel/core/heap.h"
#include "kernel/solving/dof_set.h"
#include "kernel/solving/free_dof_reduction.h"
#include "kernel/solving/linear_solver.h"
#include "kernel/solving/scheme.h"

namespace tessera {

class BuilderAndSolver {
 public:
  using Pointer = std::shared_ptr<BuilderAndSolver>;

  explicit BuilderAndSolver(LinearSolver::Pointer linear_solver)
      : solver_(std::move(linear_solver)) {
    TESSERA_CHECK(solver_ != nullptr, "BuilderAndSolver needs a linear solver");
  }
  // A distributed builder (kernel/linear_solvers/distributed_builder_and_solver)
  // adds the exchange of shared rows and the global numbering to these steps.
  virtual ~BuilderAndSolver() = default;

  // Collects and numbers the dofs of the model part's active entities.
  void SetUpDofSet(ModelPart& model_part) {
    dofs_.SetUp(model_part);
    system_ready_ = false;
  }

  // Caches each entity's equation ids, colours the entities and builds the
  // sparsity of the free block. Call after SetUpDofSet (and after renumbering).
  virtual void SetUpSystem(ModelPart& model_part) {
    TESSERA_CHECK(dofs_.IsSetUp(), "BuilderAndSolver: SetUpDofSet must come before SetUpSystem");
    entities_ = DofSet::ActiveEntities(model_part);
    const std::size_t n_entities = entities_.size();
    const std::size_t n_total = dofs_.size();
    TESSERA_CHECK(n_total < static_cast<std::size_t>(std::numeric_limits<int>::max()),
                  "BuilderAndSolver: ", n_total, " equations exceed the 32-bit index range");
    const ProcessInfo& info = model_part.GetProcessInfo();

    // Equation ids of every entity, flattened: counted, then written in
    // place, each entity asked twice into one list per thread (a list per
    // entity would be a transient of 200 B an entity, heap the process keeps).
    std::vector<std::vector<IdType>> scratch(static_cast<std::size_t>(ParallelThreads()));
    offsets_.assign(n_entities + 1, 0);
    ParallelForChecked(n_entities, [&](std::size_t k) {
      std::vector<IdType>& ids = scratch[static_cast<std::size_t>(omp_get_thread_num())];
      entities_[k]->EquationIdVector(ids, info);
      for (IdType id : ids)
        if (id < 0 || static_cast<std::size_t>(id) >= n_total)
          TESSERA_ERROR(entities_[k]->Info(), " gives equation id ", id, " outside 0..", n_total,
                        "; its dofs were not collected (SetUpDofSet)");
      offsets_[k + 1] = ids.size();
    });
    for (std::size_t k = 0; k < n_entities; ++k) offsets_[k + 1] += offsets_[k];
    equation_ids_.resize(offsets_.back());
    ParallelFor(n_entities, [&](std::size_t k) {
      std::vector<IdType>& ids = scratch[static_cast<std::size_t>(omp_get_thread_num())];
      entities_[k]->EquationIdVector(ids, info);
      std::copy(ids.begin(), ids.end(), equation_ids_.begin() + offsets_[k]);
    });

    Colour(n_total);
    MarkDeferred();
    gather_start_.clear();  // the right-hand side's order, made at its first use (AssembleRHS)

    // The sparsity is computed into the system matrix itself (MakeMatrix).
    pattern_made_ = false;
    if (solver_->AdditionalPhysicalDataIsNeeded()) ProvidePhysicalData();
    system_ready_ = true;
  }

  // After fixity changed: renumber (free first) and rebuild the sparsity.
  void Renumber(ModelPart& model_part) {
    dofs_.Number();
    SetUpSystem(model_part);
  }
  virtual bool FixityChanged() const { return dofs_.IsSetUp() && dofs_.FixityChanged(); }
  bool IsSystemSetUp() const { return system_ready_; }

  // Gives A the sparsity (zero values), dx the free size and b the full size.
  void InitializeSystem(SparseMatrix& A, Vector& dx, Vector& b) {
    CheckReady();
    if (HasPattern(A))
      std::fill(A.valuePtr(), A.valuePtr() + A.nonZeros(), 0.0);
    else
      MakeMatrix(A);
    dx = Vector::Zero(static_cast<Eigen::Index>(dofs_.NumberOfFreeDofs()));
    b = Vector::Zero(static_cast<Eigen::Index>(dofs_.size()));
  }

  virtual void Build(Scheme& scheme, ModelPart& model_part, SparseMatrix& A, Vector& b) {
    Assemble(scheme, model_part, &A, &b);
  }
  void BuildLHS(Scheme& scheme, ModelPart& model_part, SparseMatrix& A) {
    Assemble(scheme, model_part, &A, nullptr);
  }
  virtual void BuildRHS(Scheme& scheme, ModelPart& model_part, Vector& b) {
    Assemble(scheme, model_part, nullptr, &b);
  }

  // Entities whose right-hand side waits for another solver's step of the
  // same time step (a partitioned coupling's load conditions). BeginRHS
  // leaves them out; FinishRHS adds them. Kept across renumberings.
  void DeferEntities(std::vector<const Entity*> entities) {
    std::sort(entities.begin(), entities.end());
    deferred_entities_ = std::move(entities);
    MarkDeferred();
  }
  // The right-hand side in two calls, bitwise what BuildRHS gives. BeginRHS
  // computes the local vectors of every entity not deferred and writes
  // nothing but this builder's buffers, so it may run on some threads while
  // the other solver works on others; FinishRHS computes the deferred
  // entities' and sums each equation's terms.
  void BeginRHS(Scheme& scheme, ModelPart& model_part) {
    CheckReady();
    GrowLocals();
    ComputeLocalRHS(scheme, model_part.GetProcessInfo(), Part::immediate);
    rhs_begun_ = true;
  }
  virtual void FinishRHS(Scheme& scheme, ModelPart& model_part, Vector& b) {
    TESSERA_CHECK(rhs_begun_, "BuilderAndSolver: FinishRHS without BeginRHS");
    rhs_begun_ = false;
    GrowLocals();
    ComputeLocalRHS(scheme, model_part.GetProcessInfo(), Part::deferred);
    GatherRHS(b);
  }

  // Solves A dx = b over the free dofs (b's free rows). A builder whose
  // solver keeps a copy of A may free A here (the distributed one does); the
  // next build then gives it the pattern again (MakeMatrix).
  virtual void SystemSolve(SparseMatrix& A, Vector& dx, const Vector& b) {
    const auto n = static_cast<Eigen::Index>(dofs_.NumberOfFreeDofs());
    rhs_free_ = b.head(n);
    if (dx.size() != n) dx = Vector::Zero(n);
    if (!solver_->IsDirect()) dx.setZero();  // an increment starts from zero
    solver_->Solve(A, dx, rhs_free_);
  }

  // REACTION (the reaction variable each dof column names) = -b for every dof:
  // the force the supports exert on the structure at fixed dofs, the unbalanced
  // residual (about zero when converged) at free ones. b must be the residual
  // at the final state.
  void CalculateReactions(const Vector& b) const {
    CheckReady();
    ParallelFor(dofs_.size(), [&](std::size_t eq) {
      if (const Variable<double>* reaction = dofs_.ReactionOf(eq))
        dofs_.Database().Historical(*reaction, dofs_.Dofs()[eq].node) = -b[eq];
    });
  }

  const DofSet& GetDofSet() const { return dofs_; }
  // The global sums of a distributed system (nullptr: serial, local sums).
  virtual const FreeDofReduction* Reduction() const { return nullptr; }
  LinearSolver& GetLinearSolver() { return *solver_; }
  std::size_t NumberOfColours() const { return colours_.size(); }
  std::span<const int> EquationIds(std::size_t entity) const { return Ids(entity); }
  const std::vector<Entity*>& Entities() const { return entities_; }
  // The sparsity of the free block, as a matrix of zeros.
  SparseMatrix Pattern() const {
    CheckReady();
    SparseMatrix A;
    ComputePattern(A);
    return A;
  }

  virtual void Clear() {
    dofs_ = DofSet();
    entities_.clear();
    offsets_.clear();
    equation_ids_.clear();
    colours_.clear();
    serial_.clear();
    gather_start_.clear();
    gather_positions_.clear();
    local_rhs_.clear();
    is_deferred_.clear();
    deferred_.clear();
    rhs_begun_ = false;
    pattern_made_ = false;
    pattern_hash_ = 0;
    pattern_nonzeros_ = 0;
    solver_->Clear();
    system_ready_ = false;
  }

 protected:
  struct LocalSystem {
    Matrix lhs;
    Vector rhs;
  };

  std::span<const int> Ids(std::size_t k) const {
    return {equation_ids_.data() + offsets_[k], offsets_[k + 1] - offsets_[k]};
  }
  void CheckReady() const {
    TESSERA_CHECK(system_ready_,
                  "BuilderAndSolver: the system is not set up (SetUpDofSet, "
                  "SetUpSystem)");
  }

  // A becomes the sparsity of the free block (CSR, free x free) with zero
  // values: the union of each row's entities' free ids, sorted. Two passes
  // over the rows (count into A's row offsets, then write straight into A's
  // column indices) with one scratch list per thread: no per-row allocation,
  // and the pattern is never held twice (no copy beside the matrix).
  void ComputePattern(SparseMatrix& A) const {
    const std::size_t n_entities = entities_.size();
    const std::size_t n_free = dofs_.NumberOfFreeDofs();
    // Rows -> entities touching them (counting sort, in entity order).
    std::vector<std::size_t> row_start(n_free + 1, 0);
    for (std::size_t k = 0; k < n_entities; ++k)
      for (int id : Ids(k))
        if (static_cast<std::size_t>(id) < n_free) ++row_start[id + 1];
    for (std::size_t r = 0; r < n_free; ++r) row_start[r + 1] += row_start[r];
    std::vector<std::uint32_t> row_entities(row_start.back());
    {
      std::vector<std::size_t> fill(row_start.begin(), row_start.end() - 1);
      for (std::size_t k = 0; k < n_entities; ++k)
        for (int id : Ids(k))
          if (static_cast<std::size_t>(id) < n_free)
            row_entities[fill[id]++] = static_cast<std::uint32_t>(k);
    }
    std::vector<std::vector<int>> scratch(static_cast<std::size_t>(ParallelThreads()));
    auto row_columns = [&](std::size_t r) -> std::vector<int>& {
      std::vector<int>& columns = scratch[static_cast<std::size_t>(omp_get_thread_num())];
      columns.clear();
      for (std::size_t p = row_start[r]; p < row_start[r + 1]; ++p)
        for (int id : Ids(row_entities[p]))
          if (static_cast<std::size_t>(id) < n_free) columns.push_back(id);
      std::sort(columns.begin(), columns.end());
      columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
      return columns;
    };
    const auto n = static_cast<Eigen::Index>(n_free);
    // The old arrays go before the new ones come (swapped out: Eigen's
    // assignment of an empty matrix keeps them allocated).
    SparseMatrix().swap(A);
    A = SparseMatrix(n, n);
    int* outer = A.outerIndexPtr();
    outer[0] = 0;
    ParallelFor(n_free,
                [&](std::size_t r) { outer[r + 1] = static_cast<int>(row_columns(r).size()); });
    for (std::size_t r = 0; r < n_free; ++r) outer[r + 1] += outer[r];
    A.resizeNonZeros(static_cast<Eigen::Index>(outer[n_free]));
    // Hundreds of MiB written once now: faulted in per 2 MiB, not per 4 KiB
    // (kernel/core/heap.h; the values are Eigen's, PETSc's serial matrix too).
    AdviseHugePages(A.innerIndexPtr(), sizeof(int) * static_cast<std::size_t>(A.nonZeros()));
    AdviseHugePages(A.valuePtr(), sizeof(double) * static_cast<std::size_t>(A.nonZeros()));
    int* inner = A.innerIndexPtr();
    ParallelFor(n_free, [&](std::size_t r) {
      const std::vector<int>& columns = row_columns(r);
      std::copy(columns.begin(), columns.end(), inner + outer[r]);
    });
    std::fill(A.valuePtr(), A.valuePtr() + A.nonZeros(), 0.0);
  }
  // A 64-bit digest of a CSR pattern: how the builder recognises the system
  // matrix it handed its pattern to. Four interleaved FNV-1a lanes over the
  // indices (independent multiplications, ~1 cycle an index), mixed at the
  // end by a splitmix64 step; a match by chance between two patterns of the
  // same size is ~2^-64.
  static std::uint64_t PatternHash(const int* outer, std::size_t rows, const int* inner,
                                   std::size_t nonzeros) {
    constexpr std::uint64_t kPrime = 0x100000001b3ULL;
    std::uint64_t lane[4] = {0xcbf29ce484222325ULL, 0x84222325cbf29ce4ULL, rows, nonzeros};
    auto add = [&](const int* values, std::size_t n) {
      std::size_t i = 0;
      for (; i + 4 <= n; i += 4)
        for (int l = 0; l < 4; ++l)
          lane[l] = (lane[l] ^ static_cast<std::uint32_t>(values[i + l])) * kPrime;
      for (; i < n; ++i) lane[0] = (lane[0] ^ static_cast<std::uint32_t>(values[i])) * kPrime;
    };
    add(outer, rows + 1);
    add(inner, nonzeros);
    std::uint64_t h = 0;
    for (std::uint64_t v : lane) {
      h += v + 0x9e3779b97f4a7c15ULL;
      h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
      h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
      h ^= h >> 31;
    }
    return h;
  }
  // The number of entries of the pattern last made (MakeMatrix).
  std::size_t PatternNonZeros() const { return pattern_nonzeros_; }
  std::size_t PatternRows() const { return dofs_.NumberOfFreeDofs(); }

  // A becomes the free block's sparsity with zero values. The builder keeps
  // no copy of it (154 MiB at 40 M entries), only the pattern's digest and
  // size to recognise A (HasPattern); another matrix gets it computed again.
  void MakeMatrix(SparseMatrix& A) {
    ComputePattern(A);
    pattern_nonzeros_ = static_cast<std::size_t>(A.nonZeros());
    pattern_hash_ =
        PatternHash(A.outerIndexPtr(), PatternRows(), A.innerIndexPtr(), pattern_nonzeros_);
    pattern_made_ = true;
  }
  // Whether A has the free block's sparsity (then only its values change).
  bool HasPattern(const SparseMatrix& A) const {
    if (!pattern_made_ || !A.isCompressed() ||
        static_cast<std::size_t>(A.rows()) != PatternRows() || A.cols() != A.rows())
      return false;
    return static_cast<std::size_t>(A.nonZeros()) == pattern_nonzeros_ &&
           PatternHash(A.outerIndexPtr(), PatternRows(), A.innerIndexPtr(), pattern_nonzeros_) ==
               pattern_hash_;
  }

  // Positions and components of the free equations, for the linear solver.
  void ProvidePhysicalData() {
    const std::size_t n_free = dofs_.NumberOfFreeDofs();
    const NodalDatabase& db = dofs_.Database();
    std::vector<double> coordinates(3 * n_free);
    std::vector<int> components(n_free, -1);
    for (std::size_t eq = 0; eq < n_free; ++eq) {
      const Array3& x = db.InitialCoordinates(dofs_.Dofs()[eq].node);
      for (int i = 0; i < 3; ++i) coordinates[3 * eq + i] = x[i];
      const Variable<double>& v = dofs_.VariableOf(eq);
      if (v.IsComponent()) components[eq] = v.ComponentIndex();
    }
    solver_->ProvideAdditionalData(coordinates, components);
  }

  // Greedy colouring in entity order: each entity takes the lowest colour none
  // of its equations has seen yet (one 64-bit mask per equation).
  void Colour(std::size_t n_total) {
    std::vector<std::uint64_t> used(n_total, 0);
    colours_.clear();
    serial_.clear();
    for (std::size_t k = 0; k < entities_.size(); ++k) {
      std::uint64_t taken = 0;
      for (int id : Ids(k)) taken |= used[id];
      if (taken == ~std::uint64_t{0}) {
        serial_.push_back(static_cast<std::uint32_t>(k));
        continue;
      }
      const int colour = std::countr_one(taken);
      for (int id : Ids(k)) used[id] |= std::uint64_t{1} << colour;
      if (colours_.size() <= static_cast<std::size_t>(colour)) colours_.resize(colour + 1);
      colours_[colour].push_back(static_cast<std::uint32_t>(k));
    }
  }

  // is_deferred_ and deferred_ (entity positions, in entity order) from the
  // deferred entities that are active entities of the system.
  void MarkDeferred() {
    is_deferred_.assign(entities_.size(), 0);
    deferred_.clear();
    if (deferred_entities_.empty()) return;
    for (std::size_t k = 0; k < entities_.size(); ++k)
      if (std::binary_search(deferred_entities_.begin(), deferred_entities_.end(),
                             static_cast<const Entity*>(entities_[k]))) {
        is_deferred_[k] = 1;
        deferred_.push_back(static_cast<std::uint32_t>(k));
      }
  }

  // For every equation, the positions of its terms in equation_ids_ (and in the
  // buffer of local right-hand sides), in the order the coloured assembly adds
  // them.
  void GatherOrder(std::size_t n_total) {
    gather_start_.assign(n_total + 1, 0);
    for (int id : equation_ids_) ++gather_start_[static_cast<std::size_t>(id) + 1];
    for (std::size_t eq = 0; eq < n_total; ++eq) gather_start_[eq + 1] += gather_start_[eq];
    gather_positions_.resize(equation_ids_.size());
    std::vector<std::size_t> fill(gather_start_.begin(), gather_start_.end() - 1);
    auto add = [&](std::uint32_t k) {
      for (std::size_t p = offsets_[k]; p < offsets_[k + 1]; ++p)
        gather_positions_[fill[static_cast<std::size_t>(equation_ids_[p])]++] =
            static_cast<std::uint32_t>(p);
    };
    for (const std::vector<std::uint32_t>& colour : colours_)
      for (std::uint32_t k : colour) add(k);
    for (std::uint32_t k : serial_) add(k);
  }

  // The right-hand side alone, in the two passes of the file's comment.
  void AssembleRHS(Scheme& scheme, const ProcessInfo& info, Vector& b) {
    rhs_begun_ = false;
    ComputeLocalRHS(scheme, info, Part::all);
    GatherRHS(b);
  }

  // One local system per thread of the calling thread's team; grown only,
  // since the two parts of a split right-hand side run with different
  // thread counts and would otherwise rebuild them every step.
  void GrowLocals() {
    const auto n = static_cast<std::size_t>(ParallelThreads());
    if (locals_.size() < n) locals_.resize(n);
  }

  // The first pass for all entities, those not deferred or the deferred ones.
  enum class Part { all, immediate, deferred };
  void ComputeLocalRHS(Scheme& scheme, const ProcessInfo& info, Part part) {
    TESSERA_CHECK(equation_ids_.size() < std::numeric_limits<std::uint32_t>::max(),
                  "BuilderAndSolver: ", equation_ids_.size(),
                  " local terms exceed 32-bit positions");
    // Built here, not in SetUpSystem: an implicit solve never assembles a
    // right-hand side alone and need not hold the order.
    if (gather_start_.empty()) GatherOrder(dofs_.size());
    local_rhs_.resize(equation_ids_.size());
    auto compute = [&](std::size_t k) {
      Vector& rhs = locals_[static_cast<std::size_t>(omp_get_thread_num())].rhs;
      Entity& entity = *entities_[k];
      scheme.CalculateRHSContribution(entity, rhs, info);
      const std::size_t n = offsets_[k + 1] - offsets_[k];
      if (static_cast<std::size_t>(rhs.size()) != n)
        TESSERA_ERROR(entity.Info(), ": local right-hand side has ", rhs.size(), " entries for ", n,
                      " equation ids");
      std::copy(rhs.data(), rhs.data() + n, local_rhs_.begin() + offsets_[k]);
    };
    if (part == Part::deferred)
      ParallelForChecked(deferred_.size(), [&](std::size_t i) { compute(deferred_[i]); });
    else if (part == Part::immediate && !deferred_.empty())
      ParallelForChecked(entities_.size(), [&](std::size_t k) {
        if (!is_deferred_[k]) compute(k);
      });
    else
      ParallelForChecked(entities_.size(), compute);
  }

  // The second pass: each equation's terms summed in the coloured order.
  void GatherRHS(Vector& b) {
    b.resize(static_cast<Eigen::Index>(dofs_.size()));
    ParallelFor(dofs_.size(), [&](std::size_t eq) {
      double sum = 0.0;
      for (std::size_t p = gather_start_[eq]; p < gather_start_[eq + 1]; ++p)
        sum += local_rhs_[gather_positions_[p]];
      b[static_cast<Eigen::Index>(eq)] = sum;
    });
  }

  void Assemble(Scheme& scheme, ModelPart& model_part, SparseMatrix* A, Vector* b) {
    CheckReady();
    const ProcessInfo& info = model_part.GetProcessInfo();
    const std::size_t n_free = dofs_.NumberOfFreeDofs();
    if (!A && b) {
      locals_.resize(static_cast<std::size_t>(ParallelThreads()));
      AssembleRHS(scheme, info, *b);
      return;
    }
    if (A) {
      // Sizes only, as every build: InitializeSystem gave A the pattern.
      if (!pattern_made_ || static_cast<std::size_t>(A->rows()) != PatternRows() ||
          static_cast<std::size_t>(A->nonZeros()) != PatternNonZeros() || !A->isCompressed())
        MakeMatrix(*A);
      else
        std::fill(A->valuePtr(), A->valuePtr() + A->nonZeros(), 0.0);
    }
    if (b) b->setZero(static_cast<Eigen::Index>(dofs_.size()));
    locals_.resize(static_cast<std::size_t>(ParallelThreads()));

    auto assemble_one = [&](std::size_t k, LocalSystem& local) {
      Entity& entity = *entities_[k];
      if (A && b)
        scheme.CalculateSystemContributions(entity, local.lhs, local.rhs, info);
      else if (A)
        scheme.CalculateLHSContribution(entity, local.lhs, info);
      else
        scheme.CalculateRHSContribution(entity, local.rhs, info);
      const std::span<const int> ids = Ids(k);
      const auto n = static_cast<Eigen::Index>(ids.size());
      if (A) {
        if (local.lhs.rows() != n || local.lhs.cols() != n)
          TESSERA_ERROR(entity.Info(), ": local matrix is ", local.lhs.rows(), " x ",
                        local.lhs.cols(), " for ", n, " equation ids");
        const int* outer = A->outerIndexPtr();
        const int* inner = A->innerIndexPtr();
        double* values = A->valuePtr();
        for (Eigen::Index i = 0; i < n; ++i) {
          const int row = ids[i];
          if (static_cast<std::size_t>(row) >= n_free) continue;
          const int* first = inner + outer[row];
          const int* last = inner + outer[row + 1];
          for (Eigen::Index j = 0; j < n; ++j) {
            const int column = ids[j];
            if (static_cast<std::size_t>(column) >= n_free) continue;
            values[std::lower_bound(first, last, column) - inner] += local.lhs(i, j);
          }
        }
      }
      if (b) {
        if (local.rhs.size() != n)
          TESSERA_ERROR(entity.Info(), ": local right-hand side has ", local.rhs.size(),
                        " entries for ", n, " equation ids");
        for (Eigen::Index i = 0; i < n; ++i) (*b)[ids[i]] += local.rhs[i];
      }
    };
    for (const std::vector<std::uint32_t>& colour : colours_)
      ParallelForChecked(colour.size(), [&](std::size_t i) {
        assemble_one(colour[i], locals_[static_cast<std::size_t>(omp_get_thread_num())]);
      });
    for (std::uint32_t k : serial_) assemble_one(k, locals_[0]);
  }

  LinearSolver::Pointer solver_;
  DofSet dofs_;
  bool system_ready_ = false;
  std::vector<Entity*> entities_;
  std::vector<std::size_t> offsets_;
  std::vector<int> equation_ids_;
  std::vector<std::vector<std::uint32_t>> colours_;
  std::vector<std::uint32_t> serial_;
  std::vector<std::size_t> gather_start_;         // per equation, into gather_positions_
  std::vector<std::uint32_t> gather_positions_;   // terms in coloured order (GatherOrder)
  std::vector<double> local_rhs_;                 // the entities' local right-hand sides
  std::vector<const Entity*> deferred_entities_;  // sorted (DeferEntities)
  std::vector<char> is_deferred_;                 // per entity
  std::vector<std::uint32_t> deferred_;           // their positions in entities_
  bool rhs_begun_ = false;                        // BeginRHS called, FinishRHS not yet
  // The digest and number of entries of the free block's sparsity, made into
  // a system matrix (MakeMatrix) since the last SetUpSystem.
  bool pattern_made_ = false;
  std::uint64_t pattern_hash_ = 0;
  std::size_t pattern_nonzeros_ = 0;
  std::vector<LocalSystem> locals_;  // per-thread local systems, reused across builds
  Vector rhs_free_;
};

}  // namespace tessera
