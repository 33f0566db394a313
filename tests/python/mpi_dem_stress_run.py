"""Runs the DEM deck of FOLDER (a copy) with DEM_STRESS_TENSOR declared on
the sphere nodes (as a script does before Initialize) and the given
parallel_type, and writes, on rank 0, OUT.npz with every sphere's node id
(ascending) and tensor (n, 3, 3), each from the rank that owns it, and the
global contact and bond counts.

    [mpirun -np N] python3 mpi_dem_stress_run.py FOLDER OUT.npz OpenMP|MPI
"""
import sys

import numpy as np

import tessera
import tessera.dem  # noqa: F401  (registers the DEM application)
from tessera.dem.dem_analysis_stage import DEMSolver
from tessera.parallel import GatherNodalArray
from tessera.project import Project, WorkingDirectory


def main(folder, out, parallel_type):
    add_variables = DEMSolver.AddVariables

    def AddVariables(solver):
        add_variables(solver)
        solver.model.GetModelPart("SpheresPart").AddNodalSolutionStepVariable(
            tessera.DEM_STRESS_TENSOR)
    DEMSolver.AddVariables = AddVariables
    project = Project(folder, "ProjectParametersDEM.json",
                      settings=[f'parallel_type="{parallel_type}"'])
    with WorkingDirectory(folder):
        stage = project.CreateStage()
        stage.Initialize()
        stage.RunSolutionLoop()
        stage.Finalize()
    solver = stage._GetSolver()
    distributed, communicator = solver.distributed, stage.communicator
    spheres = project.model.GetModelPart("SpheresPart")
    ids = np.asarray(spheres.NodeIds(), dtype=np.int64)
    tensors = np.array([np.asarray(n.GetSolutionStepValue(tessera.DEM_STRESS_TENSOR)).ravel()
                        for n in spheres.Nodes]).reshape(-1, 9)
    if distributed is None:
        order = np.argsort(ids)
        ids, tensors = ids[order], tensors[order]
        counts = (solver.strategy.NumberOfParticleContacts(), solver.strategy.NumberOfWallContacts(),
                  solver.strategy.NumberOfBonds(), solver.strategy.NumberOfIntactBonds())
    else:
        owned = np.isin(ids, np.asarray(distributed.OwnedNodeIds(), dtype=np.int64))
        ids, tensors = GatherNodalArray(communicator, spheres, ids[owned], tensors[owned])
        counts = (distributed.GlobalNumberOfParticleContacts(), -1,
                  distributed.GlobalNumberOfBonds(), distributed.GlobalNumberOfIntactBonds())
    if communicator.Rank() == 0:
        np.savez(out, ids=ids, tensors=tensors.reshape(-1, 3, 3), counts=np.array(counts),
                 ranks=communicator.Size())


if __name__ == "__main__":
    main(*sys.argv[1:4])
