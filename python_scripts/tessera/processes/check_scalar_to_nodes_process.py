"""CheckScalarToNodesProcess (Kratos' check_scalar_to_nodes_process): at the end
of every step whose time is in the interval, every node of the model part must
hold `value` (a number or an expression of x, y, z, t) in `variable_name` to
`tolerance_rank` decimal places, as unittest's assertAlmostEqual(places=...)
judges it: round(|expected - got|, places) == 0. A difference raises
CheckFailure naming the node, the time, the expected and the actual value.

    "Parameters": {"model_part_name": "Structure.Check_ModelPart",
                   "variable_name": "DISPLACEMENT_Y",
                   "value": "-3.28e-5*(1.0 - cos((3.14159/0.0049)*(t - 1.0e-6)))",
                   "tolerance_rank": 6,
                   "interval": [0.0, "End"]}

"reference_conf": true evaluates the expression at the initial coordinates.
"""
import numpy as np

import tessera

from . import (CheckFailure, IntervalUtility, NodeSet, ValueSource, GetModelPart, GetVariable,
               ProcessLabel, SettingsError, ValidateSettings)

DEFAULTS = """{
    "help": "Checks a nodal scalar against a value or a function of x, y, z, t",
    "mesh_id": 0,
    "model_part_name": "please_specify_model_part_name",
    "variable_name": "SPECIFY_VARIABLE_NAME",
    "interval": [0.0, 1e30],
    "value": 0.0,
    "tolerance_rank": 3,
    "reference_conf": false,
    "local_axes": {}
}"""


def Factory(settings, model):
    if not isinstance(settings, tessera.Parameters):
        raise TypeError("expected a tessera.Parameters with the process settings")
    return CheckScalarToNodesProcess(model, settings["Parameters"])


class _InitialPoints:
    """Makes an expression see the initial coordinates as x, y, z."""

    def __init__(self, nodes):
        self.nodes = nodes

    def Coordinates(self):
        return self.nodes.InitialCoordinates()

    def InitialCoordinates(self):
        return self.nodes.InitialCoordinates()


class CheckScalarToNodesProcess(tessera.Process):
    def __init__(self, model, settings):
        super().__init__()
        ValidateSettings(settings, DEFAULTS, flexible=("value",))
        self.label = ProcessLabel(settings, type(self).__name__)
        self.model_part = GetModelPart(model, settings)
        self.variable = GetVariable(settings)
        if self.variable.Kind() != tessera.ValueKind.Double:
            raise SettingsError(settings["variable_name"], f"{self.variable.Name()} is not a scalar "
                                "(give a component such as DISPLACEMENT_X)")
        if not settings["tolerance_rank"].IsInt():
            raise SettingsError(settings["tolerance_rank"], "expected an integer number of decimal places")
        self.places = settings["tolerance_rank"].GetInt()
        self.source = ValueSource.FromParameters(settings["value"], self.model_part)
        self.interval = IntervalUtility(settings)
        self.reference_configuration = settings["reference_conf"].GetBool()
        self.nodes = NodeSet(self.model_part)
        self.checked_steps = 0  # how many steps were checked, for tests and reports

    def ExecuteFinalizeSolutionStep(self):
        time = float(self.model_part.ProcessInfo[tessera.TIME])
        if not self.interval.IsInInterval(time) or len(self.nodes) == 0:
            return
        points = _InitialPoints(self.nodes) if self.reference_configuration else self.nodes
        expected = np.broadcast_to(np.asarray(self.source.Evaluate(time, points), dtype=float),
                                   (len(self.nodes),))
        got = np.asarray(self.nodes.Get(self.variable), dtype=float)
        # assertAlmostEqual: round(abs(a - b), places) == 0 (numpy rounds halves to even too)
        wrong = np.flatnonzero(np.round(np.abs(expected - got), self.places) != 0)
        self.checked_steps += 1
        if wrong.size:
            i = int(wrong[0])
            node_id = int(self.nodes.Ids()[i])
            raise CheckFailure(
                f"{self.label}: node {node_id} at TIME {time:.9g}: {self.variable.Name()} "
                f"expected {expected[i]:.12g} (value {self.source}), got {got[i]:.12g}: "
                f"not equal to {self.places} decimal places; {wrong.size} of {len(self.nodes)} "
                "nodes differ")
