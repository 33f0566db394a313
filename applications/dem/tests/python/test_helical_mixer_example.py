"""examples/helical_mixer.gid (thesis §6.2.2): the committed deck is what its
generator writes, it reads and runs, nothing overlaps at the start, the blade
turns as imposed, and the strategy's phase timings are there.

The deck runs in a copy (tmp_path) for 10 steps instead of its 1,000.
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
DECK_FILES = ("ProjectParametersDEM.json", "MaterialsDEM.json", "helical_mixerDEM.mdpa",
              "helical_mixerDEM_FEM_boundary.mdpa")
STEPS = 10
OMEGA = 6.0 * math.pi  # rad/s about +x through the origin (3 rev/s, thesis §3.2.2)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The example run for STEPS steps in a copy: (stage, model, facts)."""
    import tessera.dem
    folder = tmp_path_factory.mktemp("helical_mixer")
    for name in DECK_FILES:
        shutil.copy(os.path.join(EXAMPLE, name), folder)
    previous = os.getcwd()
    os.chdir(folder)
    try:
        parameters = tessera.Parameters.FromFile("ProjectParametersDEM.json")
        dt = parameters["MaxTimeStep"].GetDouble()
        # Half a step short of STEPS: accumulated time cannot add or drop a step.
        parameters["FinalTime"].SetDouble((STEPS - 0.5) * dt)
        model = tessera.Model()
        stage = tessera.dem.DEMAnalysisStage(model, parameters)
        facts = {}
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the time-step check must not complain
            start = time.perf_counter()
            stage.Initialize()
            strategy = stage.GetStrategy()
            facts["initial_particle_contacts"] = strategy.NumberOfParticleContacts()
            facts["initial_wall_contacts"] = strategy.NumberOfWallContacts()
            facts["pairs"] = strategy.ParticlePairCandidates()
            facts["position"] = strategy.Particles.position
            facts["radius"] = strategy.Particles.radius
            walls = model.GetModelPart("RigidFacePart")
            facts["initial_walls"] = np.array(walls.NodalCoordinates())
            stage.RunSolutionLoop()
            facts["elapsed"] = time.perf_counter() - start
            facts["timings"] = strategy.GetTimings()
            stage.Finalize()
    finally:
        os.chdir(previous)
    return stage, model, facts


def test_the_committed_deck_is_what_the_generator_writes(tmp_path):
    subprocess.run([sys.executable, os.path.join(EXAMPLE, "generate_helical_mixer.py"),
                    "--out", str(tmp_path)], check=True, capture_output=True)
    for name in ("helical_mixerDEM.mdpa", "helical_mixerDEM_FEM_boundary.mdpa"):
        assert filecmp.cmp(tmp_path / name, os.path.join(EXAMPLE, name), shallow=False), name


def test_the_example_reads_and_runs(run):
    stage, model, _ = run
    spheres = model.GetModelPart("SpheresPart")
    walls = model.GetModelPart("RigidFacePart")
    assert spheres.NumberOfElements() == 29559  # the thesis' mesh (digest §14)
    assert walls.GetSubModelPart("Drum").NumberOfConditions() == 1584
    assert walls.GetSubModelPart("Blade").NumberOfConditions() == 840
    assert stage.GetStrategy().StepCount() == STEPS
    assert np.all(np.isfinite(spheres.NodalCoordinates()))


def test_no_sphere_starts_overlapping_a_wall_or_another_sphere(run):
    _, _, facts = run
    assert facts["initial_wall_contacts"] == 0
    assert facts["initial_particle_contacts"] == 0
    # Independently of the contact check: every pair within r_i + r_j +
    # SearchTolerance is a candidate, so the smallest gap over them is the
    # smallest gap of all overlapping-or-near pairs.
    first, second = facts["pairs"]
    x, r = facts["position"], facts["radius"]
    gaps = np.linalg.norm(x[first] - x[second], axis=1) - r[first] - r[second]
    assert gaps.min() > 0.0


def test_the_blade_turns_at_the_imposed_angular_velocity(run):
    _, model, facts = run
    walls = model.GetModelPart("RigidFacePart")
    t = walls.ProcessInfo[tessera.TIME]
    assert t == pytest.approx(STEPS * 5e-5, rel=1e-12)
    angle = OMEGA * t
    rotation = np.array([[1.0, 0.0, 0.0],
                         [0.0, math.cos(angle), -math.sin(angle)],
                         [0.0, math.sin(angle), math.cos(angle)]])
    now = np.array(walls.NodalCoordinates())
    velocity = np.array(walls.NodalArray(tessera.VELOCITY))
    blade = walls.GetSubModelPart("Blade").NodeIndices()
    drum = walls.GetSubModelPart("Drum").NodeIndices()
    initial = facts["initial_walls"]
    expected = initial[blade] @ rotation.T
    assert np.abs(now[blade] - expected).max() < 1e-9
    expected_velocity = np.cross([OMEGA, 0.0, 0.0], expected)
    assert np.abs(velocity[blade] - expected_velocity).max() < 1e-9
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
