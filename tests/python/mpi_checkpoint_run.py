"""Runs the DEM deck of FOLDER with the given parallel_type, continuing from
the checkpoint RESTART when one is given ("-": a fresh run), with the
command-line settings that follow, and writes, on rank 0, OUT.npz with the
final positions, velocities and angular velocities of every sphere (node ids
ascending, each from the rank that owns it), the step count and the run's
energies (energies, by energy_names); with rigid
clusters, the state of every cluster (mpi_dem_run.ClusterState, element ids
ascending, each from its owner) as clusters, and per rank the element ids of
the clusters its ClusterPart holds after Initialize as cluster_held_<rank>; with
bonds, the bond table (mpi_dem_run.BondTable: bond_table, bond_direction,
bond_parked). With
MPI_CHECKPOINT_MARKER set in the environment, each rank writes its process
id to <MARKER>.<rank> after step MARK_STEP (a test then signals one rank).

    [mpirun -np N] python3 mpi_checkpoint_run.py FOLDER OUT.npz OpenMP|MPI RESTART [KEY=VALUE ...]
"""
import os
import sys
import time

import numpy as np

import tessera
import tessera.dem  # noqa: F401  (registers the DEM application)
from tessera.dem import distributed_run
from tessera.project import Project, WorkingDirectory

VARIABLES = ("VELOCITY", "ANGULAR_VELOCITY")
MARK_STEP = 20


def main(folder, out, parallel_type, restart, *settings):
    project = Project(folder, "ProjectParametersDEM.json",
                      settings=[f'parallel_type="{parallel_type}"', *settings])
    with WorkingDirectory(folder):
        stage = project.CreateStage()
        if restart != "-":
            stage.RestartFrom(restart)
        stage.Initialize()
        held = [int(e.Id) for e in project.model.GetModelPart("ClusterPart").Elements]
        # The spheres this rank read (-1: the whole file).
        piece = getattr(stage, "spheres_piece", None)
        read = len(piece.element_ids) if piece is not None else -1
        marker = os.environ.get("MPI_CHECKPOINT_MARKER")
        if marker:
            # A test's cue: after step MARK_STEP this rank writes its pid to
            # MARKER.<rank> (the signal handlers are in place by then) and
            # waits a second, so that the test's signal arrives while the run
            # still has steps to take (on an idle host the remaining steps
            # could otherwise end before the test has read the marker).
            finalize = stage.FinalizeSolutionStep

            def finalize_and_mark():
                finalize()
                if stage._GetSolver().strategy.StepCount() == MARK_STEP:
                    path = f"{marker}.{stage.communicator.Rank()}"
                    with open(path + ".tmp", "w") as f:
                        f.write(str(os.getpid()))
                    os.replace(path + ".tmp", path)
                    time.sleep(1.0)

            stage.FinalizeSolutionStep = finalize_and_mark
        stage.RunSolutionLoop()
        stage.Finalize()
    solver = stage._GetSolver()
    spheres = project.model.GetModelPart("SpheresPart")
    communicator = stage.communicator
    coordinates = np.array([[n.X, n.Y, n.Z] for n in spheres.Nodes])
    node_ids = np.asarray(spheres.NodeIds(), dtype=np.int64)
    if solver.distributed is None:
        order = np.argsort(node_ids)
        ids, values = node_ids[order], {"x": coordinates[order]}
        for name in VARIABLES:
            values[name] = np.array(spheres.NodalArray(tessera.GetVariable(name)), dtype=float)[order]
    else:
        ids, values = distributed_run.GatherOwned(communicator, solver.distributed, spheres,
                                                  VARIABLES, coordinates=True)
    extra = {}
    if held:
        from mpi_dem_run import CLUSTER_DOUBLES, ClusterState, OwnedClusterIds
        states = communicator.GatherDoubles(
            ClusterState(solver.strategy, OwnedClusterIds(solver.strategy, solver.distributed)), 0)
        helds = communicator.GatherInts(held, 0)
        if communicator.Rank() == 0:
            table = np.concatenate([np.asarray(c, dtype=float) for c in states])
            table = table.reshape(-1, CLUSTER_DOUBLES)
            extra["clusters"] = table[np.argsort(table[:, 0], kind="stable")]
            extra.update({f"cluster_held_{r}": np.asarray(h, dtype=np.int64)
                          for r, h in enumerate(helds)})
    # With bonds, the bond table (mpi_dem_run.BondTable; collective).
    distributed = solver.distributed
    bonded = (distributed.GlobalNumberOfBonds() if distributed is not None
              else solver.strategy.NumberOfBonds()) > 0
    if bonded:
        from mpi_dem_run import BondTable
        table = BondTable(solver.strategy, distributed, communicator)
        if table is not None:
            extra.update(table)
    # The run's energies (EnergyCalculationOption: dissipated ones too), in
    # the order of their names (collective in a distributed run).
    energies = (solver.strategy.GetEnergies() if solver.distributed is None
                else solver.distributed.GlobalEnergies())
    extra["energies"] = np.array([energies[name] for name in sorted(energies)])
    extra["energy_names"] = np.array(sorted(energies))
    reads = communicator.GatherInts([read], 0) if solver.distributed is not None else [[read]]
    extra["pieces_read"] = np.array([r[0] for r in reads], dtype=np.int64)
    if communicator.Rank() == 0:
        np.savez(out, ids=ids, steps=solver.strategy.StepCount(), ranks=communicator.Size(),
                 files=np.array(stage.GetCheckpointFiles()), **values, **extra)


if __name__ == "__main__":
    main(*sys.argv[1:])
