"""VtkOutputProcess: writes a model part as ParaView .vtu files (plus a .pvd
time collection) at the steps chosen by "output_control_type" and
"output_interval", configured like Kratos' vtk_output_process:

    {"python_module": "vtk_output_process",
     "kratos_module": "KratosMultiphysics",
     "Parameters": {"model_part_name": "Structure",
                    "output_control_type": "step", "output_interval": 1,
                    "output_path": "vtk_output", "file_format": "binary",
                    "nodal_solution_step_data_variables": ["DISPLACEMENT"]}}

The accepted keys are those of tessera.VtkOutput.GetDefaultParameters(); the
writing itself is tessera.VtkOutput (C++).
"""
import tessera
from tessera.output import OutputSchedule, ScheduledOutputProcess, parallel_vtk


def Factory(settings, model):
    if not isinstance(settings, tessera.Parameters):
        raise TypeError("vtk_output_process.Factory expects a tessera.Parameters object")
    return VtkOutputProcess(model, settings["Parameters"])


class VtkOutputProcess(ScheduledOutputProcess):
    """Kratos' output process protocol: the analysis asks IsOutputStep() after
    each solution step and calls PrintOutput() when it is. `pieces` False: the
    model part is written whole, as in a serial run, also under mpirun (a
    model part every rank holds alike, written by one rank: the DEM's walls)."""

    def __init__(self, model, settings, pieces=True):
        super().__init__()  # the C++ base must be initialised for the bindings
        settings.ValidateAndAssignDefaults(tessera.VtkOutput.GetDefaultParameters())
        model_part_name = settings["model_part_name"].GetString()
        if not model_part_name:
            raise ValueError('VtkOutputProcess: "model_part_name" must name the model part to write')
        self.settings = settings
        self.model_part = model.GetModelPart(model_part_name)
        self.schedule = OutputSchedule(self.model_part,
                                       settings["output_control_type"].GetString(),
                                       settings["output_interval"].GetDouble(),
                                       "VtkOutputProcess")
        # A distributed run: each rank writes its piece as "<name>_<rank>_<step>.vtu",
        # rank 0 the .pvtu per step and the .pvd that merge them (parallel_vtk).
        self.communicator = None
        if pieces and tessera.MPIBuilt() and tessera.LaunchedByMPI():
            communicator = tessera.DefaultCommunicator()
            if communicator.Size() > 1:
                self.communicator = communicator
                postfix = settings["custom_name_postfix"].GetString()
                settings["custom_name_postfix"].SetString(f"{postfix}_{communicator.Rank()}")
                self.pieces = parallel_vtk.PieceCollections(communicator.Size())
        self.writer = tessera.VtkOutput(self.model_part, settings)

    def PrintOutput(self):
        super().PrintOutput()
        if self.communicator is not None:
            self.communicator.Barrier()  # every piece is on disk before rank 0 names it
            if self.communicator.Rank() == 0:
                time = self.model_part.ProcessInfo[tessera.TIME]
                self.pieces.Merge(self.writer.GetLastWrittenFiles(), time)
