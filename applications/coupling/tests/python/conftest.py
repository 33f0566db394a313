"""Fixtures of the coupling tests: the applications registered when the first
test of a file runs (not at collection: the kernel's tests check that
application names are unknown without them), and a scratch project folder."""
import pytest


@pytest.fixture(autouse=True, scope="module")
def coupling_application():
    import tessera.coupling  # noqa: F401  (registers dem, structural and coupling)


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A scratch folder, the working directory of the test (decks name their
    files relative to it)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path
