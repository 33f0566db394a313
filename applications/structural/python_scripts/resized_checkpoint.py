"""A distributed structural checkpoint continued on another number of ranks
(explicit or implicit): the N rank files
(checkpoint_<STEP>.rank<R>of<N>.h5, each the METIS piece of one rank: its
elements and conditions, its owned and ghost nodes) merged into the
checkpoint of the whole structure a serial run would have written at that
step (MergeRankFiles), and that state cut to the piece each rank of the
continuing run holds (PieceOfModel): a run on M ranks partitions the deck's
mesh as a fresh start does (DistributeModelPart in PrepareModelPart), then
loads the merged state of the nodes and entities it kept.

What the merge takes (docs/file_formats.md, "Restart checkpoints"):

* each node (coordinates, flags, every solution-step value of the buffer,
  the non-historical values, the dofs' fixity) from the rank that owned it
  (the solver's OwnedNodes, written by distributed runs); a ghost's copy is
  dropped;
* each element and condition (properties, flags, data container, the
  internal state: constitutive laws, integration-point data) from the one
  rank that held it, by id;
* the sub model parts' members: their union over the ranks;
* everything else from the template file: the ProcessInfo (time, step,
  DELTA_TIME), the properties, the deck, the processes' and the stage's
  state; the template is the rank of the same number where the old run had
  it, else the last (as for the DEM's merge).

The strategies keep no state beyond the model part (central differences'
a_n and Bossak's previous values are the nodal buffer's); what belongs to
the pieces (the lumped mass, the dof numbering, the distributed system) is
built again at the first step, the equation ids the file holds renumbered
there."""
import os
import shutil
import tempfile

import numpy as np

import tessera
from tessera.checkpoint_merge import CheckRankFiles, Copier, Gather, SplitContainers
from tessera.checkpoint_merge import RemoveResized  # noqa: F401 (the stages call it here)
from tessera.checkpoint_merge import ResizedCheckpointForRank as _ResizedCheckpointForRank

OWNED = "/Objects/Solver/OwnedNodes"
_STRINGS = ("HistoricalVariables", "NonHistoricalVariables", "DofVariables", "DofReactions")


def _Positions(ids, wanted, what):
    """Where each id of `wanted` is in `ids`; an error naming `what`."""
    index = {int(i): k for k, i in enumerate(ids)}
    try:
        return np.array([index[int(i)] for i in wanted], dtype=np.int64)
    except KeyError as missing:
        raise tessera.Error(f"{what} {missing}") from None


def _CopyEntities(copy, readers, group, src_rank, src_index, counts):
    """The entities (elements or conditions) of `group`, entry k from
    (src_rank[k], src_index[k]): ids, properties, flags, data container,
    internal state."""
    for member in ("Ids", "PropertiesIds", "Flags", "DefinedFlags"):
        copy.Put(f"{group}/{member}", Gather(readers, f"{group}/{member}", counts, src_rank, src_index))
    containers = [SplitContainers(reader.ReadRawBytes(group + "/Data"), counts[r],
                                   f"checkpoint {reader.path}: {group}/Data")
                  for r, reader in enumerate(readers)]
    blob = b"".join(containers[r][k] for r, k in zip(src_rank, src_index))
    copy.Put(group + "/Data", np.frombuffer(blob, np.uint8))
    offsets_of = [reader.ReadUInt64(group + "/StateOffsets") for reader in readers]
    states_of = [reader.ReadDoubles(group + "/State") for reader in readers]
    states, offsets = [np.zeros(0)], [0]
    for r, k in zip(src_rank, src_index):
        o = offsets_of[r]
        states.append(states_of[r][o[k]:o[k + 1]])
        offsets.append(offsets[-1] + int(o[k + 1] - o[k]))
    copy.Put(group + "/State", np.concatenate(states), np.float64)
    copy.Put(group + "/StateOffsets", np.asarray(offsets, np.uint64), np.uint64)


def _CopyModelPart(copy, readers, group, node_src, node_counts, entity_src, subparts):
    """The model part `group`: node k from node_src (rank, index) with
    node_counts[r] nodes in rank r's file; entity_src["Elements"] and
    ["Conditions"] likewise (rank, index, counts); `subparts(name)` the
    member ids of the sub model part dataset `name`."""
    for name in copy.template.ListDatasets(group + "/Nodes"):
        if name.rsplit("/", 1)[-1] not in _STRINGS:
            copy.Put(name, Gather(readers, name, node_counts, *node_src))
    for kind, (src_rank, src_index, counts) in entity_src.items():
        _CopyEntities(copy, readers, f"{group}/{kind}", src_rank, src_index, counts)
    for name in copy.template.ListDatasets(group + "/SubModelParts"):
        copy.Put(name, np.asarray(subparts(name), np.int64), np.int64)


def MergeRankFiles(files, out_path, template_rank=0, ranks=1):
    """Writes to `out_path` the checkpoint of the whole structure merged from
    the rank files `files` (rank order) of one step: nodes, elements and
    conditions in ascending ids. `ranks`: the rank count of the run that
    will continue (named in errors)."""
    readers = [tessera.CheckpointReader(f) for f in files]
    CheckRankFiles(readers)
    writer = tessera.CheckpointWriter(out_path)
    copy = Copier(writer, readers[template_rank])
    copy.SerialHeader()
    MergeModelParts(copy, readers, readers[template_rank].List("/ModelParts"), OWNED, ranks)
    copy.Rest(skip=(OWNED,))
    writer.Commit()


def MergeModelParts(copy, readers, parts, owned_name, ranks):
    """Writes with `copy` the root model parts `parts` of the structure
    merged from the rank files `readers`: each node from the rank owning it
    (the ids in dataset `owned_name` of each file), each element and
    condition from the rank holding it, the sub model parts' members their
    union over the ranks. `ranks`: the continuing run's count (in errors)."""
    n_ranks = len(readers)
    for reader in readers:
        if not reader.Has(owned_name):
            raise tessera.Error(f"checkpoint {reader.path} has no {owned_name} (written by a version "
                                "that did not keep the nodes' owners): it continues on "
                                f"{n_ranks} rank(s) only, not on {ranks}")
    owned = [reader.ReadInt64(owned_name) for reader in readers]
    for part in parts:
        group = f"/ModelParts/{part}"
        # Nodes: each from its owner.
        node_ids = [reader.ReadInt64(group + "/Nodes/Ids") for reader in readers]
        merged = np.concatenate(owned)
        order = np.argsort(merged, kind="stable")
        merged = merged[order]
        if np.any(np.diff(merged) == 0):
            raise tessera.Error(f"checkpoint {readers[0].path}: a node is owned by two ranks (files of "
                                "different runs?)")
        src_rank = np.concatenate([np.full(len(o), r) for r, o in enumerate(owned)])[order]
        src_index = np.concatenate([
            _Positions(node_ids[r], o, f"checkpoint {readers[r].path}: {group} has no owned node")
            for r, o in enumerate(owned)])[order]
        for r, ids in enumerate(node_ids):
            if not np.isin(ids, merged).all():
                raise tessera.Error(f"checkpoint {readers[r].path}: {group} has nodes no rank owns")
        # Elements and conditions: each held by one rank.
        entities = {}
        for kind in ("Elements", "Conditions"):
            ids = [reader.ReadInt64(f"{group}/{kind}/Ids") for reader in readers]
            all_ids = np.concatenate(ids)
            e_order = np.argsort(all_ids, kind="stable")
            if np.any(np.diff(all_ids[e_order]) == 0):
                raise tessera.Error(f"checkpoint {readers[0].path}: {group}/{kind}: an id is held by two "
                                    "ranks (files of different runs?)")
            e_rank = np.concatenate([np.full(len(i), r) for r, i in enumerate(ids)])[e_order]
            e_index = np.concatenate([np.arange(len(i)) for i in ids])[e_order]
            entities[kind] = (e_rank, e_index, [len(i) for i in ids])

        def Members(name):
            members = set()
            for reader in readers:
                members.update(int(i) for i in reader.ReadInt64(name))
            return sorted(members)

        _CopyModelPart(copy, readers, group, (src_rank, src_index), [len(i) for i in node_ids],
                       entities, Members)


def PieceOfModel(path, out_path, model, parts=None):
    """Writes to `out_path` the checkpoint `path` (of the whole structure)
    cut to the nodes, elements and conditions this rank's `model` holds, in
    their order there (a run on M ranks: its METIS piece; a serial run: all):
    the root model parts `parts` (None: all), the rest as it is."""
    reader = tessera.CheckpointReader(path)
    writer = tessera.CheckpointWriter(out_path)
    copy = Copier(writer, reader)
    copy.SerialHeader()
    for part in reader.List("/ModelParts") if parts is None else parts:
        group = f"/ModelParts/{part}"
        mp = model[part]
        saved_nodes = reader.ReadInt64(group + "/Nodes/Ids")
        what = f"checkpoint {path}: {group} has no node"
        nodes = _Positions(saved_nodes, np.asarray(mp.NodeIds(), np.int64), what)
        zeros = np.zeros(len(nodes), np.int64)
        entities = {}
        for kind, current in (("Elements", mp.Elements), ("Conditions", mp.Conditions)):
            saved = reader.ReadInt64(f"{group}/{kind}/Ids")
            index = _Positions(saved, [e.Id for e in current],
                               f"checkpoint {path}: {group} has no {kind[:-1].lower()}")
            entities[kind] = (np.zeros(len(index), np.int64), index, [len(saved)])
        held = {"NodeIds": set(int(i) for i in mp.NodeIds()),
                "ElementIds": set(e.Id for e in mp.Elements),
                "ConditionIds": set(c.Id for c in mp.Conditions)}

        def Members(name):
            mine = held[name.rsplit("/", 1)[-1]]
            return [int(i) for i in reader.ReadInt64(name) if int(i) in mine]

        _CopyModelPart(copy, [reader], group, (zeros, nodes), [len(saved_nodes)], entities, Members)
    copy.Rest()
    writer.Commit()


def ResizedCheckpointForRank(path, written, rank, ranks):
    """The merged checkpoint of the whole structure that a rank of the
    continued run cuts its piece from (checkpoint_merge.ResizedCheckpointForRank)."""
    return _ResizedCheckpointForRank(path, written, rank, ranks, MergeRankFiles)


def LoadPiece(stage, path, load, parts=None):
    """Calls load(file) with the checkpoint `path` of the whole structure
    cut to this rank's piece of stage.model (its root model parts `parts`,
    None: all; a temporary file), then removes the temporary folders (the
    piece's, and the merged file's)."""
    folder = tempfile.mkdtemp(prefix="tessera_resized_")
    try:
        piece = os.path.join(folder, "piece.h5")
        PieceOfModel(path, piece, stage.model, parts)
        load(piece)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        RemoveResized(path)
