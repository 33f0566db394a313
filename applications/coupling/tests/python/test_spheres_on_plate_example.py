"""The coupled example `make demo` runs (examples/spheres_on_plate), through
the `tessera` command on a copy of the folder: it is recognised as coupled on
the first line, finds the plate's whole skin, runs to its end and writes
ParaView files of both domains. (The physics of the coupling is checked by
test_coupling_invariants.py and test_coupling_thesis_validation.py.)"""
import os
import shutil
import subprocess

import tessera

from coupling_testing import REPO_ROOT

EXAMPLE = os.path.join(REPO_ROOT, "examples", "spheres_on_plate")
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(tessera.__file__)))
LAUNCHER = os.path.normpath(os.path.join(PACKAGE_PARENT, "..", "bin", "tessera"))


def test_the_demo_runs_as_a_coupled_analysis(tmp_path):
    case = tmp_path / "spheres_on_plate"
    shutil.copytree(EXAMPLE, case, ignore=shutil.ignore_patterns("VTK_Output", "*_Post_Files", "*.png"))
    env = dict(os.environ, PYTHONPATH=PACKAGE_PARENT, OMP_NUM_THREADS="1")
    result = subprocess.run([LAUNCHER, "run", str(case)], env=env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].startswith("tessera: coupled DE-FE analysis")
    assert "386 skin nodes, 384 skin faces" in result.stdout  # 12 x 12 x 2 hexahedra's surface
    assert "5001 steps" in result.stderr
    assert sorted(p.name for p in (case / "VTK_Output").glob("*.pvd")) == ["Structure.pvd"]
    assert len(list((case / "VTK_Output").glob("Structure_*.vtu"))) >= 50
    assert list((case / "spheres_on_plate_Post_Files").glob("*.pvd"))
    # One collection of both domains for ParaView: a part per source, files that exist.
    import xml.etree.ElementTree as ElementTree
    collection = ElementTree.parse(case / "spheres_on_plate_coupled.pvd").getroot()
    datasets = list(collection.iter("DataSet"))
    assert {d.get("part") for d in datasets} == {"0", "1", "2"}  # Structure, RigidFacePart, SpheresPart
    assert all((case / d.get("file")).is_file() for d in datasets)
    # The energy balance: its file and plot; E_T within 2 % of the largest
    # term (measured 1.26 %: ADM's area scaling of multi-face contacts, which
    # no potential gives; 10.4 % when ADM booked its normal dashpot unscaled).
    import numpy as np
    assert (case / "spheres_on_plate_coupled_energy.png").is_file()
    rows = np.loadtxt(case / "spheres_on_plate_coupled_energy.dat")
    scale = np.max(np.abs(rows[:, 1:-1]))
    assert np.max(np.abs(rows[:, -1] - rows[0, -1])) < 0.02 * scale
