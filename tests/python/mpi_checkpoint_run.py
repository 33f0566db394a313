"""Runs the DEM deck of FOLDER with the given parallel_type, continuing from
the checkpoint RESTART when one is given ("-": a fresh run), with the
command-line settings that follow, and writes, on rank 0, OUT.npz with the
final positions, velocities and angular velocities of every sphere (node ids
ascending, each from the rank that owns it) and the step count.

    [mpirun -np N] python3 mpi_checkpoint_run.py FOLDER OUT.npz OpenMP|MPI RESTART [KEY=VALUE ...]
"""
import sys

import numpy as np

import tessera
import tessera.dem  # noqa: F401  (registers the DEM application)
from tessera.dem import distributed_run
from tessera.parallel import GatherNodalArray
from tessera.project import Project, WorkingDirectory

VARIABLES = ("VELOCITY", "ANGULAR_VELOCITY")


def main(folder, out, parallel_type, restart, *settings):
    project = Project(folder, "ProjectParametersDEM.json",
                      settings=[f'parallel_type="{parallel_type}"', *settings])
    with WorkingDirectory(folder):
        stage = project.Run(restart=None if restart == "-" else restart)
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
        owned = np.isin(node_ids, np.asarray(solver.distributed.OwnedNodeIds(), dtype=np.int64))
        ids, x = GatherNodalArray(communicator, spheres, node_ids[owned], coordinates[owned])
        _, values = distributed_run.GatherOwned(communicator, solver.distributed, spheres, VARIABLES)
        if values is not None:
            values["x"] = x
    if communicator.Rank() == 0:
        np.savez(out, ids=ids, steps=solver.strategy.StepCount(), ranks=communicator.Size(),
                 files=np.array(stage.GetCheckpointFiles()), **values)


if __name__ == "__main__":
    main(*sys.argv[1:])
