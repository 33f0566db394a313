// Tests of the kernel's time integrators (kernel/solving/bossak_scheme.h,
// explicit_central_differences.h) on a single-dof oscillator: a spring k from a
// fixed node to a free node of mass m, whose discrete solutions are known in
// closed form for each scheme.
#include <gtest/gtest.h>

#include <cmath>

#include "kernel/core/kernel_variables.h"
#include "kernel/geometries/geometry_types.h"
#include "kernel/model/model.h"
#include "kernel/solving/bossak_scheme.h"
#include "kernel/solving/explicit_central_differences.h"
#include "kernel/solving/solving_strategy.h"

using namespace tessera;

namespace {

constexpr double kStiffness = 4.0, kMass = 0.25;  // omega = 4
constexpr double kV0 = 0.3;

// Spring on DISPLACEMENT_X between node 0 (support, massless) and node 1 (mass m).
class MassSpring : public Element {
 public:
  MassSpring(IdType id, Geometry geometry, Properties::Pointer properties)
      : Element(id, std::move(geometry), std::move(properties)) {}
  void EquationIdVector(std::vector<IdType>& ids, const ProcessInfo&) const override {
    const Geometry& g = GetGeometry();
    ids = {g.Database()->EquationId(DISPLACEMENT_X, g.NodeIndex(0)),
           g.Database()->EquationId(DISPLACEMENT_X, g.NodeIndex(1))};
  }
  void GetDofList(std::vector<DofReference>& dofs, const ProcessInfo&) const override {
    dofs = {{GetGeometry().NodeIndex(0), &DISPLACEMENT_X},
            {GetGeometry().NodeIndex(1), &DISPLACEMENT_X}};
  }
  void CalculateLocalSystem(Matrix& lhs, Vector& rhs, const ProcessInfo&) override {
    const Geometry& g = GetGeometry();
    const double d =
        g[1].GetSolutionStepValue(DISPLACEMENT)[0] - g[0].GetSolutionStepValue(DISPLACEMENT)[0];
    lhs.resize(2, 2);
    lhs << kStiffness, -kStiffness, -kStiffness, kStiffness;
    rhs.resize(2);
    rhs << kStiffness * d, -kStiffness * d;
  }
  void CalculateLeftHandSide(Matrix& lhs, const ProcessInfo& info) override {
    Vector rhs;
    CalculateLocalSystem(lhs, rhs, info);
  }
  void CalculateRightHandSide(Vector& rhs, const ProcessInfo& info) override {
    Matrix lhs;
    CalculateLocalSystem(lhs, rhs, info);
  }
  void CalculateMassMatrix(Matrix& mass, const ProcessInfo&) override {
    mass.setZero(2, 2);
    mass(1, 1) = kMass;
  }
  void GetValuesVector(Vector& v, int step) const override { Gather(DISPLACEMENT, step, v); }
  void GetFirstDerivativesVector(Vector& v, int step) const override { Gather(VELOCITY, step, v); }
  void GetSecondDerivativesVector(Vector& v, int step) const override {
    Gather(ACCELERATION, step, v);
  }
  void CalculateLumpedMassVector(Vector& mass, const ProcessInfo&) const override {
    mass.resize(2);
    mass << 0.0, kMass;
  }

 private:
  void Gather(const Variable<Array3>& variable, int step, Vector& v) const {
    const Geometry& g = GetGeometry();
    auto& column = g.Database()->HistoricalColumn(variable, step);
    v.resize(2);
    v << column[g.NodeIndex(0)][0], column[g.NodeIndex(1)][0];
  }
};

ModelPart& Oscillator(Model& model) {
  ModelPart& mp = model.CreateModelPart("Oscillator", 2);
  for (const Variable<Array3>* v : {&DISPLACEMENT, &VELOCITY, &ACCELERATION, &REACTION})
    mp.AddNodalSolutionStepVariable(*v);
  mp.CreateNewNode(1, 0.0, 0.0, 0.0);
  mp.CreateNewNode(2, 1.0, 0.0, 0.0);
  Geometry::NodeIndices nodes{mp.Nodal().IndexOf(1), mp.Nodal().IndexOf(2)};
  mp.AddElement(std::make_unique<MassSpring>(
      1, Geometry(&GetGeometryType("Line2D2"), &mp.Nodal(), nodes), mp.GetPropertiesOrCreate(0)));
  for (Node node : mp.Nodes()) node.AddDof(DISPLACEMENT_X, &REACTION_X);
  mp.GetNode(1).Fix(DISPLACEMENT_X);
  mp.GetNode(2).GetSolutionStepValue(VELOCITY)[0] = kV0;
  mp.GetProcessInfo().SetValue(TIME, 0.0);
  return mp;
}

template <class Step>
void Advance(ModelPart& mp, double dt, int steps, Step&& check) {
  for (int n = 1; n <= steps; ++n) {
    mp.CloneTimeStep(n * dt);
    check(n);
  }
}

}  // namespace

// Trapezoidal rule (Newmark beta = 1/4, gamma = 1/2): each step rotates
// (sqrt(k) u, sqrt(m) v) by theta = 2 atan(omega dt / 2), so
// u_n = v0 / omega sin(n theta) and the energy is conserved (Hughes 2000, 9.3).
TEST(TimeIntegration, NewmarkIsTheTrapezoidalRotation) {
  Model model;
  ModelPart& mp = Oscillator(model);
  auto builder = std::make_shared<BuilderAndSolver>(CreateLinearSolver(Parameters("{}")));
  ResidualBasedLinearStrategy strategy(
      mp, std::make_shared<ResidualBasedBossakDisplacementScheme>(0.0, 0.25), builder,
      StrategySettings{});
  const double omega = std::sqrt(kStiffness / kMass), dt = 0.1;
  const double theta = 2.0 * std::atan(omega * dt / 2.0);
  Node node = mp.GetNode(2);
  Advance(mp, dt, 100, [&](int n) {
    strategy.Solve();
    const double u = node.GetSolutionStepValue(DISPLACEMENT)[0];
    const double v = node.GetSolutionStepValue(VELOCITY)[0];
    EXPECT_NEAR(u, kV0 / omega * std::sin(n * theta), 1e-13) << n;  // round-off
    EXPECT_NEAR(0.5 * kMass * v * v + 0.5 * kStiffness * u * u, 0.5 * kMass * kV0 * kV0, 1e-14);
  });
}

TEST(TimeIntegration, BossakParametersAndBadInput) {
  ResidualBasedBossakDisplacementScheme bossak(-0.3, 0.25);
  EXPECT_DOUBLE_EQ(bossak.Beta(), 1.3 * 1.3 * 0.25);
  EXPECT_DOUBLE_EQ(bossak.Gamma(), 0.8);
  EXPECT_THROW(ResidualBasedBossakDisplacementScheme(-0.5), Error);
  EXPECT_THROW(ResidualBasedBossakDisplacementScheme(0.1), Error);
  EXPECT_THROW(ResidualBasedBossakDisplacementScheme(0.0, 0.0), Error);
}

// Central differences: u_n+1 - 2 u_n + u_n-1 = -(omega dt)^2 u_n with u_0 = 0,
// u_1 = dt v0 (a_0 = 0): u_n = dt v0 sin(n phi) / sin(phi), cos(phi) =
// 1 - (omega dt)^2 / 2 (the scheme's frequency error), and the full-step
// velocity v_n = (u_n+1 - u_n-1) / (2 dt).
TEST(TimeIntegration, CentralDifferencesDiscreteSolution) {
  Model model;
  ModelPart& mp = Oscillator(model);
  auto builder = std::make_shared<BuilderAndSolver>(CreateLinearSolver(Parameters("{}")));
  ExplicitCentralDifferencesStrategy strategy(mp, builder, {});
  const double omega = std::sqrt(kStiffness / kMass), dt = 0.2;  // omega dt = 0.8 < 2
  const double phi = std::acos(1.0 - 0.5 * omega * omega * dt * dt);
  auto exact = [&](int n) { return dt * kV0 * std::sin(n * phi) / std::sin(phi); };
  Node node = mp.GetNode(2);
  Advance(mp, dt, 200, [&](int n) {
    strategy.Solve();
    EXPECT_NEAR(node.GetSolutionStepValue(DISPLACEMENT)[0], exact(n), 1e-13) << n;
    EXPECT_NEAR(node.GetSolutionStepValue(VELOCITY)[0], (exact(n + 1) - exact(n - 1)) / (2 * dt),
                1e-12)
        << n;
  });
}

// A free dof without mass cannot be integrated explicitly: the error names it.
TEST(TimeIntegration, CentralDifferencesNeedMassOnFreeDofs) {
  Model model;
  ModelPart& mp = Oscillator(model);
  mp.GetNode(1).Free(DISPLACEMENT_X);
  auto builder = std::make_shared<BuilderAndSolver>(CreateLinearSolver(Parameters("{}")));
  ExplicitCentralDifferencesStrategy strategy(mp, builder, {});
  mp.CloneTimeStep(0.1);
  try {
    strategy.Solve();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("node 1 has lumped mass 0"), std::string::npos)
        << e.what();
  }
}
