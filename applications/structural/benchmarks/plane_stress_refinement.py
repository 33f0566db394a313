"""Mesh refinement study of the plane-stress validation cases (Cook's membrane,
Timoshenko–Goodier cantilever) with SmallDisplacementElement2D4N: prints the
value, the error against the reference and the observed convergence rate per
mesh. The tests (tests/python/test_structural_cook_cantilever.py) check the
cheap part of it; this script goes further (Cook up to 128 x 128).

  PYTHONPATH=build/python /usr/bin/python3 applications/structural/benchmarks/plane_stress_refinement.py
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "python"))

from structural_validation_cases import (COOK_REFERENCE_TIP_DISPLACEMENT,  # noqa: E402
                                         TimoshenkoGoodierCantilever, cook_tip_displacement)


def table(title, rows, reference):
    print(title)
    print(f"{'mesh':>10} {'value':>12} {'error %':>9} {'rate':>6}")
    previous = None
    for mesh, value in rows:
        error = abs(value - reference) / reference
        rate = f"{math.log2(previous / error):6.2f}" if previous else ""
        print(f"{mesh:>10} {value:12.6f} {100 * (value - reference) / reference:9.3f} {rate:>6}")
        previous = error
    print()


def main():
    cook = [(f"{n}x{n}", cook_tip_displacement(n)) for n in (2, 4, 8, 16, 32, 64, 128)]
    table(f"Cook's membrane, u_y(48, 52), reference {COOK_REFERENCE_TIP_DISPLACEMENT}", cook,
          COOK_REFERENCE_TIP_DISPLACEMENT)
    beam = TimoshenkoGoodierCantilever()
    rows = [(f"{10 * k}x{2 * k}", beam.fe_tip_deflection(10 * k, 2 * k)) for k in (1, 2, 4, 8, 16, 32)]
    table(f"Cantilever 10 x 2, u_y(L, 0), Timoshenko-Goodier {beam.tip_deflection():.6f} "
          f"(Euler-Bernoulli {beam.euler_bernoulli_tip_deflection():.6f})", rows, beam.tip_deflection())


if __name__ == "__main__":
    main()
