"""DEMAnalysisStage: runs a Kratos DEM project (ProjectParametersDEM.json, the
four mdpa files, MaterialsDEM.json) with Kratos' time loop and names.

    model = tessera.Model()
    stage = tessera.dem.DEMAnalysisStage(model, parameters)
    stage.Run()
    model.GetModelPart("SpheresPart")   # results on the particle nodes

Set-up, as Kratos' DEM stage does it:
- the flat parameters are validated against Kratos' keys and defaults
  (dem_parameters.py);
- Cluster3D elements of ClusterPart are rigid clusters of spheres
  (particles/rigid_clusters.h): their spheres, built from the .clu file the
  material's CLUSTER_FILE_NAME names (relative to the working directory), are
  added to SpheresPart at Initialize; the cluster nodes hold VELOCITY,
  ANGULAR_VELOCITY, DISPLACEMENT and ORIENTATION after every step;
- <problem_name>DEM.mdpa, DEM_FEM_boundary.mdpa, DEM_Clusters.mdpa and
  DEM_Inlet.mdpa are read into SpheresPart, RigidFacePart, ClusterPart and
  DEMInletPart, each with Kratos' consecutive renumbering from the ids already
  used (docs/file_formats.md §1.9: each file's offset is the largest id read
  so far plus one); a missing file is skipped, but a deck with none of
  DEM.mdpa, DEM_Clusters.mdpa and (with "dem_inlet_option") DEM_Inlet.mdpa
  is an error naming them;
- the materials file is applied (materials.py); decks without one keep their
  mdpa Properties (legacy format);
- the strategy (tessera._dem.ExplicitSolverStrategy) runs the steps; the
  particle and wall nodes hold the results after every step, so processes,
  output and scripts overriding FinalizeSolutionStep read them from the model;
- with "dem_inlet_option" the sub model parts of DEMInletPart are particle
  inlets (tessera._dem.ParticleInlets, applications/dem/inlets/): after each
  step they add spheres to SpheresPart (inlet_settings.py reads the radius
  tables of "dem_inlets_settings").
Processes come from the "processes" lists through the kernel's process factory
(Kratos' DEM ones, "processes.<name>" of KratosMultiphysics.DEMApplication, are
tessera.dem.processes); FREE_BODY_MOTION wall parts move as free rigid bodies
(walls/free_rigid_wall.h) unless apply_kinematic_constraints_to_walls_process
moves them. VTK output is added when "post_vtk_option" is true, GiD post files
(<problem_name>_Post_Files/<problem_name>_DEM.post.* for the spheres,
<problem_name>_DEM_FEM_boundary.post.* for the walls) when "post_gid_option"
is true, HDF5 files with an XDMF descriptor (<problem_name>_DEM.h5/.xdmf,
<problem_name>_DEM_FEM_boundary.h5/.xdmf) when "post_hdf5_option" is true.
"""
import json
import math
import os
import warnings

import tessera
from tessera import _dem
from tessera import progress
from tessera.analysis_stage import AnalysisStage
from tessera.python_solver import PythonSolver

from . import dem_parameters
from . import distributed_run
from .inlet_settings import RadiusTables
from .materials import AssignMaterials
from .particle_creator_destructor import ParticleCreatorDestructor

# Root model part -> mdpa suffix (<problem_name><suffix>.mdpa, Kratos' DEM
# stage's names), in reading order.
MODEL_PART_FILES = (("SpheresPart", "DEM"), ("RigidFacePart", "DEM_FEM_boundary"),
                    ("ClusterPart", "DEM_Clusters"), ("DEMInletPart", "DEM_Inlet"))

# Historical variables each root declares before reading (what the mdpa NodalData
# blocks of DEM decks write and what the strategy writes back). The spheres'
# ELASTIC_FORCES only where asked for (DEMSolver.AddVariables): the strategy
# sums them only where they are declared.
HISTORICAL = {
    "SpheresPart": ("RADIUS", "VELOCITY", "ANGULAR_VELOCITY", "DISPLACEMENT", "DELTA_DISPLACEMENT",
                    "TOTAL_FORCES", "CONTACT_FORCES", "PARTICLE_MOMENT",
                    "PARTICLE_ROTATION_ANGLE", "EXTERNAL_APPLIED_FORCE", "EXTERNAL_APPLIED_MOMENT",
                    "COHESIVE_GROUP"),
    "RigidFacePart": ("VELOCITY", "ANGULAR_VELOCITY", "DISPLACEMENT", "DELTA_DISPLACEMENT",
                      "CONTACT_FORCES", "ELASTIC_FORCES", "TANGENTIAL_ELASTIC_FORCES",
                      "DEM_PRESSURE", "SHEAR_STRESS", "DEM_NODAL_AREA"),
    "ClusterPart": ("VELOCITY", "ANGULAR_VELOCITY", "DISPLACEMENT", "ORIENTATION",
                    "CHARACTERISTIC_LENGTH", "TOTAL_FORCES", "PARTICLE_MOMENT"),
    "DEMInletPart": ("VELOCITY", "ANGULAR_VELOCITY", "DISPLACEMENT", "RADIUS"),
}

# A contact should last at least this many steps (thesis §2.6.4: 10 to 50).
MINIMUM_STEPS_PER_CONTACT = 10
# A time step this many times the estimated critical one is an error even
# under "TimeStepCheck": "warning": the estimate takes a pessimistic impact
# speed (Hertz: the critical step grows as speed^(-1/5), so 4x covers impacts
# a thousand times slower than assumed), and past it the run blows up.
UNSTABLE_TIME_STEP_FACTOR = 4.0


def _MaxIds(model_part):
    nodes = max(model_part.NodeIds(), default=0)
    elements = max((e.Id for e in model_part.Elements), default=0)
    conditions = max((c.Id for c in model_part.Conditions), default=0)
    return nodes, elements, conditions


class DEMSolver(PythonSolver):
    """Kratos' solver interface around the C++ strategy. The stage reads the
    model parts; the solver builds the strategy in Initialize."""

    # "parallel_type": "MPI" runs the explicit sphere strategies and
    # Moreau-Jean distributed (distributed_run.py; what it refuses is an
    # error naming the key).
    SUPPORTS_MPI = True

    def __init__(self, model, stage):
        settings = stage.DEM_parameters["solver_settings"]
        super().__init__(model, tessera.Parameters("{}"))
        self.settings = settings
        self.stage = stage
        self.parameters = stage.DEM_parameters
        self.dt = self.parameters["MaxTimeStep"].GetDouble()
        if not self.dt > 0.0:
            raise tessera.Error(f"{self.parameters.Origin()}: 'MaxTimeStep' must be > 0, got {self.dt}")
        self.strategy = None
        self.imposed_velocities = []
        self.inlets = None
        self.communicator = None
        self.distributed = None  # _dem.DistributedDem of a distributed run
        # The walls' nodal contact results summed over the ranks after every
        # WriteToNodes (distributed_run.NeedsGlobalWallResults).
        self.global_wall_results = False

    def SetCommunicator(self, communicator):
        """The run's communicator (the stage calls this for "parallel_type": "MPI")."""
        self.communicator = communicator

    def AddVariables(self):
        for name, variables in HISTORICAL.items():
            model_part = self.model.GetModelPart(name)
            for variable in variables:
                model_part.AddNodalSolutionStepVariable(tessera.GetVariable(variable))
        if self.parameters["PostElasticForces"].GetBool():
            # The spheres' elastic forces cost a sum per contact and step, which
            # the strategy does only where the variable is declared: here for
            # the output, or by a script before Initialize.
            self.model.GetModelPart("SpheresPart").AddNodalSolutionStepVariable(
                tessera.ELASTIC_FORCES)
        if self.parameters["PostStressStrainOption"].GetBool():
            # Kratos' flag for the spheres' stress tensor: summed in the force
            # pass only where the variable is declared (particle_stress.cpp).
            self.model.GetModelPart("SpheresPart").AddNodalSolutionStepVariable(
                tessera.DEM_STRESS_TENSOR)
        if self._IsContinuum():
            # The share of each sphere's bonds that broke (written after each step).
            self.model.GetModelPart("SpheresPart").AddNodalSolutionStepVariable(
                tessera.DAMAGE_RATIO)

    def _IsMoreauJean(self):
        return (self.parameters["solver_settings"]["strategy"].GetString()
                == "moreau_jean_strategy")

    def _MoreauJeanSettings(self):
        """solver_settings.moreau_jean_settings (validated, defaults added) as
        tessera._dem.MoreauJeanSettings."""
        block = self.parameters["solver_settings"]["moreau_jean_settings"]
        settings = _dem.MoreauJeanSettings()
        for key in dem_parameters.MOREAU_JEAN_DEFAULTS:
            value = block[key]
            current = getattr(settings, key)
            if isinstance(current, bool):
                setattr(settings, key, value.GetBool())
            elif isinstance(current, int):
                setattr(settings, key, value.GetInt())
            elif isinstance(current, float):
                setattr(settings, key, value.GetDouble())
            else:
                setattr(settings, key, value.GetString())
        return settings

    def _InitializeMoreauJean(self, spheres, walls):
        """The non-smooth strategy: rigid spheres, clusters and walls, no inlets
        or time-step check (its step is not bound by contact stiffness)."""
        where = self.parameters.Origin()
        if (self.parameters["dem_inlet_option"].GetBool()
                and self.model.GetModelPart("DEMInletPart").NumberOfSubModelParts() > 0):
            raise tessera.Error(f"{where}: moreau_jean_strategy does not run inlets")
        self.strategy = _dem.MoreauJeanStrategy(
            spheres, walls if walls.NumberOfConditions() > 0 else None, self._Settings(),
            self._MoreauJeanSettings())
        clusters = self.model.GetModelPart("ClusterPart")
        if clusters.NumberOfElements() > 0:
            self.strategy.SetClusterModelPart(clusters)
        self.strategy.Initialize()
        self.strategy.WriteToNodes()

    def _IsContinuum(self):
        return (self.parameters["solver_settings"]["strategy"].GetString()
                == "continuum_sphere_strategy")

    def AddDofs(self):
        """Velocity and angular velocity components are degrees of freedom of the
        sphere nodes, as in Kratos, so that processes can fix them (a fixed
        component keeps the value the process gives instead of being integrated)."""
        components = [tessera.GetVariable(f"{name}_{axis}") for name in ("VELOCITY", "ANGULAR_VELOCITY")
                      for axis in "XYZ"]
        for node in self.model.GetModelPart("SpheresPart").Nodes:
            for variable in components:
                node.AddDof(variable)

    def GetComputingModelPart(self):
        return self.model.GetModelPart("SpheresPart")

    def _Piece(self):
        """This rank's piece of the sphere file (distributed_run.ReadSpheresPieces),
        or None where the stage read the whole file (or built the model itself)."""
        return getattr(self.stage, "spheres_piece", None)

    def _Settings(self):
        p = self.parameters
        settings = _dem.DemSettings()
        settings.gravity = [p["GravityX"].GetDouble(), p["GravityY"].GetDouble(),
                            p["GravityZ"].GetDouble()]
        settings.delta_time = self.dt
        settings.dimension = p["Dimension"].GetInt()
        settings.translational_scheme = p["TranslationalIntegrationScheme"].GetString()
        settings.rotation = p["RotationOption"].GetBool()
        settings.rotational_scheme = p["RotationalIntegrationScheme"].GetString()
        settings.rolling_friction = p["RollingFrictionOption"].GetBool()
        settings.hertz_damping_map = p["HertzDampingMap"].GetString()
        settings.wall_force_transfer = p["WallForceTransfer"].GetString()
        settings.kratos_wall_slider = p["WallSlider"].GetString() == "kratos"
        settings.linear_stiffness = p["LinearContactStiffness"].GetString()
        settings.bond_stiffness = p["BondStiffness"].GetString()
        settings.bond_area_correction = p["BondAreaCorrection"].GetString()
        settings.bond_area_porosity = p["BondAreaPorosity"].GetDouble()
        settings.bond_lever_arms = p["BondLeverArms"].GetString()
        settings.broken_bonds = p["BrokenBonds"].GetString()
        settings.bond_damage = p["BondDamage"].GetString()
        settings.energy_calculation = p["EnergyCalculationOption"].GetBool()
        settings.search_frequency = p["NeighbourSearchFrequency"].GetInt()
        settings.tuning.sort_rows_frequency = p["SortParticlesFrequency"].GetInt()
        if self._Piece() is not None:
            # A piece's rows keep the file's order, their keys (a distributed
            # run sorts no rows: DistributedDem::Start).
            settings.tuning.sort_rows_frequency = 0
        absolute = p["DeltaOption"].GetString() == "Absolute"
        settings.search_tolerance = p["SearchTolerance"].GetDouble() if absolute else 0.0
        settings.wall_search_tolerance = p["search_tolerance_against_walls"].GetDouble()
        settings.adaptive_search = p["AdaptiveSearch"].GetBool()
        settings.global_damping = p["GlobalDamping"].GetDouble()
        settings.global_damping_form = p["GlobalDampingForm"].GetString()
        settings.virtual_mass_coefficient = p["VirtualMassCoefficient"].GetDouble()
        settings.clean_indentations = p["CleanIndentationsOption"].GetBool()
        settings.remove_embedded = p["RemoveBallsInEmbeddedOption"].GetBool()
        settings.remove_touching_walls = \
            p["solver_settings"]["RemoveBallsInitiallyTouchingWalls"].GetBool()
        settings.bounding_box = p["BoundingBoxOption"].GetBool()
        settings.periodic = p["PeriodicDomainOption"].GetBool()
        settings.continuum = self._IsContinuum()
        settings.bounding_box_start_time = p["BoundingBoxStartTime"].GetDouble()
        settings.bounding_box_stop_time = p["BoundingBoxStopTime"].GetDouble()
        low = [p[f"BoundingBoxMin{a}"].GetDouble() for a in "XYZ"]
        high = [p[f"BoundingBoxMax{a}"].GetDouble() for a in "XYZ"]
        if p["AutomaticBoundingBoxOption"].GetBool():
            low, high = self._AutomaticBoundingBox(p["BoundingBoxEnlargementFactor"].GetDouble())
            piece = self._Piece()
            if piece is not None and settings.periodic and [low, high] != \
                    [list(v) for v in piece.periodic_box]:
                raise tessera.Error(
                    f"{p.Origin()}: the automatic periodic domain {low}, {high} is not the one the "
                    f"pieces were read in, {piece.periodic_box} (nodes added to RigidFacePart after "
                    "its file?); set \"mpi_settings\": {\"read\": \"whole\"}")
        settings.bounding_box_min = low
        settings.bounding_box_max = high
        # FREE_BODY_MOTION walls that a process moves follow the process only.
        settings.walls_moved_by_processes = sorted(self.stage._WallsMovedByProcesses())
        settings.area_distributed_walls = list(self.stage.area_distributed_walls)
        settings.adm_energy_gradient = self.stage.adm_energy_gradient
        return settings

    def _AutomaticBoundingBox(self, factor):
        """The box of every particle and wall node, scaled by `factor` about its centre."""
        points = [n.Coordinates() for name in ("SpheresPart", "RigidFacePart")
                  for n in self.model.GetModelPart(name).Nodes]
        if not points and self._Piece() is None:
            return [-10.0] * 3, [10.0] * 3
        inf = float("inf")
        low = [min((p[k] for p in points), default=inf) for k in range(3)]
        high = [max((p[k] for p in points), default=-inf) for k in range(3)]
        if self._Piece() is not None:
            # Each rank holds its piece: the box of all of them.
            low = self.communicator.MinAllDoubles(low)
            high = self.communicator.MaxAllDoubles(high)
        centre = [0.5 * (a + b) for a, b in zip(low, high)]
        half = [0.5 * factor * (b - a) for a, b in zip(low, high)]
        return [c - h for c, h in zip(centre, half)], [c + h for c, h in zip(centre, half)]

    def _SetInitialVelocities(self):
        """Kratos' velocity initial conditions (the GUI's "DEM-VelocityIC"):
        a sub model part of the spheres or clusters whose data gives
        INITIAL_VELOCITY_{X,Y,Z}_VALUE or INITIAL_ANGULAR_VELOCITY_{X,Y,Z}_VALUE
        sets those components of VELOCITY / ANGULAR_VELOCITY on its nodes at
        the start (components it does not give keep the mdpa's values)."""
        def sub_model_parts(model_part):
            for sub in model_part.SubModelParts:
                yield sub
                yield from sub_model_parts(sub)

        for root in ("SpheresPart", "ClusterPart"):
            for part in sub_model_parts(self.model.GetModelPart(root)):
                for kind in ("VELOCITY", "ANGULAR_VELOCITY"):
                    for axis in "XYZ":
                        initial = tessera.GetVariable(f"INITIAL_{kind}_{axis}_VALUE")
                        if not part.Has(initial):
                            continue
                        component = tessera.GetVariable(f"{kind}_{axis}")
                        value = part[initial]
                        for node in part.Nodes:
                            node.SetSolutionStepValue(component, value)

    def _CollectImposedVelocities(self):
        """Kratos' legacy velocity conditions (the GUI's "DEM-VelocityBC"): a
        sub model part of the spheres whose data gives
        IMPOSED_VELOCITY_{X,Y,Z}_VALUE fixes that component of VELOCITY on its
        nodes to the value from VELOCITY_START_TIME (0 if not given) to
        VELOCITY_STOP_TIME (never if not given), and frees it outside. Each
        entry keeps the sub model part's node ids: in a distributed run
        spheres change rank and join the new rank's root model part only, so
        the imposition follows them by id (_ApplyImposedVelocities)."""
        def sub_model_parts(model_part):
            for sub in model_part.SubModelParts:
                yield sub
                yield from sub_model_parts(sub)

        self.imposed_velocities = []
        self._imposed_rows, self._imposed_nodes = None, []
        for part in sub_model_parts(self.model.GetModelPart("SpheresPart")):
            start = part[tessera.VELOCITY_START_TIME] if part.Has(tessera.VELOCITY_START_TIME) else 0.0
            stop = part[tessera.VELOCITY_STOP_TIME] if part.Has(tessera.VELOCITY_STOP_TIME) else math.inf
            for axis in "XYZ":
                imposed = tessera.GetVariable(f"IMPOSED_VELOCITY_{axis}_VALUE")
                if part.Has(imposed):
                    ids = [int(i) for i in part.NodeIds()]
                    if self._Piece() is not None:
                        # Each rank read its piece: the ids of every rank's.
                        ids = distributed_run.AllIds(self.communicator, ids)
                    self.imposed_velocities.append(
                        (list(part.Nodes), set(ids),
                         tessera.GetVariable(f"VELOCITY_{axis}"), part[imposed], start, stop))

    def _LocalImposedNodes(self):
        """A distributed run's nodes of each imposition among the rank's
        spheres (owned and ghosts, a ghost alike so that its copy is its
        owner's), found by id. The rows change only at a search (spheres
        arrive, leave and are reordered) or when an inlet adds spheres, so the
        lists are found again only then, not at every step."""
        spheres = self.stage.spheres_model_part
        rows = (self.strategy.NumberOfSearches(), spheres.NumberOfNodes())
        if rows != self._imposed_rows:
            local = [int(i) for i in spheres.NodeIds()]
            self._imposed_nodes = [[spheres.GetNode(i) for i in local if i in ids]
                                   for _, ids, *_ in self.imposed_velocities]
            self._imposed_rows = rows
        return self._imposed_nodes

    def _ApplyImposedVelocities(self, time):
        local = self._LocalImposedNodes() if self.distributed is not None else None
        for k, (nodes, ids, component, value, start, stop) in enumerate(self.imposed_velocities):
            if local is not None:
                nodes = local[k]
            active = start <= time <= stop
            for node in nodes:
                if active:
                    node.Fix(component)
                    node.SetSolutionStepValue(component, value)
                else:
                    node.Free(component)

    def Initialize(self):
        spheres = self.model.GetModelPart("SpheresPart")
        walls = self.model.GetModelPart("RigidFacePart")
        self._SetInitialVelocities()
        self._CollectImposedVelocities()
        self._ApplyImposedVelocities(0.0)
        # Kratos' DEM stage keeps "Dimension" as the DOMAIN_SIZE of the model parts.
        for model_part in (spheres, walls):
            model_part.ProcessInfo[tessera.DOMAIN_SIZE] = self.parameters["Dimension"].GetInt()
        if self.communicator is not None and self.communicator.IsDistributed():
            distributed_run.CheckSupported(self)
        if self._IsMoreauJean():
            self._InitializeMoreauJean(spheres, walls)
            if self.communicator is not None and self.communicator.IsDistributed():
                self.distributed = distributed_run.StartMoreauJean(self, self.communicator)
            return
        settings = self._Settings()
        self.strategy = _dem.ExplicitSolverStrategy(
            spheres, walls if walls.NumberOfConditions() > 0 else None, settings)
        clusters = self.model.GetModelPart("ClusterPart")
        if clusters.NumberOfElements() > 0:
            # Cluster3D: the strategy creates their spheres in SpheresPart at Initialize;
            # CLUSTER_FILE_NAME is read relative to the working directory (the case folder).
            self.strategy.SetClusterModelPart(clusters)
        self.inlets = self._CreateInlets()  # before Initialize: it registers the inlet materials
        piece = self._Piece()
        if piece is not None:
            # Every rank numbers the materials as the serial run does, and
            # the injected spheres after the whole file's ids.
            self.strategy.SetParticleMaterialOrder(
                _dem.ParticleMaterialOrder(spheres, piece, self.communicator))
            if self.inlets is not None:
                self.inlets.NumberAfter(*self.stage.largest_read_ids[:2])
            if piece.cluster_members > 0:
                _dem.NumberClusterMembers(self.strategy, piece)
            if settings.continuum and self.parameters["BondAreaCorrection"].GetString() == "global":
                # α = 40 P / N_c of the whole specimen: N_c summed over the ranks.
                _dem.CountBondsOverPieces(self.strategy, piece, self.communicator)
            if settings.clean_indentations:
                # The serial start's shrinks of overlapping spheres, worked out
                # on rank 0 over every sphere (a chain no piece can follow).
                _dem.ShareInitialShrinks(
                    self.strategy, spheres, self.model.GetModelPart("ClusterPart"), piece, settings,
                    self.parameters["SortParticlesFrequency"].GetInt(), self.communicator)
        try:
            self.strategy.Initialize()
        except tessera.Error as error:
            # The walls' motion data (SubModelPartData) comes from their file,
            # when there is one: say which.
            walls_file = f"{self.stage.problem_name}DEM_FEM_boundary.mdpa"
            if str(error).startswith("wall sub model part") and os.path.isfile(walls_file):
                raise tessera.Error(f"{walls_file}: {error}") from None
            raise
        if self.inlets is not None:
            # (The clusters' member spheres were made with ids after every id
            # read; a piece made those of its clusters only.)
            if piece is not None and piece.cluster_members > 0:
                self.inlets.SkipIdsOfClusterMembers(piece.first_member_node, piece.first_member_element,
                                                    piece.cluster_members)
            else:
                self.inlets.SkipIdsOfInitialSpheres()
        if piece is None:
            self._CheckTimeStep()
        if self.communicator is not None and self.communicator.IsDistributed():
            if getattr(self.stage, "_resized_from", None) is not None:
                # Continuing a checkpoint of another rank count: the whole
                # state merged from its files replaces this one first, then
                # the decomposition (LoadCheckpoint).
                self.strategy.WriteToNodes()
                return
            # Every rank initialised the whole set or its piece (the same first
            # search and forces as the serial run); now each keeps its own and its ghosts.
            self.distributed = distributed_run.Start(self, self.communicator)
            self.global_wall_results = distributed_run.NeedsGlobalWallResults(self)
            if piece is not None:
                # Over the kept rows: the piece's outer spheres, dropped now,
                # missed bonds, hence had other bond constants (spheres_piece.h).
                self._CheckTimeStep()
        self._WriteToNodes()

    def _WriteToNodes(self):
        """The strategy's results to the nodes; in a distributed run that
        needs them, the walls' contact results summed over the ranks."""
        self.strategy.WriteToNodes()
        if self.global_wall_results:
            self.distributed.WriteGlobalWallResults()

    def _CreateInlets(self):
        """The particle inlets of DEMInletPart, or None (no inlet, or "dem_inlet_option" false).
        Errors name the inlet file."""
        inlet_part = self.model.GetModelPart("DEMInletPart")
        if not self.parameters["dem_inlet_option"].GetBool() or inlet_part.NumberOfSubModelParts() == 0:
            return None
        tables = RadiusTables(self.parameters)
        try:
            return _dem.ParticleInlets(inlet_part, self.strategy, self.parameters["seed"].GetInt(), tables)
        except tessera.Error as error:
            raise tessera.Error(f"{self.stage.problem_name}DEM_Inlet.mdpa: {error}") from None

    def _CheckTimeStep(self):
        """Δt against the contacts it must resolve (thesis §2.6.4): a warning or
        an error ("TimeStepCheck") when a contact would last fewer than 10 steps
        or Δt exceeds the critical step. The speeds processes impose over the
        run count (they are built before the solver's Initialize).
        AutomaticTimestep takes the critical step times DeltaTimeSafetyFactor
        when that is smaller than MaxTimeStep."""
        p = self.parameters
        gravity = math.sqrt(sum(p[f"Gravity{a}"].GetDouble() ** 2 for a in "XYZ"))
        # Impact speed to expect: two particles at the fastest speed seen now
        # meeting head-on, plus what gravity adds over the run (capped at 1 s).
        # Speeds that processes impose over the run (spheres and walls) count too.
        final_time = p["FinalTime"].GetDouble()
        imposed = max((process.MaximumImposedSpeed(0.0, final_time)
                       for process in self.stage._GetListOfProcesses()
                       if hasattr(process, "MaximumImposedSpeed")), default=0.0)
        # Inlets: their injection speed, and (in EstimateTimeStep) their smallest spheres.
        if self.inlets is not None:
            imposed = max(imposed, self.inlets.MaximumSpeed())
        fastest = self.strategy.MaximumSpeed()
        piece = self._Piece()
        if piece is not None:
            fastest = self.communicator.MaxAll(fastest)
        speed = 2.0 * max(fastest, imposed) + gravity * min(final_time, 1.0)
        estimate = self.strategy.EstimateTimeStep(max(speed, 1e-3))
        if piece is not None:
            estimate = distributed_run.GlobalTimeStepEstimate(self.communicator, estimate)
        self.time_step_estimate = estimate
        if p["AutomaticTimestep"].GetBool() and math.isfinite(estimate.critical_time_step):
            automatic = p["DeltaTimeSafetyFactor"].GetDouble() * estimate.critical_time_step
            if automatic < self.dt:
                self.dt = automatic
                self.strategy.SetDeltaTime(self.dt)
        mode = p["TimeStepCheck"].GetString()
        if mode == "off" or not math.isfinite(estimate.contact_time):
            return
        problems = []
        steps = estimate.contact_time / self.dt
        if steps < MINIMUM_STEPS_PER_CONTACT:
            problems.append(
                f"the time step {self.dt:g} s resolves the shortest contact ({estimate.contact_time:.3g} s, "
                f"{estimate.contact_time_pair}, impact at {estimate.reference_speed:.3g} m/s) in "
                f"{steps:.1f} steps; at least {MINIMUM_STEPS_PER_CONTACT} are needed (set MaxTimeStep "
                f"<= {estimate.contact_time / MINIMUM_STEPS_PER_CONTACT:.3g})")
        if self.dt > estimate.critical_time_step:
            problems.append(f"the time step {self.dt:g} s exceeds the critical time step "
                            f"{estimate.critical_time_step:.3g} s of the stiffest contact: the run "
                            "will be unstable")
        if not problems:
            return
        message = f"{p.Origin()}: " + "; ".join(problems) + \
            " ('TimeStepCheck': \"off\" silences this check)"
        if mode == "error":
            raise tessera.Error(message)
        if self.dt > UNSTABLE_TIME_STEP_FACTOR * estimate.critical_time_step:
            raise tessera.Error(
                f"{p.Origin()}: MaxTimeStep {self.dt:g} s is {self.dt / estimate.critical_time_step:.3g} "
                f"times the critical time step {estimate.critical_time_step:.3g} s of the stiffest "
                f"contact (the shortest: {estimate.contact_time_pair}, impact at "
                f"{estimate.reference_speed:.3g} m/s): the run would blow up; set MaxTimeStep "
                f"<= {estimate.critical_time_step:.3g} ('TimeStepCheck': \"off\" runs it anyway)")
        warnings.warn(message, stacklevel=2)

    def ComputeDeltaTime(self):
        return self.dt

    def AdvanceInTime(self, current_time):
        new_time = current_time + self.dt
        # The stage's roots (each step: a lookup by name per root was a
        # quarter of the stage's own time per step).
        stage = self.stage
        for root in (stage.spheres_model_part, stage.rigid_face_model_part,
                     stage.cluster_model_part):
            root.CloneTimeStep(new_time)
            root.ProcessInfo[tessera.STEP] = int(root.ProcessInfo[tessera.STEP]) + 1
        return new_time

    def SolveSolutionStep(self):
        # Processes and scripts may have changed velocities, fixities or
        # positions on the nodes since the last step.
        time = self.stage.spheres_model_part.ProcessInfo[tessera.TIME]
        if self.imposed_velocities:
            self._ApplyImposedVelocities(time)
        self.strategy.ReadFromNodes()
        self.strategy.SolveSolutionStep(time)
        if self.distributed is not None:
            self.distributed.RefreshGhosts()
        if self.inlets is not None:
            self.inlets.Inject(time)
        self._WriteToNodes()
        return True

    def Check(self):
        return 0

    # ---- checkpoints (tessera.checkpoint; the layout in docs/file_formats.md):
    # the strategy's and the inlets' state (applications/dem/io/dem_checkpoint.h)
    # under <group>/Strategy and <group>/Inlets, a distributed run's rank state
    # (applications/dem/parallel/distributed_checkpoint.cpp) under
    # <group>/Distributed, Δt in the JSON state. Loading
    # runs in two parts: the spheres' model part first gets the spheres the
    # checkpoint holds (inlets made some during the run), then, after the
    # kernel has loaded the model parts, the strategy's state.
    def SaveCheckpoint(self, writer, group):
        if self.strategy is None:
            raise tessera.Error(f"checkpoint {writer.path}: the DEM solver is saved only after Initialize()")
        writer.WriteString(group + "/Type", type(self).__name__)
        if self._IsMoreauJean():
            _dem.SaveMoreauJeanCheckpoint(self.strategy, writer, group + "/Strategy")
        else:
            _dem.SaveStrategyCheckpoint(self.strategy, writer, group + "/Strategy")
        if self.inlets is not None:
            _dem.SaveInletCheckpoint(self.inlets, writer, group + "/Inlets")
        if self.distributed is not None:
            self.distributed.SaveCheckpoint(writer, group + "/Distributed")

    def _CheckSavedSolver(self, reader, group):
        if not reader.Has(group + "/Type"):
            raise tessera.Error(f"checkpoint {reader.path} has no {group}/Type: it holds no DEM solver state")
        saved = reader.ReadString(group + "/Type")
        if saved != type(self).__name__:
            raise tessera.Error(f"checkpoint {reader.path} was written by a {saved}, not a {type(self).__name__}")
        # A distributed Moreau-Jean run continues a serial or merged state
        # too (every rank holds all of it; MoreauJeanRun.Restart bisects it).
        resized = getattr(self.stage, "_resized_from", None) is not None
        distributed = self.distributed is not None and not (self._IsMoreauJean() and resized)
        for part, present in (("Strategy", True), ("Inlets", self.inlets is not None),
                              ("Distributed", distributed)):
            if reader.Has(f"{group}/{part}") != present:
                raise tessera.Error(
                    f"checkpoint {reader.path} {'has no' if present else 'has a'} {group}/{part} "
                    f"where this run has {'a' if present else 'no'} DEM {part.lower()} state "
                    "(another deck?)")

    def PrepareLoadCheckpoint(self, reader, group):
        self._CheckSavedSolver(reader, group)
        if self._IsMoreauJean():
            return  # its spheres are the deck's: no inlets, no deletions
        _dem.PrepareSpheresForCheckpoint(self.strategy, self.inlets, reader, group + "/Strategy",
                                         "/ModelParts/SpheresPart")

    def LoadCheckpoint(self, reader, group):
        self._CheckSavedSolver(reader, group)
        if self._IsMoreauJean():
            _dem.LoadMoreauJeanCheckpoint(self.strategy, reader, group + "/Strategy")
            if self.distributed is not None:
                if reader.Has(group + "/Distributed"):
                    self.distributed.LoadCheckpoint(reader, group + "/Distributed")
                else:
                    self.distributed.Restart()
            return
        _dem.LoadStrategyCheckpoint(self.strategy, reader, group + "/Strategy")
        if self.inlets is not None:
            _dem.LoadInletCheckpoint(self.inlets, reader, group + "/Inlets")
        if self.distributed is not None:
            # After the strategy's rows: the keys, owners and ghost lists of
            # this rank's rows; the imposed velocities' nodes found again.
            self.distributed.LoadCheckpoint(reader, group + "/Distributed")
            self._imposed_rows = None
        elif getattr(self.stage, "_resized_from", None) is not None:
            # The state merged from another rank count's files
            # (resized_checkpoint.py): its contact indexes, then, distributed,
            # the decomposition a start makes, from this state.
            _dem.DistributedDem.IndexContacts(self.strategy)
            if self.communicator is not None and self.communicator.IsDistributed():
                self.distributed = distributed_run.Start(self, self.communicator, restored=True)
                self.global_wall_results = distributed_run.NeedsGlobalWallResults(self)
            self._imposed_rows = None

    def GetCheckpointState(self):
        return {"dt": self.dt}

    def SetCheckpointState(self, state):
        self.dt = state["dt"]


class DEMAnalysisStage(AnalysisStage):
    """Kratos' DEM stage: DEMAnalysisStage(model, project_parameters)."""

    def __init__(self, model, project_parameters):
        if not isinstance(project_parameters, tessera.Parameters):
            raise TypeError("DEMAnalysisStage needs the project parameters as tessera.Parameters, "
                            f"got {type(project_parameters).__name__}")
        distributed_run.MoveParallelTypeToProblemData(project_parameters)
        dem_parameters.ValidateAndAssignDefaults(project_parameters)
        distributed_run.Settings(project_parameters)  # mpi_settings checked in serial runs too
        self.DEM_parameters = project_parameters
        # The four roots exist from the start, as in Kratos, so that scripts
        # may add variables or build the model before Initialize.
        for name, _ in MODEL_PART_FILES:
            if not model.HasModelPart(name):
                model.CreateModelPart(name)
        self.spheres_model_part = model.GetModelPart("SpheresPart")
        self.rigid_face_model_part = model.GetModelPart("RigidFacePart")
        self.cluster_model_part = model.GetModelPart("ClusterPart")
        self.DEM_inlet_model_part = model.GetModelPart("DEMInletPart")
        super().__init__(model, project_parameters)
        self.time = 0.0
        self.end_time = project_parameters["FinalTime"].GetDouble()
        self.problem_name = project_parameters["problem_name"].GetString()
        # Where <problem_name>_Post_Files and <problem_name>_Graphs go: the working
        # directory unless SetOutputDirectory (tessera run --output-dir) says otherwise.
        self.output_directory = ""
        # Kratos' name: scripts make spheres with
        # self.creator_destructor.CreateSphericParticle(...).
        self.creator_destructor = ParticleCreatorDestructor()
        # Wall sub model parts whose contacts use the Area Distributed Method
        # whatever WallForceTransfer says (the DE-FE coupling's skin; set
        # before Initialize): DemSettings.area_distributed_walls.
        self.area_distributed_walls = []
        # Under ADM, the contact forces on the spheres and those walls' nodes
        # as gradients of one stored energy: DemSettings.adm_energy_gradient.
        self.adm_energy_gradient = False
        # Wall sub model parts (full names) whose faces each rank of a
        # distributed run searches only near its own box (a coupled
        # structure's skin; set before Initialize): distributed_run.Start.
        self.walls_searched_near_domain = []

    def SetOutputDirectory(self, directory):
        """Writes the post files and graphs under `directory` (before Initialize)."""
        self.output_directory = directory

    def OutputPath(self, name):
        return os.path.join(self.output_directory, name)

    def _GetAllowedTopLevelKeys(self):
        return None  # dem_parameters validated them already

    def _CreateSolver(self):
        return DEMSolver(self.model, self)

    def _GetSimulationName(self):
        return "DEM"

    # ---- model parts
    def Initialize(self):
        self.ReadModelParts()
        self.ReadMaterialsFile()
        super().Initialize()

    def ReadModelParts(self, max_node_id=0, max_elem_id=0, max_cond_id=0):
        """Reads the four mdpa files that exist, each renumbered consecutively
        after the ids the previous ones used (Kratos' "reorder consecutive from
        given ids" reader). Tests and scripts that build the model in code
        override this."""
        self._CheckModelPartFilesExist()
        nodes, elements, conditions = max_node_id, max_elem_id, max_cond_id
        self.spheres_piece = None
        # The files' largest node, element and condition ids (a piece's
        # included: every rank's alike).
        largest = [0, 0, 0]
        pieces = False
        communicator = self.communicator
        if (self.parallel_type == "MPI" and communicator.IsDistributed() and communicator.Size() > 1):
            refusal = distributed_run.PieceReadRefusal(self)
            pieces = refusal is None
            if refusal is not None and self.echo_level > 0 and communicator.Rank() == 0 \
                    and not refusal.startswith("key 'mpi_settings.read'"):
                print(f"{self._GetSimulationName()}: every rank reads the whole sphere file: {refusal}")
        done = set()

        def advance(read_ids):
            # The next file starts after the largest id used so far, plus one
            # (Kratos: walls of dem3d_contact start at max sphere id + 2).
            nonlocal largest, nodes, elements, conditions
            n, e, c = read_ids
            largest = [max(a, b) for a, b in zip(largest, read_ids)]
            nodes, elements, conditions = max(nodes, n + 1), max(elements, e + 1), max(conditions, c + 1)

        def read_whole(name, path):
            model_part = self.model.GetModelPart(name)
            tessera.ModelPartIO(path, renumber=True, node_id_offset=nodes, element_id_offset=elements,
                                condition_id_offset=conditions).ReadModelPart(model_part)
            done.add(name)
            return _MaxIds(model_part)

        sphere_path = f"{self.problem_name}{MODEL_PART_FILES[0][1]}.mdpa"

        def read_walls(*sphere_ids):
            # From pieces with clusters, once the sphere file's ids are known:
            # the walls' file whole; the offsets of the cluster file's ids,
            # and the largest ids so far (the members are numbered after
            # every id read: CreateClusterSpheresAfterIds).
            if os.path.isfile(sphere_path):
                advance(sphere_ids)
            ids = [sphere_ids]
            name, suffix = MODEL_PART_FILES[1]
            path = f"{self.problem_name}{suffix}.mdpa"
            if os.path.isfile(path):
                ids.append(read_whole(name, path))
                advance(ids[-1])
            return (nodes, elements, conditions, max(i[0] for i in ids), max(max(i[1:]) for i in ids))

        def assign_cluster_materials():
            # The clusters' materials name their .clu files (the whole
            # deck's materials are assigned after the read, these again).
            self.ReadMaterialsFile(roots=["ClusterPart"])

        for name, suffix in MODEL_PART_FILES:
            if name == "DEMInletPart" and not self.DEM_parameters["dem_inlet_option"].GetBool():
                continue
            path = f"{self.problem_name}{suffix}.mdpa"
            exists = os.path.isfile(path)
            if name == "SpheresPart" and pieces and distributed_run.HoldsClusters(self):
                # (Also without a sphere file: a deck of clusters only.)
                clusters_path = f"{self.problem_name}{MODEL_PART_FILES[2][1]}.mdpa"
                spheres_ids, clusters_ids = distributed_run.ReadSpheresPieces(
                    self, path if exists else "", (nodes, elements, conditions),
                    (read_walls, clusters_path, assign_cluster_materials))
                advance(clusters_ids)
                largest = [max(a, b) for a, b in zip(largest, spheres_ids)]
                done.add("ClusterPart")
                continue
            if name in done or not exists:
                continue
            if name == "SpheresPart" and pieces:
                (n, e, c), _ = distributed_run.ReadSpheresPieces(self, path, (nodes, elements, conditions))
            else:
                n, e, c = read_whole(name, path)
            advance((n, e, c))
        self.largest_read_ids = tuple(largest)

    def _CheckModelPartFilesExist(self):
        """The walls', clusters' and inlets' files may be absent (a deck
        without walls, clusters or inlets; "dem_inlet_option" is true by
        default), but a deck needs a file with particles or an inlet: a
        misspelt problem_name would otherwise run an empty model."""
        name = self.problem_name
        candidates = [f"{name}DEM.mdpa", f"{name}DEM_Clusters.mdpa"]
        if self.DEM_parameters["dem_inlet_option"].GetBool():
            candidates.append(f"{name}DEM_Inlet.mdpa")
        if any(os.path.isfile(path) for path in candidates):
            return
        present = sorted(f for f in os.listdir(".") if f.endswith(".mdpa"))
        raise tessera.Error(f"{self.DEM_parameters.Origin()}: problem_name '{name}': no particle "
                            f"file, expected {' or '.join(candidates)} in {os.getcwd()}; .mdpa "
                            f"files there: {', '.join(present) if present else 'none'}")

    def _UnreadModelPartFiles(self):
        """{root: why its mdpa was not read} for the walls', clusters' and
        inlets' roots (the spheres' root fills from clusters and inlets too)."""
        unread = {}
        for name, suffix in MODEL_PART_FILES[1:]:
            path = f"{self.problem_name}{suffix}.mdpa"
            if name == "DEMInletPart" and not self.DEM_parameters["dem_inlet_option"].GetBool():
                unread[name] = f"{path} is not read: dem_inlet_option is false"
            elif not os.path.isfile(path):
                unread[name] = f"{path} is not in {os.getcwd()}"
        return unread

    def ReadMaterialsFile(self, roots=None):
        settings = self.DEM_parameters["solver_settings"]["material_import_settings"]
        file_name = settings["materials_filename"].GetString()
        if os.path.isfile(file_name):
            AssignMaterials(self.model, file_name, self._UnreadModelPartFiles(), roots)
        elif file_name != "MaterialsDEM.json":
            raise tessera.Error(f"{settings.Origin()}: solver_settings.material_import_settings."
                                f"materials_filename '{file_name}' not found (in {os.getcwd()})")
        # No MaterialsDEM.json: a legacy deck, whose mdpa Properties hold the materials.

    def _WallsMovedByProcesses(self):
        """Full names of the wall parts that apply_kinematic_constraints_to_walls_process
        entries of the "processes" lists move."""
        names = set()
        processes = self.DEM_parameters["processes"]
        for key in processes.keys():
            entries = processes[key]
            for i in range(entries.size() if entries.IsArray() else 0):
                entry = entries[i]
                if (entry.IsSubParameter() and entry.Has("python_module") and entry["python_module"].IsString()
                        and entry["python_module"].GetString().endswith("apply_kinematic_constraints_to_walls_process")
                        and entry.Has("Parameters") and entry["Parameters"].Has("model_part_name")):
                    names.add(entry["Parameters"]["model_part_name"].GetString())
        return names

    # ---- processes and output
    def _CreateListOfProcesses(self):
        super()._CreateListOfProcesses()
        if self.parallel_type == "MPI":
            distributed_run.RejectPiecewiseOutput(self._list_of_processes)
        vtk = self.DEM_parameters["post_vtk_option"].GetBool()
        bonds_written = (vtk and self.DEM_parameters["ContactMeshOption"].GetBool()
                         and self._GetSolver()._IsContinuum())
        unwritten = dem_parameters.UnwrittenPostFlags(self.DEM_parameters, bonds_written)
        if unwritten and (vtk or self.DEM_parameters["post_gid_option"].GetBool()
                          or self.DEM_parameters["post_hdf5_option"].GetBool()):
            warnings.warn(f"{self.DEM_parameters.Origin()}: {', '.join(unwritten)} "
                          f"{'is' if len(unwritten) == 1 else 'are'} true, but Tessera writes no "
                          "such results; the post files hold the other selected ones",
                          stacklevel=2)
        if self.DEM_parameters["post_vtk_option"].GetBool():
            from tessera.output.vtk_output_process import VtkOutputProcess
            for name, walls in (("SpheresPart", False), ("RigidFacePart", True)):
                model_part = self.model.GetModelPart(name)
                if model_part.NumberOfNodes() == 0:
                    continue
                settings = tessera.Parameters("{}")
                settings.AddString("model_part_name", name)
                settings.AddString("output_control_type", "time")
                settings.AddDouble("output_interval", self.DEM_parameters["OutputTimeStep"].GetDouble())
                settings.AddString("output_path", self.OutputPath(f"{self.problem_name}_Post_Files"))
                settings.AddString("file_format", "binary")
                variables = tessera.Parameters("[]")
                settings.AddValue("nodal_solution_step_data_variables", variables)
                for variable in dem_parameters.PostVariables(self.DEM_parameters, walls):
                    settings["nodal_solution_step_data_variables"].Append(variable)
                if not walls and self._GetSolver()._IsContinuum():
                    settings["nodal_solution_step_data_variables"].Append("DAMAGE_RATIO")
                if not walls and self.parallel_type == "MPI":
                    # each rank writes its owned spheres, not its ghosts
                    process = distributed_run.OwnedSpheresVtkOutput(self.model, settings,
                                                                    self._GetSolver())
                elif walls and self.parallel_type == "MPI":
                    # Every rank holds every wall alike (their contact results
                    # the whole run's: NeedsGlobalWallResults): rank 0 writes
                    # the serial run's files.
                    process = distributed_run.WallsOutputOnRoot(
                        self.communicator,
                        lambda settings=settings: VtkOutputProcess(self.model, settings, pieces=False))
                    if process is None:
                        continue
                else:
                    process = VtkOutputProcess(self.model, settings)
                self._list_of_output_processes.append(process)
                self._list_of_processes.append(process)

            if (self.DEM_parameters["ContactMeshOption"].GetBool()
                    and self._GetSolver()._IsContinuum()):
                from .bond_vtk_output import BondVtkOutputProcess
                process = BondVtkOutputProcess(
                    self.GetStrategy, self.model.GetModelPart("SpheresPart"),
                    self.DEM_parameters["OutputTimeStep"].GetDouble(),
                    self.OutputPath(f"{self.problem_name}_Post_Files"), f"{self.problem_name}_bonds",
                    distributed=(lambda: (self._GetSolver().distributed, self.communicator))
                    if self.parallel_type == "MPI" else None)
                self._list_of_output_processes.append(process)
                self._list_of_processes.append(process)

        if self.DEM_parameters["post_gid_option"].GetBool():
            self._AddGidOutput()
        if self.DEM_parameters["post_hdf5_option"].GetBool():
            self._AddHdf5Output()
        self._AddGraphsOutput()

    def _AddGidOutput(self):
        """Kratos' DEM GiD post files through the kernel's gid_output_process:
        spheres as GiD Sphere elements (id, node, RADIUS) with the nodal results
        the Post* flags select, walls as their faces; every OutputTimeStep of
        simulated time, results labelled by time. "OutputFileType"/"GiDPostMode"
        Binary is written as ASCII (tessera has no binary GiD writer), with a
        warning; "Multifile"/"GiDMultiFileFlag" picks one file per output or a
        single appended result file."""
        from tessera.output.gid_output_process import GiDOutputProcess
        ascii, multiple_files = dem_parameters.GidPostSettings(self.DEM_parameters)
        if not ascii:
            warnings.warn(f"{self.DEM_parameters.Origin()}: GiD binary post files are not written "
                          "by tessera; the GiD results are written as ASCII (.post.msh/.post.res; "
                          "set \"OutputFileType\": \"Ascii\" to silence this)", stacklevel=2)
        for name, walls, suffix in (("SpheresPart", False, "DEM"),
                                    ("RigidFacePart", True, "DEM_FEM_boundary")):
            model_part = self.model.GetModelPart(name)
            if model_part.NumberOfNodes() == 0:
                continue
            results = {
                "gidpost_flags": {"GiDPostMode": "GiD_PostAscii",
                                  "MultiFileFlag": "MultipleFiles" if multiple_files else "SingleFile",
                                  "WriteConditionsFlag": "WriteConditions"},
                "file_label": "time",
                "output_control_type": "time",
                "output_interval": self.DEM_parameters["OutputTimeStep"].GetDouble(),
                "nodal_results": dem_parameters.PostVariables(self.DEM_parameters, walls,
                                                              always_radius=False),
            }
            settings = tessera.Parameters(json.dumps({
                "model_part_name": name,
                "output_name": f"{self.problem_name}_{suffix}",
                "output_path": self.OutputPath(f"{self.problem_name}_Post_Files"),
                "postprocess_parameters": {"result_file_configuration": results}}))
            process = self._SerialOrMergedOutput(
                name, walls, lambda model, merged, settings=settings: GiDOutputProcess(
                    model, settings, merged=merged), results["nodal_results"])
            if process is not None:
                self._list_of_output_processes.append(process)
                self._list_of_processes.append(process)

    def _AddHdf5Output(self):
        """HDF5 results through the kernel's hdf5_output_process: one file for
        the run per model part, <problem_name>_DEM.h5 (spheres, as points with
        RADIUS in the XDMF) and <problem_name>_DEM_FEM_boundary.h5 (walls), with
        <name>.xdmf beside them for ParaView; every OutputTimeStep of simulated
        time, the nodal results the Post* flags select, the current
        coordinates at each output (the spheres move)."""
        from tessera.output.hdf5_output_process import Hdf5OutputProcess
        for name, walls, suffix in (("SpheresPart", False, "DEM"),
                                    ("RigidFacePart", True, "DEM_FEM_boundary")):
            model_part = self.model.GetModelPart(name)
            if model_part.NumberOfNodes() == 0:
                continue
            variables = dem_parameters.PostVariables(self.DEM_parameters, walls)
            if not walls and self._GetSolver()._IsContinuum():
                variables.append("DAMAGE_RATIO")
            settings = tessera.Parameters(json.dumps({
                "model_part_name": name,
                "output_control_type": "time",
                "output_interval": self.DEM_parameters["OutputTimeStep"].GetDouble(),
                "output_path": self.OutputPath(f"{self.problem_name}_Post_Files"),
                "file_name": f"{self.problem_name}_{suffix}",
                "write_deformed_configuration": True,
                "nodal_solution_step_data_variables": variables}))
            process = self._SerialOrMergedOutput(
                name, walls, lambda model, merged, settings=settings: Hdf5OutputProcess(
                    model, settings, merged=merged), variables)
            if process is not None:
                self._list_of_output_processes.append(process)
                self._list_of_processes.append(process)

    def _SerialOrMergedOutput(self, name, walls, make, variables):
        """make(model, merged) builds a serial GiD/HDF5 output process of model
        part `name`. A distributed run writes one set of files as the serial
        run does (distributed_run.py): the walls, alike on every rank, from
        rank 0; the spheres merged from their owners on rank 0
        (MergedSpheresOutput; `variables` the nodal results written). None
        where this rank writes nothing."""
        if self.communicator is None or not self.communicator.IsDistributed():
            return make(self.model, False)
        if walls:
            return distributed_run.WallsOutputOnRoot(self.communicator,
                                                     lambda: make(self.model, True))
        return distributed_run.MergedSpheresOutput(
            self._GetSolver(), self.communicator, self.model.GetModelPart(name), list(variables),
            lambda model: make(model, True), self.DEM_parameters["OutputTimeStep"].GetDouble())

    def _AddGraphsOutput(self):
        """<problem_name>_Graphs (dem_graphs_output.py): energies with
        EnergyCalculationOption, wall forces of FORCE_INTEGRATION_GROUP parts."""
        from .dem_graphs_output import DEMGraphsOutput, ForceIntegrationGroups
        energy = self.DEM_parameters["EnergyCalculationOption"].GetBool()
        groups = ForceIntegrationGroups(self.rigid_face_model_part)
        if not energy and not groups:
            return
        process = DEMGraphsOutput(self, energy, groups,
                                  self.DEM_parameters["GraphExportFreq"].GetDouble())
        self._list_of_output_processes.append(process)
        self._list_of_processes.append(process)

    # ---- a distributed checkpoint continued on another number of ranks
    # (resized_checkpoint.py): every rank loads the serial state merged from
    # the checkpoint's rank files, then decomposes it (DEMSolver.LoadCheckpoint).
    # A Moreau-Jean run's rank files each hold the whole state: any one is it.
    def _ResizedCheckpoint(self, path, written, rank, ranks):
        from . import resized_checkpoint
        replicated = (self.DEM_parameters["solver_settings"]["strategy"].GetString()
                      == "moreau_jean_strategy")
        return resized_checkpoint.ResizedCheckpointForRank(path, written, rank, ranks, replicated)

    def LoadCheckpoint(self, path):
        try:
            super().LoadCheckpoint(path)
        finally:
            if self._resized_from is not None:
                from . import resized_checkpoint
                resized_checkpoint.RemoveResized(path)

    def Finalize(self):
        # The run's summary: with echo_level > 0, and under `tessera run`
        # beside its summary line or progress bar (not with --quiet).
        line = f"{self._GetSimulationName()}: {self.SearchSummary()}"
        reporter = self._progress_reporter
        if isinstance(reporter, (progress.SummaryLine, progress.ProgressBar)):
            reporter.stream.write(line + "\n")
            reporter.stream.flush()
        elif self._Echoes():
            print(line)
        super().Finalize()

    def SearchSummary(self):
        """The run's neighbour searches in one line: how many, over how many
        steps, and how many the adaptive search ("AdaptiveSearch") made early."""
        strategy = self.GetStrategy()
        frequency = self.DEM_parameters["NeighbourSearchFrequency"].GetInt()
        return (f"{strategy.NumberOfSearches()} neighbour searches in {strategy.StepCount()} steps "
                f"(NeighbourSearchFrequency {frequency}; {strategy.NumberOfEarlySearches()} early, "
                f"spheres or walls having moved more than the search tolerance allows)")

    # ---- Kratos-style accessors
    def GetStrategy(self):
        """The C++ strategy (tessera._dem.ExplicitSolverStrategy) after Initialize."""
        return self._GetSolver().strategy

    def GetEnergies(self):
        """EnergyCalculationOption: the run's energies (J, the keys of
        strategy.GetEnergies()); in a distributed run summed over the ranks
        (DistributedDem.GlobalEnergies, a collective call: every rank calls it)."""
        solver = self._GetSolver()
        if solver.distributed is not None:
            return solver.distributed.GlobalEnergies()
        return solver.strategy.GetEnergies()

    def GetInlets(self):
        """The particle inlets (tessera._dem.ParticleInlets) after Initialize, or None."""
        return self._GetSolver().inlets

    def GetWallForceAndMoment(self, sub_model_part_name):
        """(force, moment) the particles exert on RigidFacePart.<name> at the
        last written step (see tessera.dem.wall_resultants)."""
        from .wall_resultants import WallForceAndMoment
        walls = self.rigid_face_model_part
        if not walls.HasSubModelPart(sub_model_part_name):
            names = [part.Name for part in walls.SubModelParts]
            raise tessera.Error(f"GetWallForceAndMoment: RigidFacePart has no sub model part "
                                f"'{sub_model_part_name}' (it has {names})")
        return WallForceAndMoment(walls.GetSubModelPart(sub_model_part_name))
