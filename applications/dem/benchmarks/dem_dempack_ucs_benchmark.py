"""Bonded against unbonded step cost on a UCS specimen: a cylinder of about
50,000 spheres bonded by DEM_Dempack, against the same spheres as plain
contacts (sphere_strategy) with the same number of pairs.

    PYTHONPATH=build/python OMP_NUM_THREADS=1 /usr/bin/python3 \
        applications/dem/benchmarks/dem_dempack_ucs_benchmark.py [--cells 32] [--steps 100] [--repeat 3]

The specimen: the spheres of a simple cubic lattice (R 1.5 mm, spacing 3 mm)
inside a cylinder of height twice its diameter (the UCS specimen's shape;
--cells lattice cells across, 32: Ø96 × 192 mm). Bonded: every
lattice neighbour pair touches and is bonded (β 0.01, VPAC, strengths out of
reach so that none breaks); unbonded: the radii 0.1 % larger, so that the
same pairs overlap and are contacts of the linear law. Both start with
random velocities (σ 0.01 m/s) and spins (σ 1 rad/s), Symplectic Euler,
Δt 1.5e-8 s (below both critical step estimates; the bonded one, 3.4e-8 s, is the smaller), search every 50 steps. Timed: the
steps only (wall clock, or with --clock cpu the process' CPU time), through
the strategy alone, each run in its own process, the fastest of --repeat.
The target of issue 40: a bonded step at most 2× an unbonded step with the
same pair count. Not a test: figures go to docs/performance.md.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

RADIUS = 0.0015
DT = 1.5e-8


def Build(cells, bonded, law="DEM_Dempack", seed=5):
    import tessera
    import tessera.dem  # noqa: F401
    from tessera import _dem
    rng = np.random.default_rng(seed)
    model = tessera.Model()
    spheres = model.CreateModelPart("SpheresPart")
    _dem.DeclareParticleVariables(spheres)
    spheres.AddNodalSolutionStepVariable(tessera.COHESIVE_GROUP)
    grain = spheres.GetProperties(1)
    for variable, value in ((tessera.PARTICLE_DENSITY, 2500.0), (tessera.YOUNG_MODULUS, 28e9),
                            (tessera.POISSON_RATIO, 0.2)):
        grain.SetValue(variable, value)
    relation = tessera.Properties(1)
    for variable, value in ((tessera.COEFFICIENT_OF_RESTITUTION, 0.2),
                            (tessera.STATIC_FRICTION, 0.25), (tessera.DYNAMIC_FRICTION, 0.25),
                            (tessera.CONTACT_SIGMA_MIN, 1e12), (tessera.CONTACT_TAU_ZERO, 1e12),
                            (tessera.CONTACT_INTERNAL_FRICC, 0.9), (tessera.DAMAGE_FACTOR, 0.2),
                            (tessera.SHEAR_ENERGY_COEF, 0.2), (tessera.BOND_RANGE_BETA, 0.01)):
        relation.SetValue(variable, value)
    relation.SetValue(tessera.DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME, "DEM_D_Linear_viscous_Coulomb")
    relation.SetValue(tessera.DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME, law)
    grain.AddSubProperties(relation)
    spacing = 2 * RADIUS
    half = 0.5 * cells * spacing
    radius = RADIUS if bonded else RADIUS * 1.001
    node = 0
    for k in range(2 * cells):
        for j in range(cells):
            for i in range(cells):
                x, y = (i + 0.5) * spacing - half, (j + 0.5) * spacing - half
                if np.hypot(x, y) + RADIUS > half:
                    continue
                node += 1
                n = spheres.CreateNewNode(node, x, y, (k + 0.5) * spacing)
                n.SetSolutionStepValue(tessera.RADIUS, radius)
                n.SetSolutionStepValue(tessera.VELOCITY, list(rng.normal(0.0, 0.01, 3)))
                n.SetSolutionStepValue(tessera.ANGULAR_VELOCITY, list(rng.normal(0.0, 1.0, 3)))
                n.SetSolutionStepValue(tessera.COHESIVE_GROUP, 1 if bonded else 0)
                spheres.CreateNewElement("SphericContinuumParticle3D", node, [node], grain)
    settings = _dem.DemSettings()
    settings.continuum = bonded
    settings.bond_area_correction = "vpac"
    settings.delta_time = DT
    settings.translational_scheme = "Symplectic_Euler"
    settings.gravity = [0.0, 0.0, 0.0]
    settings.search_frequency = 50
    settings.search_tolerance = 1e-5
    strategy = _dem.ExplicitSolverStrategy(spheres, None, settings)
    return model, strategy


def Worker(cells, steps, bonded, law):
    model, strategy = Build(cells, bonded, law)
    strategy.Initialize()
    critical = strategy.EstimateTimeStep(0.01).critical_time_step
    t = 0.0
    strategy.SolveSolutionStep(DT)  # the first step (contact list) untimed
    t = DT
    start, start_cpu = time.perf_counter(), time.process_time()
    for _ in range(steps):
        t += DT
        strategy.SolveSolutionStep(t)
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - start_cpu
    print(json.dumps({"elapsed": elapsed, "cpu": cpu, "spheres": len(strategy.Particles.radius),
                      "bonds": strategy.NumberOfBonds(), "intact": strategy.NumberOfIntactBonds(),
                      "contacts": strategy.NumberOfParticleContacts(), "critical": critical}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cells", type=int, default=32)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--worker", choices=("bonded", "contacts"))
    parser.add_argument("--law", default="DEM_Dempack", help="the bond law (DEM_KDEM for comparison)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="time the steps by the wall clock or by the process' CPU time "
                             "(one thread on a loaded host: what the steps cost, not the waits)")
    args = parser.parse_args()
    if args.worker:
        Worker(args.cells, args.steps, args.worker == "bonded", args.law)
        return
    results = {}
    for _ in range(args.repeat):
        for mode in ("bonded", "contacts"):
            command = [sys.executable, os.path.abspath(__file__), "--worker", mode, "--cells",
                       str(args.cells), "--steps", str(args.steps), "--law", args.law]
            output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
            run = json.loads(output.strip().splitlines()[-1])
            run["time"] = run["elapsed"] if args.clock == "wall" else run["cpu"]
            if mode not in results or run["time"] < results[mode]["time"]:
                results[mode] = run
    for mode, run in results.items():
        pairs = run["bonds"] if mode == "bonded" else run["contacts"]
        seconds = run["time"] / args.steps
        print(f"{mode:8s}: {run['spheres']} spheres, {pairs} pairs (bonds {run['bonds']}, "
              f"contacts {run['contacts']}, intact {run['intact']}), critical step "
              f"{run['critical']:.3g} s: {seconds * 1e3:8.3f} ms/step, "
              f"{pairs / seconds / 1e6:6.2f} M pair-steps/s")
    ratio = results["bonded"]["time"] / results["contacts"]["time"]
    print(f"bonded / unbonded step ({args.clock} time): {ratio:.2f} (target <= 2)")


if __name__ == "__main__":
    main()
