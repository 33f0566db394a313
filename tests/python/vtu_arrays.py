"""Reads the data arrays of a .vtu file that tessera.VtkOutput wrote (ASCII
or inline "binary": base64 of a UInt64 byte count followed by the values),
for tests that compare output files by value."""
import base64
import xml.etree.ElementTree as ElementTree

import numpy as np

_TYPES = {"Float64": np.float64, "Float32": np.float32, "Int64": np.int64, "Int32": np.int32,
          "UInt8": np.uint8, "UInt64": np.uint64}


def ReadVtuArrays(path):
    """{array name: numpy array (tuples x components)} of every DataArray,
    named by the parent section too where a name repeats ("Points",
    "connectivity", "PointData/DISPLACEMENT", ...)."""
    root = ElementTree.parse(path).getroot()
    header = _TYPES[root.get("header_type", "UInt64")]
    arrays = {}
    for parent in root.iter():
        for array in parent.findall("DataArray"):
            kind = _TYPES[array.get("type")]
            text = (array.text or "").strip()
            if array.get("format") == "binary":
                raw = base64.b64decode(text)
                size = int(np.frombuffer(raw[:np.dtype(header).itemsize], dtype=header)[0])
                values = np.frombuffer(raw[np.dtype(header).itemsize:][:size], dtype=kind)
            elif array.get("format") == "ascii":
                values = np.array(text.split(), dtype=kind)
            else:
                raise ValueError(f"{path}: DataArray {array.get('Name')}: format "
                                 f"{array.get('format')!r} is not read here")
            components = int(array.get("NumberOfComponents", "1"))
            name = array.get("Name")
            key = f"{parent.tag}/{name}" if parent.tag in ("PointData", "CellData") else name
            arrays[key] = values.reshape(-1, components) if components > 1 else values
    return arrays
