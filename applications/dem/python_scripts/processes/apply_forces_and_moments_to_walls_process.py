"""ApplyForcesAndMomentsToWallsProcess (Kratos' DEM
"processes.apply_forces_and_moments_to_walls_process"): EXTERNAL_APPLIED_FORCE
and EXTERNAL_APPLIED_MOMENT of a free rigid-body wall (a FREE_BODY_MOTION sub
model part of RigidFacePart, walls/free_rigid_wall.h) inside a time interval.

    "Parameters": {"model_part_name": "RigidFacePart.plate",
                   "force_settings": {"value": [0.0, 0.0, "-10.0*t"], "table": [0, 0, 0]},
                   "moment_settings": {"value": [0.0, 0.0, 0.0], "table": [0, 0, 0]},
                   "interval": [0.0, 1e30]}

As in Kratos: at the start of a step in the interval both vectors of the sub
model part's data are set, each component from its table (a non-zero id) or
its value (a number, or an expression of t, x, y, z evaluated at the part's
RIGID_BODY_CENTER_OF_MASS); at the end of a step outside the interval both are
reset to zero, so they stop acting. The DEM strategy reads the loads of its
free walls at every step (ReadFromNodes).
"""
import numpy as np

import tessera
from tessera.processes import SettingsError

from . import DemProcess, PointNodes, ReadComponents, ValidateLoadSettings

LOADS = (("force_settings", tessera.EXTERNAL_APPLIED_FORCE),
         ("moment_settings", tessera.EXTERNAL_APPLIED_MOMENT))


def Factory(settings, model):
    if not isinstance(settings, tessera.Parameters):
        raise TypeError("expected a tessera.Parameters with the process settings")
    return ApplyForcesAndMomentsToWallsProcess(model, settings["Parameters"])


class ApplyForcesAndMomentsToWallsProcess(DemProcess):
    def __init__(self, model, settings):
        super().__init__(model, ValidateLoadSettings(settings))
        part = self.model_part
        if part.GetRootModelPart().Name != "RigidFacePart" or not part.IsSubModelPart():
            raise SettingsError(settings["model_part_name"], f"{part.FullName()} is not a wall "
                                "sub model part (RigidFacePart.<name>); for spheres use "
                                "apply_forces_and_moments_process")
        self.sources = [(variable, ReadComponents(settings[group], part)) for group, variable in LOADS]

    def Check(self):
        if not (self.model_part.Has(tessera.FREE_BODY_MOTION)
                and self.model_part.GetValue(tessera.FREE_BODY_MOTION)):
            raise tessera.Error(f"{self.label}: {self.model_part.FullName()} is not a free rigid-body "
                                "wall (FREE_BODY_MOTION 1 in its SubModelPartData): only free walls "
                                "take applied loads")
        return 0

    def ExecuteInitializeSolutionStep(self):
        time = self._Time()
        if not self.interval.IsInInterval(time):
            return
        centre = (self.model_part.GetValue(tessera.RIGID_BODY_CENTER_OF_MASS)
                  if self.model_part.Has(tessera.RIGID_BODY_CENTER_OF_MASS) else [0.0, 0.0, 0.0])
        point = PointNodes(list(centre))
        for variable, components in self.sources:
            self.model_part.SetValue(variable, [float(np.ravel(c.Evaluate(time, point))[0])
                                                for c in components])

    def ExecuteFinalizeSolutionStep(self):
        if self.interval.IsInInterval(self._Time()):
            return
        for variable, _ in self.sources:
            self.model_part.SetValue(variable, [0.0, 0.0, 0.0])
