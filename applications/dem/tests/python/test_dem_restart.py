"""Checkpoint and restart of DEM runs (applications/dem/io/dem_checkpoint.h,
tessera.checkpoint): a run continued from a checkpoint written after K steps
gives bitwise the results of the uninterrupted run of N steps. Compared with
numpy array_equal (no tolerance: the restart must not change a bit): every
row column of the strategy, the nodes' coordinates, velocities and forces,
the contact counts, and the two runs' final checkpoints (model parts and the
DEM state) dataset by dataset."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tessera
from tessera.checkpoint import DifferingDatasets

ROW_COLUMNS = ("position", "velocity", "angular_velocity", "displacement", "delta_displacement",
               "delta_rotation", "rotation_angle", "force", "torque", "contact_force",
               "elastic_force", "radius", "mass", "inertia", "material", "element_id", "fixed",
               "glued", "cluster")
NODAL = ("VELOCITY", "ANGULAR_VELOCITY", "DISPLACEMENT", "TOTAL_FORCES", "CONTACT_FORCES",
         "PARTICLE_MOMENT")
WALL_NODAL = ("VELOCITY", "DISPLACEMENT", "CONTACT_FORCES", "DEM_PRESSURE")


# ------------------------------------------------------------------ decks written here
GRAIN = {"PARTICLE_DENSITY": 2500.0, "YOUNG_MODULUS": 1e7, "POISSON_RATIO": 0.25}
FLOOR = {"YOUNG_MODULUS": 1e9, "POISSON_RATIO": 0.25}
FRICTIONAL = {"COEFFICIENT_OF_RESTITUTION": 0.5, "STATIC_FRICTION": 0.3, "DYNAMIC_FRICTION": 0.3}


def _Materials(grain_relation, grain=GRAIN, inlet=True):
    table = [["SpheresPart", "grain"], ["RigidFacePart", "floor"]]
    if inlet:
        table.append(["DEMInletPart.Inlet_1", "grain"])
    return {
        "materials": [{"material_name": "grain", "material_id": 1, "Variables": grain},
                      {"material_name": "floor", "material_id": 2, "Variables": FLOOR}],
        "material_relations": [
            {"material_names_list": ["grain", "floor"], "material_ids_list": [1, 2],
             "Variables": dict(FRICTIONAL, DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME=
                               "DEM_D_Hertz_viscous_Coulomb")},
            {"material_names_list": ["grain", "grain"], "material_ids_list": [1, 1],
             "Variables": grain_relation}],
        "material_assignation_table": table}


SPHERES = """Begin Properties 1
End Properties
Begin Nodes
  11 0.0 0.0 0.05
  12 0.3 0.0 0.05
  13 0.1 0.12 0.05
End Nodes
Begin Elements SphericParticle3D
  5 1 11
  6 1 12
  7 1 13
End Elements
Begin NodalData RADIUS
  11 0 0.05
  12 0 0.05
  13 0 0.04
End NodalData
Begin NodalData VELOCITY_X
  12 0 -2.0
End NodalData
"""

# The floor rises at 0.4 m/s and turns about z at 2 rad/s (imposed motion).
MOVING_FLOOR = """Begin Properties 2
End Properties
Begin Nodes
  1 -1.0 -1.0 0.0
  2  1.0 -1.0 0.0
  3  1.0  1.0 0.0
  4 -1.0  1.0 0.0
End Nodes
Begin Conditions RigidFace3D4N
  1 2 1 2 3 4
End Conditions
Begin SubModelPart floor
  Begin SubModelPartData
    RIGID_BODY_MOTION 1
    LINEAR_VELOCITY [3] (0.0, 0.0, 0.4)
    ANGULAR_VELOCITY [3] (0.0, 0.0, 2.0)
    ROTATION_CENTER [3] (0.0, 0.0, 0.0)
  End SubModelPartData
  Begin SubModelPartNodes
    1
    2
    3
    4
  End SubModelPartNodes
  Begin SubModelPartConditions
    1
  End SubModelPartConditions
End SubModelPart
"""

# Nine points 0.2 m above the floor; up to 2000 spheres/s (each point waits
# until its last sphere has left it), radii drawn from a table (the random
# generators are part of the state).
INLET = """Begin Nodes
  1 -0.05 -0.05 0.2
  2 0.00 -0.05 0.2
  3 0.05 -0.05 0.2
  4 -0.05 0.00 0.2
  5 0.00 0.00 0.2
  6 0.05 0.00 0.2
  7 -0.05 0.05 0.2
  8 0.00 0.05 0.2
  9 0.05 0.05 0.2
End Nodes
Begin SubModelPart Inlet_1
  Begin SubModelPartData
    RIGID_BODY_MOTION 0
    IDENTIFIER Inlet_1
    INJECTOR_ELEMENT_TYPE SphericParticle3D
    ELEMENT_TYPE SphericParticle3D
    CONTAINS_CLUSTERS 0
    VELOCITY [3] (0.0, 0.0, -5.0)
    MAX_RAND_DEVIATION_ANGLE 10.0
    INLET_NUMBER_OF_PARTICLES 2000.0
    IMPOSED_MASS_FLOW_OPTION 0
    INLET_START_TIME 0.0
    INLET_STOP_TIME 1.0
    RADIUS 0.02
    PROBABILITY_DISTRIBUTION discrete
    STANDARD_DEVIATION 0.0
    DENSE_INLET 0
  End SubModelPartData
  Begin SubModelPartNodes
    1\n    2\n    3\n    4\n    5\n    6\n    7\n    8\n    9\n  End SubModelPartNodes
End SubModelPart
"""

DT = 1e-4


def WriteInletDeck(folder, walls=MOVING_FLOOR, **overrides):
    """Spheres on a rising, turning floor (or the walls given), fed by an
    inlet; searches every 10 steps with a tolerance (the adaptive search on)."""
    (folder / "inletDEM.mdpa").write_text(SPHERES)
    (folder / "inletDEM_FEM_boundary.mdpa").write_text(walls)
    (folder / "inletDEM_Inlet.mdpa").write_text(INLET)
    relation = dict(FRICTIONAL, DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME="DEM_D_Linear_viscous_Coulomb")
    (folder / "MaterialsDEM.json").write_text(json.dumps(_Materials(relation)))
    parameters = {"problem_name": "inlet", "MaxTimeStep": DT, "FinalTime": 0.03,
                  "NeighbourSearchFrequency": 10, "DeltaOption": "Absolute",
                  "SearchTolerance": 0.002, "search_tolerance_against_walls": 0.002,
                  "SortParticlesFrequency": 50, "EnergyCalculationOption": True,
                  "TimeStepCheck": "off", "dem_inlet_option": True, "seed": 7,
                  "dem_inlets_settings": {"Inlet_1": {"random_variable_settings": {
                      "possible_values": [0.012, 0.015, 0.02],
                      "relative_frequencies": [1.0, 2.0, 1.0]}}}}
    parameters.update(overrides)
    (folder / "ProjectParametersDEM.json").write_text(json.dumps(parameters, indent=1))
    return "ProjectParametersDEM.json"


def WriteBondedChainDeck(folder):
    """Ten KDEM-bonded spheres (R 1 cm, touching) along x over a still floor,
    the two end ones pulled apart at 1 m/s each: the bonds near the ends break
    within the first 30 steps, the other seven hold (and oscillate)."""
    count, radius = 10, 0.01
    nodes = "".join(f"  {k + 1} {2 * radius * k} 0.0 {radius}\n" for k in range(count))
    elements = "".join(f"  {k + 1} 1 {k + 1}\n" for k in range(count))
    radii = "".join(f"  {k + 1} 0 {radius}\n" for k in range(count))
    groups = "".join(f"  {k + 1} 0 1\n" for k in range(count))
    (folder / "chainDEM.mdpa").write_text(
        "Begin Properties 1\nEnd Properties\nBegin Nodes\n" + nodes + "End Nodes\n"
        "Begin Elements SphericContinuumParticle3D\n" + elements + "End Elements\n"
        "Begin NodalData RADIUS\n" + radii + "End NodalData\n"
        "Begin NodalData COHESIVE_GROUP\n" + groups + "End NodalData\n"
        f"Begin NodalData VELOCITY_X\n  1 0 -1.0\n  {count} 0 1.0\nEnd NodalData\n")
    (folder / "chainDEM_FEM_boundary.mdpa").write_text(MOVING_FLOOR.split("Begin SubModelPart")[0])
    relation = dict(FRICTIONAL, DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME="DEM_D_Hertz_viscous_Coulomb",
                    DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME="DEM_KDEM", CONTACT_INTERNAL_FRICC=1.0,
                    CONTACT_TAU_ZERO=2e5, ROTATIONAL_MOMENT_COEFFICIENT=0.0, IS_UNBREAKABLE=False)
    grain = {"PARTICLE_DENSITY": 4000.0, "YOUNG_MODULUS": 1e9, "POISSON_RATIO": 0.2}
    (folder / "MaterialsDEM.json").write_text(json.dumps(_Materials(relation, grain, inlet=False)))
    parameters = {"problem_name": "chain", "MaxTimeStep": 2e-6, "FinalTime": 6e-4,
                  "NeighbourSearchFrequency": 20, "DeltaOption": "Absolute",
                  "SearchTolerance": 0.001, "search_tolerance_against_walls": 0.001,
                  "TranslationalIntegrationScheme": "Velocity_Verlet", "GravityZ": -9.81,
                  "TimeStepCheck": "off", "dem_inlet_option": False,
                  "PoissonEffectOption": False, "ShearStrainParallelToBondOption": False,
                  "solver_settings": {"strategy": "continuum_sphere_strategy"}}
    (folder / "ProjectParametersDEM.json").write_text(json.dumps(parameters, indent=1))
    return "ProjectParametersDEM.json"


# ------------------------------------------------------------------ running and comparing
class Result:
    """What a run ends with: the strategy's row columns, the nodes' values,
    the contact counts, and the checkpoint written at its end."""

    def __init__(self, stage, model, checkpoint):
        strategy = stage.GetStrategy()
        rows = strategy.Particles
        self.columns = {name: np.array(getattr(rows, name)) for name in ROW_COLUMNS}
        self.nodes = {}
        for part, variables in (("SpheresPart", NODAL), ("RigidFacePart", WALL_NODAL)):
            model_part = model.GetModelPart(part)
            nodes = sorted(model_part.Nodes, key=lambda n: n.Id)
            self.nodes[part, "Id"] = np.array([n.Id for n in nodes])
            self.nodes[part, "X"] = np.array([[n.X, n.Y, n.Z] for n in nodes])
            for name in variables:
                variable = getattr(tessera, name)
                self.nodes[part, name] = np.array([n.GetSolutionStepValue(variable) for n in nodes])
        self.counts = (strategy.StepCount(), strategy.NumberOfParticleContacts(),
                       strategy.NumberOfWallContacts(), strategy.NumberOfParticlePairCandidates(),
                       strategy.NumberOfSearches(), strategy.NumberOfEarlySearches(),
                       strategy.NumberOfBonds(), strategy.NumberOfIntactBonds())
        self.free_walls = [{key: np.array(value) for key, value in body.items()}
                           for body in strategy.FreeWalls()]
        self.time = stage.time
        self.checkpoint = checkpoint
        inlets = stage.GetInlets()
        self.injected = [inlets.InjectedCount(i) for i in range(len(inlets))] if inlets else []
        energy = os.path.join(f"{stage.problem_name}_Graphs", f"{stage.problem_name}_energy.dat")
        self.energy_rows = open(energy).read().splitlines()[1:] if os.path.isfile(energy) else []


def Run(folder, parameters_file, steps, dt, restart=None, checkpoint=None, result=Result):
    """The deck run for `steps` steps of dt (FinalTime, which may change on
    restart, half a step before the end: the loop runs while time < FinalTime),
    continued from `restart` if given; its state saved to `checkpoint`; what
    it ends with as `result(stage, model, checkpoint)` gathers it."""
    import tessera.dem
    parameters = tessera.Parameters.FromFile(os.path.join(folder, parameters_file))
    parameters["FinalTime"].SetDouble((steps - 0.5) * dt)
    model = tessera.Model()
    stage = tessera.dem.DEMAnalysisStage(model, parameters)
    if restart is not None:
        stage.RestartFrom(restart)
    stage.Initialize()
    stage.RunSolutionLoop()
    if checkpoint is not None:
        stage.SaveCheckpoint(checkpoint)
    ended = result(stage, model, checkpoint)
    stage.Finalize()
    return ended


def AssertBitwiseEqual(a, b):
    assert a.counts == b.counts
    assert a.time == b.time
    assert a.injected == b.injected
    for name in ROW_COLUMNS:
        assert np.array_equal(a.columns[name], b.columns[name]), name
    for key in a.nodes:
        assert np.array_equal(a.nodes[key], b.nodes[key]), key
    assert len(a.free_walls) == len(b.free_walls)
    for body_a, body_b in zip(a.free_walls, b.free_walls):
        for key in body_a:
            assert np.array_equal(body_a[key], body_b[key]), key
    # Every dataset of the two final checkpoints: the model parts (nodes,
    # buffers, ProcessInfo, elements) and the DEM state (rows, contact lists
    # and histories, bonds, walls, inlets' generators, counters).
    assert DifferingDatasets(a.checkpoint, b.checkpoint, "/ModelParts") == []
    assert DifferingDatasets(a.checkpoint, b.checkpoint, "/Objects") == []


def StraightAndContinued(folder, parameters_file, n, k, dt):
    straight = Run(folder, parameters_file, n, dt, checkpoint=os.path.join(folder, "straight.h5"))
    first = Run(folder, parameters_file, k, dt, checkpoint=os.path.join(folder, "middle.h5"))
    continued = Run(folder, parameters_file, n, dt, restart=os.path.join(folder, "middle.h5"),
                    checkpoint=os.path.join(folder, "continued.h5"))
    assert first.counts[0] == k and straight.counts[0] == n
    return straight, first, continued


# ------------------------------------------------------------------ the tests
def test_a_run_with_an_inlet_and_a_moving_wall_continues_bitwise(tmp_path, monkeypatch):
    """N = 300 steps straight against K = 245 + a checkpoint + 55 in a fresh
    model. K lies between two cadence searches (every 10 steps: 239 and 249);
    the inlet has injected (and drawn radii, positions and directions from its
    generators) before K and goes on injecting after it; the floor moves."""
    monkeypatch.chdir(tmp_path)
    parameters_file = WriteInletDeck(tmp_path, GraphExportFreq=20 * DT)
    straight, first, continued = StraightAndContinued(str(tmp_path), parameters_file, 300, 245, DT)
    # The run is one that tests what it claims: spheres injected before and
    # after K, contacts between spheres and with the floor at K.
    assert 3 < len(first.columns["radius"]) < len(straight.columns["radius"])
    assert first.injected[0] > 0 and straight.injected[0] > first.injected[0]
    assert first.counts[1] > 0 and first.counts[2] > 0
    assert len(set(first.columns["radius"])) > 2  # radii drawn from the table
    AssertBitwiseEqual(straight, continued)
    # The energy graph (every 20 steps) goes on at the uninterrupted run's
    # times with its values; the continued run's file starts afresh (its
    # first row is the deck's initial state, the straight run's first row).
    after_k = [row for row in straight.energy_rows if float(row.split()[0]) > 245 * DT]
    assert len(after_k) == 3
    assert continued.energy_rows == straight.energy_rows[:1] + after_k


def test_a_run_with_an_inlet_on_a_free_floor_continues_bitwise(tmp_path, monkeypatch):
    """The inlet deck with the floor a free rigid body (FREE_BODY_MOTION,
    held vertically and in rotation, pushed along y; test_dem_free_walls'
    FREE_FLOOR_PART) under Velocity Verlet, whose free walls drift before the
    forces and kick after them: N = 300 against K = 245 + 55; the body's
    state (centre, velocities, rotation, loads) is carried over."""
    from test_dem_free_walls import FREE_FLOOR_PART
    monkeypatch.chdir(tmp_path)
    walls = MOVING_FLOOR.split("Begin SubModelPart")[0] + FREE_FLOOR_PART
    parameters_file = WriteInletDeck(tmp_path, walls=walls,
                                     TranslationalIntegrationScheme="Velocity_Verlet")
    straight, first, continued = StraightAndContinued(str(tmp_path), parameters_file, 300, 245, DT)
    assert first.counts[2] > 0 and len(first.free_walls) == 1
    assert np.linalg.norm(first.free_walls[0]["velocity"]) > 1e-3  # the floor moves
    AssertBitwiseEqual(straight, continued)


def test_a_bonded_chain_with_broken_bonds_continues_bitwise(tmp_path, monkeypatch):
    """Continuum strategy (KDEM bonds, Velocity Verlet): N = 300 steps straight
    against K = 150 + 150. By K some bonds have broken and others hold; the
    bonds' state (forces, failure, the law's state) is carried over."""
    monkeypatch.chdir(tmp_path)
    parameters_file = WriteBondedChainDeck(tmp_path)
    straight, first, continued = StraightAndContinued(str(tmp_path), parameters_file, 300, 150, 2e-6)
    bonds, intact = first.counts[6], first.counts[7]
    assert bonds == 9 and intact == 7
    AssertBitwiseEqual(straight, continued)


def DeclareStressTensor(monkeypatch):
    """The stage's spheres declare DEM_STRESS_TENSOR (as a script does before
    Initialize), for this test's runs."""
    from tessera.dem.dem_analysis_stage import DEMSolver
    add_variables = DEMSolver.AddVariables

    def AddVariables(solver):
        add_variables(solver)
        solver.model.GetModelPart("SpheresPart").AddNodalSolutionStepVariable(
            tessera.DEM_STRESS_TENSOR)
    monkeypatch.setattr(DEMSolver, "AddVariables", AddVariables)


class StressResult(Result):
    """Result with every sphere's DEM_STRESS_TENSOR (node ids ascending),
    the strategy's results written to the nodes once more first (as an
    output or a script would right after a restart)."""

    def __init__(self, stage, model, checkpoint):
        stage.GetStrategy().WriteToNodes()
        super().__init__(stage, model, checkpoint)
        nodes = sorted(model.GetModelPart("SpheresPart").Nodes, key=lambda n: n.Id)
        self.nodes["SpheresPart", "DEM_STRESS_TENSOR"] = np.array(
            [np.asarray(n.GetSolutionStepValue(tessera.DEM_STRESS_TENSOR)) for n in nodes])


@pytest.mark.parametrize("deck", ["inlet", "bonded"])
def test_the_stress_tensor_after_a_restart_is_the_straight_runs(tmp_path, monkeypatch, deck):
    """DEM_STRESS_TENSOR is the last force pass's (written by the pass): right
    after the restart from K (no step run: the contact lists and the kept
    forces are the checkpoint's) it is bitwise the run stopped at K's, and the
    continued run ends with the straight run's. The inlet deck (pair and wall
    contacts; the inlet adds rows after every step, whose candidates change
    the lists before the next pass) at K = 245 of 300, and the bonded chain
    (bonds, broken ones, the floor) at 150 of 300."""
    monkeypatch.chdir(tmp_path)
    DeclareStressTensor(monkeypatch)
    folder = str(tmp_path)
    if deck == "inlet":
        parameters_file, n, k, dt = WriteInletDeck(tmp_path), 300, 245, DT
    else:
        parameters_file, n, k, dt = WriteBondedChainDeck(tmp_path), 300, 150, 2e-6
    straight = Run(folder, parameters_file, n, dt, checkpoint=os.path.join(folder, "straight.h5"),
                   result=StressResult)
    first = Run(folder, parameters_file, k, dt, checkpoint=os.path.join(folder, "middle.h5"),
                result=StressResult)
    restarted = Run(folder, parameters_file, k, dt, restart=os.path.join(folder, "middle.h5"),
                    result=StressResult)
    continued = Run(folder, parameters_file, n, dt, restart=os.path.join(folder, "middle.h5"),
                    checkpoint=os.path.join(folder, "continued.h5"), result=StressResult)
    key = "SpheresPart", "DEM_STRESS_TENSOR"
    assert restarted.counts == first.counts
    # Contacts at K, and every sphere's tensor is written (not zero).
    assert first.counts[1] + first.counts[2] + first.counts[6] > 0
    assert np.count_nonzero(np.abs(first.nodes[key]).sum(axis=(1, 2))) > 2
    assert np.array_equal(restarted.nodes[key], first.nodes[key])
    AssertBitwiseEqual(straight, continued)
    assert np.array_equal(straight.nodes[key], continued.nodes[key])


CLUSTER_CASE = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "..",
                                            "shared", "kratos_cases", "dem3d_clusters"))


@pytest.mark.skipif(not os.path.isdir(CLUSTER_CASE), reason="shared/kratos_cases not present")
@pytest.mark.parametrize("k", [5, 10])
def test_a_run_with_rigid_clusters_and_the_bounding_box_continues_bitwise(in_copy, k):
    """Kratos' dem3d_clusters deck (two Cluster3D clusters of 64 spheres,
    Velocity Verlet, walls; the bounding box deletes one cluster with its
    spheres at step 9): N = 12 steps straight against K + 12 - K, with K = 5
    (the deletion after the restart) and K = 10 (before it: the continued run
    deletes the cluster, its centre node and its spheres from the fresh model
    before loading)."""
    folder = str(in_copy("dem3d_clusters"))
    straight, first, continued = StraightAndContinued(folder, "ProjectParametersDEM2.json", 12, k, 5e-7)
    assert len(first.columns["cluster"]) == (128 if k < 9 else 64)
    assert len(straight.columns["cluster"]) == 64 and np.all(straight.columns["cluster"] > 0)
    AssertBitwiseEqual(straight, continued)


def test_tessera_run_restart_on_a_dem_folder_ends_as_the_straight_run(tmp_path, monkeypatch):
    """`tessera run FOLDER --restart FILE` with periodic checkpoints: the
    straight run writes one at step 200, the run stopped at 120 (its
    FinalTime) one at 120, and the run continued from it one at 200 that is
    bitwise the straight run's."""
    monkeypatch.chdir(tmp_path)
    WriteInletDeck(tmp_path, restart_options={"SaveRestart": True, "RestartFrequency": 40})

    # The child imports this tessera whatever the working directory.
    package = os.path.dirname(os.path.dirname(os.path.abspath(tessera.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([package, os.environ.get("PYTHONPATH", "")]))

    def Cli(*arguments):
        return subprocess.run([sys.executable, "-m", "tessera", "run", str(tmp_path), "--quiet",
                               *arguments], capture_output=True, text=True, env=env, timeout=600)

    runs = {"straight": (200, None), "first": (120, None),
            "continued": (200, os.path.join("first", "checkpoint_000000120.h5"))}
    for name, (steps, restart) in runs.items():
        arguments = ["--set", f"FinalTime={(steps - 0.5) * DT}", "--set",
                     f'restart_options.checkpoint_folder="{name}"']
        if restart:
            arguments += ["--restart", str(tmp_path / restart)]
        done = Cli(*arguments)
        assert done.returncode == 0, done.stderr
    assert sorted(os.listdir(tmp_path / "first")) == [f"checkpoint_{s:09d}.h5" for s in (40, 80, 120)]
    assert sorted(os.listdir(tmp_path / "continued")) == [f"checkpoint_{s:09d}.h5" for s in (160, 200)]
    for group in ("/ModelParts", "/Objects"):
        assert DifferingDatasets(str(tmp_path / "straight" / "checkpoint_000000200.h5"),
                                 str(tmp_path / "continued" / "checkpoint_000000200.h5"), group) == []


def test_a_checkpoint_of_another_dem_deck_is_refused(tmp_path, monkeypatch):
    """A checkpoint of the inlet deck offered to the deck with another inlet
    seed: the error names the file and the key that differs."""
    monkeypatch.chdir(tmp_path)
    parameters_file = WriteInletDeck(tmp_path)
    Run(str(tmp_path), parameters_file, 20, DT, checkpoint=str(tmp_path / "inlet.h5"))
    WriteInletDeck(tmp_path, seed=8)
    with pytest.raises(tessera.Error, match=r"checkpoint .*inlet\.h5 belongs to another deck: key "
                                            r"'seed' is 7 there and 8 here"):
        Run(str(tmp_path), parameters_file, 40, DT, restart=str(tmp_path / "inlet.h5"))


def CopyWithout(source, target, left_out):
    """A copy of the checkpoint `source` without the dataset `left_out`."""
    reader, writer = tessera.CheckpointReader(source), tessera.CheckpointWriter(target)
    for name in ("stage",):
        writer.SetAttribute(name, reader.StringAttribute(name))
    writer.SetAttribute("time", reader.DoubleAttribute("time"))
    writer.SetAttribute("step", reader.IntAttribute("step"))
    for name in reader.ListDatasets("/"):
        if name == left_out:
            continue
        for read in (reader.ReadDoubles, reader.ReadInt64, reader.ReadUInt64, reader.ReadUInt32,
                     reader.ReadBytes):
            try:
                values = read(name)
            except tessera.Error:  # another element type
                continue
            writer.Write(name, values)
            break
    writer.Commit()


def test_a_checkpoint_missing_part_of_the_dem_state_is_refused(tmp_path, monkeypatch):
    """The wall contacts' tangential forces left out of a checkpoint: the
    error names the file and the missing dataset."""
    monkeypatch.chdir(tmp_path)
    parameters_file = WriteInletDeck(tmp_path)
    Run(str(tmp_path), parameters_file, 20, DT, checkpoint=str(tmp_path / "whole.h5"))
    missing = "/Objects/Solver/Strategy/WallContacts/tangential_force"
    CopyWithout(str(tmp_path / "whole.h5"), str(tmp_path / "partial.h5"), missing)
    with pytest.raises(tessera.Error, match=rf"checkpoint .*partial\.h5 has no {missing}: its DEM state "
                                            "lacks this part"):
        Run(str(tmp_path), parameters_file, 40, DT, restart=str(tmp_path / "partial.h5"))


def MoreauJeanResult(stage, model, checkpoint):
    """What a Moreau-Jean run ends with: its rows, the spheres' nodes, its
    step count and the last step's active contacts."""
    strategy = stage.GetStrategy()
    rows = strategy.Particles
    result = {name: np.array(getattr(rows, name)) for name in ("position", "velocity",
                                                               "angular_velocity", "displacement")}
    nodes = sorted(model.GetModelPart("SpheresPart").Nodes, key=lambda n: n.Id)
    result["X"] = np.array([[n.X, n.Y, n.Z] for n in nodes])
    result["V"] = np.array([n.GetSolutionStepValue(tessera.VELOCITY) for n in nodes])
    result["steps"] = strategy.StepCount()
    result["contacts"] = strategy.LastStep()["contacts"]
    result["energies"] = stage.GetEnergies()
    return result


def _MoreauJeanRun(folder, steps, restart=None, checkpoint=None):
    return Run(folder, "ProjectParametersDEM.json", steps, 1e-3, restart, checkpoint,
               MoreauJeanResult)


def WriteMoreauJeanDeck(folder):
    (folder / "mjDEM.mdpa").write_text(SPHERES)
    (folder / "mjDEM_FEM_boundary.mdpa").write_text(MOVING_FLOOR.split("Begin SubModelPart")[0])
    relation = dict(FRICTIONAL, DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME="DEM_D_Linear_viscous_Coulomb")
    (folder / "MaterialsDEM.json").write_text(json.dumps(_Materials(relation, inlet=False)))
    parameters = {"problem_name": "mj", "MaxTimeStep": 1e-3, "FinalTime": 0.2,
                  "dem_inlet_option": False, "GravityZ": -9.81, "EnergyCalculationOption": True,
                  "solver_settings": {"strategy": "moreau_jean_strategy",
                                      "moreau_jean_settings": {"sweep_order": "random"}}}
    (folder / "ProjectParametersDEM.json").write_text(json.dumps(parameters))


def test_a_moreau_jean_run_continues_bitwise(tmp_path, monkeypatch):
    """Three spheres dropped on the floor under moreau_jean_strategy (random
    sweep order, warm start), N = 160 steps of 1 ms straight against K = 100
    (spheres resting on and bouncing off the floor, the warm-start impulses
    in use) + a restart + 60: the rows, the nodes, the energies (the
    impulses' losses included) and every dataset of the two final
    checkpoints bitwise equal."""
    monkeypatch.chdir(tmp_path)
    WriteMoreauJeanDeck(tmp_path)
    straight = _MoreauJeanRun(str(tmp_path), 160, checkpoint=str(tmp_path / "straight.h5"))
    first = _MoreauJeanRun(str(tmp_path), 100, checkpoint=str(tmp_path / "middle.h5"))
    assert first["steps"] == 100 and first["contacts"] > 0
    continued = _MoreauJeanRun(str(tmp_path), 160, restart=str(tmp_path / "middle.h5"),
                               checkpoint=str(tmp_path / "continued.h5"))
    for key in ("position", "velocity", "angular_velocity", "displacement", "X", "V"):
        assert np.array_equal(straight[key], continued[key]), key
    assert straight["steps"] == continued["steps"] == 160
    # The impulses' losses before the checkpoint carried over.
    assert straight["energies"] == continued["energies"]
    assert first["energies"]["dissipated_damping"] > 0.0
    assert first["energies"]["dissipated_friction"] > 0.0
    assert DifferingDatasets(str(tmp_path / "straight.h5"), str(tmp_path / "continued.h5"),
                             "/ModelParts") == []
    assert DifferingDatasets(str(tmp_path / "straight.h5"), str(tmp_path / "continued.h5"),
                             "/Objects") == []


def test_a_smooth_checkpoint_is_refused_by_a_moreau_jean_run(tmp_path, monkeypatch):
    """The same spheres and floor saved by the explicit strategy: a
    Moreau-Jean run refuses to continue from it, naming the setting."""
    monkeypatch.chdir(tmp_path)
    WriteMoreauJeanDeck(tmp_path)
    parameters = json.loads((tmp_path / "ProjectParametersDEM.json").read_text())
    parameters["solver_settings"] = {"strategy": "moreau_jean_strategy"}
    (tmp_path / "ProjectParametersDEM.json").write_text(json.dumps(parameters))
    smooth = dict(parameters, solver_settings={"strategy": "sphere_strategy"})
    (tmp_path / "Smooth.json").write_text(json.dumps(smooth))
    Run(str(tmp_path), "Smooth.json", 5, 1e-3, checkpoint=str(tmp_path / "smooth.h5"))
    with pytest.raises(tessera.Error, match=r"checkpoint .*smooth\.h5 belongs to another deck: key "
                                            r"'solver_settings.*strategy"):
        _MoreauJeanRun(str(tmp_path), 10, restart=str(tmp_path / "smooth.h5"))
