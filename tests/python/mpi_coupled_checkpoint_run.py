"""Runs the coupled DE-FE case in FOLDER (mpi_coupled_case.py) with the given
parallel_type and the structural deck's "restart_options" set to the JSON
OPTIONS, continuing from the checkpoint RESTART when one is given ("-": a
fresh run), and writes, on rank 0, OUT.npz with every sphere's final
position, velocity and angular velocity and every structural node's
displacement and velocity (node ids ascending, each from its owner), and the
step count.

    [mpirun -np N] python3 mpi_coupled_checkpoint_run.py FOLDER OUT.npz OpenMP|MPI OPTIONS RESTART
"""
import json
import sys

import numpy as np

import tessera
import tessera.coupling
from tessera.parallel import GatherNodalArray
from tessera.project import WorkingDirectory


def GatherOwnedValues(communicator, model_part, owned_ids, names):
    ids = np.asarray(model_part.NodeIds(), dtype=np.int64)
    owned = np.isin(ids, np.asarray(owned_ids, dtype=np.int64)) if owned_ids is not None \
        else np.ones(len(ids), dtype=bool)
    out = {}
    for name in names:
        if name == "x":
            array = np.array([[n.X, n.Y, n.Z] for n in model_part.Nodes])
        else:
            array = np.array(model_part.NodalArray(tessera.GetVariable(name)), dtype=float)
        gathered, out[name] = GatherNodalArray(communicator, model_part, ids[owned], array[owned])
        out["ids"] = gathered
    return out


def main(folder, out, parallel_type, options, restart):
    with WorkingDirectory(folder):
        structural = tessera.Parameters.FromFile("ProjectParameters.json")
        structural["problem_data"]["parallel_type"].SetString(parallel_type)
        if structural.Has("restart_options"):
            structural.RemoveValue("restart_options")
        structural.AddValue("restart_options", tessera.Parameters(options))
        dem = tessera.Parameters.FromFile("ProjectParametersDEM.json")
        with open("ProjectParametersCoupling.json") as f:
            coupling = json.load(f)
        model = tessera.Model()
        stage = tessera.coupling.DemStructuresCouplingAnalysis(model, structural, dem, coupling)
        if restart != "-":
            stage.RestartFrom(restart)
        stage.Run()
    communicator = stage.GetStructuralStage().communicator
    distributed = stage.GetDEMStage()._GetSolver().distributed
    local_mesh = stage.GetStructuralStage()._GetSolver().local_mesh
    spheres = GatherOwnedValues(communicator, model.GetModelPart("SpheresPart"),
                     distributed.OwnedNodeIds() if distributed else None,
                     ("x", "VELOCITY", "ANGULAR_VELOCITY"))
    structure = GatherOwnedValues(communicator, stage.structure.GetRootModelPart(),
                       local_mesh.owned_nodes if local_mesh else None, ("DISPLACEMENT", "VELOCITY"))
    if communicator.Rank() == 0:
        np.savez(out, steps=stage.step, files=np.array(stage.GetCheckpointFiles()),
                 **{f"sphere_{k}": v for k, v in spheres.items()},
                 **{f"structure_{k}": v for k, v in structure.items()})


if __name__ == "__main__":
    main(*sys.argv[1:6])
