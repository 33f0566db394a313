"""AssignScalarVariableProcess (Kratos' assign_scalar_variable_process): imposes
a scalar variable, or one component of a vector (DISPLACEMENT_X), on the nodes
of a model part inside a time interval, and fixes it when "constrained".

    "Parameters": {"model_part_name": "Structure.support",
                   "variable_name": "DISPLACEMENT_X",
                   "value": "0.01*sin(t)",        (number, or expression of t, x, y, z)
                   "table": null,                 (or a table id: value = table(TIME))
                   "constrained": true,
                   "interval": [0.0, "End"]}
"""
import tessera

from . import (NodalAssignmentProcess, NodalAssignment, IntervalUtility, ValueSource, GetModelPart,
               GetVariable, ProcessLabel, SettingsError, ValidateSettings)

DEFAULTS = """{
    "help": "Assigns a scalar value (number, function of t, x, y, z or table) to the nodes",
    "mesh_id": 0,
    "model_part_name": "please_specify_model_part_name",
    "variable_name": "SPECIFY_VARIABLE_NAME",
    "interval": [0.0, 1e30],
    "value": 0.0,
    "table": null,
    "constrained": true,
    "local_axes": {}
}"""


def Factory(settings, model):
    if not isinstance(settings, tessera.Parameters):
        raise TypeError("expected a tessera.Parameters with the process settings")
    return AssignScalarVariableProcess(model, settings["Parameters"])


class AssignScalarVariableProcess(NodalAssignmentProcess):
    def __init__(self, model, settings):
        super().__init__()
        value_given = settings.Has("value")
        ValidateSettings(settings, DEFAULTS, flexible=("value",))
        self.label = ProcessLabel(settings, type(self).__name__)
        self.settings = settings
        self.model_part = GetModelPart(model, settings)
        self.variable = GetVariable(settings)
        if self.variable.Kind() != tessera.ValueKind.Double:
            raise SettingsError(settings["variable_name"], f"{self.variable.Name()} is not a scalar "
                                "variable: use assign_vector_variable_process for vectors")
        if value_given and not settings["table"].IsNull():
            raise SettingsError(settings, 'give either "value" or "table", not both')
        source = ValueSource.FromParameters(settings["value"], self.model_part, settings["table"])
        self.assignment = NodalAssignment(
            self.model_part, [(self.variable, source, settings["constrained"].GetBool())],
            IntervalUtility(settings))
