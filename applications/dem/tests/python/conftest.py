"""Fixtures shared by the DEM tests: the dem application registered before
each test file runs, and private copies of the shared Kratos case folders
(decks are never run in place, so ../shared stays untouched)."""
import os
import shutil

import pytest

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
CASES = os.path.normpath(os.path.join(REPO_ROOT, "..", "shared", "kratos_cases"))


@pytest.fixture(autouse=True, scope="module")
def dem_application():
    """Imports tessera.dem when the first test of a file runs rather than when
    pytest collects it: the registry is process-wide, and collection imports every
    test file (the kernel's tests check that DEM names are unknown without it)."""
    import tessera.dem  # noqa: F401  (registers the DEM names)


@pytest.fixture
def in_copy(tmp_path, monkeypatch):
    """in_copy("dem3d_restitution") copies that case folder to tmp_path and runs
    the test inside the copy."""
    def copy(case):
        target = tmp_path / os.path.basename(case)
        shutil.copytree(os.path.join(CASES, case), target)
        monkeypatch.chdir(target)
        return target
    return copy
