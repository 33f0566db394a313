"""Runs the DEM deck of FOLDER (a copy) with the given parallel_type and
EnergyCalculationOption, and writes, on rank 0, OUT.npz with the energies of
the run (stage.GetEnergies(): in a distributed run the global sums) every
EVERY steps from the start, one row per sample in the columns of
dem_graphs_output.ENERGY_COLUMNS, the step of each sample, and for a
distributed run the spheres that changed owner (GlobalMigrations).

    [mpirun -np N] python3 mpi_dem_energy_run.py FOLDER OUT.npz OpenMP|MPI EVERY
"""
import sys

import numpy as np

import tessera.dem  # noqa: F401  (registers the DEM application)
from tessera.dem.dem_graphs_output import ENERGY_COLUMNS
from tessera.project import Project, WorkingDirectory

from mpi_dem_case import RunSampled


def main(folder, out, parallel_type, every):
    every = int(every)
    project = Project(folder, "ProjectParametersDEM.json",
                      settings=[f'parallel_type="{parallel_type}"'])
    samples, steps = [], []
    with WorkingDirectory(folder):
        stage = project.CreateStage()
        stage.Initialize()
        strategy = stage.GetStrategy()

        def sample():
            # GetEnergies is collective in a distributed run: every rank calls it.
            energies = stage.GetEnergies()
            samples.append([energies[k] for k in ENERGY_COLUMNS])
            steps.append(strategy.StepCount())

        RunSampled(stage, sample, every)
    distributed = stage._GetSolver().distributed
    migrations = distributed.GlobalMigrations() if distributed is not None else 0
    if stage.communicator.Rank() == 0:
        np.savez(out, energies=np.array(samples), steps=np.array(steps),
                 ranks=stage.communicator.Size(), columns=np.array(ENERGY_COLUMNS),
                 migrations=migrations)


if __name__ == "__main__":
    main(*sys.argv[1:5])
