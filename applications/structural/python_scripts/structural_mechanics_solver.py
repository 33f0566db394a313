"""MechanicalSolver: the base of the structural solvers (Kratos'
structural_mechanics_solver.MechanicalSolver), with what every implicit
structural solver shares:

* variables: DISPLACEMENT, REACTION, the load variables (POINT_LOAD, LINE_LOAD,
  SURFACE_LOAD, POSITIVE/NEGATIVE_FACE_PRESSURE, VOLUME_ACCELERATION) as
  solution-step variables, plus "auxiliary_variables_list";
* dofs: DISPLACEMENT_X/Y/Z with REACTION_X/Y/Z on every node (2D elements use
  X and Y only; unused dofs never enter the system);
* reading the mesh ("model_import_settings") and then the materials
  ("material_import_settings.materials_filename"), which assign properties and
  constitutive laws to the elements and conditions;
* the strategy: linear solver from "linear_solver_settings" (default
  sparse_lu), builder-and-solver eliminating the fixed dofs, the scheme of the
  derived solver, and for "analysis_type": "non_linear" a Newton-Raphson
  strategy with the "convergence_criterion" of the settings
  (residual_criterion, displacement_criterion, and_criterion, or_criterion),
  for "linear" one solve per step.

Settings this build cannot honour (rotation dofs, line search, volumetric
strain or pressure dofs, displacement control, arc length) are errors naming
the key, never silently ignored.
"""
import numpy as np

import tessera

from tessera import _structural
from tessera.python_solver import PythonSolver
from tessera.parallel import SetNodeOwnership

DEFAULTS = """{
    "solver_type": "Static",
    "model_part_name": "",
    "computing_model_part_name": "computing_domain",
    "domain_size": -1,
    "echo_level": 0,
    "buffer_size": 2,
    "analysis_type": "non_linear",
    "time_integration_method": "implicit",
    "scheme_type": "",
    "model_import_settings": {},
    "material_import_settings": {"materials_filename": ""},
    "time_stepping": {},
    "rotation_dofs": false,
    "volumetric_strain_dofs": false,
    "pressure_dofs": false,
    "displacement_control": false,
    "reform_dofs_at_each_step": false,
    "use_old_stiffness_in_first_iteration": false,
    "compute_reactions": true,
    "solving_strategy_settings": {},
    "builder_and_solver_settings": {},
    "clear_storage": false,
    "move_mesh_flag": true,
    "multi_point_constraints_used": true,
    "convergence_criterion": "residual_criterion",
    "displacement_relative_tolerance": 1.0e-4,
    "displacement_absolute_tolerance": 1.0e-9,
    "residual_relative_tolerance": 1.0e-4,
    "residual_absolute_tolerance": 1.0e-9,
    "max_iteration": 10,
    "linear_solver_settings": {},
    "line_search": false,
    "line_search_settings": {},
    "block_builder": true,
    "use_computing_model_part": false,
    "auxiliary_variables_list": [],
    "auxiliary_dofs_list": [],
    "auxiliary_reaction_list": [],
    "problem_domain_sub_model_part_list": [],
    "processes_sub_model_part_list": []
}"""

IMPORT_DEFAULTS = """{"input_type": "mdpa", "input_filename": "unknown_name"}"""

LOAD_VARIABLES = ("POSITIVE_FACE_PRESSURE", "NEGATIVE_FACE_PRESSURE", "POINT_LOAD", "LINE_LOAD",
                  "SURFACE_LOAD", "VOLUME_ACCELERATION")

CRITERIA = ("residual_criterion", "displacement_criterion", "and_criterion", "or_criterion")


# Distributed runs solve with PETSc. A deck's serial solver maps to its PETSc
# counterpart: a direct solver to MUMPS' distributed LU, Kratos' amgcl to CG with
# PETSc's algebraic multigrid (GAMG), cg and bicgstab to theirs with Jacobi;
# tolerance and max_iteration carry over.
DIRECT_SOLVERS = ("sparse_lu", "skyline_lu_factorization", "super_lu", "ExternalSolversApplication.super_lu",
                  "LinearSolversApplication.sparse_lu", "LinearSolversApplication.sparse_qr",
                  "LinearSolversApplication.pardiso_lu", "LinearSolversApplication.pardiso_ldlt", "pardiso_lu",
                  "klu", "mumps", "amesos", "amesos2")
KRYLOV_SOLVERS = {"amgcl": ("cg", "gamg"), "conjugate_gradient": ("cg", "jacobi"),
                  "LinearSolversApplication.sparse_cg": ("cg", "jacobi"), "CGSolver": ("cg", "jacobi"),
                  "cg": ("cg", "jacobi"), "bicgstab": ("bcgs", "jacobi"), "BICGSTABSolver": ("bcgs", "jacobi")}


def DistributedSolverSettings(settings):
    """The "petsc" settings a distributed run solves with, for a deck's
    "linear_solver_settings" (see DIRECT_SOLVERS, KRYLOV_SOLVERS)."""
    solver_type = settings["solver_type"].GetString() if settings.Has("solver_type") else "sparse_lu"
    if solver_type == "petsc":
        return settings
    if solver_type in DIRECT_SOLVERS:
        return tessera.Parameters('{"solver_type": "petsc", "ksp_type": "preonly", "pc_type": "lu"}')
    if solver_type not in KRYLOV_SOLVERS:
        raise tessera.Error(f"{_Key(settings, 'solver_type')} is '{solver_type}', which has no distributed "
                            f"counterpart; use \"petsc\" or one of {', '.join(DIRECT_SOLVERS + tuple(KRYLOV_SOLVERS))}")
    ksp, pc = KRYLOV_SOLVERS[solver_type]
    mapped = tessera.Parameters(f'{{"solver_type": "petsc", "ksp_type": "{ksp}", "pc_type": "{pc}"}}')
    for key in ("tolerance", "max_iteration"):
        if settings.Has(key):
            mapped.AddValue(key, settings[key])
    return mapped


def _Key(settings, key):
    path = settings.Path()
    return f"{settings.Origin()}: key '{path + '.' if path else ''}{key}'"


class MechanicalSolver(PythonSolver):
    # Whether this solver runs distributed ("parallel_type": "MPI"); those that
    # do keep only their rank's piece of the mesh (PrepareModelPart).
    SUPPORTS_MPI = False
    # Implicit solvers assemble a global system (distributed: PETSc's).
    IMPLICIT = True

    @classmethod
    def GetDefaultParameters(cls):
        return tessera.Parameters(DEFAULTS)

    def __init__(self, model, settings):
        super().__init__(model, settings)
        settings["model_import_settings"].ValidateAndAssignDefaults(tessera.Parameters(IMPORT_DEFAULTS))
        self._RejectUnsupported()
        self.model_part_name = settings["model_part_name"].GetString()
        if not self.model_part_name:
            raise tessera.Error(f"{_Key(settings, 'model_part_name')} is empty; name the structure's "
                                "model part (e.g. \"Structure\")")
        buffer_size = max(settings["buffer_size"].GetInt(), self._MinimumBufferSize())
        if model.HasModelPart(self.model_part_name):
            self.main_model_part = model.GetModelPart(self.model_part_name)
            if self.main_model_part.GetBufferSize() < buffer_size:
                self.main_model_part.SetBufferSize(buffer_size)
        else:
            self.main_model_part = model.CreateModelPart(self.model_part_name, buffer_size)
        domain_size = settings["domain_size"].GetInt()
        if domain_size not in (2, 3):
            raise tessera.Error(f"{_Key(settings, 'domain_size')} must be 2 or 3, not {domain_size}")
        self.strategy = None
        self.communicator = tessera.SerialCommunicator()
        self.local_mesh = None  # this rank's piece of a distributed run (ReadModelPartPiece)

    def SetCommunicator(self, communicator):
        """The run's communicator (the stage sets it for "parallel_type": "MPI")."""
        if communicator.IsDistributed() and not self.SUPPORTS_MPI:
            raise tessera.Error(f"{type(self).__name__} does not run distributed")
        if communicator.IsDistributed() and self.IMPLICIT and not tessera.PetscBuilt():
            raise tessera.Error(f"{_Key(self.settings, 'solver_type')}: the implicit structural solvers "
                                "run distributed with PETSc, which this build of Tessera lacks (install "
                                "petsc-dev and configure with -DTESSERA_WITH_PETSC=ON)")
        self.communicator = communicator

    def _MinimumBufferSize(self):
        return 2

    def _RejectUnsupported(self):
        s = self.settings
        for key in ("rotation_dofs", "volumetric_strain_dofs", "pressure_dofs", "displacement_control",
                    "line_search", "use_old_stiffness_in_first_iteration"):
            if s[key].GetBool():
                raise tessera.Error(f"{_Key(s, key)} is true; this build of the structural application "
                                    "does not provide it yet (set it to false)")
        criterion = s["convergence_criterion"].GetString()
        if criterion not in CRITERIA:
            raise tessera.Error(f"{_Key(s, 'convergence_criterion')} is '{criterion}'; expected one of "
                                f"{', '.join(CRITERIA)}")
        analysis = s["analysis_type"].GetString()
        if analysis not in ("linear", "non_linear"):
            raise tessera.Error(f"{_Key(s, 'analysis_type')} is '{analysis}'; expected \"linear\" or "
                                "\"non_linear\"")

    # ---- model part set-up
    def AddVariables(self):
        mp = self.main_model_part
        for variable in (tessera.DISPLACEMENT, tessera.REACTION):
            mp.AddNodalSolutionStepVariable(variable)
        for name in LOAD_VARIABLES:
            mp.AddNodalSolutionStepVariable(tessera.GetVariable(name))
        names = self.settings["auxiliary_variables_list"]
        for i in range(names.size()):
            try:
                mp.AddNodalSolutionStepVariable(tessera.GetVariable(names[i].GetString()))
            except tessera.Error as error:
                raise tessera.Error(f"{names.Origin()}: key '{names[i].Path()}': {error}") from None

    def AddDofs(self):
        pairs = [(tessera.DISPLACEMENT_X, tessera.REACTION_X), (tessera.DISPLACEMENT_Y, tessera.REACTION_Y),
                 (tessera.DISPLACEMENT_Z, tessera.REACTION_Z)]
        dofs, reactions = self.settings["auxiliary_dofs_list"], self.settings["auxiliary_reaction_list"]
        if dofs.size() != reactions.size():
            raise tessera.Error(f"{_Key(self.settings, 'auxiliary_dofs_list')} and "
                                "auxiliary_reaction_list must have the same length")
        for i in range(dofs.size()):
            pairs.append((tessera.GetVariable(dofs[i].GetString()), tessera.GetVariable(reactions[i].GetString())))
        for node in self.main_model_part.Nodes:
            for dof, reaction in pairs:
                node.AddDof(dof, reaction)

    def ImportModelPart(self):
        settings = self.settings["model_import_settings"]
        if self.communicator.IsDistributed() and settings["input_type"].GetString() == "mdpa":
            # Each rank reads the file's connectivity, partitions it (METIS,
            # the same on every rank) and reads only its piece: no rank holds
            # the whole mesh (tessera.ReadModelPartPiece).
            self.local_mesh = tessera.ReadModelPartPiece(
                tessera.ModelPartIO(settings["input_filename"].GetString()), self.main_model_part,
                self.communicator)
            return
        self._ImportModelPart(self.main_model_part, settings)

    def PrepareModelPart(self):
        self.main_model_part.ProcessInfo[tessera.DOMAIN_SIZE] = self.settings["domain_size"].GetInt()
        materials = self.settings["material_import_settings"]
        materials.ValidateAndAssignDefaults(tessera.Parameters('{"materials_filename": ""}'))
        file_name = materials["materials_filename"].GetString()
        if file_name:
            _structural.ReadMaterialsFile(self.model, file_name)
        self._CreateComputingDomain()
        if self.communicator.IsDistributed():
            if self.local_mesh is None:
                # Every rank holds the whole mesh (a model part given whole,
                # not read from a file here); METIS splits it the same way on each,
                # and each keeps its piece before the processes see it.
                self.local_mesh = tessera.DistributeModelPart(self.main_model_part, self.communicator)
            local_mesh = self.local_mesh
            SetNodeOwnership(self.main_model_part, lambda: local_mesh.owned_nodes)

    def _CreateComputingDomain(self):
        """The sub model part "computing_model_part_name" (computing_domain)
        that older Kratos decks name in their output: the nodes and elements
        of "problem_domain_sub_model_part_list" and the nodes and conditions
        of "processes_sub_model_part_list" (empty lists: the whole structure).
        The solver itself works on the whole structure."""
        name = self.settings["computing_model_part_name"].GetString()
        mp = self.main_model_part
        if not name or mp.HasSubModelPart(name):
            return
        computing = mp.CreateSubModelPart(name)
        lists = {key: self.settings[key].GetStringArray()
                 for key in ("problem_domain_sub_model_part_list", "processes_sub_model_part_list")}
        for key, names in lists.items():
            for part_name in names:
                if not mp.HasSubModelPart(part_name):
                    raise tessera.Error(f"{_Key(self.settings, key)}: no sub model part '{part_name}' in "
                                        f"{mp.Name} (it has: {', '.join(mp.GetSubModelPartNames())})")
        domain = [mp.GetSubModelPart(n) for n in lists["problem_domain_sub_model_part_list"]] or [mp]
        processes = [mp.GetSubModelPart(n) for n in lists["processes_sub_model_part_list"]] or [mp]
        for part in domain:
            computing.AddNodes([int(i) for i in part.NodeIds()])
            computing.AddElements([e.Id for e in part.Elements])
        for part in processes:
            computing.AddNodes([int(i) for i in part.NodeIds()])
            computing.AddConditions([c.Id for c in part.Conditions])

    def GetComputingModelPart(self):
        return self.main_model_part

    # ---- the strategy
    def Initialize(self):
        self.strategy = self._CreateSolutionStrategy()
        self.strategy.Initialize()

    def Check(self):
        self._GetStrategy().Check()

    def InitializeSolutionStep(self):
        self._GetStrategy().InitializeSolutionStep()

    def Predict(self):
        self._GetStrategy().Predict()

    def SolveSolutionStep(self):
        converged = self._GetStrategy().SolveSolutionStep()
        if self.echo_level > 0:
            print(f"{type(self).__name__}: {self.strategy.GetIterationNumber()} iteration(s), "
                  f"{'converged' if converged else 'NOT converged'}")
        return converged

    def FinalizeSolutionStep(self):
        self._GetStrategy().FinalizeSolutionStep()

    def Clear(self):
        if self.strategy is not None:
            self.strategy.Clear()

    # ---- checkpoint: the state is the model part's (buffers, laws); an
    # explicit strategy must keep the restored accelerations at its first step.
    def SaveCheckpoint(self, writer, group):
        writer.WriteString(group + "/Type", type(self).__name__)
        if self.local_mesh is not None:
            # The nodes this rank owns: a merge of the rank files takes each
            # node from its owner (resized_checkpoint.py).
            writer.Write(group + "/OwnedNodes", np.asarray(self.local_mesh.owned_nodes, np.int64))

    def LoadCheckpoint(self, reader, group):
        saved = reader.ReadString(group + "/Type")
        if saved != type(self).__name__:
            raise tessera.Error(f"checkpoint {reader.path} was written by a {saved}, not a {type(self).__name__}")
        strategy = self._GetStrategy()
        if hasattr(strategy, "ContinueFromCheckpoint"):
            strategy.ContinueFromCheckpoint()

    def GetSolutionStrategy(self):
        return self._GetStrategy()

    def _GetStrategy(self):
        if self.strategy is None:
            raise tessera.Error(f"{type(self).__name__}: Initialize() must come before solving")
        return self.strategy

    def _CreateScheme(self):
        raise NotImplementedError(f"{type(self).__name__} must implement _CreateScheme")

    def _CreateLinearSolver(self):
        return _structural.CreateLinearSolver(self.settings["linear_solver_settings"])

    def _CreateConvergenceCriterion(self):
        s = self.settings
        residual = _structural.ResidualCriteria(s["residual_relative_tolerance"].GetDouble(),
                                                s["residual_absolute_tolerance"].GetDouble())
        displacement = _structural.DisplacementCriteria(s["displacement_relative_tolerance"].GetDouble(),
                                                        s["displacement_absolute_tolerance"].GetDouble())
        for criterion in (residual, displacement):
            criterion.SetEchoLevel(self.echo_level)
        name = s["convergence_criterion"].GetString()
        if name == "residual_criterion":
            return residual
        if name == "displacement_criterion":
            return displacement
        if name == "and_criterion":
            return _structural.AndCriteria(residual, displacement)
        return _structural.OrCriteria(residual, displacement)

    def _CreateBuilderAndSolver(self):
        if self.local_mesh is None:
            return _structural.ResidualBasedEliminationBuilderAndSolver(self._CreateLinearSolver())
        return _structural.DistributedBuilderAndSolver(
            self.communicator, self.local_mesh, DistributedSolverSettings(self.settings["linear_solver_settings"]))

    def _CreateSolutionStrategy(self):
        s = self.settings
        builder = self._CreateBuilderAndSolver()
        common = dict(compute_reactions=s["compute_reactions"].GetBool(),
                      reform_dof_set_at_each_step=s["reform_dofs_at_each_step"].GetBool(),
                      move_mesh_flag=s["move_mesh_flag"].GetBool())
        if s["analysis_type"].GetString() == "linear":
            return _structural.ResidualBasedLinearStrategy(self.GetComputingModelPart(), self._CreateScheme(),
                                                           builder, **common)
        max_iteration = s["max_iteration"].GetInt()
        if max_iteration < 1:
            raise tessera.Error(f"{_Key(s, 'max_iteration')} must be at least 1, not {max_iteration}")
        return _structural.ResidualBasedNewtonRaphsonStrategy(
            self.GetComputingModelPart(), self._CreateScheme(), self._CreateConvergenceCriterion(), builder,
            max_iterations=max_iteration, echo_level=self.echo_level, **common)


class DynamicMechanicalSolver(MechanicalSolver):
    """What the implicit and explicit dynamic solvers share: their own keys on top
    of the common ones (DYNAMIC_DEFAULTS, a JSON object; a key of both takes the
    dynamic default), and VELOCITY, ACCELERATION as solution-step variables."""
    DYNAMIC_DEFAULTS = "{}"

    @classmethod
    def GetDefaultParameters(cls):
        defaults = super().GetDefaultParameters()
        for key, value in tessera.Parameters(cls.DYNAMIC_DEFAULTS).items():
            if defaults.Has(key):
                defaults.RemoveValue(key)
            defaults.AddValue(key, value)
        return defaults

    def AddVariables(self):
        super().AddVariables()
        for variable in (tessera.VELOCITY, tessera.ACCELERATION):
            self.main_model_part.AddNodalSolutionStepVariable(variable)
