"""Moreau–Jean (non-smooth contact dynamics) on 2 MPI ranks against one
process: the settling bed of tests/python/test_mpi_moreau_jean.py (the
spheres of tests/python/mpi_dem_case.py thrown at up to 1 m/s into an open
box of walls, falling under gravity), NX x NY x NZ spheres, STEPS steps of
1e-3 s, NLGS tolerance 1e-8, forward sweeps.

The distributed run replicates the model on every rank and splits the NLGS
sweeps (docs/architecture.md, "Distributed Moreau–Jean"); after every
`sweeps_per_exchange` sweeps the ranks exchange the impulses of the contacts
at their interfaces (one message round). Each run is a fresh process (or
pair of ranks) of tests/python/mpi_moreau_jean_run.py, one thread each.

Reported per run: the step loop's wall time (rank 0) and CPU time per rank,
the sweeps and the message rounds summed over the steps, the contacts per
step, and the largest velocity difference from the one-process run at the
end (the runs agree to the NLGS tolerance, not bitwise, where contact chains
cross the cut: tests/python/test_mpi_moreau_jean.py bounds it). On a host
shared with other jobs the times are noisy: the load average is printed;
alternate and repeat the runs (--rounds).

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/nonsmooth_mpi_benchmark.py
        [--nx 7 --ny 7 --nz 6 --steps 150] [--sweeps-per-exchange 1,2,4] [--rounds 2]
"""
import argparse
import os
import shutil
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..", "tests", "python")
sys.path.insert(0, TESTS)

from mpi_dem_case import WriteBed  # noqa: E402
from mpi_moreau_jean_run import DT, moreau_jean  # noqa: E402
from tessera.parallel import MpiSkipReason, RunPython  # noqa: E402

RUN = os.path.join(TESTS, "mpi_moreau_jean_run.py")


def Run(folder, out, ranks):
    """One run: None ranks is one process (parallel_type OpenMP)."""
    RunPython([RUN, folder, out, "MPI" if ranks else "OpenMP"], ranks, timeout=None)
    return np.load(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nx", type=int, default=7)
    parser.add_argument("--ny", type=int, default=7)
    parser.add_argument("--nz", type=int, default=6)
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--sweeps-per-exchange", default="1,2,4",
                        help="comma-separated values of moreau_jean_settings.sweeps_per_exchange")
    parser.add_argument("--rounds", type=int, default=1, help="repeat the whole set, alternating")
    parser.add_argument("--workdir", default=None)
    args = parser.parse_args()
    if MpiSkipReason() is not None:
        sys.exit(f"no MPI run possible: {MpiSkipReason()}")
    os.environ["OMP_NUM_THREADS"] = "1"
    work = args.workdir or tempfile.mkdtemp(prefix="nonsmooth_mpi_")
    values = [int(v) for v in args.sweeps_per_exchange.split(",")]
    folders = {}
    for k in values:
        folders[k] = os.path.join(work, f"bed_{k}")
        shutil.rmtree(folders[k], ignore_errors=True)
        WriteBed(folders[k], nx=args.nx, ny=args.ny, nz=args.nz, steps=args.steps,
                 keys=moreau_jean(args.steps, settings={"sweeps_per_exchange": k}))
    print(f"bed {args.nx} x {args.ny} x {args.nz} = {args.nx * args.ny * args.nz} spheres, "
          f"{args.steps} steps of {DT} s; load average {os.getloadavg()[0]:.2f}", flush=True)
    print("| run | loop wall | CPU per rank | sweeps | message rounds | contacts per step "
          "| max dv from one process |")
    print("|---|---|---|---|---|---|---|")
    for _ in range(args.rounds):
        serial = Run(folders[values[0]], os.path.join(work, "serial.npz"), None)
        wall, cpu = np.asarray(serial["seconds"]).reshape(-1, 2)[0]
        print(f"| one process | {wall:.2f} s | {cpu:.2f} s | {serial['iterations'].sum():.0f} | 0 "
              f"| {serial['contacts'].mean():.0f} | 0 |", flush=True)
        for k in values:
            mpi = Run(folders[k], os.path.join(work, f"mpi_{k}.npz"), 2)
            seconds = np.asarray(mpi["seconds"]).reshape(-1, 2)
            dv = np.abs(mpi["VELOCITY"] - serial["VELOCITY"]).max()
            print(f"| 2 ranks, sweeps_per_exchange {k} | {seconds[0, 0]:.2f} s | "
                  f"{', '.join(f'{c:.2f}' for c in seconds[:, 1])} s | "
                  f"{mpi['iterations'].sum():.0f} | {mpi['exchanges'].sum():.0f} | "
                  f"{mpi['contacts'].mean():.0f} | {dv:.2g} m/s |", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f}")
    if args.workdir is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
