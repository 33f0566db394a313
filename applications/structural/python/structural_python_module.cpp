// tessera._structural: importing it registers the structural application, and
// it binds what the Python solvers drive: materials reading, constitutive laws
// on properties, and the kernel's solving stack (kernel/solving: linear
// solvers, static and Bossak/Newmark schemes, convergence criteria, builder-and-solver, linear and
// Newton-Raphson strategies) under Kratos' class names.
//
// The solving classes are header-only kernel templates; they are bound here,
// module-local, because the kernel module does not bind them yet. Long calls
// release the GIL.
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "elements/strain_energy_provider.h"
#include "kernel/core/error.h"
#include "kernel/linear_solvers/distributed_builder_and_solver.h"
#include "kernel/model/model.h"
#include "kernel/parallel/background_worker.h"
#include "kernel/parallel/distribute_model_part.h"
#include "kernel/parameters/parameters.h"
#include "kernel/registry/registry.h"
#include "kernel/solving/bossak_scheme.h"
#include "kernel/solving/explicit_central_differences.h"
#include "kernel/solving/solving_strategy.h"
#include "structural_application.h"
#include "utilities/critical_time_step.h"
#include "utilities/materials_reader.h"
#include "utilities/strain_energy.h"

namespace py = pybind11;
using namespace tessera;

namespace {

using Release = py::call_guard<py::gil_scoped_release>;

StrategySettings Settings(int max_iterations, bool compute_reactions, bool reform_dofs,
                          bool move_mesh, int echo_level) {
  StrategySettings s;
  s.max_iterations = max_iterations;
  s.compute_reactions = compute_reactions;
  s.reform_dofs_at_each_step = reform_dofs;
  s.move_mesh = move_mesh;
  s.echo_level = echo_level;
  return s;
}

void AddSolvingStack(py::module_& m) {
  py::class_<LinearSolver, std::shared_ptr<LinearSolver>>(m, "LinearSolver", py::module_local())
      .def("Info", &LinearSolver::Info)
      .def("IsDirect", &LinearSolver::IsDirect)
      .def("LastIterations", &LinearSolver::LastIterations)
      .def("LastError", &LinearSolver::LastError)
      .def("__repr__", &LinearSolver::Info);
  m.def("CreateLinearSolver", &CreateLinearSolver, py::arg("settings"),
        "The linear solver a Kratos-style linear_solver_settings object names");

  py::class_<Scheme, std::shared_ptr<Scheme>>(m, "Scheme", py::module_local());
  py::class_<ResidualBasedIncrementalUpdateStaticScheme, Scheme,
             std::shared_ptr<ResidualBasedIncrementalUpdateStaticScheme>>(
      m, "ResidualBasedIncrementalUpdateStaticScheme", py::module_local())
      .def(py::init<>());
  py::class_<ResidualBasedBossakDisplacementScheme, Scheme,
             std::shared_ptr<ResidualBasedBossakDisplacementScheme>>(
      m, "ResidualBasedBossakDisplacementScheme", py::module_local())
      .def(py::init<double, double>(), py::arg("alpha_m") = -0.3, py::arg("newmark_beta") = 0.25)
      .def("GetAlphaM", &ResidualBasedBossakDisplacementScheme::AlphaM)
      .def("GetBeta", &ResidualBasedBossakDisplacementScheme::Beta)
      .def("GetGamma", &ResidualBasedBossakDisplacementScheme::Gamma);
  m.def(
      "ResidualBasedNewmarkDisplacementScheme",
      [](double newmark_beta) {
        return std::make_shared<ResidualBasedBossakDisplacementScheme>(0.0, newmark_beta);
      },
      py::arg("newmark_beta") = 0.25, "Newmark's scheme: the Bossak scheme with alpha_m = 0");

  py::class_<ConvergenceCriteria, std::shared_ptr<ConvergenceCriteria>>(m, "ConvergenceCriteria",
                                                                        py::module_local())
      .def("SetEchoLevel", &ConvergenceCriteria::SetEchoLevel)
      .def("LastRatio", &ConvergenceCriteria::LastRatio)
      .def("LastAbsoluteNorm", &ConvergenceCriteria::LastAbsoluteNorm);
  py::class_<ResidualCriteria, ConvergenceCriteria, std::shared_ptr<ResidualCriteria>>(
      m, "ResidualCriteria", py::module_local())
      .def(py::init<double, double>(), py::arg("relative_tolerance"),
           py::arg("absolute_tolerance"));
  py::class_<DisplacementCriteria, ConvergenceCriteria, std::shared_ptr<DisplacementCriteria>>(
      m, "DisplacementCriteria", py::module_local())
      .def(py::init<double, double>(), py::arg("relative_tolerance"),
           py::arg("absolute_tolerance"));
  py::class_<AndCriteria, ConvergenceCriteria, std::shared_ptr<AndCriteria>>(m, "AndCriteria",
                                                                             py::module_local())
      .def(py::init<ConvergenceCriteria::Pointer, ConvergenceCriteria::Pointer>());
  py::class_<OrCriteria, ConvergenceCriteria, std::shared_ptr<OrCriteria>>(m, "OrCriteria",
                                                                           py::module_local())
      .def(py::init<ConvergenceCriteria::Pointer, ConvergenceCriteria::Pointer>());

  py::class_<BuilderAndSolver, std::shared_ptr<BuilderAndSolver>>(
      m, "ResidualBasedEliminationBuilderAndSolver", py::module_local())
      .def(py::init<LinearSolver::Pointer>())
      .def("NumberOfColours", &BuilderAndSolver::NumberOfColours)
      .def("NumberOfFreeDofs",
           [](const BuilderAndSolver& b) { return b.GetDofSet().NumberOfFreeDofs(); })
      .def("NumberOfDofs", [](const BuilderAndSolver& b) { return b.GetDofSet().size(); })
      .def("GetLinearSolver", [](BuilderAndSolver& b) { return b.GetLinearSolver().Info(); });

  py::class_<DistributedBuilderAndSolver, BuilderAndSolver,
             std::shared_ptr<DistributedBuilderAndSolver>>(m, "DistributedBuilderAndSolver",
                                                           py::module_local())
      .def(py::init([](const std::shared_ptr<Communicator>& communicator, const LocalMesh& mesh,
                       const Parameters& linear_solver_settings) {
             return std::make_shared<DistributedBuilderAndSolver>(
                 communicator, mesh.neighbours, mesh.shared_nodes, mesh.owned_nodes,
                 ReadPetscSolverSettings(linear_solver_settings));
           }),
           py::arg("communicator"), py::arg("local_mesh"), py::arg("linear_solver_settings"),
           "The builder of a distributed implicit solver: local assembly, global numbering, "
           "PETSc's distributed matrix and KSP (settings of \"solver_type\": \"petsc\")")
      .def("NumberOfGlobalFreeDofs", &DistributedBuilderAndSolver::GlobalFreeDofs)
      .def("GlobalIds", &DistributedBuilderAndSolver::GlobalIds)
      .def("Owned", &DistributedBuilderAndSolver::Owned);

  py::class_<ImplicitSolvingStrategy, std::shared_ptr<ImplicitSolvingStrategy>>(
      m, "ImplicitSolvingStrategy", py::module_local())
      .def("Initialize", &ImplicitSolvingStrategy::Initialize, Release())
      .def("InitializeSolutionStep", &ImplicitSolvingStrategy::InitializeSolutionStep, Release())
      .def("Predict", &ImplicitSolvingStrategy::Predict, Release())
      .def("SolveSolutionStep", &ImplicitSolvingStrategy::SolveSolutionStep, Release())
      .def("FinalizeSolutionStep", &ImplicitSolvingStrategy::FinalizeSolutionStep, Release())
      .def("Solve", &ImplicitSolvingStrategy::Solve, Release())
      .def("Check", &ImplicitSolvingStrategy::Check)
      .def("Clear", &ImplicitSolvingStrategy::Clear)
      .def("MoveMesh", &ImplicitSolvingStrategy::MoveMesh)
      .def("GetIterationNumber", &ImplicitSolvingStrategy::GetIterationNumber)
      .def("SetMaxIterations",
           [](ImplicitSolvingStrategy& s, int n) { s.Settings().max_iterations = n; })
      .def(
          "GetBuilderAndSolver",
          [](ImplicitSolvingStrategy& s) { return &s.GetBuilderAndSolver(); },
          py::return_value_policy::reference_internal)
      .def(
          "GetResidual", [](const ImplicitSolvingStrategy& s) { return Vector(s.GetResidual()); },
          "the last right-hand side (free dofs first, then fixed)")
      .def(
          "GetSystemMatrixDense",
          [](const ImplicitSolvingStrategy& s) { return Matrix(s.GetSystemMatrix()); },
          "the last tangent (free x free) as a dense array (small systems, tests)");

  py::class_<ResidualBasedLinearStrategy, ImplicitSolvingStrategy,
             std::shared_ptr<ResidualBasedLinearStrategy>>(m, "ResidualBasedLinearStrategy",
                                                           py::module_local())
      .def(py::init([](ModelPart& model_part, Scheme::Pointer scheme,
                       BuilderAndSolver::Pointer builder, bool compute_reactions, bool reform_dofs,
                       bool move_mesh) {
             return std::make_shared<ResidualBasedLinearStrategy>(
                 model_part, std::move(scheme), std::move(builder),
                 Settings(1, compute_reactions, reform_dofs, move_mesh, 0));
           }),
           py::arg("model_part"), py::arg("scheme"), py::arg("builder_and_solver"),
           py::arg("compute_reactions") = true, py::arg("reform_dof_set_at_each_step") = false,
           py::arg("move_mesh_flag") = false, py::keep_alive<1, 2>());

  py::class_<ResidualBasedNewtonRaphsonStrategy, ImplicitSolvingStrategy,
             std::shared_ptr<ResidualBasedNewtonRaphsonStrategy>>(
      m, "ResidualBasedNewtonRaphsonStrategy", py::module_local())
      .def(py::init([](ModelPart& model_part, Scheme::Pointer scheme,
                       ConvergenceCriteria::Pointer criteria, BuilderAndSolver::Pointer builder,
                       int max_iterations, bool compute_reactions, bool reform_dofs, bool move_mesh,
                       int echo_level) {
             return std::make_shared<ResidualBasedNewtonRaphsonStrategy>(
                 model_part, std::move(scheme), std::move(criteria), std::move(builder),
                 Settings(max_iterations, compute_reactions, reform_dofs, move_mesh, echo_level));
           }),
           py::arg("model_part"), py::arg("scheme"), py::arg("convergence_criterion"),
           py::arg("builder_and_solver"), py::arg("max_iterations") = 30,
           py::arg("compute_reactions") = true, py::arg("reform_dof_set_at_each_step") = false,
           py::arg("move_mesh_flag") = false, py::arg("echo_level") = 0, py::keep_alive<1, 2>());

  using Explicit = ExplicitCentralDifferencesStrategy;
  py::class_<Explicit, std::shared_ptr<Explicit>>(m, "ExplicitCentralDifferencesStrategy",
                                                  py::module_local())
      .def(py::init([](ModelPart& model_part, BuilderAndSolver::Pointer builder,
                       double rayleigh_alpha, bool compute_reactions, bool move_mesh) {
             Explicit::Settings s;
             s.mass_damping = rayleigh_alpha;
             s.compute_reactions = compute_reactions;
             s.move_mesh = move_mesh;
             return std::make_shared<Explicit>(model_part, std::move(builder), s);
           }),
           py::arg("model_part"), py::arg("builder_and_solver"), py::arg("rayleigh_alpha") = 0.0,
           py::arg("compute_reactions") = true, py::arg("move_mesh_flag") = false,
           py::keep_alive<1, 2>())
      .def("Initialize", &Explicit::Initialize, Release())
      .def("InitializeSolutionStep", &Explicit::InitializeSolutionStep, Release())
      .def("Predict", &Explicit::Predict, Release())
      .def("SetInterfaceSum", &Explicit::SetInterfaceSum, py::arg("interface_sum"),
           "A distributed run: shared nodes' masses and residuals summed over the ranks")
      .def("ContinueFromCheckpoint", &Explicit::ContinueFromCheckpoint,
           "The first step keeps the restored accelerations (a restart)")
      .def("SolveSolutionStep", &Explicit::SolveSolutionStep, Release())
      .def("Drift", &Explicit::Drift, Release(),
           "the first half of SolveSolutionStep: half kick and drift to u_n+1")
      .def("Kick", &Explicit::Kick, Release(),
           "the second half of SolveSolutionStep: residual at u_n+1, accelerations, half kick")
      .def("DeferConditionsOf", &Explicit::DeferConditionsOf, py::arg("model_part"),
           "the conditions of model_part carry loads another solver computes within the step: "
           "BeginKick leaves them to Kick")
      .def("BeginKick", &Explicit::BeginKick, Release(),
           "the part of Kick that needs no deferred load (the other entities' right-hand sides)")
      .def(
          "BeginKickOn",
          [](Explicit& strategy, BackgroundWorker& worker, int threads, bool drift) {
            worker.Start(
                [&strategy, drift] {
                  if (drift) strategy.Drift();
                  strategy.BeginKick();
                },
                threads);
          },
          py::arg("worker"), py::arg("threads"), py::arg("drift") = false,
          "BeginKick (after Drift with drift=True) on the worker's thread with `threads` OpenMP "
          "threads; returns at once (worker.Wait() before Kick)")
      .def("FinalizeSolutionStep", &Explicit::FinalizeSolutionStep, Release())
      .def("Solve", &Explicit::Solve, Release())
      .def("Check", &Explicit::Check)
      .def("Clear", &Explicit::Clear)
      .def("MoveMesh", &Explicit::MoveMesh)
      .def("GetIterationNumber", &Explicit::GetIterationNumber)
      .def(
          "GetLumpedMass", [](const Explicit& s) { return Vector(s.GetLumpedMass()); },
          "the lumped mass per equation (free dofs first, then fixed)");
}

}  // namespace

PYBIND11_MODULE(_structural, m) {
  // The kernel module owns the Python types (Model, ModelPart, Parameters,
  // Properties) this module's functions take.
  py::module_::import("tessera._tessera");
  structural::RegisterStructuralApplication();
  m.doc() =
      "Solid mechanics: small-displacement and total-Lagrangian solids, load conditions, "
      "elastic laws, and the implicit solving stack";

  m.def("ReadMaterials", &structural::ReadMaterials, py::arg("model"), py::arg("materials"),
        "Reads a materials Parameters object ({\"properties\": [...]}) into the model");
  m.def("ReadMaterialsFile", &structural::ReadMaterialsFile, py::arg("model"),
        py::arg("file_name"));
  m.def(
      "SetConstitutiveLaw",
      [](const std::shared_ptr<Properties>& properties, const std::string& name) {
        properties->SetConstitutiveLaw(Registry::Instance().CreateConstitutiveLaw(name));
      },
      py::arg("properties"), py::arg("law_name"),
      "Gives the properties a new constitutive law made by its registered name");
  m.def(
      "GetConstitutiveLawName",
      [](const std::shared_ptr<Properties>& properties) -> std::string {
        const auto& law = properties->GetConstitutiveLaw();
        return law ? law->Info() : std::string();
      },
      py::arg("properties"), "The name of the properties' law, or \"\" if none");
  m.def("EstimateCriticalTimeStep", &structural::EstimateCriticalTimeStep, py::arg("model_part"),
        "min over the elements of l_e / c_e (dilatational wave speed; "
        "utilities/critical_time_step.h)");
  m.def("ComputeStrainEnergy", &structural::ComputeStrainEnergy, py::arg("model_part"),
        py::call_guard<py::gil_scoped_release>(),
        "The strain energy int w dV0 stored in the model part's elements at the current "
        "displacements (utilities/strain_energy.h); thread-count independent");
  m.def(
      "CalculateElementStrainEnergy",
      [](Element& element, const ProcessInfo& info) {
        auto* provider = dynamic_cast<structural::StrainEnergyProvider*>(&element);
        if (!provider) TESSERA_ERROR(element.Info(), ": stores no strain energy");
        return provider->CalculateStrainEnergy(info);
      },
      py::arg("element"), py::arg("process_info"),
      "The strain energy int w dV0 of one structural element");
  AddSolvingStack(m);
}
