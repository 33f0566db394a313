"""AnalysisStage: the time loop of a simulation with Kratos' API and semantics.

    Run()  = Initialize(); RunSolutionLoop(); Finalize()
    RunSolutionLoop(): while KeepAdvancingSolutionLoop() (time < end_time):
        time = solver.AdvanceInTime(time); InitializeSolutionStep();
        solver.Predict(); solver.SolveSolutionStep(); FinalizeSolutionStep();
        OutputSolutionStep()

Derived stages provide _CreateSolver() (a PythonSolver); the stage builds the
processes of the "processes" and "output_processes" lists of the project
parameters with KratosProcessFactory and calls their hooks at the points Kratos
does. Beyond Kratos: an optional progress reporter (tessera.progress) hears
(step, time, end_time) after each step; stages that write their own
RunSolutionLoop call self._ReportProgress() after each step to keep it.
"""
import warnings

import tessera

from .process_factory import KratosProcessFactory

PROBLEM_DATA_DEFAULTS = """{
    "problem_name": "",
    "parallel_type": "OpenMP",
    "echo_level": 0,
    "start_time": 0.0,
    "end_time": 1.0
}"""


class AnalysisStage:
    def __init__(self, model, project_parameters):
        if not isinstance(model, tessera.Model):
            raise TypeError(f"AnalysisStage needs a tessera.Model, got {type(model).__name__}")
        if not isinstance(project_parameters, tessera.Parameters):
            raise TypeError("AnalysisStage needs the project parameters as tessera.Parameters, got "
                            f"{type(project_parameters).__name__}")
        self.model = model
        self.project_parameters = project_parameters
        self._ValidateProjectParameters()
        problem_data = project_parameters["problem_data"]
        self.echo_level = problem_data["echo_level"].GetInt()
        parallel_type = problem_data["parallel_type"].GetString()
        if parallel_type != "OpenMP":
            # MPI runs are not available yet; running serially would silently
            # ignore what the deck asks for.
            raise tessera.Error(f"{problem_data.Origin()}: key 'problem_data.parallel_type' is "
                                f"'{parallel_type}'; this build runs \"OpenMP\" only")
        self.time = problem_data["start_time"].GetDouble()
        self.end_time = problem_data["end_time"].GetDouble()
        if not self.end_time >= self.time:
            # The loop would run no step and report success.
            raise tessera.Error(f"{problem_data.Origin()}: key 'problem_data.end_time' is "
                                f"{self.end_time:g}, before 'problem_data.start_time' "
                                f"{self.time:g}")
        self._progress_reporter = None
        self._list_of_processes = []
        self._list_of_output_processes = []
        self._warned_about_solve_return = False
        # As Kratos: the solver exists, and the variables are declared, right
        # after construction, so scripts can add their own before Initialize.
        self._GetSolver().AddVariables()

    # ---- the three phases
    def Run(self):
        self.Initialize()
        self.RunSolutionLoop()
        self.Finalize()

    def RunSolutionLoop(self):
        reporter = self._progress_reporter
        if reporter is not None:
            reporter.Start(self.time, self.end_time, self._GetSimulationName())
        try:
            while self.KeepAdvancingSolutionLoop():
                self.time = self._AdvanceTime()
                self.InitializeSolutionStep()
                self._GetSolver().Predict()
                is_converged = self._GetSolver().SolveSolutionStep()
                self._CheckSolveReturn(is_converged)
                self.FinalizeSolutionStep()
                self.OutputSolutionStep()
                self._ReportProgress()
        except BaseException:
            if reporter is not None:
                try:  # say where it stopped; never hide the error itself
                    self._ReportProgress()
                except Exception:
                    pass
                reporter.Finish(success=False)
            raise
        if reporter is not None:
            reporter.Finish(success=True)

    def Initialize(self):
        solver = self._GetSolver()
        solver.ImportModelPart()
        solver.PrepareModelPart()
        solver.AddDofs()
        self.ModifyInitialProperties()
        self.ModifyInitialGeometry()
        self._CreateListOfProcesses()
        for process in self._GetListOfProcesses():
            process.ExecuteInitialize()
        solver.Initialize()
        self.Check()
        self.ModifyAfterSolverInitialize()
        # TIME must hold the start time before processes look at it
        info = solver.GetComputingModelPart().ProcessInfo
        if info.Has(tessera.IS_RESTARTED) and info[tessera.IS_RESTARTED]:
            self.time = float(info[tessera.TIME])
        else:
            info[tessera.TIME] = self.time
        for process in self._GetListOfProcesses():
            process.ExecuteBeforeSolutionLoop()
        if self.echo_level > 0:
            print(f"{self._GetSimulationName()}: analysis start, time {self.time:g} to {self.end_time:g}")

    def Finalize(self):
        for process in self._GetListOfProcesses():
            process.ExecuteFinalize()
        self._GetSolver().Finalize()
        if self.echo_level > 0:
            print(f"{self._GetSimulationName()}: analysis end")

    # ---- one step
    def KeepAdvancingSolutionLoop(self):
        # Kratos' rule, accumulated time included: dt 1.1 with end 1.0 is one step.
        return self.time < self.end_time

    def _AdvanceTime(self):
        """Hook for stages that advance time themselves (DEM); Kratos calls
        solver.AdvanceInTime(time) here."""
        return self._GetSolver().AdvanceInTime(self.time)

    def InitializeSolutionStep(self):
        self.PrintAnalysisStageProgressInformation()
        self.ApplyBoundaryConditions()
        self.ChangeMaterialProperties()
        self._GetSolver().InitializeSolutionStep()

    def FinalizeSolutionStep(self):
        self._GetSolver().FinalizeSolutionStep()
        for process in self._GetListOfProcesses():
            process.ExecuteFinalizeSolutionStep()

    def OutputSolutionStep(self):
        """Asks each output process IsOutputStep(); if any writes, every process
        hears ExecuteBeforeOutputStep before and ExecuteAfterOutputStep after."""
        output_called = False
        for output_process in self._GetListOfOutputProcesses():
            if output_process.IsOutputStep():
                if not output_called:
                    for process in self._GetListOfProcesses():
                        process.ExecuteBeforeOutputStep()
                    output_called = True
                output_process.PrintOutput()
        if output_called:
            for process in self._GetListOfProcesses():
                process.ExecuteAfterOutputStep()

    def ApplyBoundaryConditions(self):
        for process in self._GetListOfProcesses():
            process.ExecuteInitializeSolutionStep()

    def Check(self):
        self._GetSolver().Check()
        for process in self._GetListOfProcesses():
            process.Check()

    def PrintAnalysisStageProgressInformation(self):
        if self.echo_level > 0:
            step = self._GetSolver().GetComputingModelPart().ProcessInfo[tessera.STEP]
            print(f"{self._GetSimulationName()}: STEP {step} TIME {self.time:.9g}")

    # ---- customisation points (empty, as in Kratos)
    def ModifyInitialProperties(self):
        pass

    def ModifyInitialGeometry(self):
        pass

    def ModifyAfterSolverInitialize(self):
        pass

    def ChangeMaterialProperties(self):
        pass

    # ---- progress
    def SetProgressReporter(self, reporter):
        """An object with Start(start_time, end_time, name), Report(step, time,
        end_time) and Finish(success) (tessera.progress), or None."""
        self._progress_reporter = reporter

    def _ReportProgress(self):
        if self._progress_reporter is not None:
            step = int(self._GetSolver().GetComputingModelPart().ProcessInfo[tessera.STEP])
            self._progress_reporter.Report(step, self.time, self.end_time)

    # ---- solver and processes
    def _GetSolver(self):
        if not hasattr(self, "_solver"):
            self._solver = self._CreateSolver()
        return self._solver

    def _CreateSolver(self):
        raise NotImplementedError(f"{type(self).__name__} must implement _CreateSolver()")

    def _GetSimulationName(self):
        return "Analysis"

    def _GetListOfProcesses(self):
        return self._list_of_processes

    def _GetListOfOutputProcesses(self):
        return self._list_of_output_processes

    def _GetOrderOfProcessesInitialization(self):
        """Names of the "processes" lists built first, in this order."""
        return []

    def _GetOrderOfOutputProcessesInitialization(self):
        return []

    def _CreateListOfProcesses(self):
        self._list_of_processes = self._CreateProcesses(
            "processes", self._GetOrderOfProcessesInitialization())
        self._list_of_output_processes = self._CreateProcesses(
            "output_processes", self._GetOrderOfOutputProcessesInitialization())
        for process in self._list_of_output_processes:
            if not (hasattr(process, "IsOutputStep") and hasattr(process, "PrintOutput")):
                raise tessera.Error(f"{type(process).__name__} is listed in output_processes but is not "
                                    "an output process (it lacks IsOutputStep/PrintOutput)")
        # Output processes hear every hook too, as in Kratos.
        self._list_of_processes.extend(self._list_of_output_processes)

    def _CreateProcesses(self, parameter_name, initialization_order):
        """The processes of every list inside project_parameters[parameter_name]:
        first the lists named in initialization_order, then the others in file
        order. Lists whose name starts with "_" are switched off."""
        processes = []
        if not self.project_parameters.Has(parameter_name):
            return processes
        lists = self.project_parameters[parameter_name]
        if not lists.IsSubParameter():
            raise tessera.Error(f"{lists.Origin()}: key '{lists.Path()}' must be an object of named "
                                "process lists")
        factory = KratosProcessFactory(self.model)
        names = [n for n in initialization_order if lists.Has(n)]
        names += [n for n in lists.keys() if n not in names]
        for name in names:
            if name.startswith("_"):
                continue
            processes += factory.ConstructListOfProcesses(lists[name])
        return processes

    def _ValidateProjectParameters(self):
        """problem_data against its defaults (a mistyped key is an error naming
        it), and the top-level keys against _GetAllowedTopLevelKeys()."""
        parameters = self.project_parameters
        if not parameters.Has("problem_data"):
            parameters.AddValue("problem_data", tessera.Parameters("{}"))
        parameters["problem_data"].ValidateAndAssignDefaults(tessera.Parameters(PROBLEM_DATA_DEFAULTS))
        allowed = self._GetAllowedTopLevelKeys()
        if allowed is None:
            return
        for key in parameters.keys():
            if key not in allowed and not key.startswith("_"):
                raise tessera.Error(f"{parameters.Origin()}: unknown top-level key '{key}'; allowed: "
                                    f"{', '.join(sorted(allowed))} (a leading '_' switches a key off)")

    def _GetAllowedTopLevelKeys(self):
        """None (no check) or the keys a project file of this stage may have."""
        return None

    def _CheckSolveReturn(self, is_converged):
        if is_converged is None and not self._warned_about_solve_return:
            self._warned_about_solve_return = True
            warnings.warn(f"{type(self._GetSolver()).__name__}.SolveSolutionStep returned None; "
                          "it should return whether the step converged", stacklevel=3)
        elif is_converged is False and self.echo_level > 0:
            print(f"{self._GetSimulationName()}: step at TIME {self.time:.9g} did not converge")
