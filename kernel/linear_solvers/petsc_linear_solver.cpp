// PetscLinearSolver over PETSc's Mat, Vec and KSP; PETSc's start and end with
// the process (after Tessera's MPI start, before its MPI end).
#include "kernel/linear_solvers/petsc_linear_solver.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>

#ifdef TESSERA_WITH_PETSC
#include <petscksp.h>

#include "kernel/core/heap.h"
#include "kernel/parallel/communicator.h"
#endif

namespace tessera {

#ifndef TESSERA_WITH_PETSC

bool PetscBuilt() { return false; }

struct PetscLinearSolver::Impl {};

PetscLinearSolver::PetscLinearSolver(PetscSolverSettings settings, bool distributed)
    : settings_(std::move(settings)), distributed_(distributed) {
  TESSERA_ERROR(
      "linear solver \"petsc\": this build of Tessera has no PETSc (install petsc-dev and "
      "configure with -DTESSERA_WITH_PETSC=ON); use \"sparse_lu\", \"cg\" or \"bicgstab\"");
}
PetscLinearSolver::~PetscLinearSolver() = default;
void PetscLinearSolver::SetDistribution(std::vector<std::int64_t>, std::vector<std::uint8_t>,
                                        std::int64_t, std::int64_t, std::int64_t) {}
void PetscLinearSolver::Solve(const SparseMatrix&, Vector&, const Vector&) {}
void PetscLinearSolver::LoadMatrix(const SparseMatrix&) {}
void PetscLinearSolver::SolveLoaded(Vector&, const Vector&) {}
void PetscLinearSolver::Clear() {}
bool PetscLinearSolver::AdditionalPhysicalDataIsNeeded() const { return false; }
void PetscLinearSolver::ProvideAdditionalData(const std::vector<double>&, const std::vector<int>&) {
}
bool PetscLinearSolver::IsDirect() const { return false; }
std::string PetscLinearSolver::Info() const { return "petsc (not built)"; }

#else

bool PetscBuilt() { return true; }

namespace {

void Check(PetscErrorCode code, const char* what) {
  if (code == 0) return;
  const char* text = nullptr;
  PetscErrorMessage(code, &text, nullptr);
  TESSERA_ERROR("PETSc: ", what, " failed: ", text ? text : "unknown error", " (error ", code, ")");
}

void FinalizePetsc() {
  PetscBool finalized = PETSC_FALSE;
  PetscFinalized(&finalized);
  if (!finalized) PetscFinalize();
}

bool PetscAlive() {
  PetscBool initialized = PETSC_FALSE, finalized = PETSC_FALSE;
  PetscInitialized(&initialized);
  PetscFinalized(&finalized);
  return initialized && !finalized;
}

// PETSc's blocks from 32 MiB (its matrices, the multigrid hierarchy and the
// setup's transients, hundreds of MiB allocated and freed again) each in huge
// pages of their own (kernel/core/heap.h): freed, they go back to the system
// at once, as glibc's mapped blocks, but mapped anew they fault in per 2 MiB,
// not per 4 KiB (~20 us a fault on host F; the static cantilever: 383,500 ->
// 137,000 faults on one process, 836,000 -> 367,000 on two ranks). From
// 4 MiB instead: more memory (huge pages partly used; 2 ranks +265 MiB).
// Smaller blocks come from the heap as with PETSc's own allocator (glibc's
// blocks are 16-byte aligned, PETSC_MEMALIGN).
constexpr std::size_t kHugeFrom = std::size_t{32} << 20;

PetscErrorCode HugeMalloc(size_t bytes, PetscBool clear, int, const char[], const char[],
                          void** result) {
  *result = nullptr;
  if (bytes == 0) return 0;
  if (bytes >= kHugeFrom) *result = MapHugeBlock(bytes);  // zeroed
  if (*result == nullptr) *result = clear ? std::calloc(bytes, 1) : std::malloc(bytes);
  return *result != nullptr ? 0 : PETSC_ERR_MEM;
}

PetscErrorCode HugeFree(void* p, int, const char[], const char[]) {
  if (!FreeHugeBlock(p)) std::free(p);
  return 0;
}

PetscErrorCode HugeRealloc(size_t bytes, int line, const char function[], const char file[],
                           void** result) {
  const std::size_t old = HugeBlockSize(*result);
  if (old == 0) {  // a heap block stays one (its size is unknown here)
    if (bytes == 0) {
      std::free(*result);
      *result = nullptr;
      return 0;
    }
    void* p = std::realloc(*result, bytes);
    if (p == nullptr) return PETSC_ERR_MEM;
    *result = p;
    return 0;
  }
  void* p = nullptr;
  if (bytes > 0) {
    if (HugeMalloc(bytes, PETSC_FALSE, line, function, file, &p) != 0) return PETSC_ERR_MEM;
    std::memcpy(p, *result, std::min(old, static_cast<std::size_t>(bytes)));
  }
  FreeHugeBlock(*result);
  *result = p;
  return 0;
}

// PETSc starts once per process. In a run under mpirun Tessera's communicator
// starts MPI first (and ends it at exit), so PETSc uses that MPI and leaves it
// alone; PetscFinalize is registered after it and so runs before it. A serial
// process lets PETSc start MPI itself (a singleton).
void EnsurePetscInitialized() {
  PetscBool initialized = PETSC_FALSE;
  PetscInitialized(&initialized);
  if (initialized) return;
  if (MPIBuilt() && LaunchedByMPI()) DefaultCommunicator();
  // Tessera reports errors itself: no PETSc signal handler, no error traces.
  Check(PetscOptionsSetValue(nullptr, "-no_signal_handler", "true"), "PetscOptionsSetValue");
  Check(PetscMallocSet(HugeMalloc, HugeFree, HugeRealloc), "PetscMallocSet");
  Check(PetscInitializeNoArguments(), "PetscInitialize");
  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
  std::atexit(FinalizePetsc);
}

}  // namespace

struct PetscLinearSolver::Impl {
  MPI_Comm comm = MPI_COMM_SELF;
  std::string prefix;
  KSP ksp = nullptr;
  Mat matrix = nullptr;
  Vec x = nullptr, b = nullptr, x_local = nullptr;
  VecScatter scatter = nullptr;
  // Local equation -> global row, owned flags, and this rank's row range.
  std::vector<PetscInt> global;
  std::vector<std::uint8_t> owned;
  PetscInt first = 0, owned_count = 0, global_count = 0;
  bool rebuild = true;              // the matrix (serial: the vectors) must be made anew
  bool release_after_solve = true;  // the KSP goes after each solve (MakeKsp)
  std::vector<PetscInt> columns;
  std::vector<PetscScalar> zeros;
  // Per local equation: position (3) and vector component (-1: none), for
  // the rigid-body modes; empty when not wanted.
  std::vector<double> coordinates;
  std::vector<int> components;

  // The rigid-body modes over the owned rows (translations, then rotations
  // about z, or x, y, z in 3D), orthonormalised, as the matrix' near null
  // space (GAMG builds its coarse spaces from them). Collective.
  void AttachRigidBodyModes() {
    int dim_local = 0, dim = 0;
    for (std::size_t i = 0; i < global.size(); ++i)
      if (owned[i]) dim_local = std::max(dim_local, std::min(components[i], 2) + 1);
    MPI_Allreduce(&dim_local, &dim, 1, MPI_INT, MPI_MAX, comm);
    if (dim < 2) return;
    const int n_modes = dim == 2 ? 3 : 6;
    std::vector<Vec> modes;
    for (int m = 0; m < n_modes; ++m) {
      Vec mode = nullptr;
      Check(VecDuplicate(x, &mode), "VecDuplicate");
      PetscScalar* values = nullptr;
      Check(VecGetArray(mode, &values), "VecGetArray");
      for (std::size_t i = 0; i < global.size(); ++i) {
        if (!owned[i]) continue;
        const int c = components[i];
        const double* p = &coordinates[3 * i];
        double v = 0.0;
        if (m < dim) {
          v = c == m ? 1.0 : 0.0;
        } else {
          // rotation about axis a: u = e_a x p
          const int axis = dim == 2 ? 2 : m - 3;
          const int j = (axis + 1) % 3, k = (axis + 2) % 3;
          v = c == j ? -p[k] : c == k ? p[j] : 0.0;
        }
        values[global[i] - first] = v;
      }
      Check(VecRestoreArray(mode, &values), "VecRestoreArray");
      // modified Gram-Schmidt against the kept modes
      for (Vec kept : modes) {
        PetscScalar dot = 0.0;
        Check(VecDot(mode, kept, &dot), "VecDot");
        Check(VecAXPY(mode, -dot, kept), "VecAXPY");
      }
      PetscReal norm = 0.0;
      Check(VecNormalize(mode, &norm), "VecNormalize");
      if (norm > 1e-12) {
        modes.push_back(mode);
      } else {
        VecDestroy(&mode);  // a mode the constraints remove (no such dof)
      }
    }
    MatNullSpace space = nullptr;
    Check(MatNullSpaceCreate(comm, PETSC_FALSE, static_cast<PetscInt>(modes.size()), modes.data(),
                             &space),
          "MatNullSpaceCreate");
    Check(MatSetNearNullSpace(matrix, space), "MatSetNearNullSpace");
    MatNullSpaceDestroy(&space);
    for (Vec& mode : modes) VecDestroy(&mode);
  }

  void DestroySystem() {
    if (!PetscAlive()) return;
    if (scatter) VecScatterDestroy(&scatter);
    if (x_local) VecDestroy(&x_local);
    if (x) VecDestroy(&x);
    if (b) VecDestroy(&b);
    if (matrix) MatDestroy(&matrix);
  }
  ~Impl() {
    DestroySystem();
    if (ksp && PetscAlive()) KSPDestroy(&ksp);
  }

  // Global columns of local row r of a matrix with the pattern of A.
  void MapRow(const SparseMatrix& A, Eigen::Index r) {
    const int* inner_ids = A.innerIndexPtr();
    const int begin = A.outerIndexPtr()[r], end = A.outerIndexPtr()[r + 1];
    columns.resize(static_cast<std::size_t>(end - begin));
    for (int p = begin; p < end; ++p) columns[p - begin] = global[inner_ids[p]];
  }

  // The matrix, vectors and scatter for A's pattern and the distribution:
  // preallocated from every rank's local pattern (collective).
  void Build(const SparseMatrix& A) {
    DestroySystem();
    Mat preallocator = nullptr;
    Check(MatCreate(comm, &preallocator), "MatCreate");
    Check(MatSetSizes(preallocator, owned_count, owned_count, global_count, global_count),
          "MatSetSizes");
    Check(MatSetType(preallocator, MATPREALLOCATOR), "MatSetType(MATPREALLOCATOR)");
    Check(MatSetUp(preallocator), "MatSetUp");
    for (Eigen::Index r = 0; r < A.rows(); ++r) {
      MapRow(A, r);
      if (zeros.size() < columns.size()) zeros.resize(columns.size(), 0.0);
      const PetscInt row = global[r];
      Check(MatSetValues(preallocator, 1, &row, static_cast<PetscInt>(columns.size()),
                         columns.data(), zeros.data(), INSERT_VALUES),
            "MatSetValues (preallocation)");
    }
    Check(MatAssemblyBegin(preallocator, MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
    Check(MatAssemblyEnd(preallocator, MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");
    Check(MatCreate(comm, &matrix), "MatCreate");
    Check(MatSetSizes(matrix, owned_count, owned_count, global_count, global_count), "MatSetSizes");
    Check(MatSetType(matrix, MATAIJ), "MatSetType(MATAIJ)");
    Check(MatPreallocatorPreallocate(preallocator, PETSC_TRUE, matrix),
          "MatPreallocatorPreallocate");
    MatDestroy(&preallocator);
    // Block size 3 (set once preallocated, as AIJ allows) where every rank's
    // owned rows are whole (x, y, z) node triples, numbered consecutively.
    int triples = OwnedTriples() ? 1 : 0, all_triples = 0;
    MPI_Allreduce(&triples, &all_triples, 1, MPI_INT, MPI_MIN, comm);
    if (all_triples) Check(MatSetBlockSize(matrix, 3), "MatSetBlockSize");
    // The pattern is complete: a new entry would be a bug, not a reallocation.
    Check(MatSetOption(matrix, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE), "MatSetOption");
    Check(MatCreateVecs(matrix, &x, &b), "MatCreateVecs");
    const auto n_local = static_cast<PetscInt>(global.size());
    Check(VecCreateSeq(PETSC_COMM_SELF, n_local, &x_local), "VecCreateSeq");
    IS from = nullptr;
    Check(ISCreateGeneral(PETSC_COMM_SELF, n_local, global.data(), PETSC_COPY_VALUES, &from),
          "ISCreateGeneral");
    Check(VecScatterCreate(x, from, x_local, nullptr, &scatter), "VecScatterCreate");
    ISDestroy(&from);
    if (!coordinates.empty()) {
      TESSERA_CHECK(coordinates.size() == 3 * global.size() && components.size() == global.size(),
                    "petsc: positions of ", components.size(), " equations for a system of ",
                    global.size());
      AttachRigidBodyModes();
    }
    rebuild = false;
  }

  // Serial: a SeqAIJ matrix over A's own arrays (Eigen's row-major CSR with
  // int indices is AIJ's layout), so the system is stored once. Remade at
  // every solve: it costs no copy, and A may have been reallocated since.
  // Block size 3 where the equations come in (x, y, z) triples of one node:
  // GAMG then aggregates nodes, not single equations.
  void WrapSerial(const SparseMatrix& A) {
    static_assert(sizeof(PetscInt) == sizeof(int) && sizeof(PetscScalar) == sizeof(double),
                  "PETSc with 32-bit indices and real doubles is expected");
    const auto n = static_cast<PetscInt>(A.rows());
    if (matrix) MatDestroy(&matrix);
    Check(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, n, n, const_cast<int*>(A.outerIndexPtr()),
                                    const_cast<int*>(A.innerIndexPtr()),
                                    const_cast<double*>(A.valuePtr()), &matrix),
          "MatCreateSeqAIJWithArrays");
    if (NodalTriples()) Check(MatSetBlockSize(matrix, 3), "MatSetBlockSize");
    if (rebuild) {
      if (x) VecDestroy(&x);
      if (b) VecDestroy(&b);
      Check(MatCreateVecs(matrix, &x, &b), "MatCreateVecs");
      rebuild = false;
    }
    if (!coordinates.empty()) {
      TESSERA_CHECK(coordinates.size() == 3 * global.size() && components.size() == global.size(),
                    "petsc: positions of ", components.size(), " equations for a system of ",
                    global.size());
      AttachRigidBodyModes();
    }
  }

  // Distributed: whether the owned equations are node triples (NodalTriples)
  // with consecutive global rows starting at a multiple of 3.
  bool OwnedTriples() const {
    if (!NodalTriples() || first % 3 != 0 || owned_count % 3 != 0) return false;
    for (std::size_t i = 0; i < global.size(); i += 3)
      for (std::size_t c = 1; c < 3; ++c)
        if (owned[i + c] != owned[i] || global[i + c] != global[i] + static_cast<PetscInt>(c) ||
            global[i] % 3 != 0)
          return false;
    return true;
  }

  // Whether equations 3k, 3k+1, 3k+2 are the x, y, z components at one point.
  bool NodalTriples() const {
    if (coordinates.empty() || components.size() % 3 != 0 || components.empty()) return false;
    for (std::size_t i = 0; i < components.size(); ++i) {
      if (components[i] != static_cast<int>(i % 3)) return false;
      const std::size_t first = i - i % 3;
      for (int d = 0; d < 3; ++d)
        if (coordinates[3 * i + d] != coordinates[3 * first + d]) return false;
    }
    return true;
  }
};

PetscLinearSolver::PetscLinearSolver(PetscSolverSettings settings, bool distributed)
    : settings_(std::move(settings)), distributed_(distributed), impl_(std::make_unique<Impl>()) {
  EnsurePetscInitialized();
  static int instances = 0;
  impl_->comm = distributed ? PETSC_COMM_WORLD : PETSC_COMM_SELF;
  impl_->prefix = "tessera" + std::to_string(instances++) + "_";
  const PetscSolverSettings& s = settings_;
  if (!s.options.empty()) {
    // Each option named for this solver only: "-pc_gamg_threshold" becomes
    // "-tessera0_pc_gamg_threshold".
    std::istringstream words(s.options);
    std::string word, prefixed;
    while (words >> word)
      prefixed += (word.size() > 1 && word[0] == '-' && !std::isdigit(word[1]) && word[1] != '.'
                       ? "-" + impl_->prefix + word.substr(1)
                       : word) +
                  " ";
    Check(PetscOptionsInsertString(nullptr, prefixed.c_str()),
          "reading \"options\" of the petsc linear solver");
  }
  MakeKsp();  // here too, so that bad settings fail at once
  // A multigrid or other preconditioner built anew at every solve goes with
  // its KSP after each solve (release_after_solve); a distributed factorisation
  // stays, since the next solve of the same pattern reuses its analysis.
  const bool factorisation =
      s.pc_type == "lu" || s.pc_type == "cholesky" || s.pc_type == "ilu" || s.pc_type == "icc";
  impl_->release_after_solve = !distributed || !factorisation;
}

// The KSP and its preconditioner, with this solver's settings.
void PetscLinearSolver::MakeKsp() {
  KSP& ksp = impl_->ksp;
  const PetscSolverSettings& s = settings_;
  Check(KSPCreate(impl_->comm, &ksp), "KSPCreate");
  Check(KSPSetOptionsPrefix(ksp, impl_->prefix.c_str()), "KSPSetOptionsPrefix");
  Check(KSPSetType(ksp, s.ksp_type.c_str()), "KSPSetType");
  PC pc = nullptr;
  Check(KSPGetPC(ksp, &pc), "KSPGetPC");
  Check(PCSetType(pc, s.pc_type.c_str()), "PCSetType");
  if (s.pc_type == "hypre") Check(PCHYPRESetType(pc, "boomeramg"), "PCHYPRESetType");
  if (s.pc_type == "gamg") {
    PetscReal threshold = s.gamg_threshold;
    Check(PCGAMGSetThreshold(pc, &threshold, 1), "PCGAMGSetThreshold");  // all levels
  }
  if (s.pc_type == "lu") {
    std::string package = s.factor_package;
    if (package.empty() && distributed_) package = "mumps";  // PETSc's own LU is serial
    if (!package.empty())
      Check(PCFactorSetMatSolverType(pc, package.c_str()), "PCFactorSetMatSolverType");
  }
  if (s.ksp_type == "gmres") Check(KSPGMRESSetRestart(ksp, s.gmres_restart), "KSPGMRESSetRestart");
  // The tolerance is on the true residual ||b - Ax|| / ||b|| (Kratos' meaning):
  // CG measures it with the preconditioner on the left, GMRES and BiCGStab on
  // the right.
  if (s.ksp_type == "preonly") {
    Check(KSPSetNormType(ksp, KSP_NORM_NONE), "KSPSetNormType");
  } else {
    if (s.ksp_type != "cg") Check(KSPSetPCSide(ksp, PC_RIGHT), "KSPSetPCSide");
    Check(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED), "KSPSetNormType");
  }
  Check(KSPSetTolerances(ksp, s.tolerance, PETSC_DEFAULT, PETSC_DEFAULT, s.max_iteration),
        "KSPSetTolerances");
  Check(KSPSetInitialGuessNonzero(ksp, PETSC_FALSE), "KSPSetInitialGuessNonzero");
  Check(KSPSetFromOptions(ksp), "KSPSetFromOptions");
}

PetscLinearSolver::~PetscLinearSolver() = default;

void PetscLinearSolver::SetDistribution(std::vector<std::int64_t> global_ids,
                                        std::vector<std::uint8_t> owned, std::int64_t first_owned,
                                        std::int64_t owned_count, std::int64_t global_count) {
  TESSERA_CHECK(distributed_, "PetscLinearSolver::SetDistribution on a serial solver");
  TESSERA_CHECK(global_ids.size() == owned.size(),
                "PetscLinearSolver::SetDistribution: ", global_ids.size(), " global ids for ",
                owned.size(), " owned flags");
  TESSERA_CHECK(global_count < std::int64_t{PETSC_MAX_INT}, "PetscLinearSolver: ", global_count,
                " equations exceed this PETSc's index range (32-bit PetscInt)");
  impl_->global.assign(global_ids.begin(), global_ids.end());
  impl_->owned = std::move(owned);
  impl_->first = static_cast<PetscInt>(first_owned);
  impl_->owned_count = static_cast<PetscInt>(owned_count);
  impl_->global_count = static_cast<PetscInt>(global_count);
  impl_->rebuild = true;
}

void PetscLinearSolver::Solve(const SparseMatrix& A, Vector& x, const Vector& b) {
  Impl& p = *impl_;
  TESSERA_CHECK(A.rows() == A.cols() && A.rows() == b.size() && A.isCompressed(),
                "petsc: matrix is ", A.rows(), " x ", A.cols(), ", right-hand side has ", b.size(),
                " entries");
  if (distributed_) {
    LoadMatrix(A);
  } else {
    // A new size (first solve, renumbering) makes new vectors; the matrix
    // is A itself.
    const auto n = static_cast<PetscInt>(A.rows());
    if (static_cast<std::size_t>(n) != p.global.size() || p.x == nullptr) {
      p.global.resize(static_cast<std::size_t>(n));
      for (PetscInt i = 0; i < n; ++i) p.global[i] = i;
      p.owned.assign(static_cast<std::size_t>(n), 1);
      p.first = 0;
      p.owned_count = p.global_count = n;
      p.rebuild = true;
    }
    if (A.rows() == 0) {
      x.resize(0);
      return;
    }
    p.WrapSerial(A);
  }
  SolveLoaded(x, b);
}

void PetscLinearSolver::LoadMatrix(const SparseMatrix& A) {
  Impl& p = *impl_;
  TESSERA_CHECK(distributed_, "PetscLinearSolver::LoadMatrix on a serial solver");
  TESSERA_CHECK(A.rows() == A.cols() && A.isCompressed() &&
                    static_cast<std::size_t>(A.rows()) == p.global.size(),
                "petsc: the matrix is ", A.rows(), " x ", A.cols(), ", the distribution has ",
                p.global.size(), " local rows (SetDistribution after each numbering)");
  if (p.rebuild) p.Build(A);
  Check(MatZeroEntries(p.matrix), "MatZeroEntries");
  const double* values = A.valuePtr();
  for (Eigen::Index r = 0; r < A.rows(); ++r) {
    p.MapRow(A, r);
    const PetscInt row = p.global[r];
    Check(MatSetValues(p.matrix, 1, &row, static_cast<PetscInt>(p.columns.size()), p.columns.data(),
                       values + A.outerIndexPtr()[r], ADD_VALUES),
          "MatSetValues");
  }
  Check(MatAssemblyBegin(p.matrix, MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
  Check(MatAssemblyEnd(p.matrix, MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");
}

void PetscLinearSolver::SolveLoaded(Vector& x, const Vector& b) {
  Impl& p = *impl_;
  TESSERA_CHECK(p.matrix != nullptr && static_cast<std::size_t>(b.size()) == p.global.size(),
                "petsc: a right-hand side of ", b.size(), " entries for ", p.global.size(),
                " local equations", p.matrix ? "" : " and no matrix loaded (LoadMatrix)");
  PetscScalar* rhs = nullptr;
  Check(VecGetArray(p.b, &rhs), "VecGetArray");
  for (std::size_t i = 0; i < p.global.size(); ++i)
    if (p.owned[i]) rhs[p.global[i] - p.first] = b[static_cast<Eigen::Index>(i)];
  Check(VecRestoreArray(p.b, &rhs), "VecRestoreArray");
  PetscReal b_norm = 0.0;
  Check(VecNorm(p.b, NORM_2, &b_norm), "VecNorm");

  if (!p.ksp) MakeKsp();
  Check(KSPSetOperators(p.ksp, p.matrix, p.matrix), "KSPSetOperators");
  Check(VecSet(p.x, 0.0), "VecSet");
  Check(KSPSolve(p.ksp, p.b, p.x), "KSPSolve");
  KSPConvergedReason reason;
  PetscInt iterations = 0;
  PetscReal r_norm = 0.0;
  KSPGetConvergedReason(p.ksp, &reason);
  KSPGetIterationNumber(p.ksp, &iterations);
  KSPGetResidualNorm(p.ksp, &r_norm);
  // The preconditioner goes now, not at the next solve, where it is built
  // anew anyway (the serial matrix is a new one, the distributed one has new
  // values): the caller's work after the solve (the reactions' right-hand
  // side, output) then does not add to it. KSPReset keeps the multigrid
  // hierarchy (GAMG's levels), KSPDestroy frees it: 271 of the static
  // cantilever's 1116 MiB (519,183 dofs).
  if (p.release_after_solve) KSPDestroy(&p.ksp);
  last_iterations_ = static_cast<int>(iterations);
  last_error_ = settings_.ksp_type == "preonly" || b_norm == 0.0 ? 0.0 : r_norm / b_norm;
  if (reason < 0)
    TESSERA_ERROR("petsc (", settings_.ksp_type, ", ", settings_.pc_type, "): no convergence in ",
                  iterations, " iterations (", KSPConvergedReasons[reason], ", relative residual ",
                  last_error_, ", tolerance ", settings_.tolerance, ", ", p.global_count,
                  " equations); raise max_iteration, try another pc_type, or use \"sparse_lu\"");
  if (settings_.echo_level > 0) {
    int rank = 0;
    MPI_Comm_rank(p.comm, &rank);
    if (rank == 0)
      std::cout << "petsc (" << settings_.ksp_type << ", " << settings_.pc_type
                << "): " << iterations << " iterations, relative residual " << last_error_ << " ("
                << p.global_count << " equations)\n";
  }

  // Serial: x is the solution itself; distributed: its owned part, scattered
  // to every local equation.
  Vec solution = p.x;
  if (distributed_) {
    Check(VecScatterBegin(p.scatter, p.x, p.x_local, INSERT_VALUES, SCATTER_FORWARD),
          "VecScatterBegin");
    Check(VecScatterEnd(p.scatter, p.x, p.x_local, INSERT_VALUES, SCATTER_FORWARD),
          "VecScatterEnd");
    solution = p.x_local;
  }
  const auto n_local = static_cast<Eigen::Index>(p.global.size());
  x.resize(n_local);
  const PetscScalar* local = nullptr;
  Check(VecGetArrayRead(solution, &local), "VecGetArrayRead");
  std::copy(local, local + n_local, x.data());
  Check(VecRestoreArrayRead(solution, &local), "VecRestoreArrayRead");
}

void PetscLinearSolver::Clear() {
  impl_->DestroySystem();
  impl_->matrix = nullptr;
  impl_->x = impl_->b = impl_->x_local = nullptr;
  impl_->scatter = nullptr;
  impl_->global.clear();
  impl_->rebuild = true;
}

bool PetscLinearSolver::AdditionalPhysicalDataIsNeeded() const {
  return settings_.pc_type == "gamg" && settings_.rigid_body_modes;
}

void PetscLinearSolver::ProvideAdditionalData(const std::vector<double>& coordinates,
                                              const std::vector<int>& components) {
  impl_->coordinates = coordinates;
  impl_->components = components;
  impl_->rebuild = true;
}

bool PetscLinearSolver::IsDirect() const {
  return settings_.ksp_type == "preonly" && settings_.pc_type == "lu";
}

std::string PetscLinearSolver::Info() const {
  std::ostringstream text;
  text << "petsc (" << settings_.ksp_type << ", " << settings_.pc_type;
  if (settings_.ksp_type != "preonly")
    text << ", tolerance " << settings_.tolerance << ", max_iteration " << settings_.max_iteration;
  text << (distributed_ ? ", distributed)" : ")");
  return text.str();
}

#endif

LinearSolver::Pointer CreatePetscLinearSolver(const Parameters& settings) {
  return std::make_shared<PetscLinearSolver>(ReadPetscSolverSettings(settings), false);
}

}  // namespace tessera
