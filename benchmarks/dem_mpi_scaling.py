"""Weak scaling of the distributed DEM (applications/dem/parallel/), 1 -> 2
ranks, side by side with LAMMPS: the bed of tests/python/mpi_dem_case.py with
NX x NY x NZ spheres per rank (the 2-rank bed twice as long in x), thrown at
±1 m/s in a box of rigid walls, STEPS steps.

Reported per run: seconds of the time loop (rank 0; LAMMPS' "Loop time"),
µs per sphere-step, each code's weak-scaling efficiency T(1 rank, n) /
T(2 ranks, 2n), the same ratio for two serial runs of n spheres at once
(two processes, no MPI: what the shared cache and memory allow), Tessera's time over LAMMPS' at 1 and at 2 ranks, and
Tessera's communication: doubles (8 bytes) each rank sends per step to
refresh its neighbours' ghosts, its ghosts, and the doubles of all
migrations together; and per rank, where its loop goes (the strategy's
phases, then DistributedDem.GetTimings(): the search vote, the ghost
refresh, the migrations, waits for the other rank included). On a host
shared with other jobs the times are noisy: the load average is printed
before and after; run it several times (the communication counts are
exact).

LAMMPS (Debian's /usr/bin/lmp, OpenMPI, `mpirun -np 2 lmp`) runs the same
spheres from the same state (centres, radii, velocities of BedState), the
same Δt, walls at the same planes (fix wall/gran on the floor and the four
sides), the same 1 mm neighbour skin (rebuilt when a sphere moved half of
it; Tessera searches every 20 steps or earlier, adaptively) and the same
physics to within the contact laws' forms: pair gran/hertz/history with
k_n = 4/3 E*, k_t = 8 G* (Hertz–Mindlin, as DEM_D_Hertz_viscous_Coulomb's
springs), μ 0.4, rolling free; the normal damping (LAMMPS: m* γ_n √(δR*),
Tessera: 2 ξ √(m* k_n(δ)), ξ from the restitution 0.4) matched at an
overlap of 1 % of R* for the mean sphere, γ_t = γ_n / 2 (LAMMPS' default).
The comparison is of cost, not of trajectories.

--case: the bed's motion. "thrown" (the default): as above. "pour": the
lattice released from rest (speed 0), falling onto the floor and packing
under gravity over the run. "packed": that lattice settled first for
--settle-steps serial steps (20,000 by default: 1 s; the spheres' mean
speed left is printed), then timed; the adaptive search then searches at
its longest interval (20 steps) and few spheres cross the ranks' cut. For
"pour" and "packed" the 2-rank bed is two copies of the 1-rank bed side by
side in x, so that each rank's half is the 1-rank bed; both codes start
from the same centres and velocities (spins zero).

--rounds N runs everything N times (decks and settling once) and prints
each round's efficiencies with their medians: on a host whose cores change
speed between runs one round is one sample.

The 2-rank deck's mpi_settings: --balance (count: equal owned spheres, the
default; time: shares by each rank's measured speed, docs/user_guide.md),
--rebalance-every, --imbalance-threshold (the deck's defaults where not
given).

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/dem_mpi_scaling.py
        [--nx 20 --ny 20 --nz 8 --steps 1000] [--no-lammps]
        [--case thrown|pour|packed [--settle-steps N]] [--rounds N]
        [--balance time --rebalance-every 100 --imbalance-threshold 1.05]
"""
import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..", "tests", "python")
sys.path.insert(0, TESTS)

from mpi_dem_case import DT, SPACING, BedState, WriteBed  # noqa: E402
from tessera.parallel import MpiSkipReason, MpirunCommand, MpirunEnvironment  # noqa: E402

# The bed's materials (mpi_dem_case.py): grains and steel walls, restitution and friction.
GRAINS = dict(young=1e7, poisson=0.25, density=2500.0)
STEEL = dict(young=1e9, poisson=0.25)
RESTITUTION, FRICTION, GRAVITY, SKIN = 0.4, 0.4, 9.81, 0.001
# The phases of the strategy's GetTimings() (a serial run's step).
STRATEGY_PHASES = ("wall_motion", "search_particles", "search_walls", "forces", "integration",
                   "energy", "node_sync")


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


def run_pair(folder, tmp):
    """Two serial runs of `folder` at once, each in its own process (no MPI):
    the machine's own ceiling for the weak-scaling efficiency (two cores
    sharing the L3 and the memory). Returns both loops' seconds."""
    script = os.path.join(TESTS, "mpi_dem_run.py")
    env = dict(os.environ, OMP_NUM_THREADS="1")
    outs = [os.path.join(tmp, f"pair{k}.npz") for k in range(2)]
    processes = [subprocess.Popen([sys.executable, script, folder, out, "OpenMP"], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                 for out in outs]
    for process in processes:
        log, _ = process.communicate()
        if process.returncode != 0:
            sys.exit(log)
    return [float(np.load(out)["seconds"]) for out in outs]


def StartState(case, nx, ny, nz, settle_steps, tmp):
    """The 1-rank bed's spheres (centres, radii, velocities in node order) for
    `case` "pour" (BedState at speed 0) or "packed" (that bed settled under
    gravity for `settle_steps` serial steps), and their mean speed."""
    nodes, radii, velocities, _ = BedState(nx, ny, nz, speed=0.0)
    if case == "pour":
        return (nodes, radii, velocities), 0.0
    folder = os.path.join(tmp, "settle")
    WriteBed(folder, nx, ny, nz, steps=settle_steps, speed=0.0)
    r = run(folder, os.path.join(tmp, "settle.npz"), 1)
    state = ([tuple(map(float, x)) for x in r["x"]], [float(a) for a in np.ravel(r["RADIUS"])],
             [tuple(map(float, v)) for v in r["VELOCITY"]])
    return state, float(np.mean(np.linalg.norm(r["VELOCITY"], axis=1)))


def SideBySide(state, nx):
    """Two copies of a bed's spheres, the second shifted by the bed's length in x."""
    nodes, radii, velocities = state
    shift = nx * SPACING
    return nodes + [(x + shift, y, z) for x, y, z in nodes], radii * 2, velocities * 2


def HertzParameters(radius):
    """k_n, k_t, γ_n, γ_t of LAMMPS' gran/hertz/history for sphere pairs and
    sphere-wall pairs (see the module comment), with `radius` the mean radius."""
    def effective(a, b):
        young = 1.0 / ((1 - a["poisson"]**2) / a["young"] + (1 - b["poisson"]**2) / b["young"])
        shear = 1.0 / (2 * (2 - a["poisson"]) * (1 + a["poisson"]) / a["young"]
                       + 2 * (2 - b["poisson"]) * (1 + b["poisson"]) / b["young"])
        return young, shear
    mass = GRAINS["density"] * 4.0 / 3.0 * math.pi * radius**3
    xi = -math.log(RESTITUTION) / math.sqrt(math.pi**2 + math.log(RESTITUTION)**2)
    out = {}
    for name, other, r_eff, m_eff in (("pair", GRAINS, radius / 2, mass / 2),
                                      ("wall", STEEL, radius, mass)):
        young, shear = effective(GRAINS, other)
        overlap = 0.01 * r_eff
        stiffness = 2.0 * young * math.sqrt(r_eff * overlap)  # dF/dδ of Hertz there
        damping = 2.0 * xi * math.sqrt(m_eff * stiffness)
        gamma_n = damping / (m_eff * math.sqrt(overlap * r_eff))
        out[name] = dict(kn=4.0 / 3.0 * young, kt=8.0 * shear, gamma_n=gamma_n,
                         gamma_t=0.5 * gamma_n, mu=FRICTION)
    return out


def WriteLammps(folder, nx, ny, nz, steps, state=None):
    """The bed as a LAMMPS data file and input (in.bed) in `folder`; `state`
    as WriteBed's."""
    os.makedirs(folder, exist_ok=True)
    nodes, radii, velocities, (lx, ly, h) = BedState(nx, ny, nz)
    if state is not None:
        nodes, radii, velocities = state
    with open(os.path.join(folder, "bed.data"), "w") as f:
        f.write(f"Tessera MPI bed (benchmarks/dem_mpi_scaling.py)\n\n{len(nodes)} atoms\n"
                f"1 atom types\n\n{-0.01} {lx + 0.01} xlo xhi\n{-0.01} {ly + 0.01} ylo yhi\n"
                f"{-0.01} {4.0 * h} zlo zhi\n\nAtoms\n\n")
        for i, (x, r) in enumerate(zip(nodes, radii), start=1):
            f.write(f"{i} 1 {2 * r!r} {GRAINS['density']!r} {x[0]!r} {x[1]!r} {x[2]!r}\n")
        f.write("\nVelocities\n\n")
        for i, v in enumerate(velocities, start=1):
            f.write(f"{i} {v[0]!r} {v[1]!r} {v[2]!r} 0 0 0\n")
    k = HertzParameters(float(np.mean(radii)))
    p, w = k["pair"], k["wall"]
    wall = f"wall/gran hertz/history {w['kn']!r} {w['kt']!r} {w['gamma_n']!r} " \
           f"{w['gamma_t']!r} {w['mu']!r} 1"
    with open(os.path.join(folder, "in.bed"), "w") as f:
        f.write(f"""units si
atom_style sphere
atom_modify map array
boundary f f f
newton off
comm_modify vel yes
read_data bed.data
neighbor {SKIN} bin
neigh_modify delay 0 every 1 check yes
pair_style gran/hertz/history {p['kn']!r} {p['kt']!r} {p['gamma_n']!r} {p['gamma_t']!r} {p['mu']!r} 1
pair_coeff * *
fix floor all {wall} zplane 0.0 NULL
fix xwalls all {wall} xplane 0.0 {lx!r}
fix ywalls all {wall} yplane 0.0 {ly!r}
fix integrate all nve/sphere
fix weight all gravity {GRAVITY} vector 0 0 -1
timestep {DT}
thermo_style custom step atoms ke
thermo {steps}
run {steps}
""")
    return len(nodes)


def run_lammps(folder, ranks, steps):
    command = ["lmp", "-in", "in.bed", "-log", "log.lammps", "-echo", "none"]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    if ranks > 1:
        command, env = MpirunCommand(ranks, *command), MpirunEnvironment()
    result = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
    log = result.stdout + result.stderr
    loop = re.search(rf"Loop time of ([0-9.eE+-]+) on {ranks} procs for {steps} steps", log)
    if result.returncode != 0 or not loop:
        sys.exit(f"lmp on {ranks} ranks failed (exit {result.returncode}):\n{log[-3000:]}")
    builds = re.search(r"Neighbor list builds = (\d+)", log)
    return float(loop.group(1)), int(builds.group(1)) if builds else -1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nx", type=int, default=20)
    parser.add_argument("--ny", type=int, default=20)
    parser.add_argument("--nz", type=int, default=8)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--no-lammps", action="store_true", help="Tessera alone")
    parser.add_argument("--case", choices=("thrown", "pour", "packed"), default="thrown",
                        help="the bed's motion (module comment)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="times to run everything; the efficiencies' medians are printed")
    parser.add_argument("--settle-steps", type=int, default=20000,
                        help="serial steps that settle the packed bed")
    parser.add_argument("--balance", choices=("count", "time"), help="mpi_settings.balance")
    parser.add_argument("--rebalance-every", type=int, help="mpi_settings.rebalance_every")
    parser.add_argument("--imbalance-threshold", type=float, help="mpi_settings.imbalance_threshold")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    mpi_settings = {key: value for key, value in (("balance", args.balance),
                                                  ("rebalance_every", args.rebalance_every),
                                                  ("imbalance_threshold", args.imbalance_threshold))
                    if value is not None}
    if MpiSkipReason():
        sys.exit(MpiSkipReason())
    lammps = not args.no_lammps and shutil.which("lmp") is not None
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        one = os.path.join(tmp, "one")
        two = os.path.join(tmp, "two")
        state1 = state2 = None
        speed = 0.0  # the packed bed's mean speed left after settling
        if args.case != "thrown":
            state1, speed = StartState(args.case, args.nx, args.ny, args.nz, args.settle_steps, tmp)
            state2 = SideBySide(state1, args.nx)
        n1 = WriteBed(one, args.nx, args.ny, args.nz, steps=args.steps, state=state1)
        n2 = WriteBed(two, 2 * args.nx, args.ny, args.nz, steps=args.steps,
                      keys={"mpi_settings": mpi_settings} if mpi_settings else None, state=state2)
        if lammps:
            WriteLammps(os.path.join(tmp, "lmp1"), args.nx, args.ny, args.nz, args.steps, state1)
            WriteLammps(os.path.join(tmp, "lmp2"), 2 * args.nx, args.ny, args.nz, args.steps,
                        state2)
        # Each round runs everything again, in the same order: the host's
        # cores change speed between runs, so one round is one sample.
        rounds = []
        for _ in range(args.rounds):
            r1 = run(one, os.path.join(tmp, "one.npz"), 1)
            r2 = run(two, os.path.join(tmp, "two.npz"), 2)
            pair = run_pair(one, tmp)
            t1, t2 = float(r1["seconds"]), float(r2["seconds"])
            sample = {"tessera": t1 / t2, "ceiling": t1 / max(pair)}
            if lammps:
                l1, b1 = run_lammps(os.path.join(tmp, "lmp1"), 1, args.steps)
                l2, b2 = run_lammps(os.path.join(tmp, "lmp2"), 2, args.steps)
                sample["lammps"] = l1 / l2
            rounds.append(sample)
    load_after = os.getloadavg()
    if args.case == "pour":
        print("pour: the lattice released from rest; 2 ranks: two copies side by side")
    if args.case == "packed":
        print(f"packed bed: settled from rest for {args.settle_steps} serial steps (mean speed "
              f"left {speed:.2e} m/s); 2 ranks: two copies side by side")
    print(f"bed: {args.nx} x {args.ny} x {args.nz} spheres per rank, {args.steps} steps of {DT} s; "
          f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after on "
          f"{os.cpu_count()} cores (above the core count the times are a loaded host's)")
    print(f"Tessera 1 rank : {n1} spheres, {t1:.3f} s, "
          f"{1e6 * t1 / (n1 * args.steps):.3f} µs per sphere-step, "
          f"{int(r1['searches'])} searches")
    print(f"Tessera 2 ranks: {n2} spheres, {t2:.3f} s, "
          f"{1e6 * t2 / (n2 / 2 * args.steps):.3f} µs per owned sphere-step, "
          f"{int(r2['searches'])} searches")
    print(f"Tessera weak-scaling efficiency T1/T2 = {t1 / t2:.2f}")
    print(f"Tessera 2 ranks' mpi_settings {mpi_settings or 'defaults'}: "
          f"{int(r2['rebalances'])} bisections after the first; owned spheres at the end "
          f"{[len(r2[f'end_{r}']) for r in range(2)]}")
    print(f"Tessera two serial runs at once (no MPI): {pair[0]:.3f} s and {pair[1]:.3f} s; "
          f"the machine's ceiling T1/max = {t1 / max(pair):.2f}")
    if lammps:
        print(f"LAMMPS  1 rank : {n1} spheres, {l1:.3f} s, "
              f"{1e6 * l1 / (n1 * args.steps):.3f} µs per sphere-step, {b1} list builds")
        print(f"LAMMPS  2 ranks: {n2} spheres, {l2:.3f} s, "
              f"{1e6 * l2 / (n2 / 2 * args.steps):.3f} µs per owned sphere-step, {b2} list builds")
        print(f"LAMMPS  weak-scaling efficiency T1/T2 = {l1 / l2:.2f}")
        print(f"Tessera / LAMMPS time: {t1 / l1:.2f} at 1 rank, {t2 / l2:.2f} at 2 ranks "
              "(below 1: Tessera faster)")
    else:
        print("LAMMPS: not run (--no-lammps, or no lmp on PATH)")
    ghosts = r2["ghosts"].reshape(-1, 3)
    for rank, (count, per_step, migration) in enumerate(ghosts):
        print(f"Tessera rank {rank}: {int(count)} ghosts, {per_step:.0f} doubles "
              f"({8 * per_step / 1024:.1f} KiB) sent per step to refresh ghosts, "
              f"{int(migration)} doubles in all migrations ({8 * migration / 1024:.1f} KiB over "
              f"{int(r2['searches'])} searches)")
    print(f"spheres that changed owner (migrations): {int(r2['migrations'])}")
    # Where each rank's loop goes: the strategy's own phases (as a serial
    # run's) and the distributed work, waits for the other rank included.
    names = [str(name) for name in r2["timing_names"]]
    for rank, row in enumerate(r2["timings"].reshape(-1, len(names))):
        t = dict(zip(names, row))
        own = sum(t[name] for name in names[1:] if name in STRATEGY_PHASES)
        print(f"Tessera rank {rank}: loop {t['loop']:.3f} s = strategy {own:.3f} s + vote "
              f"{t['vote']:.3f} + ghost refresh {t['ghost_refresh']:.3f} + migrate "
              f"{t['migrate']:.3f} (rows removed {t['remove_rows']:.3f}, reordered "
              f"{t['reorder_rows']:.3f}) + after search {t['after_search']:.3f} + rest "
              f"{t['loop'] - own - t['vote'] - t['ghost_refresh'] - t['migrate'] - t['after_search']:.3f}")
    if len(rounds) > 1:
        print("(the lines above are the last round's)")
        PrintRounds(rounds)


def PrintRounds(rounds):
    """Each round's efficiencies and their medians."""
    for name, label in (("tessera", "Tessera T1/T2"), ("lammps", "LAMMPS  T1/T2"),
                        ("ceiling", "ceiling T1/max")):
        values = [r[name] for r in rounds if name in r]
        if values:
            print(f"{label} over {len(values)} rounds: "
                  f"{', '.join(f'{v:.2f}' for v in values)}; median {np.median(values):.2f}")


if __name__ == "__main__":
    main()
