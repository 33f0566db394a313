// Tests of the kernel solving stack (kernel/solving): dof numbering with
// elimination of fixed dofs, CSR sparsity, deterministic parallel assembly,
// linear solvers by name, convergence criteria and the linear and
// Newton-Raphson strategies, on spring chains and lattices whose solutions are
// known in closed form.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "kernel/core/kernel_variables.h"
#include "kernel/geometries/geometry_types.h"
#include "kernel/model/model.h"
#include "kernel/parallel/background_worker.h"
#include "kernel/solving/solving_strategy.h"

using namespace tessera;

namespace {

// An axial spring between two nodes, in 1D (DISPLACEMENT_X only) or 2D
// (DISPLACEMENT_X/_Y), with force k (d + a d^3) for the elongation d along the
// initial direction: linear for a = 0, a hardening cubic otherwise.
class TestSpring : public Element {
 public:
  TestSpring(IdType id, Geometry geometry, Properties::Pointer properties, double k, double a,
             int dimension)
      : Element(id, std::move(geometry), std::move(properties)), k_(k), a_(a), dim_(dimension) {}

  void EquationIdVector(std::vector<IdType>& ids, const ProcessInfo&) const override {
    ids.clear();
    const Geometry& g = GetGeometry();
    for (std::size_t n = 0; n < 2; ++n)
      for (int d = 0; d < dim_; ++d)
        ids.push_back(g.Database()->EquationId(*kComponents[d], g.NodeIndex(n)));
  }
  void GetDofList(std::vector<DofReference>& dofs, const ProcessInfo&) const override {
    dofs.clear();
    for (std::size_t n = 0; n < 2; ++n)
      for (int d = 0; d < dim_; ++d) dofs.push_back({GetGeometry().NodeIndex(n), kComponents[d]});
  }
  void CalculateLocalSystem(Matrix& lhs, Vector& rhs, const ProcessInfo&) override {
    const Geometry& g = GetGeometry();
    const Array3 x0 = g[0].InitialCoordinates(), x1 = g[1].InitialCoordinates();
    Eigen::Vector2d e(x1[0] - x0[0], dim_ == 2 ? x1[1] - x0[1] : 0.0);
    if (dim_ == 1) e = Eigen::Vector2d(1.0, 0.0);
    e.normalize();
    const Array3 u0 = g[0].GetSolutionStepValue(DISPLACEMENT);
    const Array3 u1 = g[1].GetSolutionStepValue(DISPLACEMENT);
    double d = 0.0;
    for (int i = 0; i < dim_; ++i) d += e[i] * (u1[i] - u0[i]);
    const double force = k_ * (d + a_ * d * d * d);
    const double tangent = k_ * (1.0 + 3.0 * a_ * d * d);
    const int n = 2 * dim_;
    lhs.setZero(n, n);
    rhs.setZero(n);
    for (int i = 0; i < dim_; ++i) {
      rhs[i] = force * e[i];          // node 0 is pulled toward node 1
      rhs[dim_ + i] = -force * e[i];  // and node 1 toward node 0
      for (int j = 0; j < dim_; ++j) {
        const double kij = tangent * e[i] * e[j];
        lhs(i, j) += kij;
        lhs(dim_ + i, dim_ + j) += kij;
        lhs(i, dim_ + j) -= kij;
        lhs(dim_ + i, j) -= kij;
      }
    }
  }
  void CalculateLeftHandSide(Matrix& lhs, const ProcessInfo& info) override {
    Vector rhs;
    CalculateLocalSystem(lhs, rhs, info);
  }
  void CalculateRightHandSide(Vector& rhs, const ProcessInfo& info) override {
    Matrix lhs;
    CalculateLocalSystem(lhs, rhs, info);
  }

 private:
  static constexpr const Variable<double>* kComponents[2] = {&DISPLACEMENT_X, &DISPLACEMENT_Y};
  double k_, a_;
  int dim_;
};

// A nodal force (FORCE of the condition's data) on DISPLACEMENT_X (and _Y).
class TestForce : public Condition {
 public:
  TestForce(IdType id, Geometry geometry, int dimension)
      : Condition(id, std::move(geometry), nullptr), dim_(dimension) {}
  void EquationIdVector(std::vector<IdType>& ids, const ProcessInfo&) const override {
    ids.clear();
    const Geometry& g = GetGeometry();
    ids.push_back(g.Database()->EquationId(DISPLACEMENT_X, g.NodeIndex(0)));
    if (dim_ == 2) ids.push_back(g.Database()->EquationId(DISPLACEMENT_Y, g.NodeIndex(0)));
  }
  void GetDofList(std::vector<DofReference>& dofs, const ProcessInfo&) const override {
    dofs = {{GetGeometry().NodeIndex(0), &DISPLACEMENT_X}};
    if (dim_ == 2) dofs.push_back({GetGeometry().NodeIndex(0), &DISPLACEMENT_Y});
  }
  void CalculateLocalSystem(Matrix& lhs, Vector& rhs, const ProcessInfo&) override {
    lhs.setZero(dim_, dim_);
    rhs.resize(dim_);
    const Array3 f = GetValue(FORCE);
    for (int i = 0; i < dim_; ++i) rhs[i] = f[i];
  }
  void CalculateRightHandSide(Vector& rhs, const ProcessInfo& info) override {
    Matrix lhs;
    CalculateLocalSystem(lhs, rhs, info);
  }
  void CalculateLeftHandSide(Matrix& lhs, const ProcessInfo& info) override {
    Vector rhs;
    CalculateLocalSystem(lhs, rhs, info);
  }

 private:
  int dim_;
};

ModelPart& NewModelPart(Model& model, const std::string& name) {
  ModelPart& mp = model.CreateModelPart(name);
  mp.AddNodalSolutionStepVariable(DISPLACEMENT);
  mp.AddNodalSolutionStepVariable(REACTION);
  return mp;
}

void AddDofs(ModelPart& mp, int dim) {
  for (Node node : mp.Nodes()) {
    node.AddDof(DISPLACEMENT_X, &REACTION_X);
    if (dim == 2) node.AddDof(DISPLACEMENT_Y, &REACTION_Y);
  }
}

void AddSpring(ModelPart& mp, IdType id, IdType n0, IdType n1, double k, double a, int dim) {
  Geometry::NodeIndices nodes{mp.Nodal().IndexOf(n0), mp.Nodal().IndexOf(n1)};
  mp.AddElement(
      std::make_unique<TestSpring>(id, Geometry(&GetGeometryType("Line2D2"), &mp.Nodal(), nodes),
                                   mp.GetPropertiesOrCreate(0), k, a, dim));
}

Condition& AddForce(ModelPart& mp, IdType id, IdType node, Array3 force, int dim) {
  Geometry::NodeIndices nodes{mp.Nodal().IndexOf(node)};
  Condition& c = mp.AddCondition(std::make_unique<TestForce>(
      id, Geometry(&GetGeometryType("Point2D"), &mp.Nodal(), nodes), dim));
  c.SetValue(FORCE, force);
  return c;
}

// Chain 1 - 2 - ... - n+1 along x with spring stiffnesses k_i = 1 + i/3, node 1
// fixed, force F on the last node.
ModelPart& SpringChain(Model& model, int n, double F, double a = 0.0) {
  ModelPart& mp = NewModelPart(model, "Chain");
  for (int i = 0; i <= n; ++i) mp.CreateNewNode(i + 1, i, 0.0, 0.0);
  for (int i = 0; i < n; ++i) AddSpring(mp, i + 1, i + 1, i + 2, 1.0 + i / 3.0, a, 1);
  AddForce(mp, 1, n + 1, {F, 0.0, 0.0}, 1);
  AddDofs(mp, 1);
  mp.GetNode(1).Fix(DISPLACEMENT_X);
  return mp;
}

std::shared_ptr<ImplicitSolvingStrategy> LinearStrategy(ModelPart& mp, const std::string& solver) {
  auto builder = std::make_shared<BuilderAndSolver>(CreateLinearSolver(
      Parameters(R"({"solver_type": ")" + solver + R"(", "tolerance": 1e-13})")));
  return std::make_shared<ResidualBasedLinearStrategy>(
      mp, std::make_shared<ResidualBasedIncrementalUpdateStaticScheme>(), builder,
      StrategySettings{});
}

}  // namespace

TEST(SolvingDofSet, FreeDofsFirstThenFixedInNodeOrder) {
  Model model;
  ModelPart& mp = SpringChain(model, 4, 1.0);
  mp.GetNode(3).Fix(DISPLACEMENT_X);
  DofSet dofs;
  dofs.SetUp(mp);
  ASSERT_EQ(dofs.size(), 5u);
  EXPECT_EQ(dofs.NumberOfFreeDofs(), 3u);
  EXPECT_EQ(dofs.NumberOfFixedDofs(), 2u);
  // free nodes 2, 4, 5 get 0, 1, 2; fixed nodes 1, 3 get 3, 4
  const IdType expected[] = {3, 0, 4, 1, 2};
  for (int id = 1; id <= 5; ++id)
    EXPECT_EQ(mp.Nodal().EquationId(DISPLACEMENT_X, mp.Nodal().IndexOf(id)), expected[id - 1])
        << "node " << id;
  EXPECT_FALSE(dofs.FixityChanged());
  mp.GetNode(3).Free(DISPLACEMENT_X);
  EXPECT_TRUE(dofs.FixityChanged());
  dofs.Number();
  EXPECT_EQ(dofs.NumberOfFreeDofs(), 4u);
  EXPECT_EQ(mp.Nodal().EquationId(DISPLACEMENT_X, mp.Nodal().IndexOf(1)), 4);
}

TEST(SolvingDofSet, MissingDofIsNamed) {
  Model model;
  ModelPart& mp = NewModelPart(model, "M");
  mp.CreateNewNode(1, 0, 0, 0);
  mp.CreateNewNode(2, 1, 0, 0);
  AddSpring(mp, 7, 1, 2, 1.0, 0.0, 1);
  mp.GetNode(1).AddDof(DISPLACEMENT_X);  // node 2 has none
  DofSet dofs;
  try {
    dofs.SetUp(mp);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("element 7"), std::string::npos) << message;
    EXPECT_NE(message.find("DISPLACEMENT_X of node 2"), std::string::npos) << message;
  }
}

TEST(SolvingBuilder, ChainSparsityIsTridiagonal) {
  Model model;
  ModelPart& mp = SpringChain(model, 6, 1.0);
  BuilderAndSolver builder(std::make_shared<SparseLUSolver>());
  builder.SetUpDofSet(mp);
  builder.SetUpSystem(mp);
  const SparseMatrix& p = builder.Pattern();
  EXPECT_EQ(p.rows(), 6);
  EXPECT_EQ(p.nonZeros(), 3 * 6 - 2);  // free nodes 2..7: a tridiagonal 6 x 6 block
  // a chain needs two colours: neighbouring springs share a node
  EXPECT_EQ(builder.NumberOfColours(), 2u);
}

// The system matrix takes the builder's pattern (the builder keeps no copy):
// the builder still recognises that matrix, and any other holding the same
// pattern, by its indices, remakes one that does not, and computes the
// pattern again when asked for it.
TEST(SolvingBuilder, SystemMatrixTakesThePattern) {
  Model model;
  ModelPart& mp = SpringChain(model, 6, 1.0);
  BuilderAndSolver builder(std::make_shared<SparseLUSolver>());
  builder.SetUpDofSet(mp);
  builder.SetUpSystem(mp);
  const SparseMatrix expected = builder.Pattern();
  auto same_pattern = [&](const SparseMatrix& A) {
    return A.isCompressed() && A.rows() == expected.rows() && A.nonZeros() == expected.nonZeros() &&
           std::equal(A.outerIndexPtr(), A.outerIndexPtr() + A.rows() + 1,
                      expected.outerIndexPtr()) &&
           std::equal(A.innerIndexPtr(), A.innerIndexPtr() + A.nonZeros(),
                      expected.innerIndexPtr());
  };
  SparseMatrix A;
  Vector dx, b;
  builder.InitializeSystem(A, dx, b);
  ASSERT_TRUE(same_pattern(A));
  EXPECT_TRUE(same_pattern(builder.Pattern()));  // computed again: the builder let it go
  // recognised: the values are zeroed in place, the indices not reallocated
  std::fill(A.valuePtr(), A.valuePtr() + A.nonZeros(), 1.0);
  const int* indices = A.innerIndexPtr();
  builder.InitializeSystem(A, dx, b);
  EXPECT_EQ(A.innerIndexPtr(), indices);
  EXPECT_EQ(Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(A.valuePtr(), A.nonZeros())),
            Eigen::VectorXd::Zero(A.nonZeros()));
  // a copy holds the same pattern and is recognised too
  SparseMatrix copy = A;
  copy.coeffs().setOnes();
  const int* copy_indices = copy.innerIndexPtr();
  builder.InitializeSystem(copy, dx, b);
  EXPECT_EQ(copy.innerIndexPtr(), copy_indices);
  EXPECT_EQ(copy.coeffs().cwiseAbs().maxCoeff(), 0.0);
  // the same sizes and another pattern: remade with the builder's
  SparseMatrix other = A;
  other.innerIndexPtr()[1] = other.innerIndexPtr()[1] == 2 ? 3 : 2;
  builder.InitializeSystem(other, dx, b);
  EXPECT_TRUE(same_pattern(other));
  // the original matrix still assembles and solves the chain
  auto scheme = std::make_shared<ResidualBasedIncrementalUpdateStaticScheme>();
  scheme->Initialize(mp);
  builder.Build(*scheme, mp, A, b);
  EXPECT_TRUE(same_pattern(A));
  EXPECT_GT(A.coeffs().cwiseAbs().maxCoeff(), 0.0);
}

// A 2D lattice of springs (squares with both diagonals) in scrambled element
// order, stiffnesses with inexact binary fractions: the assembled tangent and
// residual must be bitwise identical for 1, 2 and 7 threads.
TEST(SolvingBuilder, AssemblyIsBitwiseIndependentOfThreadCount) {
  Model model;
  ModelPart& mp = NewModelPart(model, "Lattice");
  const int m = 24;
  auto id = [&](int i, int j) { return static_cast<IdType>(i * (m + 1) + j + 1); };
  for (int i = 0; i <= m; ++i)
    for (int j = 0; j <= m; ++j) mp.CreateNewNode(id(i, j), i + 0.1 * std::sin(j), j, 0.0);
  std::vector<std::pair<IdType, IdType>> bars;
  for (int i = 0; i <= m; ++i)
    for (int j = 0; j <= m; ++j) {
      if (i < m) bars.push_back({id(i, j), id(i + 1, j)});
      if (j < m) bars.push_back({id(i, j), id(i, j + 1)});
      if (i < m && j < m) {
        bars.push_back({id(i, j), id(i + 1, j + 1)});
        bars.push_back({id(i + 1, j), id(i, j + 1)});
      }
    }
  // scramble deterministically
  for (std::size_t k = 0; k < bars.size(); ++k) std::swap(bars[k], bars[(k * 7919) % bars.size()]);
  for (std::size_t k = 0; k < bars.size(); ++k)
    AddSpring(mp, static_cast<IdType>(k + 1), bars[k].first, bars[k].second,
              1.0 / 3.0 + std::sqrt(static_cast<double>(k % 17)), 0.7, 2);
  AddDofs(mp, 2);
  for (int j = 0; j <= m; ++j) {
    mp.GetNode(id(0, j)).Fix(DISPLACEMENT_X);
    mp.GetNode(id(0, j)).Fix(DISPLACEMENT_Y);
  }
  for (Node node : mp.Nodes()) {  // a deformed state, so that the cubic term counts
    node.GetSolutionStepValue(DISPLACEMENT) = {0.01 * std::cos(node.Id()),
                                               0.02 * std::sin(node.Id()), 0};
  }
  auto scheme = std::make_shared<ResidualBasedIncrementalUpdateStaticScheme>();
  SparseMatrix reference_A;
  Vector reference_b;
  const int saved = ParallelThreads();
  for (int threads : {1, 2, 7}) {
    SetParallelThreads(threads);
    BuilderAndSolver builder(std::make_shared<SparseLUSolver>());
    builder.SetUpDofSet(mp);
    builder.SetUpSystem(mp);
    SparseMatrix A;
    Vector dx, b;
    builder.InitializeSystem(A, dx, b);
    builder.Build(*scheme, mp, A, b);
    // The right-hand side alone (entity order, then each equation's terms in
    // the coloured order) is bitwise the coloured assembly's.
    Vector b_alone;
    builder.BuildRHS(*scheme, mp, b_alone);
    ASSERT_EQ(b_alone.size(), b.size());
    EXPECT_EQ(std::memcmp(b_alone.data(), b.data(), sizeof(double) * b.size()), 0)
        << threads << " threads";
    // In two parts, every third spring deferred to FinishRHS and the others
    // computed on a worker's thread meanwhile (a coupled step's overlap):
    // bitwise the same.
    std::vector<const Entity*> deferred;
    for (Element& e : mp.Elements())
      if (e.Id() % 3 == 0) deferred.push_back(&e);
    builder.DeferEntities(deferred);
    BackgroundWorker worker;
    worker.Start([&] { builder.BeginRHS(*scheme, mp); }, threads);
    worker.Wait();
    Vector b_split;
    builder.FinishRHS(*scheme, mp, b_split);
    EXPECT_EQ(std::memcmp(b_split.data(), b.data(), sizeof(double) * b.size()), 0)
        << threads << " threads";
    EXPECT_THROW(builder.FinishRHS(*scheme, mp, b_split), Error);  // no BeginRHS before
    builder.DeferEntities({});
    if (threads == 1) {
      reference_A = A;
      reference_b = b;
      EXPECT_GT(builder.NumberOfColours(), 4u);
      continue;
    }
    ASSERT_EQ(A.nonZeros(), reference_A.nonZeros());
    EXPECT_EQ(std::memcmp(A.valuePtr(), reference_A.valuePtr(), sizeof(double) * A.nonZeros()), 0)
        << threads << " threads";
    EXPECT_EQ(
        std::memcmp(A.innerIndexPtr(), reference_A.innerIndexPtr(), sizeof(int) * A.nonZeros()), 0);
    EXPECT_EQ(std::memcmp(b.data(), reference_b.data(), sizeof(double) * b.size()), 0)
        << threads << " threads";
  }
  SetParallelThreads(saved);
  // the assembled tangent is symmetric, as the spring tangents are
  EXPECT_LT((SparseMatrix(reference_A.transpose()) - reference_A).norm(),
            1e-12 * reference_A.norm());
}

// Chain of n springs, node 1 fixed, force F at the end: u_i = F sum_{j<i} 1/k_j,
// reaction at node 1 = -F. Every solver, Tessera's names and Kratos'.
TEST(SolvingStrategy, LinearChainWithEverySolver) {
  const int n = 40;
  const double F = 2.5;
  for (const std::string solver : {"sparse_lu", "cg", "bicgstab", "skyline_lu_factorization",
                                   "LinearSolversApplication.sparse_lu", "amgcl"}) {
    Model model;
    ModelPart& mp = SpringChain(model, n, F);
    auto strategy = LinearStrategy(mp, solver);
    ASSERT_TRUE(strategy->Solve()) << solver;
    double expected = 0.0;
    for (int i = 0; i <= n; ++i) {
      // direct: exact to rounding; iterative: relative residual 1e-13 on a system
      // with condition number ~ n^2, so about 1e-10 relative in u
      const double tolerance = solver.find("lu") != std::string::npos ? 1e-12 : 1e-9;
      EXPECT_NEAR(mp.GetNode(i + 1).GetSolutionStepValue(DISPLACEMENT_X), expected,
                  tolerance * std::max(1.0, expected))
          << solver << " node " << i + 1;
      if (i < n) expected += F / (1.0 + i / 3.0);
    }
    // reaction = f_int - f_ext at the support: the spring pulls node 1 with +F,
    // so the support pushes back with -F
    EXPECT_NEAR(mp.GetNode(1).GetSolutionStepValue(REACTION_X), -F, 1e-9) << solver;
  }
}

TEST(SolvingStrategy, IncompleteCholeskyPreconditionedCG) {
  Model model;
  ModelPart& mp = SpringChain(model, 30, 1.0);
  auto builder = std::make_shared<BuilderAndSolver>(CreateLinearSolver(Parameters(
      R"({"solver_type": "cg", "preconditioner_type": "incomplete_cholesky", "tolerance": 1e-14})")));
  ResidualBasedLinearStrategy strategy(
      mp, std::make_shared<ResidualBasedIncrementalUpdateStaticScheme>(), builder, {});
  strategy.Solve();
  double expected = 0.0;
  for (int i = 0; i < 30; ++i) expected += 1.0 / (1.0 + i / 3.0);
  // relative residual 1e-14 with condition number ~ 1e3: 1e-10 relative in u
  EXPECT_NEAR(mp.GetNode(31).GetSolutionStepValue(DISPLACEMENT_X), expected, 1e-10 * expected);
  // a tridiagonal matrix has no fill-in: incomplete Cholesky is exact, one iteration
  EXPECT_LE(builder->GetLinearSolver().LastIterations(), 2);
}

// One cubic spring, force F: the elongation solves k (d + a d^3) = F. Newton with
// the residual criterion converges quadratically to it.
TEST(SolvingStrategy, NewtonRaphsonOnCubicSpring) {
  const double k = 1.0, a = 1.0, F = 3.0;  // d + d^3 = 3
  // closed form (Cardano, one real root of d^3 + d - 3 = 0)
  const double q = 1.5, p3 = 1.0 / 27.0;
  const double root = std::cbrt(q + std::sqrt(q * q + p3)) + std::cbrt(q - std::sqrt(q * q + p3));
  ASSERT_NEAR(root + root * root * root, F, 1e-13);
  for (const std::string criterion : {"residual", "displacement", "and", "or"}) {
    Model model;
    ModelPart& mp = SpringChain(model, 1, F, a);
    auto residual = std::make_shared<ResidualCriteria>(1e-12, 1e-14);
    auto displacement = std::make_shared<DisplacementCriteria>(1e-12, 1e-14);
    ConvergenceCriteria::Pointer criteria;
    if (criterion == "residual") criteria = residual;
    if (criterion == "displacement") criteria = displacement;
    if (criterion == "and") criteria = std::make_shared<AndCriteria>(residual, displacement);
    if (criterion == "or") criteria = std::make_shared<OrCriteria>(residual, displacement);
    StrategySettings settings;
    settings.max_iterations = 30;
    ResidualBasedNewtonRaphsonStrategy strategy(
        mp, std::make_shared<ResidualBasedIncrementalUpdateStaticScheme>(), criteria,
        std::make_shared<BuilderAndSolver>(std::make_shared<SparseLUSolver>()), settings);
    ASSERT_TRUE(strategy.Solve()) << criterion;
    EXPECT_NEAR(mp.GetNode(2).GetSolutionStepValue(DISPLACEMENT_X), root, 1e-12) << criterion;
    // from d = 0 the Newton iterates for this cubic need 6-8 iterations to reach
    // 1e-12; many more would mean a wrong tangent
    EXPECT_LE(strategy.GetIterationNumber(), 9) << criterion;
    EXPECT_GE(strategy.GetIterationNumber(), 4) << criterion;
    EXPECT_NEAR(mp.GetNode(1).GetSolutionStepValue(REACTION_X), -F, 1e-10) << criterion;
  }
}

TEST(SolvingStrategy, NewtonReportsNonConvergence) {
  Model model;
  ModelPart& mp = SpringChain(model, 1, 3.0, 1.0);
  StrategySettings settings;
  settings.max_iterations = 2;
  ResidualBasedNewtonRaphsonStrategy strategy(
      mp, std::make_shared<ResidualBasedIncrementalUpdateStaticScheme>(),
      std::make_shared<ResidualCriteria>(1e-12, 1e-14),
      std::make_shared<BuilderAndSolver>(std::make_shared<SparseLUSolver>()), settings);
  EXPECT_FALSE(strategy.Solve());
  EXPECT_EQ(strategy.GetIterationNumber(), 2);
}

// A prescribed nonzero displacement at the end of a chain (no force): the
// springs in series share one force f = u_end / sum(1/k). Then the end is freed
// and loaded: the strategy renumbers for the new fixity by itself.
TEST(SolvingStrategy, ImposedDisplacementThenFixityChange) {
  const int n = 5;
  Model model;
  ModelPart& mp = SpringChain(model, n, 0.0);
  mp.GetNode(n + 1).Fix(DISPLACEMENT_X);
  mp.GetNode(n + 1).GetSolutionStepValue(DISPLACEMENT_X) = 0.3;
  auto strategy = LinearStrategy(mp, "sparse_lu");
  strategy->Solve();
  double compliance = 0.0;
  for (int i = 0; i < n; ++i) compliance += 1.0 / (1.0 + i / 3.0);
  const double f = 0.3 / compliance;
  double u = 0.0;
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(mp.GetNode(i + 1).GetSolutionStepValue(DISPLACEMENT_X), u, 1e-14) << i + 1;
    u += f / (1.0 + i / 3.0);
  }
  EXPECT_NEAR(mp.GetNode(n + 1).GetSolutionStepValue(REACTION_X), f, 1e-13);
  EXPECT_NEAR(mp.GetNode(1).GetSolutionStepValue(REACTION_X), -f, 1e-13);
  EXPECT_EQ(strategy->GetDofSet().NumberOfFreeDofs(), static_cast<std::size_t>(n - 1));

  mp.GetNode(n + 1).Free(DISPLACEMENT_X);
  mp.GetCondition(1).SetValue(FORCE, Array3{2.0, 0.0, 0.0});
  strategy->Solve();
  EXPECT_EQ(strategy->GetDofSet().NumberOfFreeDofs(), static_cast<std::size_t>(n));
  EXPECT_NEAR(mp.GetNode(n + 1).GetSolutionStepValue(DISPLACEMENT_X), 2.0 * compliance, 1e-13);
}

TEST(SolvingCriteria, KratosNormDefinitions) {
  Model model;
  ModelPart& mp = SpringChain(model, 3, 1.0);
  DofSet dofs;
  dofs.SetUp(mp);  // 3 free dofs (nodes 2-4), 1 fixed
  ResidualCriteria residual(0.5, 1e-30);
  Vector b0(4), b1(4), dx(3);
  b0 << 3.0, 0.0, 4.0, 100.0;  // |free part| = 5; the fixed row does not count
  b1 << 1.2, 1.6, 0.0, -7.0;   // |free part| = 2
  residual.InitializeSolutionStep(mp, dofs, b0);
  EXPECT_TRUE(residual.PostCriteria(mp, dofs, dx, b1));
  EXPECT_DOUBLE_EQ(residual.LastRatio(), 2.0 / 5.0);
  EXPECT_DOUBLE_EQ(residual.LastAbsoluteNorm(), 2.0 / 3.0);  // |r| / n
  // the displacement criterion: |dx| / |x| and |dx| / sqrt(n)
  for (std::size_t eq = 0; eq < 3; ++eq) dofs.Value(eq) = 2.0;  // |x| = sqrt(12)
  dx << 0.0, 0.3, 0.4;                                          // |dx| = 0.5
  DisplacementCriteria displacement(0.1, 1e-30);
  EXPECT_FALSE(displacement.PostCriteria(mp, dofs, dx, b1));
  EXPECT_DOUBLE_EQ(displacement.LastRatio(), 0.5 / std::sqrt(12.0));
  EXPECT_DOUBLE_EQ(displacement.LastAbsoluteNorm(), 0.5 / std::sqrt(3.0));
  auto r = std::make_shared<ResidualCriteria>(0.5, 1e-30);
  auto d = std::make_shared<DisplacementCriteria>(0.1, 1e-30);
  AndCriteria both(r, d);
  OrCriteria either(r, d);
  both.InitializeSolutionStep(mp, dofs, b0);
  either.InitializeSolutionStep(mp, dofs, b0);
  EXPECT_FALSE(both.PostCriteria(mp, dofs, dx, b1));
  EXPECT_TRUE(either.PostCriteria(mp, dofs, dx, b1));
  EXPECT_TRUE(both.ActualizeRHSFlag());
}

TEST(LinearSolverFactory, NamesMapAndErrorsNameTheKey) {
  EXPECT_TRUE(CreateLinearSolver(Parameters("{}"))->IsDirect());
  EXPECT_TRUE(
      CreateLinearSolver(Parameters(R"({"solver_type": "skyline_lu_factorization"})"))->IsDirect());
  EXPECT_TRUE(
      CreateLinearSolver(
          Parameters(R"({"solver_type": "ExternalSolversApplication.super_lu", "scaling": false})"))
          ->IsDirect());
  auto amgcl = CreateLinearSolver(
      Parameters(R"({"solver_type": "amgcl", "smoother_type": "ilu0", "krylov_type": "cg"})"));
  EXPECT_FALSE(amgcl->IsDirect());
  EXPECT_NE(amgcl->Info().find("incomplete Cholesky"), std::string::npos);
  try {
    CreateLinearSolver(Parameters(R"({"solver_type": "mumps"})"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'mumps'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("sparse_lu"), std::string::npos) << e.what();
  }
  try {
    CreateLinearSolver(Parameters(R"({"solver_type": "cg", "tolerence": 1e-6})"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("tolerence"), std::string::npos) << e.what();
  }
}

TEST(LinearSolverFactory, SingularMatrixIsAnError) {
  Model model;
  ModelPart& mp = SpringChain(model, 3, 1.0);
  mp.GetNode(1).Free(DISPLACEMENT_X);  // nothing holds the chain: rigid-body mode
  auto strategy = LinearStrategy(mp, "sparse_lu");
  try {
    strategy->Solve();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("singular"), std::string::npos) << e.what();
  }
}
