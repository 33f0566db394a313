"""Runs the DEM deck of FOLDER with the given parallel_type and writes, on
rank 0, OUT.npz with the walls' nodal contact results (RigidFacePart, in node
id order) every EVERY steps from the start: one array per variable of
WALL_VARIABLES, one row per sample, and the step of each sample. In a
distributed run the deck must ask for the global wall results (a
FORCE_INTEGRATION_GROUP wall part or the walls' Post* flags with GiD/HDF5
output); the script checks that the stage made them.

    [mpirun -np N] python3 mpi_dem_walls_run.py FOLDER OUT.npz OpenMP|MPI EVERY
"""
import sys

import numpy as np

import tessera
import tessera.dem  # noqa: F401  (registers the DEM application)
from tessera.project import Project, WorkingDirectory

from mpi_dem_case import RunSampled

WALL_VARIABLES = ("CONTACT_FORCES", "ELASTIC_FORCES", "TANGENTIAL_ELASTIC_FORCES", "DEM_PRESSURE",
                  "SHEAR_STRESS", "DEM_NODAL_AREA")


def main(folder, out, parallel_type, every):
    every = int(every)
    project = Project(folder, "ProjectParametersDEM.json",
                      settings=[f'parallel_type="{parallel_type}"'])
    samples = {name: [] for name in WALL_VARIABLES}
    steps = []
    with WorkingDirectory(folder):
        stage = project.CreateStage()
        stage.Initialize()
        solver = stage._GetSolver()
        if parallel_type == "MPI" and not solver.global_wall_results:
            raise tessera.Error("the deck does not ask for the walls' global results")
        strategy = stage.GetStrategy()
        walls = stage.model.GetModelPart("RigidFacePart")
        order = np.argsort(np.asarray(walls.NodeIds(), dtype=np.int64), kind="stable")

        def sample():
            for name in WALL_VARIABLES:
                values = np.array(walls.NodalArray(tessera.GetVariable(name)), dtype=float)
                samples[name].append(values[order])
            steps.append(strategy.StepCount())

        RunSampled(stage, sample, every)
    if stage.communicator.Rank() == 0:
        np.savez(out, steps=np.array(steps), ranks=stage.communicator.Size(),
                 **{name: np.array(values) for name, values in samples.items()})


if __name__ == "__main__":
    main(*sys.argv[1:5])
