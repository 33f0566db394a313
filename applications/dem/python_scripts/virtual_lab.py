"""The virtual laboratory (thesis §5.5, §6.1.4): standard tests on a specimen
of bonded spheres, to calibrate a cohesive material.

A project folder runs it with ProjectParameters.json

    {"analysis_stage": "tessera.dem.virtual_lab",
     "virtual_lab": {"test": "UCS", "specimen": {...}, "material": {...},
                     "loading": {...}, "output": {...}}}

(`tessera run FOLDER`), and Python with VirtualLaboratory(settings).Run().
The keys and their defaults are DEFAULTS below (docs/user_guide.md,
"Cohesive materials and the virtual laboratory").

What a run does:
1. Generates the specimen (tessera.dem.specimen: a cylinder Ø150 × 300 mm by
   default, or a Brazilian disc; a random dense packing of radii uniform in
   radius × [1 - spread, 1 + spread], by radius-growth compaction) and reports
   its porosity and bond coordination number.
2. Writes it as a Kratos deck (spheres mdpa with COHESIVE_GROUP 1 and
   SKIN_SPHERE, walls mdpa with the platens as RigidFace3D3N squares, the
   material as legacy mdpa Properties with the DEM_Dempack keys) into the
   output folder, and runs it with the DEM stage's continuum strategy (bonds
   within the range β of the material, BOND_RANGE_BETA; sections by VPAC).
3. Loads it:
   - UCS: the platens approach at `platen_velocity` each;
   - triaxial: first the confinement p, ramped over `confinement_time` and
     held: laterally the thesis' forces F = γ p π R_i² (§5.5; γ = the
     lateral area over Σ π R_i² of the spheres that carry them), each along
     its sphere's current radius toward the axis (_PrepareConfinement);
     axially through the platens, servo-controlled to the force p × section
     (_ServoGain, _MovePlatens) over the ramp and SERVO_HOLD_FRACTION of
     `confinement_time` more (longer, until the axial stress has settled to
     p: SERVO_SETTLED_TOLERANCE), as the cell's oil loads the laboratory's
     platens (the thesis' axial forces on the end spheres crushed the end
     layers: _PrepareConfinement); then the platens as in UCS;
   - hydrostatic: the same confinement, the platens' servo holding p to the end;
   - oedometric: the lateral surface held radially (each lateral sphere's
     distance from the axis kept at its initial value, its radial velocity
     removed, before every step: a rigid, frictionless sleeve that touches
     every lateral sphere from the start), the platens as in UCS;
   - BTS (Brazilian): a disc compressed across its diameter by the platens.
4. Samples, every `sample_steps` steps: time, axial strain (of a cylinder:
   the approach of the mean heights of its two end layers of spheres over
   their initial distance, the thesis' strain from particle positions (5.40);
   of a disc: the platens' approach over the diameter), compression
   positive; the platens' approach over the initial height (their actual
   travel: an LVDT between them); lateral strain
   (minus the mean radial displacement of the lateral spheres over their
   initial radial position: compression positive), volumetric strain
   (axial + 2 lateral), the bulk's axial, lateral and volumetric strains
   (the homogeneous deformation fitted to the interior spheres' positions, the
   lateral and end layers left out: HomogeneousStrain, BULK_DEPTH_RADII;
   the lateral spheres' strain carries their indentation under a triaxial
   test's point forces), axial stress (the platens' mean force over the
   section; with the confinement, which the platens carry; of a disc the
   splitting tensile stress 2P / (π D t) at its centre), confinement,
   intact bonds and bonds
   broken in tension and in shear.
5. Writes <name>.csv (those columns, a row as each sample is taken: a run
   stopped or cut off keeps its samples), <name>.png (the stress–strain curve
   with the peak marked; matplotlib) and <name>_summary.json (E: the slope of
   axial stress against axial strain between 10 % and 50 % of the peak (of
   a triaxial test: of the rise above the stress at the platens' start), by
   least squares; ν: minus the slope of lateral over axial strain there;
   the same two of the bulk's strains, young_modulus_bulk and
   poisson_ratio_bulk (NaN for BTS: a disc squeezed across a diameter is
   not in uniaxial stress);
   peak stress, the strain and the platens' strain at peak; the specimen's porosity and
   coordination number; for BTS the tensile strength 2 P / (π D t), the
   peak of its stress).
   Stopped by hand (KeyboardInterrupt), a test writes the summary and the
   plot of its samples so far before the interrupt goes on.
6. With output.checkpoint_steps N > 0, writes the DEM stage's checkpoints
   every N steps and at a SIGTERM/SIGINT (then stops) into
   <folder>/checkpoints, the lab's own state among them (SaveCheckpoint);
   Run(restart=FILE) / `tessera run FOLDER --restart FILE` continues the
   test from one, its curve the uninterrupted one's (CHANGEABLE_ON_RESTART:
   the settings it may change).
"""
import copy
import csv
import json
import math
import os

import numpy as np

import tessera
from tessera.analysis_stage import AnalysisStage

from .specimen import GenerateSpecimen, SkinFlags

TESTS = ("UCS", "triaxial", "hydrostatic", "oedometric", "BTS")
# The bonds' critical step (ContinuumBonds::CriticalTimeStep) is a row-sum
# bound, conservative: the thesis' V5.3 cylinder (13,473 spheres, Table 5.5,
# heavily damped) ran stably at 1.98 times it and broke bonds by the
# thousand in its first thousand steps at 2.5 times and at the thesis'
# unstable 5e-7 s (3.8 times); the 379-sphere specimen with the default
# material ran stably at 2.5 times and not at 3 (docs/validation.md).
# Beyond this factor the lab refuses the step.
BOND_UNSTABLE_TIME_STEP_FACTOR = 2.0

# Triaxial and hydrostatic tests: after the confinement ramp the platens' servo
# holds the axial stress at p for this fraction of confinement_time more
# before a triaxial test's platens move: the servo lags the ramp by about its
# time constant (_ServoGain), a few tenths of a millisecond on the V5.3
# cylinder, and the hold lets the axial stress settle to p first. A specimen
# that still consolidates at the hold's end (compressive plasticity at high p:
# the V5.3 cylinder at 60 MPa stood at p - 13 % there) is held on, until both
# platens' forces are within SERVO_SETTLED_TOLERANCE of p × section, for at
# most SERVO_MAX_HOLD_FRACTION of confinement_time (then the platens start
# with a warning): the deviatoric loading starts from the hydrostatic state.
SERVO_HOLD_FRACTION = 0.5
SERVO_SETTLED_TOLERANCE = 0.01
SERVO_MAX_HOLD_FRACTION = 10.0

# The bulk's strain (bulk_axial_strain, bulk_lateral_strain) is fitted to the
# spheres whose centres lie deeper than this many largest radii inside the
# specimen's curved surface and, of a cylinder, its ends: the lateral layer
# (the triaxial point forces F = γ p π R_i² indent it: its radial strain in
# the hydrostatic phase was 3.6 times p (1 - 2ν) / E on the 379-sphere
# specimen) and the end layers against the platens left out.
BULK_DEPTH_RADII = 2.0

# Thesis Table 5.5 (Sfer et al. concrete), in Kratos' names; u^f / u^l = 1.2
# (DAMAGE_FACTOR 0.2: the table's "0.2" read as Kratos' factor).
DEFAULT_MATERIAL = {
    "PARTICLE_DENSITY": 2500.0,
    "YOUNG_MODULUS": 28e9,
    "POISSON_RATIO": 0.2,
    "FRICTION": 0.25,
    "COEFFICIENT_OF_RESTITUTION": 0.2,  # Kratos benchmark 27 (the thesis: 0.0015)
    "DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME": "DEM_D_Linear_viscous_Coulomb",
    "DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME": "DEM_Dempack",
    "CONTACT_SIGMA_MIN": 5.0e6,
    "CONTACT_TAU_ZERO": 16.0e6,
    "CONTACT_INTERNAL_FRICC": 0.9,
    "DAMAGE_FACTOR": 0.2,
    "SHEAR_ENERGY_COEF": 0.2,
    "SLOPE_LIMIT_COEFF_C1": 20e6,
    "SLOPE_LIMIT_COEFF_C2": 45e6,
    "SLOPE_LIMIT_COEFF_C3": 70e6,
    "SLOPE_FRACTION_N1": 3.0,
    "SLOPE_FRACTION_N2": 12.0,
    "SLOPE_FRACTION_N3": 22.0,
    "BOND_RANGE_BETA": 0.15,
}

DEFAULTS = {
    "test": "UCS",
    "specimen": {"shape": "cylinder", "diameter": 0.15, "length": 0.30, "radius": 0.0075,
                 "spread": 0.25, "solid_fraction": 0.55, "tolerance": 0.02, "verlet_list": False,
                 "seed": 1},
    "material": DEFAULT_MATERIAL,
    "loading": {
        "platen_velocity": 0.05,        # m/s, each platen
        "confinement_pressure": 0.0,    # Pa
        "confinement_time": 2e-3,       # s, the ramp of the confinement
        "final_axial_strain": 0.01,
        "stop_at_fraction_of_peak": 0.5,  # stop once the stress fell below this of the peak
        "end_time": 0.0,                # s; 0: from the strain or the confinement ramp
        "delta_time": 0.0,              # s; 0: 0.5 of the bonds' critical step
        "global_damping": 0.2,          # thesis (5.18-5.19), §5.5
        "area_correction": "vpac",
        "bond_damage": "kratos",        # DEM_Dempack past the strength (BondDamage)
    },
    "output": {"folder": "virtual_lab", "name": "", "sample_steps": 20, "plot": True,
               "checkpoint_steps": 0},
}

# What a continued test may change (VirtualLaboratory.LoadCheckpoint): how far
# it runs, when it stops, where it writes, its plot and checkpoints. Any
# other setting (the specimen, the material, the loading) would continue
# another test than the one saved.
CHANGEABLE_ON_RESTART = ("loading.final_axial_strain", "loading.end_time",
                         "loading.stop_at_fraction_of_peak", "output.folder", "output.plot",
                         "output.checkpoint_steps")
CHECKPOINTS_KEPT = 2


def _Merge(defaults, given, where):
    out = copy.deepcopy(defaults)
    for key, value in given.items():
        if key not in defaults:
            raise tessera.Error(f"{where}: unknown key '{key}'; allowed: {', '.join(defaults)}")
        if isinstance(defaults[key], dict) and key != "material":
            if not isinstance(value, dict):
                raise tessera.Error(f"{where}.{key} must be an object")
            out[key] = _Merge(defaults[key], value, f"{where}.{key}")
        elif key == "material":
            if not isinstance(value, dict):
                raise tessera.Error(f"{where}.material must be an object of material variables")
            out[key].update(value)
        else:
            out[key] = value
    return out


def Settings(given=None, where="virtual_lab"):
    """The settings with DEFAULTS filled in and checked (errors name `where` and the key)."""
    settings = _Merge(DEFAULTS, given or {}, where)
    if settings["test"] not in TESTS:
        raise tessera.Error(f"{where}.test: '{settings['test']}' is not one of {', '.join(TESTS)}")
    loading = settings["loading"]
    for key in ("platen_velocity", "confinement_time", "final_axial_strain"):
        if not loading[key] > 0.0:
            raise tessera.Error(f"{where}.loading.{key} must be > 0, got {loading[key]}")
    if loading["confinement_pressure"] < 0.0:
        raise tessera.Error(f"{where}.loading.confinement_pressure must be >= 0 (Pa, compression), "
                            f"got {loading['confinement_pressure']}")
    if loading["bond_damage"] not in ("kratos", "thesis"):
        raise tessera.Error(f"{where}.loading.bond_damage: '{loading['bond_damage']}' is not "
                            "\"kratos\" or \"thesis\"")
    if settings["test"] in ("triaxial", "hydrostatic") and not loading["confinement_pressure"] > 0.0:
        raise tessera.Error(f"{where}.loading.confinement_pressure must be > 0 for a "
                            f"{settings['test']} test")
    steps = settings["output"]["checkpoint_steps"]
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise tessera.Error(f"{where}.output.checkpoint_steps must be an integer >= 0 (0: no "
                            f"checkpoints), got {steps!r}")
    for block, key in (("specimen", "verlet_list"), ("output", "plot")):
        if not isinstance(settings[block][key], bool):
            raise tessera.Error(f"{where}.{block}.{key} must be true or false, got "
                                f"{settings[block][key]!r}")
    if settings["test"] == "BTS" and settings["specimen"]["shape"] != "disc":
        settings["specimen"]["shape"] = "disc"
        if "length" not in (given or {}).get("specimen", {}):
            settings["specimen"]["length"] = 0.5 * settings["specimen"]["diameter"]
    if settings["test"] != "BTS" and settings["specimen"]["shape"] != "cylinder":
        raise tessera.Error(f"{where}.specimen.shape: the {settings['test']} test needs a "
                            f"'cylinder', got '{settings['specimen']['shape']}'")
    # The material's bond law parameters, checked as the materials file's are.
    from tessera import _dem
    properties = tessera.Properties(1)
    for name, value in settings["material"].items():
        if not hasattr(tessera, name):
            raise tessera.Error(f"{where}.material: unknown variable '{name}'")
        properties.SetValue(getattr(tessera, name), value)
    _dem.CheckBondLaw(properties, f"{where}.material")
    if not settings["output"]["name"]:
        settings["output"]["name"] = settings["test"].lower()
    return settings


def _FormatValue(value):
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "1" if value else "0"
    return repr(float(value)) if isinstance(value, float) else str(value)


def HomogeneousStrain(initial, current):
    """The Biot strain U - I (3×3, extension positive) of the homogeneous
    deformation x = F (X - X̄) + x̄ fitted by least squares to the points'
    initial and current positions (rows), F = R U its polar decomposition:
    exact for any homogeneous deformation, and blind to a rigid motion
    (a translation or a rotation of the specimen leaves it zero). Along a
    principal axis it is the engineering strain: a stretch λ of the
    positions along x gives (U - I)_xx = λ - 1, the lateral spheres'
    (ρ - ρ0) / ρ0 of a uniform radial stretch. NaN where the points span
    no volume (fewer than four, or coplanar)."""
    initial = np.asarray(initial, dtype=float)
    current = np.asarray(current, dtype=float)
    if len(initial) < 4:
        return np.full((3, 3), np.nan)
    x0 = initial - initial.mean(axis=0)
    x = current - current.mean(axis=0)
    # x0 F^T = x in the least-squares sense.
    solution, _, rank, _ = np.linalg.lstsq(x0, x, rcond=None)
    if rank < 3:
        return np.full((3, 3), np.nan)
    w, stretches, vt = np.linalg.svd(solution.T)
    if np.linalg.det(w) * np.linalg.det(vt) < 0.0:  # a reflection: no deformation of a solid
        return np.full((3, 3), np.nan)
    return (vt.T * stretches) @ vt - np.eye(3)


def _Platen(f, first_node, first_condition, properties, z, half, part):
    """Two RigidFace3D3N triangles of a square of side 2 half at height z."""
    nodes = [(-half, -half), (half, -half), (half, half), (-half, half)]
    f.write("Begin Nodes\n")
    for k, (x, y) in enumerate(nodes):
        f.write(f"{first_node + k} {x!r} {y!r} {z!r}\n")
    f.write("End Nodes\n")
    a, b, c, d = (first_node + k for k in range(4))
    f.write("Begin Conditions RigidFace3D3N\n")
    f.write(f"{first_condition} {properties} {a} {b} {c}\n{first_condition + 1} {properties} {a} {c} {d}\n")
    f.write("End Conditions\n")
    return list(range(first_node, first_node + 4)), [first_condition, first_condition + 1]


class VirtualLaboratory:
    """One test of the virtual laboratory (see the module comment)."""

    def __init__(self, settings=None, where="virtual_lab", folder="."):
        from tessera.parallel import DistributedCommunicator
        ranks = DistributedCommunicator()
        if ranks is not None:
            # Its servo and strains read every sphere and wall of one process.
            raise tessera.Error(f"{where}: the virtual laboratory runs in one process (OpenMP "
                                f"threads: OMP_NUM_THREADS), but mpirun started {ranks.Size()} "
                                "ranks; start it without mpirun")
        self.settings = Settings(settings, where)
        self.where = where
        self.folder = os.path.join(folder, self.settings["output"]["folder"])
        self.name = self.settings["output"]["name"]
        self.rows = []
        self.summary = {}
        self._csv = None  # the CSV, open while the test samples

    # ---- deck
    def _WriteDeck(self):
        s = self.settings
        spec = s["specimen"]
        self.specimen = GenerateSpecimen(spec["shape"], spec["diameter"], spec["length"],
                                         spec["radius"], spec["spread"], spec["solid_fraction"],
                                         spec["seed"], tolerance=spec["tolerance"],
                                         verlet_list=spec["verlet_list"],
                                         where=f"{self.where}.specimen")
        sp = self.specimen
        beta = float(s["material"].get("BOND_RANGE_BETA", 0.15))
        self.porosity = sp.Porosity()
        self.coordination = sp.CoordinationNumber(beta)
        self.skin = SkinFlags(sp)
        os.makedirs(self.folder, exist_ok=True)
        name = self.name
        with open(os.path.join(self.folder, f"{name}DEM.mdpa"), "w") as f:
            f.write("Begin Properties 1\n")
            for key, value in s["material"].items():
                f.write(f"{key} {_FormatValue(value)}\n")
            f.write("End Properties\n\nBegin Nodes\n")
            for k, p in enumerate(sp.position):
                f.write(f"{k + 1} {p[0]!r} {p[1]!r} {p[2]!r}\n")
            f.write("End Nodes\n\nBegin Elements SphericContinuumParticle3D\n")
            for k in range(len(sp.radius)):
                f.write(f"{k + 1} 1 {k + 1}\n")
            f.write("End Elements\n\nBegin NodalData RADIUS\n")
            for k, r in enumerate(sp.radius):
                f.write(f"{k + 1} 0 {r!r}\n")
            f.write("End NodalData\n\nBegin NodalData COHESIVE_GROUP\n")
            for k in range(len(sp.radius)):
                f.write(f"{k + 1} 0 1\n")
            f.write("End NodalData\n\nBegin NodalData SKIN_SPHERE\n")
            for k, flag in enumerate(self.skin):
                if flag:
                    f.write(f"{k + 1} 0 1\n")
            f.write("End NodalData\n")
        low, high = sp.AxialExtent()
        self.height = high - low
        half = 0.75 * sp.diameter if sp.shape == "cylinder" else 0.75 * max(sp.diameter, sp.length)
        # Triaxial and hydrostatic: the lab moves the platens itself (_MovePlatens:
        # a servo on their force while the confinement ramps and holds, then, for
        # a triaxial test, the platen speed), so the deck imposes no motion.
        velocity = 0.0 if self._Servo() else s["loading"]["platen_velocity"]
        start = self._PlatenStart()
        n = len(sp.radius)
        with open(os.path.join(self.folder, f"{name}DEM_FEM_boundary.mdpa"), "w") as f:
            f.write("Begin Properties 2\nFRICTION 0.0\nWALL_COHESION 0.0\nYOUNG_MODULUS "
                    f"{_FormatValue(float(s['material']['YOUNG_MODULUS']))}\nPOISSON_RATIO 0.2\n"
                    "COEFFICIENT_OF_RESTITUTION 0.2\nEnd Properties\n")
            bottom_nodes, bottom_conditions = _Platen(f, n + 1, 1, 2, low, half, "bottom")
            top_nodes, top_conditions = _Platen(f, n + 5, 3, 2, high, half, "top")
            for part, nodes, conditions, v in (("bottom", bottom_nodes, bottom_conditions, velocity),
                                               ("top", top_nodes, top_conditions, -velocity)):
                f.write(f"Begin SubModelPart {part}\n  Begin SubModelPartData\n"
                        f"    RIGID_BODY_MOTION 1\n    LINEAR_VELOCITY [3] (0.0,0.0,{v!r})\n"
                        f"    VELOCITY_START_TIME {start!r}\n    VELOCITY_STOP_TIME 1e30\n"
                        f"    TOP {1 if part == 'top' else 0}\n    BOTTOM {1 if part == 'bottom' else 0}\n"
                        "  End SubModelPartData\n  Begin SubModelPartNodes\n")
                f.write("".join(f"    {k}\n" for k in nodes))
                f.write("  End SubModelPartNodes\n  Begin SubModelPartConditions\n")
                f.write("".join(f"    {k}\n" for k in conditions))
                f.write("  End SubModelPartConditions\nEnd SubModelPart\n")

    def _Servo(self):
        """Whether the platens are stress-controlled to the confinement (triaxial, hydrostatic)."""
        return self.settings["test"] in ("triaxial", "hydrostatic")

    def _PlatenStart(self):
        """The earliest time the platens start moving at the platen speed:
        after the confinement ramp and the servo's hold of a triaxial test
        (thesis §5.5: (a) the confinement to its hydrostatic value, (b) the
        axial motion). The run's own start, `platen_start`, is later where
        the axial stress has not settled by then (_MovePlatens)."""
        s = self.settings
        if s["test"] != "triaxial":
            return 0.0
        return (1.0 + SERVO_HOLD_FRACTION) * float(s["loading"]["confinement_time"])

    def _Parameters(self):
        s = self.settings
        loading = s["loading"]
        parameters = {
            "Dimension": 3, "GravityX": 0.0, "GravityY": 0.0, "GravityZ": 0.0,
            "BoundingBoxOption": False, "RotationOption": True,
            "TranslationalIntegrationScheme": "Symplectic_Euler",
            "RotationalIntegrationScheme": "Direct_Integration",
            "DeltaOption": "Absolute", "SearchTolerance": 0.0,
            "NeighbourSearchFrequency": 20,
            "MaxTimeStep": 1e-10, "FinalTime": 1.0,
            "GlobalDamping": float(loading["global_damping"]),
            "BondAreaCorrection": loading["area_correction"],
            "BondDamage": loading["bond_damage"],
            "ElementType": "SphericContPartDEMElement3D",
            "OutputTimeStep": 1e30, "post_vtk_option": False,
            "problem_name": self.name,
            "PoissonEffectOption": False, "ShearStrainParallelToBondOption": False,
            "solver_settings": {"strategy": "continuum_sphere_strategy"},
        }
        every = s["output"]["checkpoint_steps"]
        if every > 0:
            # In the output folder (the loop runs there): every `every` steps
            # and at a SIGTERM/SIGINT (the step finished, a checkpoint, then
            # the stop: RunSolutionLoop).
            parameters["restart_options"] = {
                "SaveRestart": True, "RestartFrequency": every, "RestartControl": "step",
                "checkpoint_folder": "checkpoints", "max_files_to_keep": CHECKPOINTS_KEPT,
                "checkpoint_on_signal": True}
        return tessera.Parameters(json.dumps(parameters))

    # ---- run
    def Initialize(self, restart=None):
        """Generates the specimen, writes its deck and starts the DEM stage;
        `restart`: a checkpoint of this test (output.checkpoint_steps) to
        continue from, loaded once all is built as for a fresh start."""
        from .dem_analysis_stage import DEMAnalysisStage
        self._WriteDeck()
        # Absolute: the loop runs in the output folder.
        self._csv_path = os.path.abspath(os.path.join(self.folder, self.name + ".csv"))
        lab = self

        class Stage(DEMAnalysisStage):
            def InitializeSolutionStep(self):
                super().InitializeSolutionStep()
                lab._Confine(self)

            def FinalizeSolutionStep(self):
                super().FinalizeSolutionStep()
                lab._Sample(self)

        self.model = tessera.Model()
        cwd = os.getcwd()
        os.chdir(self.folder)
        try:
            self.stage = Stage(self.model, self._Parameters())
            self.stage.spheres_model_part.AddNodalSolutionStepVariable(tessera.EXTERNAL_APPLIED_FORCE)
            self.stage.AddCheckpointable("VirtualLaboratory", self)
            self.stage.Initialize()
        finally:
            os.chdir(cwd)
        strategy = self.stage.GetStrategy()
        dt = self.settings["loading"]["delta_time"]
        self.critical_time_step = strategy.EstimateTimeStep(
            max(self.settings["loading"]["platen_velocity"], 0.01)).critical_time_step
        if not dt > 0.0:
            dt = 0.5 * self.critical_time_step
        else:
            self._CheckTimeStep(dt)
        strategy.SetDeltaTime(dt)
        self.stage._GetSolver().dt = dt
        self.dt = dt
        self.platen_start = self._PlatenStart()
        self.platens_moving = self.settings["test"] != "triaxial"
        self._SetEndTime()
        spheres = self.stage.spheres_model_part
        ids = np.asarray(spheres.NodeIds())
        coordinates = np.asarray(spheres.NodalCoordinates())
        order = np.argsort(ids)
        self.initial = coordinates[order].copy()  # by id - 1
        sp = self.specimen
        if sp.shape == "cylinder":
            self.initial_rho = np.hypot(self.initial[:, 0], self.initial[:, 1])
        else:
            self.initial_rho = np.hypot(self.initial[:, 0], self.initial[:, 2] - 0.5 * sp.diameter)
        self.lateral = np.nonzero(self.skin == 1)[0]
        self.interior = self._Interior()
        ends = self.skin == 2
        mid = 0.5 * (self.initial[:, 2].min() + self.initial[:, 2].max())
        self.top, self.bottom = ends & (self.initial[:, 2] > mid), ends & (self.initial[:, 2] <= mid)
        if sp.shape == "cylinder":
            self.end_distance = float(np.mean(self.initial[self.top, 2])
                                      - np.mean(self.initial[self.bottom, 2]))
        self.section = math.pi * sp.diameter**2 / 4.0
        walls = self.stage.rigid_face_model_part
        self.platen_nodes = {part: list(walls.GetSubModelPart(part).Nodes)
                             for part in ("top", "bottom")}
        self.platen_initial = {part: float(nodes[0].Z) for part, nodes in self.platen_nodes.items()}
        self.platen_z = dict(self.platen_initial)
        self.servo_gain = self._ServoGain()
        self._PrepareConfinement()
        self.step = 0
        self.peak = 0.0
        self.finished = False
        if restart is not None:
            path = os.path.abspath(restart)
            os.chdir(self.folder)
            try:
                self.stage.LoadCheckpoint(path)  # the lab's own state too (LoadCheckpoint)
            finally:
                os.chdir(cwd)

    def _Interior(self):
        """The ids - 1 of the spheres the bulk's strain is fitted to: centres
        deeper than BULK_DEPTH_RADII largest radii inside the curved surface
        and (a cylinder's) the ends; a warning where they span no volume
        (then the bulk columns are NaN)."""
        sp = self.specimen
        depth = BULK_DEPTH_RADII * float(sp.radius.max())
        inside = self.initial_rho < 0.5 * sp.diameter - depth
        if sp.shape == "cylinder":
            low, high = sp.AxialExtent()
            z = self.initial[:, 2]
            inside &= (z > low + depth) & (z < high - depth)
        interior = np.nonzero(inside)[0]
        if np.isnan(HomogeneousStrain(self.initial[interior], self.initial[interior])).any():
            import warnings
            warnings.warn(f"{self.where}.specimen: {len(interior)} spheres lie deeper than "
                          f"{BULK_DEPTH_RADII:g} largest radii inside the specimen, too few to fit "
                          "the bulk's strain (bulk_axial_strain, bulk_lateral_strain, "
                          "bulk_volumetric_strain: NaN); "
                          "a larger specimen or smaller spheres have more", stacklevel=3)
        return interior

    def _BulkStrains(self, coordinates):
        """The interior's homogeneous strain, compression positive: axial
        (along z, the platens' axis), lateral (of a cylinder the mean of x
        and y, across its axis; of a disc x, across the load in its plane)
        and volumetric (minus the trace: of a cylinder axial + 2 lateral)."""
        strain = HomogeneousStrain(self.initial[self.interior], coordinates[self.interior])
        if self.specimen.shape == "cylinder":
            lateral = -0.5 * (strain[0, 0] + strain[1, 1])
        else:
            lateral = -strain[0, 0]
        return -float(strain[2, 2]), float(lateral), -float(np.trace(strain))

    def _CheckTimeStep(self, dt):
        """The given Δt against the bonds' critical step (ContinuumBonds::
        CriticalTimeStep): an error beyond BOND_UNSTABLE_TIME_STEP_FACTOR
        times it, before any step; a warning between."""
        import warnings
        critical = self.critical_time_step
        if not dt > critical:
            return
        ratio = dt / critical
        message = (f"{self.where}.loading.delta_time: {dt:g} s is {ratio:.3g} times the "
                   f"critical time step {critical:.3g} s of the bonded specimen")
        if dt > BOND_UNSTABLE_TIME_STEP_FACTOR * critical:
            raise tessera.Error(message + f": beyond {BOND_UNSTABLE_TIME_STEP_FACTOR:.3g} times it "
                                "the specimen is unstable; set delta_time <= "
                                f"{critical:.3g} (or 0: half of it)")
        warnings.warn(message + " (the bound is conservative; within "
                      f"{BOND_UNSTABLE_TIME_STEP_FACTOR:.3g} times it the run is let go)",
                      stacklevel=2)

    def _SetEndTime(self):
        s = self.settings
        loading = s["loading"]
        if loading["end_time"] > 0.0:
            end = loading["end_time"]
        elif s["test"] == "hydrostatic":
            end = 2.0 * loading["confinement_time"]
        else:
            end = self._EndOfTravel()
        self.end_time = end
        self.stage.end_time = end

    def _EndOfTravel(self):
        """When the platens, started at platen_start, have travelled the final strain."""
        loading = self.settings["loading"]
        travel = loading["final_axial_strain"] * self.height / 2.0
        return self.platen_start + travel / loading["platen_velocity"]

    def _ServoGain(self):
        """The platens' servo moves each platen at G (F* - F), F* = p section
        the target force and F the force the spheres exerted on it in the last
        step: a dashpot 1/G pushed by F*, passive, which settles with the time
        constant 1 / (G k) on the specimen's axial stiffness k = E' section /
        height. The explicit loop bounds G: the platen's velocity enters the
        force at once through its contacts' dashpots (each 2 ξ sqrt(m k_n),
        with k_n ∝ E R, m ∝ ρ R³ and about section / R² contacts: together
        c ≈ ξ section sqrt(E ρ), independent of the radius), and a velocity
        G ΔF fed back through c alternates in sign every step unless G c < 1
        (measured on the 460-sphere quick specimen, ξ 0.90: G = 1/Z
        chattered with period 2 at ±1,600 N). G = 1 / (4 Z), Z = section
        sqrt(E ρ (1 - porosity)) (input E, bulk density), keeps G c near
        0.3; its time constant 4 Z / k is ~0.2 ms on that specimen and ~0.5
        ms on the V5.3 cylinder (the servo's hold, SERVO_HOLD_FRACTION)."""
        m = self.settings["material"]
        density = float(m["PARTICLE_DENSITY"]) * (1.0 - self.porosity)
        return 0.25 / (self.section * math.sqrt(float(m["YOUNG_MODULUS"]) * density))

    def _PrepareConfinement(self):
        """The magnitudes F = γ p π R_i² of the lateral spheres' forces for p
        = 1 (thesis §5.5), by sphere id - 1; _Confine points each at the axis
        from where its sphere is at that step. Forces fixed in the directions
        of the initial positions are dead loads: a
        rigid rotation φ of the specimen about its axis turns each into a
        torque r F sin φ that drives the rotation on, a rotational stiffness
        -p 2π R² H that nothing restrains (the platens are frictionless); the
        specimen spins up as exp(t sqrt(4 p / (ρ (1 - n) R²))), an
        e-folding time of 0.16 ms at 9 MPa on the 460-sphere quick specimen
        (measured: the kinetic energy grew eightfold every 0.2 ms under a
        constant 9 MPa, the same at half the time step, until the specimen
        burst), so the higher the confinement the sooner a triaxial specimen
        failed. Forces along the current radius, as a pressure's follow its
        surface, pass through the axis: no torque. The lateral spheres
        loaded are all that reach within a mean radius of the curved surface,
        those of the ends' rims included (SkinFlags marks these as end
        spheres): unloaded, the rims were squeezed out between the platens
        and the confined lateral spheres (the quick specimen at 60 MPa: 15
        spheres ejected). The ends' share of the confinement goes
        through the platens (_MovePlatens), not onto the end spheres: forces
        γ p π R_i² on the end spheres push each into the specimen on its own,
        against its few bonds below (a fraction of the lateral spheres' many
        around), and crush the end layers before the test starts (the V5.3
        cylinder: 0.75 % axial strain of the end spheres at 4.5 MPa, ~25
        times the elastic p (1 - 2ν) / E; docs/validation.md); a platen
        pressed to p σ = F / section loads the end as the cell's oil does
        through the laboratory's platens."""
        s = self.settings
        sp = self.specimen
        self.unit_confinement = np.zeros(len(sp.radius))
        if s["test"] not in ("triaxial", "hydrostatic"):
            return
        area = math.pi * sp.radius**2
        lateral = self.initial_rho + sp.radius > 0.5 * sp.diameter - float(sp.radius.mean())
        gamma = math.pi * sp.diameter * self.height / float(area[lateral].sum())
        self.unit_confinement[lateral] = gamma * area[lateral]

    def _Pressure(self, time):
        loading = self.settings["loading"]
        if self.settings["test"] not in ("triaxial", "hydrostatic"):
            return 0.0
        ramp = min(1.0, time / loading["confinement_time"])
        return ramp * loading["confinement_pressure"]

    def _HoldLateral(self, stage):
        """The oedometer's radial constraint: a sleeve built from wall facets
        leaves gaps between its facets and the skin spheres of a coarse
        specimen, which then widens freely until it reaches them (its modulus
        came out as the UCS one). Instead each lateral sphere is put back at
        its initial distance from the axis, at its current angle and height,
        and its radial velocity removed, before every step: within a step it
        moves radially by at most a_r Δt², so the sleeve is rigid to that
        order; the spheres slide freely along it (no friction)."""
        spheres = stage.spheres_model_part
        ids = np.asarray(spheres.NodeIds())
        held = self.skin[ids - 1] == 1
        if not held.any():
            return
        x = spheres.NodalCoordinates()
        v = spheres.NodalArray(tessera.VELOCITY)
        rho0 = self.initial_rho[ids[held] - 1]
        px, py = x[held, 0], x[held, 1]
        rho = np.maximum(np.hypot(px, py), 1e-300)
        ex, ey = px / rho, py / rho
        x[held, 0], x[held, 1] = rho0 * ex, rho0 * ey
        radial = v[held, 0] * ex + v[held, 1] * ey
        v[held, 0] -= radial * ex
        v[held, 1] -= radial * ey

    def _MovePlatens(self, stage):
        """Triaxial and hydrostatic: each platen to where it is at this step's
        time, moved by the servo (_ServoGain) on its force from the last step
        until the platen start, then at the platen speed (triaxial)."""
        time = stage.time
        target = self._Pressure(time) * self.section
        forces = {part: abs(stage.GetWallForceAndMoment(part)[0][2]) for part in ("top", "bottom")}
        if not self.platens_moving and time > self.platen_start:
            self._StartPlatensOnceSettled(stage, target, forces)
        servo = self.settings["test"] == "hydrostatic" or not self.platens_moving
        for part, sign in (("top", -1.0), ("bottom", 1.0)):
            if servo:
                approach = self.servo_gain * (target - forces[part])
            else:
                approach = self.settings["loading"]["platen_velocity"]
            self.platen_z[part] += sign * approach * self.dt
            for node in self.platen_nodes[part]:
                node.Z = self.platen_z[part]
                node.SetSolutionStepValue(tessera.VELOCITY_Z, sign * approach)

    def _StartPlatensOnceSettled(self, stage, target, forces):
        """After the hold: the platens start where both forces are within
        SERVO_SETTLED_TOLERANCE of the target, or the longest hold is over;
        otherwise the servo holds on and the platen start and the end of the
        travel move one step later."""
        loading = self.settings["loading"]
        time = stage.time
        settled = all(abs(target - f) <= SERVO_SETTLED_TOLERANCE * target for f in forces.values())
        longest = (1.0 + SERVO_MAX_HOLD_FRACTION) * float(loading["confinement_time"])
        if settled or time > longest:
            self.platens_moving = True
            if not settled:
                import warnings
                worst = max(abs(target - f) for f in forces.values()) / target
                warnings.warn(f"{self.where}: the axial stress is still {100 * worst:.2g} % off "
                              f"the confinement at t = {time:.4g} s, after the longest hold "
                              f"(SERVO_MAX_HOLD_FRACTION); the platens start", stacklevel=3)
            return
        self.platen_start = time
        if not loading["end_time"] > 0.0:
            self.end_time = self._EndOfTravel()
            stage.end_time = self.end_time

    def _Confine(self, stage):
        if self.settings["test"] == "oedometric":
            self._HoldLateral(stage)
        if not self._Servo():
            return
        self._MovePlatens(stage)
        spheres = stage.spheres_model_part
        ids = np.asarray(spheres.NodeIds())
        x = np.asarray(spheres.NodalCoordinates())
        rho = np.maximum(np.hypot(x[:, 0], x[:, 1]), 1e-300)
        magnitude = self._Pressure(stage.time) * self.unit_confinement[ids - 1] / rho
        forces = np.asarray(spheres.NodalArray(tessera.EXTERNAL_APPLIED_FORCE))
        forces[:, 0] = -magnitude * x[:, 0]
        forces[:, 1] = -magnitude * x[:, 1]
        forces[:, 2] = 0.0

    def _PlatenForce(self, stage):
        forces = []
        for part in ("top", "bottom"):
            force, _ = stage.GetWallForceAndMoment(part)
            forces.append(abs(force[2]))
        return 0.5 * (forces[0] + forces[1])

    def _Sample(self, stage):
        self.step += 1
        every = self.settings["output"]["sample_steps"]
        if self.step % every:
            return
        s = self.settings
        time = stage.time
        spheres = stage.spheres_model_part
        ids = np.asarray(spheres.NodeIds())
        coordinates = np.empty_like(self.initial)
        coordinates[ids - 1] = np.asarray(spheres.NodalCoordinates())
        sp = self.specimen
        if sp.shape == "cylinder":
            rho = np.hypot(coordinates[:, 0], coordinates[:, 1])
        else:
            rho = np.hypot(coordinates[:, 0], coordinates[:, 2] - 0.5 * sp.diameter)
        lat = self.lateral
        lateral_strain = -float(np.mean((rho[lat] - self.initial_rho[lat]) / self.initial_rho[lat])) \
            if len(lat) else 0.0
        if self._Servo():  # the platens' travel (an LVDT between them)
            platen_strain = (self.platen_z["bottom"] - self.platen_initial["bottom"]
                             + self.platen_initial["top"] - self.platen_z["top"]) / self.height
        else:  # the imposed motion's
            platen_strain = 2.0 * s["loading"]["platen_velocity"] * time / self.height
        if sp.shape == "cylinder":
            # The specimen's own strain (thesis 5.40: from the particles'
            # positions): the mean axial displacements of its end spheres.
            shortening = float(np.mean(self.initial[self.top, 2] - coordinates[self.top, 2])
                               + np.mean(coordinates[self.bottom, 2] - self.initial[self.bottom, 2]))
            axial_strain = shortening / self.end_distance
        else:
            axial_strain = platen_strain
        bulk_axial, bulk_lateral, bulk_volumetric = self._BulkStrains(coordinates)
        pressure = self._Pressure(time)
        force = self._PlatenForce(stage)
        if s["test"] == "BTS":
            # The splitting tensile stress at the disc's centre, 2P / (π D t):
            # its peak is the Brazilian tensile strength.
            stress = 2.0 * force / (math.pi * sp.diameter * sp.length)
        else:  # triaxial, hydrostatic: the platens carry the axial confinement too
            stress = force / self.section
        bonds = stage.GetStrategy().BondArrays()
        state = np.asarray(bonds["state"])
        row = {"time": time, "axial_strain": axial_strain, "platen_strain": platen_strain,
               "lateral_strain": lateral_strain,
               "volumetric_strain": axial_strain + 2.0 * lateral_strain,
               "bulk_axial_strain": bulk_axial, "bulk_lateral_strain": bulk_lateral,
               "bulk_volumetric_strain": bulk_volumetric,
               "axial_stress": stress,
               "platen_force": force, "confinement": pressure,
               "intact_bonds": int(np.count_nonzero(state == 0)),
               "broken_tension": int(np.count_nonzero(state == 4)),
               "broken_shear": int(np.count_nonzero(state == 2))}
        self.rows.append(row)
        self._AppendToCsv(row)
        self.peak = max(self.peak, stress)
        fraction = s["loading"]["stop_at_fraction_of_peak"]
        # A triaxial specimen fails only once the platens load it: not while
        # the confinement ramps and holds.
        loading = time > self.platen_start
        if s["test"] in ("UCS", "triaxial", "BTS") and self.peak > 0.0 and fraction > 0.0 \
                and loading and stress < fraction * self.peak and len(self.rows) > 10:
            stage.end_time = min(stage.end_time, time)  # the specimen has failed

    def _AppendToCsv(self, row, flush=True):
        # Each sample reaches the disk as it is taken: a long test stopped by
        # hand, killed or cut off keeps its curve up to its last sample.
        if self._csv is None:
            self._csv = open(self._csv_path, "w", newline="")
            self._csv_writer = csv.DictWriter(self._csv, fieldnames=list(row))
            self._csv_writer.writeheader()
        self._csv_writer.writerow(row)
        if flush:
            self._csv.flush()

    def _CloseCsv(self):
        if self._csv is not None:
            self._csv.close()
            self._csv = None

    def RunSolutionLoop(self):
        from tessera.checkpoint import SignalStop
        cwd = os.getcwd()
        os.chdir(self.folder)
        try:
            self.stage.RunSolutionLoop()
        except (KeyboardInterrupt, SignalStop) as stop:
            # Stopped by hand (a ductile test that will not drop, say), or by
            # a signal after its checkpoint: the summary and the plot of the
            # samples so far, then the interrupt.
            os.chdir(cwd)
            self._WriteResults()  # closes the CSV
            where = f"; it continues from {os.path.join(self.folder, stop.path)}" \
                if isinstance(stop, SignalStop) else ""
            print(f"{self.name}: interrupted at t = {self.stage.time:.6g} s; the results of "
                  f"its {len(self.rows)} samples are in {self.folder}{where}", flush=True)
            raise
        finally:
            os.chdir(cwd)

    def Finalize(self):
        cwd = os.getcwd()
        os.chdir(self.folder)
        try:
            self.stage.Finalize()
        finally:
            os.chdir(cwd)
        self._WriteResults()

    def Run(self, restart=None):
        self.Initialize(restart)
        self.RunSolutionLoop()
        self.Finalize()
        return self.summary

    # ---- checkpoints (the DEM stage's, output.checkpoint_steps): the lab's
    # own state beside the stage's, so that a continued test samples, servos
    # and stops as the uninterrupted one, bitwise.
    def SaveCheckpoint(self, writer, group):
        columns = list(self.rows[0]) if self.rows else []
        integers = [k for k in columns if isinstance(self.rows[0][k], int)]
        state = {"settings": self.settings, "step": self.step, "peak": self.peak,
                 "platens_moving": self.platens_moving, "platen_start": self.platen_start,
                 "platen_z": self.platen_z, "columns": columns, "integer_columns": integers}
        writer.WriteString(group + "/State", json.dumps(state))
        for k in columns:
            dtype = np.int64 if k in integers else np.float64
            writer.Write(f"{group}/Samples/{k}", np.array([r[k] for r in self.rows], dtype=dtype))

    def LoadCheckpoint(self, reader, group):
        state = json.loads(reader.ReadString(group + "/State"))
        self._CheckSavedSettings(state["settings"], reader.path)
        self.step = state["step"]
        self.peak = state["peak"]
        self.platens_moving = state["platens_moving"]
        self.platen_start = state["platen_start"]
        self.platen_z = state["platen_z"]
        columns = {}
        for k in state["columns"]:
            if k in state["integer_columns"]:
                columns[k] = [int(v) for v in reader.ReadInt64(f"{group}/Samples/{k}")]
            else:
                columns[k] = [float(v) for v in reader.ReadDoubles(f"{group}/Samples/{k}")]
        count = len(columns[state["columns"][0]]) if columns else 0
        self.rows = [{k: columns[k][i] for k in state["columns"]} for i in range(count)]
        # The CSV as it was at the checkpoint (a run cut off after it had
        # sampled on), then the continued run's rows appended.
        self._CloseCsv()
        for row in self.rows:
            self._AppendToCsv(row, flush=False)
        if self._csv is not None:
            self._csv.flush()
        else:  # no sample yet: the CSV starts at the first
            open(self._csv_path, "w").close()
        # The end from this run's settings (a longer travel may continue a
        # test that has not peaked) and the saved platen start.
        self._SetEndTime()

    def _CheckSavedSettings(self, saved, path):
        from tessera.checkpoint import CompareDecks
        differs = CompareDecks(json.dumps(saved), json.dumps(self.settings),
                               also_free=CHANGEABLE_ON_RESTART)
        if differs is not None:
            key, then, now = differs
            raise tessera.Error(f"checkpoint {path}: {self.where}.{key} is {now!r}; the saved "
                                f"test had {then!r} (a continued test may change only "
                                f"{', '.join(CHANGEABLE_ON_RESTART)})")

    # ---- results
    def Columns(self):
        """The sampled series as numpy arrays by column name."""
        keys = list(self.rows[0]) if self.rows else []
        return {k: np.array([r[k] for r in self.rows]) for k in keys}

    def _Elastic(self, c):
        """E and ν from the samples between 10 % and 50 % of the peak stress
        (least-squares slopes, so a triaxial test's confinement, the offset
        at the platens' start, drops out): of the end layers' axial strain
        and the lateral spheres' strain, and of the bulk's two (the
        interior's homogeneous strain: _BulkStrains). A dict of the
        summary's keys; NaN where the window has fewer than two samples."""
        nan = float("nan")
        elastic = {"young_modulus": nan, "poisson_ratio": nan, "young_modulus_bulk": nan,
                   "poisson_ratio_bulk": nan}
        stress = c["axial_stress"]
        # A disc squeezed across a diameter is not in uniaxial stress: these
        # slopes are no E or ν of it.
        if len(stress) < 3 or self.settings["test"] == "BTS":
            return elastic
        peak_index = int(np.argmax(stress))
        # A triaxial test's from the platen start: the rise above the stress there.
        loading = c["time"][: peak_index + 1] > self.platen_start
        base = 0.0
        if self.settings["test"] == "triaxial" and loading.any():
            base = stress[: peak_index + 1][loading][0]
        rise = stress[: peak_index + 1] - base
        top = rise[loading].max() if loading.any() else 0.0
        window = loading & (rise >= 0.1 * top) & (rise <= 0.5 * top)
        if np.count_nonzero(window) < 2:
            return elastic

        def Slope(x, y):
            x, y = c[x][: peak_index + 1][window], y[: peak_index + 1][window]
            if not np.all(np.isfinite(x)) or not np.all(np.isfinite(y)):
                return nan
            return float(np.polyfit(x, y, 1)[0])
        elastic["young_modulus"] = Slope("axial_strain", stress)
        elastic["poisson_ratio"] = -Slope("axial_strain", c["lateral_strain"])
        elastic["young_modulus_bulk"] = Slope("bulk_axial_strain", stress)
        elastic["poisson_ratio_bulk"] = -Slope("bulk_axial_strain", c["bulk_lateral_strain"])
        return elastic

    def _WriteResults(self):
        os.makedirs(self.folder, exist_ok=True)
        base = os.path.join(self.folder, self.name)
        c = self.Columns()
        self._CloseCsv()  # every row is in it (_AppendToCsv)
        s = self.settings
        summary = {"test": s["test"], "spheres": int(len(self.specimen.radius)),
                   "porosity": self.porosity, "coordination_number": self.coordination,
                   "bonds": int(self.stage.GetStrategy().NumberOfBonds()),
                   "height": self.height, "diameter": self.specimen.diameter,
                   "delta_time": self.dt}
        if self.rows:
            k = int(np.argmax(c["axial_stress"]))
            summary.update({"peak_stress": float(c["axial_stress"][k]),
                            "strain_at_peak": float(c["axial_strain"][k]),
                            "platen_strain_at_peak": float(c["platen_strain"][k]),
                            "time_at_peak": float(c["time"][k])})
            summary.update(self._Elastic(c))
            if s["test"] == "triaxial":
                summary["platen_start_time"] = self.platen_start
            if s["test"] == "BTS":
                force = float(c["platen_force"][k])
                summary["tensile_strength"] = 2.0 * force / (math.pi * self.specimen.diameter
                                                             * self.specimen.length)
            summary["broken_tension"] = int(c["broken_tension"][-1])
            summary["broken_shear"] = int(c["broken_shear"][-1])
        self.summary = summary
        with open(base + "_summary.json", "w") as f:
            json.dump(summary, f, indent=2)
        if s["output"]["plot"] and self.rows:
            self._Plot(base + ".png", c, summary)

    def _Plot(self, path, c, summary):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 4.5))
        ax.plot(100 * c["axial_strain"], c["axial_stress"] / 1e6, label="axial")
        if self.settings["test"] not in ("BTS", "hydrostatic"):
            ax.plot(-100 * c["lateral_strain"], c["axial_stress"] / 1e6, label="lateral")
            ax.plot(-100 * c["bulk_lateral_strain"], c["axial_stress"] / 1e6, "--",
                    label="lateral, bulk")
            ax.plot(100 * c["volumetric_strain"], c["axial_stress"] / 1e6, label="volumetric")
        k = int(np.argmax(c["axial_stress"]))
        ax.plot([100 * c["axial_strain"][k]], [c["axial_stress"][k] / 1e6], "o", color="red",
                label=f"peak {c['axial_stress'][k] / 1e6:.3g} MPa")
        if self.settings["test"] == "BTS":
            ax.set_xlabel("the platens' approach over the diameter (%)")
            ax.set_ylabel("splitting tensile stress 2P / (π D t) (MPa)")
        else:
            ax.set_xlabel("strain (%) (lateral: extension positive)")
            ax.set_ylabel("axial stress (MPa)")
        ax.set_title(f"{self.settings['test']}: {summary['spheres']} bonded spheres")
        ax.grid(True, alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        plt.close(fig)


class VirtualLaboratoryStage(AnalysisStage):
    """The virtual laboratory as the stage of a project folder (the
    "virtual_lab" key of ProjectParameters.json; see the module comment)."""

    def __init__(self, model, project_parameters):
        self.model = model
        self.project_parameters = project_parameters
        where = f"{project_parameters.Origin()}: virtual_lab" if hasattr(project_parameters, "Origin") \
            else "virtual_lab"
        if not project_parameters.Has("virtual_lab"):
            raise tessera.Error(f"{where}: the project has no \"virtual_lab\" object")
        given = json.loads(project_parameters["virtual_lab"].WriteJsonString())
        self.lab = VirtualLaboratory(given, where)
        self.time = 0.0
        self.restart = None

    def RestartFrom(self, path):
        """Continue the test saved in the checkpoint `path` (`tessera run
        FOLDER --restart FILE`): call before Initialize()."""
        self.restart = path

    def Initialize(self):
        self.lab.Initialize(self.restart)

    def RunSolutionLoop(self):
        self.lab.RunSolutionLoop()
        self.time = self.lab.stage.time

    def Finalize(self):
        self.lab.Finalize()
        s = self.lab.summary
        print(f"virtual lab {s['test']}: {s['spheres']} spheres, porosity {s['porosity']:.3f}, "
              f"coordination {s['coordination_number']:.2f}, peak {s.get('peak_stress', 0) / 1e6:.4g} "
              f"MPa at strain {100 * s.get('strain_at_peak', 0):.3g} %, E {s.get('young_modulus', 0) / 1e9:.4g} "
              f"GPa, nu {s.get('poisson_ratio', float('nan')):.3g} (bulk "
              f"{s.get('poisson_ratio_bulk', float('nan')):.3g}); results in {self.lab.folder}",
              flush=True)

    def Run(self):
        self.Initialize()
        self.RunSolutionLoop()
        self.Finalize()
