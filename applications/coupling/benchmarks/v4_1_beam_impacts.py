"""V4.1 of the thesis (sphere impact on a simply supported beam), both cases
over their whole impact history, against the modal Euler-Bernoulli + Hertz
reference (digest §2.11; the set-up is test_coupling_thesis_validation.py's):

    PYTHONPATH=build/python /usr/bin/python3 applications/coupling/benchmarks/v4_1_beam_impacts.py

prints each impact (start, end, F_max) of the coupled run beside the
reference's; case 2 (three impacts) runs 3.4 ms of simulated time, about a
minute on one core. Too long for the test suite, which checks case 1 and the
first impact of case 2.
"""
import argparse
import os
import pathlib
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "python"))

import tessera  # noqa: E402
import tessera.coupling  # noqa: E402,F401
from test_coupling_thesis_validation import (ImpactsOf, _contact_force_history,  # noqa: E402
                                             _simply_supported_beam)

REFERENCE = {
    1: [(0.0, 1.568e-4, 4.97)],
    2: [(0.0, 4.349e-4, 8.99), (1.336e-3, 1.782e-3, 10.33), (2.801e-3, 3.223e-3, 5.58)],
}
CASES = {1: dict(length=0.1535, radius=0.01, cells=(60, 3, 4), end_time=4e-4, time_step=1e-7),
         2: dict(length=0.307, radius=0.02, cells=(120, 3, 4), end_time=3.4e-3, time_step=2e-7)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", type=int, choices=(1, 2), action="append")
    args = parser.parse_args()
    for case in args.case or (1, 2):
        folder = pathlib.Path(tempfile.mkdtemp(prefix=f"v4_1_case{case}_"))
        os.chdir(folder)
        _simply_supported_beam(folder, **CASES[case])
        times, forces, rebound = _contact_force_history(folder)
        impacts = ImpactsOf(times, forces)
        print(f"case {case}: {len(impacts)} impact(s) (reference {len(REFERENCE[case])}); "
              f"final sphere velocity {rebound:.4g} m/s")
        for k, (start, end, peak) in enumerate(impacts):
            line = f"  impact {k + 1}: {start:.4g} to {end:.4g} s, F_max {peak:.4g} N"
            if k < len(REFERENCE[case]):
                r = REFERENCE[case][k]
                line += (f"   reference {r[0]:.4g} to {r[1]:.4g} s, F_max {r[2]:.4g} N "
                         f"(F_max {100 * (peak / r[2] - 1):+.1f} %, duration "
                         f"{100 * ((end - start) / (r[1] - r[0]) - 1):+.1f} %)")
            print(line, flush=True)


if __name__ == "__main__":
    main()
