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

Checkpoints (tessera.checkpoint): SaveCheckpoint(path) writes the run's
complete state; RestartFrom(path) before Initialize() makes Initialize()
end by loading it, so that the loop continues the saved run. The deck's
"restart_options" write them periodically and on SIGTERM/SIGINT; stages with
their own RunSolutionLoop call self._AfterStepCheckpoint() after each step.
"""
import json
import os
import warnings

import tessera

from . import checkpoint as _checkpoint
from . import parallel as _parallel
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
        self.parallel_type = problem_data["parallel_type"].GetString()
        self.communicator = _parallel.RunCommunicator(self.parallel_type, problem_data.Origin())
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
        self._restart_file = None
        self._resized_from = None  # the rank count of a checkpoint merged to continue (see below)
        self._extra_checkpointables = []
        self._restart_options = _checkpoint.RestartOptions(
            project_parameters["restart_options"] if project_parameters.Has("restart_options") else None,
            problem_data["problem_name"].GetString(), project_parameters.Origin())
        self._checkpoint_schedule = None
        # As Kratos: the solver exists, and the variables are declared, right
        # after construction, so scripts can add their own before Initialize.
        solver = self._GetSolver()
        if self.parallel_type == "MPI":
            _parallel.CheckDistributedSolver(solver, problem_data.Origin())
            solver.SetCommunicator(self.communicator)
        solver.AddVariables()

    # ---- the three phases
    def Run(self):
        self.Initialize()
        self.RunSolutionLoop()
        self.Finalize()

    def RunSolutionLoop(self):
        reporter = self._progress_reporter
        if reporter is not None:
            reporter.Start(self.time, self.end_time, self._GetSimulationName())
        self._StartCheckpointSchedule()
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
                self._AfterStepCheckpoint()
        except BaseException:
            self._StopCheckpointSchedule()
            if reporter is not None:
                try:  # say where it stopped; never hide the error itself
                    self._ReportProgress()
                except Exception:
                    pass
                reporter.Finish(success=False)
            raise
        self._StopCheckpointSchedule()
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
        if self._restart_file is not None:
            self.LoadCheckpoint(self._restart_file)
        if self._Echoes():
            print(f"{self._GetSimulationName()}: analysis start, time {self.time:g} to {self.end_time:g}")

    def Finalize(self):
        for process in self._GetListOfProcesses():
            process.ExecuteFinalize()
        self._GetSolver().Finalize()
        if self._Echoes():
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

    def _Echoes(self):
        """Whether this process prints the stage's progress: echo_level > 0,
        and rank 0 of a distributed run (progress printed once)."""
        return self.echo_level > 0 and self._Ranks()[0] == 0

    def PrintAnalysisStageProgressInformation(self):
        if self._Echoes():
            step = self._GetSolver().GetComputingModelPart().ProcessInfo[tessera.STEP]
            print(f"{self._GetSimulationName()}: STEP {step} TIME {self.time:.9g}")

    # ---- checkpoints
    def RestartFrom(self, path):
        """Continue the run saved in the checkpoint `path`: call before
        Initialize(), which then ends by loading it."""
        self._restart_file = os.path.abspath(self._CheckpointFileToLoad(path))

    def _Ranks(self):
        """(rank, ranks) of a distributed run, (0, 1) otherwise: a distributed
        run writes one checkpoint file per rank (tessera.checkpoint)."""
        communicator = self.communicator
        if self.parallel_type == "MPI" and communicator.IsDistributed() and communicator.Size() > 1:
            return communicator.Rank(), communicator.Size()
        return 0, 1

    def _CheckpointFileToWrite(self, path):
        rank, ranks = self._Ranks()
        return _checkpoint.RankFile(path, rank, ranks) if ranks > 1 else path

    def _CheckpointFileToLoad(self, path):
        """This rank's file of the checkpoint `path`; an error naming both
        rank counts where another number of ranks wrote it."""
        rank, ranks = self._Ranks()
        named = _checkpoint.RanksOfFile(path)
        if ranks == 1 and named is None and os.path.isfile(path):
            return path
        written = _checkpoint.WrittenRankCounts(path)
        if written and ranks not in written:
            resized = self._ResizedCheckpoint(path, written[0], rank, ranks)
            if resized is not None:
                self._resized_from = written[0]
                return resized
        if ranks == 1 and named is None:
            raise tessera.Error(f"restart file '{path}' does not exist")
        return _checkpoint.RankFileToLoad(path, rank, ranks)

    def _ResizedCheckpoint(self, path, written, rank, ranks):
        """A stage that continues a checkpoint written on `written` ranks on
        another number returns the (serial, merged) file this rank loads;
        None: it cannot (an error naming both counts follows)."""
        return None

    def _CheckSavedRanks(self, reader, path):
        rank, ranks = self._Ranks()
        saved = reader.IntAttribute("ranks") if reader.HasAttribute("ranks") else 1
        saved_rank = reader.IntAttribute("rank") if reader.HasAttribute("rank") else 0
        if getattr(self, "_resized_from", None) is not None and saved == 1:
            return  # merged from another rank count's files (_ResizedCheckpoint): every rank loads it
        if saved != ranks:
            raise tessera.Error(f"checkpoint {path} was written by a run on {saved} rank(s); this run "
                                f"has {ranks} rank(s): a run continues on as many ranks as it was "
                                "saved from")
        if saved_rank != rank:
            raise tessera.Error(f"checkpoint {path} holds rank {saved_rank}'s part; this is rank {rank}")

    def AddCheckpointable(self, name, obj):
        """A plugin's object whose state the checkpoints keep (see tessera.checkpoint)."""
        if not _checkpoint.IsCheckpointable(obj):
            raise TypeError(f"AddCheckpointable('{name}'): {type(obj).__name__} has neither "
                            "SaveCheckpoint/LoadCheckpoint nor GetCheckpointState/SetCheckpointState")
        self._extra_checkpointables.append((name, obj))

    def _GetCheckpointables(self):
        """(name, object) of everything with state beyond the model parts: the
        solver, the processes that are checkpointable, the plugins' objects."""
        items = [("Solver", self._GetSolver())]
        for k, process in enumerate(self._GetListOfProcesses()):
            items.append((f"Process{k:03d}_{type(process).__name__}", process))
        items += self._extra_checkpointables
        return [(name, obj) for name, obj in items if _checkpoint.IsCheckpointable(obj)]

    def _GetStageCheckpointState(self):
        """The stage's own state (JSON-able); derived stages add theirs."""
        return {"time": self.time}

    def _SetStageCheckpointState(self, state):
        self.time = state["time"]

    def _CheckpointDeckJson(self):
        return self.project_parameters.WriteJsonString()

    def SaveCheckpoint(self, path):
        """Writes the run's complete state to `path` (a temporary file renamed
        over it, so an existing checkpoint survives a crash during the write);
        each rank of a distributed run its own state to its own file
        (tessera.checkpoint.RankFile). Returns the path written."""
        path = self._CheckpointFileToWrite(path)
        writer = tessera.CheckpointWriter(path)
        info = self._GetSolver().GetComputingModelPart().ProcessInfo
        writer.SetAttribute("stage", type(self).__name__)
        rank, ranks = self._Ranks()
        writer.SetAttribute("rank", rank)
        writer.SetAttribute("ranks", ranks)
        writer.SetAttribute("time", float(self.time))
        writer.SetAttribute("step", int(info[tessera.STEP]))
        writer.WriteString("/Deck/ProjectParameters", self._CheckpointDeckJson())
        for name in _checkpoint.RootModelPartNames(self.model):
            tessera.SaveModelPart(self.model[name], writer, f"/ModelParts/{name}")
        writer.WriteString("/Objects/Stage/State", json.dumps(self._GetStageCheckpointState()))
        for name, obj in self._GetCheckpointables():
            _checkpoint.CheckpointableState(obj, writer, f"/Objects/{name}")
        writer.Commit()
        return path

    def LoadCheckpoint(self, path):
        """Replaces the state of the initialized stage by the one saved in `path`."""
        reader = tessera.CheckpointReader(path)
        _checkpoint.CheckSavedStage(reader, path, type(self).__name__)
        self._CheckSavedRanks(reader, path)
        # A checkpoint continued on another rank count (_ResizedCheckpoint)
        # may go from a distributed run to a serial one or back.
        resized = ("parallel_type", "problem_data.parallel_type") if self._resized_from else ()
        _checkpoint.CheckSavedDeck(reader, path, "/Deck/ProjectParameters", self._CheckpointDeckJson(),
                                   also_free=resized)
        current_parts = _checkpoint.CheckSavedModelParts(reader, path, self.model)
        objects = reader.List("/Objects")
        checkpointables = self._GetCheckpointables()
        for name, _ in checkpointables:
            if name not in objects:
                raise tessera.Error(f"checkpoint {path} holds no state for {name} (another deck or "
                                    "another set of processes?)")
        # Entities made during the run (a DEM inlet's spheres) exist before
        # the model parts are loaded.
        for name, obj in checkpointables:
            _checkpoint.PrepareCheckpointableState(obj, reader, f"/Objects/{name}")
        for name in current_parts:
            tessera.LoadModelPart(self.model[name], reader, f"/ModelParts/{name}")
        self._SetStageCheckpointState(json.loads(reader.ReadString("/Objects/Stage/State")))
        for name, obj in checkpointables:
            _checkpoint.RestoreCheckpointableState(obj, reader, f"/Objects/{name}")
        # IS_RESTARTED is left as saved: the ProcessInfo stays bitwise the
        # uninterrupted run's (the stage's time is restored with its state).
        if self.echo_level > 0:
            print(f"{self._GetSimulationName()}: continued from {path} at time {self.time:g}")

    def _StartCheckpointSchedule(self):
        if not self._restart_options.save:
            return
        if self._checkpoint_schedule is None:
            start_time = self.project_parameters["problem_data"]["start_time"].GetDouble()
            self._checkpoint_schedule = _checkpoint.CheckpointSchedule(
                self._restart_options, start_time, self.time, *self._Ranks())
        self._checkpoint_schedule.InstallSignalHandlers()

    def _StopCheckpointSchedule(self):
        if self._checkpoint_schedule is not None:
            self._checkpoint_schedule.RemoveSignalHandlers()

    def GetCheckpointFiles(self):
        """The checkpoints this run wrote and kept, oldest first."""
        return list(self._checkpoint_schedule.written) if self._checkpoint_schedule else []

    def _AfterStepCheckpoint(self):
        """After a whole step: the periodic checkpoint when due, and the one of
        a SIGTERM/SIGINT received during the step (then the run stops)."""
        schedule = self._checkpoint_schedule
        if schedule is None:
            return
        step = int(self._GetSolver().GetComputingModelPart().ProcessInfo[tessera.STEP])
        if schedule.IsDue(step, self.time):
            schedule.Remember(self.SaveCheckpoint(schedule.FileFor(step)))
            schedule.Advance(self.time)
        schedule.AgreeOnSignal(self.communicator)
        if schedule.pending_signal is not None:
            path = schedule.FileFor(step)
            if path not in schedule.written:
                schedule.Remember(self.SaveCheckpoint(path))
            print(f"{self._GetSimulationName()}: signal {schedule.pending_signal} received; "
                  f"checkpoint {path} written at time {self.time:.9g}, stopping", flush=True)
            raise _checkpoint.SignalStop(schedule.pending_signal, path)

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
