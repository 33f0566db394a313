"""DEM throughput: spheres settling in a box, particle-steps per second.

    PYTHONPATH=build/python /usr/bin/python3 applications/dem/benchmarks/dem_settling_benchmark.py \
        [--particles 20000] [--steps 400] [--threads 1 2]

N spheres (radius 4.9-5.1 mm, ρ 2500, E 1e7 so that Δt = 2e-5 s
resolves a 2 m/s impact in ~14 steps) start on a jittered cubic lattice of
spacing 1 cm, so that about half of the lattice neighbours overlap slightly
(a loaded granular bed: ~3 contacts per sphere), with random velocities, above
a floor and inside four side walls (RigidFace3D4N), under gravity,
Hertz contacts between spheres and linear ones against walls, friction 0.4,
restitution 0.5, Symplectic_Euler, search every 10 steps with a 1 mm tolerance.
Timed: the steps only (set-up excluded), first through the strategy alone, then
with the per-step node synchronisation the analysis stage adds (ReadFromNodes
and WriteToNodes). Not a test: run by hand, figures go to docs/performance.md.
"""
import argparse
import time

import numpy as np
from open_box import AddOpenBox, SettlingMaterials

import tessera
import tessera.dem  # noqa: F401
from tessera import _dem


def Build(count, seed=7):
    rng = np.random.default_rng(seed)
    model = tessera.Model()
    spheres = model.CreateModelPart("SpheresPart")
    _dem.DeclareParticleVariables(spheres)
    walls = model.CreateModelPart("RigidFacePart")
    grain, wall = SettlingMaterials(spheres, walls)
    spacing = 0.01  # radii 4.9-5.1 mm: about half the lattice neighbours touch at once
    side = int(np.ceil((count / 4) ** (1 / 3) * 2 ** (1 / 3)))  # a box twice as wide as tall
    layers = int(np.ceil(count / side**2))
    cells = np.array([(a, b, c) for c in range(layers) for b in range(side) for a in range(side)])[:count]
    positions = (cells + 0.5) * spacing - [side * spacing / 2, side * spacing / 2, 0.0]
    positions += rng.uniform(-0.0002, 0.0002, size=positions.shape)
    radii = rng.uniform(0.0049, 0.0051, size=count)
    velocities = rng.normal(0.0, 0.3, size=(count, 3))
    for i in range(count):
        node = spheres.CreateNewNode(i + 1, *positions[i])
        node.SetSolutionStepValue(tessera.RADIUS, radii[i])
        node.SetSolutionStepValue(tessera.VELOCITY, list(velocities[i]))
        spheres.CreateNewElement("SphericParticle3D", i + 1, [i + 1], grain)
    h = side * spacing / 2 + 0.01
    top = layers * spacing + 0.05
    AddOpenBox(walls, wall, -h, h, -h, h, top)
    return model, spheres, walls


def Settings():
    settings = _dem.DemSettings()
    settings.delta_time = 2e-5
    settings.translational_scheme = "Symplectic_Euler"
    settings.gravity = [0.0, 0.0, -9.81]
    settings.search_frequency = 10
    settings.search_tolerance = 0.001
    settings.wall_search_tolerance = 0.001
    return settings


def Measure(count, steps, threads, synchronise):
    model, spheres, walls = Build(count)
    tessera.SetParallelThreads(threads)
    strategy = _dem.ExplicitSolverStrategy(spheres, walls, Settings())
    strategy.Initialize()
    estimate = strategy.EstimateTimeStep(2.0)
    t, dt = 0.0, Settings().delta_time
    start = time.perf_counter()
    for _ in range(steps):
        t += dt
        if synchronise:
            strategy.ReadFromNodes()
        strategy.SolveSolutionStep(t)
        if synchronise:
            strategy.WriteToNodes()
    elapsed = time.perf_counter() - start
    return (elapsed, strategy.NumberOfParticleContacts(), strategy.NumberOfWallContacts(),
            estimate.contact_time / dt)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--particles", type=int, default=20000)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    print(f"{args.particles} spheres, {args.steps} steps of 2e-5 s")
    for threads in args.threads:
        for synchronise in (False, True):
            elapsed, contacts, wall_contacts, resolution = Measure(args.particles, args.steps,
                                                                   threads, synchronise)
            rate = args.particles * args.steps / elapsed
            print(f"threads {threads} {'strategy + node sync' if synchronise else 'strategy only':22s}"
                  f" {elapsed:7.3f} s  {rate / 1e6:6.2f} M particle-steps/s  "
                  f"({contacts} sphere contacts, {wall_contacts} wall contacts at the end; "
                  f"{resolution:.0f} steps per contact)")


if __name__ == "__main__":
    main()
