"""The distributed DEM start from pieces (applications/dem/parallel/spheres_piece.h):
under mpirun each rank reads only the spheres it keeps (its box of the first
bisection and the ghost layer around it), initialises the strategy on them
and takes its ghosts from their owners, where the whole-file start
("mpi_settings": {"read": "whole"}) has every rank read and initialise every
sphere. Both must give the serial run's bits, and the same decomposition.
With clusters each rank reads a slice of the cluster file, then the
clusters it keeps, and makes their members; the continuum strategy's pieces reach every bond
partner of the spheres kept, and with embedded spheres deleted at the
start, their hosts; rank 0 works out the serial run's shrinks of
overlapping spheres. (A checkpoint continued on another number of ranks
reads the whole file: test_mpi_checkpoint.py.)
The mpirun tests skip where the build has no MPI or there is no mpirun."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from tessera.parallel import MpiSkipReason, MpirunCommand, MpirunEnvironment

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpi_dem_case import (AddImposedVelocities, AddInlet, AssertSpheresBitwise, BedState,  # noqa: E402
                          SPHERE_RESULTS, RunBed, WriteBed, WriteBondedSpecimen, WritePeriodicBed,
                          _WriteSpheres)
from mpi_dem_clusters_case import WriteClusterBox, _WriteClusters  # noqa: E402

needs_mpi = pytest.mark.skipif(MpiSkipReason() is not None, reason=str(MpiSkipReason()))


# A layer of the bed pushed along x for 10 ms: its spheres cross the cuts.
GROUPS = [("pushed", lambda x: x[2] < 0.03,
           {"IMPOSED_VELOCITY_X_VALUE": 0.5, "VELOCITY_STOP_TIME": 0.01})]


def _Starts(result, ranks):
    return [sorted(int(i) for i in result[f"start_{r}"]) for r in range(ranks)]


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4])
def test_each_rank_reads_its_piece_and_the_run_is_the_serial_one(tmp_path, ranks):
    # The bed of 294 spheres thrown in a box whose side wall is pushed in,
    # with a velocity imposed on a group of spheres (its node ids gathered
    # from the pieces): 600 steps.
    folder = tmp_path / "bed"
    count = WriteBed(folder, moving_wall=True, steps=600)
    AddImposedVelocities(folder, GROUPS)
    serial = RunBed(folder, tmp_path / "serial.npz")
    pieces = RunBed(folder, tmp_path / "pieces.npz", ranks)
    whole_folder = tmp_path / "whole"
    shutil.copytree(folder, whole_folder)
    WriteBed(whole_folder, moving_wall=True, steps=600, keys={"mpi_settings": {"read": "whole"}})
    AddImposedVelocities(whole_folder, GROUPS)
    whole = RunBed(whole_folder, tmp_path / "whole.npz", ranks)

    read = pieces["pieces_read"]
    owned = [len(s) for s in _Starts(pieces, ranks)]
    print(f"{ranks} ranks: spheres read {read.tolist()}, owned at the start {owned} of {count}")
    # Each rank read a piece: its own spheres and its ghosts, not the file.
    assert (read < count).all() and sum(owned) == count
    assert all(r >= o for r, o in zip(read, owned))
    assert (whole["pieces_read"] == -1).all()
    # The same decomposition as the whole-file start, and the serial bits.
    assert _Starts(pieces, ranks) == _Starts(whole, ranks)
    AssertSpheresBitwise(serial, pieces)
    AssertSpheresBitwise(whole, pieces)
    assert int(pieces["contacts"]) == int(serial["contacts"])
    assert int(pieces["searches"]) == int(serial["searches"])
    assert float(pieces["kinetic"]) == pytest.approx(float(serial["kinetic"]), rel=1e-12)
    # Spheres changed rank (the imposed ones followed by id: bitwise above).
    assert int(pieces["migrations"]) > 0


@needs_mpi
def test_pieces_above_the_sorting_threshold_keep_the_file_order(tmp_path):
    # 9,600 spheres on 2 ranks: each piece (over 4,096 rows) would be sorted
    # in space at its first search, which the serial run does to the whole
    # set; a piece keeps the file's order, its keys. Rounding apart (the
    # serial run sums in its sorted order, docs/user_guide.md), the serial
    # run after 20 steps.
    WriteBed(tmp_path / "bed", nx=20, ny=20, nz=24, steps=20)
    serial = RunBed(tmp_path / "bed", tmp_path / "serial.npz")
    distributed = RunBed(tmp_path / "bed", tmp_path / "mpi.npz", 2)
    assert (distributed["pieces_read"] > 4096).all(), distributed["pieces_read"]
    np.testing.assert_array_equal(distributed["ids"], serial["ids"])
    np.testing.assert_allclose(distributed["x"], serial["x"], rtol=0, atol=1e-13)
    np.testing.assert_allclose(distributed["VELOCITY"], serial["VELOCITY"], rtol=0, atol=1e-10)
    assert int(distributed["contacts"]) == int(serial["contacts"])


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4])
def test_an_inlet_run_reads_pieces_whose_layer_reaches_the_spheres_to_come(tmp_path, ranks):
    # An inlet above the bed injecting spheres larger than the bed's (mean
    # 12 mm, up to 18 mm against 9 and 10 mm): the pieces' ghost layer is
    # the one the run keeps, from the inlet file read ahead of the spheres
    # (else StartFromPiece refuses the start), and the injected spheres
    # take the serial run's ids after the whole file's, on every rank.
    folder = tmp_path / "bed"
    count = WriteBed(folder, steps=300)
    AddInlet(folder, stop=0.015, radius=0.012, deviation=0.002)
    serial = RunBed(folder, tmp_path / "serial.npz")
    distributed = RunBed(folder, tmp_path / "mpi.npz", ranks)
    read = distributed["pieces_read"]
    assert (read > 0).all() and (read < count).all(), read
    injected = len(serial["ids"]) - count
    assert injected > 10, injected
    assert np.ravel(serial["RADIUS"]).max() > 0.010  # larger than any sphere of the file
    AssertSpheresBitwise(serial, distributed)
    assert int(distributed["contacts"]) == int(serial["contacts"])


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4])
def test_a_cluster_box_s_pieces_make_the_members_of_the_clusters_each_rank_keeps(tmp_path, ranks):
    # 128 floor spheres and 48 three-sphere clusters thrown at 1 m/s and
    # 30 rad/s (mpi_dem_clusters_case.py), 1,000 steps. Each rank reads a
    # slice of 1/P of the cluster file, whose members count in the first
    # bisection (the serial run's rows after the file's spheres), then the
    # clusters whose centre lies in its box or layer (2 D wider, D the
    # members' reach): it makes only their members, with the serial run's
    # ids and keys (the slices' member counts scanned over the ranks). The
    # owners at the start are the whole-file start's; spheres, members and
    # cluster states are the serial run's bits.
    box = dict(n=4, layers=3, spacing=0.038, seed=11)
    spheres, clusters = WriteClusterBox(tmp_path / "bed", **box)
    serial = RunBed(tmp_path / "bed", tmp_path / "serial.npz")
    distributed = RunBed(tmp_path / "bed", tmp_path / "mpi.npz", ranks)
    WriteClusterBox(tmp_path / "whole", **box, keys={"mpi_settings": {"read": "whole"}})
    whole = RunBed(tmp_path / "whole", tmp_path / "whole.npz", ranks)
    read, held = distributed["pieces_read"], distributed["clusters_held"]
    sliced = distributed["clusters_slice"]
    print(f"{ranks} ranks: spheres read {read.tolist()} of {spheres}, clusters kept "
          f"{held.tolist()} of {clusters} (slices {sliced.tolist()})")
    assert (read > 0).all() and (read < spheres).all(), read
    assert (held > 0).all() and (held < clusters).all() and held.sum() >= clusters, held
    # No rank read the cluster file whole: a slice, then the clusters it keeps.
    assert sliced.sum() == clusters and (sliced <= -(-clusters // ranks)).all(), sliced
    # The clusters' material (id 3) starts at the first cluster's first
    # member, row `spheres`, on every rank (the least key over the slices).
    for r in range(ranks):
        assert distributed[f"cluster_material_keys_{r}"].tolist() == [3, spheres], r
    assert len(serial["ids"]) == spheres + 3 * clusters
    # The bisection of the same centres (the members' by the same
    # arithmetic) as the whole-file start's: the same owners.
    assert (whole["pieces_read"] == -1).all()
    assert _Starts(distributed, ranks) == _Starts(whole, ranks)
    AssertSpheresBitwise(serial, distributed)
    np.testing.assert_array_equal(distributed["clusters"], serial["clusters"])
    assert int(distributed["contacts"]) == int(serial["contacts"])


@needs_mpi
def test_a_deck_of_clusters_only_starts_from_pieces(tmp_path):
    # The cluster box without its sphere file (48 clusters, no sphere of
    # their own; Kratos' cluster decks come so): the pieces read no sphere,
    # each rank keeps the clusters of its box and layer; the walls are
    # numbered from the start, as the serial run numbers them.
    spheres, clusters = WriteClusterBox(tmp_path / "bed", n=4, layers=3, spacing=0.038, seed=11,
                                        steps=500)
    os.remove(tmp_path / "bed" / "bedDEM.mdpa")
    serial = RunBed(tmp_path / "bed", tmp_path / "serial.npz")
    distributed = RunBed(tmp_path / "bed", tmp_path / "mpi.npz", 2)
    held, sliced = distributed["clusters_held"], distributed["clusters_slice"]
    print(f"clusters only: clusters kept {held.tolist()} of {clusters} (slices {sliced.tolist()})")
    assert (distributed["pieces_read"] == 0).all(), distributed["pieces_read"]
    assert (held > 0).all() and (held < clusters).all(), held
    assert sliced.tolist() == [clusters // 2, clusters - clusters // 2], sliced
    assert len(serial["ids"]) == 3 * clusters
    AssertSpheresBitwise(serial, distributed)
    np.testing.assert_array_equal(distributed["clusters"], serial["clusters"])


def _GrownFloorUnderClusters(folder, steps, keys):
    """The cluster box (48 clusters) over a floor of grown spheres (radii 20 %
    larger: overlaps in chains, the side spheres touching the walls) with a
    4 mm sphere inside every fifth: the floor file rewritten. Returns
    (floor spheres, embedded ones, clusters)."""
    spheres, clusters = WriteClusterBox(folder, n=4, layers=3, spacing=0.038, seed=11,
                                        steps=steps, keys=keys)
    nodes, radii, velocities = (v[:spheres] for v in BedState(8, 8, 8, 1.0, 11)[:3])
    radii = [1.2 * r for r in radii]
    embedded = 0
    for k in range(0, spheres, 5):
        nodes.append((nodes[k][0] + 0.002, nodes[k][1], nodes[k][2]))
        radii.append(0.004)
        velocities.append(velocities[k])
        embedded += 1
    _WriteSpheres(os.path.join(folder, "bedDEM.mdpa"), nodes, radii, velocities)
    return spheres, embedded, clusters


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4])
def test_a_cluster_box_s_indentations_are_cleaned_from_the_pieces_as_in_the_serial_run(tmp_path,
                                                                                        ranks):
    # Clusters above a floor of grown spheres: CleanIndentationsOption,
    # RemoveBallsInEmbeddedOption and RemoveBallsInitiallyTouchingWalls.
    # Rank 0 repeats the serial start over every row, the clusters' members
    # from their centres' owners (they count in the pair list and the sort,
    # and are never deleted or shrunk). 300 steps: radii, spheres, members
    # and cluster states are the serial run's bits.
    keys = {"CleanIndentationsOption": True, "RemoveBallsInEmbeddedOption": True,
            "solver_settings": {"strategy": "sphere_strategy",
                                "RemoveBallsInitiallyTouchingWalls": True}}
    spheres, embedded, clusters = _GrownFloorUnderClusters(tmp_path / "bed", 300, keys)
    serial = RunBed(tmp_path / "bed", tmp_path / "serial.npz")
    distributed = RunBed(tmp_path / "bed", tmp_path / "mpi.npz", ranks)
    read = distributed["pieces_read"]
    file_rows = np.ravel(serial["ids"]) <= spheres + embedded  # (the members' ids follow)
    floor = int(np.sum(file_rows))
    shrunk = int(np.sum(np.ravel(serial["RADIUS"])[file_rows] < 0.0108 * (1 - 1e-12)))
    print(f"{ranks} ranks: spheres read {read.tolist()} of {spheres + embedded}, clusters kept "
          f"{distributed['clusters_held'].tolist()}; floor spheres left {floor}, {shrunk} shrunk")
    assert (read > 0).all() and (read < spheres + embedded).all(), read
    assert floor < spheres  # every embedded sphere and the ones touching a wall deleted
    assert shrunk > 20
    AssertSpheresBitwise(serial, distributed, SPHERE_RESULTS + ("RADIUS",))
    np.testing.assert_array_equal(distributed["clusters"], serial["clusters"])
    assert int(distributed["contacts"]) == int(serial["contacts"])


@needs_mpi
def test_indentations_under_clusters_the_serial_run_sorts_are_its_shrinks(tmp_path):
    # 972 grown floor spheres (and 195 embedded) under 1,053 clusters: 4,326
    # rows, which the serial run sorts in space at its first search, a
    # cluster's members together; rank 0 sorts its rows so, the members
    # included, before it shrinks. 2 ranks, 20 steps: the radii are the
    # serial run's bits; positions and velocities differ by rounding (a
    # piece keeps the file's order).
    folder = tmp_path / "bed"
    nodes, radii, velocities = _OverlappingBed(18, 18, 3)
    WriteBed(folder, 18, 18, 3, steps=20, keys={"CleanIndentationsOption": True,
                                                "RemoveBallsInEmbeddedOption": True},
             state=(nodes, radii, velocities))
    lx = BedState(18, 18, 3)[3][0]
    clusters = len(_WriteClusters(folder, "bed", lx, 9, 13, 0.038, 1.0, 30.0, 11,
                                  bottom=3.6 * 0.022 + 0.038))
    serial = RunBed(folder, tmp_path / "serial.npz")
    distributed = RunBed(folder, tmp_path / "mpi.npz", 2)
    assert len(radii) + 3 * clusters >= 4096
    # (The bisection cuts the tall stack across: one rank holds the floor.)
    print(f"spheres read {distributed['pieces_read'].tolist()}, clusters kept "
          f"{distributed['clusters_held'].tolist()}")
    assert (distributed["pieces_read"] >= 0).all() and (distributed["clusters_held"] > 0).all()
    np.testing.assert_array_equal(distributed["ids"], serial["ids"])
    np.testing.assert_array_equal(distributed["RADIUS"], serial["RADIUS"])
    floor = np.ravel(serial["RADIUS"])[np.ravel(serial["ids"]) <= len(radii)]
    print(f"{len(radii)} floor spheres, {clusters} clusters: {len(floor)} left, "
          f"{int(np.sum(floor < 0.0108 * (1 - 1e-12)))} shrunk")
    assert np.sum(floor < 0.0108 * (1 - 1e-12)) > 200
    np.testing.assert_allclose(distributed["x"], serial["x"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(distributed["VELOCITY"], serial["VELOCITY"], rtol=0, atol=1e-9)


def _TesseraRun(folder, ranks=None):
    command = [sys.executable, "-m", "tessera", "run", str(folder)]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    if ranks:
        command, env = MpirunCommand(ranks, *command), MpirunEnvironment()
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)


@needs_mpi
def test_a_periodic_bed_reads_the_images_across_the_faces_into_its_pieces(tmp_path):
    # The bed in a periodic box (no walls), 4 ranks, 300 steps: a piece holds
    # the spheres within a layer of its box at their nearest image, so the
    # spheres near one face are read by the ranks across the opposite one.
    folder = tmp_path / "periodic"
    count = len(WritePeriodicBed(folder, steps=300))
    serial = RunBed(folder, tmp_path / "serial.npz")
    pieces = RunBed(folder, tmp_path / "pieces.npz", 4)
    whole_folder = tmp_path / "whole"
    WritePeriodicBed(whole_folder, steps=300, keys={"mpi_settings": {"read": "whole"}})
    whole = RunBed(whole_folder, tmp_path / "whole.npz", 4)
    read = pieces["pieces_read"]
    print(f"periodic, 4 ranks: spheres read {read.tolist()} of {count}")
    assert (read > 0).all() and (read < count).all()
    assert _Starts(pieces, 4) == _Starts(whole, 4)
    AssertSpheresBitwise(serial, pieces)
    assert int(pieces["contacts"]) == int(serial["contacts"])


@needs_mpi
def test_an_automatic_periodic_domain_is_the_box_of_every_piece(tmp_path):
    # PeriodicDomainOption with AutomaticBoundingBoxOption: the domain is the
    # box of every node scaled by BoundingBoxEnlargementFactor (1.17: about
    # the lattice's period), which the pieces work out from the slices'
    # centres (and the walls' nodes, none here) before wrapping them; the
    # stage's own box, from the pieces, must be the same bits. 4 ranks, 300
    # steps: the serial run's bits.
    keys = {"AutomaticBoundingBoxOption": True, "BoundingBoxEnlargementFactor": 1.17}
    folder = tmp_path / "periodic"
    count = len(WritePeriodicBed(folder, steps=300, keys=keys))
    serial = RunBed(folder, tmp_path / "serial.npz")
    pieces = RunBed(folder, tmp_path / "pieces.npz", 4)
    read = pieces["pieces_read"]
    print(f"automatic periodic box, 4 ranks: spheres read {read.tolist()} of {count}")
    assert (read > 0).all() and (read < count).all(), read
    AssertSpheresBitwise(serial, pieces)
    assert int(pieces["contacts"]) == int(serial["contacts"])


@needs_mpi
def test_the_automatic_time_step_of_the_pieces_is_the_serial_runs(tmp_path):
    # AutomaticTimestep: Δt = 0.1 of the critical step, which the smallest
    # sphere sets, and the estimate counts impacts at twice the fastest
    # speed. The last sphere (a corner of the bed, far from the cut of 2
    # ranks: one piece holds it) is made the smallest and the fastest, so
    # every rank must take the least estimate over the pieces: the same Δt
    # and step count as the serial run, and its bits.
    nodes, radii, velocities = BedState()[:3]
    radii[-1] *= 0.5
    velocities[-1] = (0.0, 0.0, -5.0)
    keys = {"AutomaticTimestep": True, "DeltaTimeSafetyFactor": 0.1}
    WriteBed(tmp_path / "bed", steps=10, keys=keys, state=(nodes, radii, velocities))
    serial = RunBed(tmp_path / "bed", tmp_path / "serial.npz")
    distributed = RunBed(tmp_path / "bed", tmp_path / "mpi.npz", 2)
    assert (distributed["pieces_read"] > 0).all()
    assert int(serial["steps"]) > 10  # the automatic step is below MaxTimeStep
    assert int(distributed["steps"]) == int(serial["steps"])
    AssertSpheresBitwise(serial, distributed)


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4])
def test_a_bonded_specimen_s_pieces_hold_every_bond_of_the_spheres_kept(tmp_path, ranks):
    # The continuum strategy makes its bonds on each piece at the start, and
    # a bond's constants depend on all the bonds of both its spheres (the
    # section weights): each piece reaches the longest bond beyond the ghost
    # layer, so that every sphere kept has all its partners. A Ø120 x 30 mm
    # virtual-lab specimen crushed while sliding across its platens (bonds
    # break and cross the cuts), 2e-4 s; AutomaticTimestep (0.3 of the
    # critical step estimate, below MaxTimeStep): the estimate over the kept
    # spheres (the piece's outer spheres missed bonds, so their bonds had
    # other constants) is the serial one.
    keys = {"AutomaticTimestep": True, "DeltaTimeSafetyFactor": 0.3}
    count, serial, pieces = _BondedSpecimenPieces(tmp_path, ranks, keys)
    whole_folder = tmp_path / "whole"
    WriteBondedSpecimen(whole_folder, steps=400, diameter=0.12,
                        keys={**keys, "mpi_settings": {"read": "whole"}})
    whole = RunBed(whole_folder, tmp_path / "whole.npz", ranks)
    assert (whole["pieces_read"] == -1).all()
    assert int(serial["bonds"][0]) > 2 * count
    assert int(serial["steps"]) > 400  # the automatic step is below MaxTimeStep
    assert int(pieces["steps"]) == int(serial["steps"])
    assert _Starts(pieces, ranks) == _Starts(whole, ranks)
    assert int(pieces["migrations"]) > 0


def _BondedSpecimenPieces(tmp_path, ranks, keys):
    """The Ø120 x 30 mm specimen (WriteBondedSpecimen) with `keys`, 400
    steps, serially and from pieces on `ranks`: each rank read a piece,
    bonds broke, and the pieces gave the serial bits and bond counts.
    Returns the spheres' count and both runs."""
    folder = tmp_path / "ucs"
    count = WriteBondedSpecimen(folder, steps=400, diameter=0.12, keys=keys)
    serial = RunBed(folder, tmp_path / "serial.npz")
    pieces = RunBed(folder, tmp_path / "pieces.npz", ranks)
    read = pieces["pieces_read"]
    bonds, intact = (int(v) for v in serial["bonds"])
    print(f"{ranks} ranks: spheres read {read.tolist()} of {count}; {bonds} bonds, "
          f"{bonds - intact} broken; {int(serial['steps'])} steps")
    assert (read > 0).all() and (read < count).all(), read
    assert 0 < intact < bonds, serial["bonds"]
    AssertSpheresBitwise(serial, pieces)
    np.testing.assert_array_equal(pieces["bonds"], serial["bonds"])
    return count, serial, pieces


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4])
def test_the_global_area_correction_of_the_pieces_counts_the_whole_specimen(tmp_path, ranks):
    # BondAreaCorrection "global": α = 40 P / N_c with N_c the whole
    # specimen's mean bonds per bonded sphere (thesis 5.6), which each piece
    # counts for the spheres it owns and the ranks sum (CountBondsOverPieces).
    # The Ø120 x 30 mm specimen crushed while sliding, 400 steps.
    _BondedSpecimenPieces(tmp_path, ranks, {"BondAreaCorrection": "global", "BondAreaPorosity": 0.35})


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4])
def test_embedded_spheres_are_deleted_from_the_pieces_as_in_the_serial_run(tmp_path, ranks):
    # RemoveBallsInEmbeddedOption: a 4 mm sphere inside every third sphere of
    # the bed (its centre 3 mm off the host's), which the strategy deletes at
    # the start, each by its own pairs: a piece reaches 2 R_max beyond the
    # layer, so that a sphere it keeps is deleted or kept as in the serial
    # run. 300 steps.
    nodes, radii, velocities = BedState()[:3]
    for k in range(0, len(radii), 3):
        x, y, z = nodes[k]
        nodes.append((x + 0.003 * (1 - 2 * (k % 2)), y, z))
        radii.append(0.004)
        velocities.append(velocities[k])
    count = len(radii)
    keys = {"RemoveBallsInEmbeddedOption": True}
    WriteBed(tmp_path / "bed", steps=300, keys=keys, state=(nodes, radii, velocities))
    serial = RunBed(tmp_path / "bed", tmp_path / "serial.npz")
    distributed = RunBed(tmp_path / "bed", tmp_path / "mpi.npz", ranks)
    read = distributed["pieces_read"]
    print(f"{ranks} ranks: spheres read {read.tolist()} of {count}")
    assert (read > 0).all() and (read < count).all(), read
    assert len(serial["ids"]) == len(BedState()[1])  # every embedded sphere deleted
    AssertSpheresBitwise(serial, distributed)
    assert int(distributed["contacts"]) == int(serial["contacts"])


def _OverlappingBed(nx=7, ny=7, nz=6):
    """The bed's spheres grown by 20 % (radii 12 and 10.8 mm on the 22 mm
    lattice: neighbours overlap by up to 2.6 mm, in chains across the bed),
    with a 4 mm sphere inside every fifth one."""
    nodes, radii, velocities = BedState(nx, ny, nz)[:3]
    radii = [1.2 * r for r in radii]
    for k in range(0, len(nodes), 5):
        nodes.append((nodes[k][0] + 0.002, nodes[k][1], nodes[k][2]))
        radii.append(0.004)
        velocities.append(velocities[k])
    return nodes, radii, velocities


@needs_mpi
@pytest.mark.parametrize("ranks,walls", [(2, False), (4, False), (2, True), (4, True)])
def test_indentations_are_cleaned_from_the_pieces_as_in_the_serial_run(tmp_path, ranks, walls):
    # CleanIndentationsOption: each overlapping pair shrinks with the radii
    # the pairs before it left, a chain no piece can follow, so rank 0
    # repeats the serial start over every sphere's centre and radius
    # (ShareInitialShrinks): the bounding box's deletions (the top layer
    # lies above it), the embedded spheres' deletion, the search, with
    # `walls` the deletions of the spheres touching a wall (each piece's,
    # gathered: the grown spheres along the sides reach them), and the
    # shrinks; each rank applies those of its spheres. 300 steps: the
    # radii, positions, velocities and forces are the serial run's bits.
    nodes, radii, velocities = _OverlappingBed()
    count = len(radii)
    keys = {"CleanIndentationsOption": True, "RemoveBallsInEmbeddedOption": True,
            "BoundingBoxOption": True, "BoundingBoxMinX": -1.0, "BoundingBoxMinY": -1.0,
            "BoundingBoxMinZ": -1.0, "BoundingBoxMaxX": 1.0, "BoundingBoxMaxY": 1.0,
            "BoundingBoxMaxZ": 0.12,
            "solver_settings": {"strategy": "sphere_strategy",
                                "RemoveBallsInitiallyTouchingWalls": walls}}
    WriteBed(tmp_path / "bed", steps=300, keys=keys, state=(nodes, radii, velocities))
    serial = RunBed(tmp_path / "bed", tmp_path / "serial.npz")
    distributed = RunBed(tmp_path / "bed", tmp_path / "mpi.npz", ranks)
    read = distributed["pieces_read"]
    radius = np.ravel(serial["RADIUS"])
    print(f"{ranks} ranks: spheres read {read.tolist()} of {count}; {len(radius)} left, "
          f"{int(np.sum(radius < 0.0108 * (1 - 1e-12)))} shrunk")
    assert (read > 0).all() and (read < count).all(), read
    # Left: the lattice's spheres below the box's top (every embedded one
    # deleted), with `walls` less those within their radius of a side wall.
    lattice, (lx, ly, _) = BedState()[1], BedState()[3]
    below = [k for k in range(len(lattice)) if nodes[k][2] <= 0.12]
    touching = [k for k in below
                if min(nodes[k][0], lx - nodes[k][0], nodes[k][1], ly - nodes[k][1]) < radii[k]]
    left = sorted(set(below) - set(touching)) if walls else below
    assert sorted(int(i) - 1 for i in serial["ids"]) == left
    assert len(touching) > 30
    assert radius.min() > 0.004 and np.sum(radius < 0.0108 * (1 - 1e-12)) > 50  # shrunk
    AssertSpheresBitwise(serial, distributed, SPHERE_RESULTS + ("RADIUS",))
    assert int(distributed["contacts"]) == int(serial["contacts"])


@needs_mpi
def test_indentations_of_a_bed_the_serial_run_sorts_are_its_shrinks(tmp_path):
    # 7,776 spheres (and 1,555 embedded ones) on 2 ranks: the serial run sorts
    # its rows in space at the first search, so its pairs come in that order,
    # which rank 0 repeats (SpatialOrder): the radii are the serial run's bit
    # for bit; positions and velocities differ by rounding (a piece keeps the
    # file's order: docs/user_guide.md) after 20 steps.
    WriteBed(tmp_path / "bed", nx=18, ny=18, nz=24, steps=20,
             keys={"CleanIndentationsOption": True, "RemoveBallsInEmbeddedOption": True},
             state=_OverlappingBed(18, 18, 24))
    serial = RunBed(tmp_path / "bed", tmp_path / "serial.npz")
    distributed = RunBed(tmp_path / "bed", tmp_path / "mpi.npz", 2)
    assert (distributed["pieces_read"] > 4096).all(), distributed["pieces_read"]
    np.testing.assert_array_equal(distributed["ids"], serial["ids"])
    np.testing.assert_array_equal(distributed["RADIUS"], serial["RADIUS"])
    assert np.sum(np.ravel(serial["RADIUS"]) < 0.0108 * (1 - 1e-12)) > 1000
    np.testing.assert_allclose(distributed["x"], serial["x"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(distributed["VELOCITY"], serial["VELOCITY"], rtol=0, atol=1e-9)


def test_a_bad_read_value_is_named(tmp_path):
    WriteBed(tmp_path / "bed", steps=10, keys={"mpi_settings": {"read": "some"}})
    result = _TesseraRun(tmp_path / "bed")
    assert result.returncode != 0
    assert "mpi_settings.read" in result.stderr and '"some"' in result.stderr, result.stderr


def test_one_rank_s_piece_is_the_whole_file(tmp_path):
    # ReadSpheresPiece with a serial communicator: one box (all space), every
    # sphere kept with its position in the file as key, the same model part
    # as the whole read, and the file's largest ids and radius.
    import tessera
    from tessera import _dem

    folder = tmp_path / "bed"
    count = WriteBed(folder, steps=10)
    path = str(folder / "bedDEM.mdpa")
    whole = tessera.Model().CreateModelPart("SpheresPart")
    whole.AddNodalSolutionStepVariable(tessera.GetVariable("RADIUS"))
    tessera.ModelPartIO(path, renumber=True, node_id_offset=5, element_id_offset=7).ReadModelPart(whole)
    part = tessera.Model().CreateModelPart("SpheresPart")
    part.AddNodalSolutionStepVariable(tessera.GetVariable("RADIUS"))
    piece = _dem.ReadSpheresPiece(path, part, tessera.SerialCommunicator(), 0.001,
                                  node_id_offset=5, element_id_offset=7)
    assert piece.total_spheres == count == part.NumberOfElements()
    assert list(piece.element_keys) == list(range(count))
    assert list(piece.element_ids) == [e.Id for e in whole.Elements] == list(range(8, 8 + count))
    assert (piece.max_node_id, piece.max_element_id) == (5 + count, 7 + count)
    assert [n.Id for n in part.Nodes] == [n.Id for n in whole.Nodes]
    radius = tessera.GetVariable("RADIUS")
    np.testing.assert_array_equal(np.array(part.NodalArray(radius)), np.array(whole.NodalArray(radius)))
    assert piece.largest_radius == max(np.array(whole.NodalArray(radius)).ravel())
    # The layer of DistributedDem.Start: 1.05 (2 R_max + tolerance).
    assert piece.layer == 1.05 * (2.0 * piece.largest_radius + 0.001)
    ((low, high),) = piece.boxes
    assert all(v == -np.inf for v in low) and all(v == np.inf for v in high)


def test_a_cluster_file_with_conditions_is_refused_naming_it(tmp_path):
    # The cluster file is read in pieces (its connectivity first): a
    # condition in it is an error naming the file, before any cluster is read.
    import tessera
    from tessera import _dem

    folder = tmp_path / "bed"
    WriteBed(folder, steps=10)
    clusters_path = tmp_path / "bedDEM_Clusters.mdpa"
    clusters_path.write_text("Begin Properties 1\nEnd Properties\n"
                             "Begin Nodes\n1 0 0 0\n2 1 0 0\n3 0 1 0\nEnd Nodes\n"
                             "Begin Elements Cluster3D\n1 1 1\nEnd Elements\n"
                             "Begin Conditions RigidFace3D3N\n1 1 1 2 3\nEnd Conditions\n")
    model = tessera.Model()
    part = model.CreateModelPart("SpheresPart")
    part.AddNodalSolutionStepVariable(tessera.GetVariable("RADIUS"))
    read = []
    with pytest.raises(tessera.Error) as error:
        _dem.ReadSpheresPiece(str(folder / "bedDEM.mdpa"), part, tessera.SerialCommunicator(), 0.001,
                              read_next_files=lambda n, e, c: (n, e, c, n, max(e, c)),
                              clusters_path=str(clusters_path),
                              clusters=model.CreateModelPart("ClusterPart"),
                              assign_cluster_materials=lambda: read.append(1))
    assert str(clusters_path) in str(error.value) and "1 conditions" in str(error.value), error.value
    assert read == []


def test_a_bonded_piece_reaches_the_longest_bond_beyond_the_widest_layer(tmp_path):
    # PieceBonds (spheres_piece.h): the longest bond the continuum strategy
    # can make is 2 R_max + twice the tolerance, or (1 + β) 2 R_max; the
    # piece reaches the widest layer DistributedDem.Start can take (1.05
    # times that bond; with "kratos" broken bonds also 1.05 (2 R_max + 3 t)
    # and 1.05 (L + t)) plus that bond.
    import tessera
    from tessera import _dem

    folder = tmp_path / "bed"
    WriteBed(folder, steps=10)
    path = str(folder / "bedDEM.mdpa")
    t = 0.001

    def layer(**bonds):
        part = tessera.Model().CreateModelPart("SpheresPart")
        part.AddNodalSolutionStepVariable(tessera.GetVariable("RADIUS"))
        piece = _dem.ReadSpheresPiece(path, part, tessera.SerialCommunicator(), t, **bonds)
        return piece.layer, piece.largest_radius

    plain, r = layer()
    assert plain == 1.05 * (2 * r + t)
    gap = 2 * r + 2 * t  # no BOND_RANGE_BETA: gaps up to twice the tolerance
    assert layer(bonds_made=True)[0] == pytest.approx(1.05 * gap + gap, rel=1e-15)
    ranged = 2 * r * 1.15
    assert layer(bonds_made=True, largest_bond_range=0.15)[0] == \
        pytest.approx(1.05 * ranged + ranged, rel=1e-15)
    assert layer(bonds_made=True, kratos_broken_bonds=True)[0] == \
        pytest.approx(1.05 * (gap + t) + gap, rel=1e-15)


def test_the_largest_bond_range_is_found_in_the_materials_and_the_sphere_file(tmp_path):
    # distributed_run._LargestBondRange: BOND_RANGE_BETA anywhere in the
    # materials file (a relation's or a material's Variables) and in the
    # sphere file's Properties (a legacy deck), before the materials are
    # assigned; -1 where the deck gives none.
    import json

    import tessera
    from tessera.dem import distributed_run

    class Stage:
        DEM_parameters = tessera.Parameters(json.dumps(
            {"solver_settings": {"material_import_settings": {"materials_filename":
                                                              str(tmp_path / "MaterialsDEM.json")}}}))

    spheres = tmp_path / "sDEM.mdpa"
    spheres.write_text("Begin Properties 1\n  BOND_RANGE_BETA 0.1\nEnd Properties\n")
    assert distributed_run._LargestBondRange(Stage(), str(spheres)) == 0.1
    (tmp_path / "MaterialsDEM.json").write_text(json.dumps(
        {"materials": [{"material_id": 1, "Variables": {"YOUNG_MODULUS": 1e9}}],
         "material_relations": [{"materials_ids": [1, 1], "Variables": {"BOND_RANGE_BETA": 0.25}}]}))
    assert distributed_run._LargestBondRange(Stage(), str(spheres)) == 0.25
    spheres.write_text("Begin Properties 1\nEnd Properties\n")
    (tmp_path / "MaterialsDEM.json").write_text("{}")
    assert distributed_run._LargestBondRange(Stage(), str(spheres)) == -1.0
