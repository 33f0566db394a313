"""Progress reporters an AnalysisStage calls during its time loop:
Start(start_time, end_time, name), Report(step, time, end_time) after each
step, Finish(success) at the end.

* ProgressBar: one redrawn line on a terminal (steps, simulated time / end
  time, elapsed wall time, estimated time left), at most every 0.1 s;
* SummaryLine: a single line at the end, for logs and pipes;
* CreateReporter(stream, quiet): the bar on a TTY, the summary otherwise.
"""
import shutil
import sys
import time as _time


def FormatDuration(seconds):
    """"0:07", "3:25", "1:02:03": wall times a person reads at a glance."""
    if seconds is None or seconds != seconds or seconds == float("inf"):
        return "--:--"
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


class ProgressReporter:
    """Does nothing; the interface the stage calls (and the --quiet reporter)."""

    def __init__(self, stream=None, clock=_time.monotonic):
        self.stream = sys.stderr if stream is None else stream
        self.clock = clock
        self.name = ""
        self.start_time = 0.0
        self.end_time = 0.0
        self.step = 0
        self.time = 0.0
        self.started_at = None

    def Start(self, start_time, end_time, name=""):
        self.start_time, self.end_time, self.name = float(start_time), float(end_time), name
        self.time = self.start_time
        self.started_at = self.clock()

    def Report(self, step, time, end_time):
        self.step, self.time, self.end_time = int(step), float(time), float(end_time)

    def Finish(self, success=True):
        pass

    # ---- shared arithmetic
    def Fraction(self):
        span = self.end_time - self.start_time
        if span <= 0.0:
            return 1.0
        return min(1.0, max(0.0, (self.time - self.start_time) / span))

    def Elapsed(self):
        return 0.0 if self.started_at is None else self.clock() - self.started_at

    def Remaining(self):
        fraction = self.Fraction()
        if fraction <= 0.0:
            return None
        return self.Elapsed() * (1.0 - fraction) / fraction


class ProgressBar(ProgressReporter):
    def __init__(self, stream=None, clock=_time.monotonic, min_interval=0.1, width=None):
        super().__init__(stream, clock)
        self.min_interval = min_interval
        self.width = width
        self._last_draw = None
        self._drawn = False

    def Start(self, start_time, end_time, name=""):
        super().Start(start_time, end_time, name)
        self._Draw()

    def Report(self, step, time, end_time):
        super().Report(step, time, end_time)
        now = self.clock()
        if self._last_draw is None or now - self._last_draw >= self.min_interval:
            self._Draw()

    def Finish(self, success=True):
        if self.started_at is None:
            return
        self._Draw()
        self.stream.write("\n" if success else "  (stopped)\n")
        self.stream.flush()

    def Line(self):
        fraction = self.Fraction()
        text = (f" {100 * fraction:5.1f}%  step {self.step}  t {self.time:.4g}/{self.end_time:.4g}"
                f"  elapsed {FormatDuration(self.Elapsed())}  ETA {FormatDuration(self.Remaining())}")
        columns = self.width or shutil.get_terminal_size((80, 20)).columns
        bar_width = max(10, min(40, columns - len(text) - 3))
        filled = int(round(bar_width * fraction))
        return f"[{'#' * filled}{'.' * (bar_width - filled)}]{text}"

    def _Draw(self):
        self._last_draw = self.clock()
        self.stream.write("\r" + self.Line() + "\x1b[K")  # \x1b[K clears what a longer line left
        self.stream.flush()
        self._drawn = True


class SummaryLine(ProgressReporter):
    def Finish(self, success=True):
        if self.started_at is None:
            return
        state = "finished" if success else "stopped"
        name = f"{self.name}: " if self.name else ""
        self.stream.write(f"{name}{state} after {self.step} steps, t = {self.time:.6g} "
                          f"(end {self.end_time:.6g}), {self.Elapsed():.2f} s\n")
        self.stream.flush()


def CreateReporter(stream=None, quiet=False):
    stream = sys.stderr if stream is None else stream
    if quiet:
        return ProgressReporter(stream)
    isatty = getattr(stream, "isatty", None)
    return ProgressBar(stream) if isatty is not None and isatty() else SummaryLine(stream)
