"""Smooth or non-smooth: a packing poured into a box until it rests, run
by the explicit DEM strategy (Hertz spheres, linear walls) and by the
Moreau-Jean strategy (rigid spheres, impulses) on the same deck.

    PYTHONPATH=build/python OMP_NUM_THREADS=1 /usr/bin/python3 \
        applications/dem/benchmarks/nonsmooth_settling_benchmark.py \
        [--particles 10000] [--smooth-dt 2e-5] [--nonsmooth-dt 1e-3] [--scaling 500 2000]

N spheres (radius 4.9-5.1 mm, rho 2500, E 1e7, friction 0.4, restitution
0.5) start on a loose cubic lattice of spacing 1.25 diameters (no contact)
with random velocities of 0.1 m/s, inside an open box (RigidFace3D4N floor
and four sides) twice as wide as the bed is tall, under gravity. Each run
steps until at rest (the largest sphere speed below --rest-speed, checked
every 10 ms of simulated time) or --max-time. Reported side by side:
simulated time to rest, steps, wall-clock time, packing fraction of the bed
(the spheres' volume over the floor area times the bed height, the mean top
z + r of the highest 2 % of spheres) and the overlaps of touching pairs
(mean and max relative to the mean radius); then the Moreau-Jean sweeps per
step (mean over the run and over its last 10 %) against N (--scaling).
Not a test: run by hand, figures go to docs/performance.md.
"""
import argparse
import math
import time

import numpy as np
from open_box import AddOpenBox, SettlingMaterials
from scipy.spatial import cKDTree

import tessera
import tessera.dem  # noqa: F401
from tessera import _dem


def Build(count, seed=11):
    rng = np.random.default_rng(seed)
    model = tessera.Model()
    spheres = model.CreateModelPart("SpheresPart")
    _dem.DeclareParticleVariables(spheres)
    walls = model.CreateModelPart("RigidFacePart")
    grain, wall = SettlingMaterials(spheres, walls)
    spacing = 0.0125
    side = int(np.ceil((count / 4) ** (1 / 3) * 2 ** (1 / 3)))
    layers = int(np.ceil(count / side**2))
    cells = np.array([(a, b, c) for c in range(layers) for b in range(side)
                      for a in range(side)])[:count]
    positions = (cells + 0.5) * spacing - [side * spacing / 2, side * spacing / 2, 0.0]
    positions[:, 2] += 0.002
    radii = rng.uniform(0.0049, 0.0051, size=count)
    velocities = rng.normal(0.0, 0.1, size=(count, 3))
    for i in range(count):
        node = spheres.CreateNewNode(i + 1, *positions[i])
        node.SetSolutionStepValue(tessera.RADIUS, radii[i])
        node.SetSolutionStepValue(tessera.VELOCITY, list(velocities[i]))
        spheres.CreateNewElement("SphericParticle3D", i + 1, [i + 1], grain)
    half = side * spacing / 2 + 0.001
    AddOpenBox(walls, wall, -half, half, -half, half, layers * spacing + 0.05)
    return model, spheres, walls, (2.0 * half) ** 2


def Settings(dt, search_frequency):
    settings = _dem.DemSettings()
    settings.delta_time = dt
    settings.translational_scheme = "Symplectic_Euler"
    settings.gravity = [0.0, 0.0, -9.81]
    settings.search_frequency = search_frequency
    settings.search_tolerance = 0.001
    settings.wall_search_tolerance = 0.001
    return settings


def Packing(strategy, floor_area):
    rows = strategy.Particles
    x = np.asarray(rows.position)
    r = np.asarray(rows.radius)
    top = np.sort(x[:, 2] + r)[-max(1, len(r) // 50):].mean()
    fraction = (4.0 / 3.0 * math.pi * r ** 3).sum() / (floor_area * top)
    tree = cKDTree(x)
    pairs = np.array(sorted(tree.query_pairs(2.0 * r.max())))
    overlap = np.zeros(0)
    if len(pairs):
        d = np.linalg.norm(x[pairs[:, 0]] - x[pairs[:, 1]], axis=1)
        overlap = r[pairs[:, 0]] + r[pairs[:, 1]] - d
        overlap = overlap[overlap > 0.0] / r.mean()
    return fraction, (overlap.mean() if len(overlap) else 0.0), \
        (overlap.max() if len(overlap) else 0.0), len(overlap)


def Run(kind, count, dt, rest_speed, max_time, tolerance, max_iterations):
    model, spheres, walls, floor_area = Build(count)
    if kind == "smooth":
        strategy = _dem.ExplicitSolverStrategy(spheres, walls, Settings(dt, 10))
    else:
        mj = _dem.MoreauJeanSettings()
        mj.tolerance = tolerance
        mj.max_iterations = max_iterations
        strategy = _dem.MoreauJeanStrategy(spheres, walls, Settings(dt, 1), mj)
    strategy.Initialize()
    check = max(1, int(round(0.01 / dt)))
    t, steps = 0.0, 0
    start = time.perf_counter()
    while t < max_time:
        t += dt
        steps += 1
        strategy.SolveSolutionStep(t)
        if steps % check == 0 and t > 0.05 and strategy.MaximumSpeed() < rest_speed:
            break
    elapsed = time.perf_counter() - start
    fraction, mean_overlap, max_overlap, touching = Packing(strategy, floor_area)
    iterations = None
    if kind != "smooth":
        it = strategy.History()["iterations"]
        iterations = (float(it.mean()), float(it[-max(1, len(it) // 10):].mean()),
                      float(strategy.History()["contacts"][-1]))
    return dict(time=t, steps=steps, wall=elapsed, fraction=fraction, mean_overlap=mean_overlap,
                max_overlap=max_overlap, touching=touching, iterations=iterations,
                rested=strategy.MaximumSpeed() < rest_speed)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--particles", type=int, default=10000)
    parser.add_argument("--smooth-dt", type=float, default=2e-5)
    parser.add_argument("--nonsmooth-dt", type=float, default=1e-3)
    parser.add_argument("--rest-speed", type=float, default=0.01)
    parser.add_argument("--max-time", type=float, default=2.0)
    parser.add_argument("--tolerance", type=float, default=1e-4)
    parser.add_argument("--max-iterations", type=int, default=200)
    parser.add_argument("--scaling", type=int, nargs="*", default=[])
    parser.add_argument("--skip-smooth", action="store_true")
    args = parser.parse_args()
    runs = [("nonsmooth", args.nonsmooth_dt)]
    if not args.skip_smooth:
        runs.insert(0, ("smooth", args.smooth_dt))
    for kind, dt in runs:
        r = Run(kind, args.particles, dt, args.rest_speed, args.max_time, args.tolerance,
                args.max_iterations)
        print(f"{kind:9s} N {args.particles} dt {dt:g}: {'rest' if r['rested'] else 'NOT at rest'}"
              f" at t {r['time']:.3f} s, {r['steps']} steps, {r['wall']:.1f} s wall; packing "
              f"fraction {r['fraction']:.4f}; overlap mean {r['mean_overlap']:.2e} max "
              f"{r['max_overlap']:.2e} (of r, {r['touching']} touching pairs)"
              + (f"; sweeps/step mean {r['iterations'][0]:.1f}, last 10 % {r['iterations'][1]:.1f},"
                 f" {r['iterations'][2]:.0f} contacts" if r["iterations"] else ""))
    for n in args.scaling:
        r = Run("nonsmooth", n, args.nonsmooth_dt, args.rest_speed, args.max_time, args.tolerance,
                args.max_iterations)
        print(f"scaling N {n}: sweeps/step mean {r['iterations'][0]:.1f}, last 10 % "
              f"{r['iterations'][1]:.1f}; {r['iterations'][2]:.0f} contacts; {r['wall']:.1f} s wall, "
              f"rest at {r['time']:.3f} s")


if __name__ == "__main__":
    main()
