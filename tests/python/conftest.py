"""Shared fixtures of the Python tests: where the repository, the shared
reference cases (../shared from the repository root) and the built `tessera`
launcher (<package dir>/../bin/tessera) are, and small model-building helpers."""
import os
import subprocess
import sys

import pytest

import tessera

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED_DIR = os.path.normpath(os.path.join(REPO_ROOT, "..", "shared"))
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(tessera.__file__)))
LAUNCHER = os.path.normpath(os.path.join(PACKAGE_PARENT, "..", "bin", "tessera"))


@pytest.fixture(scope="session")
def repo_root():
    return REPO_ROOT


@pytest.fixture(scope="session")
def shared_dir():
    return SHARED_DIR


@pytest.fixture(scope="session")
def kratos_cases(shared_dir):
    return os.path.join(shared_dir, "kratos_cases")


@pytest.fixture(scope="session")
def launcher():
    if not os.path.exists(LAUNCHER):
        pytest.fail(f"the tessera launcher is not built: {LAUNCHER}")
    return LAUNCHER


def CliEnvironment():
    """The environment a child `tessera` needs: the package this test imports."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([PACKAGE_PARENT] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


@pytest.fixture
def run_cli(launcher):
    """run_cli(*args, cwd=None) -> CompletedProcess of the built launcher."""

    def run(*args, cwd=None, timeout=300):
        return subprocess.run([launcher, *args], cwd=cwd, env=CliEnvironment(), capture_output=True,
                              text=True, timeout=timeout)

    return run


@pytest.fixture
def run_module():
    """run_module(*args) -> CompletedProcess of `python3 -m tessera ...`."""

    def run(*args, cwd=None, timeout=300):
        return subprocess.run([sys.executable, "-m", "tessera", *args], cwd=cwd, env=CliEnvironment(),
                              capture_output=True, text=True, timeout=timeout)

    return run


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


@pytest.fixture
def line_model():
    return MakeLineModel()
