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

`--balance count,contacts,time --rebalance-every N` runs each
sweeps_per_exchange with each balance of the ranks' boxes
(mpi_settings.balance: "count" the spheres, "contacts" the contacts to
sweep, "time" the contacts by the ranks' measured sweep speeds; a new
bisection every N steps where the loads, or times, differ at all); without them the deck's defaults (count,
every 1000 steps: no new bisection in these runs). The contacts each rank
swept in the last step are printed too.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/nonsmooth_mpi_benchmark.py
        [--nx 7 --ny 7 --nz 6 --steps 150] [--sweeps-per-exchange 1,2,4] [--rounds 2]
        [--balance count,contacts,time --rebalance-every 10]
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
    parser.add_argument("--balance", default=None,
                        help="mpi_settings.balance values to run, comma-separated (count,contacts,time)")
    parser.add_argument("--rebalance-every", type=int, default=10,
                        help="with --balance: steps between imbalance checks (threshold 1)")
    args = parser.parse_args()
    if MpiSkipReason() is not None:
        sys.exit(f"no MPI run possible: {MpiSkipReason()}")
    os.environ["OMP_NUM_THREADS"] = "1"
    work = args.workdir or tempfile.mkdtemp(prefix="nonsmooth_mpi_")
    values = [int(v) for v in args.sweeps_per_exchange.split(",")]
    balances = args.balance.split(",") if args.balance else [None]
    runs = [(k, b) for k in values for b in balances]
    folders = {}
    for k, b in runs:
        folders[k, b] = os.path.join(work, f"bed_{k}_{b}")
        shutil.rmtree(folders[k, b], ignore_errors=True)
        keys = {"mpi_settings": {"balance": b, "rebalance_every": args.rebalance_every,
                                 "imbalance_threshold": 1.0}} if b else {}
        WriteBed(folders[k, b], nx=args.nx, ny=args.ny, nz=args.nz, steps=args.steps,
                 keys=moreau_jean(args.steps, settings={"sweeps_per_exchange": k}, keys=keys))
    print(f"bed {args.nx} x {args.ny} x {args.nz} = {args.nx * args.ny * args.nz} spheres, "
          f"{args.steps} steps of {DT} s; load average {os.getloadavg()[0]:.2f}", flush=True)
    print("| run | loop wall | CPU per rank | sweeps | message rounds | contacts per step "
          "| interface contacts per step | swept in the last step, per rank "
          "| max dv from one process |")
    print("|---|---|---|---|---|---|---|---|---|")
    for _ in range(args.rounds):
        serial = Run(folders[runs[0]], os.path.join(work, "serial.npz"), None)
        wall, cpu = np.asarray(serial["seconds"]).reshape(-1, 2)[0]
        print(f"| one process | {wall:.2f} s | {cpu:.2f} s | {serial['iterations'].sum():.0f} | 0 "
              f"| {serial['contacts'].mean():.0f} | | | 0 |", flush=True)
        for k, b in runs:
            mpi = Run(folders[k, b], os.path.join(work, f"mpi_{k}_{b}.npz"), 2)
            seconds = np.asarray(mpi["seconds"]).reshape(-1, 2)
            dv = np.abs(mpi["VELOCITY"] - serial["VELOCITY"]).max()
            balance = f", balance {b} ({int(mpi['rebalances'])} bisections)" if b else ""
            print(f"| 2 ranks, sweeps_per_exchange {k}{balance} | {seconds[0, 0]:.2f} s | "
                  f"{', '.join(f'{c:.2f}' for c in seconds[:, 1])} s | "
                  f"{mpi['iterations'].sum():.0f} | {mpi['exchanges'].sum():.0f} | "
                  f"{mpi['contacts'].mean():.0f} | {mpi['interface'].mean():.1f} | "
                  f"{' / '.join(str(c) for c in mpi['swept'])} | "
                  f"{dv:.2g} m/s |", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f}")
    if args.workdir is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
