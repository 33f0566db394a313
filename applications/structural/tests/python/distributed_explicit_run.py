"""Runs Kratos' explicit solid beam deck (a copy in FOLDER) with the given
parallel_type and writes, on rank 0, OUT.npz with the final DISPLACEMENT of
every node (ids ascending, each from the rank that owns it), the elements
each rank held once the mesh was read and, for the distributed run, every
rank's copy of every node it holds, so that a test can compare the run with
the serial one and the ghosts with their owners.

    [mpirun -np N] python3 distributed_explicit_run.py FOLDER OUT.npz OpenMP|MPI [DECK]

DECK (relative to FOLDER) runs another explicit deck of that folder.
"""
import sys

import numpy as np

import tessera
import tessera.structural  # noqa: F401  (registers the structural application)
from tessera.parallel import GatherNodalArray
from tessera.project import Project, WorkingDirectory

DECK = "explicit_tests/explicit_solid_beam_test_parameters.json"


def main(folder, out, parallel_type, deck=DECK):
    project = Project(folder, deck, settings=[f'problem_data.parallel_type="{parallel_type}"'])
    with WorkingDirectory(folder):
        stage = project.CreateStage()
        # How many elements each rank holds once the mesh is read: a
        # distributed run reads only its piece (ReadModelPartPiece).
        solver, imported = stage._GetSolver(), []
        import_model_part = solver.ImportModelPart

        def ImportAndCount():
            import_model_part()
            imported.append(solver.GetComputingModelPart().NumberOfElements())
        solver.ImportModelPart = ImportAndCount
        stage.Initialize()
        stage.RunSolutionLoop()
        stage.Finalize()
    communicator = stage.communicator
    mp = project.model.GetModelPart("Structure")
    ids = np.asarray(mp.NodeIds(), dtype=np.int64)
    u = np.array(mp.NodalArray(tessera.DISPLACEMENT), dtype=float)
    local = stage._GetSolver().local_mesh
    owned = np.isin(ids, np.asarray(local.owned_nodes, dtype=np.int64)) if local else np.ones(len(ids), bool)
    owned_ids, owned_u = GatherNodalArray(communicator, mp, ids[owned], u[owned])
    all_ids = communicator.GatherInts([int(i) for i in ids], 0)
    all_u = communicator.GatherDoubles(u.ravel().tolist(), 0)
    all_imported = communicator.GatherInts(imported, 0)
    time = mp.ProcessInfo[tessera.TIME]
    if communicator.Rank() == 0:
        np.savez(out, ids=owned_ids, u=owned_u, time=time, ranks=communicator.Size(),
                 imported=np.concatenate([np.asarray(i, dtype=np.int64) for i in all_imported]),
                 **{f"ids_{r}": np.asarray(all_ids[r]) for r in range(len(all_ids))},
                 **{f"u_{r}": np.asarray(all_u[r]).reshape(-1, 3) for r in range(len(all_u))})


if __name__ == "__main__":
    main(*sys.argv[1:5])
