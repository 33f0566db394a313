"""Fixtures of the structural tests: where the shared Kratos cases are, and a
copy of a case folder in a temporary directory (decks are never run in place,
so /work/shared stays untouched)."""
import os
import shutil

import pytest

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
KRATOS_CASES = os.path.normpath(os.path.join(REPO_ROOT, "..", "shared", "kratos_cases"))


@pytest.fixture
def case_copy(tmp_path):
    """case_copy("sm_patch_tests") -> path of a private copy of that case folder."""
    def copy(name):
        source = os.path.join(KRATOS_CASES, name)
        if not os.path.isdir(source):
            pytest.fail(f"shared case folder missing: {source}")
        target = tmp_path / name
        shutil.copytree(source, target)
        return str(target)
    return copy
