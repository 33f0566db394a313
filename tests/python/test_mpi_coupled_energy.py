"""The coupled energy balance (energy_output; thesis 4.75-4.81,
applications/coupling/python_scripts/coupled_energy.py) under MPI: every term
at every sample of a 2-rank run against the serial run, within 1e-10 of the
largest term (issue 42's gate for coupled cases; not bitwise by design: the
structure's terms are per-rank sums added in rank order, the DEM's come from
DistributedDem.GlobalEnergies, other associations of the serial sums), and
the graph file written once, by rank 0. Cases: the plate struck by 16
spheres of mpi_coupled_case.py (gravity, friction, damped contacts, the
structure's Rayleigh mass damping: every term of the balance alive) and the
thesis' V4.3 sphere on a cube that the serial energy test uses
(test_coupling_thesis_validation.py), on six tetrahedra. The mpirun tests
skip where the build has no MPI or there is no mpirun."""
import os
import sys

import numpy as np
import pytest

from tessera.parallel import MpiSkipReason, RunPython

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpi_coupled_case import (MOREAU_JEAN_TOLERANCE, NLGS_TOLERANCE, STEPS, UseMoreauJean,  # noqa: E402
                              WriteCubeCase, WritePlateCase)

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_SCRIPT = os.path.join(HERE, "mpi_coupled_run.py")
needs_mpi = pytest.mark.skipif(MpiSkipReason() is not None, reason=str(MpiSkipReason()))
TERMS = ("fe_kinetic", "fe_strain", "fe_gravity", "fe_damping", "dem_kinetic", "dem_gravity",
         "contact_elastic", "dem_dissipated")


def run_case(folder, out, ranks=None):
    RunPython([RUN_SCRIPT, folder, out, "MPI" if ranks else "OpenMP"], ranks, timeout=300)
    return np.load(out)


def compare_balances(serial, distributed):
    """The largest difference of any term (and E_T) at any sample over the
    largest term of the serial run; asserts the same sample times."""
    a, b = serial["energy_rows"], distributed["energy_rows"]
    assert a.shape == b.shape and a.shape[1] == len(TERMS) + 2
    np.testing.assert_array_equal(b[:, 0], a[:, 0])  # the same sample times
    scale = np.max(np.abs(a[:, 1:-1]))
    return float(np.max(np.abs(b[:, 1:] - a[:, 1:])) / scale), scale


def check_written_once(folder, result):
    """Rank 0 alone wrote <name>_coupled_energy.dat and its plot; the file's
    rows are the samples (written with 12 significant digits)."""
    assert result["energy_writers"].tolist() == [1] + [0] * (int(result["ranks"]) - 1)
    path = os.path.join(folder, str(result["energy_path"]))
    with open(path) as f:
        lines = f.read().splitlines()
    assert lines[1] == "# time " + " ".join(TERMS) + " E_T"
    rows = np.array([[float(x) for x in line.split()] for line in lines[2:]])
    np.testing.assert_allclose(rows, result["energy_rows"], rtol=1e-11, atol=0.0)
    assert os.path.isfile(os.path.splitext(path)[0] + ".png")


@needs_mpi
def test_coupled_energy_balance_of_the_plate_on_two_ranks_equals_serial(tmp_path):
    # One sample per step (300 + the initial one); Rayleigh α = 20 1/s so
    # that the structure's damping work is a term too.
    for name in ("serial", "mpi"):
        WritePlateCase(tmp_path / name, energy_samples=STEPS, rayleigh_alpha=20.0)
    serial = run_case(tmp_path / "serial", tmp_path / "serial.npz")
    distributed = run_case(tmp_path / "mpi", tmp_path / "mpi.npz", 2)
    assert len(serial["energy_rows"]) == STEPS + 1
    # Every term of the balance is alive in this case.
    for k, name in enumerate(TERMS):
        assert np.max(np.abs(serial["energy_rows"][:, k + 1])) > 0.0, name
    # Spheres near the cut are ghosts and spheres changed owner.
    assert int(distributed["ghosts"]) > 0 and int(distributed["migrations"]) > 0
    difference, scale = compare_balances(serial, distributed)
    print(f"plate, 2 ranks: largest term {scale:.6g} J, largest difference of a term or E_T "
          f"{difference:.3g} of it")
    assert difference <= 1e-10  # issue 42's gate for coupled cases
    check_written_once(tmp_path / "mpi", distributed)
    check_written_once(tmp_path / "serial", serial)


@needs_mpi
def test_moreau_jean_coupled_energy_balance_of_the_plate_on_two_ranks_equals_serial(tmp_path):
    # The plate with the spheres resting on it and moreau_jean_strategy
    # (mpi_coupled_case.WritePlateCase(resting=True), UseMoreauJean):
    # the impulses' loss counted on every rank from the whole skin's states
    # and impulses (replicated), the structure's terms added over the ranks;
    # equal to the serial run's within the bound of the coupled Moreau-Jean
    # runs' fields (the sweeps split between the ranks' boxes end at the
    # NLGS tolerance: test_mpi_coupled.py).
    for name in ("serial", "mpi"):
        WritePlateCase(tmp_path / name, energy_samples=STEPS, rayleigh_alpha=20.0, resting=True)
        UseMoreauJean(tmp_path / name, NLGS_TOLERANCE)
    serial = run_case(tmp_path / "serial", tmp_path / "serial.npz")
    distributed = run_case(tmp_path / "mpi", tmp_path / "mpi.npz", 2)
    assert len(serial["energy_rows"]) == STEPS + 1
    # Every term is alive but the contacts' stored energy (none under
    # Moreau-Jean) and the weightless plate's potential.
    for k, name in enumerate(TERMS):
        alive = np.max(np.abs(serial["energy_rows"][:, k + 1])) > 0.0
        assert alive == (name not in ("contact_elastic", "fe_gravity")), name
    assert int(np.count_nonzero(distributed["nonsmooth_interface_contacts"])) == STEPS
    difference, scale = compare_balances(serial, distributed)
    print(f"plate, moreau_jean_strategy, 2 ranks: largest term {scale:.6g} J, largest difference of a "
          f"term or E_T {difference:.3g} of it")
    assert difference <= MOREAU_JEAN_TOLERANCE
    check_written_once(tmp_path / "mpi", distributed)


@needs_mpi
def test_coupled_energy_balance_of_v4_3_on_two_ranks_equals_serial(tmp_path):
    # 1,400 steps (0.07 s): the sphere lands at 0.03 s and is in contact
    # with the cube's top (the serial test's contact lasts 0.087-0.11 s).
    steps = 1400
    for name in ("serial", "mpi"):
        WriteCubeCase(tmp_path / name, steps, energy_samples=140)
    serial = run_case(tmp_path / "serial", tmp_path / "serial.npz")
    distributed = run_case(tmp_path / "mpi", tmp_path / "mpi.npz", 2)
    rows = serial["energy_rows"]
    impact = 0.5 * 2000.0 * 4.0 / 3.0 * np.pi * 0.3 ** 3  # 113.1 J at 1 m/s
    # The contact is on: energy went into the spring and the cube.
    assert np.max(rows[:, 7]) > 0.05 * impact and np.max(rows[:, 2]) > 0.05 * impact
    difference, scale = compare_balances(serial, distributed)
    print(f"V4.3 tetrahedra, 2 ranks: largest term {scale:.6g} J, largest difference {difference:.3g}")
    assert difference <= 1e-10  # issue 42's gate for coupled cases
    # The serial test's balance: E_T within 1 % of the impact energy
    # (thesis' V4.3 tolerance, test_coupling_thesis_validation.py).
    totals = distributed["energy_rows"][:, -1]
    assert totals[0] == pytest.approx(impact, rel=1e-12)
    assert np.ptp(totals) < 0.01 * impact
    check_written_once(tmp_path / "mpi", distributed)
