"""Bonded DEM throughput: a block of bonded spheres (continuum strategy, KDEM),
particle-steps and bond-steps per second on 1 and 2 threads.

    PYTHONPATH=build/python /usr/bin/python3 applications/dem/benchmarks/dem_bonded_block_benchmark.py \
        [--side 32 32 32] [--steps 200] [--threads 1 2] [--repeat 3]

A simple cubic block of touching spheres (R 5 mm, spacing 10 mm; 32³ = 32,768
spheres, 95,232 bonds by default) of one COHESIVE_GROUP, E 2e7 Pa, ρ 2400,
KDEM bonds with bending and twisting springs (ROTATIONAL_MOMENT_COEFFICIENT
0.5), strong enough that none breaks, the linear contact law for the
rest, with random velocities (σ 0.05 m/s) and spins (σ 5 rad/s): every bond
is loaded at every step, no contact is made. Velocity Verlet, Δt 1e-5 s (the
estimated critical step is about 1.2e-5 s), search every 50 steps. Timed:
the steps only, through the strategy alone, each thread count in its own
process (OMP_NUM_THREADS), the fastest of --repeat runs. Also reports
whether 1 and 2 threads end in bitwise the same state.

No peer runs beside it: the Debian LAMMPS (29 Sep 2021) predates its BPM
bonded-particle package and LIGGGHTS has no bonds. Not a test: run by hand,
figures go to docs/performance.md.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import time

import numpy as np

from omp_environment import AddWaitPolicyArgument, ThreadEnvironment

RADIUS = 0.005
DT = 1e-5


def Build(side, seed=5):
    import tessera
    import tessera.dem  # noqa: F401
    from tessera import _dem
    rng = np.random.default_rng(seed)
    model = tessera.Model()
    spheres = model.CreateModelPart("SpheresPart")
    _dem.DeclareParticleVariables(spheres)
    spheres.AddNodalSolutionStepVariable(tessera.COHESIVE_GROUP)
    grain = spheres.GetProperties(1)
    for variable, value in ((tessera.PARTICLE_DENSITY, 2400.0), (tessera.YOUNG_MODULUS, 2e7),
                            (tessera.POISSON_RATIO, 0.2)):
        grain.SetValue(variable, value)
    relation = tessera.Properties(1)
    for variable, value in ((tessera.COEFFICIENT_OF_RESTITUTION, 0.5),
                            (tessera.STATIC_FRICTION, 0.5), (tessera.DYNAMIC_FRICTION, 0.5),
                            (tessera.CONTACT_TAU_ZERO, 1e9), (tessera.CONTACT_INTERNAL_FRICC, 0.5),
                            (tessera.ROTATIONAL_MOMENT_COEFFICIENT, 0.5)):
        relation.SetValue(variable, value)
    relation.SetValue(tessera.DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME,
                      "DEM_D_Linear_viscous_Coulomb")
    relation.SetValue(tessera.DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME, "DEM_KDEM")
    grain.AddSubProperties(relation)
    nx, ny, nz = side
    node = 0
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                node += 1
                n = spheres.CreateNewNode(node, 2 * RADIUS * i, 2 * RADIUS * j, 2 * RADIUS * k)
                n.SetSolutionStepValue(tessera.RADIUS, RADIUS)
                n.SetSolutionStepValue(tessera.VELOCITY, list(rng.normal(0.0, 0.05, 3)))
                n.SetSolutionStepValue(tessera.ANGULAR_VELOCITY, list(rng.normal(0.0, 5.0, 3)))
                n.SetSolutionStepValue(tessera.COHESIVE_GROUP, 1)
                spheres.CreateNewElement("SphericContinuumParticle3D", node, [node], grain)
    settings = _dem.DemSettings()
    settings.continuum = True
    settings.delta_time = DT
    settings.translational_scheme = "Velocity_Verlet"
    settings.gravity = [0.0, 0.0, 0.0]
    settings.search_frequency = 50
    settings.search_tolerance = 1e-4
    strategy = _dem.ExplicitSolverStrategy(spheres, None, settings)
    return model, strategy


def Worker(side, steps):
    """One timed run in this process: prints a JSON line."""
    model, strategy = Build(side)
    strategy.Initialize()
    critical = strategy.EstimateTimeStep(0.0).critical_time_step
    t = 0.0
    start = time.perf_counter()
    for _ in range(steps):
        t += DT
        strategy.SolveSolutionStep(t)
    elapsed = time.perf_counter() - start
    state = np.ascontiguousarray(strategy.Particles.position).tobytes()
    print(json.dumps({"elapsed": elapsed, "spheres": len(strategy.Particles.radius),
                      "bonds": strategy.NumberOfBonds(), "intact": strategy.NumberOfIntactBonds(),
                      "contacts": strategy.NumberOfParticleContacts(), "critical": critical,
                      "state": hashlib.sha256(state).hexdigest()}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--side", type=int, nargs=3, default=[32, 32, 32])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    AddWaitPolicyArgument(parser)
    args = parser.parse_args()
    if args.worker:
        Worker(tuple(args.side), args.steps)
        return
    results = {}
    for _ in range(args.repeat):
        for threads in args.threads:  # interleaved, so that the host's drift hits all alike
            command = [sys.executable, os.path.abspath(__file__), "--worker", "--side",
                       *map(str, args.side), "--steps", str(args.steps)]
            output = subprocess.run(command, env=ThreadEnvironment(threads, args.wait_policy),
                                    check=True, capture_output=True, text=True).stdout
            run = json.loads(output.strip().splitlines()[-1])
            best = results.get(threads)
            if best is None or run["elapsed"] < best["elapsed"]:
                results[threads] = run
    first = results[args.threads[0]]
    print(f"{first['spheres']} spheres, {first['bonds']} bonds ({first['intact']} intact at the "
          f"end, {first['contacts']} contacts), {args.steps} steps of {DT} s "
          f"(critical step estimate {first['critical']:.3g} s); fastest of {args.repeat}")
    for threads, run in results.items():
        seconds = run["elapsed"] / args.steps
        print(f"threads {threads}: {seconds * 1e3:7.3f} ms/step  "
              f"{run['spheres'] / seconds / 1e6:6.2f} M particle-steps/s  "
              f"{run['bonds'] / seconds / 1e6:6.2f} M bond-steps/s  "
              f"({results[args.threads[0]]['elapsed'] / run['elapsed']:.2f}x)")
    states = {run["state"] for run in results.values()}
    print("final state bitwise the same for all thread counts:", len(states) == 1)


if __name__ == "__main__":
    main()
