"""AssignVectorByDirectionProcess (Kratos' assign_vector_by_direction_process):
imposes modulus * unit(direction) on a 3-vector nodal variable, e.g. gravity
as VOLUME_ACCELERATION.

    "Parameters": {"model_part_name": "Structure.SelfWeight",
                   "variable_name": "VOLUME_ACCELERATION",
                   "modulus": 9.81,               (number or expression of t, x, y, z)
                   "direction": [0.0, -1.0, 0.0], (normalised here)
                   "constrained": false,
                   "interval": [0.0, "End"]}
"""
import tessera

from . import (NodalAssignmentProcess, NodalAssignment, IntervalUtility, ValueSource, ComponentsOf,
               GetModelPart, GetVariable, ProcessLabel, UnitDirection, ValidateSettings)

DEFAULTS = """{
    "help": "Assigns modulus times the unit direction to a vector variable of the nodes",
    "mesh_id": 0,
    "model_part_name": "please_specify_model_part_name",
    "variable_name": "SPECIFY_VARIABLE_NAME",
    "interval": [0.0, 1e30],
    "modulus": 1.0,
    "direction": [1.0, 0.0, 0.0],
    "constrained": true,
    "local_axes": {}
}"""


def Factory(settings, model):
    if not isinstance(settings, tessera.Parameters):
        raise TypeError("expected a tessera.Parameters with the process settings")
    return AssignVectorByDirectionProcess(model, settings["Parameters"])


class _Scaled:
    """One component: modulus (a ValueSource) times a fixed factor."""

    def __init__(self, modulus, factor):
        self.modulus = modulus
        self.factor = float(factor)

    def Evaluate(self, time, nodes=None):
        return self.modulus.Evaluate(time, nodes) * self.factor


class AssignVectorByDirectionProcess(NodalAssignmentProcess):
    def __init__(self, model, settings):
        super().__init__()
        ValidateSettings(settings, DEFAULTS, flexible=("modulus", "direction"))
        self.label = ProcessLabel(settings, type(self).__name__)
        self.settings = settings
        self.model_part = GetModelPart(model, settings)
        self.variable = GetVariable(settings)
        components = ComponentsOf(self.variable, settings["variable_name"])
        self.direction = UnitDirection(settings["direction"])
        modulus = ValueSource.FromParameters(settings["modulus"], self.model_part)
        constrained = settings["constrained"].GetBool()
        targets = [(c, _Scaled(modulus, d), constrained) for c, d in zip(components, self.direction)]
        self.assignment = NodalAssignment(self.model_part, targets, IntervalUtility(settings))
