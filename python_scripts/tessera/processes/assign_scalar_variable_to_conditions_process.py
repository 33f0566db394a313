"""AssignScalarVariableToConditionsProcess (Kratos'
assign_scalar_variable_to_conditions_process): sets a scalar data value of
every condition of a model part (e.g. POSITIVE_FACE_PRESSURE) inside a time
interval. An expression of x, y, z is evaluated at each condition's centre.

    "Parameters": {"model_part_name": "Structure.Pressure",
                   "variable_name": "POSITIVE_FACE_PRESSURE",
                   "value": "1000*t",
                   "interval": [0.0, "End"]}

As in Kratos, the value stays on the conditions after the interval ends.
"""
import numpy as np

import tessera

from . import (IntervalUtility, ValueSource, GetModelPart, GetVariable, ProcessLabel,
               SettingsError, ValidateSettings)

DEFAULTS = """{
    "help": "Assigns a scalar value (number, function or table) to the conditions",
    "mesh_id": 0,
    "model_part_name": "please_specify_model_part_name",
    "variable_name": "SPECIFY_VARIABLE_NAME",
    "interval": [0.0, 1e30],
    "value": 0.0,
    "table": null,
    "local_axes": {}
}"""


def Factory(settings, model):
    if not isinstance(settings, tessera.Parameters):
        raise TypeError("expected a tessera.Parameters with the process settings")
    return AssignScalarVariableToConditionsProcess(model, settings["Parameters"])


class ConditionCentres:
    """The condition list and their centres as an (n, 3) array, in the shape
    ValueSource.Evaluate expects of its `nodes` argument."""

    def __init__(self, model_part):
        self.conditions = list(model_part.Conditions)

    def Coordinates(self):
        if not self.conditions:
            return np.zeros((0, 3))
        return np.array([c.GetGeometry().Center() for c in self.conditions], dtype=float)

    def InitialCoordinates(self):
        # The centre of the initial positions of the nodes.
        return np.array([np.mean([n.GetInitialPosition() for n in c.GetGeometry()], axis=0)
                         for c in self.conditions], dtype=float).reshape(-1, 3)

    def __len__(self):
        return len(self.conditions)


class AssignScalarVariableToConditionsProcess(tessera.Process):
    def __init__(self, model, settings):
        super().__init__()
        value_given = settings.Has("value")
        ValidateSettings(settings, DEFAULTS, flexible=("value",))
        self.label = ProcessLabel(settings, type(self).__name__)
        self.model_part = GetModelPart(model, settings)
        self.variable = GetVariable(settings)
        if self.variable.Kind() != tessera.ValueKind.Double:
            raise SettingsError(settings["variable_name"], f"{self.variable.Name()} is not a scalar variable")
        if value_given and not settings["table"].IsNull():
            raise SettingsError(settings, 'give either "value" or "table", not both')
        self.source = ValueSource.FromParameters(settings["value"], self.model_part, settings["table"])
        self.interval = IntervalUtility(settings)

    def ExecuteInitializeSolutionStep(self):
        time = float(self.model_part.ProcessInfo[tessera.TIME])
        if not self.interval.IsInInterval(time):
            return
        conditions = ConditionCentres(self.model_part)
        values = np.broadcast_to(np.asarray(self.source.Evaluate(time, conditions), dtype=float),
                                 (len(conditions),))
        for condition, value in zip(conditions.conditions, values):
            condition.SetValue(self.variable, float(value))
