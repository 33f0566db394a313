"""One ParaView collection for a coupled run: the structure's VTK output and
the DEM's (spheres, walls) each write their own .pvd, so a user would open
two or three files; "<name>_coupled.pvd" lists all their data sets, each
source as one `part`, with the times they were written at, so that ParaView
opens the whole coupled run at once (File > Open, one file; each part is a
block of the multiblock data set)."""
import os
import xml.etree.ElementTree as ElementTree


def CollectionFiles(directories):
    """The .pvd files in `directories` (those that exist), sorted."""
    found = []
    for directory in directories:
        if os.path.isdir(directory):
            found += sorted(os.path.join(directory, f) for f in os.listdir(directory) if f.endswith(".pvd"))
    return found


def WriteCoupledCollection(path, collections):
    """Writes the collection `path` from the .pvd files `collections`, one
    part each (in that order), file names relative to `path`'s folder.
    Returns the number of data sets, 0 (and no file) when there are none."""
    base = os.path.dirname(os.path.abspath(path))
    entries = []
    for part, collection in enumerate(collections):
        folder = os.path.dirname(os.path.abspath(collection))
        try:
            root = ElementTree.parse(collection).getroot()
        except (OSError, ElementTree.ParseError):
            continue  # not a collection written by this run's processes
        for dataset in root.iter("DataSet"):
            file_name = dataset.get("file")
            if file_name is None:
                continue
            relative = os.path.relpath(os.path.join(folder, file_name), base)
            entries.append((float(dataset.get("timestep", "0")), part, relative))
    if not entries:
        return 0
    entries.sort(key=lambda entry: (entry[0], entry[1]))
    lines = ['<?xml version="1.0"?>', '<VTKFile type="Collection" version="1.0">', "  <Collection>"]
    for time, part, file_name in entries:
        lines.append(f'    <DataSet timestep="{time!r}" group="" part="{part}" file="{file_name}"/>')
    lines += ["  </Collection>", "</VTKFile>", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return len(entries)
