"""Two builds of Tessera on the same DEM benchmark, alternating: the ratio of
their times per step, round by round.

    PYTHONPATH=build/python /usr/bin/python3 applications/dem/benchmarks/dem_build_ab.py \\
        --other /path/to/other/build/python [--case bed|gas|mixer] [--rounds 8]

Each round runs one worker of each build, in its own process, one thread
(OMP_NUM_THREADS=1), the order swapped every round so that neither build
always runs second: the worker of dem_packed_bed_benchmark.py (`bed`, `gas`:
32,000 spheres, 500 steps; `gas` only between builds that both search
adaptively, or the one that does not misses contacts) or of helical_mixer_benchmark.py on its lattice
deck (`mixer`: 100 timed steps after 100). Both builds run this tree's
benchmark scripts, which guard the calls an older build lacks. Printed: each
round's CPU times per step and ratio this/other, their median and spread, and
whether both builds ended with bitwise the same kinetic energy (a change that
claims to keep the results must). This is how a change is shown not to slow a
benchmark down on a shared host: the ratio of runs minutes apart moves less
than either time. Not a test: run by hand, figures go to docs/performance.md.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def Command(case):
    if case in ("bed", "gas"):
        return [os.path.join(HERE, "dem_packed_bed_benchmark.py"), "--case", case,
                "--worker-threads", "1"], 500
    return [os.path.join(HERE, "helical_mixer_benchmark.py"), "--worker", "time", "--deck",
            "lattice", "--steps", "100", "--warmup", "100"], 100


def Run(python_path, case):
    script, steps = Command(case)
    env = dict(os.environ, PYTHONPATH=python_path, OMP_NUM_THREADS="1")
    done = subprocess.run([sys.executable] + script, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"worker of {python_path} failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    kinetic = result.get("final_kinetic_repr", repr(result.get("kinetic")))
    # CPU time: on a shared host a process waiting for a core loses wall time
    # that is not its own (one thread, so CPU time is the step's work).
    return result["cpu"] / result.get("steps", steps), kinetic


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", required=True, help="the other build's python directory")
    parser.add_argument("--this", default=os.path.join(HERE, "..", "..", "..", "build", "python"),
                        help="this build's python directory (default: the tree's build/python)")
    parser.add_argument("--case", choices=("bed", "gas", "mixer"), default="bed")
    parser.add_argument("--rounds", type=int, default=8)
    args = parser.parse_args()
    builds = {"this": os.path.abspath(args.this), "other": os.path.abspath(args.other)}
    for name, path in builds.items():
        if not os.path.isdir(path):
            parser.error(f"--{name}: no directory {path}")
    print(f"{args.case}: this build {builds['this']}, other build {builds['other']}, "
          f"{args.rounds} rounds; load average at start {os.getloadavg()[0]:.2f}")
    ratios, kinetic = [], {}
    for r in range(args.rounds):
        order = ("this", "other") if r % 2 == 0 else ("other", "this")
        times = {}
        for name in order:
            times[name], kinetic[name] = Run(builds[name], args.case)
        ratios.append(times["this"] / times["other"])
        print(f"round {r + 1}: this {times['this'] * 1e3:.3f} ms/step, other "
              f"{times['other'] * 1e3:.3f} ms/step, this/other {ratios[-1]:.3f}", flush=True)
    print(f"this/other: median {statistics.median(ratios):.3f}, rounds "
          f"{min(ratios):.3f}-{max(ratios):.3f}; final kinetic energy bitwise equal: "
          f"{kinetic['this'] == kinetic['other']} ({kinetic['this']} / {kinetic['other']}); "
          f"load average at end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
