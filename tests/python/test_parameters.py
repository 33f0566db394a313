"""Tests of tessera.Parameters from Python: the Kratos Python API (indexing,
iteration, Get/Set/Add/Is methods, defaults validation), numpy vectors and
matrices, and that errors name the file and key path."""

import copy
import pickle

import numpy as np
import pytest

from tessera import Parameters

PROJECT = """{
    // Kratos decks carry comments
    "problem_data": {"problem_name": "plate", "echo_level": 1, "end_time": 1.0},
    "solver_settings": {
        "solver_type": "dynamic",
        "time_stepping": {"time_step": 0.01},
        "gravity": [0.0, -9.81, 0.0]
    },
    "processes": [
        {"name": "fix", "Parameters": {"model_part_name": "Structure.support"}},
        {"name": "load", "Parameters": {"model_part_name": "Structure.top"}}
    ]
}"""

DEFAULTS = """{
    "solver_type": "dynamic",
    "echo_level": 0,
    "time_step": 0.1,
    "linear_solver_settings": {"solver_type": "cg", "tolerance": 1e-6},
    "anything": null
}"""


@pytest.fixture
def project():
    return Parameters(PROJECT)


@pytest.fixture
def project_file(tmp_path):
    path = tmp_path / "ProjectParameters.json"
    path.write_text(PROJECT)
    return path


# ---- construction -------------------------------------------------------------------


def test_default_is_empty_object():
    p = Parameters()
    assert p.IsSubParameter()
    assert len(p) == 0
    assert p.WriteJsonString() == "{}"


def test_keyword_constructor_and_comments():
    p = Parameters(json_string='{"a": 1 /* comment */}')
    assert p["a"].GetInt() == 1


def test_duplicate_keys_last_one_wins():
    p = Parameters('{"a": 1, "b": 2, "a": 3}')
    assert p["a"].GetInt() == 3
    assert p.keys() == ["a", "b"]


def test_from_file_accepts_str_and_pathlike(project_file):
    for path in (project_file, str(project_file)):
        p = Parameters.FromFile(path)
        assert p["problem_data"]["problem_name"].GetString() == "plate"
        assert p.Origin() == str(project_file)


def test_constructor_accepts_file_object(project_file):
    with open(project_file) as f:
        p = Parameters(f)
    assert p["solver_settings"]["time_stepping"]["time_step"].GetDouble() == 0.01
    with pytest.raises(RuntimeError, match="ProjectParameters.json"):
        p["nope"]


def test_missing_file_names_the_path(tmp_path):
    path = tmp_path / "Missing.json"
    with pytest.raises(RuntimeError, match="Missing.json"):
        Parameters.FromFile(path)


def test_parse_error_names_file_line_and_column(tmp_path):
    path = tmp_path / "Broken.json"
    path.write_text('{\n    "a": 1,\n    "b": [1, 2,]\n}\n')
    with pytest.raises(RuntimeError) as info:
        Parameters.FromFile(path)
    message = str(info.value)
    assert "Broken.json: line 3, column 16" in message
    assert "expected" in message


# ---- reference semantics ------------------------------------------------------------------


def test_handles_share_the_document(project):
    project["solver_settings"]["time_stepping"].SetDouble("time_step", 0.1)
    assert project["solver_settings"]["time_stepping"]["time_step"].GetDouble() == 0.1
    solver = project["solver_settings"]
    solver["solver_type"].SetString("static")
    assert project["solver_settings"]["solver_type"].GetString() == "static"


def test_clone_and_copy_are_deep(project):
    for clone in (project.Clone(), copy.copy(project), copy.deepcopy(project)):
        clone["problem_data"].SetInt("echo_level", 5)
        assert project["problem_data"]["echo_level"].GetInt() == 1


def test_pickle_round_trip(project):
    again = pickle.loads(pickle.dumps(project))
    assert again.IsEquivalentTo(project)
    assert again.WriteJsonString() == project.WriteJsonString()


# ---- container protocol ---------------------------------------------------------------------


def test_getitem_setitem_contains_len(project):
    assert "solver_settings" in project
    assert "solver_setting" not in project
    assert len(project) == 3
    assert project.size() == 3
    processes = project["processes"]
    assert len(processes) == 2
    assert processes[1]["name"].GetString() == "load"
    assert processes[-1]["name"].GetString() == "load"
    project["problem_data"] = Parameters('{"replaced": true}')
    assert project["problem_data"]["replaced"].GetBool()
    processes[0] = Parameters('{"name": "other"}')
    assert project["processes"][0]["name"].GetString() == "other"


def test_setitem_needs_an_existing_key():
    p = Parameters('{"a": 1}')
    with pytest.raises(RuntimeError, match="use Add"):
        p["b"] = Parameters("2")


def test_iterating_a_scalar_is_a_type_error(project):
    with pytest.raises(TypeError, match="key 'problem_data.echo_level' is neither"):
        list(project["problem_data"]["echo_level"])


def test_iteration(project):
    assert list(project) == ["problem_data", "solver_settings", "processes"]
    assert project.keys() == ["problem_data", "solver_settings", "processes"]
    names = [item["name"].GetString() for item in project["processes"]]
    assert names == ["fix", "load"]
    pairs = project["problem_data"].items()
    assert [key for key, _ in pairs] == ["problem_name", "echo_level", "end_time"]
    assert pairs[1][1].GetInt() == 1
    values = project["problem_data"].values()
    assert values[0].GetString() == "plate"
    for value in project["problem_data"].values():  # values are handles into the document
        if value.IsNumber():
            value.SetDouble(2.0)
    assert project["problem_data"]["end_time"].GetDouble() == 2.0


def test_str_and_repr_are_pretty_json():
    p = Parameters('{"a": [1, 2]}')
    assert str(p) == p.PrettyPrintJsonString() == repr(p)
    assert str(p).startswith("{\n    ")


# ---- getters and setters ------------------------------------------------------------------------


def test_getters():
    p = Parameters(
        '{"d": 1.5, "i": 3, "b": true, "s": "x", "v": [1, 2, 3], "m": [[1, 2], [3, 4]], '
        '"sa": ["a", "b"]}'
    )
    assert p["d"].GetDouble() == 1.5
    assert p.GetDouble("d") == 1.5
    assert p["i"].GetInt() == 3
    assert p["i"].GetDouble() == 3.0  # an int is a fine double
    assert p.GetBool("b") is True
    assert p.GetString("s") == "x"
    v = p["v"].GetVector()
    assert isinstance(v, np.ndarray) and v.shape == (3,)
    np.testing.assert_array_equal(v, [1.0, 2.0, 3.0])
    m = p.GetMatrix("m")
    assert isinstance(m, np.ndarray) and m.shape == (2, 2)
    np.testing.assert_array_equal(m, [[1, 2], [3, 4]])
    assert p["sa"].GetStringArray() == ["a", "b"]


def test_type_queries():
    p = Parameters(
        '{"n": null, "d": 1.0, "i": 1, "b": false, "s": "", "v": [1], "m": [[1]], '
        '"sa": ["a"], "o": {}}'
    )
    assert p["n"].IsNull()
    assert p["d"].IsDouble() and not p["d"].IsInt() and p["d"].IsNumber()
    assert p["i"].IsInt() and not p["i"].IsDouble() and p["i"].IsNumber()
    assert p["b"].IsBool()
    assert p["s"].IsString()
    assert p["v"].IsVector() and p["v"].IsArray() and not p["v"].IsMatrix()
    assert p["m"].IsMatrix()
    assert p["sa"].IsStringArray()
    assert p["o"].IsSubParameter()
    assert p.Has("o") and not p.Has("x")


def test_setters():
    p = Parameters('{"d": 0, "i": 0, "b": false, "s": "", "v": [], "m": [], "sa": [], "o": null}')
    p.SetDouble("d", 2.5)
    p.SetInt("i", 7)
    p.SetBool("b", True)
    p.SetString("s", "text")
    p.SetVector("v", (1, 2.5, np.float64(3)))  # any sequence of numbers
    p.SetMatrix("m", np.array([[1.0, 2.0], [3.0, 4.0]]))
    p.SetStringArray("sa", ["x", "y"])
    p.SetValue("o", Parameters('{"k": 1}'))
    assert p.WriteJsonString() == (
        '{"d":2.5,"i":7,"b":true,"s":"text","v":[1.0,2.5,3.0],"m":[[1.0,2.0],[3.0,4.0]],'
        '"sa":["x","y"],"o":{"k":1}}'
    )
    p["d"].SetInt(4)
    assert p["d"].IsInt()
    p["i"].SetDouble(1)
    assert p["i"].IsDouble()
    p["v"].SetVector(np.arange(4))
    np.testing.assert_array_equal(p["v"].GetVector(), [0, 1, 2, 3])
    p["m"].SetMatrix([[1, 2, 3]])
    assert p["m"].GetMatrix().shape == (1, 3)
    p["s"].SetBool(False)
    p["b"].SetString("now text")
    p["sa"].SetStringArray(("z",))
    assert p.GetStringArray("sa") == ["z"]


def test_set_vector_rejects_non_numbers():
    p = Parameters('{"v": []}')
    with pytest.raises(TypeError):
        p.SetVector("v", [1.0, "2.0"])
    with pytest.raises(TypeError):
        p.SetVector("v", "123")
    with pytest.raises(ValueError):
        p.SetMatrix("v", [[1, 2], [3]])
    with pytest.raises(ValueError):
        p.SetVector("v", np.zeros((2, 2)))
    with pytest.raises(TypeError):
        p.SetStringArray("v", ["a", 1])
    assert p.GetVector("v").size == 0


def test_keyed_set_of_missing_key_suggests_the_right_one():
    p = Parameters('{"time_step": 0.1}')
    with pytest.raises(RuntimeError, match="did you mean 'time_step'"):
        p.SetDouble("time_stpe", 0.2)


# ---- adding, removing, appending -------------------------------------------------------------------


def test_add_functions():
    p = Parameters()
    p.AddDouble("d", 0.5)
    p.AddInt("i", 2)
    p.AddBool("b", False)
    p.AddString("s", "x")
    p.AddVector("v", [1, 2])
    p.AddMatrix("m", [[1, 0], [0, 1]])
    p.AddStringArray("sa", ["u"])
    p.AddValue("o", Parameters('{"k": [1]}'))
    assert p.keys() == ["d", "i", "b", "s", "v", "m", "sa", "o"]
    assert p["o"]["k"][0].GetInt() == 1
    empty = p.AddEmptyValue("n")
    assert empty.IsNull()
    empty.SetString("set through the handle")
    assert p["n"].GetString() == "set through the handle"
    assert p.RemoveValue("n") is True
    assert p.RemoveValue("n") is False
    assert "n" not in p


def test_append():
    p = Parameters()
    items = p.AddEmptyArray("items")
    items.Append(True)
    items.Append(2)
    items.Append(2.5)
    items.Append("s")
    items.Append(Parameters('{"k": null}'))
    items.Append([1, 2])
    items.Append(np.eye(2))
    assert p.WriteJsonString() == (
        '{"items":[true,2,2.5,"s",{"k":null},[1.0,2.0],[[1.0,0.0],[0.0,1.0]]]}'
    )
    assert items[0].IsBool() and items[1].IsInt() and items[2].IsDouble()
    items.Append(2**40)  # beyond a C++ int: kept as a number
    assert items[7].GetDouble() == 2.0**40
    with pytest.raises(RuntimeError, match="needs an array"):
        p.Append(1)


# ---- errors name file and key path ---------------------------------------------------------------------


def test_missing_key_error(project_file):
    p = Parameters.FromFile(project_file)
    with pytest.raises(RuntimeError) as info:
        p["solver_settings"]["time_steping"]
    message = str(info.value)
    assert "ProjectParameters.json" in message
    assert "key 'solver_settings.time_steping' does not exist" in message
    assert "solver_type, time_stepping, gravity" in message
    assert "did you mean 'time_stepping'?" in message


def test_type_mismatch_error(project_file):
    p = Parameters.FromFile(project_file)
    with pytest.raises(RuntimeError) as info:
        p["problem_data"]["problem_name"].GetDouble()
    message = str(info.value)
    assert "ProjectParameters.json" in message
    assert "key 'problem_data.problem_name' is a string" in message
    assert "expected a double" in message
    with pytest.raises(RuntimeError, match="expected an int"):
        Parameters('{"x": 2.5}')["x"].GetInt()
    assert Parameters('{"x": 2.0}')["x"].GetInt() == 2


def test_index_errors(project):
    with pytest.raises(RuntimeError, match="out of range"):
        project["processes"][2]
    with pytest.raises(IndexError):
        project["processes"][-3]


# ---- comparison and validation --------------------------------------------------------------------------


def test_is_equivalent_and_same_keys_and_types():
    a = Parameters('{"x": 1, "y": {"p": [1, 2], "q": "s"}}')
    b = Parameters('{"y": {"q": "s", "p": [1.0, 2]}, "x": 1.0}')
    assert a.IsEquivalentTo(b)
    assert not a.IsEquivalentTo(Parameters('{"x": 2, "y": {"p": [1, 2], "q": "s"}}'))
    assert a.HasSameKeysAndTypeOfValuesAs(Parameters('{"x": 9, "y": {"p": [], "q": ""}}'))
    assert not a.HasSameKeysAndTypeOfValuesAs(Parameters('{"x": "9", "y": {"p": [], "q": ""}}'))


def test_validate_and_assign_defaults():
    p = Parameters('{"echo_level": 2.0, "linear_solver_settings": {"tolerance": 1e-9}}')
    p.ValidateAndAssignDefaults(Parameters(DEFAULTS))
    assert p["echo_level"].GetInt() == 2
    assert p["solver_type"].GetString() == "dynamic"
    assert p["time_step"].GetDouble() == 0.1
    assert p["anything"].IsNull()
    assert "solver_type" not in p["linear_solver_settings"]  # not recursive


def test_unknown_key_error(project_file):
    p = Parameters.FromFile(project_file)
    with pytest.raises(RuntimeError) as info:
        p["solver_settings"].ValidateAndAssignDefaults(Parameters(DEFAULTS))
    message = str(info.value)
    assert "unknown key 'time_stepping' in 'solver_settings' of" in message
    assert "ProjectParameters.json" in message
    assert "allowed keys: solver_type, echo_level, time_step, linear_solver_settings, anything" in message
    assert len(p["solver_settings"]) == 3  # a failed validation changes nothing

    with pytest.raises(RuntimeError, match="did you mean 'echo_level'"):
        Parameters('{"echo_levl": 1}').ValidateAndAssignDefaults(Parameters(DEFAULTS))


def test_validation_type_error():
    with pytest.raises(RuntimeError, match="key 'echo_level' is a string .* expected a number"):
        Parameters('{"echo_level": "1"}').ValidateAndAssignDefaults(Parameters(DEFAULTS))
    # A null default accepts anything.
    Parameters('{"anything": [1, "a"]}').ValidateAndAssignDefaults(Parameters(DEFAULTS))


def test_recursive_variants():
    defaults = Parameters(DEFAULTS)
    with pytest.raises(RuntimeError, match="unknown key 'max_iteration' in 'linear_solver_settings'"):
        Parameters(
            '{"linear_solver_settings": {"max_iteration": 1}}'
        ).RecursivelyValidateAndAssignDefaults(defaults)
    p = Parameters('{"linear_solver_settings": {"tolerance": 1e-9}}')
    p.RecursivelyValidateAndAssignDefaults(defaults)
    assert p["linear_solver_settings"]["solver_type"].GetString() == "cg"
    assert p["linear_solver_settings"]["tolerance"].GetDouble() == 1e-9

    q = Parameters('{"extra": 1, "linear_solver_settings": {}}')
    q.AddMissingParameters(defaults)
    assert q["extra"].GetInt() == 1 and q["echo_level"].GetInt() == 0
    assert len(q["linear_solver_settings"]) == 0
    q.RecursivelyAddMissingParameters(defaults)
    assert q["linear_solver_settings"]["tolerance"].GetDouble() == 1e-6
