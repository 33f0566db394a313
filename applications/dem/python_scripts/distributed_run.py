"""The DEM stage's side of a distributed run ("parallel_type": "MPI", see
docs/user_guide.md "Running on many cores and machines"): the deck's keys
("parallel_type" at the top level of ProjectParametersDEM.json, as an alias
of problem_data.parallel_type, and "mpi_settings"), what refuses to run
distributed (an error naming the key), the C++ DistributedDem
(applications/dem/parallel/distributed_dem.h) around the explicit strategy,
MoreauJeanRun around the non-smooth one (DistributedMoreauJean,
distributed_moreau_jean.h: every rank holds every sphere, the NLGS sweeps
are split; its checkpoints hold the boxes), and the output of a distributed
run: owned spheres' VTK pieces, GiD and HDF5 files merged on rank 0
(MergedSpheresOutput), the walls written once by rank 0
(GiD, HDF5 and VTK), their contact results and force graphs from the global
sums (NeedsGlobalWallResults).
"""
import json
import mmap
import os
import re

import tessera

from tessera import _dem
from tessera.output import ScheduledOutputProcess

MPI_SETTINGS_DEFAULTS = {"rebalance_every": 1000, "imbalance_threshold": 1.2, "balance": "count",
                         "read": "pieces"}
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
    ReadMode(parameters)
    if block.Has("balance"):
        value = block["balance"]
        if not value.IsString() or value.GetString() not in ("count", "time", "contacts"):
            raise tessera.Error(f"{where}: key 'mpi_settings.balance' must be \"count\" (equal owned "
                                "spheres), \"time\" (shares by each rank's measured speed) or "
                                "\"contacts\" (moreau_jean_strategy: equal contacts to sweep), got "
                                f"{value.WriteJsonString()}")
        settings.balance = value.GetString()
    return settings


def ReadMode(parameters):
    """mpi_settings.read: "pieces" (each rank reads the spheres it keeps,
    spheres_piece.h) or "whole" (every rank reads every sphere, initialises
    them all and keeps its own: the deck must fit one process)."""
    if not parameters.Has("mpi_settings") or not parameters["mpi_settings"].Has("read"):
        return MPI_SETTINGS_DEFAULTS["read"]
    value = parameters["mpi_settings"]["read"]
    if not value.IsString() or value.GetString() not in ("pieces", "whole"):
        raise tessera.Error(f"{parameters.Origin()}: key 'mpi_settings.read' must be \"pieces\" (each "
                            "rank reads the spheres it keeps) or \"whole\" (every rank reads the whole "
                            f"sphere file), got {value.WriteJsonString()}")
    return value.GetString()


def _FileHolds(path, block):
    """Whether the .mdpa file at path has a block `block` ("Elements":
    with at least one line; "SubModelPart": any). A GiD project writes its
    clusters' and inlets' files even where they hold none."""
    inside = False
    with open(path) as text:
        for line in text:
            words = line.split("//", 1)[0].split()
            if not words:
                continue
            if words[0] == "Begin" and len(words) > 1 and words[1] == block:
                if block == "SubModelPart":
                    return True
                inside = True
            elif words[0] == "End":
                inside = False
            elif inside:
                return True
    return False


def PieceReadRefusal(stage):
    """Why the ranks of this distributed run read the whole sphere file (a
    key or a file), or None: each reads its piece (ReadSpheresPieces)."""
    p = stage.DEM_parameters
    if ReadMode(p) == "whole":
        return "key 'mpi_settings.read' is \"whole\""
    strategy = p["solver_settings"]["strategy"].GetString()
    if strategy not in ("sphere_strategy", "continuum_sphere_strategy"):
        return f"key 'solver_settings.strategy' is \"{strategy}\""
    if getattr(stage, "_resized_from", None) is not None:
        return "the run continues a checkpoint of another rank count"
    return None


def HoldsClusters(stage):
    """Whether the deck's cluster file holds Cluster3D elements."""
    clusters = f"{stage.problem_name}DEM_Clusters.mdpa"
    return os.path.isfile(clusters) and _FileHolds(clusters, "Elements")


def _LargestInletRadius(stage):
    """The largest radius the deck's inlets inject (0 without inlets), from
    the inlet file read on its own: the ghost layer of the pieces reaches
    the spheres to come, as DistributedDem.Start's does."""
    p = stage.DEM_parameters
    path = f"{stage.problem_name}DEM_Inlet.mdpa"
    if not p["dem_inlet_option"].GetBool() or not os.path.isfile(path) or \
            not _FileHolds(path, "SubModelPart"):
        return 0.0
    from .inlet_settings import RadiusTables
    inlets = tessera.Model().CreateModelPart("DEMInletPart")
    tessera.ModelPartIO(path).ReadModelPart(inlets)
    try:
        return _dem.LargestInletRadius(inlets, RadiusTables(p))
    except tessera.Error as error:
        raise tessera.Error(f"{path}: {error}") from None


def _LargestBondRange(stage, path):
    """The largest BOND_RANGE_BETA the deck gives (-1 where none): the
    materials file's, any entry, and the sphere file's Properties' (a legacy
    deck's), so that a piece reaches the longest bond the strategy can make
    (spheres_piece.h, PieceBonds). Found before the materials are assigned."""
    ranges = [-1.0]

    def walk(value):
        if isinstance(value, dict):
            for key, item in value.items():
                if key == "BOND_RANGE_BETA" and isinstance(item, (int, float)):
                    ranges.append(float(item))
                else:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    settings = stage.DEM_parameters["solver_settings"]["material_import_settings"]
    materials = settings["materials_filename"].GetString()
    if os.path.isfile(materials):
        with open(materials) as text:
            walk(json.load(text))
    if path and os.path.getsize(path) > 0:
        with open(path, "rb") as text, mmap.mmap(text.fileno(), 0, access=mmap.ACCESS_READ) as data:
            for match in re.finditer(rb"\bBOND_RANGE_BETA[ \t]+(\S+)", data):
                try:
                    ranges.append(float(match.group(1)))
                except ValueError:
                    pass  # the reader names the bad value
    return max(ranges)


def _WallNodesBox(stage):
    """(low, high) of the wall file's nodes, read on their own ahead of the
    spheres (infinite and empty without walls)."""
    inf = float("inf")
    path = f"{stage.problem_name}DEM_FEM_boundary.mdpa"
    if not os.path.isfile(path):
        return [inf] * 3, [-inf] * 3
    walls = tessera.Model().CreateModelPart("RigidFacePart")
    tessera.ModelPartIO(path).ReadModelPart(walls)
    points = [n.Coordinates() for n in walls.Nodes]
    return ([min((x[k] for x in points), default=inf) for k in range(3)],
            [max((x[k] for x in points), default=-inf) for k in range(3)])


def ReadSpheresPieces(stage, path, offsets, clusters=None):
    """Each rank reads its piece of the sphere file (spheres_piece.h) into
    SpheresPart; the piece is kept for the solver (materials, time step,
    bounding box, DistributedDem.StartFromPiece). With clusters, `clusters`
    is (read_walls, path, assign_materials): read_walls(node, element,
    condition) reads the walls' file once the sphere file's largest ids are
    known and returns the cluster file's id offsets and the largest ids so
    far; the cluster file at `path` is read in pieces into ClusterPart,
    assign_materials() after each read. Returns the sphere file's and the
    cluster file's largest ids (node, element, condition)."""
    p = stage.DEM_parameters
    absolute = p["DeltaOption"].GetString() == "Absolute"
    tolerance = p["SearchTolerance"].GetDouble() if absolute else 0.0
    periodic = {}
    if p["PeriodicDomainOption"].GetBool():
        # The strategy's periodic domain: the bounding box (2D discs: x and y only).
        periodic = dict(periodic_axes=[True, True, p["Dimension"].GetInt() != 2],
                        periodic_low=[p[f"BoundingBoxMin{a}"].GetDouble() for a in "XYZ"],
                        periodic_high=[p[f"BoundingBoxMax{a}"].GetDouble() for a in "XYZ"])
        if p["AutomaticBoundingBoxOption"].GetBool():
            # The box of every sphere's centre and wall node, scaled
            # (DEMSolver._AutomaticBoundingBox): the walls' from their file.
            low, high = _WallNodesBox(stage)
            periodic.update(automatic_factor=p["BoundingBoxEnlargementFactor"].GetDouble(),
                            automatic_low=low, automatic_high=high)
    bonds = {}
    if p["solver_settings"]["strategy"].GetString() == "continuum_sphere_strategy":
        bonds = dict(bonds_made=True, largest_bond_range=_LargestBondRange(stage, path),
                     kratos_broken_bonds=p["BrokenBonds"].GetString() == "kratos")
    piece = _dem.ReadSpheresPiece(path, stage.model.GetModelPart("SpheresPart"), stage.communicator,
                                  tolerance, *offsets, **periodic, **bonds,
                                  least_largest_radius=_LargestInletRadius(stage),
                                  removes_embedded=p["RemoveBallsInEmbeddedOption"].GetBool(),
                                  **_ClusterPieces(stage, clusters))
    stage.spheres_piece = piece
    return ((piece.max_node_id, piece.max_element_id, piece.max_condition_id),
            (piece.clusters_max_node_id, piece.clusters_max_element_id,
             piece.clusters_max_condition_id))


def _ClusterPieces(stage, clusters):
    """ReadSpheresPiece's keyword arguments for the cluster file (none without)."""
    if clusters is None:
        return {}
    read_walls, path, assign_materials = clusters
    return dict(read_next_files=read_walls, clusters_path=path,
                clusters=stage.model.GetModelPart("ClusterPart"),
                assign_cluster_materials=assign_materials)


def AllIds(communicator, ids):
    """Every rank's ids (integers below 2**53), on every rank."""
    gathered = communicator.GatherInts(list(ids), 0)
    merged = [float(i) for part in gathered for i in part] if communicator.Rank() == 0 else []
    return [int(i) for i in communicator.BroadcastDoubles(merged, 0)]


class GlobalTimeStepEstimate:
    """A piece's time-step estimate made the run's: the least critical step
    and contact time over the ranks, the shortest contact's pair as the rank
    that holds it (the lowest such rank) says."""
    def __init__(self, communicator, estimate):
        self.critical_time_step = communicator.MinAll(estimate.critical_time_step)
        self.contact_time = communicator.MinAll(estimate.contact_time)
        self.reference_speed = estimate.reference_speed
        rank, ranks = communicator.Rank(), communicator.Size()
        holder = min(communicator.MinAllInt(rank if estimate.contact_time == self.contact_time else ranks),
                     ranks - 1)
        self.contact_time_pair = communicator.BroadcastString(
            estimate.contact_time_pair if rank == holder else "", holder)


def CheckSupported(solver):
    """What the distributed DEM does not do yet, as errors naming the key
    (the C++ Start() checks the strategy's own state as well)."""
    p = solver.parameters
    where = p.Origin()
    prefix = f"{where}: \"parallel_type\": \"MPI\" runs the DEM strategies"

    def refuse(key, why):
        raise tessera.Error(f"{prefix}, but key '{key}' {why}; it does not run distributed yet")

    strategy = p["solver_settings"]["strategy"].GetString()
    if strategy not in ("sphere_strategy", "continuum_sphere_strategy", "moreau_jean_strategy"):
        refuse("solver_settings.strategy", f"is \"{strategy}\"")
    # (CleanIndentationsOption runs: every rank shrinks every sphere at the
    # start, before the decomposition, as the serial run does.)


def RejectPiecewiseOutput(processes):
    """The output processes of a deck's lists write each rank's piece of their
    model part; a DEM root's piece holds the rank's ghosts (spheres) or every
    wall, so the pieces would repeat them: an error naming the process, with
    the DEM's own output keys, which write each sphere once."""
    from tessera.output.gid_output_process import GiDOutputProcess
    from tessera.output.hdf5_output_process import Hdf5OutputProcess
    from tessera.output.vtk_output_process import VtkOutputProcess

    for process in processes:
        if isinstance(process, (VtkOutputProcess, GiDOutputProcess, Hdf5OutputProcess)):
            root = process.model_part.GetRootModelPart().Name
            if root in ("SpheresPart", "RigidFacePart", "ClusterPart", "DEMInletPart"):
                raise tessera.Error(f"{type(process).__name__} of '{process.model_part.FullName()}' in a "
                                    "distributed (\"parallel_type\": \"MPI\") DEM run would write every "
                                    "rank's ghosts or walls again; use the DEM deck's post_vtk_option, "
                                    "post_gid_option or post_hdf5_option, which write each sphere once")


class MoreauJeanRun:
    """The distributed side of a Moreau-Jean run (_dem.DistributedMoreauJean,
    applications/dem/parallel/distributed_moreau_jean.h): every rank holds
    every sphere, the NLGS sweeps are split by the ranks' boxes, and a
    sphere is owned, for output, by the rank whose box holds its centre. The
    methods the stage calls on DistributedDem, where they apply."""

    def __init__(self, solver, communicator):
        self.strategy = solver.strategy
        self.spheres = solver.model.GetModelPart("SpheresPart")
        self.split = _dem.DistributedMoreauJean(solver.strategy, communicator,
                                                Settings(solver.parameters))
        self.split.Start()

    def RefreshGhosts(self):
        """After each step (the replicas need no refresh): the rebalancing check."""
        self.split.AfterStep()

    def SaveCheckpoint(self, writer, group):
        """The boxes and counters (the strategy's state is saved as a serial
        run's: every rank holds all of it)."""
        self.split.SaveCheckpoint(writer, group)

    def LoadCheckpoint(self, reader, group):
        """After the strategy's state: the boxes as saved, so the run sweeps
        as the uninterrupted one; the spheres' owners from them."""
        self.split.LoadCheckpoint(reader, group)
        self._SetOwnership()

    def Restart(self):
        """After loading the serial state (a serial checkpoint, or the rank
        files of another rank count, resized_checkpoint.py): boxes bisected
        from it, as a start does."""
        self.split.Start()
        self._SetOwnership()

    def _SetOwnership(self):
        from tessera.parallel import SetNodeOwnership
        SetNodeOwnership(self.spheres, self.OwnedNodeIds)

    def OwnedElementIds(self):
        return self.split.OwnedElementIds()

    def OwnedNodeIds(self):
        spheres = self.spheres
        return [spheres.GetElement(int(e)).GetGeometry()[0].Id for e in self.split.OwnedElementIds()]

    def NumberOfOwned(self):
        return self.split.NumberOfOwned()

    def NumberOfGhosts(self):
        return 0

    def GlobalKineticEnergy(self):
        return self.strategy.KineticEnergy()  # every rank holds every sphere

    def GlobalEnergies(self):
        return self.strategy.GetEnergies()  # every rank holds every sphere and contact

    def ReplicaDigest(self):
        return self.split.ReplicaDigest()

    def Rebalances(self):
        return self.split.Rebalances()

    def SweptContacts(self):
        """The contacts each rank swept in the last step."""
        return self.split.SweptContacts()

    def BisectionLoads(self):
        """Each box's share of the balanced loads at the last bisection."""
        return self.split.BisectionLoads()

    def BisectionWeights(self):
        """The ranks' weights at the last bisection (empty: equal shares)."""
        return self.split.BisectionWeights()

    def WriteGlobalWallResults(self):
        pass  # every rank holds every wall contact


def StartMoreauJean(solver, communicator):
    """After the Moreau-Jean strategy's Initialize on every sphere: the split
    of its sweeps over the ranks (MoreauJeanRun)."""
    run = MoreauJeanRun(solver, communicator)
    run._SetOwnership()
    return run


def Start(solver, communicator, restored=False):
    """After the strategy's Initialize on every sphere: the decomposition
    (restored: after loading the whole state merged from a checkpoint of
    another rank count, resized_checkpoint.py)."""
    distributed = _dem.DistributedDem(solver.strategy, communicator, Settings(solver.parameters))
    if solver.inlets is not None:
        distributed.AdoptInlets(solver.inlets)
    piece = solver._Piece()
    if piece is not None:
        distributed.StartFromPiece(piece)
    else:
        distributed.Start(restored)
    near_domain = getattr(solver.stage, "walls_searched_near_domain", [])
    if near_domain:
        # A coupled structure's skin: each rank searches the faces near its box only.
        walls = solver.model.GetModelPart("RigidFacePart")
        ids = [c.Id for name in near_domain for c in walls.GetModel().GetModelPart(name).Conditions]
        distributed.SearchWallsNearDomain(ids)
    from tessera.parallel import SetNodeOwnership
    SetNodeOwnership(solver.model.GetModelPart("SpheresPart"), distributed.OwnedNodeIds)
    return distributed


def GatherOwned(communicator, distributed, model_part, variables, root=0, coordinates=False):
    """(node ids, {name: (n, 3) values}) of the variables named in
    `variables` for every owned sphere of all ranks, on `root`, sorted by node
    id; (None, None) elsewhere. With `coordinates` the current coordinates
    too, as "x"."""
    import numpy as np
    from tessera.parallel import GatherNodalArray

    ids = np.asarray(model_part.NodeIds(), dtype=np.int64)
    owned = np.isin(ids, np.asarray(distributed.OwnedNodeIds(), dtype=np.int64))
    result = {}
    gathered_ids = None
    if coordinates:
        x = np.array([[n.X, n.Y, n.Z] for n in model_part.Nodes], dtype=float).reshape(-1, 3)
        gathered_ids, result["x"] = GatherNodalArray(communicator, model_part, ids[owned], x[owned],
                                                     root)
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


# The walls' nodal contact results, written by rank 0 (GiD/HDF5) with the
# global values of DistributedDem.WriteGlobalWallResults.
WALL_CONTACT_RESULTS = {"PostContactForces": "CONTACT_FORCES", "PostElasticForces": "ELASTIC_FORCES",
                        "PostTangentialElasticForces": "TANGENTIAL_ELASTIC_FORCES",
                        "PostPressure": "DEM_PRESSURE", "PostShearStress": "SHEAR_STRESS",
                        "PostNodalArea": "DEM_NODAL_AREA"}


def NeedsGlobalWallResults(solver):
    """Whether a distributed run needs the walls' nodal contact results of the
    whole run (each rank's strategy writes the sums of its own rows' contacts,
    ghosts' included): for the wall force graphs (FORCE_INTEGRATION_GROUP
    parts) and for the walls' GiD/HDF5/VTK results selected by the Post* flags
    of WALL_CONTACT_RESULTS. The stage then calls
    DistributedDem.WriteGlobalWallResults (collective) after every
    WriteToNodes."""
    from .dem_graphs_output import ForceIntegrationGroups

    walls = solver.model.GetModelPart("RigidFacePart")
    if walls.NumberOfConditions() == 0:
        return False
    if ForceIntegrationGroups(walls):
        return True
    p = solver.parameters
    if not (p["post_gid_option"].GetBool() or p["post_hdf5_option"].GetBool()
            or p["post_vtk_option"].GetBool()):
        return False
    return any(p[key].GetBool() for key in WALL_CONTACT_RESULTS)


def WallsOutputOnRoot(communicator, make_process):
    """The walls' output process of a distributed run: every rank holds every
    wall with the same motion, so rank 0 writes them (make_process() builds
    the serial process); None on the other ranks."""
    return make_process() if communicator.Rank() == 0 else None


def _GatherColumns(communicator, model_part, ids, columns):
    """GatherNodalArray of the nodes `ids` (rows of the model part's NodalArray
    order selected by the caller) with `columns` ((n, k) arrays) side by side
    in one message: (sorted ids, [(N, k) arrays]) on rank 0, (None, None) elsewhere."""
    import numpy as np
    from tessera.parallel import GatherNodalArray

    widths = [c.shape[1] for c in columns]
    packed = np.hstack(columns) if columns else np.zeros((len(ids), 0))
    gathered_ids, values = GatherNodalArray(communicator, model_part, ids, packed, 0)
    if gathered_ids is None:
        return None, None
    split = np.cumsum(widths)[:-1]
    return gathered_ids, np.hsplit(values, split)


# A matrix variable (DEM_STRESS_TENSOR) has no numpy view: each node's
# value travels as its shape and up to 9 entries (a node never written holds
# the empty matrix, which the serial writers treat as such).
_MATRIX_ENTRIES = 9


def _MatrixColumns(model_part, variable, owned):
    """(owned nodes, 2 + 9): rows, columns and the row-major entries (zeros
    after them) of each owned node's matrix `variable`."""
    import numpy as np

    table = []
    for node, keep in zip(model_part.Nodes, owned):
        if not keep:
            continue
        value = np.atleast_2d(np.asarray(node.GetSolutionStepValue(variable), dtype=float))
        if value.size > _MATRIX_ENTRIES:
            raise tessera.Error(f"{variable.Name()} of node {node.Id} is {value.shape[0]} x "
                                f"{value.shape[1]}; the merged output of a distributed run "
                                f"writes matrices of at most {_MATRIX_ENTRIES} entries")
        row = np.zeros(2 + _MATRIX_ENTRIES)
        row[0], row[1] = value.shape if value.size else (0, 0)
        row[2:2 + value.size] = value.ravel()
        table.append(row)
    return np.array(table, dtype=float).reshape(-1, 2 + _MATRIX_ENTRIES)


def _SetMatrixColumns(model_part, variable, table):
    """The inverse of _MatrixColumns onto the nodes of model_part, in order."""
    for node, row in zip(model_part.Nodes, table):
        rows, cols = int(row[0]), int(row[1])
        node.SetSolutionStepValue(variable, row[2:2 + rows * cols].reshape(rows, cols))


class MergedSpheresOutput(ScheduledOutputProcess):
    """The spheres' GiD or HDF5 output of a distributed run, written once by
    rank 0 as the serial run writes it. At each output every rank sends its
    owned spheres (ids, current and initial coordinates, the written nodal
    variables, element id, node and properties id) to rank 0 (one gather of
    doubles and one of ints per output: (6 + k) doubles and 4 integers per
    sphere for k written components, all through rank 0, which holds the
    spheres' output data once more, in its own model). Rank 0 copies them into a model part of its own
    ("SpheresPart" of a private Model: nodes and elements in id order) and its
    serial writer writes that; the schedule is the run's own (every rank
    takes part in the gather at the same steps; ScheduledOutputProcess's
    protocol).

    make_process(model) builds the serial output process (GiDOutputProcess or
    Hdf5OutputProcess, merged=True) on the model part "SpheresPart" of `model`;
    variables: the nodal solution-step variables it writes."""

    def __init__(self, solver, communicator, spheres, variables, make_process, interval):
        super().__init__()
        from tessera.output import OutputSchedule

        self.solver = solver
        self.communicator = communicator
        self.spheres = spheres
        self.variables = [tessera.GetVariable(name) for name in variables]
        if "RADIUS" not in variables:  # GiD's Sphere elements take the nodal radius
            self.variables.append(tessera.GetVariable("RADIUS"))
        self.schedule = OutputSchedule(spheres, "time", interval, "MergedSpheresOutput")
        self.process = None
        self.node_ids = None
        self.element_rows = None
        if communicator.Rank() == 0:
            self.mirror_model = tessera.Model()
            self.mirror = self.mirror_model.CreateModelPart("SpheresPart")
            for variable in self.variables:
                self.mirror.AddNodalSolutionStepVariable(variable)
            self.process = make_process(self.mirror_model)

    def PrintOutput(self):
        import numpy as np

        spheres = self.spheres
        distributed = self.solver.distributed
        all_ids = np.asarray(spheres.NodeIds(), dtype=np.int64)
        owned = np.isin(all_ids, np.asarray(distributed.OwnedNodeIds(), dtype=np.int64))
        columns = [np.asarray(spheres.NodalCoordinates())[owned],
                   np.asarray(spheres.NodalInitialCoordinates())[owned]]
        for variable in self.variables:
            if variable.Kind() == tessera.ValueKind.Matrix:
                columns.append(_MatrixColumns(spheres, variable, owned))
                continue
            values = np.array(spheres.NodalArray(variable), dtype=float)
            width = values.shape[1] if values.ndim == 2 else 1  # kept by a rank without spheres
            columns.append(values.reshape(len(values), width)[owned])
        ids, columns = _GatherColumns(self.communicator, spheres, all_ids[owned], columns)
        elements = []
        for element_id in distributed.OwnedElementIds():
            element = spheres.GetElement(int(element_id))
            properties = element.GetProperties()
            elements += [int(element_id), int(element.GetGeometry()[0].Id),
                         int(properties.Id) if properties is not None else 0]
        elements = self.communicator.GatherInts(elements, 0)
        if self.communicator.Rank() == 0:
            rows = np.concatenate([np.asarray(e, dtype=np.int64) for e in elements]).reshape(-1, 3)
            self._Write(ids, columns, rows[np.argsort(rows[:, 0], kind="stable")])
        self.schedule.ScheduleNext()

    def _Write(self, ids, columns, elements):
        """Rank 0: the merged spheres into the private model part, then the
        serial writer."""
        import numpy as np

        mirror = self.mirror
        if (self.node_ids is None or not np.array_equal(ids, self.node_ids)
                or not np.array_equal(elements, self.element_rows)):
            self._Rebuild(ids, columns[0], elements)
        position = np.searchsorted(ids, np.asarray(mirror.NodeIds(), dtype=np.int64))
        np.asarray(mirror.NodalCoordinates())[:] = columns[0][position]
        np.asarray(mirror.NodalInitialCoordinates())[:] = columns[1][position]
        for variable, values in zip(self.variables, columns[2:]):
            if variable.Kind() == tessera.ValueKind.Matrix:
                _SetMatrixColumns(mirror, variable, values[position])
                continue
            target = mirror.NodalArray(variable)
            target[:] = values[position].reshape(target.shape)
        source, info = self.spheres.ProcessInfo, mirror.ProcessInfo
        for name in ("TIME", "STEP", "DELTA_TIME"):
            variable = tessera.GetVariable(name)
            if source.Has(variable):
                info[variable] = source[variable]
        self.process.writer.PrintOutput()

    def _Rebuild(self, ids, coordinates, elements):
        """Rank 0: the private model part's nodes and elements made again (the
        first output, and when spheres were added or removed)."""
        mirror = self.mirror
        if mirror.NumberOfNodes() > 0:
            for element in mirror.Elements:
                element.Set(tessera.TO_ERASE)
            mirror.RemoveElementsFromAllLevels()
            for node in mirror.Nodes:
                node.Set(tessera.TO_ERASE)
            mirror.RemoveNodesFromAllLevels()
        for node_id, x in zip(ids, coordinates):
            mirror.CreateNewNode(int(node_id), float(x[0]), float(x[1]), float(x[2]))
        # The element type does not reach the files (GiD and HDF5 write the
        # geometry: one-node spheres), so every sphere is a SphericParticle3D.
        for element_id, node_id, properties_id in elements:
            mirror.CreateNewElement("SphericParticle3D", int(element_id), [int(node_id)],
                                    mirror.GetProperties(int(properties_id)))
        self.node_ids = ids
        self.element_rows = elements

    def ExecuteFinalize(self):
        if self.process is not None and hasattr(self.process, "ExecuteFinalize"):
            self.process.ExecuteFinalize()
