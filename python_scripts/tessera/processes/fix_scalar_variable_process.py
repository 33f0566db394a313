"""FixScalarVariableProcess (Kratos' fix_scalar_variable_process): fixes a
scalar degree of freedom (or one component, DISPLACEMENT_Z) of the nodes of a
model part inside a time interval, without changing its value.

    "Parameters": {"model_part_name": "Structure.support",
                   "variable_name": "DISPLACEMENT_Z",
                   "constrained": true,
                   "interval": [0.0, "End"]}
"""
import tessera

from . import (NodalAssignment, NodalAssignmentProcess, IntervalUtility, GetModelPart, GetVariable,
               ProcessLabel, ValidateSettings)

DEFAULTS = """{
    "help": "Fixes a scalar degree of freedom of the nodes (values untouched)",
    "mesh_id": 0,
    "model_part_name": "please_specify_model_part_name",
    "variable_name": "SPECIFY_VARIABLE_NAME",
    "interval": [0.0, 1e30],
    "constrained": true
}"""


def Factory(settings, model):
    if not isinstance(settings, tessera.Parameters):
        raise TypeError("expected a tessera.Parameters with the process settings")
    return FixScalarVariableProcess(model, settings["Parameters"])


class FixScalarVariableProcess(NodalAssignmentProcess):
    fixes_only = True

    def __init__(self, model, settings):
        super().__init__()
        ValidateSettings(settings, DEFAULTS)
        self.label = ProcessLabel(settings, type(self).__name__)
        self.model_part = GetModelPart(model, settings)
        self.variable = GetVariable(settings)
        self.assignment = NodalAssignment(
            self.model_part, [(self.variable, None, settings["constrained"].GetBool())],
            IntervalUtility(settings))
