"""FixVectorVariableProcess (Kratos' fix_vector_variable_process): fixes the
chosen components of a vector degree of freedom of the nodes of a model part
inside a time interval, without changing their values.

    "Parameters": {"model_part_name": "Structure.support",
                   "variable_name": "DISPLACEMENT",
                   "constrained": [true, false, true],
                   "interval": [0.0, "End"]}
"""
import tessera

from . import (NodalAssignmentProcess, NodalAssignment, IntervalUtility, ComponentsOf,
               ConstrainedFlags, GetModelPart, GetVariable, ProcessLabel, ValidateSettings)

DEFAULTS = """{
    "help": "Fixes components of a vector degree of freedom of the nodes (values untouched)",
    "mesh_id": 0,
    "model_part_name": "please_specify_model_part_name",
    "variable_name": "SPECIFY_VARIABLE_NAME",
    "interval": [0.0, 1e30],
    "constrained": [true, true, true]
}"""


def Factory(settings, model):
    if not isinstance(settings, tessera.Parameters):
        raise TypeError("expected a tessera.Parameters with the process settings")
    return FixVectorVariableProcess(model, settings["Parameters"])


class FixVectorVariableProcess(NodalAssignmentProcess):
    fixes_only = True

    def __init__(self, model, settings):
        super().__init__()
        ValidateSettings(settings, DEFAULTS, flexible=("constrained",))
        self.label = ProcessLabel(settings, type(self).__name__)
        self.model_part = GetModelPart(model, settings)
        self.variable = GetVariable(settings)
        components = ComponentsOf(self.variable, settings["variable_name"])
        constrained = ConstrainedFlags(settings["constrained"])
        self.assignment = NodalAssignment(
            self.model_part, [(c, None, fix) for c, fix in zip(components, constrained)],
            IntervalUtility(settings))
