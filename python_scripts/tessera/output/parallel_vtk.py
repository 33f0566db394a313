"""The ParaView files that merge the pieces of a distributed run: each rank's
VtkOutput writes its own piece of every model part ("<name>_<rank>_<step>.vtu",
and a "<name>_<rank>.pvd" of its own), and rank 0 writes per written step one
"<name>_<step>.pvtu" naming all ranks' pieces of that step, and one
"<name>.pvd" time collection of those .pvtu files: open <name>.pvd in
ParaView to see the whole mesh over time.

The .pvtu declares the pieces' point and cell arrays (name, type,
components), read from the header tags of rank 0's own piece: every rank
writes the same variables, so every piece has the same arrays.
"""
import os
import re

_TAG = re.compile(rb"<(/?)(Points|PointData|CellData|DataArray)\b([^>]*)>")
_ATTRIBUTE = re.compile(rb'(\w+)="([^"]*)"')
_DECLARED = ("type", "Name", "NumberOfComponents")


def PieceArrays(vtu_path):
    """{"Points": [attrs], "PointData": [...], "CellData": [...]}: the
    DataArray attributes (type, Name, NumberOfComponents) of a .vtu file."""
    with open(vtu_path, "rb") as f:
        text = f.read()
    sections = {"Points": [], "PointData": [], "CellData": []}
    current = None
    for match in _TAG.finditer(text):
        closing, tag, attributes = match.group(1), match.group(2).decode(), match.group(3)
        if tag in sections:
            current = None if closing else tag
        elif tag == "DataArray" and not closing and current is not None:
            attrs = {k.decode(): v.decode() for k, v in _ATTRIBUTE.findall(attributes)}
            sections[current].append({k: attrs[k] for k in _DECLARED if k in attrs})
    return sections


def _Declarations(arrays, indent):
    lines = []
    for attrs in arrays:
        text = " ".join(f'{k}="{v}"' for k, v in attrs.items())
        lines.append(f"{indent}<PDataArray {text}/>")
    return "\n".join(lines)


def WritePvtu(path, piece_files, arrays):
    """A .pvtu at `path` naming `piece_files` (relative to its folder)."""
    points = arrays["Points"][0] if arrays["Points"] else {"type": "Float64", "NumberOfComponents": "3"}
    body = [
        '<?xml version="1.0"?>',
        '<VTKFile type="PUnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">',
        '  <PUnstructuredGrid GhostLevel="0">',
        "    <PPoints>",
        _Declarations([points], "      "),
        "    </PPoints>",
        "    <PPointData>",
        _Declarations(arrays["PointData"], "      "),
        "    </PPointData>",
        "    <PCellData>",
        _Declarations(arrays["CellData"], "      "),
        "    </PCellData>",
    ]
    body += [f'    <Piece Source="{name}"/>' for name in piece_files]
    body += ["  </PUnstructuredGrid>", "</VTKFile>", ""]
    with open(path, "w") as f:
        f.write("\n".join(line for line in body if line))
        f.write("\n")


def WritePvd(path, entries):
    """A .pvd time collection of (time, file) entries; renamed into place."""
    temporary = path + ".tmp"
    with open(temporary, "w") as f:
        f.write('<?xml version="1.0"?>\n<VTKFile type="Collection" version="1.0">\n  <Collection>\n')
        for time, name in entries:
            f.write(f'    <DataSet timestep="{time!r}" group="" part="0" file="{name}"/>\n')
        f.write("  </Collection>\n</VTKFile>\n")
    os.replace(temporary, path)


class PieceCollections:
    """Rank 0's bookkeeping of the merged files, one collection per model
    part base name."""

    def __init__(self, ranks):
        self.ranks = ranks
        self.steps = {}  # base name -> [(time, pvtu name)]

    def Merge(self, rank0_files, time):
        """After every rank wrote its pieces (rank0_files: rank 0's .vtu paths,
        "<base>_0_<step>.vtu"): the .pvtu of each and the .pvd of each base."""
        for piece in rank0_files:
            folder, name = os.path.split(piece)
            match = re.fullmatch(r"(.*)_0_(\d+)\.vtu", name)
            if match is None:
                raise ValueError(f"VtkOutputProcess: unexpected piece name {name}")
            base, step = match.group(1), match.group(2)
            pieces = [f"{base}_{r}_{step}.vtu" for r in range(self.ranks)]
            pvtu = f"{base}_{step}.pvtu"
            WritePvtu(os.path.join(folder, pvtu), pieces, PieceArrays(piece))
            entries = self.steps.setdefault(base, [])
            entries[:] = [e for e in entries if e[1] != pvtu] + [(float(time), pvtu)]
            WritePvd(os.path.join(folder, base + ".pvd"), entries)
