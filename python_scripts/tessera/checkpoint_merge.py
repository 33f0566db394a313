"""The dataset-level tools that merge the rank files of a distributed
checkpoint into one (the DEM's and the structure's resized_checkpoint.py):
a dataset's element type and raw bytes, the entries of fixed-width
datasets taken from several files, and the data containers of entities
(kernel/io/value_bytes.h) split one per entity; the Copier that writes the
merged datasets (the coupled stage's merge passes one Copier to both sides'
merges, each writing its part of the file); and the driver all use: the
merged file a rank of the continued run loads, in a temporary folder."""
import os
import shutil
import struct
import tempfile

import numpy as np

import tessera
from tessera import checkpoint as _checkpoint

_READS = (("ReadDoubles", np.float64), ("ReadInt64", np.int64), ("ReadUInt64", np.uint64),
          ("ReadUInt32", np.uint32), ("ReadBytes", np.uint8))


def DatasetType(reader, name):
    """The element type of a dataset (the writer must write the same)."""
    for method, dtype in _READS:
        try:
            getattr(reader, method)(name)
            return dtype
        except Exception:  # another element type: try the next
            continue
    raise tessera.Error(f"checkpoint {reader.path}: dataset {name} has an element type the merge of "
                        "rank files does not know")


def RawBytes(reader, name):
    return np.frombuffer(reader.ReadRawBytes(name), dtype=np.uint8)


def Gather(readers, name, counts, src_rank, src_index):
    """The bytes of dataset `name`, `counts[r]` entries of one width in
    readers[r], for the merged entries taken from (src_rank[k],
    src_index[k]); an error naming the file where the entries are not of
    one width (values of variable size: a Vector or Matrix column)."""
    parts = [RawBytes(reader, name) for reader in readers]
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


def SplitContainers(blob, count, what):
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


class Copier:
    """Writes datasets to `writer` with the element types of `template`,
    remembering which it wrote."""

    def __init__(self, writer, template):
        self.writer, self.template, self.done = writer, template, set()

    def Put(self, name, raw, dtype=None):
        dtype = dtype if dtype is not None else DatasetType(self.template, name)
        self.writer.Write(name, np.frombuffer(np.ascontiguousarray(raw).tobytes(), dtype=dtype))
        self.done.add(name)

    def SerialHeader(self):
        """The template's stage, time and step; rank 0 of 1 (a serial file)."""
        self.writer.SetAttribute("stage", self.template.StringAttribute("stage"))
        self.writer.SetAttribute("rank", 0)
        self.writer.SetAttribute("ranks", 1)
        self.writer.SetAttribute("time", self.template.DoubleAttribute("time"))
        self.writer.SetAttribute("step", self.template.IntAttribute("step"))

    def Rest(self, skip=(), skip_under=()):
        """Everything not written yet from the template, but `skip` and the
        datasets under the groups `skip_under`."""
        for name in self.template.ListDatasets("/"):
            if name in self.done or name in skip or any(name.startswith(g + "/") for g in skip_under):
                continue
            self.Put(name, RawBytes(self.template, name))


def CheckRankFiles(readers):
    """Each file says it is rank r of len(readers) (files of one run, in order)."""
    n_ranks = len(readers)
    for r, reader in enumerate(readers):
        if reader.IntAttribute("ranks") != n_ranks or reader.IntAttribute("rank") != r:
            raise tessera.Error(f"checkpoint {reader.path} says rank {reader.IntAttribute('rank')} of "
                                f"{reader.IntAttribute('ranks')}; expected rank {r} of {n_ranks}")


def ResizedCheckpointForRank(path, written, rank, ranks, merge):
    """The checkpoint that rank `rank` of a run on `ranks` ranks loads to
    continue the checkpoint `path` written on `written` ranks: the rank
    files merged by merge(files, out_path, template_rank=, ranks=) into a
    temporary folder (RemoveResized removes it once loaded); a serial
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
    try:
        merge(files, out, template_rank=min(rank, written - 1), ranks=ranks)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return out


def RemoveResized(path):
    """The temporary folder of a merged checkpoint (ResizedCheckpointForRank)."""
    folder = os.path.dirname(path)
    if os.path.basename(folder).startswith("tessera_resized_"):
        shutil.rmtree(folder, ignore_errors=True)
