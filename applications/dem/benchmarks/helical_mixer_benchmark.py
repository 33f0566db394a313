"""DEM helical mixer (thesis §6.2.2): seconds per step against the thesis' serial run.

    PYTHONPATH=build/python /usr/bin/python3 applications/dem/benchmarks/helical_mixer_benchmark.py \
        [--steps 200] [--warmup 400] [--threads 1 2] [--search-frequency N] [--repeat 1]

Runs examples/helical_mixer.gid (29,559 spheres, 1,584 drum quadrilaterals,
840 blade triangles turning at 3 rev/s; Hertz, rolling friction, Δt 5e-5 s)
through tessera.dem.DEMAnalysisStage in a scratch copy with VTK output off.
The spheres start on a lattice with gaps, so the first steps have no contacts:
`--warmup` steps (default 400 = 0.02 s, the bed has fallen onto itself and the
blade is pushing it) run untimed, then `--steps` steps are timed, the stage's
whole loop (node synchronisation, Python time loop) included; wall-clock time
counts, and the process' CPU time is printed beside it (on a loaded machine,
the one-thread CPU time is the steadier figure). Each thread
count runs in its own process (OMP_NUM_THREADS). The deck searches every 10
steps with 1 mm (pairs) and 2.5 mm (walls) tolerances; the thesis searched
every step (Table 6.1, search frequency 1): `--search-frequency 1` runs that
(tolerances 0), the like-for-like comparison.

Reported: seconds per step, particle-steps per second, the share of each phase
(the strategy's GetTimings(); "stage" is the rest of the loop: Python, time
step cloning, processes), the 2/1-thread scaling, and the ratio to the thesis'
serial figure, 0.264 s per step for 29,559 spheres (105,630 s for 400,000 steps
on an Intel Xeon E5-2670, 2012; digest seed001_dem_contact.md §14). The issue's
target is below 0.005 s per step on one core (50× faster). The load average at
start and end is printed: on a shared machine the figures are provisional.
Not a test: run by hand, figures go to docs/performance.md.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
EXAMPLE = os.path.join(REPO_ROOT, "examples", "helical_mixer.gid")
DECK_FILES = ("ProjectParametersDEM.json", "MaterialsDEM.json", "helical_mixerDEM.mdpa",
              "helical_mixerDEM_FEM_boundary.mdpa")
THESIS_SECONDS_PER_STEP = 105630.0 / 400000.0  # 0.264 s, 29,559 spheres, serial
THESIS_SPHERES = 29559
TARGET_SECONDS_PER_STEP = 0.005


def Worker(args):
    """One measurement in this process; prints a JSON line."""
    import tessera
    import tessera.dem
    folder = tempfile.mkdtemp(prefix="helical_mixer_bench_")
    try:
        for name in DECK_FILES:
            shutil.copy(os.path.join(EXAMPLE, name), folder)
        os.chdir(folder)
        parameters = tessera.Parameters.FromFile("ProjectParametersDEM.json")
        dt = parameters["MaxTimeStep"].GetDouble()
        parameters["FinalTime"].SetDouble((args.warmup + args.steps + 0.5) * dt)
        parameters["post_vtk_option"].SetBool(False)
        if args.search_frequency:
            parameters["NeighbourSearchFrequency"].SetInt(args.search_frequency)
            if args.search_frequency == 1:
                parameters["SearchTolerance"].SetDouble(0.0)
                parameters["search_tolerance_against_walls"].SetDouble(0.0)
        stage = tessera.dem.DEMAnalysisStage(tessera.Model(), parameters)
        stage.Initialize()
        strategy = stage.GetStrategy()
        spheres = stage.spheres_model_part.NumberOfElements()

        # The stage's own loop, stopped after the warm-up (end half a step before
        # the last step, so that accumulated time cannot add or drop one).
        stage.end_time = (args.warmup - 0.5) * dt
        stage.RunSolutionLoop()
        strategy.ResetTimings()
        stage.end_time = (args.warmup + args.steps - 0.5) * dt
        start, cpu_start = time.perf_counter(), time.process_time()
        stage.RunSolutionLoop()
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        if strategy.StepCount() != args.warmup + args.steps:
            raise SystemExit(f"ran {strategy.StepCount()} steps, expected {args.warmup + args.steps}")
        result = {"threads": int(os.environ.get("OMP_NUM_THREADS", "0")), "spheres": spheres,
                  "steps": args.steps, "elapsed": elapsed, "cpu": cpu, "timings": strategy.GetTimings(),
                  "particle_contacts": strategy.NumberOfParticleContacts(),
                  "wall_contacts": strategy.NumberOfWallContacts(),
                  "search_frequency": parameters["NeighbourSearchFrequency"].GetInt()}
        print(json.dumps(result))
    finally:
        os.chdir(REPO_ROOT)
        shutil.rmtree(folder, ignore_errors=True)


def Measure(threads, args):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_WAIT_POLICY="passive")
    command = [sys.executable, os.path.abspath(__file__), "--worker", "--steps", str(args.steps),
               "--warmup", str(args.warmup), "--search-frequency", str(args.search_frequency)]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"worker with {threads} thread(s) failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def Report(result):
    steps, elapsed = result["steps"], result["elapsed"]
    per_step = elapsed / steps
    rate = result["spheres"] * steps / elapsed
    timings = dict(result["timings"])
    timings["stage"] = max(0.0, elapsed - sum(result["timings"].values()))
    shares = "  ".join(f"{name} {100 * value / elapsed:.1f}%" for name, value in timings.items()
                       if value > 0.0)
    print(f"threads {result['threads']}: {per_step * 1e3:.2f} ms/step "
          f"(CPU {result['cpu'] / steps * 1e3:.2f} ms/step over all threads), "
          f"{rate / 1e6:.2f} M particle-steps/s, thesis/this {THESIS_SECONDS_PER_STEP / per_step:.0f}x "
          f"(per particle-step {THESIS_SECONDS_PER_STEP / THESIS_SPHERES / (per_step / result['spheres']):.0f}x); "
          f"{result['particle_contacts']} sphere and {result['wall_contacts']} wall contacts at the end")
    print(f"    {shares}")
    return per_step


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=400)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--search-frequency", type=int, default=0,
                        help="override NeighbourSearchFrequency (1: every step, as the thesis; "
                             "0: the deck's)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per thread count; the fastest counts")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        Worker(args)
        return
    start_load = os.getloadavg()
    print(f"helical mixer, {args.warmup} untimed + {args.steps} timed steps of 5e-5 s, "
          f"search frequency {args.search_frequency or 'of the deck'}; load average at start "
          f"{start_load[0]:.2f}")
    best = {}
    for _ in range(args.repeat):
        for threads in args.threads:
            result = Measure(threads, args)
            if threads not in best or result["elapsed"] < best[threads]["elapsed"]:
                best[threads] = result
    per_step = {threads: Report(best[threads]) for threads in args.threads}
    if 1 in per_step:
        verdict = "met" if per_step[1] < TARGET_SECONDS_PER_STEP else "NOT met"
        print(f"one thread: {per_step[1]:.4f} s/step against the thesis' serial "
              f"{THESIS_SECONDS_PER_STEP:.3f} s ({THESIS_SECONDS_PER_STEP / per_step[1]:.0f}x); "
              f"target < {TARGET_SECONDS_PER_STEP} s/step: {verdict}")
        for threads in args.threads:
            if threads != 1:
                print(f"{threads}/1 threads: {per_step[1] / per_step[threads]:.2f}x")
    end_load = os.getloadavg()
    print(f"load average at end {end_load[0]:.2f} (start {start_load[0]:.2f}); on a shared "
          "machine these figures are provisional")


if __name__ == "__main__":
    main()
