"""Where the coupling tests find the repository and the shared Kratos cases
(a module of its own: test modules importing from `conftest` would get
another application's conftest when pytest collects them all in one run)."""
import os

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
CASES = os.path.normpath(os.path.join(REPO_ROOT, "..", "shared", "kratos_cases"))
