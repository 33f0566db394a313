"""The cost of coupling: a coupled DE-FE step against the DEM step and the
structural step measured alone on the same model, in the same run.

    PYTHONPATH=build/python /usr/bin/python3 applications/coupling/benchmarks/coupled_step_benchmark.py \
        [--threads 1 2] [--steps 100] [--repeat 3] [--clock wall|cpu]
        [--adm-force thesis|energy_gradient] [--overlap auto|on|off]

The model: a plate 2 m x 2 m x 0.1 m of 50 x 50 x 4 hexahedra (10,000
elements, 13,005 nodes; E 100 MPa, explicit), clamped at its base, and
27,075 spheres (R 7.5 mm, three layers of 95 x 95, a simple cubic stack
touching itself and the plate: about 80,000 sphere pairs and 9,000
sphere-plate contacts) under gravity. Each measurement is a fresh process (OMP_NUM_THREADS as asked):

* coupled: tessera.coupling's stage, the plate's skin as the DEM's walls;
* DEM alone: the DEM deck with the same skin faces as rigid walls
  (RigidFace3D4N in <name>DEM_FEM_boundary.mdpa, same material, the same
  wall force transfer as the coupled run: the Area Distributed Method);
* FE alone: the structural deck alone.

The coupled run writes no energy balance (energy_output false: a
diagnostic, whose DEM energy bookkeeping and strain energy samples cost
extra). All three take the same Δt (the coupled stage's) and time whole steps of
their stage loops (advance, initialize, solve, finalize; no output) after
warm-up steps. On two or more threads the coupled step may overlap the
structure's internal forces with the DEM step (step_overlap.py: the DEM on
some threads, the structure on the others; the "dem" share then covers
both, the "structure" share what the DEM did not hide): --overlap auto (the
stage's default: it probes both in 20 steps every 250, the first 20 the
warm-up here, and keeps the faster), on or off. Reported: seconds per step, the ratio coupled / (DEM + FE)
(the issue's target: at most 1.15), the coupled step's shares (structure,
DEM, skin: walls moved and loads transferred), the DEM share of the coupled
step against the DEM deck alone (the moving skin's cost inside the DEM), and the peak resident memory
of each process (bytes per sphere and per FE node from the differences).

--clock cpu times with the process's CPU time instead of the wall clock
(the steps and the coupled stage's phases): on one thread it is the step's
own work, little changed by other jobs on a busy host; with more threads it
sums theirs, so it is for --threads 1.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "python"))

NAME = "plate"
CELLS = (50, 50, 4)
SIZE = (2.0, 2.0, 0.1)
# A simple cubic stack pressed 0.1 % (of the diameter) into itself and onto
# the plate, about the overlap its weight makes: every sphere in contact with
# its six neighbours or the plate from the first step.
LAYERS, ROWS, RADIUS = 3, 95, 0.0075
SPACING = 2 * RADIUS * 0.999
TIME_STEP = 2e-5


def write_case(folder):
    from coupled_decks import block_mesh, dem_files, structure_files
    nodes, elements = block_mesh((-SIZE[0] / 2, -SIZE[1] / 2, -SIZE[2]), SIZE, CELLS)
    base = [i for i, x in nodes.items() if x[2] == -SIZE[2]]
    structure_files(folder, NAME, nodes, elements, "SmallDisplacementElement3D8N", young=1e8, poisson=0.3,
                    density=1000.0, fixed_nodes=base, end_time=1.0, time_step=TIME_STEP,
                    gravity=(0.0, 0.0, -9.81))
    spheres = []
    for k in range(LAYERS):
        for j in range(ROWS):
            for i in range(ROWS):
                spheres.append(((i - (ROWS - 1) / 2) * SPACING, (j - (ROWS - 1) / 2) * SPACING,
                                0.5 * SPACING + k * SPACING, RADIUS, (0.0, 0.0, 0.0)))
    dem_files(folder, NAME, spheres, density=2500.0, young=1e7, poisson=0.25, restitution=0.5,
              friction=0.3, end_time=1.0, time_step=TIME_STEP, gravity=(0.0, 0.0, -9.81),
              wall_material=(1e8, 0.3), search_frequency=10)
    parameters = json.load(open(os.path.join(folder, "ProjectParametersDEM.json")))
    parameters["SearchTolerance"] = 0.002
    parameters["search_tolerance_against_walls"] = 0.002
    parameters["TimeStepCheck"] = "off"
    json.dump(parameters, open(os.path.join(folder, "ProjectParametersDEM.json"), "w"), indent=1)
    return len(nodes), len(spheres)


def write_rigid_skin(folder):
    """The plate's skin as RigidFace3D4N walls of the DEM deck (DEM alone)."""
    import tessera
    import tessera.structural  # noqa: F401
    model = tessera.Model()
    structure = model.CreateModelPart("Structure")
    tessera.ModelPartIO(os.path.join(folder, NAME)).ReadModelPart(structure)
    skin = tessera.FindSkinFaces(structure)
    coordinates = {n.Id: n.Coordinates() for n in structure.Nodes}
    used = sorted({int(i) for row, count in zip(skin["node_ids"], skin["nodes_number"])
                   for i in row[:count]})
    with open(os.path.join(folder, f"{NAME}DEM_FEM_boundary.mdpa"), "w") as f:
        f.write("Begin Properties 0\nEnd Properties\n\nBegin Nodes\n")
        for i in used:
            x = coordinates[i]
            f.write(f"  {i} {x[0]!r} {x[1]!r} {x[2]!r}\n")
        f.write("End Nodes\n\nBegin Conditions RigidFace3D4N\n")
        for k, (row, count) in enumerate(zip(skin["node_ids"], skin["nodes_number"])):
            f.write(f"  {k + 1} 0 {' '.join(str(int(i)) for i in row[:count])}\n")
        f.write("End Conditions\n")


def worker(mode, folder, steps, warmup, clock_name="wall", adm_force="thesis", overlap="auto"):
    import tessera
    import tessera.coupling
    import tessera.dem
    import tessera.structural
    os.chdir(folder)
    model = tessera.Model()
    structural = tessera.Parameters.FromFile("ProjectParameters.json")
    dem = tessera.Parameters.FromFile("ProjectParametersDEM.json")
    if mode == "coupled":
        stage = tessera.coupling.DemStructuresCouplingAnalysis(
            model, structural, dem, {"echo_level": 0, "energy_output": False, "adm_force": adm_force,
                                     "overlap_structure_and_dem": {"on": True, "off": False}.get(overlap, overlap)})
        stage.Initialize()
        dt = stage.delta_time
        loop = (stage.AdvanceInTime, stage.InitializeSolutionStep, stage.SolveSolutionStep,
                stage.FinalizeSolutionStep)
    else:
        if mode == "dem":
            write_rigid_skin(folder)
            dem.AddString("WallForceTransfer", "area_distributed")  # as the coupled run's
            stage = tessera.dem.DEMAnalysisStage(model, dem)
        else:
            stage = tessera.structural.StructuralMechanicsAnalysis(model, structural)
        stage.Initialize()
        dt = None
        solver = stage._GetSolver()

        def advance():
            stage.time = stage._AdvanceTime()

        loop = (advance, stage.InitializeSolutionStep, lambda: (solver.Predict(), solver.SolveSolutionStep()),
                stage.FinalizeSolutionStep)
    clock = time.process_time if clock_name == "cpu" else time.perf_counter
    if mode == "coupled" and clock_name == "cpu":  # the stage's phase timings on the same clock
        import types
        analysis = sys.modules[type(stage).__module__]
        analysis.time = types.SimpleNamespace(perf_counter=clock)
    for _ in range(warmup):
        for call in loop:
            call()
    if mode == "coupled":
        stage.ResetTimings()
    start = clock()
    for _ in range(steps):
        for call in loop:
            call()
    elapsed = clock() - start
    result = {"seconds_per_step": elapsed / steps, "dt": dt,
              "max_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}
    if mode == "coupled":
        result["shares"] = {k: v / elapsed for k, v in stage.timings.items()}
        result["overlapping"] = bool(stage._overlap is not None and stage._overlap.overlapping)
    print(json.dumps(result))


def measure(mode, folder, threads, steps, warmup, clock_name, adm_force, overlap="auto"):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", mode, "--folder", folder,
                           "--steps", str(steps), "--warmup", str(warmup), "--clock", clock_name,
                           "--adm-force", adm_force, "--overlap", overlap],
                          env=env, capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{mode} run failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description="coupled DE-FE step against DEM and FE alone")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3, help="rounds of the three runs; medians reported")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="wall clock, or the process's CPU time (one thread, a busy host)")
    parser.add_argument("--adm-force", choices=("thesis", "energy_gradient"), default="thesis",
                        help="the coupled run's adm_force (ProjectParametersCoupling.json)")
    parser.add_argument("--overlap", choices=("auto", "on", "off"), default="auto",
                        help="the coupled run's overlap_structure_and_dem (auto, true, false)")
    parser.add_argument("--worker", choices=("coupled", "dem", "fe"))
    parser.add_argument("--folder")
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.folder, args.steps, args.warmup, args.clock, args.adm_force, args.overlap)
        return
    base = tempfile.mkdtemp(prefix="coupled_benchmark_")
    folders = {}
    for mode in ("coupled", "dem", "fe"):
        folders[mode] = os.path.join(base, mode)
        os.makedirs(folders[mode])
        fe_nodes, spheres = write_case(folders[mode])
    print(f"model: {CELLS[0] * CELLS[1] * CELLS[2]} hexahedra, {fe_nodes} FE nodes, {spheres} spheres; "
          f"{args.steps} steps timed after {args.warmup}, {args.clock} clock")
    for threads in args.threads:
        rounds = {mode: [] for mode in folders}
        for _ in range(args.repeat):  # the three alternate, so a busy spell of the host hits all
            for mode in ("coupled", "dem", "fe"):
                rounds[mode].append(measure(mode, folders[mode], threads, args.steps, args.warmup, args.clock,
                                            args.adm_force, args.overlap))
        median = {mode: statistics.median(r["seconds_per_step"] for r in runs) for mode, runs in rounds.items()}
        ratios = [c["seconds_per_step"] / (d["seconds_per_step"] + f["seconds_per_step"])
                  for c, d, f in zip(rounds["coupled"], rounds["dem"], rounds["fe"])]
        shares = {k: statistics.median(r["shares"][k] for r in rounds["coupled"])
                  for k in rounds["coupled"][0]["shares"]}
        rss = {mode: statistics.median(r["max_rss_bytes"] for r in runs) for mode, runs in rounds.items()}
        print(f"threads {threads}: coupled {1e3 * median['coupled']:.2f} ms/step, DEM alone "
              f"{1e3 * median['dem']:.2f}, FE alone {1e3 * median['fe']:.2f}; coupled / (DEM + FE) = "
              f"{statistics.median(ratios):.3f} (rounds: {', '.join(f'{r:.3f}' for r in ratios)})")
        print(f"  coupled step shares: " + ", ".join(f"{k} {100 * v:.1f} %" for k, v in shares.items()))
        overlapped = sum(r["overlapping"] for r in rounds["coupled"])
        print(f"  the structure overlapped with the DEM (--overlap {args.overlap}) in {overlapped} of "
              f"{len(rounds['coupled'])} rounds")
        # The DEM half of the coupled step against the DEM deck alone, per
        # round: the same work but for the moving walls, so a figure that a
        # busy host distorts less than the ratio of separate processes' sums.
        dem_part = [c["seconds_per_step"] * c["shares"]["dem"] / d["seconds_per_step"]
                    for c, d in zip(rounds["coupled"], rounds["dem"])]
        print(f"  DEM part of the coupled step / DEM alone = {statistics.median(dem_part):.3f} "
              f"(rounds: {', '.join(f'{r:.3f}' for r in dem_part)})")
        print(f"  peak memory: coupled {rss['coupled'] / 2**20:.0f} MiB, DEM alone {rss['dem'] / 2**20:.0f} "
              f"MiB, FE alone {rss['fe'] / 2**20:.0f} MiB; coupled - DEM alone = "
              f"{(rss['coupled'] - rss['dem']) / fe_nodes:.0f} B per FE node, coupled - FE alone = "
              f"{(rss['coupled'] - rss['fe']) / spheres:.0f} B per sphere")


if __name__ == "__main__":
    main()
