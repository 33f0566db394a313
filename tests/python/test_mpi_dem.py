"""Distributed DEM ("parallel_type": "MPI", applications/dem/parallel/): a
bed of 294 spheres thrown with random velocities in an open box of rigid
walls (mpi_dem_case.py), 1,000 steps on 2 and 4 ranks under mpirun against
the serial run; the bed with an inlet above it, and a small bonded specimen
(the continuum strategy) crushed until bonds break, on 2 and 4 ranks. The
owned spheres' positions, velocities, angular velocities, displacements and
forces must be the serial run's bit for bit (the design:
rows in the serial run's order on every rank, each pair computed with the
serial arithmetic, each sphere's sum in the serial order, ghosts copied from
their owners; docs/architecture.md "Distributed DEM"). Also: a side wall
pushed in (imposed motion), velocities imposed on sub model parts of the
spheres (following them across ranks), spheres changing owner, rebalancing,
the walls' VTK files (written once, the serial run's), the bonds' VTK
files (rank 0's, each bond once: the serial run's bonds), and the
clear errors for what does not run distributed. The mpirun tests skip where
the build has no MPI or there is no mpirun."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tessera
from tessera.parallel import MpiSkipReason, MpirunCommand, MpirunEnvironment

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpi_dem_case import (SPACING, SPHERE_RESULTS, AddImposedVelocities, AddInlet,  # noqa: E402
                          AssertBondsBitwise, AssertSpheresBitwise, RunBed, WriteBed, WriteBondedPair,
                          WriteBondedSpecimen, WriteDiscBed, WritePeriodicBed)

needs_mpi = pytest.mark.skipif(MpiSkipReason() is not None, reason=str(MpiSkipReason()))
BED_STEPS = BONDED_STEPS = 1000


def owner_changes(result, ranks):
    start = {int(i): r for r in range(ranks) for i in result[f"start_{r}"]}
    end = {int(i): r for r in range(ranks) for i in result[f"end_{r}"]}
    return sum(1 for i in start if i in end and start[i] != end[i])


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4])
def test_bed_on_ranks_equals_serial_bitwise(tmp_path, ranks):
    # The horizon: 1,000 steps (0.05 s: the bed thrown, colliding,
    # settling).
    count = WriteBed(tmp_path / "bed", steps=BED_STEPS)
    serial = RunBed(tmp_path / "bed", tmp_path / "serial.npz")
    distributed = RunBed(tmp_path / "bed", tmp_path / "mpi.npz", ranks)
    assert int(distributed["ranks"]) == ranks and int(distributed["steps"]) == BED_STEPS
    assert len(serial["ids"]) == count == 294
    # The bed is alive: contacts, and spheres moved more than a radius.
    assert int(serial["contacts"]) > 50
    assert np.abs(serial["DISPLACEMENT"]).max() > 0.01
    # The same searches (every rank searches where any would).
    assert int(distributed["searches"]) == int(serial["searches"])
    AssertSpheresBitwise(serial, distributed)
    # Global reductions: the contact count is exact; the kinetic energy is a
    # sum of the same per-sphere terms in another association (ranks in
    # order), so equal to rounding (1e-12 relative).
    assert int(distributed["contacts"]) == int(serial["contacts"])
    assert float(distributed["kinetic"]) == pytest.approx(float(serial["kinetic"]), rel=1e-12)
    # Spheres changed owner (migration happened), and ghosts exist on every rank.
    changed = owner_changes(distributed, ranks)
    print(f"{ranks} ranks: {changed} spheres changed owner, migrations {int(distributed['migrations'])}, "
          f"ghosts per rank {distributed['ghosts'].reshape(-1, 3)[:, 0]}, ghost doubles sent per step "
          f"{distributed['ghosts'].reshape(-1, 3)[:, 1]}")
    assert changed > 0 and int(distributed["migrations"]) >= changed
    assert (distributed["ghosts"].reshape(-1, 3)[:, 0] > 0).all()
    # Each rank's timings (DistributedDem.GetTimings): the parts lie within
    # their wholes (the migrations within the loop, the removals and
    # reorders within the migrations), and the ghosts were refreshed.
    names = [str(name) for name in distributed["timing_names"]]
    for row in distributed["timings"].reshape(ranks, len(names)):
        t = dict(zip(names, row))
        assert min(t.values()) >= 0.0 and t["ghost_refresh"] > 0.0 and t["migrate"] > 0.0
        assert t["remove_rows"] + t["reorder_rows"] <= t["migrate"]
        assert t["vote"] + t["ghost_refresh"] + t["migrate"] + t["after_search"] <= t["loop"]


@needs_mpi
@pytest.mark.parametrize("ranks, keys", [
    (2, {}), (4, {}),
    # A new bisection of the wrapped centres every 20 steps; the other
    # branch of the step (the wrap after the integration).
    (4, {"TranslationalIntegrationScheme": "Symplectic_Euler",
         "mpi_settings": {"rebalance_every": 20, "imbalance_threshold": 1.0}})])
def test_periodic_bed_on_ranks_equals_serial_bitwise(tmp_path, ranks, keys):
    # The bed's 294 spheres thrown at up to 1 m/s per component without
    # walls or gravity in the periodic box 154 x 154 x 132 mm
    # (PeriodicDomainOption), 1,000 steps: spheres leave through the faces
    # and come back through the opposite ones, change owner, and touch
    # across the faces. On 2 ranks (one cut) each box spans the period in
    # two directions, on 4 (2 x 2) in z: the rank across a cut is across the
    # periodic face too, and a rank holds its own spheres' images where its
    # box spans the period (one row per key and rank; a duplicate ghost
    # would add a contact twice). Ghosts are their owners' wrapped rows, the
    # contacts the serial minimum image of the same coordinates: bitwise.
    nodes = WritePeriodicBed(tmp_path / "bed", steps=BED_STEPS, keys=keys)
    serial = RunBed(tmp_path / "bed", tmp_path / "serial.npz")
    distributed = RunBed(tmp_path / "bed", tmp_path / "mpi.npz", ranks)
    assert int(distributed["ranks"]) == ranks and int(distributed["steps"]) == BED_STEPS
    AssertSpheresBitwise(serial, distributed)
    assert int(distributed["searches"]) == int(serial["searches"])
    assert int(distributed["contacts"]) == int(serial["contacts"]) > 20
    # A sum of the same per-sphere terms in another association: 1e-12 relative.
    assert float(distributed["kinetic"]) == pytest.approx(float(serial["kinetic"]), rel=1e-12)
    # Spheres crossed the periodic faces: their coordinates jumped by a
    # period away from start + DISPLACEMENT (which stays continuous).
    period = np.array([7, 7, 6]) * SPACING
    jumped = np.abs(serial["x"] - (np.array(nodes) + serial["DISPLACEMENT"])) > period / 2
    changed = owner_changes(distributed, ranks)
    print(f"{ranks} ranks {keys}: {jumped.any(axis=1).sum()} spheres crossed a face, {changed} changed "
          f"owner, migrations {int(distributed['migrations'])}, contacts {int(serial['contacts'])}")
    assert jumped.any(axis=1).sum() > 20
    assert changed > 0
    assert (distributed["ghosts"].reshape(-1, 3)[:, 0] > 0).all()


@needs_mpi
def test_periodic_bonded_specimen_on_four_ranks_equals_serial_bitwise(tmp_path):
    # The bonded specimen (continuum strategy) in a periodic box whose faces
    # x = -10 mm and y = -10 mm cut it: its spheres beyond them sit 90 mm
    # away, bonded across the faces (bonds and contacts at the nearest
    # image); crushed and sliding as in the test above, on 4 ranks.
    count = WriteBondedSpecimen(tmp_path / "ucs", steps=BONDED_STEPS, periodic=True)
    serial = RunBed(tmp_path / "ucs", tmp_path / "serial.npz")
    distributed = RunBed(tmp_path / "ucs", tmp_path / "mpi.npz", 4)
    assert len(serial["ids"]) == count
    # The specimen straddles the faces: spheres on both sides of each.
    for axis in (0, 1):
        assert (serial["x"][:, axis] < 0.0).any() and (serial["x"][:, axis] > 0.05).any()
    bonds, intact = (int(v) for v in serial["bonds"])
    assert bonds > 2 * count and 0 < intact < bonds, serial["bonds"]
    AssertSpheresBitwise(serial, distributed)
    assert tuple(int(v) for v in distributed["bonds"]) == (bonds, intact)
    print(f"periodic specimen: {count} spheres, {bonds} bonds, {bonds - intact} broken, "
          f"migrations {int(distributed['migrations'])}")
    assert int(distributed["migrations"]) > 0


@needs_mpi
def test_moving_wall_on_two_ranks_equals_serial_bitwise(tmp_path):
    # The side wall x = L moves in at 0.5 m/s (10 mm over the run, half a
    # sphere diameter): every rank moves its copy, each sphere's wall
    # contacts are computed by the ranks that hold it.
    WriteBed(tmp_path / "bed", moving_wall=True,
             keys={"TranslationalIntegrationScheme": "Symplectic_Euler"})
    serial = RunBed(tmp_path / "bed", tmp_path / "serial.npz")
    distributed = RunBed(tmp_path / "bed", tmp_path / "mpi.npz", 2)
    # The wall pushed the spheres: at the end it stands at x = 0.154 - 0.5 *
    # 0.02 = 0.144, so no centre lies beyond 0.144 - 0.009 (the smaller
    # radius) + 1 mm of overlap; with the wall at rest they reach 0.145.
    assert serial["x"][:, 0].max() < 0.136
    AssertSpheresBitwise(serial, distributed)
    assert owner_changes(distributed, 2) > 0


@needs_mpi
def test_imposed_sphere_velocities_follow_migrated_spheres_bitwise(tmp_path):
    # Two sub model parts of the bed's spheres impose velocity components
    # (SubModelPartData): the spheres of the slab 0.04 < x < 0.077 are pushed
    # along +x at 1 m/s from 5 ms to 30 ms (then free), and those above
    # z = 0.09 keep VELOCITY_Z 0 the whole run. Spheres cross the ranks'
    # boxes and join the new rank's root model part only: the imposition
    # follows them by node id. 1,000 steps on 2 ranks, bitwise the serial run.
    WriteBed(tmp_path / "bed", steps=BED_STEPS)
    groups = AddImposedVelocities(tmp_path / "bed", [
        ("PushX", lambda x: 0.04 < x[0] < 0.077,
         {"IMPOSED_VELOCITY_X_VALUE": 1.0, "VELOCITY_START_TIME": 0.005, "VELOCITY_STOP_TIME": 0.03}),
        ("HoldZ", lambda x: x[2] > 0.09, {"IMPOSED_VELOCITY_Z_VALUE": 0.0})])
    assert len(groups["PushX"]) > 40 and len(groups["HoldZ"]) > 40
    serial = RunBed(tmp_path / "bed", tmp_path / "serial.npz")
    distributed = RunBed(tmp_path / "bed", tmp_path / "mpi.npz", 2)
    ids = serial["ids"]
    held = np.isin(ids, groups["HoldZ"])
    pushed = np.isin(ids, groups["PushX"]) & ~held
    # The impositions acted in the serial run: the held spheres never moved
    # in z, the pushed ones went along +x (25 mm at 1 m/s while imposed,
    # less what collisions took back after).
    assert np.all(serial["VELOCITY"][held, 2] == 0.0) and np.all(serial["DISPLACEMENT"][held, 2] == 0.0)
    assert np.mean(serial["DISPLACEMENT"][pushed, 0]) > 0.01
    AssertSpheresBitwise(serial, distributed)
    # Imposed spheres changed owner (the case tests what it should).
    start = {int(i): r for r in range(2) for i in distributed[f"start_{r}"]}
    end = {int(i): r for r in range(2) for i in distributed[f"end_{r}"]}
    imposed = set(groups["PushX"]) | set(groups["HoldZ"])
    moved = sum(1 for i in imposed if start[i] != end[i])
    print(f"imposed velocities, 2 ranks: {moved} of {len(imposed)} imposed spheres changed owner")
    assert moved > 0


@needs_mpi
def test_symplectic_euler_with_imposed_velocities_on_one_side_equals_serial_bitwise(tmp_path):
    # Under Symplectic_Euler a fixed velocity dof anywhere makes every contact
    # take its increments from the motion made rather than from the
    # velocities. Only spheres of the slab y < 0.05 (one rank's side at
    # first) are pushed along +x from 5 to 30 ms: the ranks without a fixed
    # row must still take the serial run's form (a run-wide decision).
    WriteBed(tmp_path / "bed", steps=BED_STEPS,
             keys={"TranslationalIntegrationScheme": "Symplectic_Euler"})
    groups = AddImposedVelocities(tmp_path / "bed", [
        ("PushX", lambda x: x[1] < 0.05,
         {"IMPOSED_VELOCITY_X_VALUE": 1.0, "VELOCITY_START_TIME": 0.005, "VELOCITY_STOP_TIME": 0.03})])
    assert len(groups["PushX"]) > 40
    serial = RunBed(tmp_path / "bed", tmp_path / "serial.npz")
    distributed = RunBed(tmp_path / "bed", tmp_path / "mpi.npz", 2)
    pushed = np.isin(serial["ids"], groups["PushX"])
    assert np.mean(serial["DISPLACEMENT"][pushed, 0]) > 0.01  # the imposition acted
    # The pushed spheres started on one rank only.
    owners = {r for r in range(2) if np.isin(groups["PushX"], distributed[f"start_{r}"]).any()}
    assert len(owners) == 1
    AssertSpheresBitwise(serial, distributed)


@needs_mpi
def test_gear_scheme_on_two_ranks_equals_serial_bitwise(tmp_path):
    # Gear_Predictor_Corrector with the default Direct_Integration rotation:
    # a ghost predicts from its owner's acceleration and rates (carried by
    # the refresh and the migration), so the owned spheres are the serial
    # run's bit for bit.
    WriteBed(tmp_path / "bed", steps=BED_STEPS,
             keys={"TranslationalIntegrationScheme": "Gear_Predictor_Corrector"})
    serial = RunBed(tmp_path / "bed", tmp_path / "serial.npz")
    distributed = RunBed(tmp_path / "bed", tmp_path / "mpi.npz", 2)
    assert int(serial["contacts"]) > 50 and np.abs(serial["DISPLACEMENT"]).max() > 0.01
    assert np.abs(serial["ANGULAR_VELOCITY"]).max() > 1.0  # the rotational Gear columns matter
    AssertSpheresBitwise(serial, distributed)
    assert owner_changes(distributed, 2) > 0
    # Each rank started from its piece: a ghost's Gear columns, started from
    # the piece's forces, came from its owner with the rest of its state.
    read = distributed["pieces_read"]
    assert ((read > 0) & (read < len(serial["ids"]))).all(), read


@needs_mpi
def test_2d_discs_on_two_ranks_equal_serial_bitwise(tmp_path):
    # "Dimension": 2: CylinderParticle2D discs and RigidEdge2D2N walls; a
    # disc that changes owner is inserted as a disc (its mass and inertia
    # per unit thickness).
    count = WriteDiscBed(tmp_path / "discs", steps=BED_STEPS)
    serial = RunBed(tmp_path / "discs", tmp_path / "serial.npz")
    distributed = RunBed(tmp_path / "discs", tmp_path / "mpi.npz", 2)
    assert len(serial["ids"]) == count == 120
    # The discs moved (thrown at up to 1 m/s) and touch at the end.
    assert int(serial["contacts"]) > 0 and np.abs(serial["DISPLACEMENT"]).max() > 0.01
    assert np.abs(serial["x"][:, 2]).max() == 0.0  # in the plane
    AssertSpheresBitwise(serial, distributed)
    assert owner_changes(distributed, 2) > 0


@needs_mpi
def test_rebalancing_keeps_results_bitwise(tmp_path):
    # A bisection every 50 steps whatever the balance (threshold 1): the boxes
    # move, many spheres change owner at once, with their histories.
    WriteBed(tmp_path / "bed", keys={"mpi_settings": {"rebalance_every": 50, "imbalance_threshold": 1.0}})
    serial = RunBed(tmp_path / "bed", tmp_path / "serial.npz")
    distributed = RunBed(tmp_path / "bed", tmp_path / "mpi.npz", 3)
    AssertSpheresBitwise(serial, distributed)


@needs_mpi
@pytest.mark.parametrize("periodic", [False, True])
@pytest.mark.parametrize("far", [False, True])
def test_migrations_exchange_with_neighbour_boxes_only(tmp_path, periodic, far):
    # A long bed (28 x 3 x 3 spheres) on 4 ranks: the bisection cuts it into
    # four slabs along x, 0.15 m wide against a ghost layer of 22 mm, so a
    # slab's neighbour boxes (within three layers) are the slabs beside it,
    # and in a periodic box (no walls, no gravity) also the slab across the
    # periodic face: the end slabs are neighbours. Searching at the adaptive
    # pace (every 20 steps at most), a sphere moves less than the 1 mm
    # tolerance between searches and every migration talks to the
    # neighbours alone. Searching every 100 steps whatever the motion, with
    # the spheres thrown at up to 6 m/s (30 mm in 100 steps), some sphere
    # lies beyond its box's layer at some searches: those talk to every rank
    # (one vote says so). All the serial run's bits.
    keys = {"AdaptiveSearch": False, "NeighbourSearchFrequency": 100} if far else {}
    keys["mpi_settings"] = {"rebalance_every": 0}
    write = WritePeriodicBed if periodic else WriteBed
    write(tmp_path / "bed", nx=28, ny=3, nz=3, speed=6.0 if far else 1.0, keys=keys)
    serial = RunBed(tmp_path / "bed", tmp_path / "serial.npz")
    distributed = RunBed(tmp_path / "bed", tmp_path / "mpi.npz", 4)
    AssertSpheresBitwise(serial, distributed)
    assert int(distributed["searches"]) == int(serial["searches"])
    assert int(distributed["contacts"]) == int(serial["contacts"])
    neighbours = {r: set(int(q) for q in distributed[f"neighbour_boxes_{r}"]) for r in range(4)}
    narrow, wide = int(distributed["neighbour_migrations"]), int(distributed["every_rank_migrations"])
    print(f"neighbour boxes {neighbours}; searches {int(serial['searches'])}: {narrow} with the "
          f"neighbours, {wide} with every rank; {owner_changes(distributed, 4)} spheres changed owner")
    # Slabs: the end ranks have one neighbour, the middle ones two; a ring
    # of four in the periodic box. The relation is symmetric.
    expected = [2, 2, 2, 2] if periodic else [1, 1, 2, 2]
    assert sorted(len(n) for n in neighbours.values()) == expected
    assert all(r in neighbours[q] for r in range(4) for q in neighbours[r])
    assert owner_changes(distributed, 4) > 0
    # Every search after Start's is one of the two kinds.
    assert narrow + wide == int(serial["searches"]) - 1
    if far:
        assert wide > 0 and narrow > 0
    else:
        assert wide == 0


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4])
def test_time_balance_keeps_results_bitwise(tmp_path, ranks):
    # mpi_settings.balance "time": the cuts follow each rank's measured
    # compute time (spheres per second); threshold 1 and a check every 20
    # steps: a new bisection by those speeds at nearly every check (any
    # difference of the times), boxes that depend on the host's timings, and
    # results that must not.
    WriteBed(tmp_path / "bed", keys={"mpi_settings": {"balance": "time", "rebalance_every": 20,
                                                      "imbalance_threshold": 1.0}})
    serial = RunBed(tmp_path / "bed", tmp_path / "serial.npz")
    distributed = RunBed(tmp_path / "bed", tmp_path / "mpi.npz", ranks)
    AssertSpheresBitwise(serial, distributed)
    assert int(distributed["searches"]) == int(serial["searches"])
    assert int(distributed["contacts"]) == int(serial["contacts"])
    owned = [len(distributed[f"end_{r}"]) for r in range(ranks)]
    print(f"{ranks} ranks: {int(distributed['rebalances'])} time-weighted bisections, owned at the "
          f"end {owned}, {owner_changes(distributed, ranks)} spheres changed owner")
    # A check at the first search 20 steps after the last (about 20 in
    # 1,000 steps): times equal to the last bit at most of them would be a
    # broken measure.
    assert int(distributed["rebalances"]) > 10
    assert sum(owned) == len(serial["ids"])


def test_bad_balance_value_is_named(tmp_path):
    WriteBed(tmp_path / "bed", steps=10, keys={"mpi_settings": {"balance": "speed"}})
    result = tessera_run(tmp_path / "bed")
    assert result.returncode != 0
    assert "mpi_settings.balance" in result.stderr and '"speed"' in result.stderr, result.stderr
    from tessera import _dem
    settings = _dem.DistributedDemSettings()
    assert settings.balance == "count"  # the default


@needs_mpi
def test_contacts_balance_with_the_explicit_strategy_is_named(tmp_path):
    # "contacts" balances moreau_jean_strategy's sweeps; the explicit
    # strategies balance spheres or time.
    WriteBed(tmp_path / "bed", steps=10, keys={"mpi_settings": {"balance": "contacts"},
                                               "parallel_type": "MPI"})
    command = MpirunCommand(2, sys.executable, "-m", "tessera", "run", str(tmp_path / "bed"))
    result = subprocess.run(command, env=MpirunEnvironment(), capture_output=True, text=True,
                            timeout=120)
    assert result.returncode != 0
    assert "mpi_settings.balance" in result.stderr and "moreau_jean_strategy" in result.stderr, \
        result.stderr


@needs_mpi
def test_the_virtual_laboratory_under_mpirun_is_a_clear_error(tmp_path):
    # Its servo and strains read every sphere and wall of one process; it
    # builds its DEM deck itself, so the error names the project's file and
    # the "virtual_lab" object, not a key of that deck.
    folder = tmp_path / "lab"
    folder.mkdir()
    settings = {"analysis_stage": "tessera.dem.virtual_lab",
                "virtual_lab": {"test": "UCS", "output": {"folder": "results"}}}
    (folder / "ProjectParameters.json").write_text(json.dumps(settings))
    command = MpirunCommand(2, sys.executable, "-m", "tessera", "run", str(folder))
    result = subprocess.run(command, env=MpirunEnvironment(), capture_output=True, text=True,
                            timeout=120)
    assert result.returncode != 0
    assert "ProjectParameters.json: virtual_lab: the virtual laboratory runs in one process" in \
        result.stderr and "start it without mpirun" in result.stderr, result.stderr
    assert not (folder / "results").exists()


def write_deck_key(folder, key, value):
    path = os.path.join(folder, "ProjectParametersDEM.json")
    with open(path) as f:
        deck = json.load(f)
    deck[key] = value
    with open(path, "w") as f:
        json.dump(deck, f)


def tessera_run(folder, ranks=None, timeout=300):
    command = [sys.executable, "-m", "tessera", "run", str(folder)]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    if ranks:
        command, env = MpirunCommand(ranks, *command), MpirunEnvironment()
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)


@needs_mpi
def test_tessera_run_of_a_dem_folder_under_mpirun_reports_once(tmp_path):
    WriteBed(tmp_path / "bed", steps=100)
    write_deck_key(tmp_path / "bed", "parallel_type", "MPI")
    # A deck warning: the VTK files cannot hold the bounding box.
    write_deck_key(tmp_path / "bed", "PostBoundingBox", True)
    write_deck_key(tmp_path / "bed", "post_vtk_option", True)
    result = tessera_run(tmp_path / "bed", ranks=2)
    assert result.returncode == 0, result.stdout + result.stderr
    # the summary line, the search summary and the deck's warning, from rank 0 only
    lines = result.stderr.splitlines()
    assert sum("finished after 101 steps" in line for line in lines) == 1, result.stderr
    assert sum("neighbour searches in 101 steps" in line for line in lines) == 1, result.stderr
    assert sum("warning: " in line and "PostBoundingBox" in line for line in lines) == 1, \
        result.stderr


def test_mpi_dem_deck_in_a_serial_run_names_the_key(tmp_path):
    WriteBed(tmp_path / "bed", steps=10)
    write_deck_key(tmp_path / "bed", "parallel_type", "MPI")
    result = tessera_run(tmp_path / "bed")
    assert result.returncode != 0
    assert "parallel_type" in result.stderr
    assert ("mpirun" in result.stderr) if tessera.MPIBuilt() else ("no MPI" in result.stderr)


def test_unknown_mpi_settings_key_is_named(tmp_path):
    WriteBed(tmp_path / "bed", steps=10, keys={"mpi_settings": {"rebalance_evry": 10}})
    result = tessera_run(tmp_path / "bed")
    assert result.returncode != 0
    assert "mpi_settings.rebalance_evry" in result.stderr, result.stderr


@needs_mpi
def test_vtk_output_of_a_distributed_dem_run_writes_each_sphere_once(tmp_path):
    import re
    WriteBed(tmp_path / "bed", steps=200, keys={"parallel_type": "MPI", "post_vtk_option": True,
                                                "OutputTimeStep": 100 * 5e-5})
    result = tessera_run(tmp_path / "bed", ranks=2)
    assert result.returncode == 0, result.stdout + result.stderr
    out = tmp_path / "bed" / "bed_Post_Files"
    with open(out / "SpheresPart_owned.pvd") as f:
        steps = [int(s) for s in re.findall(r'file="SpheresPart_owned_(\d+)\.pvtu"', f.read())]
    assert steps[-2:] == [100, 200], steps
    for step in steps:
        with open(out / f"SpheresPart_owned_{step}.pvtu") as f:
            pieces = re.findall(r'<Piece Source="([^"]+)"', f.read())
        assert pieces == [f"SpheresPart_owned_0_{step}.vtu", f"SpheresPart_owned_1_{step}.vtu"]
        points = []
        for piece in pieces:
            with open(out / piece, "rb") as f:
                points.append(int(re.search(rb'NumberOfPoints="(\d+)"', f.read()).group(1)))
        # each rank its owned spheres, no ghost: every sphere once
        assert sum(points) == 294 and min(points) > 0, points


@needs_mpi
def test_vtk_walls_of_a_distributed_dem_run_are_the_serial_files(tmp_path):
    """post_vtk_option with the walls' contact results (PostContactForces,
    PostPressure): rank 0 writes the walls, which every rank holds alike, as
    the serial run does (RigidFacePart_<step>.vtu in RigidFacePart.pvd), with
    the whole run's contact results (DistributedDem.WriteGlobalWallResults);
    the wall files are the serial run's: geometry, motion and time bit for
    bit, the contact results to rounding (per-rank partial sums added in
    rank order; 1e-12 of the largest value, the tolerance of the walls'
    GiD/HDF5 results in test_mpi_dem_walls.py)."""
    import re
    from vtu_arrays import ReadVtuArrays
    keys = {"post_vtk_option": True, "OutputTimeStep": 100 * 5e-5, "PostContactForces": True,
            "PostPressure": True}
    folders = {}
    for name, ranks in (("serial", None), ("mpi", 2)):
        WriteBed(tmp_path / name, steps=200, keys={**keys, "parallel_type": "MPI" if ranks else "OpenMP"})
        result = tessera_run(tmp_path / name, ranks=ranks)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "not written" not in result.stderr, result.stderr
        folders[name] = tmp_path / name / "bed_Post_Files"
    walls = {name: sorted(p.name for p in folder.glob("RigidFacePart*")) for name, folder in folders.items()}
    assert walls["mpi"] == walls["serial"] and "RigidFacePart.pvd" in walls["serial"], walls
    # Besides the spheres' pieces (SpheresPart_owned*), the serial run's file set.
    listed = {name: {p.name for p in folder.iterdir() if not p.name.startswith("SpheresPart")}
              for name, folder in folders.items()}
    assert listed["mpi"] == listed["serial"]
    pvd = {name: (folder / "RigidFacePart.pvd").read_text() for name, folder in folders.items()}
    assert pvd["mpi"] == pvd["serial"]
    steps = re.findall(r'file="RigidFacePart_(\d+)\.vtu"', pvd["serial"])
    assert steps == ["100", "200"], steps
    loaded = False
    for step in steps:
        serial = ReadVtuArrays(folders["serial"] / f"RigidFacePart_{step}.vtu")
        distributed = ReadVtuArrays(folders["mpi"] / f"RigidFacePart_{step}.vtu")
        assert set(distributed) == set(serial) >= {"PointData/CONTACT_FORCES", "PointData/DEM_PRESSURE"}
        for name, values in serial.items():
            if name in ("PointData/CONTACT_FORCES", "PointData/DEM_PRESSURE"):
                scale = np.max(np.abs(values))
                loaded = loaded or scale > 0.0
                np.testing.assert_allclose(distributed[name], values, rtol=0.0, atol=1e-12 * scale,
                                           err_msg=name)
            else:
                np.testing.assert_array_equal(distributed[name], values, err_msg=name)
    assert loaded  # the spheres pressed on the walls


@needs_mpi
def test_clean_indentations_on_two_ranks_equals_serial_bitwise(tmp_path):
    # The bed's spheres grown by 20 % (radii 12 and 10.8 mm on the 22 mm
    # lattice: neighbours overlap by up to 2.6 mm), CleanIndentationsOption
    # true: every rank shrinks every overlapping pair at the start, before
    # the decomposition, as the serial run does.
    folder = tmp_path / "bed"
    WriteBed(folder, steps=BED_STEPS, keys={"CleanIndentationsOption": True})
    path = folder / "bedDEM.mdpa"
    text = path.read_text()
    head, radii, tail = text.partition("Begin NodalData RADIUS")[0], *text.partition("Begin NodalData RADIUS")[1:]
    body, end, rest = tail.partition("End NodalData")
    grown = "\n".join(f"  {w[0]} {w[1]} {float(w[2]) * 1.2!r}" if len(w) == 3 else line
                       for line in body.split("\n") for w in [line.split()])
    path.write_text(head + radii + grown + end + rest)
    serial = RunBed(folder, tmp_path / "serial.npz")
    distributed = RunBed(folder, tmp_path / "mpi.npz", 2)
    assert float(serial["RADIUS"].max()) < 0.012 and float(serial["RADIUS"].min()) < 0.0108  # shrunk
    AssertSpheresBitwise(serial, distributed, SPHERE_RESULTS + ("RADIUS",))
    assert owner_changes(distributed, 2) > 0


@needs_mpi
@pytest.mark.parametrize("key, value, message", [
    # A deck's own output process on the spheres would write each rank's
    # ghosts again: the DEM's post options merge them instead.
    ("processes", {"output": [{"python_module": "hdf5_output_process", "kratos_module": "KratosMultiphysics",
                               "Parameters": {"model_part_name": "SpheresPart"}}]},
     "Hdf5OutputProcess of 'SpheresPart' in a distributed"),
])
def test_what_does_not_run_distributed_is_a_clear_error(tmp_path, key, value, message):
    WriteBed(tmp_path / "bed", steps=10, keys={key: value, "parallel_type": "MPI"})
    result = tessera_run(tmp_path / "bed", ranks=2, timeout=120)
    assert result.returncode != 0
    assert message in result.stderr and "on rank" in result.stderr, result.stderr


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4])
def test_bonded_specimen_on_ranks_equals_serial_bitwise(tmp_path, ranks):
    # A small UCS specimen of the virtual lab (Ø60 x 30 mm, 149 spheres,
    # DEM_Dempack concrete), crushed by its platens at 0.5 m/s each (1.7 %
    # strain in 1,000 steps of 5e-7 s, far past the peak) while sliding
    # across them at 8 m/s in x and y: bonds cross the ranks' boxes (each
    # evaluated by every rank that holds both its spheres, summed in the
    # serial order) and bonded spheres change owner, taking their bonds.
    count = WriteBondedSpecimen(tmp_path / "ucs", steps=BONDED_STEPS)
    serial = RunBed(tmp_path / "ucs", tmp_path / "serial.npz")
    distributed = RunBed(tmp_path / "ucs", tmp_path / "mpi.npz", ranks)
    assert len(serial["ids"]) == count
    bonds, intact = (int(v) for v in serial["bonds"])
    # Bonds broke (damage and the broken flag went through the run).
    assert bonds > 2 * count and 0 < intact < bonds, serial["bonds"]
    print(f"{ranks} ranks: {count} spheres, {bonds} bonds, {bonds - intact} broken, "
          f"{int(distributed['migrations'])} spheres changed owner")
    AssertSpheresBitwise(serial, distributed)
    np.testing.assert_array_equal(distributed["bonds"], serial["bonds"])
    assert int(distributed["migrations"]) > 0


@needs_mpi
@pytest.mark.parametrize("deck, ranks", [("bed", 2), ("bonded", 2), ("bonded", 4)])
def test_stress_tensor_on_ranks_equals_serial_bitwise(tmp_path, deck, ranks):
    # DEM_STRESS_TENSOR declared (mpi_dem_stress_run.py): every owned
    # sphere's tensor is the serial run's bit for bit, its rank holding all
    # its contacts (with ghosts too), bonds (across the cut) and wall contacts
    # in the serial order (ExplicitSolverStrategy::WriteStressTensorToNodes).
    # The bed (pair and wall contacts, spheres changing owner) 300 steps; the
    # bonded specimen (bonds, broken ones, the platens) 400 steps.
    from tessera.parallel import RunPython
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mpi_dem_stress_run.py")
    folder = tmp_path / deck
    if deck == "bed":
        count = WriteBed(folder, steps=300)
    else:
        count = WriteBondedSpecimen(folder, steps=400)
    results = []
    for name, parallel, n in (("serial", "OpenMP", None), ("mpi", "MPI", ranks)):
        RunPython([script, str(folder), str(tmp_path / f"{name}.npz"), parallel], n)
        results.append(np.load(tmp_path / f"{name}.npz"))
    serial, distributed = results
    assert int(distributed["ranks"]) == ranks and len(serial["ids"]) == count
    np.testing.assert_array_equal(distributed["ids"], serial["ids"])
    contacts, walls, bonds, intact = (int(v) for v in serial["counts"])
    print(f"{deck} on {ranks} ranks: {count} spheres, {contacts} contacts, {walls} wall contacts, "
          f"{bonds} bonds, {bonds - intact} broken")
    assert walls > 0
    if deck == "bonded":
        assert bonds > 2 * count and 0 < intact < bonds
    else:
        assert contacts > 0
    # Spheres with a tensor (the bed's free flyers have none).
    assert np.count_nonzero(np.abs(serial["tensors"]).sum(axis=(1, 2))) > count // 4
    np.testing.assert_array_equal(distributed["tensors"], serial["tensors"])


def read_bond_vtk(path):
    """{(smaller id, larger id): (state, sigma, tau, normal force)} of a bonds'
    legacy VTK file (bond_vtk_output.py), its spheres' ids from the point data
    element_id, and {element id: point}."""
    words = path.read_text().split()

    def block(keyword, count, kind, skip=0):
        start = words.index(keyword) + skip
        return np.array(words[start:start + count], dtype=kind)

    points = int(words[words.index("POINTS") + 1])
    lines = int(words[words.index("LINES") + 1])
    xyz = block("POINTS", 3 * points, float, 3).reshape(points, 3)
    cells = block("LINES", 3 * lines, np.int64, 3).reshape(lines, 3)[:, 1:]
    ids = block("element_id", points, np.int64, 5)
    values = [block(name, lines, kind, 5)
              for name, kind in (("state", np.int64), ("sigma", float), ("tau", float),
                                 ("normal_force", float))]
    bonds = {}
    for k, (a, b) in enumerate(ids[cells]):
        key = (min(a, b), max(a, b))
        assert key not in bonds, f"bond {key} written twice in {path.name}"
        bonds[key] = tuple(v[k] for v in values)
    return bonds, dict(zip(ids.tolist(), map(tuple, xyz)))


@needs_mpi
def test_bonds_vtk_of_a_distributed_run_holds_the_serial_bonds(tmp_path):
    # The bonded specimen (149 spheres) crushed 1,000 steps with
    # "ContactMeshOption" and "post_vtk_option" true, bonds written every
    # 250 steps: rank 0 writes one file per step, each bond once (sent by the
    # owner of its sphere with the smaller id), the spheres of all ranks as
    # points. The distributed run is bitwise the serial one, so each file
    # holds the serial file's bonds (ids, state, sigma, tau, normal force:
    # the same %.17g text) and sphere centres exactly.
    folders = {}
    for name, ranks in (("serial", None), ("mpi", 2)):
        WriteBondedSpecimen(tmp_path / name / "ucs", steps=BONDED_STEPS)
        write_deck_key(tmp_path / name / "ucs", "post_vtk_option", True)
        write_deck_key(tmp_path / name / "ucs", "ContactMeshOption", True)
        write_deck_key(tmp_path / name / "ucs", "OutputTimeStep", 250 * 5e-7 * (1.0 - 1e-9))
        write_deck_key(tmp_path / name / "ucs", "parallel_type", "MPI" if ranks else "OpenMP")
        result = tessera_run(tmp_path / name / "ucs", ranks=ranks)
        assert result.returncode == 0, result.stdout + result.stderr
        folders[name] = tmp_path / name / "ucs" / "ucs_Post_Files"
    names = {name: sorted(p.name for p in folder.glob("ucs_bonds*")) for name, folder in folders.items()}
    assert names["mpi"] == names["serial"] and len(names["serial"]) == 5, names  # 4 steps and the .pvd
    assert (folders["mpi"] / "ucs_bonds.pvd").read_text() == \
        (folders["serial"] / "ucs_bonds.pvd").read_text()
    broken = 0
    for file_name in (n for n in names["serial"] if n.endswith(".vtk")):
        serial, serial_points = read_bond_vtk(folders["serial"] / file_name)
        distributed, distributed_points = read_bond_vtk(folders["mpi"] / file_name)
        assert len(serial) > 2 * 149 and distributed == serial, file_name
        assert distributed_points == serial_points, file_name
        broken = max(broken, sum(1 for state, *_ in serial.values() if state != 0))
    print(f"{len(serial)} bonds, up to {broken} broken")
    assert broken > 0  # states other than intact went through


@needs_mpi
@pytest.mark.parametrize("ranks, broken", [(2, "frictional"), (4, "frictional"), (4, "kratos")])
def test_broken_bond_parted_beyond_the_ghost_layer_touches_again_as_in_serial(tmp_path, ranks, broken):
    # Two bonded spheres (R 4 mm, touching) thrown apart at 20 m/s each
    # across the ranks' cut (WriteBondedPair): the bond breaks at once, the
    # spheres part farther than the ghost layer (8.4 mm: each rank then
    # parks the broken bond of its sphere by the spheres' keys, where this
    # was an error), meet again across the periodic face and touch: at step
    # 2860 the broken bond (its crack opened) pushes them apart with k_n
    # (R_i + R_j - d). The force on return, the spheres and the bond bit for
    # bit the serial run's; at step 1200 the bond is parked (its record
    # compared too, the direction apart: AssertBondsBitwise). BrokenBonds
    # "kratos" (no crack opening; the shear force kept within a gap of twice
    # the tolerance, here 0) likewise.
    for steps, parked in ((1200, True), (2860, False)):
        folder = tmp_path / f"pair{steps}"
        WriteBondedPair(folder, steps, keys={"BrokenBonds": broken})
        serial = RunBed(folder, tmp_path / f"serial{steps}.npz")
        distributed = RunBed(folder, tmp_path / f"mpi{steps}.npz", ranks)
        AssertSpheresBitwise(serial, distributed)
        AssertBondsBitwise(serial, distributed)
        assert int(distributed["parkings"]) >= 2  # each sphere's owner parked it
        assert bool(distributed["bond_parked"][0]) == parked
        # The bond broke in tension (4); its crack opened ("frictional").
        assert serial["bond_table"][:, 2:4].tolist() == [[4.0, 1.0 if broken == "frictional" else 0.0]]
    force = serial["TOTAL_FORCES"]
    print(f"{ranks} ranks, {broken}: contact force on return {force[:, 0]} N, "
          f"{int(distributed['parkings'])} parkings")
    assert abs(force[0, 0]) > 100.0 and force[1, 0] == -force[0, 0]
    assert serial["bond_table"][0, 4] > 0.0  # the bond's normal force (compression)


@needs_mpi
def test_bonds_vtk_of_a_distributed_run_lists_a_parked_bond_once(tmp_path):
    # The parted pair (WriteBondedPair) to step 1200 through `tessera run`
    # with the bonds' VTK file at steps 600 and 1200: at 1200 the broken
    # bond is parked on both ranks (no row holds both spheres); rank 0's
    # file lists it once (from the owner of the sphere with the smaller
    # id), as the serial file does, with the same state, sigma, tau and
    # normal force.
    folders = {}
    for name, ranks in (("serial", None), ("mpi", 2)):
        WriteBondedPair(tmp_path / name / "pair", 1200,
                        keys={"post_vtk_option": True, "ContactMeshOption": True,
                              "OutputTimeStep": 600 * 5e-7 * (1.0 - 1e-9),
                              "parallel_type": "MPI" if ranks else "OpenMP"})
        result = tessera_run(tmp_path / name / "pair", ranks=ranks)
        assert result.returncode == 0, result.stdout + result.stderr
        folders[name] = tmp_path / name / "pair" / "pair_Post_Files"
    serial, serial_points = read_bond_vtk(folders["serial"] / "pair_bonds_2.vtk")
    distributed, distributed_points = read_bond_vtk(folders["mpi"] / "pair_bonds_2.vtk")
    assert list(serial) == [(1, 2)] and serial[(1, 2)][0] == 4  # broken in tension
    assert distributed == serial and distributed_points == serial_points


def test_recursive_coordinate_bisection_balances_counts_and_breaks_ties_by_key():
    from tessera import _dem
    rng = np.random.default_rng(3)
    points = rng.uniform(0.0, 1.0, size=(1000, 3)) * [4.0, 1.0, 1.0]
    keys = list(range(1000))
    for parts in (1, 2, 3, 4, 7):
        boxes = _dem.RecursiveCoordinateBisection(points.tolist(), keys, parts)
        assert len(boxes) == parts

        def owner(x):
            inside = [r for r, (low, high) in enumerate(boxes)
                      if all(low[k] <= x[k] < high[k] for k in range(3))]
            assert len(inside) == 1  # the boxes tile space
            return inside[0]
        counts = np.bincount([owner(x) for x in points], minlength=parts)
        # Each cut splits in proportion to the ranks on its sides (floor of
        # n p_low / p): every part within one per level of the mean.
        assert counts.sum() == 1000 and counts.max() - counts.min() <= 3, counts
    # The first cut is across the longest extent (x, 4 units long).
    low, high = _dem.RecursiveCoordinateBisection(points.tolist(), keys, 2)[0]
    assert np.isfinite(high[0]) and not np.isfinite(high[1])
    # Equal coordinates: the same boxes whatever the input order (sorted by
    # coordinate, then by key), the same on every rank.
    tied = [[0.5, 0.0, 0.0]] * 4 + [[0.1, 0.0, 0.0], [0.9, 0.0, 0.0]]
    a = _dem.RecursiveCoordinateBisection(tied, [5, 4, 3, 2, 1, 0], 2)
    b = _dem.RecursiveCoordinateBisection(tied[::-1], [0, 1, 2, 3, 4, 5], 2)
    assert a == b


def test_weighted_bisection_gives_shares_in_proportion_to_the_weights():
    # balance "time": part k's share of the points is weights[k] / their sum
    # (each cut rounds its low side's count to the nearest point).
    from tessera import _dem
    rng = np.random.default_rng(5)
    points = rng.uniform(0.0, 1.0, size=(1200, 3)) * [4.0, 2.0, 1.0]
    keys = list(range(1200))
    for weights in ([1.0, 3.0], [2.0, 1.0, 1.0], [1.0, 2.0, 3.0, 6.0], [0.5, 0.5, 0.5, 0.5]):
        boxes = _dem.RecursiveCoordinateBisection(points.tolist(), keys, len(weights), weights)

        def owner(x):
            inside = [r for r, (low, high) in enumerate(boxes)
                      if all(low[k] <= x[k] < high[k] for k in range(3))]
            assert len(inside) == 1  # the boxes tile space
            return inside[0]
        counts = np.bincount([owner(x) for x in points], minlength=len(weights))
        expected = 1200 * np.array(weights) / sum(weights)
        # One point of rounding per level of cuts (two levels for 4 parts).
        assert counts.sum() == 1200 and np.abs(counts - expected).max() <= 2, (weights, counts)
    # Equal weights cut as no weights (the count balance).
    assert _dem.RecursiveCoordinateBisection(points.tolist(), keys, 4, [2.0] * 4) == \
        _dem.RecursiveCoordinateBisection(points.tolist(), keys, 4)
    for bad in ([1.0], [1.0, 0.0], [1.0, float("nan")]):
        with pytest.raises(Exception, match="weights"):
            _dem.RecursiveCoordinateBisection(points.tolist(), keys, 2, bad)


def test_bisection_by_loads_shares_the_summed_load():
    # balance "contacts" (Moreau-Jean): each part gets its share of the
    # points' summed load, not of their count. Points uniform on x in [0, 4]
    # with load 9 left of x = 1 and 1 beyond: 9 of the 12 load units per
    # unit of density lie in [0, 1], so the halves meet at x = 2/3 (not 2);
    # each part's load within a point's load (9) per level of cuts of its share.
    from tessera import _dem
    rng = np.random.default_rng(7)
    points = rng.uniform(0.0, 1.0, size=(2000, 3)) * [4.0, 1.0, 1.0]
    keys = list(range(2000))
    loads = np.where(points[:, 0] < 1.0, 9.0, 1.0)
    for parts, weights in ((2, []), (3, []), (4, []), (2, [1.0, 3.0])):
        boxes = _dem.RecursiveCoordinateBisection(points.tolist(), keys, parts, weights,
                                                  loads.tolist())

        def owner(x):
            inside = [r for r, (low, high) in enumerate(boxes)
                      if all(low[k] <= x[k] < high[k] for k in range(3))]
            assert len(inside) == 1  # the boxes tile space
            return inside[0]
        owners = np.array([owner(x) for x in points])
        shares = np.bincount(owners, weights=loads, minlength=parts)
        expected = loads.sum() * (np.array(weights) / sum(weights) if weights
                                  else np.full(parts, 1.0 / parts))
        # One point's load (at most 9) of rounding per level of cuts.
        assert np.abs(shares - expected).max() <= 9.0 * 2, (parts, weights, shares, expected)
    half = _dem.RecursiveCoordinateBisection(points.tolist(), keys, 2, [], loads.tolist())[0][1][0]
    assert abs(half - 2.0 / 3.0) < 0.05, half
    # Equal loads cut as counts; all loads 0 cut by counts too.
    for same in ([2.5] * 2000, [0.0] * 2000):
        assert _dem.RecursiveCoordinateBisection(points.tolist(), keys, 4, [], same) == \
            _dem.RecursiveCoordinateBisection(points.tolist(), keys, 4)
    for bad, message in (([1.0] * 3, "2000 points but 3 loads"), ([-1.0] * 2000, "loads must be")):
        with pytest.raises(Exception, match=message):
            _dem.RecursiveCoordinateBisection(points.tolist(), keys, 2, [], bad)


def test_bisection_by_loads_moves_a_cut_within_its_window_to_cross_fewer_links():
    # RcbLoadBalance's links and window (Moreau-Jean: the pair contacts,
    # which couple the ranks' sweeps where a cut crosses them). 100 points
    # in a chain along x (each linked to the next) with no link between
    # points 44 and 45 (a gap in the contact network), unit loads: the
    # share's cut (50 points a side) crosses one link; with a window of
    # 0.1 (10 points' load) the cut moves into the gap, crossing none, 45
    # points below (5 points off the share: within 0.05 too); with 0.04 the
    # gap is out of reach and the cut stays.
    from tessera import _dem
    rng = np.random.default_rng(11)
    x = np.sort(rng.uniform(0.0, 1.0, 100))
    points = [[v, 0.5, 0.5] for v in x]
    keys = list(range(100))
    links = [[k, k + 1] for k in range(99) if k != 44]
    loads = [1.0] * 100

    def low_count(window):
        boxes = _dem.RecursiveCoordinateBisection(points, keys, 2, [], loads, links, window)
        return int(np.count_nonzero(x < boxes[0][1][0]))
    assert low_count(0.0) == 50 and low_count(0.04) == 50
    assert low_count(0.05) == 45 and low_count(0.1) == 45
    # Without links the window changes nothing; a bad link or window is an error.
    assert _dem.RecursiveCoordinateBisection(points, keys, 2, [], loads, [], 0.1) == \
        _dem.RecursiveCoordinateBisection(points, keys, 2, [], loads)
    for bad_links, window, message in (([[0, 100]], 0.1, "a link joins points 0 and 100"),
                                       (links, 0.5, "window must lie in")):
        with pytest.raises(Exception, match=message):
            _dem.RecursiveCoordinateBisection(points, keys, 2, [], loads, bad_links, window)


def test_distributed_bisection_in_one_process_equals_the_gathered_one():
    # DistributedRecursiveCoordinateBisection with the serial communicator:
    # the cuts found by halving the doubles' order, counts from one rank.
    from tessera.parallel import RunPython
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "distributed_rcb_check.py")
    assert "rank 0 ok of 1" in RunPython([script])


@needs_mpi
@pytest.mark.parametrize("ranks", [3, 4])
def test_distributed_bisection_on_ranks_equals_the_gathered_one(ranks):
    # The rebalance's bisection (DistributedDem::Bisect) with the points
    # spread over the ranks, none gathered: every rank gets the boxes the
    # bisection of all points together gives, bit for bit (ties, empty
    # sets, weights, a rank without points; distributed_rcb_check.py).
    from tessera.parallel import RunPython
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "distributed_rcb_check.py")
    output = RunPython([script], ranks)
    assert all(f"rank {r} ok of {ranks}" in output for r in range(ranks)), output


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4])
def test_inlet_on_ranks_equals_serial_bitwise(tmp_path, ranks):
    # An inlet above the bed injects over the whole run (8 points, 6000
    # spheres/s, 600 steps of 5e-5 s: 180 due) while the bed's spheres fly up
    # to it: every rank runs the same injection (overlap test against the
    # spheres of all ranks) and keeps the new spheres it owns or holds as
    # ghosts; the new spheres fall into the bed across the ranks' boxes.
    count = WriteBed(tmp_path / "bed", steps=600)
    AddInlet(tmp_path / "bed", stop=0.03)
    serial = RunBed(tmp_path / "bed", tmp_path / "serial.npz")
    distributed = RunBed(tmp_path / "bed", tmp_path / "mpi.npz", ranks)
    injected = len(serial["ids"]) - count
    # Spheres were injected, and some points were occupied at some steps
    # (fewer than the 180 due): the overlap test saw the other ranks' spheres.
    assert 50 < injected < 180, injected
    new = serial["ids"] > count  # node ids after the bed's (bed and walls)
    assert serial["x"][new][:, 2].min() < 0.12  # injected at 0.158, fell into the bed
    AssertSpheresBitwise(serial, distributed)
    assert int(distributed["contacts"]) == int(serial["contacts"])
    # Injected spheres changed owner or were born off rank 0.
    assert owner_changes(distributed, ranks) > 0
    born = {int(i) for r in range(ranks) for i in distributed[f"end_{r}"]} - \
        {int(i) for r in range(ranks) for i in distributed[f"start_{r}"]}
    assert len(born) == injected
