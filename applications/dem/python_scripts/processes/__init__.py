"""Kratos' DEM processes (KratosMultiphysics.DEMApplication "processes.<name>"),
one module per process under the name Kratos' process lists use:

* apply_kinematic_constraints_process: imposed VELOCITY / ANGULAR_VELOCITY
  components on the spheres of a sub model part;
* apply_kinematic_constraints_to_walls_process: imposed rigid-body motion of a
  wall sub model part (its nodes are moved; the strategy re-reads them);
* apply_forces_and_moments_process: EXTERNAL_APPLIED_FORCE / _MOMENT on spheres;
* apply_forces_and_moments_to_walls_process: the same on a free rigid-body wall.

This module holds what they share: Kratos' interval test and the three
components of a "value"/"table" pair ("value" a number or an expression of
t, x, y, z; "table" a table id or null, a table taking precedence).
"""
import numpy as np

import tessera
from tessera.processes import (GetModelPart, IntervalUtility, NodeSet, ProcessLabel, SettingsError, TableValue,
                               ValueSource, ValidateSettings)

KINEMATIC_DEFAULTS = """{
    "help": "Imposes velocity and angular velocity components in a time interval",
    "mesh_id": 0,
    "model_part_name": "please_specify_model_part_name",
    "velocity_constraints_settings": {
        "constrained": [true, true, true],
        "value": [0.0, 0.0, 0.0],
        "table": [null, null, null]
    },
    "angular_velocity_constraints_settings": {
        "constrained": [true, true, true],
        "value": [0.0, 0.0, 0.0],
        "table": [null, null, null]
    },
    "interval": [0.0, 1e30]
}"""


class KratosInterval(IntervalUtility):
    """Kratos' DEM processes' IntervalUtility: active when
    begin - eps < t < end + eps, with eps = max(1e-14 begin, 1e-30). So both
    ends count when hit exactly; a time accumulated as t += dt that lands a
    rounding error past the end does not (unlike the kernel's processes, which
    allow 1e-10 relative). "End" as the end means no end."""

    def __init__(self, settings, key="interval"):
        super().__init__(settings, key)
        self.eps = max(1e-14 * self.begin, 1e-30)

    def IsInInterval(self, time):
        return self.begin - self.eps < time < self.end + self.eps


class DemProcess(tessera.Process):
    """What the DEM processes share, built from their validated settings: a
    label for messages, the model part and its NodeSet, the Kratos interval."""

    def __init__(self, model, settings):
        super().__init__()
        self.label = ProcessLabel(settings, type(self).__name__)
        self.model_part = GetModelPart(model, settings)
        self.nodes = NodeSet(self.model_part)
        self.interval = KratosInterval(settings)

    def _Time(self):
        return float(self.model_part.ProcessInfo[tessera.TIME])


def _ValidateGroups(settings, defaults_text, groups, free_keys):
    """Validates a process "Parameters" block against `defaults_text`, with its
    `groups` validated one level down. The `free_keys` of a group (per-component
    arrays whose entries may be numbers, expressions, ids or null) are taken
    as given here and checked per component by ReadComponents."""
    defaults = tessera.Parameters(defaults_text)
    for group in groups:
        if settings.Has(group) and settings[group].IsSubParameter():
            for key in free_keys:
                if settings[group].Has(key):
                    defaults[group].SetValue(key, settings[group][key])
    ValidateSettings(settings, defaults)
    for group in groups:
        settings[group].ValidateAndAssignDefaults(defaults[group])
    return settings


def ValidateKinematicSettings(settings):
    """Validates a kinematic-constraints "Parameters" block (both the sphere and
    the wall process take the same keys)."""
    return _ValidateGroups(settings, KINEMATIC_DEFAULTS,
                           ("velocity_constraints_settings", "angular_velocity_constraints_settings"),
                           ("value", "table"))


class Component:
    """One component of a "value"/"table" pair. A table, when given, decides the
    value; otherwise "value" (number or expression), where null means 0.0 as in
    Kratos."""

    def __init__(self, value, table, model_part):
        self.has_table = not table.IsNull()
        if self.has_table:
            if not table.IsInt():
                raise SettingsError(table, "a table is given by its integer id (or null for none)")
            # Kratos' force process writes 0 for "no table"
            self.has_table = table.GetInt() != 0
        if self.has_table:
            self.source = TableValue(model_part, table.GetInt(), table)
        elif value.IsNull():
            self.source = ValueSource.FromParameters(tessera.Parameters("0.0"))
        else:
            self.source = ValueSource.FromParameters(value, model_part)

    def Evaluate(self, time, nodes):
        return self.source.Evaluate(time, nodes)


def ReadComponents(settings, model_part):
    """The three Components of a {"value": [...], "table": [...]} block."""
    values, tables = settings["value"], settings["table"]
    for key, array in (("value", values), ("table", tables)):
        if not array.IsArray() or array.size() != 3:
            raise SettingsError(array, f'"{key}" needs three components')
    return [Component(values[i], tables[i], model_part) for i in range(3)]


def ReadConstrained(settings):
    flags = settings["constrained"]
    if not flags.IsArray() or flags.size() != 3 or not all(flags[i].IsBool() for i in range(3)):
        raise SettingsError(flags, "expected three bools [cx, cy, cz]")
    return [flags[i].GetBool() for i in range(3)]


def SampleTimes(interval, begin, end, count=101):
    """Times of [begin, end] inside the interval, for bounds on imposed values."""
    low, high = max(begin, interval.begin), min(end, interval.end)
    if high < low:
        return np.empty(0)
    return np.linspace(low, high, count)


LOAD_DEFAULTS = """{
    "help": "Applies an external force and moment",
    "mesh_id": 0,
    "model_part_name": "please_specify_model_part_name",
    "force_settings": {"value": [0.0, 0.0, 0.0], "table": [0, 0, 0]},
    "moment_settings": {"value": [0.0, 0.0, 0.0], "table": [0, 0, 0]},
    "interval": [0.0, 1e30]
}"""


def ValidateLoadSettings(settings):
    """Validates a forces-and-moments "Parameters" block (the sphere and the
    wall process take the same keys)."""
    return _ValidateGroups(settings, LOAD_DEFAULTS, ("force_settings", "moment_settings"),
                           ("value",))


class PointNodes:
    """One point as a NodeSet stand-in, so that expressions of x, y, z (and
    X, Y, Z: `initial`, the point itself unless given) are evaluated there:
    Kratos evaluates the wall processes' expressions at the body's centre."""

    def __init__(self, point, initial=None):
        self.point = np.asarray(point, dtype=float).reshape(1, 3)
        self.initial = self.point if initial is None else np.asarray(initial, dtype=float).reshape(1, 3)

    def Coordinates(self):
        return self.point

    def InitialCoordinates(self):
        return self.initial
