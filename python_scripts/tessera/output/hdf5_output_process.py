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
"""
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
        if not merged:
            from tessera.parallel import RejectInDistributedRun
            RejectInDistributedRun("hdf5_output_process")
        settings.ValidateAndAssignDefaults(tessera.Hdf5Output.GetDefaultParameters())
        model_part_name = settings["model_part_name"].GetString()
        if not model_part_name:
            raise ValueError('Hdf5OutputProcess: "model_part_name" must name the model part to write')
        self.settings = settings
        self.model_part = model.GetModelPart(model_part_name)
        self.schedule = OutputSchedule(self.model_part,
                                       settings["output_control_type"].GetString(),
                                       settings["output_interval"].GetDouble(),
                                       "Hdf5OutputProcess")
        self.writer = tessera.Hdf5Output(self.model_part, settings)
