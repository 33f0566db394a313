"""Helpers the kernel's Python tests import (conftest.py only holds fixtures,
since every test folder has a conftest and `from conftest import` would pick
whichever pytest loaded first)."""
import os

import tessera

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def MakeLineModel(model=None, name="Main", count=5, variables=("DISPLACEMENT", "VELOCITY", "TEMPERATURE"),
                  buffer_size=2):
    """A root model part of `count` nodes at x = 0, 1, ..., y = 2x, z = 0.5 with
    the given historical variables, and a sub model part "Right" holding the
    last two nodes."""
    model = tessera.Model() if model is None else model
    model_part = model.CreateModelPart(name, buffer_size)
    for variable in variables:
        model_part.AddNodalSolutionStepVariable(tessera.GetVariable(variable))
    for i in range(count):
        model_part.CreateNewNode(i + 1, float(i), 2.0 * i, 0.5)
    model_part.CreateSubModelPart("Right").AddNodes([count - 1, count])
    return model, model_part
