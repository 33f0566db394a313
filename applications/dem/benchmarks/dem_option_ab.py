"""A/B of one DEM strategy option, in one process: the batched (AVX2) contact
law against the scalar loop (--option batch), spatially sorted rows against
rows left in element order (--option sort), force blocks of 1024 rows
(or --block-rows N) against the default (--option block), or rows sharing the
nodal columns against rows of their own (--option share).

    PYTHONPATH=build/python /usr/bin/python3 applications/dem/benchmarks/dem_option_ab.py \
        [--option batch|sort|block|share] [--case bed|mixer|inlet] [--chunks 40] [--chunk 10] \
        [--warmup 0] [--block-rows 1024]

Both variants (DemSettings.batched_pair_contacts on and off,
DemSettings.sort_rows_frequency at its default and 0, or
DemSettings.force_block_rows at its default and 1024) are built in one process
from the same state and advanced in alternating chunks of steps, so a machine
whose speed drifts from minute to minute (another job on the second core)
slows both alike; the fastest chunk of each counts. Cases: the packed bed of
dem_packed_bed_benchmark.py (32,000 spheres, linear law, dense), the lattice
deck of helical_mixer_benchmark.py (29,559 spheres, Hertz with rolling
friction, loose) and the same mixer filled by its inlet (its fill cache). Run
with OMP_NUM_THREADS=1 for one thread. Batched and scalar runs must end
bitwise equal (checked); sorted and unsorted ones differ by the order of the
sums only (test_dem_spatial_sort.py), which a chaotic granular flow amplifies
over hundreds of steps, so their contact counts are printed instead (the two
block sizes too); shared and own rows must end bitwise equal too. Not a
test: figures go to docs/performance.md.
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


OPTIONS = {
    # name: (DemSettings attribute, value of variant A, value of variant B, labels)
    "batch": ("batched_pair_contacts", False, True, ("scalar", "batched")),
    "sort": ("sort_rows_frequency", 0, None, ("unsorted", "sorted")),
    "block": ("force_block_rows", None, 1024, ("default rows", "1024 rows")),
    "share": ("share_rows_with_nodes", False, True, ("own rows", "shared rows")),
}


def WithOption(option, variant):
    """Makes tessera._dem.ExplicitSolverStrategy build with the option's value
    of `variant` (0: A, 1: B; None keeps the default), as the benchmarks'
    builders construct the strategy themselves."""
    from tessera import _dem
    original = getattr(_dem, "_UnpatchedExplicitSolverStrategy", _dem.ExplicitSolverStrategy)
    _dem._UnpatchedExplicitSolverStrategy = original
    attribute, a, b, _ = OPTIONS[option]
    value = (a, b)[variant]

    def Build(spheres, walls, settings):
        if value is not None:
            setattr(settings, attribute, value)
        return original(spheres, walls, settings)

    _dem.ExplicitSolverStrategy = Build


class BedRun:
    def __init__(self, option, variant):
        import dem_packed_bed_benchmark as bed
        WithOption(option, variant)
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

    def __init__(self, option, variant):
        import tessera
        import tessera.dem
        import helical_mixer_benchmark as mixer
        WithOption(option, variant)
        self.folder = tempfile.mkdtemp(prefix="dem_option_ab_")
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
    parser.add_argument("--option", choices=sorted(OPTIONS), default="batch")
    parser.add_argument("--case", choices=("bed", "mixer", "inlet"), default="bed",
                        help="inlet: the mixer filled by its inlet, from the fill cache that "
                             "helical_mixer_benchmark.py makes")
    parser.add_argument("--chunks", type=int, default=40)
    parser.add_argument("--chunk", type=int, default=10, help="steps per chunk")
    parser.add_argument("--warmup", type=int, default=0, help="untimed steps first (each)")
    parser.add_argument("--block-rows", type=int, default=1024,
                        help="--option block: the force-block size compared with the default")
    args = parser.parse_args()
    if args.option == "block":
        OPTIONS["block"] = ("force_block_rows", None, args.block_rows,
                            ("default rows", f"{args.block_rows} rows"))
    from tessera import _dem
    if args.option == "batch" and not _dem.PairContactBatchAvailable():
        raise SystemExit("this processor has no AVX2: only the scalar loop exists here")
    if args.case == "inlet":
        import helical_mixer_benchmark as mixer
        if not os.path.isfile(mixer.DEFAULT_FILL_CACHE):
            raise SystemExit(f"no fill cache {mixer.DEFAULT_FILL_CACHE}: run "
                             "helical_mixer_benchmark.py once to make it")
        MixerRun.fill_cache = mixer.DEFAULT_FILL_CACHE
    Run = BedRun if args.case == "bed" else MixerRun
    labels = OPTIONS[args.option][3]
    runs = [Run(args.option, 0), Run(args.option, 1)]
    for run in runs:
        run.Advance(args.warmup)
    seconds = [[], []]
    for _ in range(args.chunks):
        for variant, run in enumerate(runs):
            start = time.perf_counter()
            run.Advance(args.chunk)
            seconds[variant].append((time.perf_counter() - start) / args.chunk)
    print(f"{args.case}, --option {args.option}: {args.chunks} alternating chunks of "
          f"{args.chunk} steps, load average {os.getloadavg()[0]:.2f}")
    for variant in (0, 1):
        t = np.array(seconds[variant]) * 1e3
        print(f"  {labels[variant]:>8}: fastest chunk {t.min():.3f} ms/step, "
              f"median {np.median(t):.3f}; sphere contacts at the end "
              f"{runs[variant].strategy.NumberOfParticleContacts()}")
    ratio = min(seconds[1]) / min(seconds[0])
    print(f"  {labels[1]} / {labels[0]} (fastest chunks): {ratio:.3f}")
    if args.option not in ("batch", "share"):
        return
    a, b = (run.strategy.Particles for run in runs)
    equal = all(np.array_equal(getattr(a, name), getattr(b, name))
                for name in ("position", "velocity", "angular_velocity", "force", "torque"))
    print(f"  final states bitwise equal: {equal}")
    if not equal:
        raise SystemExit(f"the {labels[0]} and the {labels[1]} runs differ")


if __name__ == "__main__":
    main()
