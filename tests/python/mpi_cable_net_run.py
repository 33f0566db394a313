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
from tessera.parallel import GatherNodalArray
from tessera.project import WorkingDirectory


def _Gathered(communicator, model_part, owned_ids, names):
    ids = np.asarray(model_part.NodeIds(), dtype=np.int64)
    owned = np.isin(ids, np.asarray(owned_ids, dtype=np.int64)) if owned_ids is not None \
        else np.ones(len(ids), dtype=bool)
    values = np.hstack([np.array(model_part.NodalArray(tessera.GetVariable(name)), dtype=float)
                        if name != "x" else np.array([[n.X, n.Y, n.Z] for n in model_part.Nodes]).reshape(-1, 3)
                        for name in names])
    return GatherNodalArray(communicator, model_part, ids[owned], values[owned])


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
    spheres = _Gathered(communicator, model.GetModelPart("SpheresPart"),
                        distributed.OwnedNodeIds() if distributed else None, ("x", "VELOCITY"))
    structure = _Gathered(communicator, net, local_mesh.owned_nodes if local_mesh else None,
                          ("DISPLACEMENT", "VELOCITY"))
    if communicator.Rank() == 0:
        np.savez(out, ranks=communicator.Size(), centre=np.asarray(centre), checks=np.asarray(checks),
                 sphere_ids=spheres[0], sphere_x=spheres[1][:, 0:3], sphere_VELOCITY=spheres[1][:, 3:6],
                 structure_ids=structure[0], structure_DISPLACEMENT=structure[1][:, 0:3],
                 structure_VELOCITY=structure[1][:, 3:6])


if __name__ == "__main__":
    main(*sys.argv[1:5])
