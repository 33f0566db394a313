"""examples/helical_mixer.gid (thesis §6.2.2), filled by an inlet: the
committed deck is what its generator writes, its meshes and inlet are the ones
the README describes (1,584 drum quadrilaterals, 840 blade triangles, 432
injection points; 49,265 spheres/s whose last injecting step ends at 0.6 s:
29,559 spheres), the deck reads and runs, the inlet injects exactly
floor(n t + 1e-6) spheres by every step's end t and never onto another sphere
or a wall, the blade waits until 0.75 s and then turns as imposed, and the
strategy's phase timings are there. `--lattice` still writes the former
lattice fill.

The deck runs in a copy (tmp_path) for STEPS = 100 steps (5 ms, 246 spheres)
instead of its 20,000 (about 90 s on two cores): the full fill is checked by
hand (README, docs/performance.md), not here.
Tolerances: blade node positions and velocities against the exact rigid
rotation to 1e-9 (m, m/s): imposed_wall_motion.h integrates the rotation
exactly (Rodrigues), so only rounding (~1e-17 m at 0.15 m) separates the two.
"""
import filecmp
import math
import os
import shutil
import subprocess
import sys
import time
import warnings

import numpy as np

import pytest

import tessera

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))))
EXAMPLE = os.path.join(REPO_ROOT, "examples", "helical_mixer.gid")
GENERATOR = os.path.join(EXAMPLE, "generate_helical_mixer.py")
MDPA_FILES = ("helical_mixerDEM.mdpa", "helical_mixerDEM_FEM_boundary.mdpa",
              "helical_mixerDEM_Inlet.mdpa")
DECK_FILES = ("ProjectParametersDEM.json", "MaterialsDEM.json") + MDPA_FILES
STEPS = 100
DT = 5e-5
RATE = 49265.0  # spheres/s
SPHERES = 29559  # the thesis' count
BLADE_START = 0.75  # s
OMEGA = 6.0 * math.pi  # rad/s about +x through the origin (3 rev/s, thesis §3.2.2)


def CopyDeck(folder):
    for name in DECK_FILES:
        shutil.copy(os.path.join(EXAMPLE, name), folder)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The example run for STEPS steps in a copy: (stage, model, facts), with
    what every step's injection did."""
    import tessera.dem
    folder = tmp_path_factory.mktemp("helical_mixer")
    CopyDeck(folder)
    previous = os.getcwd()
    os.chdir(folder)
    facts = {"steps": []}

    class Recording(tessera.dem.DEMAnalysisStage):
        def FinalizeSolutionStep(self):
            super().FinalizeSolutionStep()
            strategy = self.GetStrategy()
            particles = strategy.Particles
            x, r = np.array(particles.position), np.array(particles.radius)
            # The smallest gap between any two spheres (brute force: a few hundred).
            gaps = np.linalg.norm(x[:, None, :] - x[None, :, :], axis=2) - r[:, None] - r[None, :]
            np.fill_diagonal(gaps, np.inf)
            facts["steps"].append({
                "time": self.time, "injected": self.GetInlets().InjectedCount(0), "rows": len(r),
                "smallest_gap": gaps.min() if len(r) > 1 else np.inf,
                "particle_contacts": strategy.NumberOfParticleContacts(),
                "wall_contacts": strategy.NumberOfWallContacts()})

    try:
        parameters = tessera.Parameters.FromFile("ProjectParametersDEM.json")
        facts["final_time"] = parameters["FinalTime"].GetDouble()
        facts["dt"] = parameters["MaxTimeStep"].GetDouble()
        # Half a step short of STEPS: accumulated time cannot add or drop a step.
        parameters["FinalTime"].SetDouble((STEPS - 0.5) * DT)
        parameters["post_vtk_option"].SetBool(False)
        model = tessera.Model()
        stage = Recording(model, parameters)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            start = time.perf_counter()
            stage.Initialize()
            strategy = stage.GetStrategy()
            facts["initial_rows"] = len(strategy.Particles)
            walls = model.GetModelPart("RigidFacePart")
            facts["initial_walls"] = np.array(walls.NodalCoordinates())
            stage.RunSolutionLoop()
            facts["elapsed"] = time.perf_counter() - start
            facts["timings"] = strategy.GetTimings()
            stage.Finalize()
        facts["warnings"] = [str(w.message) for w in caught]
    finally:
        os.chdir(previous)
    return stage, model, facts


def test_the_committed_deck_is_what_the_generator_writes(tmp_path):
    subprocess.run([sys.executable, GENERATOR, "--out", str(tmp_path)], check=True,
                   capture_output=True)
    for name in MDPA_FILES:
        assert filecmp.cmp(tmp_path / name, os.path.join(EXAMPLE, name), shallow=False), name


def test_lattice_option_writes_the_former_lattice_fill_and_no_inlet(tmp_path):
    (tmp_path / "helical_mixerDEM_Inlet.mdpa").write_text("stale")
    done = subprocess.run([sys.executable, GENERATOR, "--lattice", "--out", str(tmp_path)],
                          check=True, capture_output=True, text=True)
    assert "29559 spheres on a lattice" in done.stdout
    assert not (tmp_path / "helical_mixerDEM_Inlet.mdpa").exists()
    text = (tmp_path / "helical_mixerDEM.mdpa").read_text()
    nodes = text.split("Begin Nodes\n")[1].split("End Nodes")[0].split("\n")[:-1]
    assert len(nodes) == SPHERES
    walls = (tmp_path / "helical_mixerDEM_FEM_boundary.mdpa").read_text()
    assert "ANGULAR_VELOCITY_START_TIME 0.0" in walls  # the blade turns from the start
    # The inlet deck's walls differ from the lattice deck's only by the blade's start.
    inlet_walls = open(os.path.join(EXAMPLE, "helical_mixerDEM_FEM_boundary.mdpa")).read()
    assert inlet_walls == walls.replace("ANGULAR_VELOCITY_START_TIME 0.0\n    ANGULAR_VELOCITY_STOP"
                                        "_TIME 1000.0\n    FIXED_MESH_OPTION 0\n    RIGID_BODY_MOTION 1",
                                        "ANGULAR_VELOCITY_START_TIME 0.75\n    ANGULAR_VELOCITY_STOP"
                                        "_TIME 1000.0\n    FIXED_MESH_OPTION 0\n    RIGID_BODY_MOTION 1")


def test_the_deck_has_the_meshes_and_an_inlet_of_exactly_the_thesis_count(run):
    _, model, facts = run
    walls = model.GetModelPart("RigidFacePart")
    assert walls.GetSubModelPart("Drum").NumberOfConditions() == 1584
    assert walls.GetSubModelPart("Blade").NumberOfConditions() == 840
    assert facts["initial_rows"] == 0  # no sphere in the spheres file
    inlet = model.GetModelPart("DEMInletPart").GetSubModelPart("Inlet_Fill")
    assert inlet.NumberOfNodes() == 432
    rate = inlet.GetValue(tessera.GetVariable("INLET_NUMBER_OF_PARTICLES"))
    start = inlet.GetValue(tessera.GetVariable("INLET_START_TIME"))
    stop = inlet.GetValue(tessera.GetVariable("INLET_STOP_TIME"))
    dt = facts["dt"]
    assert (rate, start, dt) == (RATE, 0.0, DT)
    # Injecting steps end at k Δt <= stop; the stop lies half a step after the
    # last, so round-off of the summed time cannot add or drop a step.
    last = math.floor((stop - start) / dt)
    assert (stop - start) / dt - last == pytest.approx(0.5, abs=1e-6)
    assert last * dt == pytest.approx(0.6, abs=1e-12)
    assert math.floor(rate * last * dt + 1e-6) == SPHERES
    # ... which floor(n t + 1e-6) reaches exactly at 0.6 s, not one step earlier.
    assert math.floor(rate * (last - 1) * dt + 1e-6) < SPHERES
    # The inlet's spheres are those of the thesis: R 3.5 mm within ±2 %.
    assert inlet.GetValue(tessera.GetVariable("RADIUS")) == 0.0035
    assert inlet.GetValue(tessera.GetVariable("MINIMUM_RADIUS")) == pytest.approx(0.98 * 0.0035, rel=1e-12)
    assert inlet.GetValue(tessera.GetVariable("MAXIMUM_RADIUS")) == pytest.approx(1.02 * 0.0035, rel=1e-12)
    # The blade starts once the inlet has stopped and the bed has had time to settle,
    # and the run goes on past it.
    blade = walls.GetSubModelPart("Blade")
    assert blade.GetValue(tessera.GetVariable("ANGULAR_VELOCITY_START_TIME")) == BLADE_START
    assert stop < BLADE_START < facts["final_time"] == 1.0


def test_the_time_step_check_warns_only_that_contacts_take_fewer_than_10_steps(run):
    """Table 6.1's Δt 5e-5 s resolves a Hertz contact of these spheres in about
    8 steps at the fill's impacts (the check, from 2 × the inlet's 2 m/s: 7.5);
    it is the thesis' step, kept (README), so the check warns, and only of that:
    the step stays below the critical one."""
    _, _, facts = run
    assert len(facts["warnings"]) == 1
    assert "resolves the shortest contact" in facts["warnings"][0]
    assert "critical time step" not in facts["warnings"][0]


def test_a_short_run_injects_floor_rate_times_time_every_step_without_overlaps(run):
    stage, model, facts = run
    steps = facts["steps"]
    assert len(steps) == STEPS == stage.GetStrategy().StepCount()
    for k, step in enumerate(steps, start=1):
        expected = math.floor(RATE * k * DT + 1e-6)
        assert step["injected"] == step["rows"] == expected, (k, step)
        # No sphere touches another at insertion, nor over these 5 ms (they fall
        # apart; some land on the flight's tips, so wall contacts do occur).
        assert step["smallest_gap"] > 0.0, (k, step)
        assert step["particle_contacts"] == 0, (k, step)
    assert steps[0]["wall_contacts"] == 0
    assert steps[-1]["injected"] == 246  # 49,265/s over 5 ms
    spheres = model.GetModelPart("SpheresPart")
    assert spheres.NumberOfElements() == spheres.NumberOfNodes() == 246
    radii = np.array(stage.GetStrategy().Particles.radius)
    assert radii.min() >= 0.98 * 0.0035 and radii.max() <= 1.02 * 0.0035
    assert np.all(np.isfinite(spheres.NodalCoordinates()))


def test_every_injection_point_is_clear_of_every_wall_face_by_the_largest_radius(run):
    """Point-triangle distances from the inlet's 432 points to the deck's faces
    (drum quadrilaterals split in two), by the generator's exact distance."""
    _, model, _ = run
    sys.path.insert(0, EXAMPLE)
    try:
        import generate_helical_mixer as mixer
    finally:
        sys.path.remove(EXAMPLE)
    inlet = model.GetModelPart("DEMInletPart").GetSubModelPart("Inlet_Fill")
    points = np.array(model.GetModelPart("DEMInletPart").NodalCoordinates())
    assert len(points) == inlet.NumberOfNodes() == 432
    drum_points, quads = mixer.DrumQuads()
    blade_points, triangles = mixer.BladeTriangles()
    largest = inlet.GetValue(tessera.GetVariable("MAXIMUM_RADIUS"))
    for faces_points, faces in ((drum_points, np.vstack([quads[:, [0, 1, 2]], quads[:, [0, 2, 3]]])),
                                (blade_points, triangles)):
        a, b, c = (faces_points[faces[:, k]] for k in range(3))
        distances = mixer.PointTriangleDistances(points, a, b, c)
        assert distances.min() > largest


def test_the_blade_waits_for_the_bed_then_turns_at_the_imposed_angular_velocity(run, tmp_path,
                                                                              monkeypatch):
    _, model, facts = run
    walls = model.GetModelPart("RigidFacePart")
    blade = walls.GetSubModelPart("Blade").NodeIndices()
    drum = walls.GetSubModelPart("Drum").NodeIndices()
    initial = facts["initial_walls"]
    # After the short run (5 ms) the blade has not moved.
    assert np.array_equal(np.array(walls.NodalCoordinates()), initial)
    # The wall motion is exact in time: place the walls of a fresh copy (no
    # spheres yet) at times around the start, one step each.
    import tessera.dem
    CopyDeck(tmp_path)
    monkeypatch.chdir(tmp_path)
    parameters = tessera.Parameters.FromFile("ProjectParametersDEM.json")
    parameters["post_vtk_option"].SetBool(False)
    fresh = tessera.Model()
    stage = tessera.dem.DEMAnalysisStage(fresh, parameters)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*resolves the shortest contact")
        stage.Initialize()
    strategy = stage.GetStrategy()
    walls = fresh.GetModelPart("RigidFacePart")
    for t in (0.5, BLADE_START - DT, BLADE_START + 0.01, BLADE_START + 0.2):
        strategy.SolveSolutionStep(t)
        angle = OMEGA * max(0.0, t - BLADE_START)
        rotation = np.array([[1.0, 0.0, 0.0],
                             [0.0, math.cos(angle), -math.sin(angle)],
                             [0.0, math.sin(angle), math.cos(angle)]])
        now = np.array(walls.NodalCoordinates())
        velocity = np.array(walls.NodalArray(tessera.VELOCITY))
        expected = initial[blade] @ rotation.T
        assert np.abs(now[blade] - expected).max() < 1e-9, t
        omega = OMEGA if t >= BLADE_START else 0.0
        expected_velocity = np.cross([omega, 0.0, 0.0], expected)
        assert np.abs(velocity[blade] - expected_velocity).max() < 1e-9, t
        assert np.array_equal(now[drum], initial[drum])  # the drum stays put
        assert np.all(velocity[drum] == 0.0)


def test_strategy_timings_cover_every_phase_within_the_elapsed_time(run):
    _, _, facts = run
    timings = facts["timings"]
    assert set(timings) == {"wall_motion", "search_particles", "search_walls", "forces",
                            "integration", "energy", "node_sync"}
    assert all(value >= 0.0 for value in timings.values())
    assert 0.0 < sum(timings.values()) <= facts["elapsed"]


def test_reset_timings_zeroes_every_phase(run):
    stage, _, _ = run
    strategy = stage.GetStrategy()
    strategy.ResetTimings()
    assert all(value == 0.0 for value in strategy.GetTimings().values())
