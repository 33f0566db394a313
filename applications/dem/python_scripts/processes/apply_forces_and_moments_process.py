"""ApplyForcesAndMomentsProcess (Kratos' DEM
"processes.apply_forces_and_moments_process"): EXTERNAL_APPLIED_FORCE and
EXTERNAL_APPLIED_MOMENT on the spheres of a sub model part inside a time
interval; the strategy adds them to each sphere's force and torque sums.

    "Parameters": {"model_part_name": "SpheresPart.Ball1",
                   "force_settings": {"value": [0.0, "-2.0*t", 0.0], "table": [0, 0, 0]},
                   "moment_settings": {"value": [0.0, 0.0, 0.0], "table": [0, 0, 0]},
                   "interval": [0.0, 1e30]}

As in Kratos: at the start of a step in the interval every component is set
(a non-zero table id takes precedence over the value); at the end of a step
outside the interval both vectors are reset to zero, so they stop acting.
"""
import tessera

from . import DemProcess, ReadComponents, ValidateLoadSettings


def Factory(settings, model):
    if not isinstance(settings, tessera.Parameters):
        raise TypeError("expected a tessera.Parameters with the process settings")
    return ApplyForcesAndMomentsProcess(model, settings["Parameters"])


class ApplyForcesAndMomentsProcess(DemProcess):
    def __init__(self, model, settings):
        super().__init__(model, ValidateLoadSettings(settings))
        self.targets = []
        for group, name in (("force_settings", "EXTERNAL_APPLIED_FORCE"),
                            ("moment_settings", "EXTERNAL_APPLIED_MOMENT")):
            for axis, source in zip("XYZ", ReadComponents(settings[group], self.model_part)):
                self.targets.append((tessera.GetVariable(f"{name}_{axis}"), source))

    def Check(self):
        for variable, _ in self.targets:
            if not self.nodes.IsHistorical(variable):
                raise tessera.Error(f"{self.label}: {variable.GetSourceVariable().Name()} is not a "
                                    f"solution-step variable of {self.model_part.GetRootModelPart().Name}")
        return 0

    def ExecuteInitializeSolutionStep(self):
        time = self._Time()
        if not self.interval.IsInInterval(time):
            return
        for variable, source in self.targets:
            self.nodes.Set(variable, source.Evaluate(time, self.nodes))

    def ExecuteFinalizeSolutionStep(self):
        if self.interval.IsInInterval(self._Time()):
            return
        for variable, _ in self.targets:
            self.nodes.Set(variable, 0.0)
