"""Checkpoint and restart of structural runs (tessera.checkpoint,
kernel/io/model_part_checkpoint.*): a run continued from a checkpoint gives
bitwise the state of the uninterrupted run, compared dataset by dataset over
the complete saved state (nodes, buffers, dofs, ProcessInfo, the laws'
internal variables) and on the displacements with numpy array_equal; for
the explicit solid beam deck, its J2-plastic variant (internal variables at
the Gauss points) and the implicit hyperelastic pendulum."""
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import tessera
import tessera.structural  # noqa: F401 (registers the application)
from tessera.checkpoint import DifferingDatasets
from tessera.project import Project, WorkingDirectory

EXPLICIT = ("sm_explicit_solid_beam", "explicit_tests/explicit_solid_beam_test_parameters.json", 1e-6, 60)
IMPLICIT = ("sm_pendulus_hyperelastic_TL", "pendulus_test/pendulus_TL_test_parameters.json", None, 12)


def _edit_deck(folder, parameters_file, edit):
    path = os.path.join(folder, parameters_file)
    with open(path) as f:
        deck = json.load(f)
    edit(deck)
    with open(path, "w") as f:
        json.dump(deck, f, indent=2)


def _run(folder, parameters_file, end_time, restart=None, checkpoint=None):
    """Runs the deck to end_time (from `restart` if given) and saves the final
    state to `checkpoint`; returns the displacements (node order of the ids)."""
    project = Project(folder, parameters_file, settings=[f"problem_data.end_time={end_time!r}"])
    with WorkingDirectory(project.folder):
        stage = project.CreateStage()
        if restart:
            stage.RestartFrom(restart)
        stage.Initialize()
        stage.RunSolutionLoop()
        stage.SaveCheckpoint(checkpoint)
    u = {n.Id: n.GetSolutionStepValue(tessera.DISPLACEMENT) for n in project.model["Structure"].Nodes}
    return np.array([u[i] for i in sorted(u)]), stage


def _restart_is_bitwise(folder, parameters_file, dt, steps, tmp_path):
    if dt is None:
        with open(os.path.join(folder, parameters_file)) as f:
            dt = json.load(f)["solver_settings"]["time_stepping"]["time_step"]
    # Half a step before the k-th step's time: the loop (while time < end_time)
    # stops after step k, whatever the rounding of the accumulated time.
    end, middle = (steps - 0.5) * dt, (steps // 2 - 0.5) * dt
    u_straight, straight = _run(folder, parameters_file, end, checkpoint=str(tmp_path / "straight.h5"))
    _run(folder, parameters_file, middle, checkpoint=str(tmp_path / "middle.h5"))
    u_continued, continued = _run(folder, parameters_file, end, restart=str(tmp_path / "middle.h5"),
                                  checkpoint=str(tmp_path / "continued.h5"))
    assert continued.time == straight.time
    assert np.abs(u_straight).max() > 0.0  # the run moved
    assert np.array_equal(u_straight, u_continued)
    assert DifferingDatasets(str(tmp_path / "straight.h5"), str(tmp_path / "continued.h5")) == []
    # and the middle state is not the final one (the comparison can fail)
    assert DifferingDatasets(str(tmp_path / "middle.h5"), str(tmp_path / "continued.h5")) != []


def test_explicit_run_restarts_bitwise(case_copy, tmp_path):
    name, parameters_file, dt, steps = EXPLICIT
    _restart_is_bitwise(case_copy(name), parameters_file, dt, steps, tmp_path)


def test_explicit_j2_plastic_run_restarts_bitwise(case_copy, tmp_path):
    # The beam with a small-strain J2 law whose yield stress gravity bending
    # exceeds, so the Gauss points carry plastic strains across the restart.
    name, parameters_file, dt, steps = EXPLICIT
    folder = case_copy(name)
    materials = os.path.join(folder, "explicit_tests", "explicit_solid_beam_test_materials.json")
    with open(materials) as f:
        data = json.load(f)
    material = data["properties"][0]["Material"]
    material["constitutive_law"]["name"] = "SmallStrainJ2PlasticityPlaneStrain2DLaw"
    material["Variables"].update({"YIELD_STRESS": 2.0e3, "ISOTROPIC_HARDENING_MODULUS": 1.0e9})
    with open(materials, "w") as f:
        json.dump(data, f)
    # the deck's check of the elastic tip displacement does not hold for it
    _edit_deck(folder, parameters_file, lambda d: d["processes"].update({"list_other_processes": []}))
    _restart_is_bitwise(folder, parameters_file, dt, steps, tmp_path)
    # Each element's state: its number of laws, then per law eps_p (6) and alpha.
    reader = tessera.CheckpointReader(str(tmp_path / "continued.h5"))
    state = reader.ReadDoubles("/ModelParts/Structure/Elements/State")
    offsets = reader.ReadUInt64("/ModelParts/Structure/Elements/StateOffsets")
    alphas = []
    for begin, end in zip(offsets[:-1], offsets[1:]):
        own = state[begin:end]
        assert own[0] >= 1 and len(own) == 1 + 7 * int(own[0])
        alphas += list(own[1:].reshape(-1, 7)[:, 6])
    assert max(alphas) > 0.0  # some point has yielded


def test_implicit_run_restarts_bitwise(case_copy, tmp_path):
    name, parameters_file, dt, steps = IMPLICIT
    _restart_is_bitwise(case_copy(name), parameters_file, dt, steps, tmp_path)


def _cli(folder, parameters_file, *extra):
    command = [sys.executable, "-m", "tessera", "run", folder, "--parameters", parameters_file, "--quiet",
               *extra]
    return command


def _with_restart_options(folder, parameters_file, **options):
    def edit(deck):
        deck["restart_options"] = {"SaveRestart": True, **options}
    _edit_deck(folder, parameters_file, edit)


def test_sigterm_writes_a_checkpoint_that_tessera_run_restart_continues_bitwise(case_copy):
    # The run is stopped by SIGTERM once its first periodic checkpoint exists;
    # it writes a checkpoint after the step it is in and exits with 128 + 15.
    # `tessera run --restart` continues it to step 200, whose checkpoint must be
    # bitwise the uninterrupted run's.
    name, parameters_file, dt, _ = EXPLICIT
    folder = case_copy(name)
    _with_restart_options(folder, parameters_file, RestartFrequency=5, checkpoint_folder="signal")
    end = f"problem_data.end_time={200.5 * dt!r}"
    straight = subprocess.run(_cli(folder, parameters_file, "--set", end, "--set",
                                   'restart_options.checkpoint_folder="straight"', "--set",
                                   "restart_options.RestartFrequency=200"),
                              capture_output=True, text=True, timeout=600)
    assert straight.returncode == 0, straight.stderr
    assert sorted(os.listdir(os.path.join(folder, "straight"))) == ["checkpoint_000000200.h5"]

    long_run = subprocess.Popen(_cli(folder, parameters_file, "--set", f"problem_data.end_time={5000.5 * dt!r}"),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = os.path.join(folder, "signal", "checkpoint_000000005.h5")
    deadline = time.monotonic() + 300
    while not os.path.exists(first) and long_run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    long_run.send_signal(signal.SIGTERM)
    out, err = long_run.communicate(timeout=300)
    assert long_run.returncode == 128 + signal.SIGTERM, err
    files = sorted(os.listdir(os.path.join(folder, "signal")))
    stopped_at = int(files[-1][len("checkpoint_"):-len(".h5")])
    assert 5 <= stopped_at < 200 and f"checkpoint {os.path.join('signal', files[-1])} written" in out

    continued = subprocess.run(_cli(folder, parameters_file, "--set", end, "--set",
                                    'restart_options.checkpoint_folder="continued"', "--set",
                                    "restart_options.RestartFrequency=200", "--restart",
                                    os.path.join(folder, "signal", files[-1])),
                               capture_output=True, text=True, timeout=600)
    assert continued.returncode == 0, continued.stderr
    assert DifferingDatasets(os.path.join(folder, "straight", "checkpoint_000000200.h5"),
                             os.path.join(folder, "continued", "checkpoint_000000200.h5")) == []


def test_periodic_checkpoints_by_time_and_files_kept(case_copy):
    name, parameters_file, dt, _ = EXPLICIT
    folder = case_copy(name)
    _with_restart_options(folder, parameters_file, RestartFrequency=7.5 * dt, RestartControl="time",
                          max_files_to_keep=2, checkpoint_folder="periodic")
    project = Project(folder, parameters_file, settings=[f"problem_data.end_time={30.5 * dt!r}"])
    stage = project.Run()
    # writes at the first steps at or past 7.5, 15, 22.5 and 30 dt: steps 8, 15, 23, 30; keeps 2
    assert [os.path.basename(p) for p in stage.GetCheckpointFiles()] == \
        ["checkpoint_000000023.h5", "checkpoint_000000030.h5"]
    assert sorted(os.listdir(os.path.join(folder, "periodic"))) == \
        ["checkpoint_000000023.h5", "checkpoint_000000030.h5"]
    reader = tessera.CheckpointReader(os.path.join(folder, "periodic", "checkpoint_000000023.h5"))
    assert reader.IntAttribute("step") == 23 and reader.DoubleAttribute("time") == pytest.approx(23 * dt)


@pytest.mark.parametrize("key, value, message", [
    ("Frequency", 5, "unknown key 'restart_options.Frequency'"),
    ("RestartControl", "steps", "'restart_options.RestartControl' is 'steps'"),
    ("RestartFrequency", 2.5, "with RestartControl \"step\" it counts steps"),
    ("LoadRestart", True, "'restart_options.LoadRestart' is true; Tessera continues a run from the checkpoint "
                          "file given to `tessera run FOLDER --restart FILE`"),
])
def test_bad_restart_options_are_errors_naming_the_key(case_copy, key, value, message):
    name, parameters_file, _, _ = EXPLICIT
    folder = case_copy(name)
    _with_restart_options(folder, parameters_file, **{key: value})
    with pytest.raises(tessera.Error, match=message):
        Project(folder, parameters_file).Run()


def test_a_checkpoint_of_another_deck_is_refused(case_copy, tmp_path):
    name, parameters_file, dt, _ = EXPLICIT
    folder = case_copy(name)
    _run(folder, parameters_file, 3.5 * dt, checkpoint=str(tmp_path / "beam.h5"))
    changed = Project(folder, parameters_file, settings=["solver_settings.time_stepping.time_step=2e-6"])
    with pytest.raises(tessera.Error, match="belongs to another deck: key 'solver_settings.time_stepping.time_step' "
                                            "is 1e-06 there and 2e-06 here"):
        changed.Run(restart=str(tmp_path / "beam.h5"))
    other = case_copy(IMPLICIT[0])
    with pytest.raises(tessera.Error, match="belongs to another deck"):
        Project(other, IMPLICIT[1]).Run(restart=str(tmp_path / "beam.h5"))


class _Counter:
    """A plugin's object with state of its own: an array it grows each step."""

    def __init__(self):
        self.values = np.zeros(0)

    def Step(self, time_now):
        self.values = np.append(self.values, time_now)

    def SaveCheckpoint(self, writer, group):
        writer.Write(group + "/values", self.values)

    def LoadCheckpoint(self, reader, group):
        self.values = reader.ReadDoubles(group + "/values")


def test_a_plugin_object_registered_with_the_stage_is_saved_and_restored(case_copy, tmp_path):
    name, parameters_file, dt, _ = EXPLICIT
    folder = case_copy(name)
    saved = _Counter()
    project = Project(folder, parameters_file, settings=[f"problem_data.end_time={2.5 * dt!r}"])
    with WorkingDirectory(project.folder):
        stage = project.CreateStage()
        stage.AddCheckpointable("counter", saved)
        stage.Initialize()
        while stage.KeepAdvancingSolutionLoop():
            stage.time = stage._AdvanceTime()
            stage.InitializeSolutionStep()
            stage._GetSolver().Predict()
            stage._GetSolver().SolveSolutionStep()
            stage.FinalizeSolutionStep()
            saved.Step(stage.time)
        stage.SaveCheckpoint(str(tmp_path / "c.h5"))
    assert len(saved.values) == 3
    restored = _Counter()
    project = Project(folder, parameters_file)
    with WorkingDirectory(project.folder):
        stage = project.CreateStage()
        stage.AddCheckpointable("counter", restored)
        stage.RestartFrom(str(tmp_path / "c.h5"))
        stage.Initialize()
    assert np.array_equal(restored.values, saved.values) and stage.time == saved.values[-1]
    with pytest.raises(TypeError, match="has neither SaveCheckpoint/LoadCheckpoint"):
        stage.AddCheckpointable("bad", object())
