"""Tests of the standard processes (tessera.processes), the process factory and
the function-expression sandbox: values against hand-evaluated numbers,
intervals, fixity, tables, sub model parts, and check processes that must fail
on wrong values."""
import json
import math
import os

import numpy as np
import pytest

import tessera
from tessera import process_factory
from tessera.function_expression import FunctionExpression
from tessera.process_factory import KratosProcessFactory
from tessera.processes import CheckFailure, IntervalUtility

from kernel_testing import MakeLineModel


def Build(model, processes_json, key="loads_process_list"):
    """The processes of a {"processes": {key: [...]}} document, built by the
    factory so that errors carry real key paths."""
    document = tessera.Parameters(json.dumps({"processes": {key: processes_json}}))
    return KratosProcessFactory(model).ConstructListOfProcesses(document["processes"][key])


def Item(module, parameters, kratos_module="KratosMultiphysics"):
    return {"python_module": module, "kratos_module": kratos_module, "Parameters": parameters}


def Advance(model_part, time):
    """What the stage does to start a step: clone, set TIME/DELTA_TIME, STEP += 1."""
    model_part.CloneTimeStep(time)
    model_part.ProcessInfo[tessera.STEP] = model_part.ProcessInfo[tessera.STEP] + 1


def RunStep(model_part, processes, time):
    Advance(model_part, time)
    for p in processes:
        p.ExecuteInitializeSolutionStep()
    for p in processes:
        p.ExecuteFinalizeSolutionStep()


def Column(model_part, variable):
    return np.array(model_part.NodalArray(variable), copy=True)


# ---------------------------------------------------------------- expressions
class TestFunctionExpression:
    def test_values_match_hand_evaluation(self):
        f = FunctionExpression("sqrt(x**2+y**2)*sin(t)")
        assert f(t=0.3, x=3.0, y=4.0) == pytest.approx(5.0 * math.sin(0.3), rel=1e-15)
        g = FunctionExpression("x+y*t")
        assert g(t=2.0, x=1.0, y=3.0) == pytest.approx(7.0)
        assert FunctionExpression("10*t")(t=0.25) == pytest.approx(2.5)
        assert FunctionExpression("-3.28e-5*(1.0 - cos((3.14159/0.0049)*(t - 1.0e-6)))")(t=1e-6) == 0.0

    def test_vectorised_over_coordinates(self):
        f = FunctionExpression("0.05*sin(3.14159*x/2)*sin(2*3.14159*t)")
        coordinates = np.array([[0.0, 0, 0], [0.5, 0, 0], [1.0, 0, 0], [2.0, 0, 0]])
        values = f.Evaluate(0.125, coordinates)
        expected = [0.05 * math.sin(3.14159 * x / 2) * math.sin(2 * 3.14159 * 0.125) for x in (0, 0.5, 1, 2)]
        np.testing.assert_allclose(values, expected, rtol=1e-14, atol=0)

    def test_constant_in_space_broadcasts(self):
        values = FunctionExpression("2*t").Evaluate(1.5, np.zeros((3, 3)))
        np.testing.assert_array_equal(values, [3.0, 3.0, 3.0])

    def test_initial_coordinates_are_upper_case(self):
        f = FunctionExpression("X - x")
        assert f.UsesInitialCoordinates() and f.DependsOnSpace() and not f.DependsOnTime()
        assert f(x=1.0, X=3.0) == 2.0

    @pytest.mark.parametrize("text", ["__import__('os')", "x.__class__", "os.system('true')",
                                      "(lambda: 1)()", "[1, 2][0]", "open('f')", "t if t else x",
                                      "globals()"])
    def test_sandbox_rejects_anything_but_arithmetic(self, text):
        with pytest.raises(tessera.Error) as error:
            FunctionExpression(text, origin="deck.json: key 'value'")
        assert text in str(error.value) and "deck.json: key 'value'" in str(error.value)

    def test_caret_is_not_a_power(self):
        with pytest.raises(tessera.Error, match=r"x\*\*2"):
            FunctionExpression("x^2")

    def test_syntax_error_names_expression(self):
        with pytest.raises(tessera.Error, match=r'"3\*\*\(t"'):
            FunctionExpression("3**(t")


class TestInterval:
    def test_end_and_tolerance(self):
        interval = IntervalUtility(tessera.Parameters('{"interval": [0.2, "End"]}'))
        assert not interval.IsInInterval(0.1)
        assert interval.IsInInterval(0.1 + 0.1)  # 0.2 computed, not typed
        assert interval.IsInInterval(1e20)
        closed = IntervalUtility(tessera.Parameters('{"interval": [0.0, 0.3]}'))
        assert closed.IsInInterval(0.1 + 0.2)  # 0.30000000000000004
        assert not closed.IsInInterval(0.31)

    def test_bad_end_is_an_error(self):
        with pytest.raises(tessera.Error, match="End"):
            IntervalUtility(tessera.Parameters('{"interval": [0.0, "end"]}'))


# ---------------------------------------------------------------- assign scalar
class TestAssignScalar:
    def test_expression_of_space_and_time_on_sub_model_part(self, line_model):
        model, mp = line_model
        mp.ProcessInfo[tessera.TIME] = 0.0
        (process,) = Build(model, [Item("assign_scalar_variable_process", {
            "model_part_name": "Main.Right", "variable_name": "TEMPERATURE",
            "value": "x+y*t", "constrained": False})])
        process.ExecuteBeforeSolutionLoop()
        RunStep(mp, [process], 0.5)
        # nodes 4, 5 at (3, 6) and (4, 8): x + y t
        np.testing.assert_allclose(Column(mp, tessera.TEMPERATURE), [0, 0, 0, 3 + 6 * 0.5, 4 + 8 * 0.5])

    def test_component_of_vector_and_fixity_in_interval(self, line_model):
        model, mp = line_model
        for node in mp.Nodes:
            node.AddDof(tessera.DISPLACEMENT_X)
        (process,) = Build(model, [Item("assign_scalar_variable_process", {
            "model_part_name": "Main", "variable_name": "DISPLACEMENT_X", "value": "10*t",
            "interval": [0.1, 0.3]})])
        mp.ProcessInfo[tessera.TIME] = 0.0
        process.ExecuteBeforeSolutionLoop()  # t = 0 is outside [0.1, 0.3]
        assert not mp.GetNode(1).IsFixed(tessera.DISPLACEMENT_X)
        seen = []
        for time in (0.1, 0.2, 0.3, 0.4):
            Advance(mp, time)
            process.ExecuteInitializeSolutionStep()
            seen.append((Column(mp, tessera.DISPLACEMENT)[:, 0].copy(), mp.GetNode(3).IsFixed(tessera.DISPLACEMENT_X)))
            process.ExecuteFinalizeSolutionStep()
        for (values, fixed), time in zip(seen[:3], (0.1, 0.2, 0.3)):
            np.testing.assert_allclose(values, 10 * time)
            assert fixed
        values, fixed = seen[3]
        np.testing.assert_allclose(values, 3.0)  # left as the last active step wrote it
        assert not fixed
        # released at the end of the last active step, not only at the next one
        assert all(not n.IsFixed(tessera.DISPLACEMENT_X) for n in mp.Nodes)
        np.testing.assert_array_equal(Column(mp, tessera.DISPLACEMENT)[:, 1:], 0.0)

    def test_table_value(self, line_model):
        model, mp = line_model
        table = tessera.PiecewiseLinearTable()
        table.AddRow(0.0, 0.0)
        table.AddRow(1.0, 10.0)
        mp.AddTable(3, table)
        (process,) = Build(model, [Item("assign_scalar_variable_process", {
            "model_part_name": "Main.Right", "variable_name": "TEMPERATURE", "table": 3})])
        mp.ProcessInfo[tessera.TIME] = 0.0
        RunStep(mp, [process], 0.25)
        np.testing.assert_allclose(Column(mp, tessera.TEMPERATURE), [0, 0, 0, 2.5, 2.5])

    def test_unknown_table_is_an_error_naming_the_key(self, line_model):
        model, _ = line_model
        with pytest.raises(tessera.Error, match=r"loads_process_list\[0\]\.Parameters\.table.*table 9"):
            Build(model, [Item("assign_scalar_variable_process", {
                "model_part_name": "Main", "variable_name": "TEMPERATURE", "table": 9})])

    def test_mistyped_key_is_an_error_naming_it(self, line_model):
        model, _ = line_model
        with pytest.raises(tessera.Error, match="varible_name"):
            Build(model, [Item("assign_scalar_variable_process", {
                "model_part_name": "Main", "varible_name": "TEMPERATURE"})])

    def test_unknown_variable_and_model_part_name_the_key(self, line_model):
        model, _ = line_model
        with pytest.raises(tessera.Error, match=r"Parameters\.variable_name.*TEMPERATUR"):
            Build(model, [Item("assign_scalar_variable_process", {
                "model_part_name": "Main", "variable_name": "TEMPERATUR"})])
        with pytest.raises(tessera.Error, match=r"Parameters\.model_part_name"):
            Build(model, [Item("assign_scalar_variable_process", {
                "model_part_name": "Main.Nowhere", "variable_name": "TEMPERATURE"})])

    def test_sandbox_error_names_the_key(self, line_model):
        model, _ = line_model
        with pytest.raises(tessera.Error, match=r"Parameters\.value.*__import__"):
            Build(model, [Item("assign_scalar_variable_process", {
                "model_part_name": "Main", "variable_name": "TEMPERATURE",
                "value": "__import__('os').system('true')"})])


# ---------------------------------------------------------------- assign vector
class TestAssignVector:
    def test_null_component_is_free_and_untouched(self, line_model):
        model, mp = line_model
        for node in mp.Nodes:
            for c in (tessera.DISPLACEMENT_X, tessera.DISPLACEMENT_Y, tessera.DISPLACEMENT_Z):
                node.AddDof(c)
        mp.NodalArray(tessera.DISPLACEMENT)[:, 0] = 7.0
        (process,) = Build(model, [Item("assign_vector_variable_process", {
            "model_part_name": "Main.Right", "variable_name": "DISPLACEMENT",
            "value": [None, "2*t", 1.5], "constrained": [True, True, False]})])
        mp.ProcessInfo[tessera.TIME] = 0.0
        Advance(mp, 0.5)
        process.ExecuteInitializeSolutionStep()
        u = Column(mp, tessera.DISPLACEMENT)
        np.testing.assert_array_equal(u[:, 0], 7.0)  # null: not written
        np.testing.assert_array_equal(u[:, 1], [0, 0, 0, 1.0, 1.0])
        np.testing.assert_array_equal(u[:, 2], [0, 0, 0, 1.5, 1.5])
        node = mp.GetNode(5)
        assert not node.IsFixed(tessera.DISPLACEMENT_X)  # null: never fixed
        assert node.IsFixed(tessera.DISPLACEMENT_Y)
        assert not node.IsFixed(tessera.DISPLACEMENT_Z)  # constrained false
        assert not mp.GetNode(1).IsFixed(tessera.DISPLACEMENT_Y)  # not in the sub model part

    def test_standing_wave_of_the_example(self, line_model):
        model, mp = line_model
        (process,) = Build(model, [Item("assign_vector_variable_process", {
            "model_part_name": "Main", "variable_name": "DISPLACEMENT",
            "value": [0.0, 0.0, "0.05*sin(3.14159*x/2)*sin(2*3.14159*t)"], "interval": [0.0, "End"]})])
        mp.ProcessInfo[tessera.TIME] = 0.0
        RunStep(mp, [process], 0.1)
        expected = [0.05 * math.sin(3.14159 * x / 2) * math.sin(2 * 3.14159 * 0.1) for x in range(5)]
        np.testing.assert_allclose(Column(mp, tessera.DISPLACEMENT)[:, 2], expected, rtol=1e-14)

    def test_tables_per_component(self, line_model):
        model, mp = line_model
        for table_id, slope in ((1, 10.0), (2, 3.0)):
            table = tessera.PiecewiseLinearTable()
            table.AddRow(0.0, 0.0)
            table.AddRow(1.0, slope)
            mp.AddTable(table_id, table)
        (process,) = Build(model, [Item("assign_vector_variable_process", {
            "model_part_name": "Main", "variable_name": "VELOCITY", "value": [None, None, 4.0],
            "table": [1, 2, None], "constrained": False})])
        mp.ProcessInfo[tessera.TIME] = 0.0
        RunStep(mp, [process], 0.5)
        np.testing.assert_allclose(Column(mp, tessera.VELOCITY)[0], [5.0, 1.5, 4.0])

    def test_wrong_component_count_names_key(self, line_model):
        model, _ = line_model
        with pytest.raises(tessera.Error, match=r"Parameters\.value.*three components"):
            Build(model, [Item("assign_vector_variable_process", {
                "model_part_name": "Main", "variable_name": "DISPLACEMENT", "value": [0.0, 1.0]})])


class TestAssignByDirection:
    def test_direction_is_normalised(self, line_model):
        model, mp = line_model
        mp.AddNodalSolutionStepVariable(tessera.VOLUME_ACCELERATION)
        (process,) = Build(model, [Item("assign_vector_by_direction_process", {
            "model_part_name": "Main", "variable_name": "VOLUME_ACCELERATION",
            "modulus": 9.81, "direction": [0.0, -2.0, 0.0], "interval": [0.0, "End"]})])
        mp.ProcessInfo[tessera.TIME] = 0.0
        process.Check()
        RunStep(mp, [process], 0.1)
        np.testing.assert_allclose(Column(mp, tessera.VOLUME_ACCELERATION), [[0.0, -9.81, 0.0]] * 5)

    def test_modulus_expression(self, line_model):
        model, mp = line_model
        (process,) = Build(model, [Item("assign_vector_by_direction_process", {
            "model_part_name": "Main", "variable_name": "VELOCITY", "constrained": False,
            "modulus": "3*t*x", "direction": [3.0, 0.0, 4.0]})])
        mp.ProcessInfo[tessera.TIME] = 0.0
        RunStep(mp, [process], 2.0)
        v = Column(mp, tessera.VELOCITY)
        np.testing.assert_allclose(v[:, 0], [0.6 * 6 * x for x in range(5)])
        np.testing.assert_allclose(v[:, 2], [0.8 * 6 * x for x in range(5)])

    def test_zero_direction_is_an_error(self, line_model):
        model, _ = line_model
        with pytest.raises(tessera.Error, match=r"direction.*zero"):
            Build(model, [Item("assign_vector_by_direction_process", {
                "model_part_name": "Main", "variable_name": "VELOCITY", "direction": [0, 0, 0]})])


class TestConditions:
    @pytest.fixture
    def conditions_model(self, line_model):
        model, mp = line_model
        properties = mp.CreateNewProperties(1)
        loads = mp.CreateSubModelPart("Loads")
        loads.CreateNewCondition("LineCondition3D2N", 1, [1, 2], properties)  # centre (0.5, 1, 0.5)
        loads.CreateNewCondition("LineCondition3D2N", 2, [3, 4], properties)  # centre (2.5, 5, 0.5)
        mp.ProcessInfo[tessera.TIME] = 0.0
        return model, mp

    def test_scalar_to_conditions_at_centres(self, conditions_model):
        model, mp = conditions_model
        (process,) = Build(model, [Item("assign_scalar_variable_to_conditions_process", {
            "model_part_name": "Main.Loads", "variable_name": "POSITIVE_FACE_PRESSURE",
            "value": "x*t+y", "interval": [0.0, 1.0]})])
        Advance(mp, 2.0)
        process.ExecuteInitializeSolutionStep()  # outside the interval: nothing set
        assert not mp.GetCondition(1).Has(tessera.POSITIVE_FACE_PRESSURE)
        Advance(mp, 1.0)
        process.ExecuteInitializeSolutionStep()
        assert mp.GetCondition(1).GetValue(tessera.POSITIVE_FACE_PRESSURE) == pytest.approx(0.5 + 1.0)
        assert mp.GetCondition(2).GetValue(tessera.POSITIVE_FACE_PRESSURE) == pytest.approx(2.5 + 5.0)

    def test_vector_by_direction_to_conditions(self, conditions_model):
        model, mp = conditions_model
        (process,) = Build(model, [Item("assign_vector_by_direction_to_condition_process", {
            "model_part_name": "Main.Loads", "variable_name": "LINE_LOAD",
            "modulus": "100*t", "direction": [0.0, 0.0, -5.0]})])
        Advance(mp, 0.5)
        process.ExecuteInitializeSolutionStep()
        for condition_id in (1, 2):
            np.testing.assert_allclose(mp.GetCondition(condition_id).GetValue(tessera.LINE_LOAD),
                                       [0.0, 0.0, -50.0])


class TestFix:
    def test_fix_vector_leaves_values(self, line_model):
        model, mp = line_model
        for node in mp.Nodes:
            for c in (tessera.DISPLACEMENT_X, tessera.DISPLACEMENT_Y, tessera.DISPLACEMENT_Z):
                node.AddDof(c)
        mp.NodalArray(tessera.DISPLACEMENT)[:] = 0.25
        (process,) = Build(model, [Item("fix_vector_variable_process", {
            "model_part_name": "Main.Right", "variable_name": "DISPLACEMENT",
            "constrained": [True, False, True], "interval": [0.0, 0.5]})], "constraints_process_list")
        process.Check()
        mp.ProcessInfo[tessera.TIME] = 0.0
        Advance(mp, 0.25)
        process.ExecuteInitializeSolutionStep()
        node = mp.GetNode(4)
        assert node.IsFixed(tessera.DISPLACEMENT_X) and node.IsFixed(tessera.DISPLACEMENT_Z)
        assert not node.IsFixed(tessera.DISPLACEMENT_Y)
        assert not mp.GetNode(1).IsFixed(tessera.DISPLACEMENT_X)
        np.testing.assert_array_equal(Column(mp, tessera.DISPLACEMENT), 0.25)
        process.ExecuteFinalizeSolutionStep()
        Advance(mp, 0.75)
        process.ExecuteInitializeSolutionStep()
        assert not node.IsFixed(tessera.DISPLACEMENT_X)

    def test_fixing_a_variable_without_dofs_is_an_error(self, line_model):
        model, _ = line_model
        (process,) = Build(model, [Item("fix_scalar_variable_process", {
            "model_part_name": "Main", "variable_name": "TEMPERATURE"})])
        with pytest.raises(tessera.Error, match="TEMPERATURE is not a degree of freedom"):
            process.Check()


class TestLegacyFactoryForm:
    def test_apply_constant_vector_value_process(self, line_model):
        model, mp = line_model
        mp.AddNodalSolutionStepVariable(tessera.POINT_LOAD)
        item = {"python_module": "process_factory", "kratos_module": "KratosMultiphysics",
                "check": "DirectorVectorNonZero direction", "help": "This process ",
                "process_name": "ApplyConstantVectorValueProcess",
                "Parameters": {"mesh_id": 0, "model_part_name": "Main.Right", "variable_name": "POINT_LOAD",
                               "modulus": 2.0, "direction": [0.0, 0.0, -1]}}
        (process,) = Build(model, [item])
        process.ExecuteInitialize()
        np.testing.assert_allclose(Column(mp, tessera.POINT_LOAD)[:, 2], [0, 0, 0, -2.0, -2.0])


# ---------------------------------------------------------------- checks
class TestCheckScalarToNodes:
    def Make(self, model, value, places=6, variable="DISPLACEMENT_Y"):
        (process,) = Build(model, [Item("check_scalar_to_nodes_process", {
            "model_part_name": "Main.Right", "variable_name": variable, "value": value,
            "tolerance_rank": places, "interval": [0.0, "End"]})], "check_analytic_results_process")
        return process

    def test_passes_on_right_values_and_fails_on_wrong(self, line_model):
        model, mp = line_model
        mp.ProcessInfo[tessera.TIME] = 0.0
        good = self.Make(model, "x*t")
        Advance(mp, 0.5)
        u = mp.NodalArray(tessera.DISPLACEMENT)
        u[:, 1] = mp.NodalCoordinates()[:, 0] * 0.5
        good.ExecuteFinalizeSolutionStep()
        assert good.checked_steps == 1
        u[4, 1] += 2e-6  # node 5, wrong in the 6th decimal
        with pytest.raises(CheckFailure) as failure:
            good.ExecuteFinalizeSolutionStep()
        message = str(failure.value)
        assert "node 5" in message and "TIME 0.5" in message and "expected 2" in message
        assert "got 2.000002" in message and "check_analytic_results_process[0]" in message

    def test_tolerance_rank_is_decimal_places(self, line_model):
        model, mp = line_model
        mp.ProcessInfo[tessera.TIME] = 0.0
        Advance(mp, 1.0)
        mp.NodalArray(tessera.DISPLACEMENT)[:, 1] = 1.0004
        self.Make(model, 1.0, places=3).ExecuteFinalizeSolutionStep()  # round(0.0004, 3) == 0
        with pytest.raises(CheckFailure):
            self.Make(model, 1.0, places=4).ExecuteFinalizeSolutionStep()

    def test_outside_interval_is_not_checked(self, line_model):
        model, mp = line_model
        (process,) = Build(model, [Item("check_scalar_to_nodes_process", {
            "model_part_name": "Main", "variable_name": "TEMPERATURE", "value": 1.0,
            "interval": [1.0, 2.0]})])
        mp.ProcessInfo[tessera.TIME] = 0.0
        Advance(mp, 0.5)
        process.ExecuteFinalizeSolutionStep()  # 0 != 1 but not checked
        Advance(mp, 1.5)
        with pytest.raises(CheckFailure, match="TEMPERATURE"):
            process.ExecuteFinalizeSolutionStep()


class TestJsonOutputAndCheck:
    def Output(self, model, path, frequency=0.0, variables=("DISPLACEMENT", "TEMPERATURE")):
        (process,) = Build(model, [Item("json_output_process", {
            "output_variables": list(variables), "output_file_name": str(path),
            "model_part_name": "Main", "time_frequency": frequency})], "json_output_process")
        return process

    def Check(self, model, path, frequency=0.0, tolerance=1e-3, relative=1e-6):
        (process,) = Build(model, [Item("from_json_check_result_process", {
            "check_variables": ["DISPLACEMENT", "TEMPERATURE"], "input_file_name": str(path),
            "model_part_name": "Main", "time_frequency": frequency, "tolerance": tolerance,
            "relative_tolerance": relative})], "json_check_process")
        return process

    def Motion(self, mp, time):
        mp.NodalArray(tessera.DISPLACEMENT)[:, 1] = time * mp.NodalCoordinates()[:, 0]
        mp.NodalArray(tessera.TEMPERATURE)[:] = 300.0 + time

    def test_written_file_has_kratos_layout(self, tmp_path):
        model, mp = MakeLineModel()
        path = tmp_path / "out" / "results.json"
        writer = self.Output(model, path)
        mp.ProcessInfo[tessera.TIME] = 0.0
        writer.ExecuteBeforeSolutionLoop()
        for time in (0.5, 1.0):
            Advance(mp, time)
            self.Motion(mp, time)
            writer.ExecuteFinalizeSolutionStep()
        data = json.loads(path.read_text())
        assert data["TIME"] == [0.5, 1.0]
        assert data["NODE_4"]["DISPLACEMENT_Y"] == [1.5, 3.0]
        assert data["NODE_4"]["DISPLACEMENT_X"] == [0.0, 0.0]
        assert data["NODE_2"]["TEMPERATURE"] == [300.5, 301.0]

    def test_frequency_counter_is_kratos(self, tmp_path):
        # counter += DELTA_TIME; record when counter > frequency, then reset
        model, mp = MakeLineModel()
        path = tmp_path / "r.json"
        writer = self.Output(model, path, frequency=0.25, variables=("TEMPERATURE",))
        mp.ProcessInfo[tessera.TIME] = 0.0
        writer.ExecuteBeforeSolutionLoop()
        for step in range(1, 9):
            Advance(mp, 0.125 * step)
            writer.ExecuteFinalizeSolutionStep()
        assert json.loads(path.read_text())["TIME"] == [0.375, 0.75]

    def test_round_trip_passes_and_a_changed_value_fails(self, tmp_path):
        path = tmp_path / "results.json"
        model, mp = MakeLineModel()
        writer = self.Output(model, path)
        mp.ProcessInfo[tessera.TIME] = 0.0
        writer.ExecuteBeforeSolutionLoop()
        for time in (0.5, 1.0):
            Advance(mp, time)
            self.Motion(mp, time)
            writer.ExecuteFinalizeSolutionStep()

        model, mp = MakeLineModel()
        checker = self.Check(model, path)
        mp.ProcessInfo[tessera.TIME] = 0.0
        for time in (0.5, 1.0):
            Advance(mp, time)
            self.Motion(mp, time)
            checker.ExecuteFinalizeSolutionStep()
        assert checker.checks_done == 2

        model, mp = MakeLineModel()
        checker = self.Check(model, path)
        mp.ProcessInfo[tessera.TIME] = 0.0
        Advance(mp, 0.5)
        self.Motion(mp, 0.5)
        mp.NodalArray(tessera.DISPLACEMENT)[2, 1] += 0.01  # node 3, beyond the 1e-3 tolerance
        with pytest.raises(CheckFailure) as failure:
            checker.ExecuteFinalizeSolutionStep()
        message = str(failure.value)
        assert "node 3" in message and "DISPLACEMENT_Y" in message and "expected 1" in message
        assert "got 1.01" in message

    def test_tolerance_is_isclose(self, tmp_path):
        path = tmp_path / "ref.json"
        path.write_text(json.dumps({"TIME": [1.0], **{f"NODE_{i}": {
            "DISPLACEMENT_X": [0.0], "DISPLACEMENT_Y": [0.0], "DISPLACEMENT_Z": [0.0],
            "TEMPERATURE": [1000.0]} for i in range(1, 6)}}))
        model, mp = MakeLineModel()
        mp.ProcessInfo[tessera.TIME] = 0.0
        Advance(mp, 1.0)
        mp.NodalArray(tessera.TEMPERATURE)[:] = 1000.0 + 0.9  # within abs 1
        self.Check(model, path, tolerance=1.0, relative=0.0).ExecuteFinalizeSolutionStep()
        mp.NodalArray(tessera.TEMPERATURE)[:] = 1000.0 + 1.5  # within rel 2e-3 of 1001.5
        self.Check(model, path, tolerance=1.0, relative=2e-3).ExecuteFinalizeSolutionStep()
        with pytest.raises(CheckFailure):
            self.Check(model, path, tolerance=1.0, relative=1e-3).ExecuteFinalizeSolutionStep()

    def test_missing_reference_file_names_key_and_path(self, tmp_path):
        model, _ = MakeLineModel()
        with pytest.raises(tessera.Error, match=r"input_file_name.*nowhere\.json"):
            self.Check(model, tmp_path / "nowhere.json")


# ---------------------------------------------------------------- factory
class TestFactory:
    def test_unknown_module_names_key_path_module_and_alternatives(self, line_model):
        model, _ = line_model
        good = Item("assign_scalar_variable_process", {"model_part_name": "Main", "variable_name": "TEMPERATURE"})
        bad = Item("asign_scalar_variable_process", {})
        with pytest.raises(tessera.Error) as error:
            Build(model, [good, good, bad], "constraints_process_list")
        message = str(error.value)
        assert "processes.constraints_process_list[2]" in message
        assert "asign_scalar_variable_process" in message
        assert "assign_scalar_variable_process" in message  # what exists

    def test_application_without_tessera_counterpart(self, line_model):
        model, _ = line_model
        with pytest.raises(tessera.Error, match=r"FluidDynamicsApplication"):
            Build(model, [Item("apply_inlet_process", {}, "KratosMultiphysics.FluidDynamicsApplication")])

    def test_application_missing_from_this_build(self, line_model, monkeypatch):
        model, _ = line_model
        monkeypatch.setitem(process_factory.KRATOS_MODULES, "KratosMultiphysics.FakeApplication",
                            ("tessera.fake_application", ("tessera.fake_application.processes",),
                             "the fake application"))
        with pytest.raises(tessera.Error) as error:
            Build(model, [Item("processes.apply_something_process", {}, "KratosMultiphysics.FakeApplication")])
        message = str(error.value)
        assert "the fake application" in message and "tessera.fake_application" in message
        assert "loads_process_list[0]" in message and "does not include" in message

    def test_unknown_process_name(self, line_model):
        model, _ = line_model
        item = {"python_module": "process_factory", "process_name": "ApplyMagicProcess", "Parameters": {}}
        with pytest.raises(tessera.Error, match=r"loads_process_list\[0\].*ApplyMagicProcess.*ApplyConstantVectorValueProcess"):
            Build(model, [item])

    def test_mistyped_item_key(self, line_model):
        model, _ = line_model
        item = {"python_modul": "assign_scalar_variable_process", "Parameters": {}}
        with pytest.raises(tessera.Error, match="python_modul"):
            Build(model, [item])

    def test_user_module_without_kratos_module(self, line_model, tmp_path, monkeypatch):
        model, _ = line_model
        (tmp_path / "my_user_process.py").write_text(
            "import tessera\n"
            "class P(tessera.Process):\n"
            "    def __init__(self, s):\n"
            "        super().__init__()\n"
            "        self.value = s['value'].GetDouble()\n"
            "def Factory(settings, model):\n"
            "    return P(settings['Parameters'])\n")
        monkeypatch.syspath_prepend(str(tmp_path))
        (process,) = Build(model, [{"python_module": "my_user_process", "Parameters": {"value": 4.5}}])
        assert process.value == 4.5

    def test_kernel_processes_of_the_kratos_structural_decks_build(self, kratos_cases):
        """Every process item of the structural decks (Kratos' own files, with
        their "help"/"check"/"mesh_id" keys) builds: names resolve and settings
        validate. Model parts are made empty, since the meshes need elements of
        the structural application."""
        import glob

        from tessera.project import WorkingDirectory

        decks = sorted(glob.glob(os.path.join(kratos_cases, "sm_*", "**", "*parameters.json"), recursive=True))
        assert len(decks) >= 5
        built = set()
        for deck in decks:
            parameters = tessera.Parameters.FromFile(deck)
            model = tessera.Model()
            root = model.CreateModelPart("Structure", 2)
            for name in ("DISPLACEMENT", "VOLUME_ACCELERATION", "POINT_LOAD"):
                root.AddNodalSolutionStepVariable(tessera.GetVariable(name))
            case_folder = os.path.join(kratos_cases, os.path.relpath(deck, kratos_cases).split(os.sep)[0])
            with WorkingDirectory(case_folder):  # reference json files are relative to it
                for list_name in parameters["processes"].keys():
                    entries = parameters["processes"][list_name]
                    for i in range(entries.size()):
                        part = root
                        for name in entries[i]["Parameters"]["model_part_name"].GetString().split(".")[1:]:
                            part = part.GetSubModelPart(name) if part.HasSubModelPart(name) else part.CreateSubModelPart(name)
                    built |= {type(p).__name__ for p in KratosProcessFactory(model).ConstructListOfProcesses(entries)}
        assert built == {"AssignVectorVariableProcess", "AssignVectorByDirectionProcess", "CheckScalarToNodesProcess",
                         "ApplyConstantVectorValueProcess", "FromJsonCheckResultProcess",
                         "AssignVectorByDirectionToConditionProcess"}
