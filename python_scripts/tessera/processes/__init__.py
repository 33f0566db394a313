"""Kratos' standard processes (assign, fix, check, json output), one module per
process as Kratos names them, and the helpers they share:

* `IntervalUtility`: the [t0, t1 | "End"] interval of a process;
* `ValueSource`: a value given as a number, a function expression of
  t, x, y, z (see tessera.function_expression) or a table id;
* `NodeSet`: numpy access to the nodal data of a model part (zero-copy views
  on a root model part, the root's rows picked by NodeIndices() otherwise);
* `NodalAssignment`: values and fixity imposed on nodal variables or their
  components inside an interval, which the assign and fix processes share;
* `CheckFailure`: what check processes raise when a result is wrong;
* `SettingsError`, `GetVariable`, `GetModelPart`: errors naming the file and
  the key path of the offending setting.
"""
import math

import numpy as np

import tessera
from .. import _tessera
from ..function_expression import FunctionExpression

# Kratos writes "End" or 1e30 for an interval without end.
END_OF_TIME = 1e30


class CheckFailure(AssertionError):
    """A check process found a result that differs from the reference. An
    AssertionError, so unittest and pytest report it as a failed check."""


def Where(settings):
    """ "file: key 'a.b[2].c'" for messages about a setting."""
    path = settings.Path()
    return f"{settings.Origin()}: key '{path}'" if path else settings.Origin()


def SettingsError(settings, message):
    """A tessera.Error whose message starts with the file and key path."""
    return _tessera.Error(f"{Where(settings)}: {message}")


def ProcessLabel(settings, class_name):
    """ "AssignScalarVariableProcess (processes.loads_process_list[0])" for messages."""
    path = settings.Path()
    if path.endswith(".Parameters"):
        path = path[: -len(".Parameters")]
    return f"{class_name} ({path})" if path else class_name


def GetVariable(settings, key="variable_name"):
    """The registered variable named by settings[key]; an unknown name is an
    error naming the key (with the registry's suggestions)."""
    name = settings[key].GetString()
    try:
        return _tessera.GetVariable(name)
    except _tessera.Error as error:
        raise SettingsError(settings[key], str(error)) from None


def GetModelPart(model, settings, key="model_part_name"):
    name = settings[key].GetString()
    try:
        return model.GetModelPart(name)
    except _tessera.Error as error:
        raise SettingsError(settings[key], str(error)) from None


def ValidateSettings(settings, defaults, flexible=()):
    """settings.ValidateAndAssignDefaults(defaults), where the keys in `flexible`
    may hold values of several types (a number or an expression string; a bool or
    a list of bools): their type is checked by the process that reads them."""
    defaults = _tessera.Parameters(defaults) if isinstance(defaults, str) else defaults.Clone()
    for key in flexible:
        if settings.Has(key) and defaults.Has(key):
            defaults.SetValue(key, settings[key])
    settings.ValidateAndAssignDefaults(defaults)
    return settings


class IntervalUtility:
    """The time interval in which a process acts: "interval": [t0, t1] with t1 a
    number or "End". Both ends are included, with a tolerance of 1e-10 relative
    to the time so that times accumulated as t += dt (0.1+0.2 != 0.3) still hit
    the ends they were meant to hit."""

    def __init__(self, settings, key="interval"):
        interval = settings[key]
        if not interval.IsArray() or interval.size() != 2:
            raise SettingsError(interval, 'expected [start, end] with end a number or "End"')
        if not interval[0].IsNumber():
            raise SettingsError(interval[0], "the start of an interval is a number")
        self.begin = interval[0].GetDouble()
        if interval[1].IsString():
            if interval[1].GetString() != "End":
                raise SettingsError(interval[1], f'expected a number or "End", got "{interval[1].GetString()}"')
            self.end = END_OF_TIME
        elif interval[1].IsNumber():
            self.end = interval[1].GetDouble()
        else:
            raise SettingsError(interval[1], 'expected a number or "End"')
        if self.end < self.begin:
            raise SettingsError(interval, f"the interval ends ({self.end}) before it begins ({self.begin})")

    def IsInInterval(self, time):
        tolerance = 1e-10 * max(1.0, abs(time))
        return self.begin - tolerance <= time <= self.end + tolerance

    def __repr__(self):
        end = "End" if self.end >= END_OF_TIME else self.end
        return f"[{self.begin}, {end}]"


class ValueSource:
    """A value that may vary in time and space: Constant, Expression or Table.
    Evaluate(time, nodes) gives a float or an array with one value per node."""

    @staticmethod
    def FromParameters(value, model_part=None, table=None):
        """From a settings value (number or expression string) or, when `table`
        (a Parameters int) is given and not null, from that table of the model part."""
        if table is not None and not table.IsNull():
            if not table.IsInt():
                raise SettingsError(table, "a table is given by its integer id (or null for none)")
            return TableValue(model_part, table.GetInt(), table)
        if value.IsNumber():
            return ConstantValue(value.GetDouble())
        if value.IsString():
            text = value.GetString()
            try:  # Kratos decks write numbers as strings at times: "0.0"
                return ConstantValue(float(text))
            except ValueError:
                return ExpressionValue(FunctionExpression(text, origin=Where(value)))
        raise SettingsError(value, "expected a number or a function expression of t, x, y, z")


class ConstantValue(ValueSource):
    def __init__(self, value):
        self.value = float(value)

    def Evaluate(self, time, nodes=None):
        return self.value

    def __repr__(self):
        return repr(self.value)


class ExpressionValue(ValueSource):
    def __init__(self, expression):
        self.expression = expression

    def Evaluate(self, time, nodes=None):
        if not self.expression.DependsOnSpace():
            return float(self.expression(t=time))
        if nodes is None:
            raise _tessera.Error(f"the expression \"{self.expression.text}\" depends on x, y, z "
                                 "but is evaluated without points")
        initial = nodes.InitialCoordinates() if self.expression.UsesInitialCoordinates() else None
        return self.expression.Evaluate(time, nodes.Coordinates(), initial)

    def __repr__(self):
        return f'"{self.expression.text}"'


class TableValue(ValueSource):
    """value = table(TIME), the table read from the mdpa ("Begin Table")."""

    def __init__(self, model_part, table_id, settings):
        holder = model_part
        if not holder.HasTable(table_id):
            holder = model_part.GetRootModelPart()
        if not holder.HasTable(table_id):
            raise SettingsError(settings, f"table {table_id} is not defined in {model_part.FullName()} "
                                "(nor in its root model part)")
        self.table = holder.GetTable(table_id)
        self.table_id = table_id

    def Evaluate(self, time, nodes=None):
        return float(self.table.GetValue(time))

    def __repr__(self):
        return f"table {self.table_id}"


class NodeSet:
    """numpy access to the nodal data of `model_part`. On a root model part the
    arrays are the zero-copy views of its columns; on a sub model part they are
    the root's rows at NodeIndices() (fetched on each call, since nodes may be
    added or removed between steps). Historical values are used when the
    variable is a solution-step variable of the model part, else the
    non-historical ones."""

    def __init__(self, model_part):
        self.model_part = model_part
        self.root = model_part.GetRootModelPart()
        self.is_root = not model_part.IsSubModelPart()

    def __len__(self):
        return self.model_part.NumberOfNodes()

    def Indices(self):
        return None if self.is_root else self.model_part.NodeIndices()

    def Ids(self):
        return self.model_part.NodeIds()

    def IsHistorical(self, variable):
        source = variable.GetSourceVariable() if variable.IsComponent() else variable
        return self.root.HasNodalSolutionStepVariable(source)

    def _Column(self, variable, step=0):
        if self.IsHistorical(variable):
            return self.root.NodalArray(variable, step)
        if step != 0:
            raise _tessera.Error(f"{variable.Name()} is not a solution-step variable of "
                                 f"{self.root.Name}, so it has no value {step} steps back")
        return self.root.NodalValueArray(variable)

    def Get(self, variable, step=0):
        """The values, (n,) or (n, 3): a view on a root model part, a copy otherwise."""
        column = self._Column(variable, step)
        return column if self.is_root else column[self.Indices()]

    def Set(self, variable, values, step=0):
        """Writes values (a scalar, an (n,) or an (n, 3) array) to every node."""
        column = self._Column(variable, step)
        if self.is_root:
            column[...] = values
        else:
            column[self.Indices()] = values

    def Coordinates(self):
        coordinates = self.root.NodalCoordinates()
        return coordinates if self.is_root else coordinates[self.Indices()]

    def InitialCoordinates(self):
        coordinates = self.root.NodalInitialCoordinates()
        return coordinates if self.is_root else coordinates[self.Indices()]


class NodalAssignment:
    """Values and fixity imposed on nodal variables inside a time interval, with
    Kratos' semantics: on each step whose time is in the interval the values are
    written at ExecuteInitializeSolutionStep and the constrained ones fixed; the
    fixity is released at ExecuteFinalizeSolutionStep. To spare a loop over
    nodes on every step the release is skipped when the next step (time +
    DELTA_TIME) is in the interval too, since it would fix them again.

    `targets`: list of (variable, ValueSource or None, constrained); a scalar
    variable or a component (DISPLACEMENT_X). A None value only fixes.
    Fixity applies to nodes that have a degree of freedom for the variable:
    Kratos decks mark data such as VOLUME_ACCELERATION "constrained" and rely on
    that being a no-op.
    """

    def __init__(self, model_part, targets, interval):
        self.model_part = model_part
        self.nodes = NodeSet(model_part)
        self.targets = list(targets)
        self.interval = interval
        self.fixed = []  # (variable, [node ids]) fixed by us and not yet released
        self.is_fixed = False  # the fixity of the current activation is applied
        self.step_is_active = False

    def Check(self, label):
        for variable, _, _ in self.targets:
            source = variable.GetSourceVariable() if variable.IsComponent() else variable
            if not self.nodes.IsHistorical(variable) and source.Kind() not in (
                    _tessera.ValueKind.Double, _tessera.ValueKind.Array3):
                raise _tessera.Error(f"{label}: {variable.Name()} is not a number or 3-vector variable")

    def CheckDofs(self, label):
        """For processes that exist to fix: an error when no node has a degree of
        freedom for a constrained variable, since fixing would do nothing."""
        if self.model_part.NumberOfNodes() == 0:
            return
        for variable, _, constrained in self.targets:
            if constrained and not any(node.HasDofFor(variable) for node in self.model_part.Nodes):
                raise _tessera.Error(f"{label}: {variable.Name()} is not a degree of freedom of the "
                                     f"nodes of {self.model_part.FullName()}, so it cannot be fixed "
                                     "(the solver adds the degrees of freedom it solves for)")

    def _Time(self):
        return float(self.model_part.ProcessInfo[tessera.TIME])

    def Apply(self, time=None):
        time = self._Time() if time is None else time
        self.step_is_active = self.interval.IsInInterval(time)
        if not self.step_is_active:
            self.ReleaseFixity()
            return
        if not self.is_fixed:
            self._Fix()
        for variable, source, _ in self.targets:
            if source is not None:
                self.nodes.Set(variable, source.Evaluate(time, self.nodes))

    def FinalizeStep(self):
        if not self.is_fixed:
            return
        next_time = self._Time() + float(self.model_part.ProcessInfo[tessera.DELTA_TIME])
        if not self.interval.IsInInterval(next_time):
            self.ReleaseFixity()

    def _Fix(self):
        for variable, _, constrained in self.targets:
            if not constrained:
                continue
            fixed_ids = []
            for node in self.model_part.Nodes:
                if node.HasDofFor(variable):
                    node.Fix(variable)
                    fixed_ids.append(node.Id)
            if fixed_ids:
                self.fixed.append((variable, fixed_ids))
        self.is_fixed = True

    def ReleaseFixity(self):
        # by id: node handles are positions, which change if nodes are removed meanwhile
        root = self.model_part.GetRootModelPart()
        for variable, fixed_ids in self.fixed:
            for node_id in fixed_ids:
                if root.HasNode(node_id):
                    root.GetNode(node_id).Free(variable)
        self.fixed = []
        self.is_fixed = False


class NodalAssignmentProcess(tessera.Process):
    """The step hooks shared by the processes that impose nodal values and
    fixity through a NodalAssignment: subclasses set `self.label` and
    `self.assignment`; `fixes_only` processes also check that the constrained
    variables are degrees of freedom (fixing would do nothing otherwise)."""

    fixes_only = False

    def Check(self):
        self.assignment.Check(self.label)
        if self.fixes_only:
            self.assignment.CheckDofs(self.label)
        return 0

    def ExecuteBeforeSolutionLoop(self):
        # As Kratos: the initial state (start time) already carries the values.
        self.ExecuteInitializeSolutionStep()

    def ExecuteInitializeSolutionStep(self):
        self.assignment.Apply()

    def ExecuteFinalizeSolutionStep(self):
        self.assignment.FinalizeStep()

    def ExecuteFinalize(self):
        self.assignment.ReleaseFixity()


def ComponentsOf(variable, settings):
    """The _X, _Y, _Z component variables of a 3-vector variable."""
    if variable.IsComponent() or variable.Kind() != _tessera.ValueKind.Array3:
        raise SettingsError(settings, f"{variable.Name()} is not a 3-vector variable")
    return [_tessera.GetVariable(variable.Name() + suffix) for suffix in ("_X", "_Y", "_Z")]


def ConstrainedFlags(settings, count=3):
    """"constrained": a bool for all components or a list of `count` bools."""
    if settings.IsBool():
        return [settings.GetBool()] * count
    if settings.IsArray() and settings.size() == count and all(settings[i].IsBool() for i in range(count)):
        return [settings[i].GetBool() for i in range(count)]
    raise SettingsError(settings, f"expected a bool or a list of {count} bools")


def UnitDirection(direction):
    """The normalised [dx, dy, dz] of a settings array; zero is an error."""
    if not direction.IsArray() or direction.size() != 3 or not all(direction[i].IsNumber() for i in range(3)):
        if direction.IsString() and direction.GetString().startswith("automatic"):
            raise SettingsError(direction, f'"{direction.GetString()}" (normals computed from the '
                                "mesh) is not supported yet: give the direction as [dx, dy, dz]")
        raise SettingsError(direction, "expected a direction [dx, dy, dz] of numbers")
    vector = np.array([direction[i].GetDouble() for i in range(3)])
    norm = math.sqrt(float(vector @ vector))
    if norm < 1e-300:
        raise SettingsError(direction, "the direction vector is zero")
    return vector / norm
