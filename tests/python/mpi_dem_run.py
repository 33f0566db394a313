"""Runs the DEM deck of FOLDER (a copy) with the given parallel_type and
writes, on rank 0, OUT.npz with the final positions and velocities of every
sphere (node ids ascending, each from the rank that owns it), the global
kinetic energy, contact count and bond counts (all, intact), and for a distributed run the migrations,
ghost and migration traffic, and per rank the owned node ids at the start and
at the end (to show spheres changed owner).

    [mpirun -np N] python3 mpi_dem_run.py FOLDER OUT.npz OpenMP|MPI
"""
import sys
import time as clock

import numpy as np

import tessera
import tessera.dem  # noqa: F401  (registers the DEM application)
from tessera.dem import distributed_run
from tessera.project import Project, WorkingDirectory

VARIABLES = ("VELOCITY", "ANGULAR_VELOCITY", "DISPLACEMENT", "TOTAL_FORCES")


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
            values[name] = np.array(spheres.NodalArray(tessera.GetVariable(name)), dtype=float)[order]
        ids = ids[order]
        kinetic = strategy.KineticEnergy()
        contacts = strategy.NumberOfParticleContacts()
        bonds = (strategy.NumberOfBonds(), strategy.NumberOfIntactBonds())
    else:
        coordinates = np.array([[n.X, n.Y, n.Z] for n in spheres.Nodes])
        node_ids = np.asarray(spheres.NodeIds(), dtype=np.int64)
        owned = np.isin(node_ids, np.asarray(distributed.OwnedNodeIds(), dtype=np.int64))
        from tessera.parallel import GatherNodalArray
        ids, x = GatherNodalArray(communicator, spheres, node_ids[owned], coordinates[owned])
        _, values = distributed_run.GatherOwned(communicator, distributed, spheres, VARIABLES)
        if values is not None:
            values["x"] = x
        kinetic = distributed.GlobalKineticEnergy()
        contacts = distributed.GlobalNumberOfParticleContacts()
        bonds = (distributed.GlobalNumberOfBonds(), distributed.GlobalNumberOfIntactBonds())
        starts = communicator.GatherInts([int(i) for i in first_owned], 0)
        ends = communicator.GatherInts([int(i) for i in distributed.OwnedNodeIds()], 0)
        ghosts = communicator.GatherDoubles([float(distributed.NumberOfGhosts()),
                                             distributed.GhostDoublesPerStep(),
                                             float(distributed.MigrationDoubles())], 0)
        migrations = distributed.GlobalMigrations()
        # Per rank: the loop's seconds, the strategy's phases, then the
        # distributed work's (benchmarks/dem_mpi_scaling.py prints them).
        phases = {**strategy.GetTimings(), **distributed.GetTimings()}
        timings = communicator.GatherDoubles([seconds, *phases.values()], 0)
        if communicator.Rank() == 0:
            extra = {"migrations": migrations, "ghosts": np.array(ghosts),
                     "timings": np.array(timings), "timing_names": np.array(["loop", *phases]),
                     **{f"start_{r}": np.asarray(s, dtype=np.int64) for r, s in enumerate(starts)},
                     **{f"end_{r}": np.asarray(e, dtype=np.int64) for r, e in enumerate(ends)}}
    if communicator.Rank() == 0:
        np.savez(out, ids=ids, kinetic=kinetic, contacts=contacts, bonds=np.array(bonds), ranks=communicator.Size(),
                 steps=strategy.StepCount(), searches=strategy.NumberOfSearches(),
                 early=strategy.NumberOfEarlySearches(), seconds=seconds,
                 **{name: value for name, value in values.items()}, **extra)


if __name__ == "__main__":
    main(*sys.argv[1:4])
