"""A/B of the DEM pair pass: the batched (AVX2) contact law against the scalar loop.

    PYTHONPATH=build/python /usr/bin/python3 applications/dem/benchmarks/pair_batch_ab.py \
        [--case bed|mixer] [--chunks 40] [--chunk 10] [--warmup 0]

Both variants (DemSettings.batched_pair_contacts on and off) are built in one
process from the same state and advanced in alternating chunks of steps, so a
machine whose speed drifts from minute to minute (another job on the second
core) slows both alike; the fastest chunk of each counts. Cases: the packed bed
of dem_packed_bed_benchmark.py (32,000 spheres, linear law, dense), the
lattice deck of helical_mixer_benchmark.py (29,559 spheres, Hertz with rolling
friction, loose) and the same mixer filled by its inlet (its fill cache). Run with OMP_NUM_THREADS=1 for one thread. The two runs must
end bitwise equal (checked). Not a test: figures go to docs/performance.md.
"""
import argparse
import os
import shutil
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def WithBatching(batched):
    """Makes tessera._dem.ExplicitSolverStrategy build with batched_pair_contacts
    = batched (the benchmarks' builders construct it themselves)."""
    from tessera import _dem
    original = getattr(_dem, "_UnpatchedExplicitSolverStrategy", _dem.ExplicitSolverStrategy)
    _dem._UnpatchedExplicitSolverStrategy = original

    def Build(spheres, walls, settings):
        settings.batched_pair_contacts = batched
        return original(spheres, walls, settings)

    _dem.ExplicitSolverStrategy = Build


class BedRun:
    def __init__(self, batched):
        import dem_packed_bed_benchmark as bed
        WithBatching(batched)
        self.dt = bed.DELTA_TIME
        self.model, self.strategy = bed.BuildTessera(*bed.LatticeState(40, 40, 20))
        self.strategy.Initialize()
        self.time = 0.0

    def Advance(self, steps):
        for _ in range(steps):
            self.time += self.dt
            self.strategy.SolveSolutionStep(self.time)


class MixerRun:
    fill_cache = None  # --case inlet: the benchmark's cached inlet fill instead of the lattice

    def __init__(self, batched):
        import tessera
        import tessera.dem
        import helical_mixer_benchmark as mixer
        WithBatching(batched)
        self.folder = tempfile.mkdtemp(prefix="pair_batch_ab_")
        for name in mixer.DECK_FILES:
            shutil.copy(os.path.join(mixer.EXAMPLE, name), self.folder)
        if MixerRun.fill_cache:
            mixer.WriteFilledDeck(self.folder, dict(np.load(MixerRun.fill_cache)))
        else:
            mixer.WriteLatticeDeck(self.folder)
        cwd = os.getcwd()
        os.chdir(self.folder)
        try:
            parameters = tessera.Parameters.FromFile("ProjectParametersDEM.json")
            self.dt = parameters["MaxTimeStep"].GetDouble()
            parameters["FinalTime"].SetDouble(1e3)
            parameters["post_vtk_option"].SetBool(False)
            self.stage = tessera.dem.DEMAnalysisStage(tessera.Model(), parameters)
            self.stage.Initialize()
        finally:
            os.chdir(cwd)
        self.strategy = self.stage.GetStrategy()
        self.steps = 0

    def Advance(self, steps):
        # The stage's own loop, stopped half a step before the wanted end.
        self.steps += steps
        self.stage.end_time = (self.steps - 0.5) * self.dt
        self.stage.RunSolutionLoop()

    def __del__(self):
        shutil.rmtree(self.folder, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=("bed", "mixer", "inlet"), default="bed",
                        help="inlet: the mixer filled by its inlet, from the fill cache that "
                             "helical_mixer_benchmark.py makes")
    parser.add_argument("--chunks", type=int, default=40)
    parser.add_argument("--chunk", type=int, default=10, help="steps per chunk")
    parser.add_argument("--warmup", type=int, default=0, help="untimed steps first (each)")
    args = parser.parse_args()
    from tessera import _dem
    if not _dem.PairContactBatchAvailable():
        raise SystemExit("this processor has no AVX2: only the scalar loop exists here")
    if args.case == "inlet":
        import helical_mixer_benchmark as mixer
        if not os.path.isfile(mixer.DEFAULT_FILL_CACHE):
            raise SystemExit(f"no fill cache {mixer.DEFAULT_FILL_CACHE}: run "
                             "helical_mixer_benchmark.py once to make it")
        MixerRun.fill_cache = mixer.DEFAULT_FILL_CACHE
    Run = BedRun if args.case == "bed" else MixerRun
    runs = {True: Run(True), False: Run(False)}
    for run in runs.values():
        run.Advance(args.warmup)
    seconds = {True: [], False: []}
    for _ in range(args.chunks):
        for batched, run in runs.items():
            start = time.perf_counter()
            run.Advance(args.chunk)
            seconds[batched].append((time.perf_counter() - start) / args.chunk)
    print(f"{args.case}: {args.chunks} alternating chunks of {args.chunk} steps, "
          f"load average {os.getloadavg()[0]:.2f}")
    for batched in (False, True):
        t = np.array(seconds[batched]) * 1e3
        print(f"  {'batched' if batched else 'scalar '}: fastest chunk {t.min():.3f} ms/step, "
              f"median {np.median(t):.3f}; sphere contacts at the end "
              f"{runs[batched].strategy.NumberOfParticleContacts()}")
    ratio = min(seconds[True]) / min(seconds[False])
    print(f"  batched / scalar (fastest chunks): {ratio:.3f}")
    a, b = (runs[flag].strategy.Particles for flag in (True, False))
    equal = all(np.array_equal(getattr(a, name), getattr(b, name))
                for name in ("position", "velocity", "angular_velocity", "force", "torque"))
    print(f"  final states bitwise equal: {equal}")
    if not equal:
        raise SystemExit("the batched and the scalar runs differ")


if __name__ == "__main__":
    main()
