"""Tests of AnalysisStage (hook order, Kratos' time-loop semantics, process
lists, progress reports), PythonSolver and the KinematicAnalysis stage."""
import json
import math

import numpy as np
import pytest

import tessera
from tessera.analysis_stage import AnalysisStage
from tessera.kinematic_analysis import KinematicAnalysis
from tessera.python_solver import PythonSolver

from kernel_testing import MakeLineModel

LOG = []  # what the recording solver and processes below saw, in order

RECORDING_MODULE = '''
"""A process that logs every hook into test_analysis_stage.LOG."""
import tessera
import test_analysis_stage


class RecordingProcess(tessera.Process):
    def __init__(self, name, output):
        super().__init__()
        self.name = name
        self.output = output

    def _Log(self, hook):
        test_analysis_stage.LOG.append(f"{self.name}.{hook}")

    def ExecuteInitialize(self): self._Log("ExecuteInitialize")
    def Check(self): self._Log("Check"); return 0
    def ExecuteBeforeSolutionLoop(self): self._Log("ExecuteBeforeSolutionLoop")
    def ExecuteInitializeSolutionStep(self): self._Log("ExecuteInitializeSolutionStep")
    def ExecuteFinalizeSolutionStep(self): self._Log("ExecuteFinalizeSolutionStep")
    def ExecuteBeforeOutputStep(self): self._Log("ExecuteBeforeOutputStep")
    def ExecuteAfterOutputStep(self): self._Log("ExecuteAfterOutputStep")
    def ExecuteFinalize(self): self._Log("ExecuteFinalize")


class RecordingOutput(RecordingProcess):
    def IsOutputStep(self):
        self._Log("IsOutputStep")
        return True

    def PrintOutput(self):
        self._Log("PrintOutput")


def Factory(settings, model):
    p = settings["Parameters"]
    cls = RecordingOutput if p["output"].GetBool() else RecordingProcess
    return cls(p["name"].GetString(), p["output"].GetBool())
'''


class RecordingSolver(PythonSolver):
    @classmethod
    def GetDefaultParameters(cls):
        return tessera.Parameters('{"echo_level": 0, "time_stepping": {"time_step": 0.5}}')

    def __init__(self, model, settings):
        super().__init__(model, settings)
        self.model_part = model.CreateModelPart("Main", 2)

    def GetComputingModelPart(self):
        return self.model_part

    def AdvanceInTime(self, time):
        LOG.append("solver.AdvanceInTime")
        return super().AdvanceInTime(time)


for _hook in ("AddVariables", "ImportModelPart", "PrepareModelPart", "AddDofs", "Initialize",
              "InitializeSolutionStep", "Predict", "FinalizeSolutionStep", "Finalize", "Check"):
    setattr(RecordingSolver, _hook, lambda self, _h=_hook: LOG.append(f"solver.{_h}"))
RecordingSolver.SolveSolutionStep = lambda self: LOG.append("solver.SolveSolutionStep") or True


class RecordingStage(AnalysisStage):
    def _CreateSolver(self):
        return RecordingSolver(self.model, self.project_parameters["solver_settings"])


def RecordingParameters(end_time=1.0, time_step=0.5, disabled=False):
    def process(name, output=False):
        return {"python_module": "recording_process", "Parameters": {"name": name, "output": output}}
    processes = {"loads": [process("p")]}
    if disabled:
        processes["_switched_off"] = [process("never")]
    return tessera.Parameters(json.dumps({
        "problem_data": {"start_time": 0.0, "end_time": end_time},
        "solver_settings": {"time_stepping": {"time_step": time_step}},
        "processes": processes,
        "output_processes": {"out": [process("o", output=True)]},
    }))


@pytest.fixture
def recording(tmp_path, monkeypatch):
    (tmp_path / "recording_process.py").write_text(RECORDING_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    LOG.clear()
    yield LOG
    LOG.clear()


def test_hook_order(recording):
    stage = RecordingStage(tessera.Model(), RecordingParameters(end_time=0.5))
    assert recording == ["solver.AddVariables"]  # at construction, as Kratos
    stage.Run()
    both = lambda hook: [f"p.{hook}", f"o.{hook}"]  # noqa: E731 -- output processes hear every hook
    expected = (["solver.AddVariables", "solver.ImportModelPart", "solver.PrepareModelPart", "solver.AddDofs"]
                + both("ExecuteInitialize") + ["solver.Initialize", "solver.Check"] + both("Check")
                + both("ExecuteBeforeSolutionLoop")
                + ["solver.AdvanceInTime"] + both("ExecuteInitializeSolutionStep")
                + ["solver.InitializeSolutionStep", "solver.Predict", "solver.SolveSolutionStep",
                   "solver.FinalizeSolutionStep"] + both("ExecuteFinalizeSolutionStep")
                + ["o.IsOutputStep"] + both("ExecuteBeforeOutputStep") + ["o.PrintOutput"]
                + both("ExecuteAfterOutputStep")
                + both("ExecuteFinalize") + ["solver.Finalize"])
    assert recording == expected


def test_lists_starting_with_underscore_are_switched_off(recording):
    RecordingStage(tessera.Model(), RecordingParameters(end_time=0.5, disabled=True)).Run()
    assert not any(entry.startswith("never.") for entry in recording)


@pytest.mark.parametrize("time_step, end_time, steps", [(1.1, 1.0, 1), (0.5, 1.0, 2), (0.25, 1.0, 4),
                                                        (0.1, 1.0, 11)])
def test_kratos_time_loop(recording, time_step, end_time, steps):
    # runs while time < end_time with time accumulated as t += dt: ten additions
    # of 0.1 give 0.9999999999999999 < 1.0, so Kratos (and Tessera) takes 11 steps
    stage = RecordingStage(tessera.Model(), RecordingParameters(end_time=end_time, time_step=time_step))
    stage.Run()
    assert recording.count("solver.SolveSolutionStep") == steps
    info = stage._GetSolver().GetComputingModelPart().ProcessInfo
    assert info[tessera.STEP] == steps
    expected_time = 0.0
    for _ in range(steps):
        expected_time += time_step
    assert info[tessera.TIME] == expected_time == stage.time
    assert info[tessera.DELTA_TIME] == pytest.approx(time_step)


def test_one_step_when_dt_exceeds_end(recording):
    stage = RecordingStage(tessera.Model(), RecordingParameters(end_time=1.0, time_step=1.1))
    stage.Run()
    assert stage.time == 1.1


class Reporter:
    def __init__(self):
        self.calls = []

    def Start(self, start_time, end_time, name=""):
        self.calls.append(("start", start_time, end_time))

    def Report(self, step, time, end_time):
        self.calls.append((step, time, end_time))

    def Finish(self, success=True):
        self.calls.append(("finish", success))


def test_progress_reporter_hears_every_step(recording):
    stage = RecordingStage(tessera.Model(), RecordingParameters(end_time=1.0, time_step=0.5))
    reporter = Reporter()
    stage.SetProgressReporter(reporter)
    stage.Run()
    assert reporter.calls == [("start", 0.0, 1.0), (1, 0.5, 1.0), (2, 1.0, 1.0), ("finish", True)]


def test_problem_data_typo_is_an_error_naming_it():
    parameters = tessera.Parameters('{"problem_data": {"end_tme": 1.0}, "solver_settings": {}}')
    with pytest.raises(tessera.Error, match="end_tme"):
        RecordingStage(tessera.Model(), parameters)


def test_output_process_must_be_one(recording):
    parameters = RecordingParameters()
    parameters["output_processes"]["out"][0]["Parameters"].SetBool("output", False)
    stage = RecordingStage(tessera.Model(), parameters)
    with pytest.raises(tessera.Error, match="not an output process"):
        stage.Initialize()


# ---------------------------------------------------------------- kinematic analysis
def KinematicParameters(end_time=0.3, time_step=0.1, processes=None, extra=None):
    document = {
        "analysis_stage": "tessera.kinematic_analysis",
        "problem_data": {"problem_name": "line", "start_time": 0.0, "end_time": end_time},
        "solver_settings": {"solver_type": "kinematic", "model_part_name": "Main",
                            "model_import_settings": {"input_type": "use_input_model_part"},
                            "time_stepping": {"time_step": time_step},
                            "nodal_variables": ["DISPLACEMENT", "VELOCITY", "ACCELERATION"]},
        "processes": {"constraints_process_list": processes or []},
    }
    document.update(extra or {})
    return tessera.Parameters(json.dumps(document))


def Wave(model_part_name="Main"):
    return {"python_module": "assign_vector_variable_process", "kratos_module": "KratosMultiphysics",
            "Parameters": {"model_part_name": model_part_name, "variable_name": "DISPLACEMENT",
                           "value": [0.0, "x*t**2", None], "interval": [0.0, "End"]}}


def test_kinematic_analysis_moves_the_mesh():
    model, mp = MakeLineModel(variables=())
    stage = KinematicAnalysis(model, KinematicParameters(end_time=0.3, time_step=0.1,
                                                         processes=[Wave()]))
    fixed_during_run = []

    class Probe(tessera.Process):
        def ExecuteFinalizeSolutionStep(self):
            fixed_during_run.append(mp.GetNode(2).IsFixed(tessera.DISPLACEMENT_Y))

    stage.Initialize()
    stage._GetListOfProcesses().append(Probe())
    stage.RunSolutionLoop()
    stage.Finalize()
    t = stage.time  # 0.30000000000000004
    x = np.arange(5.0)
    u_y = x * t ** 2
    np.testing.assert_allclose(mp.NodalArray(tessera.DISPLACEMENT)[:, 1], u_y, rtol=1e-14)
    np.testing.assert_allclose(mp.NodalCoordinates()[:, 1], 2 * x + u_y, rtol=1e-14)
    np.testing.assert_array_equal(mp.NodalCoordinates()[:, 0], x)
    # VELOCITY = (u_n - u_{n-1}) / dt with u = x t^2: x (t_n + t_{n-1})
    np.testing.assert_allclose(mp.NodalArray(tessera.VELOCITY)[:, 1], x * (0.3 + 0.2), rtol=1e-12)
    # ACCELERATION = (v_n - v_{n-1}) / dt = x (0.5 - 0.3) / 0.1 = 2 x
    np.testing.assert_allclose(mp.NodalArray(tessera.ACCELERATION)[:, 1], 2 * x, rtol=1e-9)
    assert fixed_during_run == [True, True, True]
    assert not mp.GetNode(2).IsFixed(tessera.DISPLACEMENT_Y)  # released at ExecuteFinalize
    assert not mp.GetNode(2).IsFixed(tessera.DISPLACEMENT_Z)  # null component: never fixed


def test_kinematic_analysis_on_sub_model_part_only():
    model, mp = MakeLineModel(variables=())
    KinematicAnalysis(model, KinematicParameters(processes=[Wave("Main.Right")])).Run()
    u = mp.NodalArray(tessera.DISPLACEMENT)
    assert np.all(u[:3] == 0.0) and np.all(u[3:, 1] > 0.0)


def test_kinematic_analysis_rejects_unknown_top_level_key():
    model, _ = MakeLineModel(variables=())
    with pytest.raises(tessera.Error, match="output_process"):
        KinematicAnalysis(model, KinematicParameters(extra={"output_process": {}}))


def test_kinematic_analysis_unknown_nodal_variable_names_key():
    model, _ = MakeLineModel(variables=())
    parameters = KinematicParameters()
    parameters["solver_settings"]["nodal_variables"].Append("DISPLACMENT")
    with pytest.raises(tessera.Error, match=r"solver_settings\.nodal_variables\[3\].*DISPLACMENT"):
        KinematicAnalysis(model, parameters)


def test_kinematic_analysis_solver_settings_typo():
    model, _ = MakeLineModel(variables=())
    parameters = KinematicParameters()
    parameters["solver_settings"]["time_stepping"].AddDouble("time_stp", 0.1)
    with pytest.raises(tessera.Error, match="time_stp"):
        KinematicAnalysis(model, parameters)


def test_check_process_inside_a_run_fails_on_a_wrong_value():
    model, _ = MakeLineModel(variables=())
    check = {"python_module": "check_scalar_to_nodes_process", "kratos_module": "KratosMultiphysics",
             "Parameters": {"model_part_name": "Main", "variable_name": "DISPLACEMENT_Y",
                            "value": "x*t**2", "tolerance_rank": 9}}
    parameters = KinematicParameters(processes=[Wave()])
    parameters["processes"].AddValue("check", tessera.Parameters(json.dumps([check])))
    KinematicAnalysis(model, parameters).Run()  # right: passes

    model, _ = MakeLineModel(variables=())
    check["Parameters"]["value"] = "x*t**2 + 1e-6*x"
    parameters = KinematicParameters(processes=[Wave()])
    parameters["processes"].AddValue("check", tessera.Parameters(json.dumps([check])))
    with pytest.raises(AssertionError, match="node 2 at TIME 0.1"):
        KinematicAnalysis(model, parameters).Run()


def test_membrane_like_single_step_with_json_check(tmp_path, monkeypatch):
    """Kratos' membrane deck: dt 1.1 > end 1.0, one step, checked at t = 1.1
    against a json written by json_output_process in an earlier run."""
    monkeypatch.chdir(tmp_path)
    write = {"python_module": "json_output_process", "kratos_module": "KratosMultiphysics",
             "Parameters": {"output_variables": ["DISPLACEMENT_Y"], "output_file_name": "res.json",
                            "model_part_name": "Main", "time_frequency": 0.9}}
    model, _ = MakeLineModel(variables=())
    parameters = KinematicParameters(end_time=1.0, time_step=1.1, processes=[Wave(), write])
    KinematicAnalysis(model, parameters).Run()
    data = json.loads((tmp_path / "res.json").read_text())
    assert data["TIME"] == [1.1]
    assert data["NODE_3"]["DISPLACEMENT_Y"] == [pytest.approx(2 * 1.1 ** 2)]

    read = {"python_module": "from_json_check_result_process", "kratos_module": "KratosMultiphysics",
            "Parameters": {"check_variables": ["DISPLACEMENT_Y"], "input_file_name": "res.json",
                           "model_part_name": "Main", "time_frequency": 0.9}}
    model, _ = MakeLineModel(variables=())
    KinematicAnalysis(model, KinematicParameters(end_time=1.0, time_step=1.1,
                                                 processes=[Wave(), read])).Run()
    data["NODE_3"]["DISPLACEMENT_Y"] = [5.0]
    (tmp_path / "res.json").write_text(json.dumps(data))
    model, _ = MakeLineModel(variables=())
    with pytest.raises(AssertionError, match="node 3"):
        KinematicAnalysis(model, KinematicParameters(end_time=1.0, time_step=1.1,
                                                     processes=[Wave(), read])).Run()


def FixedStepSolver(time_step):
    """(model, a PythonSolver of model part "A" stepping by time_stepping.time_step)."""
    model = tessera.Model()

    class Solver(PythonSolver):
        @classmethod
        def GetDefaultParameters(cls):
            return tessera.Parameters('{"echo_level": 0, "time_stepping": {"time_step": 0.2}}')

        def GetComputingModelPart(self):
            return model["A"]

    model.CreateModelPart("A", 2)
    settings = tessera.Parameters(json.dumps({"time_stepping": {"time_step": time_step}}))
    return model, Solver(model, settings)


def test_solver_default_advance_in_time_counts_steps():
    model, solver = FixedStepSolver(0.2)
    t = solver.AdvanceInTime(0.0)
    t = solver.AdvanceInTime(t)
    info = model["A"].ProcessInfo
    assert (t, info[tessera.TIME], info[tessera.STEP]) == (0.4, 0.4, 2)
    assert math.isclose(info[tessera.DELTA_TIME], 0.2)


def test_an_end_time_before_the_start_time_is_an_error_naming_both_keys(recording):
    # The loop would run no step and report success.
    with pytest.raises(tessera.Error, match="key 'problem_data.end_time' is -1, before "
                                            "'problem_data.start_time' 0"):
        RecordingStage(tessera.Model(), RecordingParameters(end_time=-1.0))
    RecordingStage(tessera.Model(), RecordingParameters(end_time=0.0))  # no step, allowed


@pytest.mark.parametrize("time_step", [0.0, -0.2])
def test_a_time_step_that_is_not_positive_names_the_key(time_step):
    _, solver = FixedStepSolver(time_step)
    with pytest.raises(tessera.Error, match=r"key 'time_stepping.time_step': Solver: the time step "
                                            "must be positive"):
        solver.AdvanceInTime(0.0)
