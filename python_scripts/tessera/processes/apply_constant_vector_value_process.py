"""ApplyConstantVectorValueProcess, the legacy form Kratos decks still use:

    {"python_module": "process_factory", "kratos_module": "KratosMultiphysics",
     "process_name": "ApplyConstantVectorValueProcess",
     "Parameters": {"model_part_name": "Structure.PointLoad3D_pointload",
                    "variable_name": "POINT_LOAD", "modulus": 1.0,
                    "direction": [0.0, 0.0, -1], "is_fixed_x": false, ...}}

Sets modulus * unit(direction) on the nodes once, at ExecuteInitialize, and
fixes the components marked is_fixed_x/y/z (where the nodes have those
degrees of freedom); nothing changes afterwards.
"""
import tessera

from . import (NodalAssignment, IntervalUtility, ConstantValue, ComponentsOf, GetModelPart,
               GetVariable, ProcessLabel, UnitDirection, ValidateSettings)

DEFAULTS = """{
    "help": "Sets a constant vector (modulus times unit direction) on the nodes",
    "mesh_id": 0,
    "model_part_name": "please_specify_model_part_name",
    "variable_name": "SPECIFY_VARIABLE_NAME",
    "modulus": 1.0,
    "direction": [1.0, 0.0, 0.0],
    "is_fixed_x": false,
    "is_fixed_y": false,
    "is_fixed_z": false
}"""


def Factory(settings, model):
    if not isinstance(settings, tessera.Parameters):
        raise TypeError("expected a tessera.Parameters with the process settings")
    return ApplyConstantVectorValueProcess(model, settings["Parameters"])


class ApplyConstantVectorValueProcess(tessera.Process):
    def __init__(self, model, settings):
        super().__init__()
        ValidateSettings(settings, DEFAULTS)
        self.label = ProcessLabel(settings, type(self).__name__)
        self.model_part = GetModelPart(model, settings)
        self.variable = GetVariable(settings)
        components = ComponentsOf(self.variable, settings["variable_name"])
        direction = UnitDirection(settings["direction"])
        modulus = settings["modulus"].GetDouble()
        fixed = [settings[k].GetBool() for k in ("is_fixed_x", "is_fixed_y", "is_fixed_z")]
        # an interval that is always active: the values are set once and stay
        self.assignment = NodalAssignment(
            self.model_part,
            [(c, ConstantValue(modulus * d), f) for c, d, f in zip(components, direction, fixed)],
            IntervalUtility(tessera.Parameters('{"interval": [-1e30, "End"]}')))

    def Check(self):
        self.assignment.Check(self.label)
        return 0

    def ExecuteInitialize(self):
        self.assignment.Apply()
