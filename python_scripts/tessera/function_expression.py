"""Safe, vectorised evaluation of the function strings Kratos decks use for
imposed values: "10*t", "sqrt(x**2+y**2)*sin(t)", "x+y*t".

An expression is parsed with Python's `ast` module and accepted only if it is
arithmetic on numbers, the names t, x, y, z (current coordinates), X, Y, Z
(initial coordinates), the constants pi and e, and calls of the math functions
listed in FUNCTIONS. Anything else (attribute access, subscripts, imports,
lambdas, other names) is an error naming the expression, so a deck cannot run
arbitrary code. The accepted tree is compiled once and evaluated with numpy,
so one call gives the values at every node of a model part.
"""
import ast

import numpy as np

from . import _tessera

# Names an expression may use, and what they are bound to when evaluated.
VARIABLES = ("t", "x", "y", "z", "X", "Y", "Z")
CONSTANTS = {"pi": np.pi, "e": np.e}
FUNCTIONS = {
    "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "atan2": np.arctan2,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "exp": np.exp, "log": np.log, "log10": np.log10, "sqrt": np.sqrt,
    "abs": np.abs, "fabs": np.abs, "pow": np.power, "hypot": np.hypot,
    "floor": np.floor, "ceil": np.ceil, "sign": np.sign,
    "min": np.minimum, "max": np.maximum,
}

_BINARY_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.Mod, ast.FloorDiv)
_UNARY_OPERATORS = (ast.UAdd, ast.USub)
_COMPARISONS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)


class _Validator(ast.NodeVisitor):
    """Walks the tree and rejects every node that is not plain arithmetic."""

    def __init__(self, fail):
        self.fail = fail
        self.names = set()

    def generic_visit(self, node):
        self.fail(f"{type(node).__name__} is not allowed")

    def visit_Expression(self, node):
        self.visit(node.body)

    def visit_Constant(self, node):
        # bool is an int subclass, but "True" in an expression is a mistake
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            self.fail(f"the constant {node.value!r} is not a number")

    def visit_Name(self, node):
        if node.id not in VARIABLES and node.id not in CONSTANTS:
            allowed = ", ".join(VARIABLES + tuple(CONSTANTS))
            self.fail(f"unknown name '{node.id}' (allowed names: {allowed})")
        self.names.add(node.id)

    def visit_BinOp(self, node):
        if isinstance(node.op, ast.BitXor):
            self.fail("'^' is not a power: write x**2")
        if not isinstance(node.op, _BINARY_OPERATORS):
            self.fail(f"the operator {type(node.op).__name__} is not allowed")
        self.visit(node.left)
        self.visit(node.right)

    def visit_UnaryOp(self, node):
        if not isinstance(node.op, _UNARY_OPERATORS):
            self.fail(f"the operator {type(node.op).__name__} is not allowed")
        self.visit(node.operand)

    def visit_Compare(self, node):
        # A single comparison gives 0/1, useful for switching a load on: "(t>0.5)*10".
        if len(node.ops) != 1 or not isinstance(node.ops[0], _COMPARISONS):
            self.fail("only single comparisons (a < b) are allowed")
        self.visit(node.left)
        self.visit(node.comparators[0])

    def visit_Call(self, node):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            what = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)
            self.fail(f"'{what}' is not an allowed function (allowed: {', '.join(sorted(FUNCTIONS))})")
        if node.keywords:
            self.fail("keyword arguments are not allowed")
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                self.fail("starred arguments are not allowed")
            self.visit(arg)


class FunctionExpression:
    """A compiled expression of t, x, y, z (and X, Y, Z). `origin` says where it
    came from (e.g. "ProjectParameters.json: key 'processes...value'") for errors."""

    def __init__(self, text, origin=None):
        if not isinstance(text, str):
            raise TypeError(f"a function expression is a string, got {type(text).__name__}")
        self.text = text
        self.origin = origin
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError as error:
            self._Fail(f"it is not a valid expression ({error.msg})")
        validator = _Validator(self._Fail)
        validator.visit(tree)
        self.names = frozenset(validator.names)
        self._code = compile(tree, f"<expression {text!r}>", "eval")

    def _Fail(self, reason):
        where = f"{self.origin}: " if self.origin else ""
        raise _tessera.Error(f"{where}invalid function expression \"{self.text}\": {reason}")

    # Kratos' GenericFunctionUtility names
    def DependsOnSpace(self):
        return bool(self.names & {"x", "y", "z", "X", "Y", "Z"})

    def DependsOnTime(self):
        return "t" in self.names

    def UsesInitialCoordinates(self):
        return bool(self.names & {"X", "Y", "Z"})

    def CallFunction(self, x, y, z, t, X=0.0, Y=0.0, Z=0.0):
        """Kratos' argument order; scalars in, a float out."""
        return float(self(t=t, x=x, y=y, z=z, X=X, Y=Y, Z=Z))

    def __call__(self, t=0.0, x=0.0, y=0.0, z=0.0, X=0.0, Y=0.0, Z=0.0):
        namespace = {"__builtins__": {}}
        namespace.update(CONSTANTS)
        namespace.update(FUNCTIONS)
        namespace.update(t=t, x=x, y=y, z=z, X=X, Y=Y, Z=Z)
        with np.errstate(all="ignore"):
            try:
                return eval(self._code, namespace)  # noqa: S307 -- the tree was validated above
            except (ArithmeticError, ValueError, TypeError) as error:
                self._Fail(f"evaluation failed at t={t}: {error}")

    def Evaluate(self, t, coordinates=None, initial_coordinates=None, count=None):
        """Values at `count` points: `coordinates` and `initial_coordinates` are
        (n, 3) arrays (either may be None when the expression does not use them).
        Always returns a float array of shape (n,)."""
        n = count
        for array in (coordinates, initial_coordinates):
            if array is not None:
                n = len(array)
        if n is None:
            n = 1
        args = {"t": float(t)}
        if coordinates is not None:
            args.update(x=coordinates[:, 0], y=coordinates[:, 1], z=coordinates[:, 2])
        if initial_coordinates is not None:
            args.update(X=initial_coordinates[:, 0], Y=initial_coordinates[:, 1],
                        Z=initial_coordinates[:, 2])
        value = self(**args)
        result = np.broadcast_to(np.asarray(value, dtype=float), (n,))
        if not np.all(np.isfinite(result)):
            bad = int(np.flatnonzero(~np.isfinite(result))[0])
            self._Fail(f"it gives {result[bad]} at t={t} (point {bad} of {n})")
        return np.array(result)

    def __repr__(self):
        return f"FunctionExpression({self.text!r})"

