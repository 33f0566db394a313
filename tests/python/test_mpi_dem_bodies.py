"""Distributed DEM runs ("parallel_type": "MPI") with walls that are bodies of
the run, against the serial run, bit for bit: the bed of mpi_dem_case.py (294
spheres thrown at up to 1 m/s in an open box) with

- a FREE_BODY_MOTION lid (mpi_dem_bodies_case.AddFreeLid) thrown down onto
  the bed: the spheres of every rank push it, every rank integrates it with
  the loads of all ranks' owned spheres added in the serial order
  (DistributedDem::ReduceFreeWallLoads), so each rank's lid is the serial
  lid bit for bit;
- a sticky floor (IS_STICKY 1, mpi_dem_bodies_case.MakeFloorSticky) turning
  in a sliding box: the lowest layer is glued to it and carried across the
  ranks' boxes, farther than the ghost layer; glued spheres migrate with
  their wall and reference centre.

Bitwise because the design is: rows in the serial order on every rank, the
wall's resultant a sum of the serial run's terms in the serial order (rank 0
merges the ranks' terms by key, then broadcasts), glued spheres placed by the
same formula from the same wall motion. Each test fails where the feature is
broken: without the reduction each rank's lid feels only its own spheres
(its motion differs from the serial lid's, and the ranks' lids differ);
without the glued columns in a migration an arrived glued sphere would be
integrated as a free one (falling, where the serial one rides the floor).
The mpirun tests skip where the build has no MPI or there is no mpirun."""
import os
import sys

import numpy as np
import pytest

from tessera.parallel import MpiSkipReason, RunPython

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpi_dem_bodies_case import AddFreeLid, MakeFloorSticky  # noqa: E402
from mpi_dem_case import DT, SPACING, AssertSpheresBitwise, RunBed, WriteBed  # noqa: E402

needs_mpi = pytest.mark.skipif(MpiSkipReason() is not None, reason=str(MpiSkipReason()))
# Per free wall (mpi_dem_run.FreeWallState): centre, velocity, angular
# velocity, rotation (9), contact force, contact moment.
WALL_DOUBLES = 3 + 3 + 3 + 9 + 3 + 3


def owners(result, ranks, which):
    return {int(i): r for r in range(ranks) for i in result[f"{which}_{r}"]}


def changed_owner(result, ranks, ids=None):
    start, end = owners(result, ranks, "start"), owners(result, ranks, "end")
    return [i for i in start if i in end and start[i] != end[i] and (ids is None or i in ids)]


@needs_mpi
@pytest.mark.parametrize("ranks, scheme", [(2, "Velocity_Verlet"), (4, "Velocity_Verlet"),
                                           (2, "Symplectic_Euler"),
                                           (2, "Gear_Predictor_Corrector")])
def test_free_lid_on_ranks_equals_serial_bitwise(tmp_path, ranks, scheme):
    # 600 steps (30 ms): the lid (0.2 kg, 20 bed spheres' mass) comes down at
    # 0.5 m/s from 6 mm above the highest sphere and meets the spheres
    # thrown up at it; it tilts and spins under their off-centre loads. The
    # schemes move the lid at different points of the step (Velocity Verlet:
    # half kicks around the forces; Symplectic Euler: after them; Gear: a
    # prediction corrected with them), each with the reduced loads.
    steps = 600
    WriteBed(tmp_path / "bed", steps=steps, keys={"TranslationalIntegrationScheme": scheme})
    AddFreeLid(tmp_path / "bed")
    serial = RunBed(tmp_path / "bed", tmp_path / "serial.npz")
    distributed = RunBed(tmp_path / "bed", tmp_path / "mpi.npz", ranks)
    assert int(distributed["ranks"]) == ranks and int(distributed["steps"]) == steps
    lid = serial["walls_0"]
    assert lid.shape == (WALL_DOUBLES,)
    centre, velocity, spin = lid[0:3], lid[3:6], lid[6:9]
    # The spheres stopped the lid and turned it: its fall at 0.5 m/s plus
    # gravity would bring it 15.4 mm down, to z 0.1246; it stands higher,
    # moving slower than 0.5 m/s down, and it turns.
    print(f"{scheme}: serial lid centre {centre}, velocity {velocity}, angular velocity {spin}")
    assert centre[2] > 0.1246 + 0.002 and velocity[2] > -0.45
    assert np.abs(spin).max() > 0.05
    AssertSpheresBitwise(serial, distributed)
    # Every rank's lid is the serial lid, bit for bit (its state and its last loads).
    for r in range(ranks):
        np.testing.assert_array_equal(distributed[f"walls_{r}"], lid, err_msg=f"rank {r}")
    assert len(changed_owner(distributed, ranks)) > 0


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4])
def test_sticky_floor_carries_glued_spheres_across_ranks_bitwise(tmp_path, ranks):
    # 1,000 steps (50 ms): the box slides at (0.6, 0.6) m/s, 30 mm along x
    # and y, more than the ghost layer (22 mm), while
    # its sticky floor turns at 2 rad/s about the box's centre (0.1 rad): the
    # glued lowest layer (49 spheres) crosses the bisection's cuts, some
    # into ranks that did not hold them. Symplectic_Euler: the
    # relative-displacement form is the run's choice (glued spheres
    # anywhere: the increments), not the rank's.
    steps, omega, slide = 1000, 2.0, np.array([0.6, 0.6, 0.0])
    WriteBed(tmp_path / "bed", steps=steps,
             keys={"TranslationalIntegrationScheme": "Symplectic_Euler"})
    MakeFloorSticky(tmp_path / "bed", angular_velocity=omega, linear_velocity=tuple(slide))
    serial = RunBed(tmp_path / "bed", tmp_path / "serial.npz")
    distributed = RunBed(tmp_path / "bed", tmp_path / "mpi.npz", ranks)
    glued = serial["glued"]
    assert len(glued) == 49, glued
    np.testing.assert_array_equal(distributed["glued"], glued)
    AssertSpheresBitwise(serial, distributed)
    # The glued spheres rode the floor: each sits where the floor's rigid
    # motion takes its start centre x0 (imposed_wall_motion.h),
    #   x = c0 + V t + Rz(ω t) (x0 - c0),  t = 1,000 Δt = 0.05 s,
    # to rounding (1e-12 m: the motion is evaluated from t, not accumulated).
    t = steps * DT
    rows = np.isin(serial["ids"], glued)
    x, x0 = serial["x"][rows], serial["x"][rows] - serial["DISPLACEMENT"][rows]
    c0 = np.array([0.5 * 7 * SPACING, 0.5 * 7 * SPACING, 0.0])
    turn = omega * t
    rz = np.array([[np.cos(turn), -np.sin(turn), 0.0], [np.sin(turn), np.cos(turn), 0.0],
                   [0.0, 0.0, 1.0]])
    expected = c0 + slide * t + (x0 - c0) @ rz.T
    np.testing.assert_allclose(x, expected, rtol=0, atol=1e-12)
    assert np.linalg.norm(x - x0, axis=1).min() > 0.025
    # Glued spheres changed owner (they migrated with their wall data).
    start = {int(i): r for r in range(ranks) for i in distributed[f"glued_start_{r}"]}
    crossed = changed_owner(distributed, ranks, set(int(i) for i in glued))
    print(f"{ranks} ranks: {len(crossed)} glued spheres changed owner")
    assert len(start) == 49 and len(crossed) > 0


ENERGY_RUN_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                 "mpi_dem_energy_run.py")


@needs_mpi
def test_free_lid_energies_on_two_ranks_equal_serial(tmp_path):
    # EnergyCalculationOption with the lid of the test above: the lid is a
    # body of the system (its kinetic and potential energy in the totals,
    # measures.cpp), alike on every rank, so counted by rank 0 only. Every
    # term equals the serial run's at every sample to 1e-12 of the largest
    # term (test_mpi_dem_energy.py's bound: the ranks' shares summed in rank
    # order); counted on both ranks, the lid's potential energy (m g z =
    # 0.27 J) would be twice in the total.
    steps, every = 400, 20
    WriteBed(tmp_path / "bed", steps=steps,
             keys={"EnergyCalculationOption": True, "GraphExportFreq": every * DT})
    AddFreeLid(tmp_path / "bed")
    runs = {}
    for name, ranks in (("serial", None), ("mpi", 2)):
        out = tmp_path / f"{name}.npz"
        RunPython([ENERGY_RUN_SCRIPT, tmp_path / "bed", out, "MPI" if ranks else "OpenMP", every],
                  ranks)
        runs[name] = np.load(out)
    serial, distributed = runs["serial"], runs["mpi"]
    np.testing.assert_array_equal(distributed["steps"], serial["steps"])
    columns = [str(c) for c in serial["columns"]]
    a, b = serial["energies"], distributed["energies"]
    scale = np.abs(a).max()
    print(f"largest difference {np.abs(b - a).max() / scale:.2e} of the largest term")
    for k, name in enumerate(columns):
        np.testing.assert_allclose(b[:, k], a[:, k], rtol=0, atol=1e-12 * scale, err_msg=name)
