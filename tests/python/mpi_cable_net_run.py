"""Runs Kratos' CoSimulation cable-net deck (a copy of
shared/kratos_cases/cosim_dem_fem_cable_net in FOLDER) with the driver's
problem_data.parallel_type set to PARALLEL_TYPE and its end_time to
END_TIME, and writes, on rank 0,
OUT.npz with the net's final DISPLACEMENT and VELOCITY (node ids ascending,
each from its owner), the spheres' final positions and velocities, the
centre node's (3) DISPLACEMENT_Z at every step (the sum of the owners'
values) and the deck's check count.

    [mpirun -np N] python3 mpi_cable_net_run.py FOLDER OUT.npz OpenMP|MPI END_TIME
"""
import sys

import numpy as np

import tessera
import tessera.coupling
from tessera.project import WorkingDirectory

from mpi_coupled_checkpoint_run import GatherOwnedValues  # (this script's folder)


def main(folder, out, parallel_type, end_time):
    with WorkingDirectory(folder):
        parameters = tessera.Parameters.FromFile("cosim_dem_fem_cable_net_parameters.json")
        parameters["problem_data"]["parallel_type"].SetString(parallel_type)
        parameters["problem_data"]["end_time"].SetDouble(float(end_time))
        model = tessera.Model()
        stage = tessera.coupling.CoSimulationStage(model, parameters)
        stage.Initialize()
        communicator = stage.GetStructuralStage().communicator
        local_mesh = stage.GetStructuralStage()._GetSolver().local_mesh
        owned_fe = None if local_mesh is None else set(int(i) for i in local_mesh.owned_nodes)
        net = model.GetModelPart("Structure")
        centre = []
        while stage.KeepAdvancingSolutionLoop():
            stage.AdvanceInTime()
            stage.InitializeSolutionStep()
            stage.SolveSolutionStep()
            stage.FinalizeSolutionStep()
            stage.OutputSolutionStep()
            mine = net.HasNode(3) and (owned_fe is None or 3 in owned_fe)
            value = net.GetNode(3).GetSolutionStepValue(tessera.DISPLACEMENT_Z) if mine else 0.0
            centre.append(communicator.SumAll(value))
        stage.Finalize()
        checks = [p.checks_done for p in stage.GetStructuralStage()._list_of_processes
                  if type(p).__name__ == "FromJsonCheckResultProcess"]
    distributed = stage.GetDEMStage()._GetSolver().distributed
    spheres = GatherOwnedValues(communicator, model.GetModelPart("SpheresPart"),
                     distributed.OwnedNodeIds() if distributed else None, ("x", "VELOCITY"))
    structure = GatherOwnedValues(communicator, net, local_mesh.owned_nodes if local_mesh else None,
                       ("DISPLACEMENT", "VELOCITY"))
    if communicator.Rank() == 0:
        np.savez(out, ranks=communicator.Size(), centre=np.asarray(centre), checks=np.asarray(checks),
                 **{f"sphere_{k}": v for k, v in spheres.items()},
                 **{f"structure_{k}": v for k, v in structure.items()})


if __name__ == "__main__":
    main(*sys.argv[1:5])
