"""DemStructuresCouplingAnalysis: particles loading and deforming an FE
structure (thesis chapter 4), from a structural stage and a DEM stage.

    model = tessera.Model()
    stage = tessera.coupling.DemStructuresCouplingAnalysis(
        model, structural_parameters, dem_parameters)   # tessera.Parameters each
    stage.Run()

The structure keeps the model part name its ProjectParameters.json gives, the
DEM its parts (SpheresPart, RigidFacePart, ...). The structure's skin becomes
DEM walls that follow its nodes, and the sphere-skin contact forces load the
structure (skin_walls.py). Options: coupling_parameters.py
(ProjectParametersCoupling.json).

Time stepping, explicit structure: central differences with its lumped mass
and the DEM on one common step
    Δt = min(the DEM's MaxTimeStep after its own checks, α min_e l_e / c_e),
so that every step of the two is one step of the combined system (thesis
§4.1, §4.4): structure drift (u_n+1), walls moved there,
DEM step (its spheres' drift, contact forces at the synchronised positions,
its kick), the contact reactions to the FE nodes, structure kick (residual at
u_n+1 with those loads). The forces on both sides are equal and opposite at
the same configuration and act over the same interval, so the total momentum
of spheres and structure is conserved to round-off. "explicit_dem_first"
takes Kratos' CoSimulation order instead (the DEM step with the walls where
the structure's last step left them, then the structure's step). On two or
more threads the explicit step assembles the structure's internal forces on
some threads while the DEM steps on the others, bitwise the sequential step
(step_overlap.py).

Implicit structure (Newmark or Bossak on its own, larger step; Kratos'
DEM-structures scheme): the structure solves its step with the DEM loads
averaged over its previous step, then the DEM runs whole sub-steps to the
structure's time with the walls moved linearly in time between the two
structural states; the loads lag one structural step, so momentum is
conserved only as that step goes to zero.
"""
import math
import os
import time

import numpy as np

import tessera
from tessera import _coupling  # noqa: F401  (registers the coupling application)

from tessera.checkpoint import CheckpointSchedule, SignalStop

from .coupled_checkpoint import LoadCoupledCheckpoint, SaveCoupledCheckpoint
from .coupled_collection import CollectionFiles, WriteCoupledCollection
from .coupled_energy import CoupledEnergyMonitor
from .coupling_parameters import CouplingOptions
from .distributed_coupling import AlignParallelType, DistributedCoupling, MergedCollections
from .skin_walls import FindSkinFaces, SkinWalls
from .step_overlap import StepOverlap


class _CoupledSide:
    """What both sides' stages share: the coupled stage passed in, and no
    checkpoint of one side alone, which is not the coupled run's state (the
    coupled stage writes and reads both, coupled_checkpoint.py; its
    restart_options are the structure's deck's)."""

    def __init__(self, model, parameters, coupling):
        self._coupling = coupling
        super().__init__(model, parameters)

    def SaveCheckpoint(self, path):
        raise tessera.Error(f"{path}: a coupled run's checkpoint holds both sides; write it with "
                            "DemStructuresCouplingAnalysis.SaveCheckpoint")

    def _ResizedCheckpoint(self, path, written, rank, ranks):
        # The coupled stage merges both sides' files (resized_checkpoint.py).
        return self._coupling._ResizedCheckpoint(path, written, rank, ranks)

    def RestartFrom(self, path):
        raise tessera.Error(f"{path}: a coupled run continues with "
                            "DemStructuresCouplingAnalysis.RestartFrom")


def _StructuralStageClass():
    from tessera.structural.structural_mechanics_analysis import StructuralMechanicsAnalysis

    class CoupledStructuralStage(_CoupledSide, StructuralMechanicsAnalysis):
        """The structure's stage with the coupling's hook before its solver's
        Initialize (the mesh and materials are read by then)."""

        def ModifyInitialGeometry(self):
            super().ModifyInitialGeometry()
            self._coupling._BeforeStructuralSolverInitialize()

    return CoupledStructuralStage


def _DEMStageClass():
    from tessera.dem import DEMAnalysisStage

    class CoupledDEMStage(_CoupledSide, DEMAnalysisStage):
        """The DEM's stage; the structure's skin joins the walls after the DEM
        files are read, before the materials are assigned."""

        def ReadModelParts(self, max_node_id=0, max_elem_id=0, max_cond_id=0):
            super().ReadModelParts(max_node_id, max_elem_id, max_cond_id)
            self._coupling._CreateSkinWalls()

        def _CheckModelPartFilesExist(self):
            # A coupled folder may hold its spheres in an inlet whose option
            # is on by default, or have none yet: the walls come from the
            # structure, so an empty particle set is a valid start.
            try:
                super()._CheckModelPartFilesExist()
            except tessera.Error:
                if not self._coupling.allow_empty_dem:
                    raise

        def ReadMaterialsFile(self, roots=None):
            super().ReadMaterialsFile(roots)
            if roots is None:
                self._coupling._AssignSkinMaterials()

    return CoupledDEMStage


class DemStructuresCouplingAnalysis:
    """The coupled stage: Run() = Initialize(); RunSolutionLoop(); Finalize()."""

    def __init__(self, model, structural_parameters, dem_parameters, coupling_parameters=None):
        import tessera.dem  # noqa: F401  (registers the applications)
        import tessera.structural  # noqa: F401

        if not isinstance(model, tessera.Model):
            raise TypeError(f"DemStructuresCouplingAnalysis needs a tessera.Model, got {type(model).__name__}")
        self.model = model
        self.options = CouplingOptions(coupling_parameters)
        self.echo_level = self.options["echo_level"]
        # Scripts that build the spheres themselves (or none) set this before Initialize.
        self.allow_empty_dem = False
        self.structural_stage = _StructuralStageClass()(model, structural_parameters, self)
        if self.structural_stage._Ranks()[0] != 0:
            self.echo_level = 0  # a distributed run's messages come from rank 0 only
        AlignParallelType(structural_parameters, dem_parameters)  # "MPI" for both, or for neither
        self.dem_stage = _DEMStageClass()(model, dem_parameters, self)
        strategy = self.dem_stage.DEM_parameters["solver_settings"]["strategy"].GetString()
        # Moreau-Jean on the DEM side: the skin's FE nodes join its contact
        # problem (module text, _SolveNonsmoothStep).
        self.nonsmooth = strategy == "moreau_jean_strategy"
        solver = self.structural_stage._GetSolver()
        self.structure = solver.main_model_part
        for variable in (tessera.DEM_NODAL_FORCE, tessera.DEM_SURFACE_LOAD):
            self.structure.AddNodalSolutionStepVariable(variable)
        self.dimension = structural_parameters["solver_settings"]["domain_size"].GetInt()
        dem_dimension = self.dem_stage.DEM_parameters["Dimension"].GetInt()
        if dem_dimension != self.dimension:
            raise tessera.Error(f"{structural_parameters.Origin()}: solver_settings.domain_size is "
                                f"{self.dimension}, but the DEM's Dimension is {dem_dimension} "
                                f"({self.dem_stage.DEM_parameters.Origin()}); the coupled domains must agree")
        self.scheme = self._ChooseScheme()
        if self.nonsmooth and self.scheme != "explicit":
            raise tessera.Error(
                f"{dem_parameters.Origin()}: solver_settings.strategy \"moreau_jean_strategy\" couples "
                "with an explicit structure on the common step (time_integration \"explicit\"), whose "
                f"nodes enter the contact problem; the coupling's time_integration is \"{self.scheme}\"")
        self.substeps = 1
        # ADM on the skin's faces only (set once the skin walls exist): the
        # deck's own walls keep WallForceTransfer (direct by default). Under
        # Moreau-Jean the impulses reach the nodes through the shape
        # functions of the Delassus operator (transfer_method is not used).
        self.adm = self.options["transfer_method"] == "area_distributed" and not self.nonsmooth
        self.energy = None
        # Moreau-Jean: the contacts store no energy and what the impulses take
        # is measured here (_SolveNonsmoothStep, coupled_energy.py).
        if self.options["energy_output"] and self.scheme != "implicit_with_dem_substeps" \
                and not self.nonsmooth:
            # The balance needs the DEM's dissipated energies.
            self.dem_stage.DEM_parameters["EnergyCalculationOption"].SetBool(True)
        self.time = self.structural_stage.time
        self.end_time = self.structural_stage.end_time
        self.skin = None
        self.delta_time = None
        self.fe_critical_time_step = None
        self._progress_reporter = None
        self.step = 0
        self._restart_file = None
        self._checkpoint_schedule = None
        self._overlap = None  # StepOverlap of the explicit step (_InitializeExplicit)
        self.ResetTimings()
        # "parallel_type": "MPI": the distributed skin, walls and loads (distributed_coupling.py).
        self.distributed = DistributedCoupling(self) if self.structural_stage.communicator.IsDistributed() \
            else None

    # ---- set-up
    def _ChooseScheme(self):
        """"explicit" or "implicit_with_dem_substeps", from the structural
        solver and the option time_integration."""
        settings = self.structural_stage._GetSolver().settings
        solver_type = settings["solver_type"].GetString()
        method = settings["time_integration_method"].GetString()
        explicit = solver_type.lower() == "dynamic" and method == "explicit"
        implicit = solver_type.lower() == "dynamic" and method == "implicit"
        wanted = self.options["time_integration"]
        if wanted == "auto":
            wanted = "explicit" if explicit else "implicit_with_dem_substeps"
        if wanted in ("explicit", "explicit_dem_first") and not explicit:
            raise tessera.Error(
                f"{settings.Origin()}: time_integration \"explicit\" needs an explicit structure "
                "(solver_type \"Dynamic\", time_integration_method \"explicit\"), found solver_type "
                f"\"{solver_type}\" with time_integration_method \"{method}\"")
        if wanted == "implicit_with_dem_substeps" and not implicit:
            raise tessera.Error(
                f"{settings.Origin()}: the coupled stage runs a dynamic structure, explicit (one common "
                "time step) or implicit (\"time_integration_method\": \"implicit\", with DEM sub-steps); "
                f"found solver_type \"{solver_type}\" with time_integration_method \"{method}\"")
        return wanted

    def _BeforeStructuralSolverInitialize(self):
        """Explicit: the common time step, set on the structure before its
        solver checks it."""
        if self.scheme == "implicit_with_dem_substeps":
            return
        from tessera import _structural
        solver = self.structural_stage._GetSolver()
        self.fe_critical_time_step = _structural.EstimateCriticalTimeStep(solver.GetComputingModelPart())
        if self.distributed is not None:
            self.fe_critical_time_step = self.distributed.CriticalTimeStep(self.fe_critical_time_step)
        fraction = self.options["fe_time_step_fraction"]
        self.fe_time_step_limit = fraction * self.fe_critical_time_step
        dem_time_step = self.dem_stage.DEM_parameters["MaxTimeStep"].GetDouble()
        self.delta_time = min(dem_time_step, self.fe_time_step_limit)
        settings = solver.settings
        # The coupling chooses the step; the structure's own prediction would override it.
        settings["time_step_prediction_level"].SetInt(0)
        self._SetStructuralTimeStep(self.delta_time)
        self.dem_stage._GetSolver().dt = self.delta_time

    def _SetStructuralTimeStep(self, dt):
        stepping = self.structural_stage._GetSolver().settings["time_stepping"]
        if stepping.Has("time_step"):
            stepping["time_step"].SetDouble(dt)
        else:
            stepping.AddDouble("time_step", dt)

    def _CreateSkinWalls(self):
        walls = self.model.GetModelPart("RigidFacePart")
        if self.distributed is not None:
            dem_roots = [self.model.GetModelPart(name)
                         for name in ("SpheresPart", "RigidFacePart", "ClusterPart", "DEMInletPart")]
            self.skin = self.distributed.CreateSkinWalls(walls, dem_roots)
            if not self.nonsmooth:  # (Moreau-Jean: every rank holds and searches every wall)
                # Each rank's wall search sees the skin faces near its DEM box only.
                self.dem_stage.walls_searched_near_domain.append(self.skin.walls.FullName())
        elif self.options["wall_model_parts"]:
            self.skin = SkinWalls.FromDemWalls(self.structure, walls, self.options["wall_model_parts"],
                                               self.dimension)
        else:
            faces = FindSkinFaces(self.structure, self.options["skin_model_parts"], self.dimension)
            dem_roots = [self.model.GetModelPart(name)
                         for name in ("SpheresPart", "RigidFacePart", "ClusterPart", "DEMInletPart")]
            self.skin = SkinWalls(self.structure, walls, faces, self.dimension, dem_roots,
                                  self.options["split_quadrilaterals"])
            if self.scheme != "implicit_with_dem_substeps":
                # The contacts' dashpots see the skin nodes' inertia (the
                # structure is initialised: its lumped masses are known).
                self.skin.SetWallMasses(self.NodalMasses())
        if self.adm:
            self.dem_stage.area_distributed_walls.append(self.skin.walls.FullName())
            self.dem_stage.adm_energy_gradient = self.options["adm_force"] == "energy_gradient"

    def _AssignSkinMaterials(self):
        """The skin's DEM material (skin_walls.SkinWalls.AssignMaterials): the
        particle materials are those of the spheres', clusters' and inlets'
        roots (their elements and their properties lists)."""
        if self.options["wall_model_parts"]:
            if self.echo_level > 0:
                print(f"coupling: {self.skin.material_choice}")
            return
        particle = {}
        used = set()
        for name in ("SpheresPart", "DEMInletPart", "ClusterPart", "RigidFacePart"):
            root = self.model.GetModelPart(name)
            found = list(root.Properties)
            found += [e.GetProperties() for e in root.Elements] + [c.GetProperties() for c in root.Conditions]
            for properties in found:
                if properties is None or properties.Id == self.skin.pending_properties.Id:
                    continue
                used.add(properties.Id)
                if name != "RigidFacePart":
                    particle[properties.Id] = properties
        choice = self.skin.AssignMaterials([particle[k] for k in sorted(particle)], used)
        if self.echo_level > 0:
            print(f"coupling: {choice}")

    def Initialize(self):
        self.structural_stage.Initialize()
        try:
            self.dem_stage.Initialize()
        except tessera.Error as error:
            if self.scheme != "implicit_with_dem_substeps" and "time step" in str(error):
                raise tessera.Error(
                    f"{error}; the structure's limit is {self.options['fe_time_step_fraction']:g} x "
                    f"min l_e/c_e = {self.fe_time_step_limit:.6g} s (fe_time_step_fraction x its critical "
                    f"step {self.fe_critical_time_step:.6g} s), and the coupled step is the smaller "
                    "of the two") from None
            raise
        if self.scheme == "implicit_with_dem_substeps":
            self._InitializeSubsteps()
        else:
            self._InitializeExplicit()
        if self.nonsmooth:
            self._InitializeNonsmooth()
        # A distributed run continuing a checkpoint of another rank count
        # decomposes the DEM when it loads it (resized_checkpoint.py): the
        # skin's placement, and the first loads and energy sample (which the
        # checkpoint replaces), wait for that.
        resized = self.distributed is not None and self.structural_stage._resized_from is not None
        if self.distributed is not None and not resized:
            self.distributed.StartSkinPlacement()
        if not resized:
            # The first forces of the DEM (its Initialize) load the structure's first step.
            self.skin.TransferLoadsToStructure()
        self.dem_stage.time = self.time
        if self.options["energy_output"] and self.scheme != "implicit_with_dem_substeps":
            name = self.structural_stage.project_parameters["problem_data"]["problem_name"].GetString() \
                or "coupled"
            path = os.path.join(self.dem_stage.output_directory or ".", f"{name}_coupled_energy.dat")
            self.energy = CoupledEnergyMonitor(self, path, self.options["energy_samples"])
            self.energy.Start(self.end_time, self.delta_time, self.time, sample=not resized)
        if self._restart_file is not None:
            self.LoadCheckpoint(self._restart_file)

    def _InitializeExplicit(self):
        dem_dt = self.dem_stage._GetSolver().dt
        if dem_dt != self.delta_time:  # AutomaticTimestep chose a smaller one
            self.delta_time = dem_dt
            self._SetStructuralTimeStep(dem_dt)
        if self.scheme in ("explicit", "explicit_dem_first") and not self.nonsmooth:
            strategy = self.structural_stage._GetSolver().GetSolutionStrategy()
            self._overlap = StepOverlap.Create(strategy, self.skin.fe_skin,
                                               self.options["overlap_structure_and_dem"])
        if self.echo_level > 0:
            order = " (DEM step, then structure step)" if self.scheme == "explicit_dem_first" else ""
            print(f"coupling: explicit{order}, common time step {self.delta_time:.6g} s (structure's limit "
                  f"{self.fe_time_step_limit:.6g} s = {self.options['fe_time_step_fraction']:g} x "
                  f"{self.fe_critical_time_step:.6g} s; DEM MaxTimeStep "
                  f"{self.dem_stage.DEM_parameters['MaxTimeStep'].GetDouble():.6g} s); "
                  f"{len(self.skin.skin_ids)} skin nodes, {self.skin.walls.NumberOfConditions()} skin faces")

    def _InitializeNonsmooth(self):
        """Moreau-Jean DEM: the skin's mirror nodes become the deformable
        nodes of its contact problem, with the lumped masses of their FE
        nodes (effective 1 / (m (1 + alpha dt / 2)) under Rayleigh mass
        damping alpha, the kick's own factor) and the fixity of their
        DISPLACEMENT components as they are now (a fixed component has no
        inverse mass)."""
        strategy = self.dem_stage._GetSolver().strategy
        strategy.SetDeformableNodes([int(k) for k in self.skin.wall_positions])
        # Every skin node, on every rank of a distributed run (the ranks'
        # shares of its mass added in rank order).
        masses, fixed = self.skin.NodalMassesAndFixity(self.NodalMasses())
        alpha = getattr(self.structural_stage._GetSolver(), "mass_damping", 0.0)
        if np.any(masses[np.any(~fixed, axis=1)] <= 0.0):
            raise tessera.Error(f"coupling: a free skin node of {self.structure.Name} has no lumped mass; "
                                "moreau_jean_strategy needs the structure's nodal masses")
        inv = np.zeros((len(masses), 3))
        with np.errstate(divide="ignore"):
            inv[:] = (1.0 / (masses * (1.0 + 0.5 * alpha * self.delta_time)))[:, None]
        inv[fixed] = 0.0
        if self.dimension == 2:
            inv[:, 2] = 0.0
        self._skin_fixed = fixed
        self._skin_inv_mass = inv
        if self.echo_level > 0:
            print(f"coupling: moreau_jean_strategy with {len(masses)} skin nodes in its contact problem "
                  "(impulses through the faces' shape functions)")

    def _InitializeSubsteps(self):
        """Implicit structure: the DEM runs whole sub-steps per structural
        step; its step is shortened, where needed, to divide the structure's."""
        fe_dt = self.structural_stage._GetSolver().ComputeDeltaTime()
        dem_solver = self.dem_stage._GetSolver()
        dem_dt = dem_solver.dt
        if not dem_dt <= fe_dt * (1.0 + 1e-12):
            raise tessera.Error(f"{self.dem_stage.DEM_parameters.Origin()}: the DEM's time step "
                                f"{dem_dt:.6g} s is longer than the structure's {fe_dt:.6g} s; with an "
                                "implicit structure the DEM takes several steps per structural step")
        self.substeps = max(1, math.ceil(fe_dt / dem_dt * (1.0 - 1e-9)))
        dem_dt_used = fe_dt / self.substeps
        if dem_dt_used != dem_dt:
            dem_solver.dt = dem_dt_used
            dem_solver.strategy.SetDeltaTime(dem_dt_used)
        self.delta_time = fe_dt
        if self.echo_level > 0:
            note = "" if dem_dt_used == dem_dt else f" (MaxTimeStep {dem_dt:.6g} s shortened to divide it)"
            print(f"coupling: implicit structure, time step {fe_dt:.6g} s, {self.substeps} DEM sub-steps of "
                  f"{dem_dt_used:.6g} s{note}; {len(self.skin.skin_ids)} skin nodes, "
                  f"{self.skin.walls.NumberOfConditions()} skin faces")

    # ---- the loop
    def Run(self):
        self.Initialize()
        self.RunSolutionLoop()
        self.Finalize()

    def KeepAdvancingSolutionLoop(self):
        return self.time < self.end_time

    def RunSolutionLoop(self):
        reporter = self._progress_reporter
        if reporter is not None:
            reporter.Start(self.time, self.end_time, "DE-FE")
        self._StartCheckpointSchedule()
        try:
            while self.KeepAdvancingSolutionLoop():
                self.AdvanceInTime()
                self.InitializeSolutionStep()
                self.SolveSolutionStep()
                self.FinalizeSolutionStep()
                self.OutputSolutionStep()
                if reporter is not None:
                    reporter.Report(self.step, self.time, self.end_time)
                self._AfterStepCheckpoint()
        except BaseException:
            self._StopCheckpointSchedule()
            if reporter is not None:
                reporter.Finish(success=False)
            raise
        self._StopCheckpointSchedule()
        if reporter is not None:
            reporter.Finish(success=True)

    # ---- checkpoints (coupled_checkpoint.py): written periodically and on
    # SIGTERM/SIGINT as the structural deck's restart_options say
    def SaveCheckpoint(self, path):
        """Both sides' and the coupling's state, between steps; under MPI each
        rank its own in its own file (tessera.checkpoint.RankFile), as the
        structure's stage names it. Returns the path written."""
        return SaveCoupledCheckpoint(self, self.structural_stage._CheckpointFileToWrite(path))

    def RestartFrom(self, path):
        """Continue the run saved in `path` (under MPI: the step's file name or
        any rank's; each rank loads its own): call before Initialize(), which
        then ends by loading it."""
        self._restart_file = os.path.abspath(self.structural_stage._CheckpointFileToLoad(path))

    def _ResizedCheckpoint(self, path, written, rank, ranks):
        """A distributed checkpoint continued on another number of ranks
        (resized_checkpoint.py; RestartFrom, before Initialize): the merged
        serial file this rank loads."""
        from . import resized_checkpoint
        merged = resized_checkpoint.ResizedCheckpointForRank(path, written, rank, ranks)
        # The DEM's Initialize then keeps every sphere for the load, which
        # decomposes them (DEMSolver.LoadCheckpoint).
        self.dem_stage._resized_from = written
        return merged

    def LoadCheckpoint(self, path):
        if self.structural_stage._resized_from is not None:
            from . import resized_checkpoint
            resized_checkpoint.LoadPiece(self, path, lambda piece: LoadCoupledCheckpoint(self, piece))
            if self.distributed is not None:
                self.distributed.StartSkinPlacement()  # after the DEM's decomposition (Initialize)
        else:
            LoadCoupledCheckpoint(self, path)
        if self.distributed is not None:
            self.skin.AfterCheckpointLoad()
        if self.echo_level > 0:
            print(f"coupling: continued from {path} at time {self.time:g}")

    def GetCheckpointFiles(self):
        return list(self._checkpoint_schedule.written) if self._checkpoint_schedule else []

    def _StartCheckpointSchedule(self):
        options = self.structural_stage._restart_options
        if not options.save:
            return
        if self._checkpoint_schedule is None:
            start = self.structural_stage.project_parameters["problem_data"]["start_time"].GetDouble()
            self._checkpoint_schedule = CheckpointSchedule(options, start, self.time,
                                                           *self.structural_stage._Ranks())
        self._checkpoint_schedule.InstallSignalHandlers()

    def _StopCheckpointSchedule(self):
        if self._checkpoint_schedule is not None:
            self._checkpoint_schedule.RemoveSignalHandlers()

    def _AfterStepCheckpoint(self):
        schedule = self._checkpoint_schedule
        if schedule is None:
            return
        if schedule.IsDue(self.step, self.time):
            schedule.Remember(self.SaveCheckpoint(schedule.FileFor(self.step)))
            schedule.Advance(self.time)
        schedule.AgreeOnSignal(self.structural_stage.communicator)
        if schedule.pending_signal is not None:
            path = schedule.FileFor(self.step)
            if path not in schedule.written:
                schedule.Remember(self.SaveCheckpoint(path))
            print(f"coupling: signal {schedule.pending_signal} received; checkpoint {path} written at "
                  f"time {self.time:.9g}, stopping", flush=True)
            raise SignalStop(schedule.pending_signal, path)

    def AdvanceInTime(self):
        structure, dem = self.structural_stage, self.dem_stage
        structure.time = structure._GetSolver().AdvanceInTime(structure.time)
        if self.scheme != "implicit_with_dem_substeps":
            dem.time = dem._AdvanceTime()
            if not math.isclose(structure.time, dem.time, rel_tol=1e-12, abs_tol=1e-15):
                raise tessera.Error(f"coupling: the structure is at time {structure.time!r} and the DEM "
                                    f"at {dem.time!r}; they must advance together")
        self.time = structure.time
        self.step += 1

    def InitializeSolutionStep(self):
        self.structural_stage.InitializeSolutionStep()
        if self.scheme != "implicit_with_dem_substeps":
            self.dem_stage.InitializeSolutionStep()

    def SolveSolutionStep(self):
        if self.nonsmooth:
            return self._SolveNonsmoothStep()
        if self.scheme == "explicit":
            return self._SolveExplicitStep()
        if self.scheme == "explicit_dem_first":
            return self._SolveDemFirstStep()
        return self._SolveStepWithSubsteps()

    def _SolveExplicitStep(self):
        """Structure drift, walls moved, DEM step, loads, structure kick (the
        module text); with the overlap, the structure's internal forces are
        assembled meanwhile (step_overlap.py) and its timing counts only
        what the DEM's half did not hide (the wait for it)."""
        clock, timings = time.perf_counter, self.timings
        overlap = self._overlap if self._overlap is not None and self._overlap.BeginStep() else None
        structural_solver = self.structural_stage._GetSolver()
        strategy = structural_solver.GetSolutionStrategy()
        t0 = clock()
        structural_solver.Predict()
        strategy.Drift()
        t1 = clock()
        self.skin.MoveWallsWithStructure()
        t2 = clock()
        t3, t4 = self._DemStepAndLoads(overlap)
        strategy.Kick()
        t5 = clock()
        timings["structure"] += (t1 - t0) + (t5 - t4)
        timings["skin"] += (t2 - t1) + (t4 - t3)
        timings["dem"] += t3 - t2
        return True

    def _DemStepAndLoads(self, overlap, drift=False):
        """The DEM step and its contact loads to the FE nodes; with `overlap`
        the structure's half of Kick (after its Drift with `drift`) runs on
        the overlap's worker meanwhile and is waited for. Returns the clock
        after the DEM step and after the loads."""
        clock, dem_solver = time.perf_counter, self.dem_stage._GetSolver()
        start = clock()
        if overlap is not None:
            overlap.Start(drift)
        try:
            dem_solver.Predict()
            dem_solver.SolveSolutionStep()
            stepped = clock()
            self.skin.TransferLoadsToStructure()
            loaded = clock()
        except BaseException:
            if overlap is not None:
                overlap.Abandon()
            raise
        if overlap is not None:
            overlap.Finish(loaded - start)
        return stepped, loaded

    def _SolveNonsmoothStep(self):
        """Explicit structure and Moreau-Jean DEM on the common step h.
        Central differences: v_n+1/2 = v_n + h/2 a_n, u_n+1 = u_n + h v_n+1/2,
        a_n+1 = (r(u_n+1) + F) / m (F the contact force), v_n+1 = v_n+1/2 +
        h/2 a_n+1; the next drift moves the node with v_n+3/2 = v_n+1/2 +
        h a_n+1. A contact impulse P over the step entering as F = P/h thus
        changes v_n+3/2 by P/m, the velocity of the node over the next step:
        that is the node's velocity in the contact law (U+), its free value
        v_n+1/2 + h r(u_n+1)/m, and its block N_a^2/m in the Delassus
        operator (m(1 + alpha h/2) with mass damping alpha). So: drift; kick
        without contact loads (a_free, v_n+1 free); the walls at u_n+1 moving
        with v_n+3/2,free = v_n+1 + h/2 a_free; the DEM step solves for the
        impulses with the nodes in W; each node's impulse P_a then enters as
        F_a = P_a/h: a_n+1 += P_a/(h m), v_n+1 += P_a/(2 m) (the full-step
        velocity, the mean of v_n+1/2 and v_n+3/2, shows half of it until the
        next step), DEM_NODAL_FORCE = P_a/h, and on fixed components
        REACTION -= P_a/h, DEM_SURFACE_LOAD = P_a/h over the node's share of the
        skin area (SkinWalls.SetLoadsFromNodalForces). The spheres' impulses and the nodes' sum to zero,
        so sum m v over spheres (v+) and nodes (v_n+3/2) is conserved to
        round-off."""
        clock, timings = time.perf_counter, self.timings
        h = self.delta_time
        structural_solver = self.structural_stage._GetSolver()
        strategy = structural_solver.GetSolutionStrategy()
        fe = self.structure.GetRootModelPart()
        f, fixed, inv = self.skin.fe_positions, self._skin_fixed, self._skin_inv_mass
        # The rows of every skin node (every rank of a distributed run holds
        # the whole DEM and skin) and those of this rank's FE nodes.
        rows = self.skin.local_rows
        t0 = clock()
        structural_solver.Predict()
        strategy.Drift()
        fe.NodalArray(tessera.DEM_NODAL_FORCE)[f] = 0.0
        strategy.Kick()
        t1 = clock()
        v, a = self.skin.MoveWallsForNonsmoothStep()
        free = np.where(fixed, v, v + 0.5 * h * a)
        start = np.where(fixed, v, v - 0.5 * h * a)
        self.skin.walls_root.NodalArray(tessera.VELOCITY)[self.skin.wall_positions] = free
        dem_solver = self.dem_stage._GetSolver()
        dem_solver.strategy.SetDeformableNodeState(inv, free, start)
        if self.energy is not None:
            free_energy = self.energy.SpheresFreeKineticEnergy(h)
        t2 = clock()
        dem_solver.Predict()
        dem_solver.SolveSolutionStep()
        t3 = clock()
        impulse = dem_solver.strategy.DeformableNodeImpulses()
        dv = inv * impulse
        if self.energy is not None:
            self.energy.AddImpactLoss(free_energy, free, impulse, dv, inv > 0.0)
        fe.NodalArray(tessera.ACCELERATION)[f] = (a + dv / h)[rows]
        fe.NodalArray(tessera.VELOCITY)[f] = (v + 0.5 * dv)[rows]
        force = impulse / h
        self.skin.SetLoadsFromNodalForces(force)
        if np.any(fixed) and fe.HasNodalSolutionStepVariable(tessera.REACTION):
            reaction = fe.NodalArray(tessera.REACTION)
            reaction[f] = reaction[f] - np.where(fixed, force, 0.0)[rows]
        t4 = clock()
        timings["structure"] += t1 - t0
        timings["skin"] += (t2 - t1) + (t4 - t3)
        timings["dem"] += t3 - t2
        return True

    def _SolveDemFirstStep(self):
        """Kratos' CoSimulation sequence (weak Gauss-Seidel, DEM first): the
        DEM step with the walls where the structure's last step left them,
        its contact forces to the structure, the structure's whole step, and
        the walls moved to its new state for the next DEM step."""
        clock, timings = time.perf_counter, self.timings
        overlap = self._overlap if self._overlap is not None and self._overlap.BeginStep() else None
        structural_solver = self.structural_stage._GetSolver()
        strategy = structural_solver.GetSolutionStrategy()
        t0 = clock()
        structural_solver.Predict()
        t1, t2 = self._DemStepAndLoads(overlap, drift=True)
        if overlap is None:
            strategy.Drift()
        strategy.Kick()
        t3 = clock()
        self.skin.MoveWallsWithStructure()
        t4 = clock()
        timings["dem"] += t1 - t0
        timings["structure"] += t3 - t2
        timings["skin"] += (t2 - t1) + (t4 - t3)
        return True

    def _SolveStepWithSubsteps(self):
        """Implicit structure (Kratos' DEM-structures scheme): the structure
        solves its step with the DEM loads averaged over the previous one;
        then the DEM runs its sub-steps to the structure's time, the walls
        moved linearly in time from u_n to u_n+1 (their velocity the mean
        one), and the contact forces averaged over the sub-steps load the
        structure's next step."""
        clock, timings = time.perf_counter, self.timings
        structural_solver = self.structural_stage._GetSolver()
        t0 = clock()
        structural_solver.Predict()
        converged = structural_solver.SolveSolutionStep()
        t1 = clock()
        dem = self.dem_stage
        dem_solver = dem._GetSolver()
        self.skin.StartAveraging()
        skin_time = dem_time = 0.0
        for k in range(1, self.substeps + 1):
            a = clock()
            self.skin.MoveWallsBetweenSteps(k / self.substeps, self.delta_time)
            b = clock()
            dem.time = dem._AdvanceTime()
            dem.InitializeSolutionStep()
            dem_solver.Predict()
            dem_solver.SolveSolutionStep()
            dem.FinalizeSolutionStep()
            dem.OutputSolutionStep()
            c = clock()
            self.skin.AccumulateLoads(1.0 / self.substeps)
            skin_time += (b - a) + (clock() - c)
            dem_time += c - b
        a = clock()
        self.skin.FinishAveraging()
        timings["structure"] += t1 - t0
        timings["dem"] += dem_time
        timings["skin"] += skin_time + (clock() - a)
        return converged

    def FinalizeSolutionStep(self):
        self.structural_stage.FinalizeSolutionStep()
        if self.scheme != "implicit_with_dem_substeps":
            self.dem_stage.FinalizeSolutionStep()
        if self.energy is not None:
            self.energy.AfterStep(self.step, self.delta_time)

    def OutputSolutionStep(self):
        self.structural_stage.OutputSolutionStep()
        if self.scheme != "implicit_with_dem_substeps":
            self.dem_stage.OutputSolutionStep()

    def Finalize(self):
        if self._overlap is not None:
            self._overlap.Close()
        self.structural_stage.Finalize()
        self.dem_stage.Finalize()
        if self.distributed is None or self.distributed.rank == 0:
            self._WriteCoupledCollection()
        if self.energy is not None:
            png = self.energy.Finish()  # rank 0 writes (coupled_energy.py)
            if self.echo_level > 0 and self.energy.writes_file:
                print(f"coupling: energy balance in {self.energy.path}"
                      + (f" and {png}" if png else "") + f"; E_T drift {100 * self.energy.Drift():.3g} % "
                      "of the largest term")

    def ResetTimings(self):
        """Wall-clock seconds of the solve phases since Initialize or the last
        reset: "structure" (explicit: drift and kick; implicit: its solve),
        "dem" (the DEM step or sub-steps), "skin" (the walls moved and the
        loads transferred)."""
        self.timings = {"structure": 0.0, "dem": 0.0, "skin": 0.0}

    def _OutputFolders(self):
        """Where the two stages' VTK output went: the structure's
        vtk_output_process folders and the DEM's post files."""
        folders = []
        parameters = self.structural_stage.project_parameters
        if parameters.Has("output_processes"):
            for list_name in parameters["output_processes"].keys():
                entries = parameters["output_processes"][list_name]
                for i in range(entries.size() if entries.IsArray() else 0):
                    entry = entries[i]
                    if not (entry.Has("python_module") and
                            entry["python_module"].GetString().endswith("vtk_output_process")):
                        continue
                    settings = entry["Parameters"] if entry.Has("Parameters") else None
                    path = settings["output_path"].GetString() \
                        if settings is not None and settings.Has("output_path") else "VTK_Output"
                    folders.append(path)
        dem = self.dem_stage
        if dem.DEM_parameters["post_vtk_option"].GetBool():
            folders.append(dem.OutputPath(f"{dem.problem_name}_Post_Files"))
        return folders

    def _WriteCoupledCollection(self):
        """<name>_coupled.pvd: every VTK data set of both domains, one part
        per source collection (coupled_collection.py)."""
        collections = CollectionFiles(self._OutputFolders())
        if self.distributed is not None:
            collections = MergedCollections(collections, self.distributed.communicator.Size())
        if not collections:
            return
        name = self.structural_stage.project_parameters["problem_data"]["problem_name"].GetString() \
            or "coupled"
        path = os.path.join(self.dem_stage.output_directory or ".", f"{name}_coupled.pvd")
        count = WriteCoupledCollection(path, collections)
        if count and self.echo_level > 0:
            parts = ", ".join(os.path.basename(c)[:-4] for c in collections)
            print(f"coupling: {path} collects {count} data sets of {parts} for ParaView")

    # ---- what scripts and the command line use
    def SetProgressReporter(self, reporter):
        self._progress_reporter = reporter

    def SetOutputDirectory(self, directory):
        self.dem_stage.SetOutputDirectory(directory)

    def GetStructuralStage(self):
        return self.structural_stage

    def GetDEMStage(self):
        return self.dem_stage

    def StructuralMomentum(self):
        """Σ m v over the structure's nodes with its lumped mass (after Initialize)."""
        return self.NodalMasses()[:, None] * self.structure.NodalArray(tessera.VELOCITY)

    def NodalMasses(self):
        """The structure's lumped mass per node (the free x dofs' mass; a node
        whose x dof is fixed shows its mass from the elements too)."""
        if not hasattr(self, "_nodal_masses"):
            self._nodal_masses = _LumpedNodalMasses(self.structure)
        return self._nodal_masses


def _LumpedNodalMasses(model_part):
    """Row-sum lumped mass per node of the root's arrays, from the elements'
    CalculateLumpedMassVector (first component of each node)."""
    root = model_part.GetRootModelPart()
    ids = np.asarray(root.NodeIds(), dtype=np.int64)
    position = {int(i): k for k, i in enumerate(ids)}
    masses = np.zeros(len(ids))
    info = root.ProcessInfo
    for element in model_part.Elements:
        lumped = np.asarray(element.CalculateLumpedMassVector(info))
        nodes = [n.Id for n in element.GetGeometry()]
        if lumped.size == 0:
            continue
        per_node = lumped.size // len(nodes)
        for a, node_id in enumerate(nodes):
            masses[position[node_id]] += lumped[a * per_node]
    return masses
