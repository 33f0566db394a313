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
results are bitwise those of the sequential step.

The T threads of the run are split: the structure takes
n_s = round(T w_s / (w_s + w_d)) (at least one each), w the work of each half
(wall-clock time x threads) over the last REBALANCE_STEPS steps, so that both
end together; with two threads one each. The stage's own thread keeps the
DEM's n_d threads for the whole run, the rest of the structure's step
included (its drift, the sums of Kick, its finalisation), not only during
the overlap: an OpenMP team's idle threads spin for milliseconds after each
parallel region (libgomp's default wait policy), and a spare thread of T
woken between the overlaps would spin on the worker's core through the next
one. With one thread the step stays sequential. ProjectParametersCoupling.json
"overlap_structure_and_dem" switches it off.
"""
import tessera


class StepOverlap:
    REBALANCE_STEPS = 50  # steps between two choices of the split

    def __init__(self, strategy, deferred_part, threads):
        self.threads = threads
        self.structure_threads = threads // 2
        self.dem_threads = threads - self.structure_threads
        self.worker = tessera.BackgroundWorker()
        self._strategy = strategy
        self._work = [0.0, 0.0]  # structure, DEM: seconds x threads since the last choice
        self._steps = 0
        strategy.DeferConditionsOf(deferred_part)
        tessera.SetParallelThreads(self.dem_threads)

    def Close(self):
        """The calling thread gets all the run's threads back (the stage's end)."""
        tessera.SetParallelThreads(self.threads)

    @classmethod
    def Create(cls, strategy, deferred_part):
        """The overlap for the run's thread count, or None with one thread."""
        threads = tessera.GetParallelThreads()
        return cls(strategy, deferred_part, threads) if threads >= 2 else None

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
        self._steps += 1
        if self._steps == self.REBALANCE_STEPS:
            self._Rebalance()

    def Abandon(self):
        """After an error in the DEM's half: the worker's end awaited, its own
        error dropped (the DEM's is the one to report)."""
        try:
            self.worker.Wait()
        except Exception:  # noqa: BLE001 (the DEM's error is the one raised)
            pass

    def _Rebalance(self):
        structure, dem = self._work
        if self.threads > 2 and structure + dem > 0.0:
            share = round(self.threads * structure / (structure + dem))
            self.structure_threads = min(max(share, 1), self.threads - 1)
            self.dem_threads = self.threads - self.structure_threads
            tessera.SetParallelThreads(self.dem_threads)
        self._work, self._steps = [0.0, 0.0], 0
