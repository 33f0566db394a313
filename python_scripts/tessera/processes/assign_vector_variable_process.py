"""AssignVectorVariableProcess (Kratos' assign_vector_variable_process): imposes
the components of a 3-vector nodal variable inside a time interval.

    "Parameters": {"model_part_name": "Structure.DISPLACEMENT_support",
                   "variable_name": "DISPLACEMENT",
                   "value": [0.0, null, "0.05*sin(3.14159*x/2)*sin(2*3.14159*t)"],
                   "constrained": [true, true, true],     (or one bool)
                   "interval": [0.0, "End"]}

A null component is left free: neither written nor fixed. Each component may
be a number or an expression of t, x, y, z; "table": [id|null, ...] takes
components from tables of TIME instead.
"""
import tessera

from . import (NodalAssignmentProcess, NodalAssignment, IntervalUtility, ValueSource, ComponentsOf,
               ConstrainedFlags, GetModelPart, GetVariable, ProcessLabel, SettingsError,
               ValidateSettings)

DEFAULTS = """{
    "help": "Assigns the components of a vector variable to the nodes (null = free)",
    "mesh_id": 0,
    "model_part_name": "please_specify_model_part_name",
    "variable_name": "SPECIFY_VARIABLE_NAME",
    "interval": [0.0, 1e30],
    "value": [0.0, 0.0, 0.0],
    "table": [null, null, null],
    "constrained": true,
    "local_axes": {}
}"""


def Factory(settings, model):
    if not isinstance(settings, tessera.Parameters):
        raise TypeError("expected a tessera.Parameters with the process settings")
    return AssignVectorVariableProcess(model, settings["Parameters"])


class AssignVectorVariableProcess(NodalAssignmentProcess):
    def __init__(self, model, settings):
        super().__init__()
        ValidateSettings(settings, DEFAULTS, flexible=("constrained",))
        self.label = ProcessLabel(settings, type(self).__name__)
        self.settings = settings
        self.model_part = GetModelPart(model, settings)
        self.variable = GetVariable(settings)
        components = ComponentsOf(self.variable, settings["variable_name"])
        values, tables = settings["value"], settings["table"]
        for key, array in (("value", values), ("table", tables)):
            if not array.IsArray() or array.size() != 3:
                raise SettingsError(array, f'"{key}" needs three components (null for a free one)')
        constrained = ConstrainedFlags(settings["constrained"])
        targets = []
        for i, component in enumerate(components):
            if values[i].IsNull() and tables[i].IsNull():
                continue  # a free component: Kratos neither writes nor fixes it
            source = ValueSource.FromParameters(values[i], self.model_part, tables[i])
            targets.append((component, source, constrained[i]))
        self.assignment = NodalAssignment(self.model_part, targets, IntervalUtility(settings))
