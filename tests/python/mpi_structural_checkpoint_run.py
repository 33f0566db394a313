"""Runs a Kratos structural deck (DECK, relative to its copy in FOLDER) with
the given parallel_type, continuing from the checkpoint RESTART when one is given ("-":
a fresh run), with the command-line settings that follow, and writes, on
rank 0, OUT.npz with the final DISPLACEMENT and VELOCITY of every node (ids
ascending, each from the rank that owns it), the time and the checkpoint
files rank 0 wrote.

    [mpirun -np N] python3 mpi_structural_checkpoint_run.py FOLDER DECK OUT.npz OpenMP|MPI RESTART [KEY=VALUE ...]
"""
import sys

import numpy as np

import tessera
import tessera.structural  # noqa: F401  (registers the structural application)
from tessera.parallel import GatherNodalArray
from tessera.project import Project, WorkingDirectory

def main(folder, deck, out, parallel_type, restart, *settings):
    project = Project(folder, deck, settings=[f'problem_data.parallel_type="{parallel_type}"',
                                              *settings])
    with WorkingDirectory(folder):
        stage = project.Run(restart=None if restart == "-" else restart)
    communicator = stage.communicator
    mp = project.model.GetModelPart("Structure")
    ids = np.asarray(mp.NodeIds(), dtype=np.int64)
    local = stage._GetSolver().local_mesh
    owned = np.isin(ids, np.asarray(local.owned_nodes, dtype=np.int64)) if local else np.ones(len(ids), bool)
    values = np.hstack([np.array(mp.NodalArray(tessera.DISPLACEMENT), dtype=float),
                        np.array(mp.NodalArray(tessera.VELOCITY), dtype=float)])
    owned_ids, owned_values = GatherNodalArray(communicator, mp, ids[owned], values[owned])
    if communicator.Rank() == 0:
        np.savez(out, ids=owned_ids, u=owned_values[:, :3], v=owned_values[:, 3:],
                 time=mp.ProcessInfo[tessera.TIME], files=np.array(stage.GetCheckpointFiles()))


if __name__ == "__main__":
    main(*sys.argv[1:])
