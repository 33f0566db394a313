"""ApplyKinematicConstraintsProcess (Kratos' DEM
"processes.apply_kinematic_constraints_process"): imposes VELOCITY and
ANGULAR_VELOCITY components on the spheres of a sub model part inside a time
interval.

    "Parameters": {"model_part_name": "SpheresPart.Ball2",
                   "velocity_constraints_settings": {"constrained": [true, true, false],
                                                     "value": ["-10.0*t", 0.0, null],
                                                     "table": [null, null, 3]},
                   "angular_velocity_constraints_settings": {...},
                   "interval": [0.2, 0.3]}

Kratos' semantics, at the start of every step whose time is in the interval:
a constrained component is fixed (the strategy keeps it instead of
integrating it) and set to its table value, or else to its value; an
unconstrained component with a table is set to the table value and then
integrated freely; an unconstrained component with only a value is left
alone. At the end of such a step every component is released again.
"""
import numpy as np

import tessera

from . import DemProcess, ReadComponents, ReadConstrained, SampleTimes, ValidateKinematicSettings

GROUPS = (("velocity_constraints_settings", "VELOCITY"),
          ("angular_velocity_constraints_settings", "ANGULAR_VELOCITY"))


def Factory(settings, model):
    if not isinstance(settings, tessera.Parameters):
        raise TypeError("expected a tessera.Parameters with the process settings")
    return ApplyKinematicConstraintsProcess(model, settings["Parameters"])


class ApplyKinematicConstraintsProcess(DemProcess):
    def __init__(self, model, settings):
        ValidateKinematicSettings(settings)
        super().__init__(model, settings)
        # (component variable, Component, constrained) for the six components
        self.components = []
        for group, name in GROUPS:
            constrained = ReadConstrained(settings[group])
            sources = ReadComponents(settings[group], self.model_part)
            for axis, source, fixed in zip("XYZ", sources, constrained):
                self.components.append((tessera.GetVariable(f"{name}_{axis}"), source, fixed))

    def Check(self):
        for variable, _, constrained in self.components:
            if constrained and self.model_part.NumberOfNodes() > 0 and not all(
                    node.HasDofFor(variable) for node in self.model_part.Nodes):
                raise tessera.Error(f"{self.label}: {variable.Name()} is not a degree of freedom of the "
                                    f"nodes of {self.model_part.FullName()} (not a sphere model part "
                                    "read by the DEM stage?)")
        return 0

    def ExecuteInitializeSolutionStep(self):
        time = self._Time()
        if not self.interval.IsInInterval(time):
            return
        for variable, source, constrained in self.components:
            if constrained:
                for node in self.model_part.Nodes:
                    node.Fix(variable)
            if constrained or source.has_table:
                self.nodes.Set(variable, source.Evaluate(time, self.nodes))

    def ExecuteFinalizeSolutionStep(self):
        if not self.interval.IsInInterval(self._Time()):
            return
        for variable, _, constrained in self.components:
            if constrained:
                for node in self.model_part.Nodes:
                    node.Free(variable)

    def MaximumImposedSpeed(self, begin, end):
        """The largest speed this process imposes in [begin, end] (0 where it
        imposes nothing), for the time-step check."""
        times = SampleTimes(self.interval, begin, end)
        if times.size == 0 or self.model_part.NumberOfNodes() == 0:
            return 0.0
        imposed = [(source, constrained) for variable, source, constrained in self.components[:3]]
        speed = 0.0
        for time in times:
            squares = 0.0
            for source, constrained in imposed:
                if constrained or source.has_table:
                    squares = squares + np.square(source.Evaluate(float(time), self.nodes))
            speed = max(speed, float(np.max(np.sqrt(squares))))
        return speed
