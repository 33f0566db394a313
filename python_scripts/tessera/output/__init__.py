"""Result output processes: VTK XML for ParaView (`vtk_output_process`), GiD
ASCII post files (`gid_output_process`) and HDF5 with an XDMF descriptor
(`hdf5_output_process`).

They are Kratos-style output processes built by `Factory(settings, model)` from
an "output_processes" entry of a ProjectParameters.json. They share the output
schedule and the ScheduledOutputProcess base below.
"""
import tessera


class OutputSchedule:
    """Decides which solution steps write output, from the model part's
    ProcessInfo: with control "step" every `interval` steps (STEP), with "time"
    every `interval` of simulated time (TIME).

    Outputs fall at start + interval, start + 2 interval, ..., where start is the
    STEP or TIME when the schedule is (re)started: before the solution loop, so
    interval 1 with "step" writes every step and the initial state is not
    written. When a step overshoots an output point (time control with steps
    that do not divide the interval) that step writes, and the next output point
    is the first one after it.
    """

    def __init__(self, model_part, control_type, interval, owner):
        if control_type not in ("step", "time"):
            raise ValueError(
                f'{owner}: "output_control_type" is "{control_type}"; '
                'allowed values: "step", "time"')
        if not interval > 0.0:
            raise ValueError(f'{owner}: "output_interval" must be positive, not {interval}')
        self._process_info = model_part.ProcessInfo
        self._variable = tessera.STEP if control_type == "step" else tessera.TIME
        self.interval = float(interval)
        # Times accumulate rounding (0.1 + 0.2 > 0.3): compare with a margin that
        # is tiny against the interval.
        self._tolerance = 1e-9 * self.interval
        self.Restart()

    def _Now(self):
        return float(self._process_info[self._variable])

    def Restart(self):
        """Starts counting from the current STEP or TIME."""
        self.next_output = self._Now() + self.interval

    def IsOutputStep(self):
        return self._Now() >= self.next_output - self._tolerance

    def ScheduleNext(self):
        """After writing: moves the next output point past the current one."""
        now = self._Now()
        while self.next_output <= now + self._tolerance:
            self.next_output += self.interval


class ScheduledOutputProcess(tessera.Process):
    """Kratos' output process protocol over an OutputSchedule: the analysis asks
    IsOutputStep() after each solution step and calls PrintOutput() when it is.
    Subclasses set `self.schedule` and `self.writer` (an object with
    PrintOutput(), the C++ VtkOutput or GidOutput)."""

    def ExecuteBeforeSolutionLoop(self):
        # TIME and STEP are final only now (restarts, start times set by the solver).
        self.schedule.Restart()

    def IsOutputStep(self):
        return self.schedule.IsOutputStep()

    # A continued run writes at the points the interrupted one would have.
    def GetCheckpointState(self):
        return {"next_output": self.schedule.next_output}

    def SetCheckpointState(self, state):
        self.schedule.next_output = state["next_output"]

    def PrintOutput(self):
        self.writer.PrintOutput()
        self.schedule.ScheduleNext()
