"""Tests of the `tessera` command line (the built launcher and `python3 -m
tessera`) and of project-folder handling: exit codes, error messages, the
example running end to end."""
import json
import os
import shutil

import pytest

from tessera import cli, project

from kernel_testing import REPO_ROOT

EXAMPLE = os.path.join(REPO_ROOT, "examples", "oscillating_plate")


def test_help(run_cli):
    result = run_cli("--help")
    assert result.returncode == 0
    assert "run" in result.stdout and "info" in result.stdout


def test_run_help_lists_options(run_cli):
    result = run_cli("run", "--help")
    assert result.returncode == 0
    for option in ("--parameters", "--set", "--threads", "--quiet", "--output-dir"):
        assert option in result.stdout


def test_version_of_module(run_module):
    import tessera

    result = run_module("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"tessera {tessera.__version__}"


def test_no_command_is_a_usage_error(run_cli):
    assert run_cli().returncode == 2


def test_bad_option_is_a_usage_error(run_cli):
    assert run_cli("run", "--threads", "many", "x").returncode == 2


def test_missing_folder(run_cli):
    result = run_cli("run", "/nonexistent/case.gid")
    assert result.returncode == 2
    assert "/nonexistent/case.gid" in result.stderr and "does not exist" in result.stderr
    assert "Traceback" not in result.stderr


def test_malformed_json_names_file_and_line(run_cli, tmp_path):
    (tmp_path / "ProjectParameters.json").write_text('{\n  "problem_data": {\n    "end_time": 1.0,\n  }\n}\n')
    result = run_cli("run", str(tmp_path))
    assert result.returncode == 2
    assert "ProjectParameters.json" in result.stderr and "line 4" in result.stderr
    assert "Traceback" not in result.stderr


def test_no_parameters_file(run_cli, tmp_path):
    result = run_cli("run", str(tmp_path))
    assert result.returncode == 2
    assert "no parameters file" in result.stderr


def test_several_parameters_files_are_listed(run_cli, tmp_path):
    for name in ("case_a_parameters.json", "case_b_parameters.json"):
        (tmp_path / name).write_text("{}")
    result = run_cli("run", str(tmp_path))
    assert result.returncode == 2
    assert "case_a_parameters.json" in result.stderr and "case_b_parameters.json" in result.stderr
    assert "--parameters" in result.stderr


def test_debug_shows_traceback(run_cli, tmp_path):
    result = run_cli("--debug", "run", str(tmp_path))
    assert result.returncode == 2 and "Traceback" in result.stderr


def test_parameters_file_selection(tmp_path):
    (tmp_path / "ProjectParametersDEM.json").write_text("{}")
    (tmp_path / "other_parameters.json").write_text("{}")
    assert project.FindParametersFile(str(tmp_path)).endswith("ProjectParametersDEM.json")
    (tmp_path / "ProjectParameters.json").write_text("{}")
    assert project.FindParametersFile(str(tmp_path)).endswith(os.sep + "ProjectParameters.json")
    assert project.FindParametersFile(str(tmp_path), "other_parameters.json").endswith("other_parameters.json")


def test_stage_selection(kratos_cases):
    import tessera

    def select(document, name=""):
        return project.SelectStage(tessera.Parameters(json.dumps(document)), name)[:2]

    assert select({"analysis_stage": "tessera.kinematic_analysis"}) == ("tessera.kinematic_analysis", None)
    assert select({"analysis_stage": "KratosMultiphysics.DEMApplication.DEM_analysis_stage"}) == \
        ("tessera.dem", "DEMAnalysisStage")
    assert select({"MaxTimeStep": 1e-5, "FinalTime": 1.0}) == ("tessera.dem", "DEMAnalysisStage")
    assert select({}, "/x/ProjectParametersDEM.json") == ("tessera.dem", "DEMAnalysisStage")
    assert select({"solver_settings": {"solver_type": "Dynamic"}}) == \
        ("tessera.structural.structural_mechanics_analysis", "StructuralMechanicsAnalysis")
    assert select({"solver_settings": {"solver_type": "static"}})[1] == "StructuralMechanicsAnalysis"
    with pytest.raises(tessera.Error, match="analysis_stage"):
        select({"solver_settings": {}})
    # the real decks: the structural ones by solver_type
    deck = os.path.join(kratos_cases, "sm_explicit_solid_beam", "explicit_tests",
                        "explicit_solid_beam_test_parameters.json")
    assert project.SelectStage(project.ReadParameters(deck), deck)[2] == "structural"


def test_settings_change_the_parameters_read_from_the_file():
    import tessera

    parameters = tessera.Parameters(json.dumps(
        {"FinalTime": 1.0, "problem_name": "a", "solver_settings": {"strategy": "x"}, "list": [1]}))
    project.ApplySettings(parameters, [
        "FinalTime=0.25", "problem_name=b c", "solver_settings.strategy=\"y\"",
        "list=[2, 3]", "HertzDampingMap=thornton_fit", "solver_settings.flag=true"])
    assert parameters["FinalTime"].GetDouble() == 0.25
    assert parameters["problem_name"].GetString() == "b c"  # no JSON: a string
    assert parameters["solver_settings"]["strategy"].GetString() == "y"
    assert [parameters["list"][i].GetInt() for i in range(2)] == [2, 3]
    assert parameters["HertzDampingMap"].GetString() == "thornton_fit"  # added
    assert parameters["solver_settings"]["flag"].GetBool()


@pytest.mark.parametrize("setting,message", [
    ("FinalTime", r"--set 'FinalTime': expected KEY=VALUE"),
    ("=1", r"--set '=1': expected KEY=VALUE"),
    ("FinalTime=1e-3x", r"--set FinalTime=1e-3x: not a JSON value, and FinalTime in .* is not a "
                        r"string"),
    ("solver_settings.strategy.name=z", r"--set solver_settings.strategy.name: "
                                        r"'solver_settings.strategy' is not an object"),
    ("output.path=z", r"--set output.path: 'output' is not an object"),
])
def test_bad_settings_are_errors_naming_them(setting, message):
    import tessera

    parameters = tessera.Parameters('{"FinalTime": 1.0, "solver_settings": {"strategy": "x"}}')
    with pytest.raises(tessera.Error, match=message):
        project.ApplySettings(parameters, [setting])


def test_set_changes_a_run_without_editing_the_deck(run_cli, tmp_path):
    case = Copy(tmp_path)
    deck = (case / "ProjectParameters.json").read_text()
    result = run_cli("run", str(case), "--set", "problem_data.end_time=0.19")
    assert result.returncode == 0, result.stderr
    assert "after 10 steps" in result.stderr  # end 0.19, dt 0.02 (the deck: end 2.0, 100 steps)
    assert (case / "ProjectParameters.json").read_text() == deck
    result = run_cli("run", str(case), "--set", "problem_data.end_time=soon")
    assert result.returncode == 2
    assert "--set problem_data.end_time=soon: not a JSON value" in result.stderr


def test_a_kratos_deck_reproduces_kratos_with_its_hertz_damping_set_on_the_command_line(
        kratos_cases, tmp_path):
    """dem3d_contact unchanged, run as `tessera run FOLDER --set
    HertzDampingMap=thornton_fit` runs it: the wall values of Kratos' test within
    its absolute 1.001 (case README; test_dem_analysis_stage.py runs the same
    deck through the stage)."""
    import tessera

    case = tmp_path / "dem3d_contact"
    shutil.copytree(os.path.join(kratos_cases, "dem3d_contact"), case)
    stage = project.Project(str(case), settings=["HertzDampingMap=thornton_fit"]).Run()
    walls = stage.model.GetModelPart("RigidFacePart")
    for node_id, pressure, force_z in ((9, 1621.0, -6484.0), (13, 841.0, -3366.0)):
        node = walls.GetNode(node_id)
        assert node.GetSolutionStepValue(tessera.DEM_PRESSURE) == pytest.approx(pressure, abs=1.001)
        assert node.GetSolutionStepValue(tessera.CONTACT_FORCES_Z) == \
            pytest.approx(force_z, abs=1.001)


def test_a_stage_warning_reads_as_the_commands_own(run_cli, kratos_cases, tmp_path):
    """A time step too long for the contacts warns (TimeStepCheck "warn", the
    default; here 0.05 s against a 0.165 s contact, 3.3 steps): the command
    prints it as `tessera: warning: ...`, without Python's file, line and
    source echo."""
    case = tmp_path / "dem3d_contact"
    shutil.copytree(os.path.join(kratos_cases, "dem3d_contact"), case)
    result = run_cli("run", str(case), "--set", "MaxTimeStep=0.05", "--set", "FinalTime=0.1")
    assert result.returncode == 0, result.stderr
    assert "tessera: warning: " in result.stderr and "at least 10 are needed" in result.stderr
    assert "UserWarning" not in result.stderr and "_CheckTimeStep" not in result.stderr


def test_missing_application_message_in_process(monkeypatch, tmp_path, capsys):
    # a made-up application, so the test runs whichever applications this build has
    monkeypatch.setitem(project.KRATOS_STAGES, "KratosMultiphysics.FakeApplication.fake_stage",
                        ("tessera.fakeapp.fake_stage", "FakeStage", "fakeapp"))
    (tmp_path / "ProjectParameters.json").write_text(json.dumps(
        {"analysis_stage": "KratosMultiphysics.FakeApplication.fake_stage"}))
    assert cli.main(["run", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert "fakeapp application (tessera.fakeapp)" in error and "does not include" in error


def Copy(tmp_path):
    target = tmp_path / "oscillating_plate"
    shutil.copytree(EXAMPLE, target, ignore=shutil.ignore_patterns("vtk_output", "__pycache__"))
    return target


def _Snapshot(folder):
    return {(root, name, os.stat(os.path.join(root, name)).st_mtime_ns)
            for root, _, names in os.walk(folder) for name in names}


def test_example_runs_end_to_end(run_cli, tmp_path):
    before = _Snapshot(EXAMPLE)  # `make demo` may have left output there: compare, don't assume
    case = Copy(tmp_path)
    result = run_cli("run", str(case))
    assert result.returncode == 0, result.stderr
    output = case / "vtk_output"
    vtu = sorted(p.name for p in output.glob("*.vtu"))
    pvd = sorted(p.name for p in output.glob("*.pvd"))
    parameters = json.loads((case / "ProjectParameters.json").read_text())
    steps = 100  # end 2.0 / dt 0.02
    interval = parameters["output_processes"]["vtk_output"][0]["Parameters"]["output_interval"]
    assert len(vtu) == steps // interval, vtu
    assert pvd == ["Plate.pvd"]
    collection = (output / "Plate.pvd").read_text()
    assert collection.count("<DataSet") == len(vtu)
    # not a TTY: one summary line, no progress bar
    assert "100 steps" in result.stderr and "\r" not in result.stderr
    # nothing was written beside the repository's copy
    assert _Snapshot(EXAMPLE) == before


def test_output_dir_and_quiet(run_cli, tmp_path):
    case = Copy(tmp_path)
    out = tmp_path / "results"
    result = run_cli("run", str(case), "--quiet", "--threads", "1", "--output-dir", str(out))
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert list((out / "vtk_output").glob("*.vtu"))
    assert not (case / "vtk_output").exists()


def test_failed_check_exits_1(run_cli, tmp_path):
    case = Copy(tmp_path)
    path = case / "ProjectParameters.json"
    parameters = json.loads(path.read_text())
    check = parameters["processes"]["check_analytic_results_process"][0]["Parameters"]
    check["model_part_name"] = "Plate.CentreLine"  # x = 1: the antinode moves
    path.write_text(json.dumps(parameters))
    result = run_cli("run", str(case), "--quiet")
    assert result.returncode == 1
    assert "check failed" in result.stderr and "DISPLACEMENT_Z" in result.stderr


def test_mistyped_setting_exits_2_naming_key(run_cli, tmp_path):
    case = Copy(tmp_path)
    path = case / "ProjectParameters.json"
    parameters = json.loads(path.read_text())
    settings = parameters["processes"]["constraints_process_list"][0]["Parameters"]
    settings["intervall"] = settings.pop("interval")
    path.write_text(json.dumps(parameters))
    result = run_cli("run", str(case))
    assert result.returncode == 2
    assert "intervall" in result.stderr and "constraints_process_list[0]" in result.stderr


def test_info(run_cli):
    result = run_cli("info")
    assert result.returncode == 0
    assert "Element3D8N" in result.stdout and "assign_vector_variable_process" in result.stdout


class FakeTerminal:
    def __init__(self, tty):
        self.tty = tty
        self.text = ""

    def isatty(self):
        return self.tty

    def write(self, text):
        self.text += text

    def flush(self):
        pass


def test_progress_bar_on_a_terminal():
    from tessera import progress

    now = [0.0]
    terminal = FakeTerminal(True)
    bar = progress.CreateReporter(terminal)
    assert isinstance(bar, progress.ProgressBar)
    bar.clock = lambda: now[0]
    bar.width = 100
    bar.Start(0.0, 2.0, "plate")
    now[0] = 10.0
    bar.Report(50, 1.0, 2.0)
    line = terminal.text.split("\r")[-1]
    assert " 50.0%" in line and "step 50" in line and "t 1/2" in line
    assert "elapsed 0:10" in line and "ETA 0:10" in line
    bar.Finish()
    assert terminal.text.endswith("\n")


def test_summary_line_off_a_terminal_and_quiet():
    from tessera import progress

    pipe = FakeTerminal(False)
    summary = progress.CreateReporter(pipe)
    assert isinstance(summary, progress.SummaryLine)
    summary.Start(0.0, 1.0, "case")
    summary.Report(3, 1.0, 1.0)
    assert pipe.text == ""  # nothing until the end: logs get one line
    summary.Finish()
    assert pipe.text.startswith("case: finished after 3 steps, t = 1") and pipe.text.count("\n") == 1
    quiet = FakeTerminal(True)
    reporter = progress.CreateReporter(quiet, quiet=True)
    reporter.Start(0.0, 1.0)
    reporter.Report(1, 1.0, 1.0)
    reporter.Finish()
    assert quiet.text == ""


def test_format_duration():
    from tessera.progress import FormatDuration

    assert [FormatDuration(s) for s in (7, 205, 3723, None)] == ["0:07", "3:25", "1:02:03", "--:--"]
