"""Distributed DEM runs ("parallel_type": "MPI") with rigid clusters
(Cluster3D) against the serial run, bit for bit: the box of
mpi_dem_clusters_case.py, three-sphere clusters (48 or 75) thrown at up to
1 m/s and 30 rad/s above a floor bed of 128 spheres, hitting each other,
the spheres and the walls, for 1,000 steps, on 2 and 4 ranks; once with a
new bisection every 20 steps; with the bed's inlet injecting spheres among
the clusters (and that serial run alone); in a periodic box without walls,
clusters crossing its faces; falling onto a bonded floor (the continuum
strategy), also through `tessera run` with the bonds' VTK file, and
thrown so that broken bonds' spheres part beyond the ghost layer (parked).

Bitwise because the design is (docs/architecture.md, "Distributed DEM"):
a cluster and its members are owned by the rank whose box holds the
cluster's centre, so the owner sums the members' loads as the serial run
does (each member's contact force its serial sum over its contacts, ghosts'
included, in the serial order; the members in row order); the ghost layer
holds every partner of an owned member (2 D wider, D the largest member
offset); the cluster's state travels with its members at each migration
and reaches its ghosts after each step. Each part is needed by some case
here (measured by breaking it, docs/validation.md): without the ghost
clusters' refresh (a ghost cluster then moves by the loads of its members'
local contacts) the dense box on 4 ranks differs; without the 2 D in the
layer the packed box on 4 ranks differs; a cluster arriving without its
state (with a new bisection, a rank becomes the owner of a cluster it did
not hold) breaks the rebalanced run.
The mpirun tests skip where the build has no MPI or there is no mpirun."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from tessera.parallel import MpirunCommand, MpirunEnvironment, MpiSkipReason

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpi_dem_case import AddInlet, AssertBondsBitwise, AssertSpheresBitwise, RunBed  # noqa: E402
from mpi_dem_clusters_case import (NX, PERIODIC_HEIGHT, BondFloor, WriteClusterBox,  # noqa: E402
                                   WritePeriodicClusterBox)

needs_mpi = pytest.mark.skipif(MpiSkipReason() is not None, reason=str(MpiSkipReason()))
STEPS = 1000


def cluster_owner_changes(result, ranks):
    start = {int(i): r for r in range(ranks) for i in result[f"cluster_start_{r}"]}
    end = {int(i): r for r in range(ranks) for i in result[f"cluster_end_{r}"]}
    return [i for i in start if i in end and start[i] != end[i]]


# The boxes (WriteClusterBox's lattice of clusters: n x n x layers at
# `spacing`, jittered, random orientations, velocities and spins).
BOXES = {"dense": dict(n=4, layers=3, spacing=0.038, seed=11),   # 48 clusters
         "packed": dict(n=5, layers=3, spacing=0.034, seed=5)}  # 75 clusters
REBALANCED = {"mpi_settings": {"rebalance_every": 20, "imbalance_threshold": 1.0}}


def serial_and_distributed(tmp_path, ranks, spheres, clusters):
    """The box in tmp_path/box run serially and on `ranks` ranks: every
    sphere, the clusters' members included (node ids), and every cluster's
    state (centre, velocity, angular velocity, angular momentum,
    orientation, displacement, last force and torque; each from its owner)
    bit for bit. Each rank read its piece of the sphere file and kept the
    clusters of its box and layer (spheres_piece.h; in the small periodic
    box every cluster has an image there). Returns (serial, distributed)."""
    serial = RunBed(tmp_path / "box", tmp_path / "serial.npz")
    distributed = RunBed(tmp_path / "box", tmp_path / "mpi.npz", ranks)
    assert int(distributed["ranks"]) == ranks and int(distributed["steps"]) == STEPS
    assert (distributed["pieces_read"] > 0).all() and (distributed["clusters_held"] > 0).all()
    assert len(serial["ids"]) == spheres + 3 * clusters
    AssertSpheresBitwise(serial, distributed)
    assert serial["clusters"].shape == (clusters, 26)
    np.testing.assert_array_equal(distributed["clusters"], serial["clusters"])
    return serial, distributed


def run_box(tmp_path, ranks, scheme, box, keys=None):
    spheres, clusters = WriteClusterBox(tmp_path / "box", steps=STEPS, **BOXES[box],
                                        keys={"TranslationalIntegrationScheme": scheme,
                                              **(keys or {})})
    serial, distributed = serial_and_distributed(tmp_path, ranks, spheres, clusters)
    assert (distributed["clusters_held"] < clusters).all(), distributed["clusters_held"]
    table = serial["clusters"]
    # The run did what the test needs: the clusters moved and turned, stayed
    # unit quaternions and in the box, and some changed owner.
    centre, orientation = table[:, 1:4], table[:, 13:17]
    np.testing.assert_allclose(np.linalg.norm(orientation, axis=1), 1.0, rtol=0, atol=1e-14)
    moved = np.linalg.norm(table[:, 17:20], axis=1)  # displacement
    crossed = cluster_owner_changes(distributed, ranks)
    print(f"{box}, {ranks} ranks, {scheme}: {len(crossed)} of {clusters} clusters changed owner; "
          f"largest cluster displacement {moved.max():.4f} m; {int(distributed['migrations'])} "
          f"spheres arrived at a new owner")
    assert len(crossed) > 0
    assert moved.max() > 0.02
    # Inside the box (walls at 0 and 8 x 0.022 m, floor at 0).
    assert (centre[:, :2] > 0.0).all() and (centre[:, :2] < 8 * 0.022).all()
    assert (centre[:, 2] > 0.0).all()
    return distributed


@needs_mpi
@pytest.mark.parametrize("ranks, scheme, box", [(2, "Velocity_Verlet", "dense"),
                                                (4, "Velocity_Verlet", "dense"),
                                                (4, "Velocity_Verlet", "packed"),
                                                (2, "Symplectic_Euler", "dense")])
def test_clusters_on_ranks_equal_serial_bitwise(tmp_path, ranks, scheme, box):
    run_box(tmp_path, ranks, scheme, box)


@needs_mpi
def test_clusters_with_new_bisections_every_20_steps_equal_serial_bitwise(tmp_path):
    # imbalance_threshold 1: a new bisection at every check where the counts
    # differ at all; the boxes move under the clusters, so ranks become the
    # owners of clusters they did not hold even as ghosts (the cluster's
    # whole state arrives with it).
    distributed = run_box(tmp_path, 2, "Velocity_Verlet", "dense", keys=REBALANCED)
    assert int(distributed["migrations"]) > 100


@needs_mpi
@pytest.mark.parametrize("ranks, bonded", [(2, False), (4, False), (4, True)])
def test_periodic_clusters_on_ranks_equal_serial_bitwise(tmp_path, ranks, bonded):
    # The dense box's 48 clusters and the floor bed's 128 spheres without
    # walls or gravity in the periodic box 176 x 176 x 190 mm
    # (PeriodicDomainOption), thrown at up to 2 m/s: clusters leave through
    # the faces and come back through the opposite ones, their members
    # wrapped one by one and their centres on their own (a cluster across a
    # face has members on both sides), touch across the faces and cross the
    # ranks' cuts. A cluster is owned, sent and held as a ghost by its
    # centre's periodic layer tests (2 D wider), as without a periodic box.
    # Bonded: the floor a bonded slab at rest (BondFloor: the continuum
    # strategy; the slab spans the box, bonded across the faces x and y).
    spheres, centres = WritePeriodicClusterBox(tmp_path / "box", steps=STEPS)
    if bonded:
        BondFloor(tmp_path / "box", "periodic")
    clusters = len(centres)
    serial, distributed = serial_and_distributed(tmp_path, ranks, spheres, clusters)
    table = serial["clusters"]
    assert int(distributed["contacts"]) == int(serial["contacts"]) > 5
    if bonded:
        bonds, intact = (int(v) for v in serial["bonds"])
        assert bonds > 2 * spheres and 0 < intact < bonds, serial["bonds"]
        np.testing.assert_array_equal(distributed["bonds"], serial["bonds"])
    # Clusters crossed the faces: a centre lies a period away from its start
    # plus its displacement (which stays continuous).
    period = np.array([NX * 0.022, NX * 0.022, PERIODIC_HEIGHT])
    centre, displacement = table[:, 1:4], table[:, 17:20]
    wrapped = np.abs(centre - (np.array(centres) + displacement)) > period / 2
    crossed = cluster_owner_changes(distributed, ranks)
    print(f"periodic clusters, {ranks} ranks, bonded {bonded}: "
          f"{int(wrapped.any(axis=1).sum())} of {clusters} "
          f"centres wrapped, {len(crossed)} clusters changed owner, "
          f"{int(distributed['migrations'])} spheres arrived at a new owner")
    assert wrapped.any(axis=1).sum() > 5
    assert len(crossed) > 0
    assert (centre >= 0.0).all() and (centre < period).all()


@needs_mpi
@pytest.mark.parametrize("ranks, keys", [(2, {}), (4, {}), (4, REBALANCED)])
def test_clusters_on_a_bonded_floor_on_ranks_equal_serial_bitwise(tmp_path, ranks, keys):
    # The dense box with the continuum strategy: its floor of 128 spheres a
    # bonded slab (KDEM, weak: 20 kPa shear, 10 kPa tension), the 48
    # clusters falling onto it; the floor's spheres thrown at up to 1 m/s
    # break about a third of its 275 bonds. Bonds go with their spheres and
    # clusters with their centres' owner, both through the same search hooks
    # (PackBonds, PackClusters), cluster members never bonded.
    spheres, clusters = WriteClusterBox(tmp_path / "box", steps=STEPS, **BOXES["dense"], keys=keys)
    BondFloor(tmp_path / "box")
    serial, distributed = serial_and_distributed(tmp_path, ranks, spheres, clusters)
    bonds, intact = (int(v) for v in serial["bonds"])
    assert bonds > 2 * spheres and 0 < intact < bonds, serial["bonds"]
    np.testing.assert_array_equal(distributed["bonds"], serial["bonds"])
    assert int(distributed["contacts"]) == int(serial["contacts"])
    # Clusters reached the floor (a centre within one cluster's reach,
    # 17 mm, of the floor's top at about 45 mm) and changed owner.
    assert serial["clusters"][:, 3].min() < 0.062
    crossed = cluster_owner_changes(distributed, ranks)
    print(f"bonded floor, {ranks} ranks {keys}: {bonds} bonds, {bonds - intact} broken, "
          f"{len(crossed)} of {clusters} clusters changed owner, lowest centre "
          f"{serial['clusters'][:, 3].min():.4f} m")
    assert len(crossed) > 0


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4])
def test_clusters_on_a_thrown_bonded_floor_park_far_bonds_bitwise(tmp_path, ranks):
    # The bonded floor thrown at up to 1 m/s under the clusters (BondFloor
    # thrown), a new bisection every 20 steps: every bond breaks, and some
    # broken bond's spheres lie farther apart than the ghost layer (42.5 mm)
    # where a rank owns one of them (its partner left the rows, or the
    # sphere arrived without it). The old code stopped there ("bonded
    # sphere (element 99) holds 4 of its 5 bonds on rank 3 ... farther
    # apart than the ghost layer", checked on 4 ranks, and on rank 1 of
    # 2); the rank now parks
    # the bond by the spheres' keys. Spheres, clusters and every bond
    # (state, opened, forces, failure criterion; from the owner of its
    # first sphere, parked or not) bit for bit the serial run's.
    spheres, clusters = WriteClusterBox(tmp_path / "box", steps=STEPS, **BOXES["dense"],
                                        keys=REBALANCED)
    BondFloor(tmp_path / "box", thrown=True)
    serial, distributed = serial_and_distributed(tmp_path, ranks, spheres, clusters)
    np.testing.assert_array_equal(distributed["bonds"], serial["bonds"])
    AssertBondsBitwise(serial, distributed)
    assert len(serial["bond_table"]) == int(serial["bonds"][0]) > 2 * spheres
    print(f"thrown bonded floor, {ranks} ranks: {int(distributed['parkings'])} bonds parked, "
          f"{int(serial['bonds'][0] - serial['bonds'][1])} broken")
    assert int(distributed["parkings"]) > 0


def test_a_serial_run_with_clusters_and_an_inlet_gives_injected_spheres_free_ids(tmp_path):
    # The reference of the test below, serial (no MPI needed): the members
    # the strategy makes at Initialize take ids after every id read, the
    # inlet numbered from after the spheres' and its own file's, so an
    # injected sphere met a member's node id ("node 212 is defined twice")
    # until the inlet skipped them (SkipIdsOfInitialSpheres).
    spheres, clusters = WriteClusterBox(tmp_path / "box", steps=STEPS, **BOXES["dense"])
    AddInlet(tmp_path / "box", nx=8, ny=8, nz=8, stop=0.03)
    serial = RunBed(tmp_path / "box", tmp_path / "serial.npz")
    ids = serial["ids"]
    injected = len(ids) - spheres - 3 * clusters
    assert 50 < injected < 180, injected
    assert len(np.unique(ids)) == len(ids)


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4])
def test_clusters_with_an_inlet_on_ranks_equal_serial_bitwise(tmp_path, ranks):
    # The dense box under the bed's inlet (12 points at 9.2 SPACING, 6000
    # spheres/s until 0.03 s: 180 due), rebalanced every 20 steps: every
    # rank runs the same injection, its overlap test against the spheres
    # of all ranks, the clusters' members included, and keeps the new
    # spheres it owns or holds as ghosts; they fall among the clusters.
    # The injected spheres skip the ids of the members the strategy made
    # at Initialize (ParticleInlets::SkipIdsOfInitialSpheres; without it
    # the serial run defines a node twice).
    spheres, clusters = WriteClusterBox(tmp_path / "box", steps=STEPS, **BOXES["dense"],
                                        keys=REBALANCED)
    AddInlet(tmp_path / "box", nx=8, ny=8, nz=8, stop=0.03)
    serial = RunBed(tmp_path / "box", tmp_path / "serial.npz")
    distributed = RunBed(tmp_path / "box", tmp_path / "mpi.npz", ranks)
    count = spheres + 3 * clusters
    assert (distributed["pieces_read"] > 0).all()  # the injected skip every member's ids
    injected = len(serial["ids"]) - count
    # Some points were occupied at some steps (fewer than the 180 due).
    assert 50 < injected < 180, injected
    AssertSpheresBitwise(serial, distributed)
    np.testing.assert_array_equal(distributed["clusters"], serial["clusters"])
    assert int(distributed["contacts"]) == int(serial["contacts"])
    born = {int(i) for r in range(ranks) for i in distributed[f"end_{r}"]} - \
        {int(i) for r in range(ranks) for i in distributed[f"start_{r}"]}
    assert len(born) == injected
    # The new spheres fell from 0.2 m among the clusters (centres from 0.073 m).
    new = np.isin(serial["ids"], sorted(born))
    assert serial["x"][new][:, 2].min() < 0.12
    print(f"{ranks} ranks: {injected} spheres injected among {clusters} clusters; "
          f"{len(cluster_owner_changes(distributed, ranks))} clusters changed owner")


def _deck(folder):
    path = os.path.join(folder, "ProjectParametersDEM.json")
    with open(path) as f:
        return path, json.load(f)


def _tessera_run(folder, ranks, timeout=120):
    command = [sys.executable, "-m", "tessera", "run", str(folder)]
    command, env = MpirunCommand(ranks, *command), MpirunEnvironment()
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)


@needs_mpi
def test_tessera_run_of_clusters_on_a_bonded_floor_writes_its_bonds_once(tmp_path):
    # The deck's way in (`tessera run` under mpirun: the stage's own checks,
    # which refused clusters with the continuum strategy before): the bonded
    # floor under the clusters, 100 steps, VTK output with the bonds'
    # file (ContactMeshOption): each of the floor's bonds once.
    WriteClusterBox(tmp_path / "box", steps=100, **BOXES["dense"], keys={"parallel_type": "MPI"})
    BondFloor(tmp_path / "box")
    path, deck = _deck(tmp_path / "box")
    deck.update(post_vtk_option=True, ContactMeshOption=True, OutputTimeStep=100 * 5e-5 * (1 - 1e-9))
    with open(path, "w") as f:
        json.dump(deck, f)
    result = _tessera_run(tmp_path / "box", ranks=2)
    assert result.returncode == 0, result.stdout + result.stderr
    text = (tmp_path / "box" / "bed_Post_Files" / "bed_bonds_1.vtk").read_text().split()
    lines = int(text[text.index("LINES") + 1])
    points = int(text[text.index("POINTS") + 1])
    start = text.index("element_id") + 5
    ids = np.array(text[start:start + points], dtype=np.int64)
    assert points == 128 + 3 * 48 and len(np.unique(ids)) == points  # every sphere once, members too
    cells = np.array(text[text.index("LINES") + 3:][:3 * lines], dtype=np.int64).reshape(lines, 3)
    pairs = {tuple(sorted(p)) for p in ids[cells[:, 1:]].tolist()}
    assert len(pairs) == lines > 2 * 128  # no bond twice
    assert max(max(p) for p in pairs) <= 128  # bonds between floor spheres (ids 1 to 128) only
