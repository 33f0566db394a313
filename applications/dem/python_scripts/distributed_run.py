"""The DEM stage's side of a distributed run ("parallel_type": "MPI", see
docs/user_guide.md "Running on many cores and machines"): the deck's keys
("parallel_type" at the top level of ProjectParametersDEM.json, as an alias
of problem_data.parallel_type, and "mpi_settings"), what refuses to run
distributed (an error naming the key), and the C++ DistributedDem
(applications/dem/parallel/distributed_dem.h) around the explicit strategy.
"""
import tessera

from tessera import _dem

MPI_SETTINGS_DEFAULTS = {"rebalance_every": 1000, "imbalance_threshold": 1.2}
# Top-level keys of ProjectParametersDEM.json that this module reads (the
# DEM parameters' validation leaves them to it).
KEYS = ("parallel_type", "mpi_settings")


def MoveParallelTypeToProblemData(parameters):
    """Kratos' DEM decks keep their keys at the top level: a top-level
    "parallel_type" is the kernel's problem_data.parallel_type."""
    if not parameters.Has("parallel_type"):
        return
    where = parameters.Origin()
    if not parameters["parallel_type"].IsString():
        raise tessera.Error(f"{where}: key 'parallel_type' must be a string (\"OpenMP\" or \"MPI\")")
    value = parameters["parallel_type"].GetString()
    if not parameters.Has("problem_data"):
        parameters.AddValue("problem_data", tessera.Parameters("{}"))
    problem_data = parameters["problem_data"]
    if problem_data.Has("parallel_type"):
        if problem_data["parallel_type"].GetString() != value:
            raise tessera.Error(f"{where}: key 'parallel_type' is \"{value}\" but "
                                f"'problem_data.parallel_type' is "
                                f"\"{problem_data['parallel_type'].GetString()}\"; give one of them")
    else:
        problem_data.AddString("parallel_type", value)


def Settings(parameters):
    """mpi_settings (validated, defaults added) as _dem.DistributedDemSettings."""
    where = parameters.Origin()
    settings = _dem.DistributedDemSettings()
    if not parameters.Has("mpi_settings"):
        return settings
    block = parameters["mpi_settings"]
    for key in block.keys():
        if key not in MPI_SETTINGS_DEFAULTS:
            raise tessera.Error(f"{where}: unknown key 'mpi_settings.{key}'; allowed: "
                                f"{', '.join(MPI_SETTINGS_DEFAULTS)}")
    if block.Has("rebalance_every"):
        if not block["rebalance_every"].IsInt() or block["rebalance_every"].GetInt() < 0:
            raise tessera.Error(f"{where}: key 'mpi_settings.rebalance_every' must be an integer "
                                ">= 0 (steps between imbalance checks; 0: never)")
        settings.rebalance_every = block["rebalance_every"].GetInt()
    if block.Has("imbalance_threshold"):
        value = block["imbalance_threshold"]
        if not value.IsNumber() or value.GetDouble() < 1.0:
            raise tessera.Error(f"{where}: key 'mpi_settings.imbalance_threshold' must be a number "
                                ">= 1 (largest / mean owned spheres that triggers a new bisection)")
        settings.imbalance_threshold = value.GetDouble()
    return settings


def CheckSupported(solver):
    """What the distributed DEM does not do yet, as errors naming the key
    (the C++ Start() checks the strategy's own state as well)."""
    p = solver.parameters
    where = p.Origin()
    prefix = f"{where}: \"parallel_type\": \"MPI\" runs the explicit DEM strategy"

    def refuse(key, why):
        raise tessera.Error(f"{prefix}, but key '{key}' {why}; it does not run distributed yet")

    strategy = p["solver_settings"]["strategy"].GetString()
    if strategy not in ("sphere_strategy", "continuum_sphere_strategy"):
        refuse("solver_settings.strategy", f"is \"{strategy}\" (non-smooth contacts)")
    if strategy == "continuum_sphere_strategy" and p["post_vtk_option"].GetBool():
        # The bonds' VTK file (bond_vtk_output.py) would hold each rank's
        # bonds, ghosts' included.
        refuse("post_vtk_option", "is true with the continuum strategy (the bonds' VTK output)")
    if solver.model.GetModelPart("ClusterPart").NumberOfElements() > 0:
        refuse("ElementType", "gives rigid clusters (ClusterPart)")
    from .dem_graphs_output import ForceIntegrationGroups
    groups = ForceIntegrationGroups(solver.model.GetModelPart("RigidFacePart"))
    if groups:
        # The walls' CONTACT_FORCES are per-rank partial sums, ghosts'
        # contacts included: a force graph would hold one rank's share.
        refuse(f"RigidFacePart.{groups[0].Name}.FORCE_INTEGRATION_GROUP",
               "is set (the wall force graphs)")
    for key in ("PeriodicDomainOption", "CleanIndentationsOption",
                "post_gid_option", "post_hdf5_option"):
        if p[key].GetBool():
            refuse(key, "is true")
    if p["TranslationalIntegrationScheme"].GetString() == "Gear_Predictor_Corrector":
        refuse("TranslationalIntegrationScheme", "is \"Gear_Predictor_Corrector\"")
    if p["Dimension"].GetInt() != 3:
        refuse("Dimension", "is 2")
    if solver.imposed_velocities:
        # Spheres that migrate join the root model part only, not the sub
        # model parts whose nodes the velocities are imposed on.
        raise tessera.Error(f"{prefix}, but sub model parts of SpheresPart impose velocities "
                            "(SubModelPartData IMPOSED_VELOCITY_*_VALUE); imposed sphere "
                            "velocities do not run distributed yet")


def Start(solver, communicator):
    """After the strategy's Initialize on every sphere: the decomposition."""
    distributed = _dem.DistributedDem(solver.strategy, communicator, Settings(solver.parameters))
    if solver.inlets is not None:
        distributed.AdoptInlets(solver.inlets)
    distributed.Start()
    return distributed


def GatherOwned(communicator, distributed, model_part, variables, root=0):
    """(node ids, {name: (n, 3) values}) of the variables named in
    `variables` for every owned sphere of all ranks, on `root`, sorted by node
    id; (None, None) elsewhere."""
    import numpy as np
    from tessera.parallel import GatherNodalArray

    ids = np.asarray(model_part.NodeIds(), dtype=np.int64)
    owned = np.isin(ids, np.asarray(distributed.OwnedNodeIds(), dtype=np.int64))
    result = {}
    gathered_ids = None
    for name in variables:
        values = np.array(model_part.NodalArray(tessera.GetVariable(name)), dtype=float)
        gathered_ids, values = GatherNodalArray(communicator, model_part, ids[owned], values[owned],
                                                root)
        result[name] = values
    if communicator.Rank() != root:
        return None, None
    return gathered_ids, result


def OwnedSpheresVtkOutput(model, settings, solver):
    """vtk_output_process for the spheres of a distributed run: at each output
    each rank writes the spheres it owns (not its ghosts), gathered in the
    sub model part SpheresPart.owned (made again at each output, as spheres
    migrate), as the piece <prefix>SpheresPart_owned_<rank>_<step>.vtu; rank 0
    writes SpheresPart_owned_<step>.pvtu naming all pieces of the step and
    SpheresPart_owned.pvd over them (tessera.output.parallel_vtk)."""
    from tessera.output.vtk_output_process import VtkOutputProcess

    class Process(VtkOutputProcess):
        def PrintOutput(self):
            spheres = self.model_part  # the root: the schedule reads its time
            self.writer = None
            if spheres.HasSubModelPart("owned"):
                spheres.RemoveSubModelPart("owned")
            owned = spheres.CreateSubModelPart("owned")
            owned.AddNodes([int(i) for i in solver.distributed.OwnedNodeIds()])
            owned.AddElements([int(i) for i in solver.distributed.OwnedElementIds()])
            self.writer = tessera.VtkOutput(owned, self.settings)
            super().PrintOutput()

    return Process(model, settings)
