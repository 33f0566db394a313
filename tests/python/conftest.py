"""Shared fixtures of the Python tests: where the repository, the shared
reference cases (../shared from the repository root) and the built `tessera`
launcher (<package dir>/../bin/tessera) are, and the fixtures built on them.
Helpers that test modules import live in
kernel_testing.py: a module named conftest would clash with the conftest of
every application's tests when pytest collects them in one run."""
import os
import subprocess
import sys

import pytest

import tessera
from kernel_testing import REPO_ROOT, MakeLineModel

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


@pytest.fixture
def line_model():
    return MakeLineModel()
