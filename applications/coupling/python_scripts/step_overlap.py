"""StepOverlap: the explicit coupled step's two solvers on the threads at once.

In the explicit scheme (dem_structures_coupling_analysis.py) the structure's
residual at u_n+1 needs the DEM's contact loads only through the skin's load
conditions, and the DEM step needs only the walls at u_n+1. So after the
structure's drift and the walls' move, the structure's other right-hand sides
(its elements' internal forces: most of its step) are assembled on a
background worker's threads (ExplicitCentralDifferences BeginKick, the skin's
load conditions deferred to Kick) while the DEM steps on the remaining
threads; Kick then adds the skin loads and sums. In the DEM-first order
("explicit_dem_first") the DEM step uses the walls of the last step, so the
worker takes the structure's drift as well. Each solver's results do not
depend on its thread count and the sums are taken in the same order, so the
results are bitwise those of the sequential step, and the stage may switch
between the two at any step.

The T threads of the run are split: the structure takes
n_s = round(T w_s / (w_s + w_d)) (at least one each), w the work of each half
(wall-clock time x threads) over the last REBALANCE_STEPS overlapped steps,
so that both end together; with two threads one each. While it overlaps, the
stage's own thread keeps the DEM's n_d threads for the whole step cycle (the
rest of the structure's step, both stages' finalisation and output), not
only during the overlap: an OpenMP team's idle threads spin for milliseconds
after each parallel region (libgomp's default wait policy), and a spare
thread of T woken between the overlaps would spin on the worker's core
through the next one.

Whether to overlap ("overlap_structure_and_dem" of
ProjectParametersCoupling.json): true always (on two or more threads), false
never, "auto" by measurement: every PROBE_CYCLE steps the stage times whole
step cycles sequentially on all T threads and then overlapped (WARM_STEPS
untimed, PROBE_STEPS timed each) and keeps the one of the smaller median
step (a step that writes output or searches is an outlier a median ignores)
until the next probe.
With two threads the overlap gives each solver one thread: it pays where the
two halves are of similar size and loses where one dominates (a large bed on
a small structure), which only a measurement on the host can tell.
"""
import statistics
import time

import tessera


class StepOverlap:
    REBALANCE_STEPS = 50  # overlapped steps between two choices of the split
    WARM_STEPS = 2  # steps of each probe left untimed (the change of mode)
    PROBE_STEPS = 8  # steps timed per mode in a probe
    PROBE_CYCLE = 250  # steps from one probe to the next (a busy host changes within minutes)

    def __init__(self, strategy, deferred_part, threads, mode):
        self.threads = threads
        self.structure_threads = threads // 2
        self.dem_threads = threads - self.structure_threads
        self.worker = tessera.BackgroundWorker()
        self.mode = mode  # True, False or "auto"
        self.overlapping = False  # this step's choice (BeginStep)
        self.overlapped_steps = 0
        self.sequential_steps = 0
        self._strategy = strategy
        self._work = [0.0, 0.0]  # structure, DEM: seconds x threads since the last split
        self._work_steps = 0
        self._cycle_step = 0
        self._probe = {True: [], False: []}  # timed step cycles of each mode in this probe
        self._choice = True
        self._last_start = None
        strategy.DeferConditionsOf(deferred_part)

    @classmethod
    def Create(cls, strategy, deferred_part, mode):
        """The overlap for the run's thread count, or None with one thread or
        mode false."""
        threads = tessera.GetParallelThreads()
        return cls(strategy, deferred_part, threads, mode) if threads >= 2 and mode is not False else None

    def BeginStep(self):
        """Whether this step overlaps (and this thread's OpenMP thread count
        for it); in "auto" mode the previous step cycle's time goes to its
        probe."""
        now = time.perf_counter()
        previous = self._last_start
        self._last_start = now
        if self.mode is True:
            overlap = True
        else:
            if previous is not None:
                self._Record(now - previous)
            overlap = self._ModeOfStep()
            self._cycle_step = (self._cycle_step + 1) % self.PROBE_CYCLE
        if overlap != self.overlapping or self.overlapped_steps + self.sequential_steps == 0:
            tessera.SetParallelThreads(self.dem_threads if overlap else self.threads)
        self.overlapping = overlap
        if overlap:
            self.overlapped_steps += 1
        else:
            self.sequential_steps += 1
        return overlap

    def Close(self):
        """The calling thread gets all the run's threads back (the stage's end)."""
        tessera.SetParallelThreads(self.threads)

    def Start(self, drift=False):
        """The structure's half on the worker (its drift first with `drift`:
        the DEM-first order, whose DEM step uses the walls of the last step)."""
        self._strategy.BeginKickOn(self.worker, self.structure_threads, drift)

    def Finish(self, dem_seconds):
        """Waits for the structure's half (raising what it raised);
        dem_seconds: the DEM half's time."""
        self.worker.Wait()
        self._work[0] += self.worker.LastTaskSeconds() * self.structure_threads
        self._work[1] += dem_seconds * self.dem_threads
        self._work_steps += 1
        if self._work_steps == self.REBALANCE_STEPS:
            self._Rebalance()

    def Abandon(self):
        """After an error in the DEM's half: the worker's end awaited, its own
        error dropped (the DEM's is the one to report)."""
        try:
            self.worker.Wait()
        except Exception:  # noqa: BLE001 (the DEM's error is the one raised)
            pass

    # The probe: steps [0, W + P) of a cycle sequential, [W + P, 2 (W + P))
    # overlapped, the first W of each untimed; then the faster.
    def _ModeOfStep(self):
        window = self.WARM_STEPS + self.PROBE_STEPS
        if self._cycle_step < window:
            return False
        if self._cycle_step < 2 * window:
            return True
        return self._choice

    def _Record(self, seconds):
        """The step cycle that just ended (the one before _cycle_step)."""
        window = self.WARM_STEPS + self.PROBE_STEPS
        step = (self._cycle_step - 1) % self.PROBE_CYCLE
        if step < 2 * window and step % window >= self.WARM_STEPS:
            self._probe[step >= window].append(seconds)
        if step == 2 * window - 1:
            self._choice = statistics.median(self._probe[True]) <= statistics.median(self._probe[False])
            self._probe = {True: [], False: []}

    def _Rebalance(self):
        structure, dem = self._work
        if self.threads > 2 and structure + dem > 0.0:
            share = round(self.threads * structure / (structure + dem))
            self.structure_threads = min(max(share, 1), self.threads - 1)
            self.dem_threads = self.threads - self.structure_threads
            if self.overlapping:
                tessera.SetParallelThreads(self.dem_threads)
        self._work, self._work_steps = [0.0, 0.0], 0
