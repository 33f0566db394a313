"""KinematicAnalysis: the kernel's own runnable stage. It moves a mesh by the
displacements that processes impose and writes the results; it needs no
application, so it is what `make demo` runs until dem/structural exist.

Project parameters (Kratos' layout):

    {"analysis_stage": "tessera.kinematic_analysis",
     "problem_data": {"problem_name": "plate", "start_time": 0.0, "end_time": 2.0,
                      "echo_level": 0, "parallel_type": "OpenMP"},
     "solver_settings": {"solver_type": "kinematic", "model_part_name": "Plate",
                         "domain_size": 2,
                         "model_import_settings": {"input_type": "mdpa",
                                                   "input_filename": "plate"},
                         "time_stepping": {"time_step": 0.02},
                         "nodal_variables": ["DISPLACEMENT", "VELOCITY"]},
     "processes": {"constraints_process_list": [...]},
     "output_processes": {"vtk_output": [...]}}
"""
import tessera

from .analysis_stage import AnalysisStage
from .python_solver import PythonSolver


class KinematicSolver(PythonSolver):
    """Solves nothing: the processes impose the kinematics (DISPLACEMENT), and
    each step this solver only makes the mesh follow them,

        current coordinates = initial coordinates + DISPLACEMENT
        VELOCITY            = (u_n - u_{n-1}) / Δt          (buffer size 2)
        ACCELERATION        = (v_n - v_{n-1}) / Δt          (if declared)

    all as numpy operations on the root model part's columns."""

    @classmethod
    def GetDefaultParameters(cls):
        return tessera.Parameters("""{
            "solver_type": "kinematic",
            "model_part_name": "Structure",
            "domain_size": 3,
            "echo_level": 0,
            "model_import_settings": {"input_type": "mdpa", "input_filename": ""},
            "time_stepping": {"time_step": 0.1},
            "nodal_variables": ["DISPLACEMENT", "VELOCITY"]
        }""")

    def __init__(self, model, settings):
        super().__init__(model, settings)
        settings["model_import_settings"].ValidateAndAssignDefaults(
            self.GetDefaultParameters()["model_import_settings"])
        settings["time_stepping"].ValidateAndAssignDefaults(self.GetDefaultParameters()["time_stepping"])
        if settings["solver_type"].GetString() != "kinematic":
            raise tessera.Error(f"{settings.Origin()}: key '{settings.Path()}.solver_type' is "
                                f"'{settings['solver_type'].GetString()}'; KinematicAnalysis runs \"kinematic\"")
        domain_size = settings["domain_size"].GetInt()
        if domain_size not in (2, 3):
            raise tessera.Error(f"{settings.Origin()}: key '{settings.Path()}.domain_size' must be 2 or 3, "
                                f"not {domain_size}")
        self.model_part_name = settings["model_part_name"].GetString()
        if not self.model_part_name:
            raise tessera.Error(f"{settings.Origin()}: key '{settings.Path()}.model_part_name' is empty")
        self.variables = []
        names = settings["nodal_variables"]
        for i in range(names.size()):
            try:
                self.variables.append(tessera.GetVariable(names[i].GetString()))
            except tessera.Error as error:
                raise tessera.Error(f"{names.Origin()}: key '{names[i].Path()}': {error}") from None
        # the motion itself needs these two, whatever the list says
        for required in (tessera.DISPLACEMENT, tessera.VELOCITY):
            if required not in self.variables:
                self.variables.append(required)
        if model.HasModelPart(self.model_part_name):
            self.main_model_part = model.GetModelPart(self.model_part_name)
            if self.main_model_part.GetBufferSize() < 2:
                self.main_model_part.SetBufferSize(2)
        else:
            self.main_model_part = model.CreateModelPart(self.model_part_name, 2)

    def AddVariables(self):
        for variable in self.variables:
            self.main_model_part.AddNodalSolutionStepVariable(variable)

    def ImportModelPart(self):
        self._ImportModelPart(self.main_model_part, self.settings["model_import_settings"])

    def PrepareModelPart(self):
        self.main_model_part.ProcessInfo[tessera.DOMAIN_SIZE] = self.settings["domain_size"].GetInt()

    def AddDofs(self):
        # DISPLACEMENT is the unknown a real solver would have: giving it dofs
        # lets the assign processes mark what they constrain, as in Kratos.
        components = (tessera.DISPLACEMENT_X, tessera.DISPLACEMENT_Y, tessera.DISPLACEMENT_Z)
        for node in self.main_model_part.Nodes:
            for component in components:
                node.AddDof(component)

    def GetComputingModelPart(self):
        return self.main_model_part

    def SolveSolutionStep(self):
        root = self.main_model_part.GetRootModelPart()
        dt = float(root.ProcessInfo[tessera.DELTA_TIME])
        displacement = root.NodalArray(tessera.DISPLACEMENT)
        root.NodalCoordinates()[...] = root.NodalInitialCoordinates() + displacement
        if dt > 0.0:
            velocity = root.NodalArray(tessera.VELOCITY)
            velocity[...] = (displacement - root.NodalArray(tessera.DISPLACEMENT, 1)) / dt
            if root.HasNodalSolutionStepVariable(tessera.ACCELERATION):
                acceleration = root.NodalArray(tessera.ACCELERATION)
                acceleration[...] = (velocity - root.NodalArray(tessera.VELOCITY, 1)) / dt
        return True


class KinematicAnalysis(AnalysisStage):
    """Runs a mesh through imposed displacements; see KinematicSolver."""

    def _CreateSolver(self):
        if not self.project_parameters.Has("solver_settings"):
            raise tessera.Error(f"{self.project_parameters.Origin()}: the project parameters need "
                                "\"solver_settings\"")
        return KinematicSolver(self.model, self.project_parameters["solver_settings"])

    def _GetSimulationName(self):
        name = self.project_parameters["problem_data"]["problem_name"].GetString()
        return name or "Kinematic analysis"

    def _GetAllowedTopLevelKeys(self):
        return {"analysis_stage", "problem_data", "solver_settings", "processes", "output_processes"}


def CreateAnalysisStage(model, project_parameters):
    return KinematicAnalysis(model, project_parameters)
