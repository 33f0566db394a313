"""The coupled DE-FE stage under MPI ("parallel_type": "MPI"; docs/architecture.md
"Distributed coupled DE-FE"): the structure distributed as the structural
run distributes it (METIS; owned and ghost nodes; interface sums of nodal
masses and forces, or the implicit solvers' PETSc system), the spheres as the
distributed DEM decomposes them (recursive bisection, ghosts, migration), and
the skin between them replicated. The explicit scheme, Kratos' DEM-first
order and the implicit structure with DEM sub-steps run so:

- Skin. Each rank reads only its piece of the structure's mesh (METIS);
  the ranks' pieces give the skin of the *whole* structure to every rank
  (DistributedCoupling._GatherSkin: the faces one element bounds, the cuts
  between pieces dropped, in the serial FindSkinFaces' order), so every rank
  holds the same skin walls, in the serial run's order, with the same ids:
  the DEM's walls are replicated anyway. With "wall_model_parts" the DEM
  deck's own walls follow the structure's nodes they lie on (every rank
  gets the coordinates of all of them), mapped alike on every rank. Each
  rank's wall search sees only the skin faces near its DEM box (the stage's
  walls_searched_near_domain: DistributedDem.SearchWallsNearDomain), which
  hold every candidate of the spheres it owns.
- Walls moved with the structure. Each step every rank places the mirrors
  of its own FE skin nodes (owned and ghost: their values are equal) at
  X + u with u and v; the skin's faces are read inside the DEM step once it
  knows whether it searches (DistributedDem.PlaceSkinInStep, _Place). At a
  search the owners send X + u, u and v of their nodes to rank 0, which
  broadcasts the whole skin in global order (with the points the owners'
  faces held before, where some rank's faces hold older vertices, so every
  face's step displacement is the serial run's); between searches each
  owner sends each rank only the nodes it needs (the vertices of its
  searched faces and of the faces at its own nodes; rank 0 all where it
  writes the walls). The owners measure the skin's displacement since the
  last search for the adaptive search (DistributedDem.NoteSkinDisplacement).
  Every searched face thus has the serial run's bits.
- Forces returned. Each rank spreads the wall contacts of the spheres it owns
  only (DistributedDem.OwnedWallContactForces: a ghost's contacts are its
  owner's) and sends its loaded rows point to point to the ranks holding
  those FE nodes (DistributedSkinWalls.ReturnForces), which add the ranks'
  parts in ascending rank order, so every holder has the same bits; the
  owner of an FE skin node carries its DemContactLoadCondition (so the
  structure's interface sum counts the load once), and every rank holding
  the node shows the total as DEM_NODAL_FORCE and DEM_SURFACE_LOAD.

- Implicit structure with DEM sub-steps. After the structure's solve the
  owners send u_n+1 of their skin nodes to rank 0, which broadcasts the
  whole skin once per structural step (X once; u_n is the last step's
  u_n+1, sent again only where an owner's differs: StartAveraging); every
  rank moves its mirrors at each sub-step with the serial run's arithmetic
  on those values (MoveWallsBetweenSteps). Each rank averages the nodal wall forces of its
  owned spheres over the sub-steps; at the end of the structural step the
  averages return as the explicit forces do (ReturnForces), so the owners'
  load conditions carry them into the next solve.

Cost per step: at a wall search a gather to rank 0 and a broadcast of the
whole skin's states (9 doubles per skin node, 12 after point-to-point
steps), between searches 9 doubles per skin node a rank needs and does not
hold, point to point, with one MaxAll (the adaptive search's skin motion)
and, after each search, the rows' requests (implicit: the whole skin's
u_n+1 once per structural step, 3 doubles per node, none per sub-step);
the forces' point-to-point return (4 doubles per loaded row and holder);
and every rank holds every skin face and reads each one every step (its
wall search only those near its box).
On the tests' plate searching every 10 steps at most: 821 / 3,106 doubles
of states per step on 2 / 4 ranks, against 2,106 / 5,382 for the whole
skin every step (docs/architecture.md).

- Moreau-Jean DEM on the explicit common step (DemStructuresCouplingAnalysis.
  _SolveNonsmoothStep). The DEM is replicated (distributed_moreau_jean.h):
  every rank holds every sphere, wall and contact, and the NLGS sweeps are
  split by the ranks' boxes, the skin nodes being bodies of the contact
  problem like the spheres (a node that contacts of two ranks' boxes touch
  makes them interface contacts: nlgs_solver.h, NlgsRankSplit). So each
  step the owners of the FE skin nodes send X + u, u, v and a of every
  skin node to every rank (MoveWallsForNonsmoothStep, through rank 0); the
  node masses and fixities go once (NodalMassesAndFixity). After the solve
  every rank holds every node's impulse, the same bits, and applies those
  of its own FE nodes (owned and ghost); the skin areas of the surface load
  come from the whole skin as in the serial run. No forces return: the
  impulses are already everywhere. Equal to the serial run to the NLGS
  tolerance where contact chains cross the boxes (and the rounding of the
  structure's interface sums), as the distributed Moreau-Jean DEM alone.

What the distributed DEM and structure refuse stays an error naming its key.
"""
import numpy as np

import tessera

from .skin_walls import LOAD_CONDITIONS, WALL_CONDITIONS, SkinFace, SkinPartName, SkinWalls


def AlignParallelType(structural_parameters, dem_parameters):
    """The DEM deck takes the structure's problem_data.parallel_type where it
    gives none (Kratos' DEM decks keep theirs at the top level); two different
    values are an error naming both keys. Before the DEM stage is built."""
    def value(parameters, *path):
        for key in path[:-1]:
            if not parameters.Has(key):
                return None
            parameters = parameters[key]
        return parameters[path[-1]].GetString() if parameters.Has(path[-1]) else None

    structure = value(structural_parameters, "problem_data", "parallel_type") or "OpenMP"
    dem = value(dem_parameters, "parallel_type") or value(dem_parameters, "problem_data", "parallel_type")
    if dem is None:
        if structure == "MPI":
            dem_parameters.AddString("parallel_type", "MPI")
        return
    if dem != structure:
        raise tessera.Error(f"{dem_parameters.Origin()}: key 'parallel_type' is \"{dem}\", but "
                            f"{structural_parameters.Origin()} has 'problem_data.parallel_type' "
                            f"\"{structure}\"; a coupled run has one (set both, or only the structure's)")


class DistributedCoupling:
    """The coupled stage's distributed side (module text). Made in the stage's
    constructor; the structure's skin is gathered from the ranks' pieces when
    the walls are made (CreateSkinWalls), after the structural solver has
    read or kept its piece."""

    # A face's row in the skin's gather: its two sort keys (the element and
    # its local face; a named skin's part and the condition's place in the
    # mesh file), its Properties id (-1: none), the element's or condition's
    # id, its node count, four node ids (0 past the count) and their twelve
    # coordinates.
    _ROW = 21

    def __init__(self, coupling):
        self.coupling = coupling
        self.communicator = coupling.structural_stage.communicator
        self.rank = self.communicator.Rank()
        self._faces = None

    def _GatherSkin(self):
        """The whole structure's skin on every rank, from the ranks' pieces
        (no rank holds the whole mesh): each rank sends the faces only one of
        its own elements bounds (tessera.FindSkinFaces on its piece: its part
        of the skin and its cuts to other ranks' elements), or its conditions
        of the named skin parts, with their nodes' coordinates; rank 0 drops
        the faces two ranks sent (the cuts), orders the rest as the serial
        FindSkinFaces does (by element and local face; by part and place in
        the file) and broadcasts them. With "wall_model_parts" every rank
        gets the coordinates of the structure's nodes instead."""
        coupling = self.coupling
        structure = coupling.structure
        local_mesh = coupling.structural_stage._GetSolver().local_mesh
        if local_mesh is None:
            raise tessera.Error("coupling: the distributed skin is gathered from the structure's pieces; "
                                "the structural stage was initialised without distributing its mesh")
        communicator = self.communicator
        self._largest_condition_id = int(communicator.MaxAllInt(
            max((c.Id for c in structure.Conditions), default=0)))
        if coupling.options["wall_model_parts"]:
            # The DEM deck's own walls follow the structure's nodes they lie
            # on (SkinWalls.FromDemWalls): any node of the structure.
            owned = set(int(i) for i in local_mesh.owned_nodes)
            rows = [value for node in structure.Nodes if node.Id in owned
                    for value in (float(node.Id), *node.Coordinates())]
            table = self._GatheredRows(rows, 4, lambda all_rows: (all_rows[np.argsort(all_rows[:, 0])], ""))
            self._coordinates = {int(row[0]): row[1:4].copy() for row in table}
            self._faces = []
            return
        names = coupling.options["skin_model_parts"]
        self._named_skin = bool(names)
        rows = self._NamedSkinRows(structure, names, local_mesh) if names else self._SkinFaceRows(structure)
        table = self._GatheredRows(rows, self._ROW, lambda all_rows: self._WholeSkin(all_rows, names, structure))
        self._faces = []
        self._coordinates = {}
        for row in table:
            count = int(row[4])
            ids = [int(i) for i in row[5:5 + count]]
            key = (None if row[2] < 0 else int(row[2])) if names else int(row[0])
            self._faces.append((ids, key))
            for k, node_id in enumerate(ids):
                self._coordinates[node_id] = row[9 + 3 * k:12 + 3 * k].copy()
        # The structure's first element in the file (a named skin's default
        # material): the least position the ranks hold.
        root = structure.GetRootModelPart()
        first = next(((p, e.Id) for e, p in zip(root.Elements, local_mesh.element_positions)
                      if structure.HasElement(e.Id)), None)
        found = self._GatheredRows([] if first is None else [float(v) for v in first], 2,
                                   lambda all_rows: (all_rows[np.argsort(all_rows[:, 0])][:1], ""))
        self._first_element = int(found[0, 1]) if len(found) else None

    def _GatheredRows(self, local_rows, width, decide):
        """Every rank's rows (flat, `width` doubles each) on rank 0, which makes
        the table (or an error message) of them with decide((n, width) array);
        the table on every rank, or the message raised on every rank."""
        gathered = self.communicator.GatherDoubles([float(v) for v in local_rows], 0)
        table, message = np.zeros((0, width)), ""
        if self.rank == 0:
            table, message = decide(np.asarray([v for part in gathered for v in part],
                                               dtype=float).reshape(-1, width))
        message = self.communicator.BroadcastString(message, 0)
        if message:
            raise tessera.Error(message)
        flat = self.communicator.BroadcastDoubles(np.ascontiguousarray(table).ravel().tolist(), 0)
        return np.asarray(flat, dtype=float).reshape(-1, width)

    def _SkinFaceRows(self, structure):
        """The rows of the faces of this rank's elements that one element
        bounds here (tessera.FindSkinFaces), membranes included."""
        skin = tessera.FindSkinFaces(structure)
        nodes = structure.GetRootModelPart()
        rows = []
        for node_ids, count, parent, face in zip(skin["node_ids"], skin["nodes_number"], skin["parent_ids"],
                                                 skin["local_faces"]):
            rows += self._Row(parent, face, -1, parent, node_ids[:count], nodes)
        return rows

    def _NamedSkinRows(self, structure, names, local_mesh):
        """The rows of this rank's conditions of the named skin parts, keyed by
        the part's place in `names` and the condition's place in the file."""
        root = structure.GetRootModelPart()
        position = dict(zip((c.Id for c in root.Conditions), local_mesh.condition_positions))
        rows = []
        for index, name in enumerate(names):
            full = SkinPartName(structure, name)
            if not structure.GetModel().HasModelPart(full):
                raise tessera.Error(f"coupling: key 'skin_model_parts': no model part '{full}' (sub model "
                                    f"parts of {structure.Name}: "
                                    f"{', '.join(structure.GetSubModelPartNames()) or 'none'})")
            for condition in structure.GetModel().GetModelPart(full).Conditions:
                if condition.Id not in position:
                    raise tessera.Error(f"coupling: condition {condition.Id} of '{full}' is not in the "
                                        "structure's mesh file; a distributed run's named skin is made "
                                        "of the file's conditions")
                properties = condition.GetProperties()
                rows += self._Row(index, position[condition.Id], -1 if properties is None else properties.Id,
                                  condition.Id, [n.Id for n in condition.GetGeometry()], root)
        return rows

    @staticmethod
    def _Row(first_key, second_key, properties_id, entity_id, node_ids, root):
        if len(node_ids) > 4:
            raise tessera.Error(f"coupling: skin face of entity {entity_id} has {len(node_ids)} nodes; a "
                                "skin face has at most 4")
        row = [float(first_key), float(second_key), float(properties_id), float(entity_id),
               float(len(node_ids))] + [float(i) for i in node_ids] + [0.0] * (4 - len(node_ids))
        for node_id in node_ids:
            row += list(root.GetNode(int(node_id)).Coordinates())
        return row + [0.0] * (3 * (4 - len(node_ids)))

    def _WholeSkin(self, rows, names, structure):
        """Rank 0: the gathered rows as the serial FindSkinFaces gives the
        faces (module text), or the message of the error it would raise."""
        dimension = self.coupling.dimension
        if names:
            for index, name in enumerate(names):
                if not np.any(rows[:, 0] == index):
                    full = SkinPartName(structure, name)
                    return rows, (f"coupling: skin model part '{full}' has no conditions; its conditions "
                                  "(faces) are the walls the spheres touch")
            rows = rows[np.lexsort((rows[:, 1], rows[:, 0]))]
            for row in rows:
                if int(row[4]) not in WALL_CONDITIONS[dimension]:
                    full = SkinPartName(structure, names[int(row[0])])
                    return rows, (f"coupling: condition {int(row[3])} of '{full}' has {int(row[4])} nodes; "
                                  f"a {dimension}D skin face has "
                                  f"{' or '.join(map(str, WALL_CONDITIONS[dimension]))}")
            return rows, ""
        # A solid's face sent by two ranks is a cut between pieces (the serial
        # search counts it twice); a membrane is skin wherever it is.
        keep = np.ones(len(rows), dtype=bool)
        solid = np.flatnonzero(rows[:, 1] >= 0)
        if len(solid):
            keys = np.sort(rows[solid, 5:9].astype(np.int64), axis=1)
            _, inverse, counts = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
            keep[solid] = counts[inverse.ravel()] == 1
        rows = rows[keep]
        if not len(rows):
            return rows, (f"coupling: the structure '{structure.Name}' has no skin (no elements with faces); "
                          "name the skin's sub model parts in 'skin_model_parts'")
        return rows[np.lexsort((rows[:, 1], rows[:, 0]))], ""

    def _ResolveElementProperties(self, element_ids):
        """{element id: its Properties id (None: none)} for elements of the
        whole mesh, after the materials are read: each rank gives those of its
        own elements, rank 0 takes the largest per element (an element kept
        on several ranks has the same everywhere) and broadcasts them."""
        structure = self.coupling.structure
        local = []
        for element_id in element_ids:
            properties = structure.GetElement(element_id).GetProperties() \
                if structure.HasElement(element_id) else None
            local.append(-1.0 if properties is None else float(properties.Id))
        gathered = self.communicator.GatherDoubles(local, 0)
        found = np.max(np.asarray(gathered, dtype=float), axis=0).tolist() if self.rank == 0 else []
        found = self.communicator.BroadcastDoubles(found, 0)
        return {element_id: (None if value < 0.0 else int(value))
                for element_id, value in zip(element_ids, found)}

    def StartSkinPlacement(self):
        """The explicit schemes with each rank's wall search near its box
        (walls_searched_near_domain): the skin's states point to point
        between searches (DistributedSkinWalls.StartPlacement); otherwise
        the whole skin at every move."""
        coupling = self.coupling
        dem_stage = coupling.dem_stage
        if coupling.scheme not in ("explicit", "explicit_dem_first"):
            return
        if coupling.skin.walls.FullName() not in getattr(dem_stage, "walls_searched_near_domain", []):
            return
        walls = [process for process in dem_stage._GetListOfOutputProcesses()
                 if getattr(process, "model_part", None) is not None
                 and process.model_part.GetRootModelPart().Name == "RigidFacePart"]
        coupling.skin.StartPlacement(dem_stage._GetSolver().distributed, walls)

    def CriticalTimeStep(self, local_estimate):
        """The least of the ranks' estimates (exact: a minimum), inf for a rank
        without elements."""
        return self.communicator.MinAll(local_estimate)

    def CreateSkinWalls(self, walls, dem_roots):
        coupling = self.coupling
        self._GatherSkin()
        structure = coupling.structure
        if coupling.options["wall_model_parts"]:
            # As the serial stage: the DEM deck's walls keep their materials
            # and no masses.
            return DistributedSkinWalls.FromDemWalls(self, structure, walls, coupling.options["wall_model_parts"],
                                                     coupling.dimension)
        parents = sorted({parent for _, parent in self._faces if parent is not None}) \
            if not self._named_skin else []
        if self._first_element is not None:
            parents = sorted(set(parents) | {self._first_element})
        of_element = self._ResolveElementProperties(parents)
        # As FindSkinFaces: a named skin's condition without YOUNG_MODULUS takes
        # the first element's material (every rank reads the same materials).
        first_id = of_element.get(self._first_element)
        default = None if first_id is None else structure.GetProperties(first_id)
        properties = {}
        faces = []
        for node_ids, key in self._faces:
            properties_id = key if self._named_skin or key is None else of_element[key]
            if properties_id is not None and properties_id not in properties:
                found = structure.GetProperties(properties_id)
                if self._named_skin and not found.Has(tessera.YOUNG_MODULUS):
                    found = default
                properties[properties_id] = found
            faces.append(SkinFace(node_ids, properties.get(properties_id, default if self._named_skin
                                                           else None)))
        # The DEM files' largest ids (each rank may hold a piece of the spheres).
        skin = DistributedSkinWalls(self, structure, walls, faces, coupling.dimension, dem_roots,
                                    coupling.options["split_quadrilaterals"],
                                    coupling.dem_stage.largest_read_ids)
        if coupling.scheme != "implicit_with_dem_substeps":
            # As the serial stage: the mirrors carry lumped masses for the
            # common step's dashpots only (an implicit structure's walls keep
            # the sphere's mass).
            skin.SetGlobalWallMasses(coupling.NodalMasses())
        return skin

    # ---- collectives over the whole skin, rows in global skin order
    def GatherRows(self, rows_by_rank, local_rows_values, count, width):
        """The (count, width) array whose rows rows_by_rank[r] came from rank r
        (each row from one rank), on every rank."""
        local = np.ascontiguousarray(local_rows_values).ravel().tolist()
        gathered = self.communicator.GatherDoubles(local, 0)
        if self.rank == 0:
            full = np.zeros((count, width))
            for rank, rows in enumerate(rows_by_rank):
                full[rows] = np.asarray(gathered[rank], dtype=float).reshape(-1, width)
            flat = full.ravel().tolist()
        else:
            flat = []
        return np.asarray(self.communicator.BroadcastDoubles(flat, 0), dtype=float).reshape(count, width)

    def SumOverRanks(self, local):
        """Every rank's array summed in ascending rank order (from zero) on rank
        0 and broadcast: the same bits on every rank and every run."""
        local = np.ascontiguousarray(local, dtype=float)
        gathered = self.communicator.GatherDoubles(local.ravel().tolist(), 0)
        if self.rank == 0:
            total = np.zeros(local.size)
            for part in gathered:
                total += np.asarray(part, dtype=float)
            flat = total.tolist()
        else:
            flat = []
        return np.asarray(self.communicator.BroadcastDoubles(flat, 0), dtype=float).reshape(local.shape)


def MergedCollections(collections, ranks):
    """The .pvd files of `collections` without the per-rank ones
    (<name>_<rank>.pvd beside the merged <name>.pvd that rank 0 writes over
    all pieces), so the coupled collection names each data set once."""
    import os

    names = set(collections)
    kept = []
    for path in collections:
        stem, _ = os.path.splitext(path)
        head, _, tail = stem.rpartition("_")
        if head and tail.isdigit() and int(tail) < ranks and f"{head}.pvd" in names:
            continue
        kept.append(path)
    return kept


class DistributedSkinWalls(SkinWalls):
    """SkinWalls of a distributed run: the whole skin's walls on every rank,
    the load conditions on the skin nodes this rank owns, the walls moved
    through DistributedCoupling's collectives and the forces returned point
    to point (ReturnForces; module text). Row k of the skin arrays is skin node k in ascending id on every
    rank; fe_positions/local_rows are this rank's local skin nodes."""

    def __init__(self, distributed, structure, walls, faces, dimension, dem_roots, split_quadrilaterals,
                 largest_ids=(0, 0, 0)):
        self.distributed = distributed
        super().__init__(structure, walls, faces, dimension, dem_roots, split_quadrilaterals, largest_ids)

    @classmethod
    def FromDemWalls(cls, distributed, structure, walls, wall_parts, dimension=3):
        """SkinWalls.FromDemWalls on every rank alike: the wall nodes mapped to
        the whole structure's nodes (gathered from the ranks' pieces)."""
        self = cls.__new__(cls)
        self.distributed = distributed
        self._FollowDemWalls(structure, walls, wall_parts, dimension)
        return self

    def _StructureNodes(self):
        coordinates = self.distributed._coordinates  # ascending ids
        ids = list(coordinates)
        return ids, np.array([coordinates[i] for i in ids]).reshape(-1, 3)

    def _SkinNodeCoordinates(self):
        return self.distributed._coordinates

    def _CreateLoadConditions(self, skin_ids):
        """<structure>.DemCouplingSkin holds this rank's skin nodes (owned and
        ghost, which show the loads); the load conditions are on the owned ones,
        with the ids the serial run gives them (after the whole mesh's
        largest condition id), so the interface sum adds each load once."""
        structure = self.structure
        name = "DemCouplingSkin"
        if structure.HasSubModelPart(name):
            raise tessera.Error(f"coupling: model part '{structure.Name}.{name}' exists already; the "
                                "coupled stage creates it")
        root = structure.GetRootModelPart()
        local = set(int(i) for i in root.NodeIds())
        local_mesh = self.distributed.coupling.structural_stage._GetSolver().local_mesh
        owned = set(int(i) for i in local_mesh.owned_nodes)
        self.fe_skin = structure.CreateSubModelPart(name)
        self.fe_skin.AddNodes([i for i in skin_ids if i in local])
        load_properties = structure.GetProperties(0)
        load_name = LOAD_CONDITIONS[self.dimension]
        first = self.distributed._largest_condition_id + 1
        for k, node_id in enumerate(skin_ids):
            if node_id in owned:
                self.fe_skin.CreateNewCondition(load_name, first + k, [node_id], load_properties)
        self._owned_ids = owned

    def _IndexNodes(self, skin_ids):
        wall_ids = np.asarray(self.walls.NodeIds(), dtype=np.int64)
        wall_positions = np.asarray(self.walls.NodeIndices(), dtype=np.int64)
        wall_by_id = dict(zip(wall_ids.tolist(), wall_positions.tolist()))
        self.skin_ids = np.asarray(skin_ids, dtype=np.int64)
        self.wall_positions = np.array([wall_by_id[self.mirror_of[i]] for i in skin_ids], dtype=np.int64)
        fe_by_id = dict(zip(np.asarray(self.fe_skin.NodeIds(), dtype=np.int64).tolist(),
                            np.asarray(self.fe_skin.NodeIndices(), dtype=np.int64).tolist()))
        rows = [k for k, i in enumerate(skin_ids) if i in fe_by_id]
        self.local_rows = np.asarray(rows, dtype=np.int64)
        self.fe_positions = np.array([fe_by_id[skin_ids[k]] for k in rows], dtype=np.int64)
        owned = [k for k, i in enumerate(skin_ids) if i in self._owned_ids]
        self.owned_rows = np.asarray(owned, dtype=np.int64)
        self.owned_fe_positions = np.array([fe_by_id[skin_ids[k]] for k in owned], dtype=np.int64)
        # Which rows each rank owns (the same lists on every rank after this).
        communicator = self.distributed.communicator
        gathered = communicator.GatherDoubles([float(k) for k in owned], 0)
        counts = [len(g) for g in gathered] if communicator.Rank() == 0 else []
        counts = communicator.BroadcastDoubles([float(c) for c in counts], 0)
        flat = communicator.BroadcastDoubles([float(k) for g in gathered for k in g]
                                             if communicator.Rank() == 0 else [], 0)
        self.rows_by_rank, start = [], 0
        for count in counts:
            self.rows_by_rank.append(np.asarray(flat[start:start + int(count)], dtype=np.int64))
            start += int(count)
        covered = np.sort(np.concatenate(self.rows_by_rank)) if self.rows_by_rank else np.array([])
        if not np.array_equal(covered, np.arange(len(skin_ids))):
            raise tessera.Error(f"coupling: the skin nodes of {self.structure.Name} are not each owned by "
                                "exactly one rank")
        n = len(skin_ids)
        # Which rows each rank holds (owned and ghost FE nodes: those whose
        # DEM_NODAL_FORCE it shows), for the forces' point-to-point return.
        held = communicator.GatherDoubles([float(k) for k in rows], 0)
        counts = communicator.BroadcastDoubles([float(len(g)) for g in held]
                                               if communicator.Rank() == 0 else [], 0)
        flat = communicator.BroadcastDoubles([float(k) for g in held for k in g]
                                             if communicator.Rank() == 0 else [], 0)
        self._held_by_rank, start = [], 0
        for count in counts:
            mask = np.zeros(n, dtype=bool)
            mask[np.asarray(flat[start:start + int(count)], dtype=np.int64)] = True
            self._held_by_rank.append(mask)
            start += int(count)
        self._slot = np.full(n, -1, dtype=np.int64)  # row -> position among this rank's local rows
        self._slot[self.local_rows] = np.arange(len(self.local_rows))
        self._others = [r for r in range(communicator.Size()) if r != communicator.Rank()]
        self.force_doubles_sent = 0  # this rank's doubles sent in the forces' return (ReturnForces)
        self.force_returns = 0
        # The skin's states (MoveWallsWithStructure): doubles this rank sent
        # and received, moves of the skin, and of those the whole skin's
        # (through rank 0) and the point-to-point ones (StartPlacement), with
        # the most doubles one of these brought this rank; row requests sent.
        self.state_doubles_sent = self.state_doubles_received = 0
        self.state_moves = self.whole_placements = self.partial_placements = 0
        self.largest_partial_received = 0
        self.request_doubles_sent = 0
        self._dem = None
        self._sent_end = None  # the owned rows' u_n+1 StartAveraging sent last
        self._buffer, self._second_buffer, self._area = np.empty((n, 3)), np.empty((n, 3)), np.empty(n)
        self._has_area = None
        self._average = np.zeros((n, 3))

    def SetGlobalWallMasses(self, local_masses):
        """NODAL_MASS of each mirror: its FE node's lumped mass summed over the
        ranks' elements (ascending rank order), none where the owner has the
        node held in every direction (SkinWalls.SetWallMasses)."""
        self._SetMirrorMasses(*self.NodalMassesAndFixity(local_masses))

    def SetWallMasses(self, masses):
        raise tessera.Error("coupling: a distributed skin takes its masses with SetGlobalWallMasses")

    def NodalMassesAndFixity(self, local_masses):
        """SkinWalls.NodalMassesAndFixity of the whole skin on every rank:
        each row's mass the ranks' shares (`local_masses`: this rank's
        elements' lumped masses per position in the root arrays) added in
        ascending rank order, its fixed components its owner's."""
        n = len(self.skin_ids)
        components = (tessera.DISPLACEMENT_X, tessera.DISPLACEMENT_Y, tessera.DISPLACEMENT_Z)
        local = np.zeros((n, 4))
        local[self.local_rows, 0] = np.asarray(local_masses)[self.fe_positions]
        root = self.structure.GetRootModelPart()
        for k in self.owned_rows.tolist():
            node = root.GetNode(int(self.skin_ids[k]))
            for c, variable in enumerate(components[:self.dimension]):
                local[k, 1 + c] = 1.0 if node.IsFixed(variable) else 0.0
        total = self.distributed.SumOverRanks(local)
        return np.ascontiguousarray(total[:, 0]), total[:, 1:] > 0.0

    def MoveWallsWithStructure(self):
        """The mirrors take X + u, u and v of the FE skin nodes from their
        owners: through rank 0 to every rank (the whole skin), or, once
        StartPlacement has run, each rank's own FE skin nodes here and the
        others' inside the DEM step (_Place)."""
        if self._dem is not None:
            return self._MoveOwnMirrors()
        self._PlaceWholeSkinFromOwners()

    def MoveWallsForNonsmoothStep(self):
        """Moreau-Jean (every rank holds the whole DEM and skin): the whole
        skin from the owners of its FE nodes with their accelerations too (12
        doubles a node); returns v and a of every skin row."""
        full = self._PlaceWholeSkinFromOwners(acceleration=True)
        return np.ascontiguousarray(full[:, 6:9]), np.ascontiguousarray(full[:, 9:12])

    def _PlaceWholeSkinFromOwners(self, acceleration=False):
        """X + u, u and v (and a) of every skin node from its owner through
        rank 0 to every rank (one gather and one broadcast); the mirrors
        take X + u, u and v. Returns the gathered (rows, 9 or 12) states."""
        fe, walls, w = self.structure.GetRootModelPart(), self.walls_root, self.wall_positions
        f = self.owned_fe_positions
        u = np.take(fe.NodalArray(tessera.DISPLACEMENT), f, axis=0)
        x = np.take(fe.NodalInitialCoordinates(), f, axis=0)
        x += u
        columns = [x, u, np.take(fe.NodalArray(tessera.VELOCITY), f, axis=0)]
        if acceleration:
            columns.append(np.take(fe.NodalArray(tessera.ACCELERATION), f, axis=0))
        states = np.hstack(columns)
        width = states.shape[1]
        full = self.distributed.GatherRows(self.rows_by_rank, states, len(self.skin_ids), width)
        self._CountWhole(states.size, width)
        walls.NodalCoordinates()[w] = full[:, 0:3]
        walls.NodalArray(tessera.DISPLACEMENT)[w] = full[:, 3:6]
        walls.NodalArray(tessera.VELOCITY)[w] = full[:, 6:9]
        return full

    # ---- the skin's states point to point (explicit schemes; module text)
    def StartPlacement(self, distributed_dem, wall_outputs):
        """After the DEM's Start (DistributedDem.SearchWallsNearDomain on this
        skin): from now on the skin's faces are read inside each DEM step
        (DistributedDem.PlaceSkinInStep), where _Place gives each rank the
        states of the skin nodes it needs. `wall_outputs`: the DEM's output
        processes of the walls (rank 0's), which need the whole skin on rank 0
        at their output steps."""
        n = len(self.skin_ids)
        communicator = self.distributed.communicator
        me = communicator.Rank()
        row_of_mirror = {int(self.mirror_of[int(i)]): k for k, i in enumerate(self.skin_ids.tolist())}
        ids, rows = [], []
        for condition in self.walls.Conditions:
            face = [row_of_mirror[node.Id] for node in condition.GetGeometry()]
            ids.append(condition.Id)
            rows.append(face + [face[0]] * (4 - len(face)))  # padded with a vertex of its own
        order = np.argsort(np.asarray(ids, dtype=np.int64))
        self._face_ids = np.asarray(ids, dtype=np.int64)[order]
        self._face_rows = np.asarray(rows, dtype=np.int64).reshape(-1, 4)[order]
        held = self._held_by_rank[me]
        # The faces at this rank's FE skin nodes make their DEM_NODAL_AREA
        # (node_sync.cpp; _SetLocalLoads): always needed.
        self._area_need = np.zeros(n, dtype=bool)
        self._area_need[self._face_rows[held[self._face_rows].any(axis=1)].ravel()] = True
        self._owner = np.empty(n, dtype=np.int64)
        for rank, owned in enumerate(self.rows_by_rank):
            self._owner[owned] = rank
        self._owned_walls = self.wall_positions[self.owned_rows]
        self._local_walls = self.wall_positions[self.local_rows]
        # Rows an owner sends rank 0 where it writes the walls (those rank 0 does not hold).
        self._to_root = np.nonzero(~self._held_by_rank[0][self.owned_rows])[0]
        self._from_owner = [np.asarray(owned, dtype=np.int64)[~self._held_by_rank[0][owned]]
                            for owned in self.rows_by_rank]
        flag = 1.0 if me == 0 and wall_outputs else 0.0
        self._root_writes_walls = communicator.MaxAll(flag) > 0.0
        self._wall_outputs = list(wall_outputs) if me == 0 else []
        self._dem = distributed_dem
        self._moved = False  # the structure moved the skin since the last DEM step
        self._refresh_needs = True  # the selection changed since the requests were made
        self._whole_until_search = False
        self._all_current = True  # every face of every rank read from current vertices
        distributed_dem.PlaceSkinInStep(self._Place)

    def AfterCheckpointLoad(self):
        """A continued run: the selection the saved searches made is not at
        hand, and the skin's last move happened before the save: the whole
        skin at each step until the next search; an implicit structure's
        next step sends u_n and X again."""
        self._sent_end = None
        if self._dem is not None:
            self._moved = True
            self._whole_until_search = True
            self._all_current = False

    def _MoveOwnMirrors(self):
        """This rank's FE skin nodes (owned and ghost: the same bits) place
        their mirrors; the owners measure their nodes' displacement since the
        last search for the adaptive search (DistributedDem.NoteSkinDisplacement,
        collective); a DEM-first run's walls output gets the whole skin on
        rank 0."""
        fe, walls, f = self.structure.GetRootModelPart(), self.walls_root, self.fe_positions
        u = np.take(fe.NodalArray(tessera.DISPLACEMENT), f, axis=0)
        x = np.take(fe.NodalInitialCoordinates(), f, axis=0)
        x += u
        v = np.take(fe.NodalArray(tessera.VELOCITY), f, axis=0)
        w = self._local_walls
        walls.NodalCoordinates()[w] = x
        walls.NodalArray(tessera.DISPLACEMENT)[w] = u
        walls.NodalArray(tessera.VELOCITY)[w] = v
        self._moved = True
        owned = walls.NodalCoordinates()[self._owned_walls]
        self._dem.NoteSkinDisplacement(self._owned_walls.tolist(), owned.ravel().tolist())
        if self.distributed.coupling.scheme == "explicit_dem_first" and self._RootNeedsWholeSkin():
            # Written after this move and before the next DEM step.
            self._SendOwnedRows([self._to_root if rank == 0 else None for rank in self._others],
                                [self._from_owner[rank] if self.distributed.rank == 0 else None
                                 for rank in self._others])

    def _RootNeedsWholeSkin(self):
        """Whether rank 0 writes the walls at this step (collective where it
        has wall outputs)."""
        if not self._root_writes_walls:
            return False
        due = 1.0 if any(process.IsOutputStep() for process in self._wall_outputs) else 0.0
        return self.distributed.communicator.MaxAll(due) > 0.0

    def _OwnedStates(self):
        walls, w = self.walls_root, self._owned_walls
        return np.hstack([walls.NodalCoordinates()[w], walls.NodalArray(tessera.DISPLACEMENT)[w],
                          walls.NodalArray(tessera.VELOCITY)[w]])

    def _SendOwnedRows(self, send_positions, receive_rows):
        """Point to point: to each other rank the owned rows at
        send_positions[k] (positions in owned_rows; None: nothing), from each
        the skin rows receive_rows[k] it owns (None: nothing), 9 doubles a
        row, written on the mirrors."""
        states = self._OwnedStates()
        sends = [[] if positions is None else states[positions].ravel().tolist()
                 for positions in send_positions]
        received = self.distributed.communicator.Exchange(self._others, sends) if self._others else []
        walls = self.walls_root
        for rows, message in zip(receive_rows, received):
            if rows is None or len(rows) == 0:
                continue
            values = np.asarray(message, dtype=float).reshape(-1, 9)
            w = self.wall_positions[rows]
            walls.NodalCoordinates()[w] = values[:, 0:3]
            walls.NodalArray(tessera.DISPLACEMENT)[w] = values[:, 3:6]
            walls.NodalArray(tessera.VELOCITY)[w] = values[:, 6:9]
        sent = sum(len(message) for message in sends)
        got = sum(len(message) for message in received)
        self.state_doubles_sent += sent
        self.state_doubles_received += got
        return got

    def _Place(self, search):
        """DistributedDem's callback in each DEM step (module text): where the
        step searches (or after a checkpoint, until it does), the whole skin
        to every rank and every face read; else each owner sends each rank
        the states of the skin nodes its searched faces and its own nodes'
        faces use (rank 0 all of them where it writes the walls), and the
        skin's faces are read (the others keep older vertices)."""
        if search:
            self._refresh_needs = True  # the search selects the faces anew
        if not self._moved:
            # No move since the last read (a DEM-first run's first step: the
            # faces are where every rank read them at the start).
            return
        self._moved = False
        if search or self._whole_until_search:
            self._PlaceWholeSkin()
            self._whole_until_search = self._whole_until_search and not search
            return
        if self._refresh_needs:
            self._RequestRows()
        root = self._RootNeedsWholeSkin()
        me = self.distributed.rank
        sends = [self._to_root if root and rank == 0 else self._send_positions[k]
                 for k, rank in enumerate(self._others)]
        receives = [self._from_owner[rank] if root and me == 0 else self._receive_rows[k]
                    for k, rank in enumerate(self._others)]
        got = self._SendOwnedRows(sends, receives)
        self.partial_placements += 1
        self.state_moves += 1
        self.largest_partial_received = max(self.largest_partial_received, got)
        self._dem.ReadSkinFaces()
        self._all_current = False

    def _PlaceWholeSkin(self):
        """Every rank takes the whole skin through rank 0 (GatherRows), with
        the points each face held before (the owners' faces' own: 12 doubles
        a node) where some rank's faces hold older vertices, so that every
        face's step displacement is the serial run's; then the faces are read."""
        walls, w = self.walls_root, self.wall_positions
        states = self._OwnedStates()
        width = 9
        if not self._all_current:
            before = np.asarray(self._dem.SkinFacePoints(self._owned_walls.tolist()), dtype=float)
            states = np.hstack([before.reshape(-1, 3), states])
            width = 12
        full = self.distributed.GatherRows(self.rows_by_rank, states, len(self.skin_ids), width)
        self._CountWhole(states.size, width)
        if width == 12:
            walls.NodalCoordinates()[w] = full[:, 0:3]
            self._dem.ReadSkinFaces()
            full = full[:, 3:]
        walls.NodalCoordinates()[w] = full[:, 0:3]
        walls.NodalArray(tessera.DISPLACEMENT)[w] = full[:, 3:6]
        walls.NodalArray(tessera.VELOCITY)[w] = full[:, 6:9]
        self._dem.ReadSkinFaces()
        self._all_current = True
        self.whole_placements += 1

    def _CountWhole(self, local_size, width):
        """The doubles of a gather to rank 0 and a broadcast of the whole skin:
        a rank sends its owned rows, rank 0 the whole skin to every other."""
        others = len(self._others)
        whole = width * len(self.skin_ids)
        if self.distributed.rank == 0:
            self.state_doubles_sent += whole * others
            self.state_doubles_received += whole - local_size
        else:
            self.state_doubles_sent += local_size
            self.state_doubles_received += whole
        self.state_moves += 1

    def _RequestRows(self):
        """After a search: the skin rows this rank needs and does not hold (the
        vertices of the faces its search selected, DistributedDem.
        SearchedFaceIds, and of the faces at its own nodes), asked of their
        owners, which keep where each request's rows lie among theirs."""
        me = self.distributed.rank
        selected = np.isin(self._face_ids, np.asarray(self._dem.SearchedFaceIds(), dtype=np.int64))
        need = self._area_need.copy()
        need[self._face_rows[selected].ravel()] = True
        need &= ~self._held_by_rank[me]
        self._receive_rows = [np.nonzero(need & (self._owner == rank))[0] for rank in self._others]
        requests = [rows.astype(float).tolist() for rows in self._receive_rows]
        received = self.distributed.communicator.Exchange(self._others, requests) if self._others else []
        self.request_doubles_sent += sum(len(r) for r in requests)
        self._send_positions = [np.searchsorted(self.owned_rows, np.asarray(r, dtype=float).astype(np.int64))
                                for r in received]
        self._refresh_needs = False

    def ReturnForces(self, local):
        """The totals over the ranks of `local` ((skin rows, 3): this rank's
        partial nodal forces) for this rank's local FE skin rows, rows in
        local_rows order. Point to point: each rank sends every other rank the
        rows that rank holds (owned or ghost FE node) where its partial force is
        not zero, as (row, fx, fy, fz); each rank adds the parts of its rows
        in ascending rank order from zero, as SumOverRanks does, so every
        holder of a node gets the same bits, and the bits of SumOverRanks (a
        part left out is an exact zero, and a sum started from +0 is never -0,
        so adding it would change nothing)."""
        local = np.ascontiguousarray(local, dtype=float).reshape(-1, 3)
        loaded = np.any(local != 0.0, axis=1)
        sends = []
        for rank in self._others:
            rows = np.nonzero(loaded & self._held_by_rank[rank])[0]
            sends.append(np.hstack([rows[:, None].astype(float), local[rows]]).ravel().tolist())
        self.force_doubles_sent += sum(len(message) for message in sends)
        self.force_returns += 1
        received = self.distributed.communicator.Exchange(self._others, sends) if self._others else []
        parts = dict(zip(self._others, received))
        me = self.distributed.rank
        total = np.zeros((len(self.local_rows), 3))
        for rank in range(len(self._held_by_rank)):
            if rank == me:
                rows = np.nonzero(loaded & self._held_by_rank[me])[0]
                values = local[rows]
            else:
                message = np.asarray(parts[rank], dtype=float).reshape(-1, 4)
                rows, values = message[:, 0].astype(np.int64), message[:, 1:]
            total[self._slot[rows]] += values
        return total

    def TransferLoadsToStructure(self):
        """DEM_NODAL_FORCE of each local FE skin node = the sum over the ranks of
        the owned spheres' wall contact forces on its mirror (ReturnForces);
        DEM_SURFACE_LOAD = that over the node's share of the skin area. The
        mirrors keep the CONTACT_FORCES the distributed DEM gives its walls
        (the rank's own contacts', or the whole run's where the DEM deck's
        output asks for them)."""
        w = self.wall_positions
        if self.distributed.coupling.nonsmooth:
            # Moreau-Jean: every rank holds every contact, so the mirrors
            # hold the whole run's forces, the serial run's.
            force = np.take(self.walls_root.NodalArray(tessera.CONTACT_FORCES), w, axis=0)
            self._SetLocalLoads(force[self.local_rows])
            return
        distributed_dem = self.distributed.coupling.dem_stage._GetSolver().distributed
        local = np.asarray(distributed_dem.OwnedWallContactForces(w.tolist()), dtype=float)
        self._SetLocalLoads(self.ReturnForces(local))

    def _SetLocalLoads(self, force):
        """DEM_NODAL_FORCE = `force` (local_rows order) on the local FE skin
        nodes, DEM_SURFACE_LOAD = that over the mirrors' DEM_NODAL_AREA."""
        fe, walls = self.structure.GetRootModelPart(), self.walls_root
        fe.NodalArray(tessera.DEM_NODAL_FORCE)[self.fe_positions] = force
        area = np.take(walls.NodalArray(tessera.DEM_NODAL_AREA), self.wall_positions[self.local_rows])
        traction = np.zeros_like(force)
        np.divide(force, area[:, None], out=traction, where=(area > 0.0)[:, None])
        fe.NodalArray(tessera.DEM_SURFACE_LOAD)[self.fe_positions] = traction

    def TotalForceOnStructure(self):
        """Σ DEM_NODAL_FORCE over the whole skin (each node once, from its
        owner; ranks added in order), on every rank."""
        fe = self.structure.GetRootModelPart()
        local = fe.NodalArray(tessera.DEM_NODAL_FORCE)[self.owned_fe_positions].sum(axis=0)
        return self.distributed.SumOverRanks(local)

    # ---- implicit structure with DEM sub-steps (serial: SkinWalls' methods of the same names)
    def StartAveraging(self):
        """The structure has solved its step: the whole skin's u_n, u_n+1 and
        X from the owners of its FE nodes (one gather and one broadcast per
        structural step), kept for the sub-steps' interpolation; the ranks'
        averaged forces start from zero. X goes once (it does not change),
        and u_n only where some owner's differs in a bit from the u_n+1 it
        sent at the last step (one MaxAll decides): 3 doubles per skin node
        a step instead of 9, the same values."""
        fe, f = self.structure.GetRootModelPart(), self.owned_fe_positions
        start = np.take(fe.NodalArray(tessera.DISPLACEMENT, 1), f, axis=0)  # u_n
        end = np.take(fe.NodalArray(tessera.DISPLACEMENT), f, axis=0)  # u_n+1
        n = len(self.skin_ids)
        if self._sent_end is None:  # the first step (or the first after a checkpoint)
            initial = np.take(fe.NodalInitialCoordinates(), f, axis=0)
            states = np.hstack([start, end, initial])
            full = self.distributed.GatherRows(self.rows_by_rank, states, n, 9)
            self._initial = np.ascontiguousarray(full[:, 6:9])
        else:
            changed = not np.array_equal(start.view(np.int64), self._sent_end.view(np.int64))
            if self.distributed.communicator.MaxAll(1.0 if changed else 0.0) > 0.0:
                states = np.hstack([start, end])
                full = self.distributed.GatherRows(self.rows_by_rank, states, n, 6)
            else:
                states = end
                full = np.hstack([self._step_end, self.distributed.GatherRows(self.rows_by_rank, end, n, 3)])
        self._CountWhole(states.size, states.shape[1])
        self._sent_end = end
        self._step_start = np.ascontiguousarray(full[:, 0:3])
        self._step_end = np.ascontiguousarray(full[:, 3:6])
        if getattr(self, "_wall_list", None) is None:
            self._wall_list = self.wall_positions.tolist()
        self._average.fill(0.0)

    def MoveWallsBetweenSteps(self, fraction, step):
        """The mirrors at X + u_n + fraction (u_n+1 - u_n) with the mean
        velocity (u_n+1 - u_n) / step, from the states StartAveraging
        gathered: the serial run's arithmetic on the same values, so the
        serial bits wherever the structure's are."""
        np.copyto(self._buffer, self._step_start)
        np.copyto(self._second_buffer, self._step_end)
        self._PlaceMirrorsBetweenSteps(fraction, step, self._initial)

    def AccumulateLoads(self, weight):
        """Adds weight x the nodal wall forces of the spheres this rank owns
        (DistributedDem.OwnedWallContactForces) to this rank's average; the
        ranks' averages are added in FinishAveraging."""
        distributed_dem = self.distributed.coupling.dem_stage._GetSolver().distributed
        local = np.asarray(distributed_dem.OwnedWallContactForces(self._wall_list), dtype=float)
        local = local.reshape(-1, 3)
        local *= weight
        self._average += local

    def FinishAveraging(self):
        """DEM_NODAL_FORCE of each local FE skin node = the ranks' averaged
        forces added in ascending rank order (ReturnForces: the same bits on
        every rank holding the node; the owner's load condition carries it
        into the structure's next solve), DEM_SURFACE_LOAD = that over the
        node's share of the skin area."""
        self._SetLocalLoads(self.ReturnForces(self._average))
