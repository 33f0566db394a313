"""AssignVectorByDirectionToConditionProcess (Kratos'
assign_vector_by_direction_to_condition_process): sets modulus * unit(direction)
as a vector data value of every condition of a model part (LINE_LOAD,
SURFACE_LOAD, POINT_LOAD) inside a time interval. An expression modulus of
x, y, z is evaluated at each condition's centre.

    "Parameters": {"model_part_name": "Structure.LineLoad2D_top",
                   "variable_name": "LINE_LOAD",
                   "modulus": "100*t",
                   "direction": [0.0, -1.0, 0.0],
                   "interval": [0.0, "End"]}

As in Kratos, the value stays on the conditions after the interval ends.
"""
import numpy as np

import tessera

from . import (IntervalUtility, ValueSource, ComponentsOf, GetModelPart, GetVariable, ProcessLabel,
               UnitDirection, ValidateSettings)
from .assign_scalar_variable_to_conditions_process import ConditionCentres

DEFAULTS = """{
    "help": "Assigns modulus times the unit direction to a vector variable of the conditions",
    "mesh_id": 0,
    "model_part_name": "please_specify_model_part_name",
    "variable_name": "SPECIFY_VARIABLE_NAME",
    "interval": [0.0, 1e30],
    "modulus": 1.0,
    "direction": [1.0, 0.0, 0.0],
    "local_axes": {}
}"""


def Factory(settings, model):
    if not isinstance(settings, tessera.Parameters):
        raise TypeError("expected a tessera.Parameters with the process settings")
    return AssignVectorByDirectionToConditionProcess(model, settings["Parameters"])


class AssignVectorByDirectionToConditionProcess(tessera.Process):
    def __init__(self, model, settings):
        super().__init__()
        ValidateSettings(settings, DEFAULTS, flexible=("modulus", "direction"))
        self.label = ProcessLabel(settings, type(self).__name__)
        self.model_part = GetModelPart(model, settings)
        self.variable = GetVariable(settings)
        ComponentsOf(self.variable, settings["variable_name"])  # must be a 3-vector
        self.direction = UnitDirection(settings["direction"])
        self.modulus = ValueSource.FromParameters(settings["modulus"], self.model_part)
        self.interval = IntervalUtility(settings)

    def ExecuteInitializeSolutionStep(self):
        time = float(self.model_part.ProcessInfo[tessera.TIME])
        if not self.interval.IsInInterval(time):
            return
        conditions = ConditionCentres(self.model_part)
        moduli = np.broadcast_to(np.asarray(self.modulus.Evaluate(time, conditions), dtype=float),
                                 (len(conditions),))
        for condition, modulus in zip(conditions.conditions, moduli):
            condition.SetValue(self.variable, modulus * self.direction)
