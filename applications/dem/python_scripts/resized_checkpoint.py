"""A distributed DEM checkpoint continued on another number of ranks: the N
rank files (checkpoint_<STEP>.rank<R>of<N>.h5) merged into the checkpoint a
serial run would have written at that step (MergeRankFiles), which a serial
run loads as its own and a run on M ranks loads on every rank before its
decomposition (DistributedDem.Start(restored=True)), as a fresh distributed
run initialises every sphere on every rank before its first bisection.
A Moreau-Jean run's rank files each hold the whole state
(distributed_moreau_jean.h): the merged file is the template's without its
boxes (MergeReplicatedRankFiles), which each rank of the continued run
bisects afresh.

What the merge takes (docs/file_formats.md, "Restart checkpoints"):

* the rows of the strategy: each sphere from the rank that owned it (ghosts
  dropped), in global key order, which is the serial run's row order (the
  distributed run keeps its rows in key order; the keys are those of the
  serial rows at the start, an inlet's spheres taking the next);
* the pair contacts (the last search's candidates with their histories):
  each from the rank owning its first sphere, renumbered to the merged rows,
  sorted by (first, second) as the serial list is; the wall contacts from
  the rank owning the sphere; the indexes over them (first_start, the force
  blocks' cross slots) are left empty and rebuilt on loading
  (DistributedDem.IndexContacts);
* bonds likewise from the owner of the first sphere, the law states slot by
  slot, the bonds parked there (broken bonds whose partner sphere was on no
  row of the rank: DistributedDem's parked_bonds) among them; their index
  and constants' table rebuilt on loading; the bonds' power of the last
  force evaluation summed (counted on rank 0 after);
* spheres glued to sticky walls: each glued row and its reference centre
  from the sphere's owner;
* rigid clusters: each from the owner of its members (rows of consecutive
  keys), in the order of their first rows, the members' cluster numbers and
  the centres' nodes renumbered;
* the spheres' and the clusters' model parts: each node and element from
  its owner, in the merged order;
* the dissipated energies: the ranks' running sums added in rank order,
  counted on rank 0 of the continued run (a distributed run's totals are
  sums over the ranks: the continued run's equal the uninterrupted run's to
  rounding, its spheres bitwise); the per-row powers (global damping, pair
  dissipation) with the rows;
* everything else from the template file: the walls, the inlets' state
  (random generators, counters) and the free (FREE_BODY_MOTION) walls',
  alike on every rank, search counters, deck, ProcessInfo, properties,
  processes' and stage state; the template is the rank of the same number
  where the old run had it, else the last (a rank > 0 of a distributed run
  has the processes of ranks > 0).

A model part of rows or clusters that holds other entities (conditions, or
nodes and elements that are no row or cluster) is refused with an error
naming it."""

import numpy as np

import tessera
from tessera.checkpoint_merge import CheckRankFiles, Copier
from tessera.checkpoint_merge import Gather as _Gather
from tessera.checkpoint_merge import RemoveResized  # noqa: F401 (the stages call it here)
from tessera.checkpoint_merge import ResizedCheckpointForRank as _ResizedCheckpointForRank
from tessera.checkpoint_merge import SplitContainers as _SplitContainers

SOLVER = "/Objects/Solver"
STRATEGY = SOLVER + "/Strategy"
DISTRIBUTED = SOLVER + "/Distributed"
SPHERES = "/ModelParts/SpheresPart"

# Strategy members that are one entry per row, per pair candidate, per wall
# candidate; the lists' indexes, rebuilt on loading.
_ROW_MEMBERS = ("Search/search_position", "Energy/global_damping_power", "Energy/pair_dissipation")
_PAIR_MEMBERS = ("PairContacts/history", "PairContacts/extra_history", "PairContacts/state")
_PAIR_INDEXES = ("first_start", "cross_block_start", "cross_row_start", "cross_row_slot",
                 "cross_force", "cross_elastic", "cross_torque", "earliest_source_block",
                 "latest_target_block")


def ParkedBonds(readers, distributed, keys, owners, merged_keys, stride):
    """The parked bonds (DistributedDem's records, distributed_bonds.cpp) of
    the owner of each one's first sphere, as the merged bonds' columns: first
    and second (merged rows), law_state (stride x count), and per Bonds
    member its bytes per bond (count x width)."""
    records = []
    for r, reader in enumerate(readers):
        name = distributed + "/parked_bonds/records"
        if not reader.Has(name):
            continue
        width = int(np.frombuffer(reader.ReadRawBytes(distributed + "/parked_bonds/width"), np.uint64)[0])
        rows = np.frombuffer(reader.ReadRawBytes(name), np.float64).reshape(-1, width)
        first_key = rows[:, 0].astype(np.int64)
        at = np.searchsorted(keys[r], first_key)
        ok = at < len(keys[r])
        ok[ok] = keys[r][at[ok]] == first_key[ok]
        mine = ok.copy()
        mine[ok] = owners[r][at[ok]] == r
        records.append(rows[mine])
    table = np.concatenate(records) if records else np.zeros((0, 0))
    if len(table) == 0:
        return {"first": np.zeros(0, np.int64), "second": np.zeros(0, np.int64),
                "law_state": np.zeros((stride, 0))}
    width = table.shape[1]
    constants = width - 18 - stride  # the record's head (distributed_bonds.cpp) less its 18 others
    head = 5 + constants

    def Bytes(values, dtype):
        values = np.ascontiguousarray(np.asarray(values, dtype=dtype).reshape(len(table), -1))
        return values.view(np.uint8).reshape(len(table), -1)
    return {"first": np.searchsorted(merged_keys, table[:, 0].astype(np.int64)),
            "second": np.searchsorted(merged_keys, table[:, 1].astype(np.int64)),
            "law": Bytes(table[:, 2], np.uint32), "state": Bytes(table[:, 3], np.uint8),
            "opened": Bytes(table[:, 4], np.uint8), "constants": Bytes(table[:, 5:head], np.float64),
            "failure_criterion": Bytes(table[:, head], np.float64),
            "normal_force": Bytes(table[:, head + 1], np.float64),
            "shear_force": Bytes(table[:, head + 2:head + 5], np.float64),
            "moment": Bytes(table[:, head + 5:head + 8], np.float64),
            "direction": Bytes(table[:, head + 8:head + 11], np.float64),
            "law_state": np.ascontiguousarray(table[:, head + 13:head + 13 + stride].T)}


def _Refuse(readers, path, ranks):
    """What the merge does not know: conditions in the spheres' or the
    clusters' model part (an error naming the dataset and both counts)."""
    for reader in readers:
        for group in ("/ModelParts/SpheresPart/Conditions/Ids",
                      "/ModelParts/ClusterPart/Conditions/Ids"):
            if reader.Has(group) and len(reader.ReadInt64(group)) > 0:
                raise tessera.Error(f"checkpoint {path}: {group} is not empty in {reader.path}; the "
                                    f"merge of its {len(readers)} rank files for a run on {ranks} "
                                    "rank(s) knows sphere and cluster elements only")


def MergeRankFiles(files, out_path, template_rank=0, ranks=1):
    """Writes to `out_path` the serial checkpoint merged from the rank files
    `files` (rank order) of one step; the parts alike on every rank, and the
    processes' states, from files[template_rank]. `ranks`: the rank count of
    the run that will continue (named in errors)."""
    readers = [tessera.CheckpointReader(f) for f in files]
    writer = tessera.CheckpointWriter(out_path)
    copy = Copier(writer, readers[template_rank])
    copy.SerialHeader()
    MergeDem(copy, readers, template_rank, ranks, SOLVER)
    # ---- everything else from the template file (no distributed state)
    copy.Rest(skip_under=(DISTRIBUTED,))
    writer.Commit()


def MergeDem(copy, readers, template_rank, ranks, solver=SOLVER):
    """Writes with `copy` the DEM's part of the serial checkpoint merged from
    the rank files `readers`: the strategy's state under `solver`/Strategy
    and the model parts of the rows and of the clusters (module text); the
    rest (walls, inlets, processes) is the caller's, from the template."""
    strategy, distributed = solver + "/Strategy", solver + "/Distributed"
    n_ranks = len(readers)
    for reader in readers:
        if not reader.Has(distributed + "/row_key"):
            raise tessera.Error(f"checkpoint {reader.path} has no {distributed}: it holds no "
                                "distributed DEM state (only a DEM run continues on another number "
                                "of ranks)")
    CheckRankFiles(readers)
    files = [reader.path for reader in readers]
    _Refuse(readers, files[0], ranks)
    template = readers[template_rank]
    Put, done = copy.Put, copy.done  # noqa: N806

    # ---- rows: the owned ones of every rank, in key order
    keys = [np.frombuffer(rd.ReadRawBytes(distributed + "/row_key"), np.int64) for rd in readers]
    owners = [np.frombuffer(rd.ReadRawBytes(distributed + "/row_owner"), np.int32) for rd in readers]
    counts = [len(k) for k in keys]
    src_rank = np.concatenate([np.full(int((o == r).sum()), r) for r, o in enumerate(owners)])
    src_row = np.concatenate([np.flatnonzero(o == r) for r, o in enumerate(owners)])
    merged_keys = np.concatenate([k[o == r] for r, (k, o) in enumerate(zip(keys, owners))])
    order = np.argsort(merged_keys, kind="stable")
    src_rank, src_row, merged_keys = src_rank[order], src_row[order], merged_keys[order]
    if np.any(np.diff(merged_keys) <= 0):
        raise tessera.Error(f"checkpoint {files[0]}: a sphere key is owned by two ranks (files of "
                            "different runs?)")
    n = len(merged_keys)

    def Global(r, local_rows):
        """Merged row of rank r's rows (by key; ghosts included)."""
        k = keys[r][local_rows]
        at = np.searchsorted(merged_keys, k)
        if np.any(at >= n) or np.any(merged_keys[np.minimum(at, n - 1)] != k):
            raise tessera.Error(f"checkpoint {readers[r].path}: a ghost's key is owned by no rank")
        return at

    def OwnedPairs(group, first_name="first", second_name="second", second_is_row=True):
        """The entries of `group` (a sphere's row, and a second row or a
        wall face) that the owner of the first sphere holds, the rows made
        global, sorted by (first, second) as the serial list is, with each
        one's rank and index there, and the ranks' counts."""
        firsts, seconds, ranks_of, indexes, counts = [], [], [], [], []
        for r, reader in enumerate(readers):
            first = np.frombuffer(reader.ReadRawBytes(f"{group}/{first_name}"), np.uint32)
            second = np.frombuffer(reader.ReadRawBytes(f"{group}/{second_name}"), np.uint32)
            counts.append(len(first))
            mine = np.flatnonzero(owners[r][first] == r) if len(first) else np.zeros(0, np.int64)
            firsts.append(Global(r, first[mine]))
            seconds.append(Global(r, second[mine]) if second_is_row else second[mine])
            ranks_of.append(np.full(len(mine), r))
            indexes.append(mine)
        first, second = np.concatenate(firsts), np.concatenate(seconds)
        ranks_of, indexes = np.concatenate(ranks_of), np.concatenate(indexes)
        order = np.lexsort((second, first))
        return first[order], second[order], ranks_of[order], indexes[order], counts

    # ---- the strategy's per-row columns
    particles = [d for d in template.ListDatasets(strategy + "/Particles")]
    for name in particles:
        member = name[len(strategy) + 1:]
        if member in ("Particles/has_gear", "Particles/has_gear_angular", "Particles/node",
                      "Particles/cluster"):
            continue
        Put(name, _Gather(readers, name, counts, src_rank, src_row))
    for member in _ROW_MEMBERS:
        Put(strategy + "/" + member, _Gather(readers, strategy + "/" + member, counts, src_rank,
                                             src_row))

    # ---- pair candidates: from the owner of the first sphere
    first, second, p_rank, p_index, p_counts = OwnedPairs(strategy + "/PairContacts")
    if np.any(first >= second):
        raise tessera.Error(f"checkpoint {files[0]}: a pair candidate's first sphere is not the one "
                            "of the smaller key")
    Put(strategy + "/PairContacts/first", first.astype(np.uint32).view(np.uint8))
    Put(strategy + "/PairContacts/second", second.astype(np.uint32).view(np.uint8))
    for member in _PAIR_MEMBERS:
        Put(strategy + "/" + member, _Gather(readers, strategy + "/" + member, p_counts, p_rank,
                                             p_index))
    for member in _PAIR_INDEXES:
        Put(f"{strategy}/PairContacts/{member}", np.zeros(0, np.uint8))

    # ---- wall candidates: from the owner of the sphere
    particle, face, w_rank, w_index, w_counts = OwnedPairs(strategy + "/WallContacts", "particle", "face",
                                                            second_is_row=False)
    Put(strategy + "/WallContacts/particle", particle.astype(np.uint32).view(np.uint8))
    Put(strategy + "/WallContacts/face", face.astype(np.uint32).view(np.uint8))
    for name in template.ListDatasets(strategy + "/WallContacts"):
        if name in done:
            continue
        if name.endswith("/particle_start"):
            Put(name, np.zeros(0, np.uint8))
            continue
        Put(name, _Gather(readers, name, w_counts, w_rank, w_index))

    # ---- spheres glued to sticky walls: the glued rows from their owners,
    # in row order, with their reference centres
    g_rows, g_rank, g_index, g_counts = [], [], [], []
    for r, reader in enumerate(readers):
        glued = np.frombuffer(reader.ReadRawBytes(strategy + "/Glued/row"), np.uint32)
        g_counts.append(len(glued))
        mine = np.flatnonzero(owners[r][glued] == r) if len(glued) else np.zeros(0, np.int64)
        g_rows.append(Global(r, glued[mine]))
        g_rank.append(np.full(len(mine), r))
        g_index.append(mine)
    g_rows, g_rank, g_index = np.concatenate(g_rows), np.concatenate(g_rank), np.concatenate(g_index)
    order = np.argsort(g_rows, kind="stable")
    Put(strategy + "/Glued/row", g_rows[order].astype(np.uint32).view(np.uint8))
    Put(strategy + "/Glued/reference", _Gather(readers, strategy + "/Glued/reference", g_counts,
                                               g_rank[order], g_index[order]))

    # ---- bonds: from the owner of the first sphere, sorted as the serial
    # list, the rows' bonds and the parked ones (ParkedBonds) together; the
    # law states slot by slot; the index rebuilt on loading
    bonds = strategy + "/Bonds"
    b_first, b_second, b_rank, b_index, b_counts = OwnedPairs(bonds)
    if template.Has(bonds + "/first"):
        stride_bytes = template.ReadRawBytes(bonds + "/state_stride")
        stride = int(np.frombuffer(stride_bytes, np.uint64 if len(stride_bytes) == 8 else np.uint32)[0])
        parked = ParkedBonds(readers, distributed, keys, owners, merged_keys, stride)
        first = np.concatenate([b_first, parked["first"]])
        second = np.concatenate([b_second, parked["second"]])
        order = np.lexsort((second, first))
        Put(bonds + "/first", first[order].astype(np.uint32).view(np.uint8))
        Put(bonds + "/second", second[order].astype(np.uint32).view(np.uint8))
        parts = [np.frombuffer(rd.ReadRawBytes(bonds + "/law_state"), np.float64) for rd in readers]
        law_state = np.empty((stride, len(b_first)))
        for r, part in enumerate(parts):
            mask = b_rank == r
            if mask.any():
                law_state[:, mask] = part.reshape(stride, b_counts[r])[:, b_index[mask]]
        law_state = np.concatenate([law_state, parked["law_state"]], axis=1)[:, order]
        Put(bonds + "/law_state", np.ascontiguousarray(law_state).ravel().view(np.uint8))
        total = sum(np.frombuffer(rd.ReadRawBytes(bonds + "/power"), np.float64) for rd in readers)
        Put(bonds + "/power", np.asarray(total, np.float64).view(np.uint8))
        for member in ("first_start", "row_start", "row_bonds", "constant_table", "constant_index"):
            Put(f"{bonds}/{member}", np.zeros(0, np.uint8))
        count = len(parked["first"])
        for name in template.ListDatasets(bonds):
            if name in done or name.endswith("/state_stride") or name.endswith("/uniform_law"):
                continue
            rows = _Gather(readers, name, b_counts, b_rank, b_index)
            member = name.rsplit("/", 1)[1]
            if count and member in parked:
                rows = np.concatenate([rows.reshape(len(b_first), -1) if len(b_first) else
                                       np.zeros((0, parked[member].shape[1]), np.uint8), parked[member]])
                rows = rows[order].ravel()
            elif count and rows.size:
                # The last evaluation's scratch (force, elastic, torque_second,
                # powers): none for a parked bond, rewritten by the next one.
                rows = rows.reshape(len(b_first), -1)
                rows = np.concatenate([rows, np.zeros((count, rows.shape[1]), np.uint8)])[order].ravel()
            Put(name, rows)

    # ---- the dissipated energies: the ranks' running sums, in rank order
    name = strategy + "/Energy/dissipated"
    total = np.frombuffer(readers[0].ReadRawBytes(name), np.float64).copy()
    for reader in readers[1:]:
        total = total + np.frombuffer(reader.ReadRawBytes(name), np.float64)
    Put(name, total.view(np.uint8))

    # ---- the model parts of the rows (spheres) and of the clusters: each
    # node and element from the owner, in the merged order
    def Positions(ids, wanted, what, r, group):
        index = {int(i): k for k, i in enumerate(ids)}
        try:
            return np.array([index[int(i)] for i in wanted], dtype=np.int64)
        except KeyError as missing:
            raise tessera.Error(f"checkpoint {readers[r].path}: {what} {missing} is not in "
                                f"{group} (damaged file?)") from None

    def MergePart(group, src, node_of, element_of, count_of, what):
        """The model part `group`, whose entities are `count_of[r]` nodes and
        as many elements per rank, one per merged entry (from rank src[k]):
        node_of[r] and element_of[r] the ids of rank r's entries."""
        node_ids = [reader.ReadInt64(group + "/Nodes/Ids") for reader in readers]
        element_ids = [reader.ReadInt64(group + "/Elements/Ids") for reader in readers]
        if any(len(i) != c or len(e) != c for i, e, c in zip(node_ids, element_ids, count_of)):
            raise tessera.Error(f"checkpoint {files[0]}: {group} holds nodes or elements that are "
                                f"no {what} (the merge onto another number of ranks knows "
                                f"{what}s only)")
        n_src, e_src = src[1].copy(), src[1].copy()
        merged_nodes = np.empty(len(src[0]), np.int64)
        merged_elements = np.empty(len(src[0]), np.int64)
        for r in range(n_ranks):
            mask = src[0] == r
            wanted_nodes, wanted_elements = node_of[r][src[1][mask]], element_of[r][src[1][mask]]
            n_src[mask] = Positions(node_ids[r], wanted_nodes, "node", r, group)
            e_src[mask] = Positions(element_ids[r], wanted_elements, "element", r, group)
            merged_nodes[mask], merged_elements[mask] = wanted_nodes, wanted_elements
        strings = ("HistoricalVariables", "NonHistoricalVariables", "DofVariables", "DofReactions")
        for name in template.ListDatasets(group + "/Nodes"):
            if name.rsplit("/", 1)[-1] not in strings:
                Put(name, _Gather(readers, name, count_of, src[0], n_src))
        for member in ("Ids", "PropertiesIds", "Flags", "DefinedFlags"):
            name = f"{group}/Elements/{member}"
            if template.Has(name):
                Put(name, _Gather(readers, name, count_of, src[0], e_src))
        name = group + "/Elements/Data"
        if template.Has(name):
            containers = [_SplitContainers(reader.ReadRawBytes(name), count_of[r],
                                           f"checkpoint {reader.path}: {name}")
                          for r, reader in enumerate(readers)]
            blob = b"".join(containers[r][k] for r, k in zip(src[0], e_src))
            Put(name, np.frombuffer(blob, np.uint8))
        if template.Has(group + "/Elements/StateOffsets"):
            offsets_of = [rd.ReadUInt64(group + "/Elements/StateOffsets") for rd in readers]
            states_of = [rd.ReadDoubles(group + "/Elements/State") for rd in readers]
            states, offsets = [np.zeros(0)], [0]
            for r, k in zip(src[0], e_src):
                o = offsets_of[r]
                states.append(states_of[r][o[k]:o[k + 1]])
                offsets.append(offsets[-1] + int(o[k + 1] - o[k]))
            Put(group + "/Elements/State", np.concatenate(states), np.float64)
            Put(group + "/Elements/StateOffsets", np.asarray(offsets, np.uint64), np.uint64)
        # Sub model parts: their members present on any rank, in the merged order.
        for name in template.ListDatasets(group + "/SubModelParts"):
            if name.endswith("/ConditionIds"):
                continue
            members = set()
            for reader in readers:
                members.update(int(i) for i in reader.ReadInt64(name))
            pool = merged_nodes if name.endswith("/NodeIds") else merged_elements
            Put(name, np.array([i for i in pool if int(i) in members], np.int64), np.int64)

    row_node_ids = [reader.ReadInt64(strategy + "/Particles/node_id") for reader in readers]
    row_elements = [np.frombuffer(rd.ReadRawBytes(strategy + "/Particles/element_id"), np.int64)
                    for rd in readers]
    MergePart(SPHERES, (src_rank, src_row), row_node_ids, row_elements, counts, "DEM row")
    # Each row's node is its position in the merged nodes (in row order).
    node_width = len(template.ReadRawBytes(strategy + "/Particles/node")) // max(counts[template_rank], 1)
    index_type = np.uint32 if node_width == 4 else np.uint64
    Put(strategy + "/Particles/node", np.arange(n, dtype=index_type).view(np.uint8))

    # ---- rigid clusters: each from the owner of its members (rows of
    # consecutive keys), in the order of their first rows; the members'
    # cluster numbers and the centres' nodes renumbered
    clusters = strategy + "/Clusters"
    first_rows = [np.frombuffer(rd.ReadRawBytes(clusters + "/first_row"), np.uint32) for rd in readers]
    c_counts = [len(f) for f in first_rows]
    c_first, c_rank, c_index = [], [], []
    for r in range(n_ranks):
        mine = np.flatnonzero(owners[r][first_rows[r]] == r) if c_counts[r] else np.zeros(0, np.int64)
        c_first.append(Global(r, first_rows[r][mine]))
        c_rank.append(np.full(len(mine), r))
        c_index.append(mine)
    c_first, c_rank, c_index = np.concatenate(c_first), np.concatenate(c_rank), np.concatenate(c_index)
    order = np.argsort(c_first, kind="stable")
    c_first, c_rank, c_index = c_first[order], c_rank[order], c_index[order]
    # Particles/cluster (k + 1 of the rank's clusters, 0: a free sphere) renumbered.
    cluster_name = strategy + "/Particles/cluster"
    row_cluster = np.frombuffer(_Gather(readers, cluster_name, counts, src_rank, src_row).tobytes(),
                                np.uint32).copy()
    renumber = [np.zeros(c + 1, np.uint32) for c in c_counts]
    for k, (r, j) in enumerate(zip(c_rank, c_index)):
        renumber[r][j + 1] = k + 1
    for r in range(n_ranks):
        mask = src_rank == r
        row_cluster[mask] = renumber[r][row_cluster[mask]]
    Put(cluster_name, row_cluster.view(np.uint8))
    if template.Has(clusters + "/mass"):
        Put(clusters + "/first_row", c_first.astype(np.uint32).view(np.uint8))
        Put(clusters + "/node", np.arange(len(c_first), dtype=index_type).view(np.uint8))
        lengths = [np.frombuffer(rd.ReadRawBytes(clusters + "/member_offset/Lengths"), np.uint64)
                   for rd in readers]
        values = [np.frombuffer(rd.ReadRawBytes(clusters + "/member_offset/Values"), np.uint8)
                  .reshape(-1, 24) for rd in readers]
        starts = [np.concatenate([[0], np.cumsum(length)]).astype(np.int64) for length in lengths]
        Put(clusters + "/member_offset/Lengths",
            np.array([lengths[r][j] for r, j in zip(c_rank, c_index)], np.uint64).view(np.uint8))
        Put(clusters + "/member_offset/Values",
            np.concatenate([np.zeros((0, 24), np.uint8)] +
                           [values[r][starts[r][j]:starts[r][j + 1]] for r, j in zip(c_rank, c_index)])
            .ravel())
        for name in template.ListDatasets(clusters):
            if name not in done and "/member_offset/" not in name:
                Put(name, _Gather(readers, name, c_counts, c_rank, c_index))
        cluster_ids = [np.frombuffer(rd.ReadRawBytes(clusters + "/element_id"), np.int64)
                       for rd in readers]
        part = "/ModelParts/ClusterPart"
        centre_ids = [rd.ReadInt64(part + "/Nodes/Ids")[np.frombuffer(
            rd.ReadRawBytes(clusters + "/node"), index_type).astype(np.int64)] for rd in readers]
        MergePart(part, (c_rank, c_index), centre_ids, cluster_ids, c_counts, "rigid cluster")


def HoldsReplicatedState(reader, distributed=DISTRIBUTED):
    """Whether `reader` is a rank file of a distributed Moreau-Jean run, each
    rank's holding the whole state and the boxes (`distributed`: the group
    of DistributedMoreauJean.SaveState), not an explicit run's pieces."""
    return reader.Has(distributed + "/boxes") and not reader.Has(distributed + "/row_key")


def MergeReplicatedRankFiles(files, out_path, template_rank=0, ranks=1):
    """MergeRankFiles for a distributed Moreau-Jean run, whose ranks each
    hold the whole state (distributed_moreau_jean.h): the template file as a
    serial checkpoint, without its boxes (the continued run bisects anew)."""
    readers = [tessera.CheckpointReader(f) for f in files]
    CheckRankFiles(readers)
    for reader in readers:
        if not HoldsReplicatedState(reader):
            raise tessera.Error(f"checkpoint {reader.path} holds no distributed Moreau-Jean state "
                                f"({DISTRIBUTED}/boxes), which this deck's moreau_jean_strategy "
                                "runs need (another deck?)")
    writer = tessera.CheckpointWriter(out_path)
    copy = Copier(writer, readers[template_rank])
    copy.SerialHeader()
    copy.Rest(skip_under=(DISTRIBUTED,))
    writer.Commit()


def ResizedCheckpointForRank(path, written, rank, ranks, replicated=False):
    """The merged serial checkpoint a rank of the continued DEM run loads
    (checkpoint_merge.ResizedCheckpointForRank); `replicated`: of a
    Moreau-Jean run (MergeReplicatedRankFiles)."""
    merge = MergeReplicatedRankFiles if replicated else MergeRankFiles
    return _ResizedCheckpointForRank(path, written, rank, ranks, merge)
