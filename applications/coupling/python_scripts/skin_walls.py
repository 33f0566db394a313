"""SkinWalls: the structure's skin as DEM walls that follow the FE nodes, and
the DEM contact forces on those walls handed back to the FE nodes.

Nodes belong to one root model part in Tessera (the column store), so the
walls cannot hold the structure's nodes themselves: every skin node of the
structure has a mirror node in the DEM's RigidFacePart, and the skin faces are
RigidFace3D3N/3D4N (2D: RigidEdge2D2N) conditions on the mirrors. Each step,
after the structure's drift, the mirrors take the FE nodes' coordinates,
displacements and velocities (so the wall velocity at a contact point is the
FE velocity interpolated with the face's shape functions, thesis 2.11); after
the DEM step, each FE skin node takes its mirror's CONTACT_FORCES (the
reactions of the sphere-face contacts spread over the faces' nodes by the
DEM's WallForceTransfer: the Area Distributed Method, thesis App. B, or
direct interpolation, 4.57) as DEM_NODAL_FORCE, which
its DemContactLoadCondition adds to the structure's external force. The
copies are O(skin nodes) per step into preallocated arrays.

Material of the sphere-skin contact: the one MaterialsDEM.json assigns to the
walls' sub model part (or to RigidFacePart as a whole); where none is
assigned, a DEM material made from the structure's YOUNG_MODULUS and
POISSON_RATIO (of the element each face bounds), whose relation with each
particle material is that particle material's relation with itself
(restitution, friction, contact law; in a legacy deck, without relations,
the DEM reads those values from the particle materials themselves). The
choice is printed.
"""
import numpy as np

import tessera
from tessera import _coupling  # noqa: F401  (DEM_NODAL_FORCE, DemContactLoadCondition)

# Wall condition names by the number of nodes of a skin face, per dimension.
WALL_CONDITIONS = {3: {3: "RigidFace3D3N", 4: "RigidFace3D4N"}, 2: {2: "RigidEdge2D2N"}}
LOAD_CONDITIONS = {3: "DemContactLoadCondition3D1N", 2: "DemContactLoadCondition2D1N"}
# The id of the placeholder material the wall faces hold until the materials are read.
PENDING_MATERIAL_ID = 2147483647


def _MaxIds(model_parts, least=(0, 0, 0)):
    """The largest node, element and condition ids of the model parts, at
    least `least` (a distributed run's ids read on other ranks)."""
    nodes, elements, conditions = least
    for mp in model_parts:
        nodes = max(nodes, max(mp.NodeIds(), default=0))
        elements = max(elements, max((e.Id for e in mp.Elements), default=0))
        conditions = max(conditions, max((c.Id for c in mp.Conditions), default=0))
    return nodes, elements, conditions


class SkinFace:
    """A face of the skin: its FE node ids (outward order where known), the
    Properties of the structure's material behind it and, for a face found
    automatically, the id of the element it bounds (None for a named skin's
    condition)."""
    __slots__ = ("node_ids", "properties", "parent")

    def __init__(self, node_ids, properties, parent=None):
        self.node_ids = tuple(int(i) for i in node_ids)
        self.properties = properties
        self.parent = parent


def SkinPartName(structure, name):
    """The full name of a skin sub model part named in 'skin_model_parts'
    (with or without the structure's name first)."""
    return name if name.startswith(structure.Name + ".") else f"{structure.Name}.{name}"


def FindSkinFaces(structure, skin_model_parts=(), dimension=3):
    """The skin faces of `structure`: the conditions of the named sub model
    parts, or, when none is named, the element faces that belong to one
    element only (tessera.FindSkinFaces), membranes included."""
    faces = []
    if skin_model_parts:
        default_properties = _FirstElementProperties(structure)
        for name in skin_model_parts:
            full = SkinPartName(structure, name)
            if not structure.GetModel().HasModelPart(full):
                raise tessera.Error(f"coupling: key 'skin_model_parts': no model part '{full}' (sub model "
                                    f"parts of {structure.Name}: "
                                    f"{', '.join(structure.GetSubModelPartNames()) or 'none'})")
            part = structure.GetModel().GetModelPart(full)
            if part.NumberOfConditions() == 0:
                raise tessera.Error(f"coupling: skin model part '{full}' has no conditions; its "
                                    "conditions (faces) are the walls the spheres touch")
            for condition in part.Conditions:
                ids = [n.Id for n in condition.GetGeometry()]
                if len(ids) not in WALL_CONDITIONS[dimension]:
                    raise tessera.Error(f"coupling: condition {condition.Id} of '{full}' has {len(ids)} "
                                        f"nodes; a {dimension}D skin face has "
                                        f"{' or '.join(map(str, WALL_CONDITIONS[dimension]))}")
                properties = condition.GetProperties() if condition.GetProperties() is not None \
                    and condition.GetProperties().Has(tessera.YOUNG_MODULUS) else default_properties
                faces.append(SkinFace(ids, properties))
        return faces
    skin = tessera.FindSkinFaces(structure)
    properties_of = {}
    for node_ids, count, parent in zip(skin["node_ids"], skin["nodes_number"], skin["parent_ids"]):
        parent = int(parent)
        if parent not in properties_of:
            properties_of[parent] = structure.GetElement(parent).GetProperties()
        faces.append(SkinFace(node_ids[:count], properties_of[parent], parent))
    if not faces:
        raise tessera.Error(f"coupling: the structure '{structure.Name}' has no skin (no elements with "
                            "faces); name the skin's sub model parts in 'skin_model_parts'")
    return faces


def _WallFaces(node_ids, coordinates, dimension, split_quadrilaterals):
    """The DEM wall faces of one skin face: a triangle (2D: a segment) as it
    is; a quadrilateral as it is, or (split_quadrilaterals) as two triangles
    along its shorter diagonal.
    A DEM quadrilateral measures a contact's overlap from its mean plane
    (through the vertex mean, normal from the diagonals) and spreads the force
    with bilinear-type weights of the contact point, which are that overlap's
    derivatives with respect to the vertices only at the face's centre: off
    the centre of a deforming face, the wall does work the contact does not
    account for (a single sphere off the centres of a bent plate's faces
    gained 0.9 % of the energy it exchanged; with the faces split, 0.008 %).
    Triangles through three FE nodes are exact planes whose barycentric
    weights are those derivatives; but a sphere on the diagonal then touches
    two faces, whose shares ADM scales by area (not from a potential): on
    V4.3's hexahedron, hit at its top's centre, E_T moved 4 % split against
    8e-7 whole. Hence a choice, quadrilaterals whole by default."""
    if len(node_ids) not in WALL_CONDITIONS[dimension] and not (dimension == 3 and len(node_ids) == 4):
        raise tessera.Error(f"coupling: a skin face with {len(node_ids)} nodes cannot be a {dimension}D DEM "
                            "wall")
    if dimension != 3 or len(node_ids) != 4 or not split_quadrilaterals:
        return [list(node_ids)]
    a, b, c, d = node_ids
    x = [np.asarray(coordinates[i], dtype=float) for i in node_ids]
    if np.linalg.norm(x[2] - x[0]) <= np.linalg.norm(x[3] - x[1]):
        return [[a, b, c], [a, c, d]]
    return [[a, b, d], [b, c, d]]


def _FirstElementProperties(structure):
    for element in structure.Elements:
        return element.GetProperties()
    return None


def FollowedNodes(fe_ids, fe_x, wall_ids, wall_x, walls_name, structure_name):
    """{FE node id: wall node id}: each wall node (ids, (n, 3) coordinates)
    on the FE node at its coordinates, within 1e-9 of the structure's size
    (SkinWalls.FromDemWalls; the coupled resize merges its mirrors with the
    same map). A wall node off the structure's nodes, or two on one node,
    is an error naming `walls_name` and `structure_name`."""
    fe_x = np.asarray(fe_x, dtype=float).reshape(-1, 3)
    size = float(np.max(np.ptp(fe_x, axis=0))) if len(fe_ids) else 1.0
    tolerance = 1e-9 * max(size, 1e-300)
    key = {tuple(np.round(x / tolerance).astype(np.int64)): int(i) for x, i in zip(fe_x, fe_ids)}
    mirror_of = {}
    for wall_id, x in zip(wall_ids, np.asarray(wall_x, dtype=float).reshape(-1, 3)):
        fe_id = key.get(tuple(np.round(x / tolerance).astype(np.int64)))
        if fe_id is None:  # rounding can split a pair: the nearest, within the tolerance
            distance = np.linalg.norm(fe_x - x, axis=1)
            nearest = int(np.argmin(distance))
            if distance[nearest] > 2.0 * tolerance:
                raise tessera.Error(f"coupling: wall node {wall_id} {walls_name} at {x.tolist()} has no node of "
                                    f"{structure_name} there (the nearest, {fe_ids[nearest]}, is "
                                    f"{distance[nearest]:.3g} away); the walls must lie on the structure's nodes")
            fe_id = int(fe_ids[nearest])
        if fe_id in mirror_of:
            raise tessera.Error(f"coupling: wall nodes {mirror_of[fe_id]} and {wall_id} {walls_name} lie on "
                                f"the same node {fe_id} of {structure_name}")
        mirror_of[fe_id] = int(wall_id)
    return mirror_of


class SkinWalls:
    """The mirror of the structure's skin in the DEM walls (see the module text)."""

    def __init__(self, structure, walls, faces, dimension=3, dem_roots=(), split_quadrilaterals=False,
                 largest_ids=(0, 0, 0)):
        self.structure = structure
        self.walls_root = walls
        self.dimension = dimension
        if not faces:
            raise tessera.Error("coupling: no skin faces to make walls of")
        skin_ids = sorted({i for face in faces for i in face.node_ids})
        self._CreateLoadConditions(skin_ids)
        # DEM side: mirror nodes and the wall faces, in a sub model part named
        # after the structure (the materials file may assign it a material).
        self.walls_part_name = f"{structure.Name}Skin"
        if walls.HasSubModelPart(self.walls_part_name):
            raise tessera.Error(f"coupling: model part 'RigidFacePart.{self.walls_part_name}' exists "
                                "already; the coupled stage creates it from the structure's skin")
        self.walls = walls.CreateSubModelPart(self.walls_part_name)
        node_offset, _, condition_offset = _MaxIds(list(dem_roots) or [walls], largest_ids)
        self.mirror_of = {}
        coordinates = self._SkinNodeCoordinates()
        for k, node_id in enumerate(skin_ids):
            mirror = node_offset + 1 + k
            x = coordinates[node_id]
            self.walls.CreateNewNode(mirror, float(x[0]), float(x[1]), float(x[2]))
            self.mirror_of[node_id] = mirror
        # Until the materials are read, every wall face holds this placeholder
        # (an id no materials file uses, so that it is recognised afterwards).
        self.pending_properties = tessera.Properties(PENDING_MATERIAL_ID)
        self.face_properties = []
        next_id = condition_offset + 1
        for face in faces:
            for wall_face in _WallFaces(face.node_ids, coordinates, dimension, split_quadrilaterals):
                self.walls.CreateNewCondition(WALL_CONDITIONS[dimension][len(wall_face)], next_id,
                                              [self.mirror_of[i] for i in wall_face],
                                              self.pending_properties)
                self.face_properties.append(face.properties)
                next_id += 1
        self._IndexNodes(skin_ids)
        self.material_choice = ""

    @classmethod
    def FromDemWalls(cls, structure, walls, wall_parts, dimension=3):
        """The DEM deck's own walls (sub model parts of RigidFacePart, e.g.
        Kratos' CoSimulation decks, whose DEM walls file repeats the
        structure's nodes): each wall node follows the FE node at its
        coordinates (a node-to-node map, like a nearest-neighbour mapper on
        coincident meshes); a wall node without an FE node there is an
        error."""
        self = cls.__new__(cls)
        self._FollowDemWalls(structure, walls, wall_parts, dimension)
        return self

    def _StructureNodes(self):
        """(ids, (n, 3) coordinates) of the structure's nodes a DEM wall node
        may lie on."""
        fe_nodes = list(self.structure.Nodes)
        return [n.Id for n in fe_nodes], np.array([n.Coordinates() for n in fe_nodes]).reshape(-1, 3)

    def _FollowDemWalls(self, structure, walls, wall_parts, dimension):
        """FromDemWalls' work on a new instance."""
        self.structure, self.walls_root, self.dimension = structure, walls, dimension
        self.pending_properties = tessera.Properties(PENDING_MATERIAL_ID)
        self.face_properties = []
        if len(wall_parts) != 1:
            raise tessera.Error("coupling: key 'wall_model_parts' names one sub model part of RigidFacePart "
                                f"(the walls that follow the structure), got {len(wall_parts)}")
        full = wall_parts[0] if wall_parts[0].startswith("RigidFacePart.") else f"RigidFacePart.{wall_parts[0]}"
        if not walls.GetModel().HasModelPart(full):
            raise tessera.Error(f"coupling: key 'wall_model_parts': no model part '{full}' (sub model parts of "
                                f"RigidFacePart: {', '.join(walls.GetSubModelPartNames()) or 'none'})")
        self.walls = walls.GetModel().GetModelPart(full)
        self.walls_part_name = self.walls.Name
        fe_ids, fe_x = self._StructureNodes()
        wall_nodes = list(self.walls.Nodes)
        self.mirror_of = FollowedNodes(fe_ids, fe_x, [node.Id for node in wall_nodes],
                                       np.array([node.Coordinates() for node in wall_nodes]).reshape(-1, 3),
                                       f"of {full}", structure.Name)
        skin_ids = sorted(self.mirror_of)
        self._CreateLoadConditions(skin_ids)
        self._IndexNodes(skin_ids)
        self.material_choice = f"the walls of {full} keep the DEM deck's materials"

    def _CreateLoadConditions(self, skin_ids):
        """Structure side: the skin nodes in <structure>.DemCouplingSkin and a
        DEM contact load on each."""
        structure = self.structure
        name = "DemCouplingSkin"
        if structure.HasSubModelPart(name):
            raise tessera.Error(f"coupling: model part '{structure.Name}.{name}' exists already; the "
                                "coupled stage creates it")
        self.fe_skin = structure.CreateSubModelPart(name)
        self.fe_skin.AddNodes(skin_ids)
        _, _, fe_conditions = _MaxIds([structure])
        load_properties = structure.GetProperties(0)
        load_name = LOAD_CONDITIONS[self.dimension]
        for k, node_id in enumerate(skin_ids):
            self.fe_skin.CreateNewCondition(load_name, fe_conditions + 1 + k, [node_id], load_properties)

    def _SkinNodeCoordinates(self):
        """{FE skin node id: its coordinates}, where the mirrors start."""
        return {node.Id: node.Coordinates() for node in self.fe_skin.Nodes}

    def _IndexNodes(self, skin_ids):
        """Positions of the FE skin nodes and of their mirrors in their roots'
        arrays, aligned (row k of both is skin node k)."""
        fe_ids = np.asarray(self.fe_skin.NodeIds(), dtype=np.int64)
        fe_positions = np.asarray(self.fe_skin.NodeIndices(), dtype=np.int64)
        wall_ids = np.asarray(self.walls.NodeIds(), dtype=np.int64)
        wall_positions = np.asarray(self.walls.NodeIndices(), dtype=np.int64)
        fe_by_id = dict(zip(fe_ids.tolist(), fe_positions.tolist()))
        wall_by_id = dict(zip(wall_ids.tolist(), wall_positions.tolist()))
        self.fe_positions = np.array([fe_by_id[i] for i in skin_ids], dtype=np.int64)
        self.wall_positions = np.array([wall_by_id[self.mirror_of[i]] for i in skin_ids], dtype=np.int64)
        self.skin_ids = np.asarray(skin_ids, dtype=np.int64)
        n = len(skin_ids)
        # The skin rows whose FE node this process holds (a distributed run's
        # own and ghost nodes): every row here.
        self.local_rows = np.arange(n, dtype=np.int64)
        self._buffer, self._second_buffer, self._area = np.empty((n, 3)), np.empty((n, 3)), np.empty(n)
        self._has_area = None
        self._average = np.zeros((n, 3))
        self._mirror = None  # _coupling.SkinMirror, made at the first step (Mirror)

    # ---- materials
    def AssignMaterials(self, particle_properties, used_ids=()):
        """Gives the wall faces without an assigned DEM material one made from
        the structure's (see the module text), with ids above `used_ids` (the
        DEM materials' ids). Returns the choice, in words."""
        faces = list(self.walls.Conditions)
        assigned = [c for c in faces if c.GetProperties().Id != PENDING_MATERIAL_ID]
        if len(assigned) == len(faces):
            ids = sorted({c.GetProperties().Id for c in assigned})
            self.material_choice = (f"the skin walls use DEM material {', '.join(map(str, ids))} "
                                    "(MaterialsDEM.json)")
            return self.material_choice
        if not particle_properties:
            raise tessera.Error("coupling: the skin walls have no DEM material and there is no particle "
                                "material to relate them to; assign one in MaterialsDEM.json (row "
                                f"[\"RigidFacePart.{self.walls_part_name}\", material])")
        next_id = 1 + max([p.Id for p in particle_properties] + list(used_ids) +
                          [c.GetProperties().Id for c in assigned] + [0])
        made = {}
        for condition, structural in zip(faces, self.face_properties):
            if condition.GetProperties().Id != PENDING_MATERIAL_ID:
                continue
            if structural is None or not (structural.Has(tessera.YOUNG_MODULUS)
                                          and structural.Has(tessera.POISSON_RATIO)):
                raise tessera.Error("coupling: the skin walls have no DEM material and the structure's "
                                    "material lacks YOUNG_MODULUS or POISSON_RATIO; assign a DEM material "
                                    f"to RigidFacePart.{self.walls_part_name} in MaterialsDEM.json")
            key = id(structural)
            if key not in made:
                wall = tessera.Properties(next_id)
                next_id += 1
                wall[tessera.YOUNG_MODULUS] = structural[tessera.YOUNG_MODULUS]
                wall[tessera.POISSON_RATIO] = structural[tessera.POISSON_RATIO]
                for particle in particle_properties:
                    if not particle.HasSubProperties(particle.Id):
                        # A legacy deck: its contact values sit on the particle
                        # materials, which the DEM reads for walls too.
                        continue
                    relation = particle.GetSubProperties(particle.Id)
                    for first, second in ((wall, particle), (particle, wall)):
                        sub = tessera.Properties(second.Id)
                        _CopyValues(relation, sub)
                        first.AddSubProperties(sub)
                self.walls.AddProperties(wall)
                made[key] = (wall, structural)
            condition.SetProperties(made[key][0])
        described = "; ".join(f"DEM material {wall.Id}: E = {s[tessera.YOUNG_MODULUS]:g} Pa, "
                              f"nu = {s[tessera.POISSON_RATIO]:g}" for wall, s in made.values())
        self.material_choice = ("the skin walls have no DEM material in MaterialsDEM.json: made from the "
                                f"structure's ({described}), with each particle material's own contact "
                                "relation")
        return self.material_choice

    def SetWallMasses(self, masses):
        """NODAL_MASS of each mirror = the lumped mass of its FE node
        (`masses`, per position in the structure's root arrays), none where
        the node's displacement is fixed in every direction (a rigid point):
        the DEM sizes the dashpots of a contact on these walls with the
        reduced mass of the sphere and the wall point (ContactDampingMass,
        applications/dem/walls/rigid_face_storage.h). Before the DEM's
        strategy is initialised (it reads the masses once)."""
        self._SetMirrorMasses(*self.NodalMassesAndFixity(masses))

    def _SetMirrorMasses(self, masses, fixed):
        """NODAL_MASS of each mirror = `masses` (per skin row), 0 where `fixed`
        ((rows, 3)) holds its FE node in every direction."""
        held = fixed[:, :self.dimension].all(axis=1)
        wall_nodes = {node.Id: node for node in self.walls.Nodes}
        for k, node_id in enumerate(self.skin_ids.tolist()):
            mass = 0.0 if held[k] else float(masses[k])
            wall_nodes[self.mirror_of[node_id]].SetValue(tessera.NODAL_MASS, mass)

    def NodalMassesAndFixity(self, masses):
        """Per skin row, on every rank alike: the lumped mass of its FE node
        (`masses`, per position in the structure's root arrays: the
        coupled stage's NodalMasses) and which of its DISPLACEMENT components
        are fixed ((rows, 3), False past the dimension)."""
        components = (tessera.DISPLACEMENT_X, tessera.DISPLACEMENT_Y, tessera.DISPLACEMENT_Z)
        root = self.structure.GetRootModelPart()
        fixed = np.zeros((len(self.skin_ids), 3), dtype=bool)
        for k, node_id in enumerate(self.skin_ids.tolist()):
            node = root.GetNode(node_id)
            for c, variable in enumerate(components[:self.dimension]):
                fixed[k, c] = node.IsFixed(variable)
        return np.asarray(masses)[self.fe_positions], fixed

    # ---- each step
    def MoveWallsForNonsmoothStep(self):
        """Moreau-Jean: the mirrors moved with the structure
        (MoveWallsWithStructure); returns the skin rows' VELOCITY and
        ACCELERATION ((rows, 3) each, every row)."""
        self.MoveWallsWithStructure()
        fe, f = self.structure.GetRootModelPart(), self.fe_positions
        return fe.NodalArray(tessera.VELOCITY)[f], fe.NodalArray(tessera.ACCELERATION)[f]

    def Mirror(self):
        """The C++ transfers between the skin nodes and their mirrors
        (_coupling.SkinMirror: rows in parallel, nothing allocated per step),
        made once both decks' variables are in place."""
        if self._mirror is None:
            self._mirror = _coupling.SkinMirror(self.structure.GetRootModelPart(), self.walls_root,
                                                self.fe_positions.tolist(), self.wall_positions.tolist())
        return self._mirror

    def MoveWallsWithStructure(self):
        """The mirrors take the FE skin nodes' current coordinates (initial
        coordinates plus DISPLACEMENT), DISPLACEMENT and VELOCITY."""
        self.Mirror().MoveWalls()

    def TransferLoadsToStructure(self):
        """DEM_NODAL_FORCE of each FE skin node = CONTACT_FORCES of its mirror
        (from the DEM step's WriteToNodes); DEM_SURFACE_LOAD = that over the
        node's share of the skin area (DEM_NODAL_AREA; zero where it is zero)."""
        self.Mirror().TakeLoads()

    def _SetTraction(self, force):
        """DEM_SURFACE_LOAD = force over the nodal skin area (self._area)."""
        area, traction = self._area, self._second_buffer
        if self._has_area is None:  # a skin node's faces keep a positive area
            self._has_area = (area > 0.0)[:, None].repeat(3, axis=1)
        traction.fill(0.0)
        np.divide(force, area[:, None], out=traction, where=self._has_area)
        self.structure.GetRootModelPart().NodalArray(tessera.DEM_SURFACE_LOAD)[self.fe_positions] = traction

    def MoveWallsBetweenSteps(self, fraction, step):
        """Implicit structure with DEM sub-steps: the mirrors at
        X + u_n + fraction (u_n+1 - u_n), with the mean velocity
        (u_n+1 - u_n) / step (u_n+1 is DISPLACEMENT's current value, u_n its
        previous step's)."""
        fe, f = self.structure.GetRootModelPart(), self.fe_positions
        np.take(fe.NodalArray(tessera.DISPLACEMENT, 1), f, axis=0, out=self._buffer)  # u_n
        np.take(fe.NodalArray(tessera.DISPLACEMENT), f, axis=0, out=self._second_buffer)  # u_n+1
        self._PlaceMirrorsBetweenSteps(fraction, step, np.take(fe.NodalInitialCoordinates(), f, axis=0))

    def _PlaceMirrorsBetweenSteps(self, fraction, step, initial):
        """The mirrors' displacement, velocity and coordinates at the sub-step,
        from u_n in self._buffer and u_n+1 in self._second_buffer (both
        overwritten) and the skin nodes' initial coordinates: the one
        arithmetic of the serial and the distributed runs."""
        walls, w = self.walls_root, self.wall_positions
        x, u = self._buffer, self._second_buffer
        u -= x  # the step's increment
        x += fraction * u  # u at the sub-step
        walls.NodalArray(tessera.DISPLACEMENT)[w] = x
        u *= 1.0 / step
        walls.NodalArray(tessera.VELOCITY)[w] = u
        x += initial
        walls.NodalCoordinates()[w] = x

    def SetLoadsFromNodalForces(self, force):
        """DEM_NODAL_FORCE = `force` (every skin row, aligned with the skin
        nodes; on the rows this process holds) and DEM_SURFACE_LOAD = force
        over the nodal skin area, that area computed here from the whole
        skin (and written as the mirrors' DEM_NODAL_AREA) for strategies
        whose WriteToNodes does not (Moreau-Jean)."""
        fe, rows = self.structure.GetRootModelPart(), self.local_rows
        fe.NodalArray(tessera.DEM_NODAL_FORCE)[self.fe_positions] = force[rows]
        area = self.ComputeNodalAreas()
        if self.walls_root.HasNodalSolutionStepVariable(tessera.DEM_NODAL_AREA):
            self.walls_root.NodalArray(tessera.DEM_NODAL_AREA)[self.wall_positions] = area
        traction = self._second_buffer
        traction.fill(0.0)
        np.divide(force, area[:, None], out=traction, where=(area > 0.0)[:, None])
        fe.NodalArray(tessera.DEM_SURFACE_LOAD)[self.fe_positions] = traction[rows]

    def ComputeNodalAreas(self):
        """Each skin node's share of the skin area as the DEM's WriteToNodes
        defines DEM_NODAL_AREA (node_sync.cpp): every wall face gives its
        vertices equal shares of its area, half the cross product of its
        edges (a triangle) or diagonals (a quadrilateral), a segment its
        length (unit thickness), from the mirrors' current coordinates.
        Returns self._area (rows aligned with the skin nodes)."""
        if getattr(self, "_area_faces", None) is None:
            row_of = {int(self.mirror_of[int(i)]): k for k, i in enumerate(self.skin_ids)}
            groups = {}
            for condition in self.walls.Conditions:
                rows = [row_of[n.Id] for n in condition.GetGeometry()]
                groups.setdefault(len(rows), []).append(rows)
            self._area_faces = {count: np.asarray(rows, dtype=np.int64) for count, rows in groups.items()}
        x = self.walls_root.NodalCoordinates()[self.wall_positions]
        area = self._area
        area.fill(0.0)
        for count, rows in sorted(self._area_faces.items()):
            v = x[rows]
            if count == 2:
                face = np.linalg.norm(v[:, 1] - v[:, 0], axis=1)
            elif count == 3:
                face = 0.5 * np.linalg.norm(np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0]), axis=1)
            else:
                face = 0.5 * np.linalg.norm(np.cross(v[:, 2] - v[:, 0], v[:, 3] - v[:, 1]), axis=1)
            np.add.at(area, rows.ravel(), np.repeat(face / count, count))
        return area

    def StartAveraging(self):
        """Sub-steps: the contact forces are averaged over them from here."""
        self._average.fill(0.0)

    def AccumulateLoads(self, weight):
        """Adds weight x the mirrors' CONTACT_FORCES of the last DEM step."""
        np.take(self.walls_root.NodalArray(tessera.CONTACT_FORCES), self.wall_positions, axis=0,
                out=self._buffer)
        self._buffer *= weight
        self._average += self._buffer

    def FinishAveraging(self):
        """DEM_NODAL_FORCE (and DEM_SURFACE_LOAD) = the average, for the
        structure's next step."""
        fe, f = self.structure.GetRootModelPart(), self.fe_positions
        fe.NodalArray(tessera.DEM_NODAL_FORCE)[f] = self._average
        np.take(self.walls_root.NodalArray(tessera.DEM_NODAL_AREA), self.wall_positions, out=self._area)
        self._SetTraction(self._average)

    def TotalForceOnStructure(self):
        fe = self.structure.GetRootModelPart()
        return fe.NodalArray(tessera.DEM_NODAL_FORCE)[self.fe_positions].sum(axis=0)


def _CopyValues(source, target):
    """Copies the contact parameters a DEM relation may hold."""
    for name in ("COEFFICIENT_OF_RESTITUTION", "STATIC_FRICTION", "DYNAMIC_FRICTION", "FRICTION_DECAY",
                 "ROLLING_FRICTION", "ROLLING_FRICTION_WITH_WALLS", "DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME",
                 "DEM_ROLLING_FRICTION_MODEL_NAME", "K_ALPHA", "CONICAL_DAMAGE_CONTACT_RADIUS",
                 "DEM_KDEM_STANDARD_DAMAGE_MODEL_NAME"):
        if tessera.HasVariable(name):
            variable = tessera.GetVariable(name)
            if source.Has(variable):
                target[variable] = source[variable]
