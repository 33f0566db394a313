"""Hdf5OutputProcess: writes a model part and its results as HDF5 files in the
group layout of Kratos' HDF5Application (/ModelData, /ResultsData/...), plus an
XDMF descriptor (<file_name>.xdmf) that ParaView opens as a time series, at the
steps chosen by "output_control_type" and "output_interval":

    {"python_module": "hdf5_output_process",
     "kratos_module": "KratosMultiphysics",
     "Parameters": {"model_part_name": "Structure",
                    "output_control_type": "step", "output_interval": 1,
                    "output_path": "hdf5_output", "file_mode": "single_file",
                    "compression": true,
                    "nodal_solution_step_data_variables": ["DISPLACEMENT"],
                    "gauss_point_variables": ["VON_MISES_STRESS"]}}

The accepted keys are those of tessera.Hdf5Output.GetDefaultParameters() (any
other key is an error naming it); the layout is in docs/file_formats.md §3.5.
The writing itself is tessera.Hdf5Output (C++, HDF5 C API).

In a distributed run each rank writes its own piece of the model part as
<file_name>_<rank>.h5 with its .xdmf, and rank 0 writes <file_name>.xdmf, a
time series whose every step is the spatial collection of the ranks' pieces
of that step: ParaView opens it as the whole mesh (nodes on a cut appear in
both pieces, with equal values).
"""
import os
import xml.etree.ElementTree as ElementTree

import tessera
from tessera.output import OutputSchedule, ScheduledOutputProcess


def Factory(settings, model):
    if not isinstance(settings, tessera.Parameters):
        raise TypeError("hdf5_output_process.Factory expects a tessera.Parameters object")
    return Hdf5OutputProcess(model, settings["Parameters"])


class Hdf5OutputProcess(ScheduledOutputProcess):
    """Kratos' output process protocol: the analysis asks IsOutputStep() after
    each solution step and calls PrintOutput() when it is."""

    def __init__(self, model, settings, merged=False):
        """merged: the model part already holds the whole result of a
        distributed run and only this rank writes it (the DEM stage's merged
        spheres on rank 0, its walls that every rank holds alike)."""
        super().__init__()  # the C++ base must be initialised for the bindings
        from tessera.parallel import DistributedCommunicator
        self.communicator = None if merged else DistributedCommunicator()
        settings.ValidateAndAssignDefaults(tessera.Hdf5Output.GetDefaultParameters())
        model_part_name = settings["model_part_name"].GetString()
        if not model_part_name:
            raise ValueError('Hdf5OutputProcess: "model_part_name" must name the model part to write')
        if self.communicator is not None:
            # This rank's piece: <file_name>_<rank>.h5 and .xdmf (the writer's
            # default name is the model part's, dots as underscores).
            base = settings["file_name"].GetString() or model_part_name.replace(".", "_")
            settings["file_name"].SetString(f"{base}_{self.communicator.Rank()}")
            folder = settings["output_path"].GetString() or "."
            self.pieces = [os.path.join(folder, f"{base}_{r}.xdmf") for r in range(self.communicator.Size())]
            self.merged_xdmf = os.path.join(folder, base + ".xdmf")
            self.merged_name = model_part_name
        self.settings = settings
        self.model_part = model.GetModelPart(model_part_name)
        self.schedule = OutputSchedule(self.model_part,
                                       settings["output_control_type"].GetString(),
                                       settings["output_interval"].GetDouble(),
                                       "Hdf5OutputProcess")
        self.writer = tessera.Hdf5Output(self.model_part, settings)

    def PrintOutput(self):
        super().PrintOutput()
        if self.communicator is None:
            return
        self.communicator.Barrier()  # every rank's piece of this step is on disk
        if self.communicator.Rank() == 0:
            WriteMergedXdmf(self.pieces, self.merged_xdmf, self.merged_name)


def WriteMergedXdmf(pieces, path, name):
    """<path>: the temporal collection whose step k is the spatial collection
    of step k of every piece's .xdmf (all pieces written at the same steps),
    its time on the collection. Written to a temporary and renamed."""
    steps = []
    for piece in pieces:
        series = ElementTree.parse(piece).getroot().find("Domain/Grid")
        steps.append(list(series.findall("Grid")))
    counts = {len(grids) for grids in steps}
    if len(counts) != 1:
        raise tessera.Error(f"hdf5_output_process: the ranks' pieces ({', '.join(pieces)}) hold different "
                            "numbers of steps")
    root = ElementTree.Element("Xdmf", Version="2.0")
    series = ElementTree.SubElement(ElementTree.SubElement(root, "Domain"), "Grid", Name=name,
                                    GridType="Collection", CollectionType="Temporal")
    for k in range(counts.pop()):
        step = ElementTree.SubElement(series, "Grid", Name=steps[0][k].get("Name", f"step {k}"),
                                      GridType="Collection", CollectionType="Spatial")
        time = steps[0][k].find("Time")
        if time is not None:
            step.append(time)
        for rank, grids in enumerate(steps):
            grid = grids[k]
            for child in grid.findall("Time"):
                grid.remove(child)
            grid.set("Name", f"{grid.get('Name', name)} rank {rank}")
            step.append(grid)
    ElementTree.indent(root, space="  ")
    temporary = path + ".tmp"
    with open(temporary, "w") as f:
        f.write('<?xml version="1.0" ?>\n<!DOCTYPE Xdmf SYSTEM "Xdmf.dtd" []>\n')
        f.write(ElementTree.tostring(root, encoding="unicode"))
        f.write("\n")
    os.replace(temporary, path)
