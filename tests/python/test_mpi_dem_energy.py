"""The DEM energy balance under MPI ("EnergyCalculationOption" with
"parallel_type": "MPI"): the bed of test_mpi_dem.py (294 spheres thrown into
an open box of rigid walls, mpi_dem_case.py) with viscous damping (restitution
0.4), Coulomb friction (0.4), rolling friction and global damping, 1,000
steps on 2 and 4 ranks under mpirun against the serial run, and the same bed
with a side wall pushed in on 2 ranks, and test_mpi_dem.py's bonded specimen
(continuum strategy) on 2 and 4 ranks. Every energy term
(kinetic, potential, elastic, dissipated by each mechanism; stage.GetEnergies(),
the global sums of DistributedDem.GlobalEnergies) must equal the serial run's
at every sample to 1e-12 of the largest term: each sphere, pair contact and
wall contact counted once (docs/architecture.md "Distributed DEM", energies),
the ranks' shares summed in rank order (a bond by the owner of its first
sphere). The energy graph is written once, by
rank 0, with the global values. The mpirun tests skip where the build has no
MPI or there is no mpirun."""
import json
import os
import sys

import numpy as np
import pytest

from tessera.parallel import MpiSkipReason, MpirunCommand, MpirunEnvironment, RunPython

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpi_dem_case import DT, WriteBed  # noqa: E402

RUN_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mpi_dem_energy_run.py")
needs_mpi = pytest.mark.skipif(MpiSkipReason() is not None, reason=str(MpiSkipReason()))
STEPS, EVERY = 1000, 20
# The distributed sums group the same per-sphere and per-contact terms
# otherwise (per rank, then the ranks in order; the dissipated energies are
# per-rank running sums over the steps): equal to rounding, which over 1,000
# steps stays far below the bound of 1e-12 of the largest term.
RELATIVE = 1e-12


def write_case(folder, keys=None, moving_wall=False):
    settings = {"EnergyCalculationOption": True, "GlobalDamping": 0.05,
                "RollingFrictionOption": True, "GraphExportFreq": EVERY * DT}
    settings.update(keys or {})
    WriteBed(folder, steps=STEPS, moving_wall=moving_wall, keys=settings)
    path = os.path.join(folder, "MaterialsDEM.json")
    with open(path) as f:
        materials = json.load(f)
    for relation in materials["material_relations"]:
        relation["Variables"]["ROLLING_FRICTION"] = 0.02
        relation["Variables"]["ROLLING_FRICTION_WITH_WALLS"] = 0.02
    with open(path, "w") as f:
        json.dump(materials, f, indent=1)


def run_energies(folder, out, ranks=None):
    RunPython([RUN_SCRIPT, folder, out, "MPI" if ranks else "OpenMP", EVERY], ranks)
    return np.load(out)


def assert_energies_equal(serial, distributed):
    np.testing.assert_array_equal(distributed["steps"], serial["steps"])
    a, b = serial["energies"], distributed["energies"]
    scale = np.abs(a).max()
    worst = np.abs(b - a).max() / scale
    print(f"{int(distributed['ranks'])} ranks: largest difference {worst:.2e} of the largest term")
    for k, name in enumerate(serial["columns"]):
        np.testing.assert_allclose(b[:, k], a[:, k], rtol=0, atol=RELATIVE * scale, err_msg=str(name))


@pytest.fixture(scope="module")
def serial_bed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("energy_bed")
    write_case(folder)
    result = run_energies(folder, folder / "serial.npz")
    columns = [str(c) for c in result["columns"]]
    e = {name: result["energies"][:, k] for k, name in enumerate(columns)}
    # The case exercises every term: each dissipation mechanism has taken
    # energy by the end, and contacts store elastic energy on the way.
    for name in ("dissipated_damping", "dissipated_friction", "dissipated_rolling",
                 "dissipated_global_damping", "elastic_normal", "elastic_tangential",
                 "kinetic_rotational"):
        assert np.abs(e[name]).max() > 1e-4 * np.abs(result["energies"]).max(), name
    # The bed is alive: most of the kinetic energy it was thrown with is gone.
    assert e["kinetic_translational"][-1] < 0.5 * e["kinetic_translational"][0]
    # The serial run's energy graph (the runs below write theirs there too).
    with open(os.path.join(folder, "bed_Graphs", "bed_energy.dat")) as f:
        graph = f.read().splitlines()
    return folder, result, graph


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4])
def test_energies_on_ranks_equal_serial(serial_bed, tmp_path, ranks):
    folder, serial, _ = serial_bed
    distributed = run_energies(folder, tmp_path / f"mpi{ranks}.npz", ranks)
    assert int(distributed["ranks"]) == ranks and len(serial["steps"]) == STEPS // EVERY + 1
    assert_energies_equal(serial, distributed)
    assert int(distributed["migrations"]) > 0  # spheres (and their contacts) changed rank


@needs_mpi
def test_energies_with_a_moving_wall_on_two_ranks_equal_serial(tmp_path):
    # The side wall x = L pushed in at 0.5 m/s (imposed motion, whose work
    # the balance does not count): the wall contacts' stored and dissipated
    # energies on the ranks that own their spheres.
    write_case(tmp_path / "bed", {"TranslationalIntegrationScheme": "Symplectic_Euler"},
               moving_wall=True)
    serial = run_energies(tmp_path / "bed", tmp_path / "serial.npz")
    distributed = run_energies(tmp_path / "bed", tmp_path / "mpi.npz", 2)
    assert_energies_equal(serial, distributed)
    assert int(distributed["migrations"]) > 0  # spheres (and their contacts) changed rank


@needs_mpi
def test_energy_graph_is_written_once_with_the_global_values(serial_bed, tmp_path):
    import subprocess

    folder, _, serial_lines = serial_bed
    graph = os.path.join(folder, "bed_Graphs", "bed_energy.dat")
    os.remove(graph)
    command = MpirunCommand(2, sys.executable, "-m", "tessera", "run", str(folder),
                            "--set", 'parallel_type="MPI"')
    result = subprocess.run(command, env=MpirunEnvironment(), capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = open(graph).read().splitlines()
    # One header and one row per sample (rank 0 alone writes), the serial
    # run's values to the 13 digits written.
    assert len(lines) == len(serial_lines) == STEPS // EVERY + 2
    assert lines[0] == serial_lines[0]
    mpi = np.array([[float(v) for v in line.split()] for line in lines[1:]])
    ref = np.array([[float(v) for v in line.split()] for line in serial_lines[1:]])
    np.testing.assert_allclose(mpi, ref, rtol=0, atol=1e-11 * np.abs(ref).max())


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4])
def test_energies_of_a_bonded_specimen_on_ranks_equal_serial(tmp_path, ranks):
    # test_mpi_dem.py's UCS specimen (149 spheres, 443 DEM_Dempack bonds,
    # continuum strategy, global damping 0.2) crushed while sliding across the
    # platens: a bond's stored and dissipated energy counted by the owner of
    # its first sphere, the bonds across the ranks' cuts once.
    from mpi_dem_case import WriteBondedSpecimen

    WriteBondedSpecimen(tmp_path / "ucs", steps=STEPS)
    path = os.path.join(tmp_path / "ucs", "ProjectParametersDEM.json")
    with open(path) as f:
        deck = json.load(f)
    deck["EnergyCalculationOption"] = True
    with open(path, "w") as f:
        json.dump(deck, f)
    serial = run_energies(tmp_path / "ucs", tmp_path / "serial.npz")
    columns = [str(c) for c in serial["columns"]]
    e = {name: serial["energies"][:, k] for k, name in enumerate(columns)}
    # The bonds store and dissipate energy in this run.
    for name in ("elastic_normal", "elastic_tangential", "dissipated_damping"):
        assert np.abs(e[name]).max() > 1e-4 * np.abs(serial["energies"]).max(), name
    distributed = run_energies(tmp_path / "ucs", tmp_path / "mpi.npz", ranks)
    assert_energies_equal(serial, distributed)
    assert int(distributed["migrations"]) > 0

