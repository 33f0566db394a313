"""Runs the Moreau-Jean DEM deck of FOLDER with the given parallel_type and
writes, on rank 0, OUT.npz: every sphere's final centre, velocity and
angular velocity (node ids ascending, each from the rank that owns it),
the per-step NLGS iterations and interface contacts (History), and for a
distributed run every rank's ReplicaDigest (the replicas' bits alike) and
the owned spheres and the contacts swept per rank at the end (of the last
step), and each box's balanced load and each rank's weight at the last
bisection; per rank the
loop's wall and CPU
seconds (seconds); the checkpoint files rank 0 wrote (files); with
EnergyCalculationOption the run's energies (energies, by name). RESTART: a
checkpoint to continue ("-" or none: a fresh run); KEY=VALUE settings
follow it.

    [mpirun -np N] python3 mpi_moreau_jean_run.py FOLDER OUT.npz OpenMP|MPI [RESTART [KEY=VALUE ...]]
"""
import sys
import time as clock

import numpy as np

import tessera
import tessera.dem  # noqa: F401  (registers the DEM application)
from tessera.dem import distributed_run
from tessera.project import Project, WorkingDirectory

VARIABLES = ("VELOCITY", "ANGULAR_VELOCITY")
DT = 1e-3
TOLERANCE = 1e-8  # moreau_jean_settings.tolerance (the default)


def moreau_jean(steps, settings=None, keys=None):
    """Deck keys of the runs (test_mpi_moreau_jean.py, the benchmark
    nonsmooth_mpi_benchmark.py): moreau_jean_strategy, Δt DT for `steps`
    steps, "parallel_type" "MPI", `settings` added to moreau_jean_settings
    and `keys` to the deck."""
    solver = {"strategy": "moreau_jean_strategy",
              "material_import_settings": {"materials_filename": "MaterialsDEM.json"},
              "moreau_jean_settings": {"tolerance": TOLERANCE, **(settings or {})}}
    return {"solver_settings": solver, "MaxTimeStep": DT, "FinalTime": steps * DT,
            "parallel_type": "MPI", **(keys or {})}


def main(folder, out, parallel_type, restart="-", *settings):
    project = Project(folder, "ProjectParametersDEM.json",
                      settings=[f'parallel_type="{parallel_type}"', *settings])
    with WorkingDirectory(folder):
        stage = project.CreateStage()
        if restart != "-":
            stage.RestartFrom(restart)
        stage.Initialize()
        start, cpu = clock.perf_counter(), clock.process_time()
        stage.RunSolutionLoop()
        seconds, cpu = clock.perf_counter() - start, clock.process_time() - cpu
        stage.Finalize()
    solver = stage._GetSolver()
    distributed = solver.distributed
    communicator = stage.communicator
    spheres = project.model.GetModelPart("SpheresPart")
    history = solver.strategy.History()
    extra = {"iterations": history["iterations"], "interface": history["interface_contacts"],
             "exchanges": history["exchanges"],
             "contacts": history["contacts"], "steps": solver.strategy.StepCount(),
             "seconds": communicator.GatherDoubles([seconds, cpu], 0),
             "files": np.array(stage.GetCheckpointFiles())}
    if stage.DEM_parameters["EnergyCalculationOption"].GetBool():
        energies = stage.GetEnergies()
        extra["energies"] = np.array([energies[name] for name in sorted(energies)])
    if distributed is None:
        ids = np.asarray(spheres.NodeIds(), dtype=np.int64)
        order = np.argsort(ids)
        values = {"x": np.array([[n.X, n.Y, n.Z] for n in spheres.Nodes])[order]}
        for name in VARIABLES:
            values[name] = np.array(spheres.NodalArray(tessera.GetVariable(name)), dtype=float)[order]
        ids = ids[order]
    else:
        ids, values = distributed_run.GatherOwned(communicator, distributed, spheres, VARIABLES,
                                                  coordinates=True)
        digests = communicator.GatherInts([int(distributed.ReplicaDigest() & 0x7fffffffffffffff)], 0)
        counts = communicator.GatherInts([int(distributed.NumberOfOwned())], 0)
        if values is not None:
            extra.update({"digests": np.array([d[0] for d in digests]),
                          "owned": np.array([c[0] for c in counts]),
                          "rebalances": distributed.Rebalances(),
                          "swept": np.array(distributed.SweptContacts()),
                          "bisection_loads": np.array(distributed.BisectionLoads()),
                          "bisection_weights": np.array(distributed.BisectionWeights())})
    if communicator.Rank() == 0:
        np.savez(out, ids=ids, ranks=communicator.Size(), **values, **extra)


if __name__ == "__main__":
    main(*sys.argv[1:])
