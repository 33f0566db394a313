"""Runs an implicit structural deck (a copy in FOLDER) with the given
parallel_type and writes, on rank 0, OUT.npz with the final DISPLACEMENT of
every node (ids ascending, each from the rank that owns it), the time reached,
the number of ranks and the linear solver's description, so that a test can
compare a distributed run with the serial one.

    [mpirun -np N] python3 distributed_implicit_run.py FOLDER OUT.npz OpenMP|MPI DECK [KEY=VALUE ...]

KEY=VALUE are Project settings overrides (solver_settings.linear_solver_settings={...}).
"""
import sys

import numpy as np

import tessera
import tessera.structural  # noqa: F401  (registers the structural application)
from tessera.parallel import GatherNodalArray
from tessera.project import Project, WorkingDirectory


def main(folder, out, parallel_type, deck, *overrides):
    project = Project(folder, deck, settings=[f'problem_data.parallel_type="{parallel_type}"', *overrides])
    with WorkingDirectory(folder):
        stage = project.CreateStage()
        stage.Initialize()
        stage.RunSolutionLoop()
        stage.Finalize()
    communicator = stage.communicator
    solver = stage._GetSolver()
    mp = project.model.GetModelPart(solver.model_part_name)
    ids = np.asarray(mp.NodeIds(), dtype=np.int64)
    u = np.array(mp.NodalArray(tessera.DISPLACEMENT), dtype=float)
    local = solver.local_mesh
    owned = np.isin(ids, np.asarray(local.owned_nodes, dtype=np.int64)) if local else np.ones(len(ids), bool)
    owned_ids, owned_u = GatherNodalArray(communicator, mp, ids[owned], u[owned])
    builder = solver.GetSolutionStrategy().GetBuilderAndSolver()
    if communicator.Rank() == 0:
        np.savez(out, ids=owned_ids, u=owned_u, time=mp.ProcessInfo[tessera.TIME], ranks=communicator.Size(),
                 solver=builder.GetLinearSolver())


if __name__ == "__main__":
    main(*sys.argv[1:])
