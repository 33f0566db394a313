"""The keys of ProjectParametersDEM.json (its JSON rules: docs/file_formats.md
§2): Kratos' defaults, what the DEM stage does with each, and the validation
that names a mistyped key.

The file is flat: every key below is top-level. The list is every key the DEM
decks of the Kratos corpus use (shared/kratos_cases: dem3d_*, dem_benchmarks_2019,
demstruct_ball_and_box) plus the few other Kratos keys with defaults
(search_tolerance_against_walls, dem_inlets_settings, seed), plus Tessera's own
TimeStepCheck, SortParticlesFrequency, HertzDampingMap, LinearContactStiffness,
BondStiffness, BondAreaCorrection, BondLeverArms, BrokenBonds, BondDamage and
GlobalDampingForm.
Defaults are Kratos' (its DEMApplication's dem_default_input_parameters.py).

Keys fall in three groups, and a few values are checked:
- USED: they change what the stage does.
- IGNORED_OUTPUT: pure output/post-processing choices, accepted and ignored
  (nothing in the simulation depends on them): velocity-trap exports
  (VelTrapGraphExportFreq, VelocityTrapOption), console and
  model info (ControlTime, ModelDataInfo, Granulometry),
  PredefinedSkinOption, virtual_sea_surface_settings and every Post* flag except those
  that select nodal results when post_vtk_option, post_gid_option or
  post_hdf5_option is on (the
  Post* flags are read then; without post files they are ignored too).
- CONTINUUM_ONLY: options of the bonded (continuum) strategy that change
  nothing here: DontSearchUntilFailure, AmplifiedSearchRadiusExtension and
  MaxAmplificationRatioOfSearchRadius (Kratos widens its search so that bonded
  neighbours stay in its lists; Tessera keeps its bonds in a list of their own),
  the material-test helper's material_test_settings, and PoissonEffectOption /
  ShearStrainParallelToBondOption, which must be false with
  continuum_sphere_strategy (their stress-tensor terms are not implemented).
- Values this build does not have physics for are errors naming the key
  (DeltaOption Coordination_Number, strategies other than sphere_strategy and
  continuum_sphere_strategy). Dimension is
  3 (spheres) or 2 (discs: CylinderParticle2D, RigidEdge2D2N walls, 2D laws).
  PeriodicDomainOption makes the bounding box periodic along x, y and z.
"""
import tessera

# key -> Kratos default
DEFAULTS = {
    # problem and files
    "problem_name": "dummy_name.Provide_a_real_one",
    "Dimension": 3,
    "solver_settings": {},
    "processes": {},
    "output_processes": {},
    # checkpoints (tessera.checkpoint.RestartOptions checks the keys inside)
    "restart_options": {},
    # time integration
    "MaxTimeStep": 5e-5,
    "FinalTime": 0.05,
    "TranslationalIntegrationScheme": "Symplectic_Euler",
    "RotationalIntegrationScheme": "Direct_Integration",
    "AutomaticTimestep": False,
    "DeltaTimeSafetyFactor": 1.0,
    "RotationOption": True,
    "VirtualMassCoefficient": 1.0,
    "GlobalDamping": 0.0,
    # physics
    "GravityX": 0.0,
    "GravityY": 0.0,
    "GravityZ": -9.81,
    "ElementType": "SphericPartDEMElement3D",
    "RollingFrictionOption": False,
    "CleanIndentationsOption": False,
    "RemoveBallsInEmbeddedOption": False,
    "PeriodicDomainOption": False,
    # neighbour search
    "NeighbourSearchFrequency": 50,
    "DeltaOption": "Absolute",
    "SearchTolerance": 0.0,
    "search_tolerance_against_walls": 0.0,
    # Tessera: search before NeighbourSearchFrequency steps have passed when
    # spheres or wall vertices have moved far enough to meet outside the last
    # search's candidates (2 d_particle > SearchTolerance, or d_particle +
    # d_wall > search_tolerance_against_walls); a zero tolerance arms no
    # trigger (Kratos' cadence). DemSettings.adaptive_search.
    "AdaptiveSearch": True,
    "CoordinationNumber": 10,
    # bounding box (particle deletion)
    "BoundingBoxOption": False,
    "BoundingBoxMaxX": 10.0,
    "BoundingBoxMaxY": 10.0,
    "BoundingBoxMaxZ": 10.0,
    "BoundingBoxMinX": -10.0,
    "BoundingBoxMinY": -10.0,
    "BoundingBoxMinZ": -10.0,
    "BoundingBoxStartTime": 0.0,
    "BoundingBoxStopTime": 1000.0,
    "AutomaticBoundingBoxOption": False,
    "BoundingBoxEnlargementFactor": 1.0,
    # inlets
    "dem_inlet_option": True,
    "dem_inlets_settings": {},
    "seed": 42,
    # output
    "OutputTimeStep": 1e-2,
    "post_vtk_option": False,
    # GiD post files (tessera: written when "post_gid_option" is true, see
    # GidPostSettings): Kratos' DEM keys, and the older GiDPostMode /
    # GiDMultiFileFlag names, which override them when given.
    "post_gid_option": False,
    # HDF5 results with an XDMF descriptor for ParaView (tessera's key: written
    # when "post_hdf5_option" is true; the kernel's hdf5_output_process).
    "post_hdf5_option": False,
    "OutputFileType": "Binary",
    "Multifile": "multiple_files",
    "GiDPostMode": "",
    "GiDMultiFileFlag": "",
    # Tessera: what to do when Δt resolves a contact in fewer than 10 steps or
    # exceeds the critical step: "warning", "error" or "off".
    "TimeStepCheck": "warning",
    # Tessera: the particle rows and their nodes are sorted in space every this
    # many steps (when there are at least 4,096 spheres); 0: never
    # (DemSettings.tuning.sort_rows_frequency).
    "SortParticlesFrequency": 1000,
    # Tessera: how a Hertz pair's COEFFICIENT_OF_RESTITUTION becomes its damping
    # ratio: "exact" (the rebound is the restitution) or "thornton_fit" (the
    # fitted map of Kratos' DEM_D_Hertz_viscous_Coulomb, to reproduce Kratos).
    "HertzDampingMap": "exact",
    # Tessera: how a wall contact's force reaches the wall's nodes (their
    # CONTACT_FORCES): "direct" (the shape functions at the contact point, as
    # Kratos) or "area_distributed" (the Area Distributed Method, thesis App.
    # B, which also scales each contact's normal force by its faces' share of
    # the sphere's intersection area; the DE-FE coupling's default).
    "WallForceTransfer": "direct",
    # Tessera: the slider of the wall contacts once spring and dashpot exceed
    # μ F_n: "thesis" (force and spring capped along their sum, thesis 2.37)
    # or "kratos" (Kratos' split: the spring keeps its elastic part, the
    # dashpot fills the cap; Kratos' CoSimulation decks run with it).
    "WallSlider": "thesis",
    # Tessera: the normal stiffness of DEM_D_Linear_viscous_Coulomb pairs:
    # "thesis" (k_n = 2 E* R) or "kratos" (Kratos' k_n = 1.432 pi 0.31225 E* R
    # between spheres, pi 0.31225 E* R against walls, to reproduce Kratos).
    "LinearContactStiffness": "thesis",
    # Tessera: the springs of DEM_KDEM bonds: "thesis" (the bar, k_n = E A / L,
    # k_t = G A / L) or "kratos" (the Kratos KDEM whose test references Tessera
    # reproduces: k_n = 1.432 pi E* 0.31225 R*, k_t = 4 G* k_n / E*).
    "BondStiffness": "thesis",
    # Tessera: the bonds' section correction: "kratos" (Kratos' weighting of
    # spheres with six bonds or more), "vpac" (the thesis' Virtual Polyhedron
    # Area Correction, §5.3), "global" (alpha = 40 P / N_c, thesis 5.6, with P =
    # BondAreaPorosity) or "none".
    "BondAreaCorrection": "kratos",
    "BondAreaPorosity": -1.0,
    # Tessera: where a bond's shear force acts: "centres" (the contact point
    # divides the line of centres as the radii do) or "kratos" (Kratos'
    # continuum particle: torque arms R - s (L - d), which across a gap add up
    # to less than the distance; contact_laws/bond_law.h).
    "BondLeverArms": "centres",
    # Tessera: what a broken bond carries: "frictional" (a frictional contact
    # with the bond's stiffness) or "kratos" (Kratos' DEM_Dempack: a bond
    # broken in tension keeps its last shear force, turned with the pair, no
    # increment, no friction; after a shear failure none; contact_laws/bond_law.h).
    "BrokenBonds": "frictional",
    # Tessera: DEM_Dempack's force past the strength, in tension and shear:
    # "kratos" (Kratos' DEM_Dempack: (1 - D) ℱ, linear softening to u^f) or
    # "thesis" (the thesis' (5.23-5.24) as printed: (1 - d) k u, which rises
    # past ℱ where u^f > 2 u^l; contact_laws/bond_law.h).
    "BondDamage": "kratos",
    # Tessera: the form of GlobalDamping: "vector" (thesis 5.18, against the
    # velocity) or "per_component" (Kratos: each component of force and torque
    # on its own).
    "GlobalDampingForm": "vector",
    # With continuum_sphere_strategy and post_vtk_option: the bonds as VTK
    # lines every OutputTimeStep (bond_vtk_output.py; Kratos' bond mesh).
    "ContactMeshOption": False,
}

IGNORED_OUTPUT = {
    "GraphExportFreq": 1e-3,
    "VelTrapGraphExportFreq": 1e-3,
    "VelocityTrapOption": False,
    "ControlTime": 4.0,
    "ModelDataInfo": False,
    "Granulometry": False,
    "EnergyCalculationOption": False,
    "PredefinedSkinOption": False,
    "virtual_sea_surface_settings": {},
}

# Post* flags: the nodal variables they select for VTK and GiD output (None: no nodal
# variable of a sphere or wall node in this build; accepted, and named in a
# warning when set true while post files are written: UnwrittenPostFlags).
POST_FLAGS = {
    "PostDisplacement": (True, "DISPLACEMENT"),
    "PostVelocity": (True, "VELOCITY"),
    "PostRadius": (False, "RADIUS"),
    "PostAngularVelocity": (False, "ANGULAR_VELOCITY"),
    "PostElasticForces": (False, "ELASTIC_FORCES"),
    "PostContactForces": (False, "CONTACT_FORCES"),
    "PostTotalForces": (False, "TOTAL_FORCES"),
    "PostParticleMoment": (False, "PARTICLE_MOMENT"),
    "PostPressure": (False, "DEM_PRESSURE"),
    "PostShearStress": (False, "SHEAR_STRESS"),
    "PostNodalArea": (False, "DEM_NODAL_AREA"),
    "PostTangentialElasticForces": (False, "TANGENTIAL_ELASTIC_FORCES"),
    "PostRigidElementForces": (False, None),
    "PostLocalContactForce": (False, None),
    "PostEulerAngles": (False, None),
    "PostRollingResistanceMoment": (False, None),
    "PostContactSigma": (False, None),
    "PostContactTau": (False, None),
    "PostFailureCriterionState": (False, None),
    "PostContactFailureId": (False, None),
    "PostMeanContactArea": (False, None),
    "PostNonDimensionalVolumeWear": (False, None),
    "PostStressStrainOption": (False, "DEM_STRESS_TENSOR"),
    "PostBoundingBox": (False, None),
    "PostCharacteristicLength": (False, None),
    "PostSkinSphere": (False, None),
    "PostPoissonRatio": (False, None),
    "PostRHS": (False, None),
    "PostDampForces": (False, None),
    "PostAppliedForces": (False, None),
    "PostGroupId": (False, None),
    "PostExportId": (False, None),
    "PostTemperature": (False, None),
    "PostHeatFlux": (False, None),
}

CONTINUUM_ONLY = {
    "PoissonEffectOption": True,
    "ShearStrainParallelToBondOption": True,
    "DontSearchUntilFailure": False,
    "AmplifiedSearchRadiusExtension": 0.0,
    "MaxAmplificationRatioOfSearchRadius": 10.0,
    "material_test_settings": {},
}

# The keys of Kratos' DEM material-test stage (its virtual laboratory: UCS,
# triaxial, ... of a bonded specimen between platens), with Kratos' values.
# With "TestType": "None" (the benchmark decks) they describe no test and are
# accepted; a test is run by Tessera's own virtual laboratory
# (tessera.dem.virtual_lab), not by the DEM stage.
MATERIAL_TEST_DEFAULTS = {"TestType": "None", "ConfinementPressure": 0.0, "LoadingVelocityTop": 0.0,
                          "LoadingVelocityBot": 0.0, "StressStrainOption": False,
                          "MeshType": "Current", "MeshPath": "0", "SpecimenLength": 0.3,
                          "SpecimenDiameter": 0.15, "MeasuringSurface": 0.01767145867644375}
MATERIAL_TEST_KEYS = tuple(MATERIAL_TEST_DEFAULTS)

SOLVER_SETTINGS_DEFAULTS = """{
    "strategy": "sphere_strategy",
    "RemoveBallsInitiallyTouchingWalls": false,
    "do_search_neighbours": true,
    "model_import_settings": {"input_type": "mdpa", "input_filename": ""},
    "material_import_settings": {"materials_filename": "MaterialsDEM.json"},
    "moreau_jean_settings": {}
}"""

# solver_settings.moreau_jean_settings of "moreau_jean_strategy" (non-smooth
# contact dynamics, applications/dem/nonsmooth/moreau_jean_strategy.h): the
# keys, their defaults and what they must be.
MOREAU_JEAN_DEFAULTS = {
    "theta": (0.5, lambda x: 0.0 <= x <= 1.0, "in [0, 1] (1/2..1: unconditionally stable)"),
    "activation": ("predicted_gap", lambda x: x in ("predicted_gap", "midpoint_gap"),
                   'one of "predicted_gap", "midpoint_gap"'),
    "sweep_order": ("forward", lambda x: x in ("forward", "backward", "symmetric", "random"),
                    'one of "forward", "backward", "symmetric", "random"'),
    "relaxation": (1.0, lambda x: 0.0 < x < 2.0, "in (0, 2)"),
    "warm_start": (True, lambda x: True, "a bool"),
    "tolerance": (1e-8, lambda x: x > 0.0, "> 0 (relative impulse change of a sweep)"),
    "max_iterations": (2000, lambda x: x >= 1 and float(x).is_integer(), "an integer >= 1"),
    "tangential_restitution": (0.0, lambda x: 0.0 <= x <= 1.0, "in [0, 1]"),
    "seed": (1, lambda x: x >= 0 and float(x).is_integer(), "an integer >= 0 (random sweep order)"),
    # "parallel_type": "MPI" only: each rank's sweeps between two exchanges
    # of the impulses at the ranks' interfaces (and two convergence checks).
    "sweeps_per_exchange": (1, lambda x: x >= 1 and float(x).is_integer(), "an integer >= 1"),
}

# sphere_strategy: spheres that touch; continuum_sphere_strategy: spheres of one
# COHESIVE_GROUP bonded at the start (KDEM), the rest as sphere_strategy.
# moreau_jean_strategy: rigid spheres with impulses (non-smooth contact
# dynamics, Moreau-Jean time stepping with NLGS), its options in
# solver_settings.moreau_jean_settings.
STRATEGIES = ("sphere_strategy", "continuum_sphere_strategy", "moreau_jean_strategy")
TIME_STEP_CHECKS = ("warning", "error", "off")
HERTZ_DAMPING_MAPS = ("exact", "thornton_fit")
WALL_FORCE_TRANSFERS = ("direct", "area_distributed")
LINEAR_CONTACT_STIFFNESSES = ("thesis", "kratos")
WALL_SLIDERS = ("thesis", "kratos")
BOND_STIFFNESSES = ("thesis", "kratos")
BOND_AREA_CORRECTIONS = ("kratos", "vpac", "global", "none")
BOND_LEVER_ARMS = ("centres", "kratos")
BROKEN_BONDS = ("frictional", "kratos")
BOND_DAMAGES = ("kratos", "thesis")
GLOBAL_DAMPING_FORMS = ("vector", "per_component")
# Spheres: Direct_Integration turns them with the translational scheme; Kratos'
# Quaternion_Integration and Runge_Kutta reduce, for a sphere, to a symplectic
# update (DemSettings.rotational_scheme). Clusters always take RK-4 quaternions.
# Gear_Predictor_Corrector: five-value Gear (strategies/gear_scheme.h), spheres only.
TRANSLATIONAL_SCHEMES = ("Forward_Euler", "Symplectic_Euler", "Taylor_Scheme", "Velocity_Verlet",
                         "Gear_Predictor_Corrector")
ROTATIONAL_SCHEMES = ("Direct_Integration", "Quaternion_Integration", "Runge_Kutta")


def AllDefaults():
    defaults = dict(DEFAULTS)
    defaults.update(IGNORED_OUTPUT)
    defaults.update({key: value for key, (value, _) in POST_FLAGS.items()})
    defaults.update(CONTINUUM_ONLY)
    defaults.update(MATERIAL_TEST_DEFAULTS)
    return defaults


def _KindOf(value):
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "object"


def _Matches(parameter, kind):
    return {"bool": parameter.IsBool, "number": parameter.IsNumber, "string": parameter.IsString,
            "object": parameter.IsSubParameter}[kind]()


def _Add(parameters, key, value):
    if isinstance(value, bool):
        parameters.AddBool(key, value)
    elif isinstance(value, int):
        parameters.AddInt(key, value)
    elif isinstance(value, float):
        parameters.AddDouble(key, value)
    elif isinstance(value, str):
        parameters.AddString(key, value)
    else:
        parameters.AddValue(key, tessera.Parameters("{}"))


def ValidateAndAssignDefaults(parameters):
    """Checks every top-level key of a DEM project against the known ones (an
    unknown key is an error listing them, a value of the wrong kind an error
    naming the key) and adds the missing ones with Kratos' defaults. Keys whose
    name starts with "_" are switched off and skipped, as elsewhere in Tessera;
    "problem_data" is the kernel stage's own block."""
    defaults = AllDefaults()
    where = parameters.Origin()
    if parameters.Has("TestType") and parameters["TestType"].IsString() \
            and parameters["TestType"].GetString() != "None":
        raise tessera.Error(f"{where}: 'TestType' \"{parameters['TestType'].GetString()}\" asks for Kratos' "
                            "DEM material-test stage, which is not supported yet; Tessera's virtual "
                            "laboratory (\"analysis_stage\": \"tessera.dem.virtual_lab\", "
                            "docs/user_guide.md) runs UCS, triaxial, hydrostatic, oedometric and "
                            "Brazilian tests on a specimen it generates")
    for key in parameters.keys():
        # problem_data is the kernel stage's; parallel_type and mpi_settings
        # are read by distributed_run.py.
        if key.startswith("_") or key in ("problem_data", "parallel_type", "mpi_settings"):
            continue
        if key not in defaults:
            raise tessera.Error(
                f"{where}: unknown key '{key}' in the DEM parameters"
                f"{tessera.DidYouMean(key, list(defaults))}; allowed keys: "
                f"{', '.join(sorted(defaults, key=str.lower))}")
        kind = _KindOf(defaults[key])
        if not _Matches(parameters[key], kind):
            raise tessera.Error(f"{where}: key '{key}' must be a {kind} (Kratos default: "
                                f"{defaults[key]!r})")
    for key, value in defaults.items():
        if not parameters.Has(key):
            _Add(parameters, key, value)

    solver = parameters["solver_settings"]
    # Kratos' older stage chose the continuum strategy by the element type
    # (the benchmark decks give no solver_settings.strategy).
    if not solver.Has("strategy") and parameters["ElementType"].IsString() \
            and parameters["ElementType"].GetString() == "SphericContPartDEMElement3D":
        solver.AddString("strategy", "continuum_sphere_strategy")
    # Older decks put RemoveBallsInitiallyTouchingWalls under strategy_parameters.
    solver.ValidateAndAssignDefaults(tessera.Parameters(SOLVER_SETTINGS_DEFAULTS))
    solver["model_import_settings"].ValidateAndAssignDefaults(
        tessera.Parameters('{"input_type": "mdpa", "input_filename": ""}'))
    solver["material_import_settings"].ValidateAndAssignDefaults(
        tessera.Parameters('{"materials_filename": "MaterialsDEM.json"}'))

    _CheckRanges(parameters, where)
    if parameters["Dimension"].GetInt() not in (2, 3):
        raise tessera.Error(f"{where}: 'Dimension' is {parameters['Dimension'].GetInt()}; expected 3 "
                            "(spheres) or 2 (CylinderParticle2D discs in the x-y plane)")
    virtual_mass = parameters["VirtualMassCoefficient"].GetDouble()
    if not 0.0 < virtual_mass <= 1.0:
        raise tessera.Error(f"{where}: 'VirtualMassCoefficient' is {virtual_mass}; expected "
                            "0 < c <= 1 (accelerations are c F/m; 1: none)")
    delta = parameters["DeltaOption"].GetString()
    if delta not in ("Absolute", "None"):
        raise tessera.Error(f"{where}: 'DeltaOption' is '{delta}'; supported: \"Absolute\" "
                            "(search radius + SearchTolerance) and \"None\" (no extension)")
    strategy = solver["strategy"].GetString()
    if strategy not in STRATEGIES:
        raise tessera.Error(f"{where}: solver_settings.strategy '{strategy}' is not supported yet; "
                            f"the DEM application runs {' and '.join(STRATEGIES)}")
    if strategy == "continuum_sphere_strategy":
        for key in ("PoissonEffectOption", "ShearStrainParallelToBondOption"):
            if parameters[key].GetBool():
                raise tessera.Error(f"{where}: '{key}' true is not supported yet by the "
                                    "continuum strategy (its stress-tensor term is not "
                                    "implemented); set it to false")
        if parameters["Dimension"].GetInt() != 3:
            raise tessera.Error(f"{where}: continuum_sphere_strategy bonds 3D spheres; 'Dimension' "
                                "must be 3")
    _CheckMoreauJeanSettings(solver, strategy, where)
    if not solver["do_search_neighbours"].GetBool():
        raise tessera.Error(f"{where}: solver_settings.do_search_neighbours false is not supported "
                            "(contacts need the search)")
    input_type = solver["model_import_settings"]["input_type"].GetString()
    if input_type != "mdpa":
        raise tessera.Error(f"{where}: solver_settings.model_import_settings.input_type "
                            f"'{input_type}' is not supported; the DEM stage reads \"mdpa\" files")
    for key, choices in (("HertzDampingMap", HERTZ_DAMPING_MAPS),
                         ("WallForceTransfer", WALL_FORCE_TRANSFERS),
                         ("WallSlider", WALL_SLIDERS),
                         ("LinearContactStiffness", LINEAR_CONTACT_STIFFNESSES),
                         ("BondStiffness", BOND_STIFFNESSES),
                         ("BondAreaCorrection", BOND_AREA_CORRECTIONS),
                         ("BondLeverArms", BOND_LEVER_ARMS),
                         ("BrokenBonds", BROKEN_BONDS),
                         ("BondDamage", BOND_DAMAGES),
                         ("GlobalDampingForm", GLOBAL_DAMPING_FORMS),
                         ("TimeStepCheck", TIME_STEP_CHECKS)):
        _CheckChoice(parameters, key, choices, where)
    sort_frequency = parameters["SortParticlesFrequency"]
    if not sort_frequency.IsInt() or sort_frequency.GetInt() < 0:
        raise tessera.Error(f"{where}: 'SortParticlesFrequency' must be an integer >= 0 (steps "
                            f"between spatial sorts of the particles; 0: never), got "
                            f"{sort_frequency.WriteJsonString()}")
    GidPostSettings(parameters)  # unknown GiD modes fail here, before the run
    _CheckChoice(parameters, "TranslationalIntegrationScheme", TRANSLATIONAL_SCHEMES, where)
    _CheckChoice(parameters, "RotationalIntegrationScheme", ROTATIONAL_SCHEMES, where)
    return parameters


def _CheckMoreauJeanSettings(solver, strategy, where):
    """solver_settings.moreau_jean_settings: known keys of the right kind and
    range (errors name the key), the defaults added."""
    block = solver["moreau_jean_settings"]
    if not block.IsSubParameter():
        raise tessera.Error(f"{where}: solver_settings.moreau_jean_settings must be an object")
    given = list(block.keys())
    if given and strategy != "moreau_jean_strategy":
        raise tessera.Error(f"{where}: solver_settings.moreau_jean_settings is read by "
                            f"\"moreau_jean_strategy\" only; the strategy is '{strategy}'")
    for key in given:
        if key not in MOREAU_JEAN_DEFAULTS:
            raise tessera.Error(
                f"{where}: unknown key '{key}' in solver_settings.moreau_jean_settings"
                f"{tessera.DidYouMean(key, list(MOREAU_JEAN_DEFAULTS))}; allowed keys: "
                f"{', '.join(MOREAU_JEAN_DEFAULTS)}")
        default, valid, expected = MOREAU_JEAN_DEFAULTS[key]
        kind = _KindOf(default)
        if not _Matches(block[key], kind):
            raise tessera.Error(f"{where}: solver_settings.moreau_jean_settings.{key} must be a "
                                f"{kind}, {expected}")
        value = {"bool": block[key].GetBool, "number": block[key].GetDouble,
                 "string": block[key].GetString}[kind]()
        if not valid(value):
            raise tessera.Error(f"{where}: solver_settings.moreau_jean_settings.{key} is "
                                f"{value!r}; expected {expected}")
    for key, (default, _, _) in MOREAU_JEAN_DEFAULTS.items():
        if not block.Has(key):
            _Add(block, key, default)


def _CheckChoice(parameters, key, choices, where):
    """A string key whose value is not one of `choices` is an error naming them."""
    value = parameters[key].GetString()
    if value not in choices:
        raise tessera.Error(f"{where}: '{key}' is '{value}'; expected one of {', '.join(choices)}")


def _CheckRanges(parameters, where):
    """Values outside their physical range are errors naming the key, where
    they would otherwise run silently: a negative FinalTime runs no step, an
    inverted bounding box deletes every sphere at its first check."""
    def number(key):
        return parameters[key].GetDouble()

    if not number("FinalTime") >= 0.0:
        raise tessera.Error(f"{where}: 'FinalTime' must be >= 0 (the run starts at 0), got "
                            f"{number('FinalTime')}")
    if not number("OutputTimeStep") > 0.0:
        raise tessera.Error(f"{where}: 'OutputTimeStep' must be > 0, got {number('OutputTimeStep')}")
    frequency = parameters["NeighbourSearchFrequency"]
    if not frequency.IsInt() or frequency.GetInt() < 1:
        raise tessera.Error(f"{where}: 'NeighbourSearchFrequency' must be an integer >= 1 (steps "
                            f"between searches), got {frequency.WriteJsonString()}")
    for key in ("SearchTolerance", "search_tolerance_against_walls"):
        if not number(key) >= 0.0:
            raise tessera.Error(f"{where}: '{key}' must be >= 0, got {number(key)}")
    if not 0.0 <= number("GlobalDamping") < 1.0:
        raise tessera.Error(f"{where}: 'GlobalDamping' must be in [0, 1), got "
                            f"{number('GlobalDamping')}")
    if not parameters["BoundingBoxOption"].GetBool():
        return
    for axis in "XYZ":
        low, high = number(f"BoundingBoxMin{axis}"), number(f"BoundingBoxMax{axis}")
        if not low < high:
            raise tessera.Error(f"{where}: with 'BoundingBoxOption' true, 'BoundingBoxMin{axis}' "
                                f"({low}) must be below 'BoundingBoxMax{axis}' ({high}): the box "
                                "would delete every sphere")
    start, stop = number("BoundingBoxStartTime"), number("BoundingBoxStopTime")
    if not start <= stop:
        raise tessera.Error(f"{where}: 'BoundingBoxStartTime' ({start}) is after "
                            f"'BoundingBoxStopTime' ({stop})")


# Kratos' DEM GiD keys -> (ASCII?, multiple files?). OutputFileType and
# Multifile are what the DEM decks write; GiDPostMode and GiDMultiFileFlag are
# the names of Kratos' GiD flags, accepted for decks that use them.
GID_POST_MODES = {"Ascii": True, "Binary": False, "GiD_PostAscii": True, "GiD_PostBinary": False,
                  "GiD_PostAsciiZipped": False}
GID_MULTIFILE = {"multiple_files": True, "single_file": False, "MultipleFiles": True,
                 "SingleFile": False}


def GidPostSettings(parameters):
    """(ascii, multiple_files) of the GiD post files. Tessera writes ASCII
    only: a binary (or zipped) mode is written as ASCII, and `ascii` is False
    so that the stage can warn. Unknown values are errors naming the key."""
    where = parameters.Origin()

    def pick(key, alias, table):
        name = parameters[alias].GetString() or parameters[key].GetString()
        used = alias if parameters[alias].GetString() else key
        if name not in table:
            raise tessera.Error(f"{where}: '{used}' is '{name}'; expected one of "
                                f"{', '.join(table)}")
        return table[name]

    return (pick("OutputFileType", "GiDPostMode", GID_POST_MODES),
            pick("Multifile", "GiDMultiFileFlag", GID_MULTIFILE))


# Post* flags of Kratos' contact mesh (the bonds' elements) and the field of
# the bonds' VTK file (bond_vtk_output.py) that carries each.
BOND_POST_FLAGS = {"PostContactSigma": "sigma", "PostContactTau": "tau",
                   "PostContactFailureId": "state", "PostLocalContactForce": "normal_force"}


def UnwrittenPostFlags(parameters, bonds_written=False):
    """The Post* flags set true whose results this build does not write (no
    nodal variable in POST_FLAGS; where `bonds_written`, the bonds' file holds
    those of BOND_POST_FLAGS), in POST_FLAGS order."""
    return [key for key, (_, variable) in POST_FLAGS.items()
            if variable is None and parameters[key].GetBool()
            and not (bonds_written and key in BOND_POST_FLAGS)]


def PostVariables(parameters, for_walls, always_radius=True):
    """The nodal variables the Post* flags select (for VTK and GiD output).
    VTK output always gets RADIUS (ParaView draws the spheres with it); GiD
    writes the radius into the Sphere elements of the mesh, so RADIUS is a
    result there only with PostRadius."""
    names = []
    for key, (_, variable) in POST_FLAGS.items():
        if variable and parameters[key].GetBool():
            names.append(variable)
    wall_names = {"DISPLACEMENT", "VELOCITY", "CONTACT_FORCES", "ELASTIC_FORCES",
                  "TANGENTIAL_ELASTIC_FORCES", "DEM_PRESSURE", "SHEAR_STRESS", "DEM_NODAL_AREA"}
    if for_walls:
        return [n for n in names if n in wall_names]
    particle_names = {"DISPLACEMENT", "VELOCITY", "RADIUS", "ANGULAR_VELOCITY", "ELASTIC_FORCES",
                      "CONTACT_FORCES", "TOTAL_FORCES", "PARTICLE_MOMENT", "DEM_STRESS_TENSOR"}
    selected = [n for n in names if n in particle_names]
    if always_radius and "RADIUS" not in selected:
        selected.append("RADIUS")
    return selected
