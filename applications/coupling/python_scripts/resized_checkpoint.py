"""A distributed coupled DE-FE checkpoint (explicit schemes, or the implicit
structure with DEM sub-steps) continued on another number of ranks: the N
rank files (checkpoint_<STEP>.rank<R>of<N>.h5, coupled_checkpoint.py)
merged into the checkpoint a serial coupled run would have written at that
step (MergeRankFiles), each side by its own merge on its part of the file:

* the structure's root model part (its METIS pieces, with the skin's load
  conditions on the owners of the skin nodes): the structure's merge
  (structural resized_checkpoint.MergeModelParts; each node from its owner,
  /Objects/Structure/Solver/OwnedNodes), of which each rank of the
  continuing run loads the piece its fresh partition holds (PieceOfModel,
  LoadPiece below); the load conditions keep the serial run's ids (after
  the whole mesh's largest condition id, by skin node), so the pieces find
  theirs;
* the DEM's rows, contacts and model parts of spheres and clusters: the
  DEM's merge (dem resized_checkpoint.MergeDem under /Objects/DEM/Solver),
  loaded whole on every rank and decomposed as a fresh start does
  (DEMSolver.LoadCheckpoint); a Moreau-Jean DEM's, replicated, and its
  skin walls, which every rank places whole at every step, are the
  template's (dem resized_checkpoint.HoldsReplicatedState);
* the coupling's state (/Objects/Coupling/State): time, step, sub-steps and
  step alike on every rank; the energy monitor's samples too (its terms are
  the ranks' sums, broadcast); its Rayleigh work, each rank's running sum
  over its nodes' shares, is the ranks' sum (rank order), counted on rank 0
  of the continued run (coupled_checkpoint.LoadCoupledCheckpoint): the
  serial run's value to rounding;
* the skin walls' mirror nodes from the rank owning their FE node (between
  DEM searches a rank moves only its own FE nodes' mirrors and reads only
  the faces it needs), and the DEM faces' points from those nodes
  (_MergeSkin); the faces' other columns are computed again when the next
  step reads them. The skin's mirror k is skin node k in ascending ids;
  where the DEM deck's own walls follow the structure instead
  (wall_model_parts), each wall node follows the FE node it lies on,
  mapped from the saved initial coordinates as the run mapped them
  (skin_walls.FollowedNodes; _DeckWallMirrors);
* everything else from the template file, as the two merges take it: the
  DEM deck's other walls (alike on every rank; the wall results, CONTACT_FORCES,
  DEM_PRESSURE and the faces' normal shares, are one rank's part, outputs
  the next step computes again), the decks, the stages' and processes'
  states.

The implicit scheme holds nothing more between structural steps: Bossak's
previous values are the nodal buffer, and the loads the sub-steps averaged
(DEM_NODAL_FORCE and DEM_SURFACE_LOAD of the skin nodes, which the owners'
load conditions carry into the next solve) nodal values, both from each
node's owner; the mirrors stand at X + u_n+1 on every rank after the
sub-steps, and the distributed linear system is built again at the first
step, as the states the sub-steps' interpolation gathers (u_n, u_n+1, X).

The replicated skin (its walls, mirrors, load conditions and which rank owns
which skin node) is built from the decks at the continued run's start as at
a fresh one.

The continued runs equal the uninterrupted ones as closely as the 2-rank
and serial runs equal each other (tests/python/test_mpi_checkpoint.py, the
coupled cases; docs/validation.md)."""
import json

import numpy as np

import tessera
from tessera.checkpoint_merge import CheckRankFiles, Copier, Gather
from tessera.checkpoint_merge import ResizedCheckpointForRank as _ResizedCheckpointForRank

DEM_ROOTS = ("SpheresPart", "RigidFacePart", "ClusterPart", "DEMInletPart")
STRUCTURE_OWNED = "/Objects/Structure/Solver/OwnedNodes"
DEM_SOLVER = "/Objects/DEM/Solver"
STATE = "/Objects/Coupling/State"
_STRINGS = ("HistoricalVariables", "NonHistoricalVariables", "DofVariables", "DofReactions")


def StructureParts(reader):
    """The structure's root model parts in a coupled checkpoint: all but the DEM's."""
    return [part for part in reader.List("/ModelParts") if part not in DEM_ROOTS]


def MergeRankFiles(files, out_path, template_rank=0, ranks=1):
    """Writes to `out_path` the serial coupled checkpoint merged from the
    rank files `files` (rank order) of one step (module text). `ranks`: the
    rank count of the run that will continue (named in errors)."""
    from tessera.dem import resized_checkpoint as dem
    from tessera.structural import resized_checkpoint as structure

    readers = [tessera.CheckpointReader(f) for f in files]
    CheckRankFiles(readers)
    template = readers[template_rank]
    for reader in readers:
        if not reader.Has(STATE):
            raise tessera.Error(f"checkpoint {reader.path} has no {STATE}: it is not a coupled DE-FE "
                                "checkpoint")
    writer = tessera.CheckpointWriter(out_path)
    copy = Copier(writer, template)
    copy.SerialHeader()
    structure.MergeModelParts(copy, readers, StructureParts(template), STRUCTURE_OWNED, ranks)
    # A Moreau-Jean DEM is replicated, every mirror placed on every rank at
    # every step: its DEM parts, walls and strategy are the template's.
    if not dem.HoldsReplicatedState(template, DEM_SOLVER + "/Distributed"):
        dem.MergeDem(copy, readers, template_rank, ranks, DEM_SOLVER)
        _MergeSkin(copy, readers, template_rank)
    state = json.loads(template.ReadString(STATE))
    if "energy" in state:
        total = 0.0
        for reader in readers:  # rank order, as the samples' sums
            total += json.loads(reader.ReadString(STATE))["energy"]["damping_work"]
        state["energy"]["damping_work"] = total
    writer.WriteString(STATE, json.dumps(state))
    copy.done.add(STATE)
    copy.Rest(skip=(STRUCTURE_OWNED,), skip_under=(DEM_SOLVER + "/Distributed",))
    writer.Commit()


def _MergeSkin(copy, readers, template_rank):
    """The skin walls' mirror nodes (every dataset of the node) from the rank
    owning their FE node, which placed them at the last step (a rank moves
    only the mirrors of the FE nodes it holds, and between searches reads
    only the faces it needs: another rank's copy may be older); the other
    wall nodes from the template. The DEM's faces' points (the positions the
    next step's face displacement starts from) then from those nodes, as the
    serial run read them; the faces' other columns (area, plane, boxes,
    velocities) are computed again when the next step reads them."""
    template = readers[template_rank]
    (structure,) = StructureParts(template)
    walls = "/ModelParts/RigidFacePart"
    fe_name = f"/ModelParts/{structure}/SubModelParts/DemCouplingSkin/NodeIds"
    fe_ids = np.unique(np.concatenate([reader.ReadInt64(fe_name) for reader in readers]))
    wall_parts = json.loads(template.ReadString("/Deck/CouplingParameters")).get("wall_model_parts") or []
    if wall_parts:
        mirrors, fe_ids = _DeckWallMirrors(readers, template, structure, walls, wall_parts[0], fe_ids)
    else:
        # Mirror k is skin node k in ascending ids (skin_walls.SkinWalls:
        # ids after the DEM's largest, in the skin nodes' order).
        mirrors = np.sort(template.ReadInt64(f"{walls}/SubModelParts/{structure}Skin/NodeIds"))
    if len(fe_ids) != len(mirrors):
        raise tessera.Error(f"checkpoint {template.path}: {len(mirrors)} skin mirrors for {len(fe_ids)} skin "
                            "nodes (damaged file?)")
    owner = {}
    for r, reader in enumerate(readers):
        owner.update((int(i), r) for i in reader.ReadInt64(STRUCTURE_OWNED))
    node_ids = template.ReadInt64(walls + "/Nodes/Ids")
    for reader in readers:
        if not np.array_equal(reader.ReadInt64(walls + "/Nodes/Ids"), node_ids):
            raise tessera.Error(f"checkpoint {reader.path}: {walls} holds other nodes than in "
                                f"{template.path} (files of different runs?)")
    n = len(node_ids)
    src_rank, src_index = np.full(n, template_rank), np.arange(n)
    position = {int(i): k for k, i in enumerate(node_ids)}
    for mirror, fe_id in zip(mirrors, fe_ids):
        src_rank[position[int(mirror)]] = owner[int(fe_id)]
    counts = [n] * len(readers)
    for name in template.ListDatasets(walls + "/Nodes"):
        if name.rsplit("/", 1)[-1] not in _STRINGS:
            copy.Put(name, Gather(readers, name, counts, src_rank, src_index))
    coordinates = np.frombuffer(Gather(readers, walls + "/Nodes/Coordinates", counts, src_rank,
                                       src_index).tobytes(), np.float64).reshape(n, 3)
    faces = DEM_SOLVER + "/Strategy/Faces"
    points = np.frombuffer(template.ReadRawBytes(faces + "/points"), np.float64).reshape(-1, 4, 3).copy()
    vertices = np.frombuffer(template.ReadRawBytes(faces + "/nodes"), np.uint32).reshape(-1, 4)
    count = np.frombuffer(template.ReadRawBytes(faces + "/vertex_count"), np.uint8)
    used = np.arange(4)[None, :] < count[:, None]
    points[used] = coordinates[vertices[used]]
    copy.Put(faces + "/points", points.view(np.uint8).ravel())


def _Points(reader, name):
    """The (n, 3) doubles of the coordinates dataset `name` (raw bytes)."""
    return np.frombuffer(reader.ReadRawBytes(name), np.float64).reshape(-1, 3)


def _DeckWallMirrors(readers, template, structure, walls, wall_part, fe_ids):
    """(wall node ids, FE node ids), aligned: the DEM deck's walls that
    follow the structure (wall_model_parts) and the FE node each lies on,
    mapped from the initial coordinates as the run mapped them
    (skin_walls.FollowedNodes on the whole structure's nodes: each rank's,
    the ghosts' copies alike)."""
    from .skin_walls import FollowedNodes

    name = wall_part[len("RigidFacePart."):] if wall_part.startswith("RigidFacePart.") else wall_part
    part = walls + "".join(f"/SubModelParts/{piece}" for piece in name.split("."))
    wall_ids = template.ReadInt64(part + "/NodeIds")
    ids = template.ReadInt64(walls + "/Nodes/Ids")
    x0 = _Points(template, walls + "/Nodes/InitialCoordinates")
    position = {int(i): k for k, i in enumerate(ids)}
    wall_x = x0[[position[int(i)] for i in wall_ids]]
    nodes = f"/ModelParts/{structure}/Nodes"
    all_ids = np.concatenate([reader.ReadInt64(nodes + "/Ids") for reader in readers])
    all_x = np.concatenate([_Points(reader, nodes + "/InitialCoordinates") for reader in readers])
    structure_ids, first = np.unique(all_ids, return_index=True)
    mirror_of = FollowedNodes(structure_ids, all_x[first], wall_ids, wall_x, f"of RigidFacePart.{name}",
                              structure)
    if not np.array_equal(np.asarray(sorted(mirror_of), np.int64), fe_ids):
        raise tessera.Error(f"checkpoint {template.path}: the walls of RigidFacePart.{name} lie on other "
                            f"nodes of {structure} than its DemCouplingSkin holds (other decks?)")
    return np.asarray([mirror_of[int(i)] for i in fe_ids], np.int64), fe_ids


def ResizedCheckpointForRank(path, written, rank, ranks):
    """The merged serial coupled checkpoint a rank of the continued run
    loads (checkpoint_merge.ResizedCheckpointForRank)."""
    return _ResizedCheckpointForRank(path, written, rank, ranks, MergeRankFiles)


def LoadPiece(stage, path, load):
    """Calls load(file) with the merged checkpoint `path` whose structure is
    cut to this rank's pieces (structural resized_checkpoint.LoadPiece; the
    DEM's parts whole), then removes the temporary files."""
    from tessera.structural import resized_checkpoint as structure

    structure.LoadPiece(stage, path, load, StructureParts(tessera.CheckpointReader(path)))
