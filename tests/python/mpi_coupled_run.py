"""Runs the coupled DE-FE case in FOLDER with the given parallel_type and
writes, on rank 0, OUT.npz: every sphere's final position, velocity, angular
velocity and displacement (node ids ascending, each from its owner), every
structural node's displacement, velocity and DEM loads (each from its owner),
per step the total force on the structure (Σ DEM_NODAL_FORCE) and the
total contact force on the spheres (Σ CONTACT_FORCES; with an implicit
structure, its average over the step's DEM sub-steps, weighted as the skin's
loads are), the spheres each rank read (-1: the whole sphere file), and
where the coupled energy balance is on, its samples and
which ranks wrote its file. With REACTION_PART (a sub model part of the
structure), per step Σ REACTION over its nodes (each from its owner, ranks
added in order) and the number of spheres. Also the skin's wall faces and,
per rank, the wall faces its last wall search saw (a distributed run
searches the skin near each rank's box only), and per rank the doubles it
sent returning the skin's forces and the number of returns; --whole-skin: every rank
searches the whole skin (the selection off, for comparison), and takes the
whole skin's states at every step. OUT_states.npz (beside OUT): per rank the
skin's state doubles sent and received, the moves of the skin (whole and
point to point), the most doubles one point-to-point move brought, the row
requests' doubles; the DEM's searches and new bisections, and per rank and step the adaptive
search's wall motion since the last search.

    [mpirun -np N] python3 mpi_coupled_run.py FOLDER OUT.npz OpenMP|MPI [REACTION_PART] [--whole-skin]
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


def _NodalSum(part, variable, owned, communicator):
    """Σ `variable` over the nodes of `part` that this rank owns (`owned`: ids,
    None for all), summed over the ranks."""
    ids = np.asarray(part.NodeIds(), dtype=np.int64)
    rows = np.asarray(part.NodeIndices(), dtype=np.int64)
    values = np.array(part.GetRootModelPart().NodalArray(variable), dtype=float)[rows]
    if owned is not None:
        values = values[np.isin(ids, owned)]
    local = values.sum(axis=0)
    return np.array([communicator.SumAll(float(c)) for c in local])


def _AverageSphereForcesOverSubsteps(stage, communicator):
    """Wraps the skin's AccumulateLoads so that Σ CONTACT_FORCES over the
    spheres is averaged with the same weights after each DEM sub-step;
    returns the running sum and the last sub-step's total ((2, 3): the caller
    reads them and zeroes the sum)."""
    average = np.zeros((2, 3))
    accumulate = stage.skin.AccumulateLoads

    def AccumulateLoads(weight):
        accumulate(weight)
        average[1] = _SphereTotal(stage, communicator)
        average[0] += weight * average[1]

    stage.skin.AccumulateLoads = AccumulateLoads
    return average


def _SearchWholeSkin(stage):
    """Every rank's wall search sees the whole skin (as before the
    selection near each rank's box)."""
    create = stage._CreateSkinWalls

    def CreateSkinWalls():
        create()
        stage.GetDEMStage().walls_searched_near_domain.clear()

    stage._CreateSkinWalls = CreateSkinWalls


def main(folder, out, parallel_type, reaction_part=None, whole_skin=False):
    with WorkingDirectory(folder):
        structural = tessera.Parameters.FromFile("ProjectParameters.json")
        structural["problem_data"]["parallel_type"].SetString(parallel_type)
        dem = tessera.Parameters.FromFile("ProjectParametersDEM.json")
        with open("ProjectParametersCoupling.json") as f:
            options = json.load(f)
        model = tessera.Model()
        stage = tessera.coupling.DemStructuresCouplingAnalysis(model, structural, dem, options)
        communicator = stage.GetStructuralStage().communicator
        if whole_skin:
            _SearchWholeSkin(stage)
        stage.Initialize()
        # The skin walls as made (ids, then their nodes' ids, 0 past a
        # triangle's three) and the structure's elements each rank holds.
        skin_walls = np.array([[c.Id] + [n.Id for n in c.GetGeometry()] + [0] * (5 - len(c.GetGeometry()))
                               for c in stage.skin.walls.Conditions], dtype=np.int64)
        structure_elements = [g[0] for g in communicator.GatherInts(
            [int(stage.structure.GetRootModelPart().NumberOfElements())], 0)]
        # The spheres each rank read (-1: the whole sphere file).
        piece = getattr(stage.dem_stage, "spheres_piece", None)
        spheres_read = [g[0] for g in communicator.GatherInts(
            [len(piece.element_ids) if piece is not None else -1], 0)]
        implicit = stage.scheme == "implicit_with_dem_substeps"
        average = _AverageSphereForcesOverSubsteps(stage, communicator) if implicit else None
        owned_fe = None
        if stage.distributed is not None:
            owned_fe = np.asarray(stage.GetStructuralStage()._GetSolver().local_mesh.owned_nodes,
                                  dtype=np.int64)
        reactions, sphere_counts, times, last_substep, wall_motion = [], [], [], [], []
        dem_solver = stage.GetDEMStage()._GetSolver()
        dem_strategy, solve_dem = dem_solver.strategy, dem_solver.SolveSolutionStep

        def SolveDemAndRecord():
            # The adaptive search's wall motion since the last search, as this
            # rank measured it in the DEM step.
            result = solve_dem()
            wall_motion.append(float(getattr(dem_strategy, "WallDisplacementSinceSearch", lambda: 0.0)()))
            return result

        dem_solver.SolveSolutionStep = SolveDemAndRecord
        on_structure, on_spheres = [], []
        while stage.KeepAdvancingSolutionLoop():
            stage.AdvanceInTime()
            stage.InitializeSolutionStep()
            stage.SolveSolutionStep()
            stage.FinalizeSolutionStep()
            stage.OutputSolutionStep()
            times.append(stage.time)
            on_structure.append(np.asarray(stage.skin.TotalForceOnStructure(), dtype=float))
            if implicit:
                on_spheres.append(average[0].copy())
                last_substep.append(average[1].copy())
                average[0] = 0.0
            else:
                on_spheres.append(_SphereTotal(stage, communicator))
            if reaction_part is not None:
                part = model.GetModelPart(f"{stage.structure.Name}.{reaction_part}")
                reactions.append(_NodalSum(part, tessera.REACTION, owned_fe, communicator))
                spheres = model.GetModelPart("SpheresPart")
                distributed_dem = stage.GetDEMStage()._GetSolver().distributed
                local = len(distributed_dem.OwnedNodeIds()) if distributed_dem else spheres.NumberOfNodes()
                sphere_counts.append(communicator.SumAllInt(int(local)))
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
        # (A Moreau-Jean run's DEM is replicated: no ghosts, migrations or
        # search near a rank's box.)
        replicated = distributed is not None and not hasattr(distributed, "GlobalMigrations")
        migrations = int(distributed.GlobalMigrations()) if distributed and not replicated else 0
        walls = model.GetModelPart("RigidFacePart")
        searched = distributed.NumberOfSearchedFaces() if distributed and not replicated \
            else walls.NumberOfConditions()
        # Moreau-Jean: per step the contacts, the sweeps and the contacts
        # exchanged between the ranks after each sweep.
        nonsmooth = {}
        if stage.nonsmooth:
            history = dem_strategy.History()
            nonsmooth = {name: np.asarray(history[name]) for name in
                         ("contacts", "iterations", "interface_contacts")}
        searched_faces = [g[0] for g in communicator.GatherInts([int(searched)], 0)]
        skin_faces = stage.skin.walls.NumberOfConditions()
        # Doubles each rank sent returning the skin's forces, and how many returns.
        sent = [getattr(stage.skin, "force_doubles_sent", 0), getattr(stage.skin, "force_returns", 0)]
        force_messages = np.asarray([g for g in communicator.GatherInts([int(v) for v in sent], 0)],
                                    dtype=np.int64).reshape(-1, 2)
        # The skin's states, per rank (distributed_coupling.py's counters).
        state_names = ("state_doubles_sent", "state_doubles_received", "state_moves", "whole_placements",
                       "partial_placements", "largest_partial_received", "request_doubles_sent")
        state = [int(getattr(stage.skin, name, 0)) for name in state_names]
        state_messages = np.asarray(communicator.GatherInts(state, 0), dtype=np.int64).reshape(-1, len(state))
        searches = int(dem_strategy.NumberOfSearches())
        rebalances = int(distributed.Rebalances()) if distributed else 0
        wall_motion = np.asarray(communicator.GatherDoubles(wall_motion, 0), dtype=float)
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
                 skin_nodes=len(stage.skin.skin_ids), ghosts=ghosts, migrations=migrations,
                 skin_faces=skin_faces, wall_faces=walls.NumberOfConditions(), skin_walls=skin_walls,
                 structure_elements=np.asarray(structure_elements, dtype=np.int64),
                 spheres_read=np.asarray(spheres_read, dtype=np.int64),
                 searched_faces=np.asarray(searched_faces, dtype=np.int64), force_messages=force_messages,
                 substeps=stage.substeps, reactions=np.array(reactions), sphere_counts=np.array(sphere_counts),
                 times=np.array(times), on_spheres_last_substep=np.array(last_substep), **energy,
                 **{f"nonsmooth_{name}": values for name, values in nonsmooth.items()}, **result)
        # Beside OUT (OUT_states.npz), so that OUT compares whole between runs
        # that move the skin differently (--whole-skin).
        np.savez(str(out)[:-4] + "_states.npz" if str(out).endswith(".npz") else f"{out}_states.npz",
                 names=np.asarray(state_names), per_rank=state_messages, searches=searches,
                 wall_motion=wall_motion, rebalances=rebalances)


if __name__ == "__main__":
    arguments = [a for a in sys.argv[1:] if a != "--whole-skin"]
    main(*arguments[:4], whole_skin=len(arguments) < len(sys.argv) - 1)
