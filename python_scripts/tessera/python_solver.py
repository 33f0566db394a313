"""PythonSolver: the base class of the solvers an AnalysisStage drives, with
Kratos' interface (AddVariables, AddDofs, ImportModelPart, PrepareModelPart,
GetComputingModelPart, AdvanceInTime, Initialize, Predict, SolveSolutionStep,
InitializeSolutionStep, FinalizeSolutionStep, ComputeDeltaTime, Check, Clear)
and the pieces every solver needs: reading a model part as
"model_import_settings" says, and advancing time (CloneTimeStep, STEP += 1).
"""
import tessera


class PythonSolver:
    """Derived solvers override what they do; the defaults here do nothing,
    except ImportModelPart/AdvanceInTime/ComputeDeltaTime which work for any
    solver whose settings follow Kratos' layout."""

    def __init__(self, model, settings):
        if not isinstance(model, tessera.Model):
            raise TypeError(f"the solver needs a tessera.Model, got {type(model).__name__}")
        if not isinstance(settings, tessera.Parameters):
            raise TypeError(f"the solver settings must be tessera.Parameters, got {type(settings).__name__}")
        settings.ValidateAndAssignDefaults(self.GetDefaultParameters())
        self.model = model
        self.settings = settings
        self.echo_level = settings["echo_level"].GetInt() if settings.Has("echo_level") else 0

    @classmethod
    def GetDefaultParameters(cls):
        return tessera.Parameters('{"echo_level": 0}')

    # ---- model part set-up, in the order the stage calls them
    def AddVariables(self):
        pass

    def AddDofs(self):
        pass

    def ImportModelPart(self):
        pass

    def PrepareModelPart(self):
        pass

    def GetComputingModelPart(self):
        raise NotImplementedError(f"{type(self).__name__} must implement GetComputingModelPart")

    def ExportModelPart(self):
        pass

    # ---- time loop
    def ComputeDeltaTime(self):
        """The time step of settings.time_stepping.time_step (solvers with
        variable steps override this)."""
        if not (self.settings.Has("time_stepping") and self.settings["time_stepping"].Has("time_step")):
            raise tessera.Error(f"{self.settings.Origin()}: {self.settings.Path() or 'solver settings'}"
                                " need time_stepping.time_step")
        return self.settings["time_stepping"]["time_step"].GetDouble()

    def AdvanceInTime(self, current_time):
        """new time = current time + Δt: clones the nodal buffer (CloneTimeStep
        sets TIME and DELTA_TIME) and counts the step in STEP."""
        dt = self.ComputeDeltaTime()
        if not dt > 0.0:
            where = ""
            if self.settings.Has("time_stepping") and self.settings["time_stepping"].Has("time_step"):
                path = self.settings.Path()
                where = (f"{self.settings.Origin()}: key '{path + '.' if path else ''}"
                         "time_stepping.time_step': ")
            raise tessera.Error(f"{where}{type(self).__name__}: the time step must be positive, "
                                f"got {dt}")
        new_time = current_time + dt
        root = self.GetComputingModelPart().GetRootModelPart()
        root.CloneTimeStep(new_time)
        root.ProcessInfo[tessera.STEP] = int(root.ProcessInfo[tessera.STEP]) + 1
        return new_time

    def Initialize(self):
        pass

    def InitializeSolutionStep(self):
        pass

    def Predict(self):
        pass

    def SolveSolutionStep(self):
        """True when the step converged."""
        return True

    def FinalizeSolutionStep(self):
        pass

    def Finalize(self):
        pass

    def Check(self):
        pass

    def Clear(self):
        pass

    # ---- helpers
    def _ImportModelPart(self, model_part, import_settings):
        """Reads the model part as Kratos' model_import_settings say:
        "input_type": "mdpa" reads input_filename (with or without .mdpa,
        relative to the working directory); "use_input_model_part" takes the
        model part as it already is (built by a script or a test)."""
        input_type = import_settings["input_type"].GetString()
        if input_type == "use_input_model_part":
            return
        if input_type != "mdpa":
            raise tessera.Error(f"{import_settings.Origin()}: key '{import_settings.Path()}.input_type' is "
                                f"'{input_type}'; supported: \"mdpa\", \"use_input_model_part\"")
        file_name = import_settings["input_filename"].GetString()
        tessera.ModelPartIO(file_name).ReadModelPart(model_part)
