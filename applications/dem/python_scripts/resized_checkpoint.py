"""A distributed DEM checkpoint continued on another number of ranks: the N
rank files (checkpoint_<STEP>.rank<R>of<N>.h5) merged into the checkpoint a
serial run would have written at that step (MergeRankFiles), which a serial
run loads as its own and a run on M ranks loads on every rank before its
decomposition (DistributedDem.Start(restored=True)), as a fresh distributed
run initialises every sphere on every rank before its first bisection.

What the merge takes (docs/file_formats.md, "Restart checkpoints"):

* the rows of the strategy: each sphere from the rank that owned it (ghosts
  dropped), in global key order, which is the serial run's row order (the
  distributed run keeps its rows in key order; the keys are those of the
  serial rows at the start);
* the pair contacts (the last search's candidates with their histories):
  each from the rank owning its first sphere, renumbered to the merged rows,
  sorted by (first, second) as the serial list is; the wall contacts from
  the rank owning the sphere; the indexes over them (first_start, the force
  blocks' cross slots) are left empty and rebuilt on loading
  (DistributedDem.IndexContacts);
* the spheres' model part: each node and element from the rank owning it,
  in the merged row order; the ProcessInfo, properties and the other model
  parts from the template file;
* the dissipated energies: the ranks' running sums added in rank order,
  counted on rank 0 of the continued run (a distributed run's totals are
  sums over the ranks: the continued run's equal the uninterrupted run's to
  rounding, its spheres bitwise); the per-row powers (global damping, pair
  dissipation) with the rows;
* everything else (walls, search counters, deck, processes' states, stage
  state) from the template file: the rank of the same number where the old
  run had it, else the last (a rank > 0 of a distributed run has the
  processes of ranks > 0).

* spheres glued to sticky walls: each glued row and its reference centre
  from the sphere's owner; the inlets' state (their random generators and
  counters) and free (FREE_BODY_MOTION) walls' state, alike on every rank,
  from the template file; new spheres of the inlets take keys after every
  merged one, as in the uninterrupted run.

* bonds: each from the owner of its first sphere, sorted as the serial
  list, the law states slot by slot; the index and the constants' table
  rebuilt on loading; the bonds' power of the last force evaluation summed
  (counted on rank 0 of the continued run).

Rigid clusters are refused with an error naming the key and both rank
counts (not merged yet)."""
import os
import shutil
import struct
import tempfile

import numpy as np

import tessera
from tessera import checkpoint as _checkpoint

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
_READS = (("ReadDoubles", np.float64), ("ReadInt64", np.int64), ("ReadUInt64", np.uint64),
          ("ReadUInt32", np.uint32), ("ReadBytes", np.uint8))


def _Dtype(reader, name):
    """The element type of a dataset (the writer must write the same)."""
    for method, dtype in _READS:
        try:
            getattr(reader, method)(name)
            return dtype
        except Exception:  # another element type: try the next
            continue
    raise tessera.Error(f"checkpoint {reader.path}: dataset {name} has an element type the merge of "
                        "rank files does not know")


def _Raw(reader, name):
    return np.frombuffer(reader.ReadRawBytes(name), dtype=np.uint8)


def _Gather(readers, name, counts, src_rank, src_index):
    """The bytes of dataset `name`, `counts[r]` entries in rank r's file, for
    the merged entries taken from (src_rank[k], src_index[k])."""
    parts = [_Raw(reader, name) for reader in readers]
    if all(part.size == 0 for part in parts):
        return parts[0]
    width = None
    for r, part in enumerate(parts):
        if counts[r] == 0 and part.size == 0:
            continue
        if counts[r] == 0 or part.size % counts[r] != 0 or \
                (width is not None and part.size // counts[r] != width):
            raise tessera.Error(f"checkpoint {readers[r].path}: {name} holds {part.size} bytes for "
                                f"{counts[r]} entries (not a fixed width per entry: such a column "
                                "cannot be merged onto another number of ranks)")
        width = part.size // counts[r]
    out = np.empty((len(src_rank), width), dtype=np.uint8)
    for r, part in enumerate(parts):
        mask = src_rank == r
        if mask.any():
            out[mask] = part.reshape(counts[r], width)[src_index[mask]]
    return out.ravel()


def _Write(writer, name, raw, dtype):
    writer.Write(name, np.frombuffer(np.ascontiguousarray(raw).tobytes(), dtype=dtype))


def _SplitContainers(blob, count, what):
    """The data containers of `count` entities, one after the other
    (kernel/io/value_bytes.h), as one bytes object each."""
    fixed = {0: 8, 1: 4, 2: 1, 3: 24, 7: 32}
    out, pos = [], 0
    for _ in range(count):
        start = pos
        (entries,) = struct.unpack_from("<Q", blob, pos)
        pos += 8
        for _ in range(entries):
            (length,) = struct.unpack_from("<Q", blob, pos)
            pos += 8 + length
            kind = blob[pos]
            pos += 1
            if kind in fixed:
                pos += fixed[kind]
            elif kind == 6:
                (length,) = struct.unpack_from("<Q", blob, pos)
                pos += 8 + length
            elif kind == 4:
                (size,) = struct.unpack_from("<Q", blob, pos)
                pos += 8 + 8 * size
            elif kind == 5:
                rows, cols = struct.unpack_from("<QQ", blob, pos)
                pos += 16 + 8 * rows * cols
            else:
                raise tessera.Error(f"{what}: unknown value kind {kind} (damaged file?)")
        out.append(bytes(blob[start:pos]))
    if pos != len(blob):
        raise tessera.Error(f"{what}: {len(blob) - pos} bytes after the {count} containers")
    return out


def _Refuse(readers, path, ranks):
    """What does not continue on another number of ranks yet: an error
    naming the key and both counts."""
    n = len(readers)
    template = readers[0]
    checks = (
        (STRATEGY + "/Clusters/element_id", "rigid clusters"),
    )
    for name, what in checks:
        if any(reader.Has(name) and len(reader.ReadRawBytes(name)) > 0 for reader in readers):
            raise tessera.Error(f"checkpoint {path}: {what} ({name}) continue only on as many ranks "
                                f"as wrote them: written on {n} rank(s), this run has {ranks}")
    for reader in readers:
        for group in ("/ModelParts/SpheresPart/Conditions/Ids",):
            if reader.Has(group) and len(reader.ReadInt64(group)) > 0:
                raise tessera.Error(f"checkpoint {reader.path}: {group} is not empty; the merge "
                                    "onto another number of ranks knows sphere elements only")


def MergeRankFiles(files, out_path, template_rank=0, ranks=1):
    """Writes to `out_path` the serial checkpoint merged from the rank files
    `files` (rank order) of one step; the parts alike on every rank, and the
    processes' states, from files[template_rank]. `ranks`: the rank count of
    the run that will continue (named in errors)."""
    readers = [tessera.CheckpointReader(f) for f in files]
    n_ranks = len(readers)
    for r, reader in enumerate(readers):
        if not reader.Has(DISTRIBUTED + "/row_key"):
            raise tessera.Error(f"checkpoint {reader.path} has no {DISTRIBUTED}: it holds no "
                                "distributed DEM state (only a DEM run continues on another number "
                                "of ranks)")
        if reader.IntAttribute("ranks") != n_ranks or reader.IntAttribute("rank") != r:
            raise tessera.Error(f"checkpoint {reader.path} says rank {reader.IntAttribute('rank')} of "
                                f"{reader.IntAttribute('ranks')}; expected rank {r} of {n_ranks}")
    _Refuse(readers, files[0], ranks)
    template = readers[template_rank]

    # ---- rows: the owned ones of every rank, in key order
    keys = [np.frombuffer(rd.ReadRawBytes(DISTRIBUTED + "/row_key"), np.int64) for rd in readers]
    owners = [np.frombuffer(rd.ReadRawBytes(DISTRIBUTED + "/row_owner"), np.int32) for rd in readers]
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

    writer = tessera.CheckpointWriter(out_path)
    for attribute in ("stage",):
        writer.SetAttribute(attribute, template.StringAttribute(attribute))
    writer.SetAttribute("rank", 0)
    writer.SetAttribute("ranks", 1)
    writer.SetAttribute("time", template.DoubleAttribute("time"))
    writer.SetAttribute("step", template.IntAttribute("step"))
    done = set()

    def Put(name, raw, dtype=None):
        _Write(writer, name, raw, dtype if dtype is not None else _Dtype(template, name))
        done.add(name)

    # ---- the strategy's per-row columns
    particles = [d for d in template.ListDatasets(STRATEGY + "/Particles")]
    for name in particles:
        member = name[len(STRATEGY) + 1:]
        if member in ("Particles/has_gear", "Particles/has_gear_angular", "Particles/node"):
            continue
        Put(name, _Gather(readers, name, counts, src_rank, src_row))
    for member in _ROW_MEMBERS:
        Put(STRATEGY + "/" + member, _Gather(readers, STRATEGY + "/" + member, counts, src_rank,
                                             src_row))

    # ---- pair candidates: from the owner of the first sphere
    firsts, seconds, p_rank, p_index, p_counts = [], [], [], [], []
    for r, reader in enumerate(readers):
        first = np.frombuffer(reader.ReadRawBytes(STRATEGY + "/PairContacts/first"), np.uint32)
        second = np.frombuffer(reader.ReadRawBytes(STRATEGY + "/PairContacts/second"), np.uint32)
        p_counts.append(len(first))
        mine = np.flatnonzero(owners[r][first] == r) if len(first) else np.zeros(0, np.int64)
        firsts.append(Global(r, first[mine]))
        seconds.append(Global(r, second[mine]))
        p_rank.append(np.full(len(mine), r))
        p_index.append(mine)
    first, second = np.concatenate(firsts), np.concatenate(seconds)
    p_rank, p_index = np.concatenate(p_rank), np.concatenate(p_index)
    order = np.lexsort((second, first))
    first, second, p_rank, p_index = first[order], second[order], p_rank[order], p_index[order]
    if np.any(first >= second):
        raise tessera.Error(f"checkpoint {files[0]}: a pair candidate's first sphere is not the one "
                            "of the smaller key")
    Put(STRATEGY + "/PairContacts/first", first.astype(np.uint32).view(np.uint8))
    Put(STRATEGY + "/PairContacts/second", second.astype(np.uint32).view(np.uint8))
    for member in _PAIR_MEMBERS:
        Put(STRATEGY + "/" + member, _Gather(readers, STRATEGY + "/" + member, p_counts, p_rank,
                                             p_index))
    for member in _PAIR_INDEXES:
        Put(f"{STRATEGY}/PairContacts/{member}", np.zeros(0, np.uint8))

    # ---- wall candidates: from the owner of the sphere
    parts, faces, w_rank, w_index, w_counts = [], [], [], [], []
    for r, reader in enumerate(readers):
        particle = np.frombuffer(reader.ReadRawBytes(STRATEGY + "/WallContacts/particle"), np.uint32)
        face = np.frombuffer(reader.ReadRawBytes(STRATEGY + "/WallContacts/face"), np.uint32)
        w_counts.append(len(particle))
        mine = np.flatnonzero(owners[r][particle] == r) if len(particle) else np.zeros(0, np.int64)
        parts.append(Global(r, particle[mine]))
        faces.append(face[mine])
        w_rank.append(np.full(len(mine), r))
        w_index.append(mine)
    particle, face = np.concatenate(parts), np.concatenate(faces)
    w_rank, w_index = np.concatenate(w_rank), np.concatenate(w_index)
    order = np.lexsort((face, particle))
    particle, face, w_rank, w_index = particle[order], face[order], w_rank[order], w_index[order]
    Put(STRATEGY + "/WallContacts/particle", particle.astype(np.uint32).view(np.uint8))
    Put(STRATEGY + "/WallContacts/face", face.astype(np.uint32).view(np.uint8))
    for name in template.ListDatasets(STRATEGY + "/WallContacts"):
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
        glued = np.frombuffer(reader.ReadRawBytes(STRATEGY + "/Glued/row"), np.uint32)
        g_counts.append(len(glued))
        mine = np.flatnonzero(owners[r][glued] == r) if len(glued) else np.zeros(0, np.int64)
        g_rows.append(Global(r, glued[mine]))
        g_rank.append(np.full(len(mine), r))
        g_index.append(mine)
    g_rows, g_rank, g_index = np.concatenate(g_rows), np.concatenate(g_rank), np.concatenate(g_index)
    order = np.argsort(g_rows, kind="stable")
    Put(STRATEGY + "/Glued/row", g_rows[order].astype(np.uint32).view(np.uint8))
    Put(STRATEGY + "/Glued/reference", _Gather(readers, STRATEGY + "/Glued/reference", g_counts,
                                               g_rank[order], g_index[order]))

    # ---- bonds: from the owner of the first sphere, sorted as the serial
    # list; the law states slot by slot; the index rebuilt on loading
    bonds = STRATEGY + "/Bonds"
    b_first, b_second, b_rank, b_index, b_counts = [], [], [], [], []
    for r, reader in enumerate(readers):
        first = np.frombuffer(reader.ReadRawBytes(bonds + "/first"), np.uint32)
        second = np.frombuffer(reader.ReadRawBytes(bonds + "/second"), np.uint32)
        b_counts.append(len(first))
        mine = np.flatnonzero(owners[r][first] == r) if len(first) else np.zeros(0, np.int64)
        b_first.append(Global(r, first[mine]))
        b_second.append(Global(r, second[mine]))
        b_rank.append(np.full(len(mine), r))
        b_index.append(mine)
    b_first, b_second = np.concatenate(b_first), np.concatenate(b_second)
    b_rank, b_index = np.concatenate(b_rank), np.concatenate(b_index)
    order = np.lexsort((b_second, b_first))
    b_first, b_second, b_rank, b_index = (b_first[order], b_second[order], b_rank[order],
                                          b_index[order])
    if template.Has(bonds + "/first"):
        Put(bonds + "/first", b_first.astype(np.uint32).view(np.uint8))
        Put(bonds + "/second", b_second.astype(np.uint32).view(np.uint8))
        stride_bytes = template.ReadRawBytes(bonds + "/state_stride")
        stride = int(np.frombuffer(stride_bytes, np.uint64 if len(stride_bytes) == 8 else np.uint32)[0])
        parts = [np.frombuffer(rd.ReadRawBytes(bonds + "/law_state"), np.float64) for rd in readers]
        law_state = np.empty((stride, len(b_first)))
        for r, part in enumerate(parts):
            mask = b_rank == r
            if mask.any():
                law_state[:, mask] = part.reshape(stride, b_counts[r])[:, b_index[mask]]
        Put(bonds + "/law_state", law_state.ravel().view(np.uint8))
        total = sum(np.frombuffer(rd.ReadRawBytes(bonds + "/power"), np.float64) for rd in readers)
        Put(bonds + "/power", np.asarray(total, np.float64).view(np.uint8))
        for member in ("first_start", "row_start", "row_bonds", "constant_table", "constant_index"):
            Put(f"{bonds}/{member}", np.zeros(0, np.uint8))
        for name in template.ListDatasets(bonds):
            if name in done or name.endswith("/state_stride") or name.endswith("/uniform_law"):
                continue
            Put(name, _Gather(readers, name, b_counts, b_rank, b_index))

    # ---- the dissipated energies: the ranks' running sums, in rank order
    name = STRATEGY + "/Energy/dissipated"
    total = np.frombuffer(readers[0].ReadRawBytes(name), np.float64).copy()
    for reader in readers[1:]:
        total = total + np.frombuffer(reader.ReadRawBytes(name), np.float64)
    Put(name, total.view(np.uint8))

    # ---- the spheres' model part: nodes and elements from their owners
    row_node_ids = [reader.ReadInt64(STRATEGY + "/Particles/node_id") for reader in readers]
    row_elements = [np.frombuffer(rd.ReadRawBytes(STRATEGY + "/Particles/element_id"), np.int64)
                    for rd in readers]
    node_ids = [reader.ReadInt64(SPHERES + "/Nodes/Ids") for reader in readers]
    element_ids = [reader.ReadInt64(SPHERES + "/Elements/Ids") for reader in readers]

    def Positions(ids, wanted, what, r):
        index = {int(i): k for k, i in enumerate(ids)}
        try:
            return np.array([index[int(i)] for i in wanted], dtype=np.int64)
        except KeyError as missing:
            raise tessera.Error(f"checkpoint {readers[r].path}: {what} {missing} of a row is not in "
                                f"{SPHERES} (damaged file?)") from None

    n_src = np.zeros(n, np.int64)
    e_src = np.zeros(n, np.int64)
    for r in range(n_ranks):
        mask = src_rank == r
        n_src[mask] = Positions(node_ids[r], row_node_ids[r][src_row[mask]], "node", r)
        e_src[mask] = Positions(element_ids[r], row_elements[r][src_row[mask]], "element", r)
    merged_nodes = np.empty(n, np.int64)
    merged_elements = np.empty(n, np.int64)
    for r in range(n_ranks):
        mask = src_rank == r
        merged_nodes[mask] = row_node_ids[r][src_row[mask]]
        merged_elements[mask] = row_elements[r][src_row[mask]]
    if any(len(i) != c or len(e) != c for i, e, c in zip(node_ids, element_ids, counts)):
        raise tessera.Error(f"checkpoint {files[0]}: {SPHERES} holds nodes or elements that are no "
                            "DEM row (only spheres continue on another number of ranks)")
    # Each row's node is its position in the merged nodes (in row order).
    node_width = len(template.ReadRawBytes(STRATEGY + "/Particles/node")) // max(counts[template_rank], 1)
    Put(STRATEGY + "/Particles/node",
        np.arange(n, dtype=np.uint32 if node_width == 4 else np.uint64).view(np.uint8))
    node_counts = [len(ids) for ids in node_ids]
    element_counts = [len(ids) for ids in element_ids]
    strings = ("HistoricalVariables", "NonHistoricalVariables", "DofVariables", "DofReactions")
    for name in template.ListDatasets(SPHERES + "/Nodes"):
        if name.rsplit("/", 1)[-1] in strings:
            continue
        Put(name, _Gather(readers, name, node_counts, src_rank, n_src))
    for member in ("Ids", "PropertiesIds", "Flags", "DefinedFlags"):
        name = f"{SPHERES}/Elements/{member}"
        if template.Has(name):
            Put(name, _Gather(readers, name, element_counts, src_rank, e_src))
    name = SPHERES + "/Elements/Data"
    if template.Has(name):
        containers = [_SplitContainers(reader.ReadRawBytes(name), element_counts[r],
                                       f"checkpoint {reader.path}: {name}")
                      for r, reader in enumerate(readers)]
        blob = b"".join(containers[r][k] for r, k in zip(src_rank, e_src))
        Put(name, np.frombuffer(blob, np.uint8))
    if template.Has(SPHERES + "/Elements/StateOffsets"):
        states, offsets = [], [0]
        for r, k in zip(src_rank, e_src):
            o = readers[r].ReadUInt64(SPHERES + "/Elements/StateOffsets")
            s = readers[r].ReadDoubles(SPHERES + "/Elements/State")
            states.append(s[o[k]:o[k + 1]])
            offsets.append(offsets[-1] + int(o[k + 1] - o[k]))
        Put(SPHERES + "/Elements/State", np.concatenate(states + [np.zeros(0)]), np.float64)
        Put(SPHERES + "/Elements/StateOffsets", np.asarray(offsets, np.uint64), np.uint64)
    # Sub model parts: their members present on any rank, in the merged order.
    for name in template.ListDatasets(SPHERES + "/SubModelParts"):
        members = set()
        for reader in readers:
            members.update(int(i) for i in reader.ReadInt64(name))
        pool = merged_nodes if name.endswith("/NodeIds") else merged_elements
        if name.endswith("/ConditionIds"):
            continue
        Put(name, np.array([i for i in pool if int(i) in members], np.int64), np.int64)

    # ---- everything else from the template file (no distributed state)
    for name in template.ListDatasets("/"):
        if name in done or name.startswith(DISTRIBUTED + "/"):
            continue
        Put(name, _Raw(template, name))
    writer.Commit()


def ResizedCheckpointForRank(path, written, rank, ranks):
    """The serial checkpoint that rank `rank` of a run on `ranks` ranks loads
    to continue the checkpoint `path` written on `written` ranks: merged into
    a temporary folder (RemoveResized removes it once loaded); a serial
    checkpoint (written 1) is its own."""
    if written == 1:
        serial = _checkpoint.RankFile(path, 0, 1)[: -len(".rank0of1.h5")] + ".h5"
        return serial if os.path.isfile(serial) else path
    files = [_checkpoint.RankFile(path, r, written) for r in range(written)]
    for f in files:
        if not os.path.isfile(f):
            raise tessera.Error(f"restart file '{f}' does not exist (checkpoint {path} was written "
                                f"on {written} ranks; a run on {ranks} rank(s) reads all their files)")
    folder = tempfile.mkdtemp(prefix="tessera_resized_")
    out = os.path.join(folder, f"merged.rank{rank}.h5")
    MergeRankFiles(files, out, template_rank=min(rank, written - 1), ranks=ranks)
    return out


def RemoveResized(path):
    """The temporary folder of a merged checkpoint (ResizedCheckpointForRank)."""
    folder = os.path.dirname(path)
    if os.path.basename(folder).startswith("tessera_resized_"):
        shutil.rmtree(folder, ignore_errors=True)
