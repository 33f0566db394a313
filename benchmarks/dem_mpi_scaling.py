"""Weak scaling of the distributed DEM (applications/dem/parallel/), 1 -> 2
ranks: the bed of tests/python/mpi_dem_case.py with NX x NY x NZ spheres per
rank (the 2-rank bed twice as long in x), thrown at ±1 m/s in a box of rigid
walls, STEPS steps. Reported per run: seconds of the time loop (rank 0),
µs per sphere-step, the weak-scaling efficiency T(1 rank, n) / T(2 ranks, 2n),
and the communication: doubles (8 bytes) each rank sends per step to refresh
its neighbours' ghosts, its ghosts, and the doubles of all migrations
together. On a host shared with other jobs the times are noisy: run it
several times (the communication counts are exact).

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/dem_mpi_scaling.py
        [--nx 20 --ny 20 --nz 8 --steps 1000]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..", "tests", "python")
sys.path.insert(0, TESTS)

from mpi_dem_case import WriteBed  # noqa: E402
from tessera.parallel import MpiSkipReason, MpirunCommand, MpirunEnvironment  # noqa: E402


def run(folder, out, ranks):
    script = os.path.join(TESTS, "mpi_dem_run.py")
    command = [sys.executable, script, folder, out, "MPI" if ranks > 1 else "OpenMP"]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    if ranks > 1:
        command, env = MpirunCommand(ranks, *command), MpirunEnvironment()
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(result.stdout + result.stderr)
    return np.load(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nx", type=int, default=20)
    parser.add_argument("--ny", type=int, default=20)
    parser.add_argument("--nz", type=int, default=8)
    parser.add_argument("--steps", type=int, default=1000)
    args = parser.parse_args()
    if MpiSkipReason():
        sys.exit(MpiSkipReason())
    with tempfile.TemporaryDirectory() as tmp:
        one = os.path.join(tmp, "one")
        two = os.path.join(tmp, "two")
        n1 = WriteBed(one, args.nx, args.ny, args.nz, steps=args.steps)
        n2 = WriteBed(two, 2 * args.nx, args.ny, args.nz, steps=args.steps)
        r1 = run(one, os.path.join(tmp, "one.npz"), 1)
        r2 = run(two, os.path.join(tmp, "two.npz"), 2)
    t1, t2 = float(r1["seconds"]), float(r2["seconds"])
    print(f"1 rank : {n1} spheres, {args.steps} steps, {t1:.3f} s, "
          f"{1e6 * t1 / (n1 * args.steps):.3f} µs per sphere-step")
    print(f"2 ranks: {n2} spheres, {args.steps} steps, {t2:.3f} s, "
          f"{1e6 * t2 / (n2 / 2 * args.steps):.3f} µs per owned sphere-step")
    print(f"weak-scaling efficiency T1/T2 = {t1 / t2:.2f}")
    ghosts = r2["ghosts"].reshape(-1, 3)
    for rank, (count, per_step, migration) in enumerate(ghosts):
        print(f"rank {rank}: {int(count)} ghosts, {per_step:.0f} doubles "
              f"({8 * per_step / 1024:.1f} KiB) sent per step to refresh ghosts, "
              f"{int(migration)} doubles in all migrations ({8 * migration / 1024:.1f} KiB over "
              f"{int(r2['searches'])} searches)")
    print(f"spheres that changed owner (migrations): {int(r2['migrations'])}")


if __name__ == "__main__":
    main()
