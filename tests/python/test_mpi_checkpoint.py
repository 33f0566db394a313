"""Checkpoints of distributed runs ("parallel_type": "MPI"; tessera.checkpoint,
applications/dem/parallel/distributed_checkpoint.cpp): each rank writes its
own file (checkpoint_<STEP>.rank<R>of<N>.h5), and a run continued from them
on as many ranks gives bitwise the results of the uninterrupted run (no
tolerance: numpy array_equal), which are bitwise the serial run's. The step
of the checkpoint lies between two searches, with contacts (and bonds)
carrying histories and spheres having changed owner since the start, so a
continued run that lost a contact history, a ghost list, a row's key or
owner would differ. The explicit and implicit structures and coupled runs
likewise (the implicit ones with a deterministic linear solver, below).
A DEM run (with inlets, bonds, sticky or free walls, rigid clusters)
continues on another rank count (or serially) too, bitwise; the explicit
and implicit structures and the explicit and implicit coupled runs (the
skin's walls or the DEM deck's own) too, to rounding (as their distributed
runs equal the serial ones). The mpirun tests
skip where the build has no MPI or there is no mpirun."""
import json
import os
import sys

import numpy as np
import pytest

import tessera
from tessera.checkpoint import DifferingDatasets
from tessera.parallel import MpiSkipReason, RunPython

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpi_dem_bodies_case import AddFreeLid, MakeFloorSticky  # noqa: E402
from mpi_dem_case import (AddInlet, AssertSpheresBitwise, WriteBed, WriteBondedPair,  # noqa: E402
                          WriteBondedSpecimen)
from mpi_dem_clusters_case import BondFloor, WriteClusterBox  # noqa: E402

RUN_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mpi_checkpoint_run.py")
needs_mpi = pytest.mark.skipif(MpiSkipReason() is not None, reason=str(MpiSkipReason()))
needs_petsc = pytest.mark.skipif(not tessera.PetscBuilt(), reason="this build of Tessera has no PETSc "
                                 "(TESSERA_WITH_PETSC is OFF: petsc-dev missing)")
STEPS = 1000
# Checkpoints every 490 steps: at 490 (between the searches at 480 and 500,
# every 20 steps) and 980.
EVERY = 490
COMPARED = ("x", "VELOCITY", "ANGULAR_VELOCITY")


def restart_options(folder):
    return "restart_options=" + json.dumps({"SaveRestart": True, "RestartFrequency": EVERY,
                                            "checkpoint_folder": folder})


def run(folder, out, ranks, restart="-", settings=()):
    RunPython([RUN_SCRIPT, folder, out, "MPI" if ranks else "OpenMP", restart, *settings], ranks)
    return np.load(out)


def write_case(case, folder):
    """The bed of 294 spheres thrown in a box (mpi_dem_case.py); the bed with
    an inlet above it injecting until 0.03 s (step 600: on both sides of the
    checkpoint, new spheres take keys and ids on every rank); the bonded
    specimen crushed while it slides across the ranks' cut; the bed under a
    FREE_BODY_MOTION lid thrown onto it (mpi_dem_bodies_case.py: its motion
    from every rank's loads); the bed on a sticky floor that turns and
    slides, carrying its glued spheres across the cut; 48 rigid clusters
    thrown above a floor bed (mpi_dem_clusters_case.py) with a new bisection
    every 20 steps, so that ranks own, at the checkpoint, clusters they did
    not hold at the start (each cluster's state in its owner's file, its
    element and centre node made again on continuing); the same under the
    bed's inlet, and on a bonded floor (continuum strategy, BondFloor).
    Returns the number of spheres at the start."""
    if case == "bonded":
        return WriteBondedSpecimen(folder, steps=STEPS)
    if case.startswith("clusters"):
        spheres, clusters = WriteClusterBox(
            folder, steps=STEPS, n=4, layers=3, spacing=0.038, seed=11,
            keys={"mpi_settings": {"rebalance_every": 20, "imbalance_threshold": 1.0}})
        if case == "clusters_inlet":
            AddInlet(folder, nx=8, ny=8, nz=8, stop=0.03)
        if case == "clusters_bonded":
            BondFloor(folder)
        return spheres + 3 * clusters
    scheme = "Symplectic_Euler" if case == "sticky" else "Velocity_Verlet"
    count = WriteBed(folder, steps=STEPS, keys={"TranslationalIntegrationScheme": scheme})
    if case == "inlet":
        AddInlet(folder, stop=0.03)
    elif case == "lid":
        AddFreeLid(folder)
    elif case == "sticky":
        MakeFloorSticky(folder, angular_velocity=2.0, linear_velocity=(0.6, 0.6, 0.0))
    return count


@needs_mpi
@pytest.mark.parametrize("case", ["bed", "inlet", "bonded", "lid", "sticky", "clusters",
                                  "clusters_inlet", "clusters_bonded"])
def test_distributed_run_continued_from_checkpoint_is_bitwise_the_uninterrupted_run(tmp_path, case):
    folder = tmp_path / case
    count = write_case(case, folder)
    serial = run(folder, tmp_path / "serial.npz", None)
    whole = run(folder, tmp_path / "whole.npz", 2, settings=[restart_options("first")])
    assert int(whole["steps"]) == STEPS
    injects = case in ("inlet", "clusters_inlet")
    assert (len(whole["ids"]) > count + 50) if injects else (len(whole["ids"]) == count)
    # One file per rank and checkpoint step; each rank lists its own.
    names = sorted(os.listdir(folder / "first"))
    assert names == [f"checkpoint_{step:09d}.rank{r}of2.h5" for step in (490, 980) for r in (0, 1)]
    assert [os.path.basename(f) for f in whole["files"]] == \
        ["checkpoint_000000490.rank0of2.h5", "checkpoint_000000980.rank0of2.h5"]
    # Continued from step 490 (the name without the rank: each rank takes its own file).
    continued = run(folder, tmp_path / "continued.npz", 2, str(folder / "first" / "checkpoint_000000490.h5"),
                    settings=[restart_options("second")])
    assert int(continued["steps"]) == STEPS
    AssertSpheresBitwise(whole, continued, COMPARED)
    AssertSpheresBitwise(serial, whole, COMPARED)
    # The state at step 980 of both runs, every rank, dataset by dataset:
    # the model parts and the objects (strategy, DistributedDem) alike.
    for r in (0, 1):
        name = f"checkpoint_000000980.rank{r}of2.h5"
        for group in ("/ModelParts", "/Objects"):
            assert DifferingDatasets(str(folder / "first" / name), str(folder / "second" / name),
                                     group) == []
    # What the file of a rank holds beyond a serial checkpoint.
    reader = tessera.CheckpointReader(str(folder / "first" / "checkpoint_000000490.rank1of2.h5"))
    assert reader.IntAttribute("ranks") == 2 and reader.IntAttribute("rank") == 1
    assert reader.Has("/Objects/Solver/Distributed/row_key")
    if case.startswith("clusters"):
        # Every cluster's state (centre, velocities, angular momentum,
        # orientation, displacement, last loads), each from its owner.
        assert whole["clusters"].shape == (48, 26)
        np.testing.assert_array_equal(continued["clusters"], whole["clusters"])
        np.testing.assert_array_equal(whole["clusters"], serial["clusters"])
        # The continued run made again clusters that arrived at a rank
        # after the start: its files at step 490 hold some cluster its
        # ClusterPart did not hold after Initialize.
        arrived = []
        for r in (0, 1):
            saved = tessera.CheckpointReader(str(folder / "first" / f"checkpoint_000000490.rank{r}of2.h5"))
            ids = saved.ReadInt64("/ModelParts/ClusterPart/Elements/Ids")
            arrived += sorted(set(ids) - set(whole[f"cluster_held_{r}"].tolist()))
        print(f"clusters arrived at a rank not holding them at the start, by step 490: {len(arrived)}")
        assert arrived


@needs_mpi
def test_bed_continued_on_another_rank_count_is_bitwise_the_uninterrupted_run(tmp_path):
    """The bed's checkpoint at step 490 (between two searches, spheres having
    changed owner, contacts with histories) written on 2 ranks continued on
    4 and on 1 (a serial run), written on 4 continued on 2, and the serial
    run's continued on 2: each bitwise the uninterrupted run (no tolerance).
    The rank files are merged into the serial state (resized_checkpoint.py:
    the rows in key order, which is the serial row order, the last search's
    pair candidates with their histories), which each rank decomposes as a
    start does; the run goes on as the serial run would from that state."""
    folder = tmp_path / "bed"
    WriteBed(folder, steps=STEPS, keys={"TranslationalIntegrationScheme": "Velocity_Verlet",
                                        "EnergyCalculationOption": True})
    serial = run(folder, tmp_path / "serial.npz", None, settings=[restart_options("serial")])
    two = run(folder, tmp_path / "two.npz", 2, settings=[restart_options("two")])
    four = run(folder, tmp_path / "four.npz", 4, settings=[restart_options("four")])
    AssertSpheresBitwise(serial, two, COMPARED)
    AssertSpheresBitwise(serial, four, COMPARED)
    assert (two["pieces_read"] > 0).all() and (four["pieces_read"] > 0).all()
    step = f"checkpoint_{EVERY:09d}"
    for source, ranks, where in (("two", 4, "two_on_4"), ("two", None, "two_on_1"),
                                 ("four", 2, "four_on_2"), ("serial", 2, "serial_on_2")):
        # Any rank's file, or the step's name without the rank part.
        name = f"{step}.rank1of2.h5" if source == "two" and ranks else f"{step}.h5"
        continued = run(folder, tmp_path / f"{where}.npz", ranks, str(folder / source / name),
                        settings=[restart_options(where)])
        assert int(continued["steps"]) == STEPS, where
        if ranks:
            # Continuing a checkpoint of another rank count, whose merged
            # state every rank loads: the start reads the whole file.
            assert (continued["pieces_read"] == -1).all(), where
        AssertSpheresBitwise(serial, continued, COMPARED)
        # The energies are sums over the ranks' owned spheres and their own
        # running sums of dissipation (the merged ones on rank 0): another
        # partition adds them in another order, so they agree to rounding
        # (measured 1.7e-15 relative; 1e-13 leaves room for the order of
        # ~300 terms, far below any physical difference).
        np.testing.assert_allclose(continued["energies"], two["energies"], rtol=1e-13, atol=0,
                                   err_msg=where)
    # Dissipation before the checkpoint that the merge carried over.
    names = list(two["energy_names"])
    assert two["energies"][names.index("dissipated_damping")] > 0
    assert two["energies"][names.index("dissipated_friction")] > 0
    # The serial run continued from the 2 ranks' files holds at step 980 the
    # rows of the uninterrupted serial run, every column, bit for bit.
    final = f"checkpoint_{2 * EVERY:09d}.h5"
    assert DifferingDatasets(str(folder / "serial" / final), str(folder / "two_on_1" / final),
                             "/Objects/Solver/Strategy/Particles") == []


@needs_mpi
@pytest.mark.parametrize("case", ["inlet", "bonded", "sticky", "lid", "clusters", "clusters_inlet",
                                  "clusters_bonded"])
def test_bodies_continued_on_another_rank_count_are_bitwise_the_uninterrupted_run(tmp_path, case):
    """The bed with an inlet injecting on both sides of the checkpoint (the
    inlets' state alike on every rank; new spheres take keys after every
    merged one), the bonded specimen sliding across the cut (each bond from
    the owner of its first sphere, its law state slot by slot), on a sticky
    floor (the glued spheres and their reference centres from their owners),
    under a FREE_BODY_MOTION lid (its state alike on every rank), the rigid
    clusters rebalanced every 20 steps, without and with the inlet (each
    cluster, its element and centre node from its owner, its members'
    cluster numbers renumbered; a new rank holds a cluster's members
    together): written on 2 ranks, continued on 4 and serially, bitwise the
    uninterrupted run, spheres and clusters."""
    folder = tmp_path / case
    write_case(case, folder)
    whole = run(folder, tmp_path / "whole.npz", 2, settings=[restart_options("first")])
    checkpoint = str(folder / "first" / f"checkpoint_{EVERY:09d}.h5")
    for ranks in (4, None):
        continued = run(folder, tmp_path / f"on_{ranks}.npz", ranks, checkpoint)
        assert int(continued["steps"]) == STEPS
        AssertSpheresBitwise(whole, continued, COMPARED)
        if case.startswith("clusters"):
            assert whole["clusters"].shape == (48, 26)
            np.testing.assert_array_equal(continued["clusters"], whole["clusters"])


@needs_mpi
def test_checkpoint_with_parked_bonds_continues_bitwise_on_the_same_and_other_rank_counts(tmp_path):
    """The parted pair (mpi_dem_case.WriteBondedPair) with a checkpoint at
    step 1200, where each rank holds the broken bond parked (its partner
    sphere beyond the ghost layer: DistributedDem's parked_bonds in its
    file), continued to step 2860, where the spheres touch again: on 2 ranks
    from its own files, and on 4 ranks and serially from the files merged
    (the parked bond merged among the bonds, from the owner of its first
    sphere). Each continued run is bitwise the uninterrupted one and the
    serial one: spheres, the contact force on return, the bond."""
    folder = tmp_path / "pair"
    WriteBondedPair(folder, 2860)
    options = "restart_options=" + json.dumps({"SaveRestart": True, "RestartFrequency": 1200,
                                               "checkpoint_folder": "first"})
    serial = run(folder, tmp_path / "serial.npz", None)
    whole = run(folder, tmp_path / "whole.npz", 2, settings=[options])
    AssertSpheresBitwise(serial, whole, COMPARED)
    np.testing.assert_array_equal(whole["bond_table"], serial["bond_table"])
    for r in (0, 1):
        reader = tessera.CheckpointReader(str(folder / "first" / f"checkpoint_000001200.rank{r}of2.h5"))
        parked = reader.ReadRawBytes("/Objects/Solver/Distributed/parked_bonds/records")
        assert len(parked) > 0, r  # the bond is parked on both ranks
        assert len(reader.ReadRawBytes("/Objects/Solver/Strategy/Bonds/first")) == 0, r
    checkpoint = str(folder / "first" / "checkpoint_000001200.h5")
    for ranks in (2, 4, None):
        continued = run(folder, tmp_path / f"on_{ranks}.npz", ranks, checkpoint)
        assert int(continued["steps"]) == 2860, ranks
        AssertSpheresBitwise(whole, continued, COMPARED)
        np.testing.assert_array_equal(continued["bond_table"], whole["bond_table"])
        np.testing.assert_array_equal(continued["bond_direction"], whole["bond_direction"])
    # They touch again: the bond (its crack opened) pushes them apart.
    assert whole["bond_table"][:, 2:4].tolist() == [[4.0, 1.0]] and whole["bond_table"][0, 4] > 0.0


# ---------------------------------------------------------------- the structure
# The implicit runs below solve with PETSc's CG and Jacobi: MUMPS' distributed
# LU (the decks' direct solver under MPI) schedules its factorization
# dynamically, and two uninterrupted runs of the same deck on 2 ranks differ
# by rounding (1e-13 of the pendulum's displacement over 60 steps), so no
# run, continued or not, could equal another bit for bit with it.
DETERMINISTIC_SOLVER = json.dumps({"solver_type": "petsc", "ksp_type": "cg", "pc_type": "jacobi",
                                   "tolerance": 1e-12})
STRUCTURAL_RUN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mpi_structural_checkpoint_run.py")
KRATOS_CASES = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                             "shared", "kratos_cases"))


def case_copy(tmp_path, name):
    import shutil
    source = os.path.join(KRATOS_CASES, name)
    if not os.path.isdir(source):
        pytest.fail(f"shared case folder missing: {source}")
    return shutil.copytree(source, tmp_path / name)


def run_structure(folder, deck, out, every, where, restart="-", settings=()):
    options = "restart_options=" + json.dumps({"SaveRestart": True, "RestartFrequency": every,
                                               "checkpoint_folder": where})
    RunPython([STRUCTURAL_RUN, folder, deck, out, "MPI", restart, options, *settings], 2, timeout=600)
    return np.load(out)


def continue_on_3_ranks_and_serially(folder, deck, tmp_path, checkpoint, whole, settings):
    """The checkpoint written on 2 ranks (folder/first) continued on 3 ranks
    and serially: the same time and nodes as the uninterrupted run `whole`,
    u and v within 1e-12 of its largest value."""
    options = "restart_options=" + json.dumps({"SaveRestart": False})
    for ranks in (3, None):
        out = tmp_path / f"on_{ranks}.npz"
        RunPython([STRUCTURAL_RUN, folder, deck, out, "MPI" if ranks else "OpenMP",
                   str(folder / "first" / checkpoint), options, *settings], ranks, timeout=600)
        continued = np.load(out)
        assert float(continued["time"]) == float(whole["time"])
        np.testing.assert_array_equal(continued["ids"], whole["ids"])
        for k in ("u", "v"):
            assert relative_difference(continued[k], whole[k]) < 1e-12, (ranks, k)


def assert_structure_continued_bitwise(folder, tmp_path, deck, every, settings=()):
    """The run on 2 ranks with checkpoints every EVERY steps, and the run
    continued from the first one: the same final state, bit for bit, and
    the same files at the second checkpoint."""
    whole = run_structure(folder, deck, tmp_path / "whole.npz", every, "first", settings=settings)
    assert sorted(os.listdir(folder / "first")) == \
        [f"checkpoint_{step:09d}.rank{r}of2.h5" for step in (every, 2 * every) for r in (0, 1)]
    continued = run_structure(folder, deck, tmp_path / "continued.npz", every, "second",
                              str(folder / "first" / f"checkpoint_{every:09d}.rank1of2.h5"), settings)
    assert float(continued["time"]) == float(whole["time"])
    # The continued run began after the first checkpoint: it wrote the second only.
    assert sorted(os.listdir(folder / "second")) == \
        [f"checkpoint_{2 * every:09d}.rank{r}of2.h5" for r in (0, 1)]
    assert np.abs(whole["u"]).max() > 1e-6  # the structure moved
    np.testing.assert_array_equal(continued["ids"], whole["ids"])
    np.testing.assert_array_equal(continued["u"], whole["u"])
    np.testing.assert_array_equal(continued["v"], whole["v"])
    for r in (0, 1):
        name = f"checkpoint_{2 * every:09d}.rank{r}of2.h5"
        assert DifferingDatasets(str(folder / "first" / name), str(folder / "second" / name)) == []
    return whole


@needs_mpi
def test_distributed_explicit_structure_continued_from_checkpoint_is_bitwise_the_uninterrupted_run(tmp_path):
    # Kratos' explicit solid beam (78 triangles, 500 central-difference
    # steps), METIS pieces on 2 ranks: checkpoints at steps 245 and 490.
    folder = case_copy(tmp_path, "sm_explicit_solid_beam")
    whole = assert_structure_continued_bitwise(folder, tmp_path, "explicit_tests/explicit_solid_beam_test_parameters.json",
                                               245)
    assert float(whole["time"]) == pytest.approx(5e-4, rel=1e-9)


def relative_difference(a, b):
    """max |a - b| over max |b|: rounding of another partition's sums."""
    return float(np.abs(a - b).max() / np.abs(b).max())


@needs_mpi
def test_explicit_structure_continued_on_another_rank_count_equals_the_uninterrupted_run(tmp_path):
    """The explicit beam's checkpoint at step 245 of 500 written on 2 ranks
    continued on 4 and serially, and the serial run's continued on 2: the
    rank files merged into the whole structure's state (each node from its
    owner, each element's state from its rank; structural
    resized_checkpoint.py), of which each rank of the continuing run loads
    the METIS piece a fresh start gives it. A distributed explicit run
    equals the serial run to rounding only (the interface sums add a shared
    node's forces in another order), so the continued runs equal the
    uninterrupted ones to rounding: measured max|diff|/max|ref| at step 500
    up to 1.1e-15 (displacement) and 5.0e-14 (velocity), as the
    uninterrupted runs on 2 ranks and serially differ (1.4e-15, 4.5e-14);
    1e-12 leaves room for another order of the sums (a merge that lost the
    restored accelerations, tried by hand, is 1.0e-3 and 1.5e-3 off)."""
    folder = case_copy(tmp_path, "sm_explicit_solid_beam")
    deck = "explicit_tests/explicit_solid_beam_test_parameters.json"
    two = run_structure(folder, deck, tmp_path / "two.npz", 245, "two")
    options = "restart_options=" + json.dumps({"SaveRestart": True, "RestartFrequency": 245,
                                               "checkpoint_folder": "serial"})
    RunPython([STRUCTURAL_RUN, folder, deck, tmp_path / "serial.npz", "OpenMP", "-", options], None,
              timeout=600)
    serial = np.load(tmp_path / "serial.npz")
    assert np.abs(two["u"]).max() > 1e-6  # the structure moved
    uninterrupted = {k: relative_difference(two[k], serial[k]) for k in ("u", "v")}
    assert 0 < uninterrupted["v"] < 1e-12, uninterrupted  # two partitions: rounding apart
    step = "checkpoint_000000245"
    for source, ranks, reference in (("two", 4, two), ("two", None, two), ("serial", 2, serial)):
        where = f"{source}_on_{ranks}"
        name = f"{step}.rank1of2.h5" if source == "two" else f"{step}.h5"
        options = "restart_options=" + json.dumps({"SaveRestart": True, "RestartFrequency": 245,
                                                   "checkpoint_folder": where})
        RunPython([STRUCTURAL_RUN, folder, deck, tmp_path / f"{where}.npz",
                   "MPI" if ranks else "OpenMP", str(folder / source / name), options], ranks,
                  timeout=600)
        continued = np.load(tmp_path / f"{where}.npz")
        assert float(continued["time"]) == float(reference["time"]), where
        np.testing.assert_array_equal(continued["ids"], reference["ids"])
        for k in ("u", "v"):
            assert relative_difference(continued[k], reference[k]) < 1e-12, (where, k)
        # It began after the checkpoint: it wrote the second one only.
        written = [f"{2 * 245:09d}.rank{r}of{ranks}.h5" for r in range(ranks)] if ranks else \
            [f"{2 * 245:09d}.h5"]
        assert sorted(os.listdir(folder / where)) == [f"checkpoint_{w}" for w in written], where
    # The serial run continued from the 2 ranks' files writes at step 490 the
    # uninterrupted serial run's datasets (the same nodes, elements, states).
    final = f"checkpoint_{2 * 245:09d}.h5"
    merged, whole = (tessera.CheckpointReader(str(folder / f / final)) for f in ("two_on_None", "serial"))
    assert merged.ListDatasets("/") == whole.ListDatasets("/")
    for name in ("/ModelParts/Structure/Nodes/Ids", "/ModelParts/Structure/Elements/Ids",
                 "/ModelParts/Structure/Elements/StateOffsets"):
        assert merged.ReadRawBytes(name) == whole.ReadRawBytes(name), name


@needs_mpi
def test_explicit_hexa_with_a_surface_load_continued_on_another_rank_count(tmp_path):
    """Kratos' total-Lagrangian hexa patch turned explicit (300 steps of
    1 ms, checkpoint at 150) with its SurfaceLoadCondition3D4N, which one
    rank holds: written on 2 ranks, continued on 3 and serially (the
    condition merged from its rank and given to the new one a fresh start
    gives it). Measured max|diff|/max|ref| at step 300: 8.4e-16 (u),
    3.0e-15 (v); the uninterrupted runs on 2 ranks and serially differ by
    1.9e-15 and 6.9e-15; 1e-12 as for the beam."""
    folder = case_copy(tmp_path, "sm_patch_tests")
    deck = "patch_test/total_lagrangian/patch_test_3D_tension_hexa_parameters.json"
    settings = ["problem_data.end_time=0.3", 'solver_settings.solver_type="Dynamic"',
                'solver_settings.time_integration_method="explicit"',
                'solver_settings.time_stepping={"time_step": 1e-3}',
                "processes.check_analytic_results_process=[]"]
    whole = run_structure(folder, deck, tmp_path / "whole.npz", 150, "first", settings=settings)
    held = [len(tessera.CheckpointReader(str(folder / "first" / f"checkpoint_000000150.rank{r}of2.h5"))
                .ReadInt64("/ModelParts/Structure/Conditions/Ids")) for r in (0, 1)]
    assert sorted(held) == [0, 1]  # the load condition on one rank
    assert np.abs(whole["u"]).max() > 1e-6  # the load moved the block
    continue_on_3_ranks_and_serially(folder, deck, tmp_path, "checkpoint_000000150.h5", whole, settings)


@needs_mpi
@needs_petsc
def test_implicit_structure_continued_on_another_rank_count_equals_the_uninterrupted_run(tmp_path):
    """The hyperelastic pendulum (total Lagrangian, Newton with Bossak, CG
    and Jacobi to 1e-12 through PETSc) written on 2 ranks at step 10 of 20,
    continued on 3 and serially: the merge as for the explicit beam (the
    Bossak state is the nodal buffer's; the distributed system and its
    numbering are built again for the new pieces). Another partition solves
    other (rounding-different) systems, so the continued runs equal the
    uninterrupted one to rounding: measured max|diff|/max|ref| at step 20
    up to 6.9e-16 (displacement) and 7.5e-15 (velocity), as the
    uninterrupted runs on 2 ranks and serially differ (6.9e-16, 1.1e-14);
    1e-12, as above."""
    folder = case_copy(tmp_path, "sm_pendulus_hyperelastic_TL")
    deck = "pendulus_test/pendulus_TL_test_parameters.json"
    settings = ["problem_data.end_time=1.0", "processes.json_check_process=[]",
                "solver_settings.linear_solver_settings=" + DETERMINISTIC_SOLVER]
    whole = run_structure(folder, deck, tmp_path / "whole.npz", 10, "first", settings=settings)
    assert np.abs(whole["u"]).max() > 1e-2  # the pendulum swung
    continue_on_3_ranks_and_serially(folder, deck, tmp_path, "checkpoint_000000010.h5", whole, settings)


@needs_mpi
@needs_petsc
def test_distributed_implicit_structure_continued_from_checkpoint_is_bitwise_the_uninterrupted_run(tmp_path):
    # Kratos' hyperelastic pendulum (total Lagrangian, Newton with Bossak,
    # CG and Jacobi through PETSc) on 2 ranks, 20 steps of 0.05 s,
    # checkpoints at 10 and 20: the continued run needs the Bossak state
    # (accelerations, the previous step's values) of every rank's piece.
    folder = case_copy(tmp_path, "sm_pendulus_hyperelastic_TL")
    whole = assert_structure_continued_bitwise(folder, tmp_path, "pendulus_test/pendulus_TL_test_parameters.json",
                                               10, ["problem_data.end_time=1.0",
                                                        "processes.json_check_process=[]",
                                                        "solver_settings.linear_solver_settings=" +
                                                        DETERMINISTIC_SOLVER])
    assert float(whole["time"]) == pytest.approx(1.0, rel=1e-9)


# ---------------------------------------------------------------- the coupled explicit run
COUPLED_RUN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mpi_coupled_checkpoint_run.py")


@needs_mpi
@pytest.mark.parametrize("scheme", ["explicit", "explicit_searching", "moreau_jean",
                                    pytest.param("implicit", marks=needs_petsc)])
def test_distributed_coupled_run_continued_from_checkpoint_is_bitwise_the_uninterrupted_run(tmp_path, scheme):
    # The plate struck by 16 spheres (mpi_coupled_case.py) on 2 ranks.
    # Explicit: ADM skin, 300 steps, checkpoints at 140 and 280: the spheres
    # are on the plate (contacts with the skin, histories) at step 140.
    # Searching: the same with the DEM searching every 10 steps at most, so
    # the skin's states go point to point between searches (the continued
    # run takes the whole skin until its first search), and bisecting anew.
    # Moreau-Jean: the explicit plate with the spheres resting on it and the
    # non-smooth DEM, replicated on every rank (its warm-start impulses and
    # boxes in every rank's file).
    # Implicit: the Bossak plate (CG and Jacobi), 30 structural steps of 10 DEM
    # sub-steps, checkpoints at 14 and 28: the continued run needs the
    # Bossak state and the sub-steps' averaged loads of every rank.
    from mpi_coupled_case import (IMPLICIT_STEPS, NLGS_TOLERANCE, STEPS, SetDemSearch, UseMoreauJean,
                                  WriteImplicitPlateCase, WritePlateCase)
    folder = tmp_path / "plate"
    if scheme == "moreau_jean":
        WritePlateCase(folder, resting=True)
        UseMoreauJean(folder, NLGS_TOLERANCE)
        steps, every = STEPS, 140
    elif scheme.startswith("explicit"):
        WritePlateCase(folder, "area_distributed", False, "thesis")
        if scheme == "explicit_searching":
            SetDemSearch(folder, 10, 0.005)
            path = folder / "ProjectParametersDEM.json"
            dem = json.loads(path.read_text())
            dem["mpi_settings"] = {"rebalance_every": 10, "imbalance_threshold": 1.0}
            path.write_text(json.dumps(dem))
        steps, every = STEPS, 140
    else:
        WriteImplicitPlateCase(folder, structural_solver=json.loads(DETERMINISTIC_SOLVER))
        steps, every = IMPLICIT_STEPS, 14

    def run_plate(out, where, restart="-"):
        options = json.dumps({"SaveRestart": True, "RestartFrequency": every, "checkpoint_folder": where})
        RunPython([COUPLED_RUN, folder, tmp_path / out, "MPI", options, restart], 2, timeout=600)
        return np.load(tmp_path / out)

    whole = run_plate("whole.npz", "first")
    assert int(whole["steps"]) == steps
    assert sorted(os.listdir(folder / "first")) == \
        [f"checkpoint_{step:09d}.rank{r}of2.h5" for step in (every, 2 * every) for r in (0, 1)]
    continued = run_plate("continued.npz", "second", str(folder / "first" / f"checkpoint_{every:09d}.h5"))
    assert int(continued["steps"]) == steps
    # The continued run began after the first checkpoint: it wrote the second only.
    assert sorted(os.listdir(folder / "second")) == [f"checkpoint_{2 * every:09d}.rank{r}of2.h5" for r in (0, 1)]
    assert np.abs(whole["structure_DISPLACEMENT"][:, 2]).max() > 1e-4  # the plate was struck
    for name in ("sphere_ids", "sphere_x", "sphere_VELOCITY", "sphere_ANGULAR_VELOCITY",
                 "structure_ids", "structure_DISPLACEMENT", "structure_VELOCITY"):
        np.testing.assert_array_equal(continued[name], whole[name], err_msg=name)
    for r in (0, 1):
        name = f"checkpoint_{2 * every:09d}.rank{r}of2.h5"
        assert DifferingDatasets(str(folder / "first" / name), str(folder / "second" / name)) == []


COUPLED_COMPARED = ("sphere_x", "sphere_VELOCITY", "sphere_ANGULAR_VELOCITY", "structure_DISPLACEMENT",
                    "structure_VELOCITY")


def CheckCoupledContinuedOnOtherRankCounts(tmp_path, folder, every, steps, wider, tolerance,
                                           check_written=True):
    """The coupled case in `folder` run on 2 ranks and serially with a
    checkpoint every `every` steps; the 2 ranks' first checkpoint continued
    on `wider` ranks and serially, the serial one on 2 ranks: each continued
    run of `steps` steps equals its uninterrupted one within `tolerance`
    (max|diff|/max|ref| of COUPLED_COMPARED), as the 2-rank and serial runs
    equal each other; with `check_written`, it wrote the second checkpoint
    only (it began after the first)."""

    def run_plate(out, where, ranks, restart="-"):
        options = json.dumps({"SaveRestart": True, "RestartFrequency": every, "checkpoint_folder": where})
        RunPython([COUPLED_RUN, folder, tmp_path / out, "MPI" if ranks else "OpenMP", options, restart],
                  ranks, timeout=600)
        return np.load(tmp_path / out)

    two, serial = run_plate("two.npz", "two", 2), run_plate("serial.npz", "serial", None)
    assert np.abs(two["structure_DISPLACEMENT"][:, 2]).max() > 1e-4  # the plate was struck
    apart = max(relative_difference(two[k], serial[k]) for k in COUPLED_COMPARED)
    assert 0 < apart < tolerance, apart  # two partitions: rounding apart
    step = f"checkpoint_{every:09d}"
    for source, ranks, reference in (("two", wider, two), ("two", None, two), ("serial", 2, serial)):
        where = f"{source}_on_{ranks}"
        name = f"{step}.rank1of2.h5" if source == "two" else f"{step}.h5"
        continued = run_plate(f"{where}.npz", where, ranks, str(folder / source / name))
        assert int(continued["steps"]) == steps, where
        for k in ("sphere_ids", "structure_ids"):
            np.testing.assert_array_equal(continued[k], reference[k], err_msg=where)
        differences = {k: relative_difference(continued[k], reference[k]) for k in COUPLED_COMPARED}
        print(f"{where}: uninterrupted 2 ranks vs serial {apart:.2g}; continued vs its uninterrupted run "
              f"{differences}")
        for k, difference in differences.items():
            assert difference < tolerance, (where, k)
        if check_written:
            written = [f"{2 * every:09d}.rank{r}of{ranks}.h5" for r in range(ranks)] if ranks \
                else [f"{2 * every:09d}.h5"]
            assert sorted(os.listdir(folder / where)) == [f"checkpoint_{w}" for w in written], where


@needs_mpi
def test_coupled_explicit_run_continued_on_another_rank_count_equals_the_uninterrupted_run(tmp_path):
    """The explicit plate struck by 16 spheres (mpi_coupled_case.py, 300
    steps) with checkpoints at step 140, on 2 ranks and serially; the 2
    ranks' files continued on 4 ranks and serially, the serial file on 2
    ranks (coupling resized_checkpoint.py: the structure's and the DEM's
    merges on their parts of the file; each rank cuts its fresh METIS piece
    of the structure and decomposes the spheres as a start does). The
    distributed coupled run equals the serial run to rounding (interface
    sums in another order), so the continued runs equal the uninterrupted
    ones to rounding: measured max|diff|/max|ref| at step 300 up to 2.8e-16
    (spheres' positions), 1.1e-15 (their velocities), 1.6e-15 (angular
    velocities), 7.5e-16 (plate's displacement) and 3.1e-14 (plate's
    velocity), as the uninterrupted runs on 2 ranks and serially differ
    (2.8e-16, 1.4e-15, 2.6e-15, 6.3e-16, 2.7e-14); 1e-12 leaves room for
    another order of the sums, as for the structure alone above."""
    from mpi_coupled_case import STEPS, WritePlateCase
    folder = tmp_path / "plate"
    WritePlateCase(folder, "area_distributed", False, "thesis")
    CheckCoupledContinuedOnOtherRankCounts(tmp_path, folder, 140, STEPS, 4, 1e-12)


@needs_mpi
def test_coupled_moreau_jean_run_continued_on_another_rank_count_equals_the_uninterrupted_run(tmp_path):
    """The explicit plate with the spheres resting on it and
    moreau_jean_strategy (mpi_coupled_case.WritePlateCase(resting=True),
    UseMoreauJean): the 2 ranks' checkpoint at step
    140 continued on 3 ranks and serially, the serial one on 2 ranks. Every
    rank file holds the whole DEM and skin (replicated), so the merge takes
    them from one file and the structure from its owners; the continued run
    bisects the spheres afresh, and where contact chains cross the new cuts
    the sweeps part from the uninterrupted run's at the NLGS tolerance, as
    the 2-rank and serial runs part (test_mpi_coupled.py: the same bound)."""
    from mpi_coupled_case import MOREAU_JEAN_TOLERANCE, NLGS_TOLERANCE, STEPS, UseMoreauJean, WritePlateCase
    folder = tmp_path / "plate"
    WritePlateCase(folder, resting=True)
    UseMoreauJean(folder, NLGS_TOLERANCE)
    CheckCoupledContinuedOnOtherRankCounts(tmp_path, folder, 140, STEPS, 3, MOREAU_JEAN_TOLERANCE)


@needs_mpi
def test_coupled_run_searching_every_10_steps_continued_on_another_rank_count(tmp_path):
    """The explicit plate with the DEM searching every 10 steps at most and
    rebalancing (as test_distributed_coupled_run_continued_...[explicit_searching]):
    between searches each rank moves the mirrors of its own FE skin nodes and
    reads only the faces it needs, so the ranks' files hold older copies of
    the others' mirrors and faces; the merge takes each mirror from the owner
    of its FE node and the faces' points from the mirrors. Written on 2 ranks
    at step 140 (between searches), continued on 3 and serially: measured
    max|diff|/max|ref| at step 300 up to 1.7e-15 (spheres) and 2.3e-14
    (plate's velocity); a merge taking the walls from one rank (tried by
    hand) is 2.2e-6 and 3.1e-6 off (on 3 ranks, serially); 1e-12 as above."""
    from mpi_coupled_case import STEPS, SetDemSearch, WritePlateCase
    folder = tmp_path / "plate"
    WritePlateCase(folder, "area_distributed", False, "thesis")
    SetDemSearch(folder, 10, 0.005)
    path = folder / "ProjectParametersDEM.json"
    dem = json.loads(path.read_text())
    dem["mpi_settings"] = {"rebalance_every": 10, "imbalance_threshold": 1.0}
    path.write_text(json.dumps(dem))
    options = json.dumps({"SaveRestart": True, "RestartFrequency": 140, "checkpoint_folder": "two"})
    RunPython([COUPLED_RUN, folder, tmp_path / "two.npz", "MPI", options, "-"], 2, timeout=600)
    two = np.load(tmp_path / "two.npz")
    for ranks in (3, None):
        out = tmp_path / f"on_{ranks}.npz"
        RunPython([COUPLED_RUN, folder, out, "MPI" if ranks else "OpenMP", json.dumps({"SaveRestart": False}),
                   str(folder / "two" / "checkpoint_000000140.h5")], ranks, timeout=600)
        continued = np.load(out)
        assert int(continued["steps"]) == STEPS
        for k in ("sphere_ids", "structure_ids"):
            np.testing.assert_array_equal(continued[k], two[k])
        for k in ("sphere_x", "sphere_VELOCITY", "sphere_ANGULAR_VELOCITY", "structure_DISPLACEMENT",
                  "structure_VELOCITY"):
            assert relative_difference(continued[k], two[k]) < 1e-12, (ranks, k)


@needs_mpi
def test_coupled_run_with_the_deck_walls_continued_on_another_rank_count(tmp_path):
    """The explicit plate whose top is the DEM deck's own walls following
    its nodes (mpi_coupled_case.UseDeckWalls: "wall_model_parts", as Kratos'
    CoSimulation decks), the DEM searching every 10 steps and rebalancing;
    checkpoints at step 140 on 2 ranks and serially; the 2 ranks' files
    continued on 3 ranks and serially, the serial file on 2. The merge maps
    each wall node to the FE node it lies on from the saved initial
    coordinates (skin_walls.FollowedNodes, as the run did) and takes it from
    that node's owner. Measured max|diff|/max|ref| at step 300 up to
    2.1e-16 (spheres' positions), 1.5e-15 (velocities), 3.3e-15 (angular
    velocities), 7.6e-16 (plate's displacement), 2.2e-14 (its velocity), as
    the uninterrupted runs on 2 ranks and serially differ (2.1e-16, 2.6e-15,
    4.3e-15, 7.6e-16, 2.0e-14); the walls taken from one rank (tried by
    hand) are 2.5e-6 and 3.6e-6 off (on 3 ranks, serially); 1e-12 as for
    the skin above."""
    from mpi_coupled_case import STEPS, SetDemSearch, UseDeckWalls, WritePlateCase
    folder = tmp_path / "plate"
    WritePlateCase(folder)
    UseDeckWalls(folder)
    SetDemSearch(folder, 10, 0.005)
    path = folder / "ProjectParametersDEM.json"
    dem = json.loads(path.read_text())
    dem["mpi_settings"] = {"rebalance_every": 10, "imbalance_threshold": 1.0}
    path.write_text(json.dumps(dem))
    CheckCoupledContinuedOnOtherRankCounts(tmp_path, folder, 140, STEPS, 3, 1e-12,
                                           check_written=False)


@needs_mpi
def test_coupled_energy_balance_continued_on_another_rank_count_equals_the_uninterrupted_one(tmp_path):
    """The plate's energy balance (energy_output, one sample per step,
    Rayleigh alpha 20 1/s: every term alive; test_mpi_coupled_energy.py)
    written on 2 ranks at step 140 and continued on 3: the samples of the
    continued run's file (the saved ones, then its own) against the
    uninterrupted run's, within 1e-10 of the largest term (issue 42's gate
    for coupled runs against serial ones). The structure's Rayleigh work is
    each rank's running sum: the merge adds them (counted on rank 0 of the
    continued run); a merge that took one rank's sum, tried by hand, is
    off by 1.2e-2 of the largest term. Measured: 0 (the file's 12
    significant digits)."""
    import glob
    from mpi_coupled_case import STEPS, WritePlateCase
    folder = tmp_path / "plate"
    WritePlateCase(folder, energy_samples=STEPS, rayleigh_alpha=20.0)

    def rows():
        (path,) = glob.glob(str(folder / "*_coupled_energy.dat"))
        with open(path) as f:
            return np.array([[float(x) for x in line.split()] for line in f.read().splitlines()[2:]])

    options = json.dumps({"SaveRestart": True, "RestartFrequency": 140, "checkpoint_folder": "two"})
    RunPython([COUPLED_RUN, folder, tmp_path / "two.npz", "MPI", options, "-"], 2, timeout=600)
    whole = rows()
    assert len(whole) == STEPS + 1
    options = json.dumps({"SaveRestart": False})
    RunPython([COUPLED_RUN, folder, tmp_path / "three.npz", "MPI", options,
               str(folder / "two" / "checkpoint_000000140.h5")], 3, timeout=600)
    continued = rows()
    assert continued.shape == whole.shape
    np.testing.assert_array_equal(continued[:, 0], whole[:, 0])  # the same sample times
    assert np.max(np.abs(whole[:, 4])) > 0.0  # the Rayleigh work is a term
    scale = np.max(np.abs(whole[:, 1:-1]))
    difference = float(np.max(np.abs(continued[:, 1:] - whole[:, 1:])) / scale)
    print(f"plate's balance continued on 3 ranks: largest difference of a term or E_T {difference:.3g} "
          "of the largest term")
    assert difference <= 1e-10, difference


@needs_mpi
@needs_petsc
def test_coupled_implicit_run_continued_on_another_rank_count_equals_the_uninterrupted_run(tmp_path):
    """The implicit coupled scheme (mpi_coupled_case.py's Bossak plate, 30
    structural steps of 10 DEM sub-steps, PETSc CG and Jacobi to 1e-12 on
    both sides) with checkpoints at step 14, on 2 ranks and serially; the 2
    ranks' files continued on 3 ranks and serially, the serial file on 2
    ranks. Beyond the explicit run's state, the continued run needs Bossak's
    previous values (the nodal buffer, merged from each node's owner) and
    the loads the last step's sub-steps averaged (DEM_NODAL_FORCE and
    DEM_SURFACE_LOAD of the skin nodes, from their owners); the linear
    system is built again at the first step. Measured max|diff|/max|ref| at
    step 30 up to 9.1e-16 (spheres' positions), 9.9e-15 (velocities),
    1.4e-14 (angular velocities), 1.0e-14 (plate's displacement), 4.7e-14
    (its velocity), as the uninterrupted runs on 2 ranks and serially
    differ (2.1e-15, 1.1e-14, 1.5e-14, 9.1e-15, 4.0e-14); a continued run
    whose averaged loads were zeroed after the load (tried by hand) is
    1.6e-2 off. Tolerance: issue 42's 1e-10 for distributed coupled runs
    against serial ones (test_mpi_coupled_implicit.py), the CG's stopping
    tolerance entering as well as the sums' order."""
    from mpi_coupled_case import IMPLICIT_STEPS, WriteImplicitPlateCase
    folder = tmp_path / "plate"
    WriteImplicitPlateCase(folder, structural_solver=json.loads(DETERMINISTIC_SOLVER))
    CheckCoupledContinuedOnOtherRankCounts(tmp_path, folder, 14, IMPLICIT_STEPS, 3, 1e-10)


@needs_mpi
@pytest.mark.parametrize("case", ["bed", "clusters"])
def test_sigterm_to_one_rank_checkpoints_every_rank_at_the_same_step(tmp_path, case):
    # A batch system's time limit may signal one process only: SIGTERM to
    # rank 1 alone after step 20; both ranks write their file of the same
    # step and stop (exit code 128 + 15), and the run continued from it is
    # bitwise the uninterrupted run (with rigid clusters: theirs too).
    import signal
    import subprocess
    import time
    from tessera.parallel import MpirunCommand, MpirunEnvironment

    folder = tmp_path / case
    write_case(case, folder)
    whole = run(folder, tmp_path / "whole.npz", 2)
    marker = str(tmp_path / "pid")
    environment = dict(MpirunEnvironment(), MPI_CHECKPOINT_MARKER=marker)
    options = "restart_options=" + json.dumps({"SaveRestart": True, "checkpoint_folder": "signal"})
    command = MpirunCommand(2, sys.executable, RUN_SCRIPT, str(folder), str(tmp_path / "stopped.npz"),
                            "MPI", "-", options)
    process = subprocess.Popen(command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
    try:
        deadline = time.monotonic() + 120
        while not os.path.exists(marker + ".1"):
            assert process.poll() is None and time.monotonic() < deadline, "the run ended before step 20"
            time.sleep(0.02)
        with open(marker + ".1") as f:
            os.kill(int(f.read()), signal.SIGTERM)
        output, _ = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode != 0, output
    assert not os.path.exists(tmp_path / "stopped.npz")  # it stopped before the end
    files = sorted(os.listdir(folder / "signal"))
    assert len(files) == 2, (files, output)
    step = int(files[0].split("_")[1].split(".")[0])
    assert files == [f"checkpoint_{step:09d}.rank{r}of2.h5" for r in (0, 1)]
    assert 20 <= step < STEPS
    # Both ranks stopped on the signal (rank 0 never received it).
    assert output.count("signal 15 received") == 2, output
    continued = run(folder, tmp_path / "continued.npz", 2, str(folder / "signal" / files[0]))
    assert int(continued["steps"]) == STEPS
    AssertSpheresBitwise(whole, continued, COMPARED)
    if case == "clusters":
        np.testing.assert_array_equal(continued["clusters"], whole["clusters"])
    print(f"SIGTERM to rank 1 after step 20: both ranks wrote step {step}")


@needs_mpi
def test_tessera_run_under_mpirun_stopped_by_sigterm_exits_143_after_every_rank_wrote(tmp_path):
    # `mpirun -np 2 python3 -m tessera run` of the bed, SIGTERM to both
    # ranks once the loop runs (a periodic checkpoint, every 10 steps, is there):
    # each writes its file of the same step and the run ends as an orderly
    # stop, exit code 128 + 15 through mpirun (no MPI_Abort, no error line),
    # as a batch system expects of a job it may requeue.
    import signal
    import subprocess
    import time
    from tessera.parallel import MpirunCommand, MpirunEnvironment

    folder = tmp_path / "bed"
    WriteBed(folder, steps=100000, keys={
        "parallel_type": "MPI", "restart_options": {
            "SaveRestart": True, "RestartFrequency": 10, "max_files_to_keep": 1,
            "checkpoint_folder": "cp"}})
    command = MpirunCommand(2, sys.executable, "-m", "tessera", "run", str(folder))
    process = subprocess.Popen(command, env=MpirunEnvironment(), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 120
        written = folder / "cp"  # (the periodic files: the latest only)
        while not (written.exists() and any(f.endswith("rank1of2.h5") for f in os.listdir(written))):
            assert process.poll() is None and time.monotonic() < deadline, "the run ended early"
            time.sleep(0.05)
        ranks = subprocess.run(["pgrep", "-f", f"^{sys.executable} -m tessera run {folder}"],
                               capture_output=True, text=True).stdout.split()
        assert len(ranks) == 2, ranks
        for pid in ranks:
            os.kill(int(pid), signal.SIGTERM)
        output, _ = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 128 + signal.SIGTERM, output
    assert "stopped on rank" not in output and "MPI_ABORT" not in output, output
    assert output.count("signal 15 received") == 1, output  # (printed by rank 0)
    import re
    step = re.search(r"checkpoint \S*(checkpoint_\d+)\.rank0of2\.h5 written", output).group(1)
    for r in (0, 1):
        assert (folder / "cp" / f"{step}.rank{r}of2.h5").exists(), (step, os.listdir(folder / "cp"))


@needs_mpi
def test_clusters_on_4_ranks_continued_from_checkpoint_are_bitwise_the_uninterrupted_run(tmp_path):
    # The clusters' case of write_case on 4 ranks (a rank's neighbours on
    # several sides, clusters arriving from each), continued from step 490.
    folder = tmp_path / "clusters"
    write_case("clusters", folder)
    whole = run(folder, tmp_path / "whole.npz", 4, settings=[restart_options("first")])
    continued = run(folder, tmp_path / "continued.npz", 4,
                    str(folder / "first" / "checkpoint_000000490.h5"), settings=[restart_options("second")])
    assert int(continued["steps"]) == STEPS
    AssertSpheresBitwise(whole, continued, COMPARED)
    np.testing.assert_array_equal(continued["clusters"], whole["clusters"])
    for r in range(4):
        name = f"checkpoint_000000980.rank{r}of4.h5"
        for group in ("/ModelParts", "/Objects"):
            assert DifferingDatasets(str(folder / "first" / name), str(folder / "second" / name),
                                     group) == []
