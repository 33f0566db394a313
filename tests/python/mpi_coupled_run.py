"""Runs the coupled DE-FE case in FOLDER with the given parallel_type and
writes, on rank 0, OUT.npz: every sphere's final position, velocity, angular
velocity and displacement (node ids ascending, each from its owner), every
structural node's displacement, velocity and DEM loads (each from its owner),
per step the total force on the structure (Σ DEM_NODAL_FORCE) and the
total contact force on the spheres (Σ CONTACT_FORCES), and where the
coupled energy balance is on, its samples and which ranks wrote its file.

    [mpirun -np N] python3 mpi_coupled_run.py FOLDER OUT.npz OpenMP|MPI
"""
import json
import sys

import numpy as np

import tessera
import tessera.coupling
from tessera.parallel import GatherNodalArray
from tessera.project import WorkingDirectory

SPHERE_VARIABLES = ("VELOCITY", "ANGULAR_VELOCITY", "DISPLACEMENT", "CONTACT_FORCES")
STRUCTURE_VARIABLES = ("DISPLACEMENT", "VELOCITY", "DEM_NODAL_FORCE", "DEM_SURFACE_LOAD")


def _SphereTotal(stage, communicator):
    """Σ CONTACT_FORCES over the spheres (owned ones, ranks added in order)."""
    spheres = stage.model.GetModelPart("SpheresPart")
    force = np.array(spheres.NodalArray(tessera.CONTACT_FORCES), dtype=float)
    distributed = stage.GetDEMStage()._GetSolver().distributed
    if distributed is not None:
        ids = np.asarray(spheres.NodeIds(), dtype=np.int64)
        force = force[np.isin(ids, np.asarray(distributed.OwnedNodeIds(), dtype=np.int64))]
    local = force.sum(axis=0)
    return np.array([communicator.SumAll(float(c)) for c in local])


def main(folder, out, parallel_type):
    with WorkingDirectory(folder):
        structural = tessera.Parameters.FromFile("ProjectParameters.json")
        structural["problem_data"]["parallel_type"].SetString(parallel_type)
        dem = tessera.Parameters.FromFile("ProjectParametersDEM.json")
        with open("ProjectParametersCoupling.json") as f:
            options = json.load(f)
        model = tessera.Model()
        stage = tessera.coupling.DemStructuresCouplingAnalysis(model, structural, dem, options)
        communicator = stage.GetStructuralStage().communicator
        stage.Initialize()
        on_structure, on_spheres = [], []
        while stage.KeepAdvancingSolutionLoop():
            stage.AdvanceInTime()
            stage.InitializeSolutionStep()
            stage.SolveSolutionStep()
            stage.FinalizeSolutionStep()
            stage.OutputSolutionStep()
            on_structure.append(np.asarray(stage.skin.TotalForceOnStructure(), dtype=float))
            on_spheres.append(_SphereTotal(stage, communicator))
        steps = stage.step
        distributed = stage.GetDEMStage()._GetSolver().distributed
        # The coupled energy balance (energy_output): every sample's terms,
        # and which ranks wrote the file.
        energy = {}
        if stage.energy is not None:
            writers = communicator.GatherInts([int(stage.energy.writes_file)], 0)
            energy = {"energy_rows": np.asarray(stage.energy.rows, dtype=float),
                      "energy_path": stage.energy.path,
                      "energy_writers": np.asarray([w[0] for w in writers], dtype=np.int64)}
        # Ghost spheres (their wall contacts must not reach the skin twice) and owner changes.
        ghosts = communicator.SumAllInt(int(distributed.NumberOfGhosts())) if distributed else 0
        migrations = int(distributed.GlobalMigrations()) if distributed else 0
        stage.Finalize()
    spheres = model.GetModelPart("SpheresPart")
    structure = stage.structure.GetRootModelPart()
    sphere_ids = np.asarray(spheres.NodeIds(), dtype=np.int64)
    structure_ids = np.asarray(structure.NodeIds(), dtype=np.int64)
    if distributed is not None:
        owned_spheres = np.isin(sphere_ids, np.asarray(distributed.OwnedNodeIds(), dtype=np.int64))
        local_mesh = stage.GetStructuralStage()._GetSolver().local_mesh
        owned_nodes = np.isin(structure_ids, np.asarray(local_mesh.owned_nodes, dtype=np.int64))
    else:
        owned_spheres = np.ones(len(sphere_ids), dtype=bool)
        owned_nodes = np.ones(len(structure_ids), dtype=bool)
    result = {}
    x = np.array([[n.X, n.Y, n.Z] for n in spheres.Nodes])
    ids, values = GatherNodalArray(communicator, spheres, sphere_ids[owned_spheres], x[owned_spheres])
    result["sphere_ids"], result["sphere_x"] = ids, values
    for name in SPHERE_VARIABLES:
        array = np.array(spheres.NodalArray(tessera.GetVariable(name)), dtype=float)
        _, result[f"sphere_{name}"] = GatherNodalArray(communicator, spheres, sphere_ids[owned_spheres],
                                                       array[owned_spheres])
    for name in STRUCTURE_VARIABLES:
        array = np.array(structure.NodalArray(tessera.GetVariable(name)), dtype=float)
        ids, result[f"structure_{name}"] = GatherNodalArray(communicator, structure,
                                                            structure_ids[owned_nodes], array[owned_nodes])
        result["structure_ids"] = ids
    if communicator.Rank() == 0:
        np.savez(out, ranks=communicator.Size(), steps=steps, on_structure=np.array(on_structure),
                 on_spheres=np.array(on_spheres), delta_time=stage.delta_time,
                 skin_nodes=len(stage.skin.skin_ids), ghosts=ghosts, migrations=migrations, **energy,
                 **result)


if __name__ == "__main__":
    main(*sys.argv[1:4])
