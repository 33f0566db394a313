"""Kratos' DEM processes (tessera.dem.processes): the dem3d_kinematic_constraints
deck run unchanged against the values Kratos' test_kinematic_constraints.py
checks (absolute tolerance 1e-3, as there), the wall rigid-body motion against
its analytic solution, external forces and moments, and the errors."""
import math

import numpy as np
import pytest

import tessera
import tessera.dem
from tessera.dem.processes.apply_kinematic_constraints_to_walls_process import RotationMatrix

from dem_test_utilities import Material, Relate, Sphere, SquarePlate

KRATOS_TOLERANCE = 1e-3  # test_kinematic_constraints.py compares with this absolute tolerance


class CheckingStage(tessera.dem.DEMAnalysisStage):
    """The per-step checks of Kratos' test script, recorded while the deck runs."""

    def __init__(self, model, parameters):
        super().__init__(model, parameters)
        self.checked = []

    def _Node(self, node_id):
        return self.spheres_model_part.GetNode(node_id)

    def _Check(self, label, value, expected):
        self.checked.append(label)
        assert value == pytest.approx(expected, abs=KRATOS_TOLERANCE), label

    def FinalizeSolutionStep(self):
        super().FinalizeSolutionStep()
        t = self.time
        velocity = lambda i: list(self._Node(i).GetSolutionStepValue(tessera.VELOCITY))  # noqa: E731
        spin = lambda i: list(self._Node(i).GetSolutionStepValue(tessera.ANGULAR_VELOCITY))  # noqa: E731
        if 0.19 < t < 0.2:
            self._Check("ball 1 held", velocity(1) + spin(1), [0.0] * 6)
        if abs(t - 0.30) <= 1e-6:
            self._Check("ball 1 falls after release", velocity(1)[1], -0.985905)
            self._Check("ball 5 tables", velocity(5) + spin(5), [3.0, 2.995, 3.0, 3.0, 3.0, 3.0])
        if 0.25 < t < 0.3:
            self._Check("ball 2 function of t", velocity(2)[0], -10.0 * t)
        if 0.05 < t < 0.1:
            self._Check("ball 3 imposed", velocity(3) + spin(3), [-5.0, 0.0, 0.0, 0.0, 0.0, -10.0])
        if abs(t - 0.25) <= 1e-6:
            self._Check("ball 4 spin from impact", spin(4)[2], 0.21215864699077178)


def test_dem3d_kinematic_constraints_deck_matches_kratos(in_copy):
    in_copy("dem3d_kinematic_constraints")
    model = tessera.Model()
    stage = CheckingStage(model, tessera.Parameters.FromFile("ProjectParametersDEM.json"))
    stage.Run()
    for label in ("ball 1 held", "ball 1 falls after release", "ball 5 tables", "ball 2 function of t",
                  "ball 3 imposed", "ball 4 spin from impact"):
        assert label in stage.checked, f"Kratos' check '{label}' was never reached"
    # Kratos' Finalize checks on the walls: node 10 = mdpa node 3 (Cube1), node 20 = mdpa node 15 (Cube2).
    walls = model.GetModelPart("RigidFacePart")
    n10, n20 = walls.GetNode(10), walls.GetNode(20)
    assert [n10.X, n10.Y, n10.Z] == pytest.approx([8.295, 0.503553, 0.009], abs=KRATOS_TOLERANCE)
    assert list(n10.GetSolutionStepValue(tessera.VELOCITY)) == pytest.approx([0.3, 0.5, 1.0156],
                                                                            abs=KRATOS_TOLERANCE)
    assert n10.GetSolutionStepValue(tessera.ANGULAR_VELOCITY_X) == pytest.approx(2.61799, abs=KRATOS_TOLERANCE)
    assert list(n20.GetSolutionStepValue(tessera.VELOCITY)) == pytest.approx([2.42426, -0.0523, 0.65122],
                                                                            abs=KRATOS_TOLERANCE)
    assert list(n20.GetSolutionStepValue(tessera.ANGULAR_VELOCITY)) == pytest.approx([0.225, 1.2, 2.7],
                                                                                    abs=KRATOS_TOLERANCE)


def test_wall_rigid_motion_follows_the_analytic_solution(in_copy):
    """Cube1: v = (t, 0.5, t^2), w = (2.61799, 0, 0) about (8, 0, 0). Exact:
    centre (8 + t^2/2, 0.5 t, t^3/3), rotation angle w t about x. Symplectic
    integration of the centre errs by O(dt) (dt = 5e-4, t = 0.3: 7.5e-5 in x);
    the rotation about a fixed axis is exact. Every node of the cube is checked."""
    in_copy("dem3d_kinematic_constraints")
    model = tessera.Model()
    parameters = tessera.Parameters.FromFile("ProjectParametersDEM.json")
    stage = tessera.dem.DEMAnalysisStage(model, parameters)
    stage.Run()
    t = parameters["FinalTime"].GetDouble()
    cube = model.GetModelPart("RigidFacePart.Cube1")
    centre0 = np.array([8.0, 0.0, 0.0])
    centre = np.array([8.0 + t * t / 2.0, 0.5 * t, t ** 3 / 3.0])
    rotation = RotationMatrix(np.array([2.61799 * t, 0.0, 0.0]))
    for node in cube.Nodes:
        initial = np.array([node.X0, node.Y0, node.Z0])
        expected = centre + rotation @ (initial - centre0)
        assert [node.X, node.Y, node.Z] == pytest.approx(list(expected), abs=2e-4)


def _StageParameters(process_json, final_time, dt, check="warning"):
    """Parameters of a Symplectic_Euler run without gravity, with one process
    entry (or none: "") in loads_process_list."""
    return tessera.Parameters("""{
        "problem_name": "none", "GravityX": 0.0, "GravityY": 0.0, "GravityZ": 0.0,
        "MaxTimeStep": %g, "FinalTime": %g, "TranslationalIntegrationScheme": "Symplectic_Euler",
        "TimeStepCheck": "%s",
        "processes": {"loads_process_list": [%s]}
    }""" % (dt, final_time, check, process_json))


def _SingleSphereStage(process_json, final_time=0.01, dt=1e-4, check="warning"):
    """A DEMAnalysisStage over one free sphere (no gravity) built in code, with
    one process entry (or none: "")."""
    parameters = _StageParameters(process_json, final_time, dt, check)

    class Stage(tessera.dem.DEMAnalysisStage):
        def ReadModelParts(self, *args):
            spheres = self.spheres_model_part
            properties = Material(spheres, 1, density=1000.0)
            Relate(properties, properties)  # Hertz, for the time-step estimate
            Sphere(spheres, 1, (0.0, 0.0, 0.0), 0.1, properties)
            spheres.CreateSubModelPart("Ball").AddNodes([1])

        def ReadMaterialsFile(self):
            pass

    model = tessera.Model()
    return model, Stage(model, parameters)


FORCE_PROCESS = """{"python_module": "processes.apply_forces_and_moments_process",
    "kratos_module": "KratosMultiphysics.DEMApplication",
    "Parameters": {"model_part_name": "SpheresPart.Ball",
                   "force_settings": {"value": [2.0, "3.0*t", 0.0], "table": [0, 0, 0]},
                   "moment_settings": {"value": [0.0, 0.0, 0.5], "table": [0, 0, 0]},
                   "interval": [0.0, 0.00505]}}"""


def test_external_force_and_moment_enter_the_sums():
    """F = (2, 3t, 0), M = (0, 0, 0.5) on a free sphere (no gravity) with the
    interval [0, 0.00505], dt = 1e-4. Kratos' semantics: the loads are written
    at the start of steps 1..50 (t_k = k dt in the interval); step 51 (outside)
    still carries step 50's values, because a new step starts as a copy of the
    last one, and they are zeroed at its end. Symplectic Euler then gives
    exactly v_x = 2 dt 51 / m, v_y = 3 dt^2 (1 + ... + 50 + 50) / m and
    w_z = 0.5 dt 51 / I (rounding only: rel 1e-9)."""
    model, stage = _SingleSphereStage(FORCE_PROCESS)
    stage.Run()
    node = model.GetModelPart("SpheresPart").GetNode(1)
    mass = 1000.0 * 4.0 / 3.0 * math.pi * 0.1 ** 3
    inertia = 0.4 * mass * 0.1 ** 2
    dt, last = 1e-4, 50
    assert node.GetSolutionStepValue(tessera.VELOCITY_X) == pytest.approx(2.0 * dt * (last + 1) / mass, rel=1e-9)
    assert node.GetSolutionStepValue(tessera.VELOCITY_Y) == pytest.approx(
        3.0 * dt * dt * (last * (last + 1) / 2.0 + last) / mass, rel=1e-9)
    assert node.GetSolutionStepValue(tessera.ANGULAR_VELOCITY_Z) == pytest.approx(
        0.5 * dt * (last + 1) / inertia, rel=1e-9)
    assert list(node.GetSolutionStepValue(tessera.EXTERNAL_APPLIED_FORCE)) == [0.0, 0.0, 0.0]
    assert list(node.GetSolutionStepValue(tessera.TOTAL_FORCES)) == [0.0, 0.0, 0.0]


def test_sphere_constraint_interval_and_release():
    """v_x imposed = 1 in [0, 0.005]: fixed, so x = 1 * t while imposed; then
    the sphere keeps v_x = 1 (nothing acts), so x = t at the end (the run's
    accumulated time), and the fixity is released."""
    process = """{"python_module": "processes.apply_kinematic_constraints_process",
        "kratos_module": "KratosMultiphysics.DEMApplication",
        "Parameters": {"model_part_name": "SpheresPart.Ball",
            "velocity_constraints_settings": {"constrained": [true, false, false], "value": [1.0, 7.0, null]},
            "angular_velocity_constraints_settings": {"constrained": [false, false, false]},
            "interval": [0.0, 0.005]}}"""
    model, stage = _SingleSphereStage(process)
    stage.Run()
    node = model.GetModelPart("SpheresPart").GetNode(1)
    assert node.GetSolutionStepValue(tessera.VELOCITY_X) == pytest.approx(1.0, rel=1e-12)
    assert node.GetSolutionStepValue(tessera.VELOCITY_Y) == 0.0  # unconstrained value without table: ignored
    assert node.X == pytest.approx(stage.time, rel=1e-9)
    assert not node.IsFixed(tessera.VELOCITY_X)


@pytest.mark.parametrize("module,key,message", [
    ("apply_kinematic_constraints_process", '"velocity_constraint_settings": {}', "velocity_constraint_settings"),
    ("apply_forces_and_moments_process", '"force": {}', "force"),
])
def test_unknown_keys_are_named(module, key, message):
    process = """{"python_module": "processes.%s", "kratos_module": "KratosMultiphysics.DEMApplication",
        "Parameters": {"model_part_name": "SpheresPart.Ball", %s}}""" % (module, key)
    model, stage = _SingleSphereStage(process)
    with pytest.raises(tessera.Error, match=message):
        stage.Initialize()


def test_unknown_process_lists_the_dem_processes():
    process = """{"python_module": "processes.apply_kinematic_constraint_process",
        "kratos_module": "KratosMultiphysics.DEMApplication", "Parameters": {}}"""
    model, stage = _SingleSphereStage(process)
    with pytest.raises(tessera.Error, match="apply_kinematic_constraints_process") as error:
        stage.Initialize()
    assert "apply_forces_and_moments_process" in str(error.value)


def test_partly_constrained_wall_is_not_supported(in_copy):
    in_copy("dem3d_kinematic_constraints")
    parameters = tessera.Parameters.FromFile("ProjectParametersDEM.json")
    entry = parameters["processes"]["constraints_process_list"][5]["Parameters"]
    entry["velocity_constraints_settings"]["constrained"][0].SetBool(False)
    with pytest.raises(tessera.Error, match="every component must be constrained"):
        tessera.dem.DEMAnalysisStage(tessera.Model(), parameters).Run()


FAST_BALL = """{"python_module": "processes.apply_kinematic_constraints_process",
    "kratos_module": "KratosMultiphysics.DEMApplication",
    "Parameters": {"model_part_name": "SpheresPart.Ball",
        "velocity_constraints_settings": {"constrained": [true, false, false], "value": ["200.0*t/0.01", 0, 0]},
        "angular_velocity_constraints_settings": {"constrained": [false, false, false]},
        "interval": [0.0, 0.01]}}"""


@pytest.mark.parametrize("check", ["warning", "error"])
def test_time_step_check_counts_speeds_that_processes_impose(check):
    """A sphere at rest: the Hertz contact at (almost) zero speed is long, so
    Δt passes. A process that drives it to 200 m/s by the end of the run makes
    the expected impact (2 x 200 m/s, head-on) ~11x shorter (t_c ~ v^-1/5):
    the same Δt then resolves it in fewer than 10 steps, and the check (run
    after the processes are built) warns or raises as asked."""
    _, probe = _SingleSphereStage(FAST_BALL, check="off")
    probe.Initialize()
    estimate = probe._GetSolver().time_step_estimate
    assert estimate.reference_speed == pytest.approx(400.0, rel=1e-12)
    dt = estimate.contact_time / 5.0  # 5 steps per contact at the imposed speed
    _, quiet = _SingleSphereStage("", dt=dt, check="error")
    quiet.Initialize()  # at rest nothing is wrong with this Δt
    assert quiet._GetSolver().time_step_estimate.contact_time > 10.0 * dt
    _, stage = _SingleSphereStage(FAST_BALL, dt=dt, check=check)
    if check == "error":
        with pytest.raises(tessera.Error, match="at least 10 are needed"):
            stage.Initialize()
    else:
        with pytest.warns(UserWarning, match="at least 10 are needed"):
            stage.Initialize()


WALL_FORCE_PROCESS = """{"python_module": "processes.apply_forces_and_moments_to_walls_process",
    "kratos_module": "KratosMultiphysics.DEMApplication",
    "Parameters": {"model_part_name": "RigidFacePart.plate",
                   "force_settings": {"value": [2.0, "3.0*t + 0*x", 0.0], "table": [0, 0, 0]},
                   "moment_settings": {"value": [0.0, 0.0, 0.5], "table": [0, 0, 0]},
                   "interval": [0.0, 0.00505]}}"""


def _FreePlateStage(process_json, free=True, final_time=0.01, dt=1e-4):
    """One sphere far from a free plate (mass 4, inertias 1, 2, 3; no gravity)
    in RigidFacePart.plate, with one process entry."""
    parameters = _StageParameters(process_json, final_time, dt)

    class Stage(tessera.dem.DEMAnalysisStage):
        def ReadModelParts(self, *args):
            spheres = self.spheres_model_part
            grain = Material(spheres, 1, density=1000.0)
            walls = self.model.GetModelPart("RigidFacePart")
            wall = Material(walls, 2, young=1e9)
            Relate(grain, grain)
            Relate(grain, wall)
            Sphere(spheres, 1, (0.0, 0.0, 5.0), 0.1, grain)
            data = {"RIGID_BODY_MASS": 4.0, "RIGID_BODY_INERTIAS": [1.0, 2.0, 3.0],
                    "RIGID_BODY_CENTER_OF_MASS": [0.0, 0.0, 0.0]}
            if free:
                data["FREE_BODY_MOTION"] = True
            SquarePlate(walls, wall, half=0.5, **data)

        def ReadMaterialsFile(self):
            pass

    model = tessera.Model()
    return model, Stage(model, parameters)


def test_a_force_and_moment_process_moves_a_free_wall():
    """F = (2, 3t, 0), M = (0, 0, 0.5) on a free plate in [0, 0.00505], dt
    1e-4: as for spheres (test above), the loads of steps 1..50 and of step 51
    (zeroed at its end) act, so Symplectic Euler gives v_x = 2 dt 51 / m,
    v_y = 3 dt^2 (1 + ... + 50 + 50) / m, w_z = 0.5 dt 51 / I_z (rel 1e-9)."""
    model, stage = _FreePlateStage(WALL_FORCE_PROCESS)
    stage.Run()
    (body,) = stage.GetStrategy().FreeWalls()
    dt, last, mass = 1e-4, 50, 4.0
    assert body["velocity"][0] == pytest.approx(2.0 * dt * (last + 1) / mass, rel=1e-9)
    assert body["velocity"][1] == pytest.approx(
        3.0 * dt * dt * (last * (last + 1) / 2.0 + last) / mass, rel=1e-9)
    assert body["angular_velocity"][2] == pytest.approx(0.5 * dt * (last + 1) / 3.0, rel=1e-9)
    plate = model.GetModelPart("RigidFacePart.plate")
    assert list(plate.GetValue(tessera.EXTERNAL_APPLIED_FORCE)) == [0.0, 0.0, 0.0]


def test_the_wall_force_process_needs_a_free_wall_part():
    _, stage = _FreePlateStage(WALL_FORCE_PROCESS, free=False)
    with pytest.raises(tessera.Error, match="RigidFacePart.plate is not a free rigid-body wall"):
        stage.Initialize()
    _, stage = _FreePlateStage(WALL_FORCE_PROCESS.replace("RigidFacePart.plate", "SpheresPart"))
    with pytest.raises(tessera.Error, match="SpheresPart is not a wall sub model part"):
        stage.Initialize()
