"""DEM helical mixer (thesis §6.2.2): seconds per step against the thesis' serial run.

    PYTHONPATH=build/python /usr/bin/python3 applications/dem/benchmarks/helical_mixer_benchmark.py \
        [--steps 200] [--warmup 400] [--threads 1 2] [--search-frequency N] [--repeat 1] [--no-peer]

Runs examples/helical_mixer.gid (29,559 spheres, 1,584 drum quadrilaterals,
840 blade triangles turning at 3 rev/s; Hertz, rolling friction, Δt 5e-5 s)
through tessera.dem.DEMAnalysisStage in a scratch copy with VTK output off.
The spheres start on a lattice with gaps, so the first steps have no contacts:
`--warmup` steps (default 400 = 0.02 s, the bed has fallen onto itself and the
blade is pushing it) run untimed, then `--steps` steps are timed, the stage's
whole loop (node synchronisation, Python time loop) included; wall-clock time
counts, and the process' CPU time is printed beside it (on a loaded machine,
the one-thread CPU time is the steadier figure). Each thread
count runs in its own process (OMP_NUM_THREADS). The deck searches every 10
steps with 1 mm (pairs) and 2.5 mm (walls) tolerances; the thesis searched
every step (Table 6.1, search frequency 1): `--search-frequency 1` runs that
(tolerances 0), the like-for-like comparison.

Reported: seconds per step, particle-steps per second, the share of each phase
(the strategy's GetTimings(); "stage" is the rest of the loop: Python, time
step cloning, processes), the 2/1-thread scaling, and the ratio to the thesis'
serial figure, 0.264 s per step for 29,559 spheres (105,630 s for 400,000 steps
on an Intel Xeon E5-2670, 2012; digest seed001_dem_contact.md §14). The issue's
target is below 0.005 s per step on one core (50× faster). The load average at
start and end is printed: on a shared machine the figures are provisional.
LIGGGHTS (when on PATH; `--no-peer` skips it) runs the same spheres and walls
on one core (the generator's geometry, drum quadrilaterals split into
triangles, Hertz with constant rolling friction, 1 mm skin checked every step),
timed by its "Loop time" of the same steps; the translational kinetic energy
at the end is printed for both as a check that they ran the same physics.
Not a test: run by hand, figures go to docs/performance.md.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
EXAMPLE = os.path.join(REPO_ROOT, "examples", "helical_mixer.gid")
DECK_FILES = ("ProjectParametersDEM.json", "MaterialsDEM.json", "helical_mixerDEM.mdpa",
              "helical_mixerDEM_FEM_boundary.mdpa")
THESIS_SECONDS_PER_STEP = 105630.0 / 400000.0  # 0.264 s, 29,559 spheres, serial
THESIS_SPHERES = 29559
TARGET_SECONDS_PER_STEP = 0.005


def Worker(args):
    """One measurement in this process; prints a JSON line."""
    import tessera
    import tessera.dem
    folder = tempfile.mkdtemp(prefix="helical_mixer_bench_")
    try:
        for name in DECK_FILES:
            shutil.copy(os.path.join(EXAMPLE, name), folder)
        os.chdir(folder)
        parameters = tessera.Parameters.FromFile("ProjectParametersDEM.json")
        dt = parameters["MaxTimeStep"].GetDouble()
        parameters["FinalTime"].SetDouble((args.warmup + args.steps + 0.5) * dt)
        parameters["post_vtk_option"].SetBool(False)
        if args.search_frequency:
            parameters["NeighbourSearchFrequency"].SetInt(args.search_frequency)
            if args.search_frequency == 1:
                parameters["SearchTolerance"].SetDouble(0.0)
                parameters["search_tolerance_against_walls"].SetDouble(0.0)
        stage = tessera.dem.DEMAnalysisStage(tessera.Model(), parameters)
        stage.Initialize()
        strategy = stage.GetStrategy()
        spheres = stage.spheres_model_part.NumberOfElements()

        # The stage's own loop, stopped after the warm-up (end half a step before
        # the last step, so that accumulated time cannot add or drop one).
        stage.end_time = (args.warmup - 0.5) * dt
        stage.RunSolutionLoop()
        strategy.ResetTimings()
        stage.end_time = (args.warmup + args.steps - 0.5) * dt
        start, cpu_start = time.perf_counter(), time.process_time()
        stage.RunSolutionLoop()
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        if strategy.StepCount() != args.warmup + args.steps:
            raise SystemExit(f"ran {strategy.StepCount()} steps, expected {args.warmup + args.steps}")
        result = {"threads": int(os.environ.get("OMP_NUM_THREADS", "0")), "spheres": spheres,
                  "kinetic": strategy.GetEnergies()["kinetic_translational"],
                  "steps": args.steps, "elapsed": elapsed, "cpu": cpu, "timings": strategy.GetTimings(),
                  "particle_contacts": strategy.NumberOfParticleContacts(),
                  "wall_contacts": strategy.NumberOfWallContacts(),
                  "search_frequency": parameters["NeighbourSearchFrequency"].GetInt()}
        print(json.dumps(result))
    finally:
        os.chdir(REPO_ROOT)
        shutil.rmtree(folder, ignore_errors=True)


def WritePeerDeck(folder):
    """The same spheres and walls for LIGGGHTS, from the example's generator:
    a data file (type 1 spheres) and two STL meshes (type 2; each drum
    quadrilateral split into two triangles)."""
    sys.path.insert(0, EXAMPLE)
    import generate_helical_mixer as mixer
    drum_points, quads = mixer.DrumQuads()
    blade_points, triangles = mixer.BladeTriangles()
    centres, radii = mixer.Spheres(THESIS_SPHERES, blade_points, triangles)

    def Stl(path, points, faces):
        with open(path, "w") as f:
            f.write("solid mixer\n")
            for face in faces:
                a, b, c = (points[k] for k in face)
                f.write(" facet normal 0 0 0\n  outer loop\n")
                for v in (a, b, c):
                    f.write(f"   vertex {v[0]!r} {v[1]!r} {v[2]!r}\n")
                f.write("  endloop\n endfacet\n")
            f.write("endsolid mixer\n")

    Stl(os.path.join(folder, "drum.stl"), drum_points,
        [(q[0], q[1], q[2]) for q in quads] + [(q[0], q[2], q[3]) for q in quads])
    Stl(os.path.join(folder, "blade.stl"), blade_points, triangles)
    half, reach = 0.5 * mixer.DRUM_LENGTH + 0.01, mixer.DRUM_RADIUS + 0.01
    with open(os.path.join(folder, "data.mixer"), "w") as f:
        f.write(f"helical mixer (helical_mixer_benchmark.py)\n\n{len(centres)} atoms\n2 atom types\n\n"
                f"{-half} {half} xlo xhi\n{-reach} {reach} ylo yhi\n{-reach} {reach} zlo zhi\n\n"
                "Atoms\n\n")
        for i, (x, r) in enumerate(zip(centres, radii), start=1):
            f.write(f"{i} 1 {2.0 * r!r} 1000.0 {x[0]!r} {x[1]!r} {x[2]!r}\n")
    return mixer.ANGULAR_VELOCITY


# LIGGGHTS: the deck's materials (Table 6.1) in its Hertz model with constant
# rolling friction ("cdt"), the blade turned by move/mesh, a 1 mm skin checked
# every step. Its Hertz damping comes from the restitution by its own fit, not
# Tessera's exact map, so the runs agree in bulk, not to the digit.
LIGGGHTS_INPUT = """units si
atom_style granular
atom_modify map array
boundary f f f
newton off
communicate single vel yes
read_data data.mixer
neighbor 0.001 bin
neigh_modify delay 0
fix m1 all property/global youngsModulus peratomtype 1e7 1e7
fix m2 all property/global poissonsRatio peratomtype 0.2 0.2
fix m3 all property/global coefficientRestitution peratomtypepair 2 0.4 0.4 0.4 0.4
fix m4 all property/global coefficientFriction peratomtypepair 2 0.5 0.75 0.75 0.75
fix m5 all property/global coefficientRollingFriction peratomtypepair 2 0.001 0.001 0.001 0.001
pair_style gran model hertz tangential history rolling_friction cdt
pair_coeff * *
fix drum all mesh/surface file drum.stl type 2
fix blade all mesh/surface file blade.stl type 2
fix walls all wall/gran model hertz tangential history rolling_friction cdt mesh n_meshes 2 meshes drum blade
fix turn all move/mesh mesh blade rotate origin 0. 0. 0. axis 1. 0. 0. period {period!r}
fix integrate all nve/sphere
fix weight all gravity 9.81 vector 0.0 -1.0 0.0
timestep 5e-5
thermo_style custom step atoms ke
thermo_modify norm no format float %.15g
thermo {steps}
run {warmup}
run {steps}
"""


def MeasureLiggghts(args):
    """One LIGGGHTS run on one core: its "Loop time" of the timed run command."""
    import math
    folder = tempfile.mkdtemp(prefix="helical_mixer_liggghts_")
    try:
        omega = WritePeerDeck(folder)
        with open(os.path.join(folder, "in.mixer"), "w") as f:
            f.write(LIGGGHTS_INPUT.format(period=2.0 * math.pi / omega, steps=args.steps,
                                          warmup=args.warmup))
        done = subprocess.run(["liggghts", "-in", "in.mixer", "-echo", "none", "-log", "log"],
                              cwd=folder, env=dict(os.environ, OMP_NUM_THREADS="1"),
                              capture_output=True, text=True)
        log = done.stdout + done.stderr
        loops = re.findall(r"Loop time of ([0-9.eE+-]+) on 1 procs for (\d+) steps", log)
        final = [line.split() for line in log.splitlines()
                 if line.split()[:1] == [str(args.warmup + args.steps)] and len(line.split()) == 3]
        if done.returncode != 0 or len(loops) != 2 or not final:
            raise SystemExit(f"liggghts failed (exit {done.returncode}):\n{log[-3000:]}")
        return {"elapsed": float(loops[1][0]), "kinetic": float(final[-1][2])}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def Measure(threads, args):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_WAIT_POLICY="passive")
    command = [sys.executable, os.path.abspath(__file__), "--worker", "--steps", str(args.steps),
               "--warmup", str(args.warmup), "--search-frequency", str(args.search_frequency)]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"worker with {threads} thread(s) failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def Report(result):
    steps, elapsed = result["steps"], result["elapsed"]
    per_step = elapsed / steps
    rate = result["spheres"] * steps / elapsed
    timings = dict(result["timings"])
    timings["stage"] = max(0.0, elapsed - sum(result["timings"].values()))
    shares = "  ".join(f"{name} {100 * value / elapsed:.1f}%" for name, value in timings.items()
                       if value > 0.0)
    print(f"threads {result['threads']}: {per_step * 1e3:.2f} ms/step "
          f"(CPU {result['cpu'] / steps * 1e3:.2f} ms/step over all threads), "
          f"{rate / 1e6:.2f} M particle-steps/s, thesis/this {THESIS_SECONDS_PER_STEP / per_step:.0f}x "
          f"(per particle-step, against its {THESIS_SPHERES} spheres: "
          f"{THESIS_SECONDS_PER_STEP / THESIS_SPHERES * result['spheres'] / per_step:.0f}x); "
          f"{result['particle_contacts']} sphere and {result['wall_contacts']} wall contacts at the end")
    print(f"    {shares}")
    return per_step


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=400)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--search-frequency", type=int, default=0,
                        help="override NeighbourSearchFrequency (1: every step, as the thesis; "
                             "0: the deck's)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per thread count; the fastest counts")
    parser.add_argument("--no-peer", action="store_true",
                        help="skip LIGGGHTS (run by default when `liggghts` is on PATH)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        Worker(args)
        return
    start_load = os.getloadavg()
    print(f"helical mixer, {args.warmup} untimed + {args.steps} timed steps of 5e-5 s, "
          f"search frequency {args.search_frequency or 'of the deck'}; load average at start "
          f"{start_load[0]:.2f}")
    best = {}
    for _ in range(args.repeat):
        for threads in args.threads:
            result = Measure(threads, args)
            if threads not in best or result["elapsed"] < best[threads]["elapsed"]:
                best[threads] = result
    peer = None
    if not args.no_peer and shutil.which("liggghts"):
        for _ in range(args.repeat):
            run = MeasureLiggghts(args)
            if peer is None or run["elapsed"] < peer["elapsed"]:
                peer = run
    per_step = {threads: Report(best[threads]) for threads in args.threads}
    if peer is not None:
        peer_step = peer["elapsed"] / args.steps
        print(f"LIGGGHTS (1 core): {peer_step * 1e3:.2f} ms/step; Tessera / LIGGGHTS speed: "
              + ", ".join(f"{threads} thread(s) {peer_step / per_step[threads]:.2f}x"
                          for threads in args.threads))
        ours = best[min(args.threads)]["kinetic"]
        print(f"    translational kinetic energy after {args.warmup + args.steps} steps: Tessera "
              f"{ours:.6g} J, LIGGGHTS {peer['kinetic']:.6g} J ({100 * (ours / peer['kinetic'] - 1):+.1f} %)")
    if 1 in per_step:
        verdict = "met" if per_step[1] < TARGET_SECONDS_PER_STEP else "NOT met"
        print(f"one thread: {per_step[1]:.4f} s/step against the thesis' serial "
              f"{THESIS_SECONDS_PER_STEP:.3f} s ({THESIS_SECONDS_PER_STEP / per_step[1]:.0f}x); "
              f"target < {TARGET_SECONDS_PER_STEP} s/step: {verdict}")
        for threads in args.threads:
            if threads != 1:
                print(f"{threads}/1 threads: {per_step[1] / per_step[threads]:.2f}x")
    end_load = os.getloadavg()
    print(f"load average at end {end_load[0]:.2f} (start {start_load[0]:.2f}); on a shared "
          "machine these figures are provisional")


if __name__ == "__main__":
    main()
