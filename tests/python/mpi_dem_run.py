"""Runs the DEM deck of FOLDER (a copy) with the given parallel_type and
writes, on rank 0, OUT.npz with the final positions and velocities of every
sphere (node ids ascending, each from the rank that owns it), the global
kinetic energy, contact count and bond counts (all, intact), the bond table (BondTable: each bond
once, sorted by its spheres' element ids; its directions apart, with whether the bond was parked
at the end), and for a distributed run the migrations, the bonds parked over the run (parkings),
ghost and migration traffic, and per rank the owned node ids at the start and
at the end (to show spheres changed owner), and per rank the spheres it read
(pieces_read: -1 where it read the whole file). With FREE_BODY_MOTION walls,
each rank's walls (centre, velocity, angular velocity, rotation, contact force
and moment per wall) as walls_<rank>; with sticky walls, the element ids of
the glued spheres of all ranks (owned) as glued, and per rank those it owns at
the start as glued_start_<rank>. With rigid clusters, the state of every
cluster (ClusterState, element ids ascending, each from its owner) as
clusters, and per rank the element ids of the clusters it owns at the start
and at the end as cluster_start_<rank> and cluster_end_<rank>.

    [mpirun -np N] python3 mpi_dem_run.py FOLDER OUT.npz OpenMP|MPI
"""
import sys
import time as clock

import numpy as np

import tessera
import tessera.dem  # noqa: F401  (registers the DEM application)
from tessera.dem import distributed_run
from tessera.project import Project, WorkingDirectory

VARIABLES = ("VELOCITY", "ANGULAR_VELOCITY", "DISPLACEMENT", "TOTAL_FORCES", "RADIUS")


def main(folder, out, parallel_type):
    project = Project(folder, "ProjectParametersDEM.json",
                      settings=[f'parallel_type="{parallel_type}"'])
    with WorkingDirectory(folder):
        stage = project.CreateStage()
        stage.Initialize()
        solver = stage._GetSolver()
        distributed = solver.distributed
        communicator = stage.communicator
        first_owned = list(distributed.OwnedNodeIds()) if distributed else []
        first_glued = OwnedGlued(solver.strategy, distributed)
        first_clusters = OwnedClusterIds(solver.strategy, distributed)
        # The spheres this rank read (-1: the whole file, the start's other way).
        piece = getattr(stage, "spheres_piece", None)
        piece_read = len(piece.element_ids) if piece is not None else -1
        # The clusters this rank holds at the start (from pieces: those it keeps).
        clusters_held = stage.model.GetModelPart("ClusterPart").NumberOfElements()
        # The clusters of this rank's slice of the cluster file (-1: not from pieces).
        clusters_slice = piece.clusters_in_slice if piece is not None else -1
        material_keys = [int(v) for pair in piece.cluster_material_keys for v in pair] \
            if piece is not None else []
        start = clock.perf_counter()
        stage.RunSolutionLoop()
        seconds = clock.perf_counter() - start
        stage.Finalize()
    spheres = project.model.GetModelPart("SpheresPart")
    strategy = solver.strategy
    extra = {}
    if distributed is None:
        ids = np.asarray(spheres.NodeIds(), dtype=np.int64)
        order = np.argsort(ids)
        values = {"x": np.array([[n.X, n.Y, n.Z] for n in spheres.Nodes])[order]}
        for name in VARIABLES:
            # (n, k) as the gathered arrays: RADIUS (n, 1)
            values[name] = np.array(spheres.NodalArray(tessera.GetVariable(name)), dtype=float)[order] \
                .reshape(len(ids), -1)
        ids = ids[order]
        kinetic = strategy.KineticEnergy()
        contacts = strategy.NumberOfParticleContacts()
        bonds = (strategy.NumberOfBonds(), strategy.NumberOfIntactBonds())
    else:
        ids, values = distributed_run.GatherOwned(communicator, distributed, spheres, VARIABLES,
                                                  coordinates=True)
        kinetic = distributed.GlobalKineticEnergy()
        contacts = distributed.GlobalNumberOfParticleContacts()
        bonds = (distributed.GlobalNumberOfBonds(), distributed.GlobalNumberOfIntactBonds())
        extra["parkings"] = distributed.GlobalBondParkings()
        pieces = communicator.GatherInts([piece_read, clusters_held, clusters_slice], 0)
        material_keys = communicator.GatherInts(material_keys, 0)
        starts = communicator.GatherInts([int(i) for i in first_owned], 0)
        ends = communicator.GatherInts([int(i) for i in distributed.OwnedNodeIds()], 0)
        ghosts = communicator.GatherDoubles([float(distributed.NumberOfGhosts()),
                                             distributed.GhostDoublesPerStep(),
                                             float(distributed.MigrationDoubles())], 0)
        migrations = distributed.GlobalMigrations()
        neighbour_boxes = communicator.GatherDoubles([float(r) for r in distributed.NeighbourBoxes()], 0)
        # Per rank: the loop's seconds, the strategy's phases, then the
        # distributed work's (benchmarks/dem_mpi_scaling.py prints them).
        phases = {**strategy.GetTimings(), **distributed.GetTimings()}
        timings = communicator.GatherDoubles([seconds, *phases.values()], 0)
        if communicator.Rank() == 0:
            extra = {**extra, "migrations": migrations, "ghosts": np.array(ghosts),
                     "rebalances": distributed.Rebalances(),
                     "neighbour_migrations": distributed.NeighbourMigrations(),
                     "every_rank_migrations": distributed.EveryRankMigrations(),
                     **{f"neighbour_boxes_{r}": np.asarray(b, dtype=np.int64)
                        for r, b in enumerate(neighbour_boxes)},
                     "timings": np.array(timings), "timing_names": np.array(["loop", *phases]),
                     "pieces_read": np.array([p[0] for p in pieces], dtype=np.int64),
                     "clusters_held": np.array([p[1] for p in pieces], dtype=np.int64),
                     "clusters_slice": np.array([p[2] for p in pieces], dtype=np.int64),
                     **{f"cluster_material_keys_{r}": np.asarray(k, dtype=np.int64)
                        for r, k in enumerate(material_keys)},
                     **{f"start_{r}": np.asarray(s, dtype=np.int64) for r, s in enumerate(starts)},
                     **{f"end_{r}": np.asarray(e, dtype=np.int64) for r, e in enumerate(ends)}}
    table = BondTable(strategy, distributed, communicator)
    if table is not None:
        extra.update(table)
    bodies = communicator.GatherDoubles(FreeWallState(strategy), 0)
    glued = communicator.GatherInts(OwnedGlued(strategy, distributed), 0)
    glued_start = communicator.GatherInts(first_glued, 0)
    cluster_ids = OwnedClusterIds(strategy, distributed)
    cluster_states = communicator.GatherDoubles(ClusterState(strategy, cluster_ids), 0)
    cluster_start = communicator.GatherInts(first_clusters, 0)
    cluster_end = communicator.GatherInts(cluster_ids, 0)
    if communicator.Rank() == 0:
        extra.update({f"walls_{r}": np.asarray(b, dtype=float) for r, b in enumerate(bodies)})
        extra.update({f"glued_start_{r}": np.asarray(g, dtype=np.int64)
                      for r, g in enumerate(glued_start)})
        extra["glued"] = np.sort(np.concatenate([np.asarray(g, dtype=np.int64) for g in glued]))
        if len(strategy.Clusters()) > 0 or any(len(c) for c in cluster_states):
            table = np.concatenate([np.asarray(c, dtype=float) for c in cluster_states])
            table = table.reshape(-1, CLUSTER_DOUBLES)
            extra["clusters"] = table[np.argsort(table[:, 0], kind="stable")]
            extra.update({f"cluster_start_{r}": np.asarray(c, dtype=np.int64)
                          for r, c in enumerate(cluster_start)})
            extra.update({f"cluster_end_{r}": np.asarray(c, dtype=np.int64)
                          for r, c in enumerate(cluster_end)})
        np.savez(out, ids=ids, kinetic=kinetic, contacts=contacts, bonds=np.array(bonds), ranks=communicator.Size(),
                 steps=strategy.StepCount(), searches=strategy.NumberOfSearches(),
                 early=strategy.NumberOfEarlySearches(), seconds=seconds,
                 **{name: value for name, value in values.items()}, **extra)


BOND_COLUMNS = ("state", "opened", "normal_force", "failure_criterion", "sigma", "tau")


def BondTable(strategy, distributed, communicator):
    """On rank 0 (None elsewhere; collective): every bond once as a row of
    the spheres' element ids (first, second) and BOND_COLUMNS (bond_table),
    sorted by the ids; the directions (bond_direction) and whether the bond
    was parked (bond_parked: its direction is the one it had when parked).
    A distributed run's bonds from the owner of the first sphere: its rows'
    bonds and its parked ones."""
    arrays = strategy.BondArrays()
    ids = np.asarray(strategy.Particles.element_id, dtype=np.int64)
    first, second = (np.asarray(arrays[k], dtype=np.int64) for k in ("first", "second"))
    mine = np.ones(len(first), dtype=bool)
    if distributed is not None:
        owned = np.isin(ids, np.asarray(distributed.OwnedElementIds(), dtype=np.int64))
        mine = owned[first]
    parts = [np.column_stack([ids[first][mine], ids[second][mine], np.zeros(int(mine.sum()))] +
                             [np.asarray(arrays[k], dtype=float)[mine] for k in BOND_COLUMNS] +
                             [np.asarray(arrays["direction"], dtype=float).reshape(-1, 3)[mine]])]
    if distributed is not None:
        parked = distributed.ParkedBonds()
        counted = np.asarray(parked["first_owned"], dtype=bool)
        if counted.any():
            parts.append(np.column_stack(
                [np.asarray(parked["first_element"], dtype=float)[counted],
                 np.asarray(parked["second_element"], dtype=float)[counted], np.ones(int(counted.sum()))] +
                [np.asarray(parked[k], dtype=float)[counted] for k in BOND_COLUMNS] +
                [np.asarray(parked["direction"], dtype=float).reshape(-1, 3)[counted]]))
    rows = np.concatenate([p.reshape(-1, 3 + len(BOND_COLUMNS) + 3) for p in parts])
    if distributed is not None:
        width = rows.shape[1]
        gathered = communicator.GatherDoubles(rows.ravel().tolist(), 0)
        if communicator.Rank() != 0:
            return None
        rows = np.concatenate([np.asarray(g, dtype=float).reshape(-1, width) for g in gathered])
    rows = rows[np.lexsort((rows[:, 1], rows[:, 0]))]
    return {"bond_table": np.column_stack([rows[:, :2], rows[:, 3:3 + len(BOND_COLUMNS)]]),
            "bond_parked": rows[:, 2].astype(bool), "bond_direction": rows[:, -3:]}


def FreeWallState(strategy):
    """Per FREE_BODY_MOTION wall: centre, velocity, angular velocity, rotation
    (9), contact force and moment, one list of doubles."""
    state = []
    for body in strategy.FreeWalls():
        for key in ("centre", "velocity", "angular_velocity", "rotation", "contact_force",
                    "contact_moment"):
            state += [float(v) for v in np.asarray(body[key], dtype=float).ravel()]
    return state


# Per cluster (ClusterState): element id, centre, velocity, angular velocity,
# angular momentum, orientation (w, x, y, z), displacement, force, torque.
CLUSTER_COLUMNS = ("element_id", "centre", "velocity", "angular_velocity", "angular_momentum",
                   "orientation", "displacement", "force", "torque")
CLUSTER_DOUBLES = 1 + 3 * 4 + 4 + 3 * 3


def OwnedClusterIds(strategy, distributed):
    """Element ids of the rigid clusters this rank owns (all in a serial run)."""
    if distributed is None:
        return [int(c["element_id"]) for c in strategy.Clusters()]
    return [int(i) for i in distributed.OwnedClusterIds()]


def ClusterState(strategy, ids):
    """The clusters `ids` of the strategy, CLUSTER_COLUMNS each, one list of doubles."""
    wanted = set(ids)
    state = []
    for cluster in strategy.Clusters():
        if int(cluster["element_id"]) not in wanted:
            continue
        for key in CLUSTER_COLUMNS:
            state += [float(v) for v in np.asarray(cluster[key], dtype=float).ravel()]
    return state


def OwnedGlued(strategy, distributed):
    """Element ids of the glued spheres this rank owns (all in a serial run)."""
    ids = [int(g["element_id"]) for g in strategy.GluedParticles()]
    if distributed is None:
        return ids
    owned = set(int(i) for i in distributed.OwnedElementIds())
    return [i for i in ids if i in owned]


if __name__ == "__main__":
    main(*sys.argv[1:4])
