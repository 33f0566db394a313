"""Linear elastic static solve of a hexahedral cantilever block, Tessera side by
side with CalculiX (ccx) on the identical mesh: wall time to solution, peak
memory (/usr/bin/time -v: maximum resident set size) and their ratios, and the
agreement of the tip displacement.

The script writes one mesh twice: a Kratos deck (.mdpa with
SmallDisplacementElement3D8N, ProjectParameters.json, StructuralMaterials.json)
for `tessera run`, and a CalculiX .inp with C3D8 elements (the same fully
integrated 2x2x2 trilinear hexahedron, the same node numbering and order).
Block [0, L] x [0, W] x [0, H], clamped on x = 0, a uniform shear traction of
resultant P (-z) on x = L applied as the same consistent nodal forces in both
(PointLoadCondition3D1N / *CLOAD). Steel: E = 210e9, nu = 0.3. Both codes
write only the tip-centre displacement (json / *NODE PRINT), so the time is
reading, assembly and solution.

CalculiX runs with its default direct solver SPOOLES and its preconditioned
CG (*STATIC, SOLVER=ITERATIVE CHOLESKY); Tessera with the linear solver given
by --tessera-solver (default: CG with the diagonal preconditioner, relative
residual 1e-8, the fastest of ours on this problem; see docs/performance.md).
Both get the same thread count (OMP_NUM_THREADS, CCX_NPROC_EQUATION_SOLVER,
CCX_NPROC_STIFFNESS; tessera --threads).

  PYTHONPATH=build/python /usr/bin/python3 \\
      applications/structural/benchmarks/calculix_static_benchmark.py \\
      --elements 200 40 20 --threads 2 --workdir /tmp/ccx_bench   (519,183 dofs)

prints a table and writes results.json in the work directory. --mpi N runs
Tessera under `mpirun -np N` ("parallel_type": "MPI", one thread per rank,
the tip displacement gathered by a driver instead of json_output_process,
which distributed runs do not write); give it a PETSc solver, e.g.
--tessera-solver '{"solver_type": "petsc", "ksp_type": "cg", "pc_type": "gamg", "tolerance": 1e-8}'.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

YOUNG, POISSON, LOAD = 210e9, 0.3, -1e6


def node_id(i, j, k, nx, ny):
    return 1 + i + (nx + 1) * (j + (ny + 1) * k)


def block_mesh(nx, ny, nz, size):
    """Nodes (id, x, y, z), hexahedra (node ids in Kratos/CalculiX order), the
    clamped nodes and the tip forces {id: fz} (consistent nodal forces of a
    uniform traction on x = L: cell area / 4 per cell corner)."""
    L, W, H = size
    nodes = [(node_id(i, j, k, nx, ny), L * i / nx, W * j / ny, H * k / nz)
             for k in range(nz + 1) for j in range(ny + 1) for i in range(nx + 1)]
    hexes = []
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                n = lambda a, b, c: node_id(i + a, j + b, k + c, nx, ny)  # noqa: E731
                hexes.append((n(0, 0, 0), n(1, 0, 0), n(1, 1, 0), n(0, 1, 0),
                              n(0, 0, 1), n(1, 0, 1), n(1, 1, 1), n(0, 1, 1)))
    clamped = [node_id(0, j, k, nx, ny) for k in range(nz + 1) for j in range(ny + 1)]
    cell_force = LOAD / (ny * nz) / 4.0
    forces = {}
    for k in range(nz):
        for j in range(ny):
            for b, c in ((0, 0), (1, 0), (1, 1), (0, 1)):
                nid = node_id(nx, j + b, k + c, nx, ny)
                forces[nid] = forces.get(nid, 0.0) + cell_force
    tip = node_id(nx, ny // 2, nz // 2, nx, ny)
    return nodes, hexes, clamped, forces, tip


def write_kratos_deck(folder, mesh, tessera_solver):
    nodes, hexes, clamped, forces, tip = mesh
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "block.mdpa"), "w") as f:
        f.write("Begin Properties 1\nEnd Properties\n\nBegin Nodes\n")
        f.writelines(f"{n} {x!r} {y!r} {z!r}\n" for n, x, y, z in nodes)
        f.write("End Nodes\n\nBegin Elements SmallDisplacementElement3D8N\n")
        f.writelines(f"{e} 1 {' '.join(map(str, h))}\n" for e, h in enumerate(hexes, 1))
        f.write("End Elements\n\nBegin Conditions PointLoadCondition3D1N\n")
        load_nodes = sorted(forces)
        f.writelines(f"{c} 1 {n}\n" for c, n in enumerate(load_nodes, 1))
        f.write("End Conditions\n\nBegin ConditionalData POINT_LOAD\n")
        f.writelines(f"{c} [3](0.0, 0.0, {forces[n]!r})\n" for c, n in enumerate(load_nodes, 1))
        f.write("End ConditionalData\n\n")
        f.write("Begin SubModelPart clamped\n Begin SubModelPartNodes\n")
        f.writelines(f" {n}\n" for n in clamped)
        f.write(" End SubModelPartNodes\nEnd SubModelPart\n\n")
        f.write(f"Begin SubModelPart tip\n Begin SubModelPartNodes\n {tip}\n End SubModelPartNodes\n"
                "End SubModelPart\n")
    materials = {"properties": [{"model_part_name": "Structure", "properties_id": 1, "Material": {
        "constitutive_law": {"name": "LinearElastic3DLaw"},
        "Variables": {"YOUNG_MODULUS": YOUNG, "POISSON_RATIO": POISSON, "DENSITY": 7850.0}}}]}
    with open(os.path.join(folder, "StructuralMaterials.json"), "w") as f:
        json.dump(materials, f, indent=1)
    parameters = {
        "problem_data": {"problem_name": "block", "parallel_type": "OpenMP", "echo_level": 0,
                         "start_time": 0.0, "end_time": 1.0},
        "solver_settings": {
            "solver_type": "Static", "analysis_type": "linear", "model_part_name": "Structure",
            "domain_size": 3, "echo_level": 0, "time_stepping": {"time_step": 1.0},
            "model_import_settings": {"input_type": "mdpa", "input_filename": "block"},
            "material_import_settings": {"materials_filename": "StructuralMaterials.json"},
            "linear_solver_settings": json.loads(tessera_solver)},
        "processes": {
            "constraints_process_list": [{
                "python_module": "assign_vector_variable_process", "kratos_module": "KratosMultiphysics",
                "Parameters": {"model_part_name": "Structure.clamped", "variable_name": "DISPLACEMENT",
                               "value": [0.0, 0.0, 0.0], "interval": [0.0, "End"]}}],
            "loads_process_list": [],
            "json_output_process": [{
            "python_module": "json_output_process", "kratos_module": "KratosMultiphysics",
            "Parameters": {"model_part_name": "Structure.tip", "output_variables": ["DISPLACEMENT"],
                           "output_file_name": "tip.json", "time_frequency": 0.0}}]},
        "output_processes": {}}
    with open(os.path.join(folder, "ProjectParameters.json"), "w") as f:
        json.dump(parameters, f, indent=1)


def write_calculix_input(path, mesh, solver):
    nodes, hexes, clamped, forces, tip = mesh
    with open(path, "w") as f:
        f.write("*HEADING\nCantilever block, identical to the Tessera deck\n*NODE\n")
        f.writelines(f"{n}, {x!r}, {y!r}, {z!r}\n" for n, x, y, z in nodes)
        f.write("*ELEMENT, TYPE=C3D8, ELSET=EALL\n")
        f.writelines(f"{e}, {', '.join(map(str, h))}\n" for e, h in enumerate(hexes, 1))
        f.write("*NSET, NSET=CLAMPED\n")
        for start in range(0, len(clamped), 16):
            f.write(", ".join(map(str, clamped[start:start + 16])) + "\n")
        f.write(f"*NSET, NSET=TIP\n{tip}\n*BOUNDARY\nCLAMPED, 1, 3\n")
        f.write(f"*MATERIAL, NAME=STEEL\n*ELASTIC\n{YOUNG!r}, {POISSON!r}\n")
        f.write("*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n*STEP\n")
        f.write(f"*STATIC, SOLVER={solver}\n*CLOAD\n")
        f.writelines(f"{n}, 3, {fz!r}\n" for n, fz in sorted(forces.items()))
        f.write("*NODE PRINT, NSET=TIP\nU\n*END STEP\n")


def timed(command, cwd, env):
    """Runs under /usr/bin/time -v; returns (wall seconds, peak RSS MiB, output)."""
    start = time.perf_counter()
    result = subprocess.run(["/usr/bin/time", "-v", *command], cwd=cwd, env=env,
                            capture_output=True, text=True)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({result.returncode}):\n{result.stdout[-3000:]}\n"
                 f"{result.stderr[-3000:]}")
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr)
    return wall, int(rss.group(1)) / 1024.0, result.stdout


def calculix_tip(dat_file):
    """The tip node's uz from the *NODE PRINT table of the .dat file."""
    with open(dat_file) as f:
        lines = f.read().splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith("displacements (vx,vy,vz)"):
            for row in lines[i + 1:]:
                parts = row.split()
                if len(parts) == 4:
                    return float(parts[3])
    sys.exit(f"no displacement table in {dat_file}")


# Runs the deck distributed and writes tip.json as json_output_process would
# (argv: folder, tip node id).
MPI_DRIVER = """
import json, sys
import numpy as np
import tessera, tessera.structural
from tessera.parallel import GatherNodalArray
from tessera.project import Project, WorkingDirectory
folder, tip = sys.argv[1], int(sys.argv[2])
project = Project(folder, "ProjectParameters.json",
                  settings=['problem_data.parallel_type="MPI"', "processes.json_output_process=[]"])
with WorkingDirectory(folder):
    stage = project.CreateStage()
    stage.Initialize()
    stage.RunSolutionLoop()
    stage.Finalize()
mp = project.model.GetModelPart("Structure")
ids = np.asarray(mp.NodeIds(), dtype=np.int64)
mine = np.isin(ids, np.asarray(stage._GetSolver().local_mesh.owned_nodes, dtype=np.int64)) & (ids == tip)
u = np.array(mp.NodalArray(tessera.DISPLACEMENT), dtype=float)[mine]
_, values = GatherNodalArray(stage.communicator, mp, ids[mine], u)
import resource
peaks = stage.communicator.GatherDoubles([resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0], 0)
if stage.communicator.Rank() == 0:
    with open(folder + "/tip.json", "w") as f:
        json.dump({f"NODE_{tip}": {"DISPLACEMENT_Z": [float(values[0][2])]},
                   "peak_rss_mib_all_ranks": sum(p[0] for p in peaks)}, f)
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--elements", type=int, nargs=3, default=[200, 40, 20],
                        metavar=("NX", "NY", "NZ"))
    parser.add_argument("--size", type=float, nargs=3, default=[10.0, 2.0, 1.0],
                        metavar=("L", "W", "H"))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--workdir", default="/tmp/tessera_ccx_static_benchmark")
    parser.add_argument("--tessera-solver",
                        default='{"solver_type": "cg", "tolerance": 1e-8, "max_iteration": 50000}')
    parser.add_argument("--mpi", type=int, default=0, metavar="N",
                        help="run Tessera on N MPI ranks (one thread each; needs a PETSc solver)")
    parser.add_argument("--ccx-solvers", nargs="*", default=["SPOOLES", "ITERATIVE CHOLESKY"])
    parser.add_argument("--tolerance", type=float, default=1e-4,
                        help="relative tip-displacement agreement required (default 1e-4)")
    args = parser.parse_args()

    nx, ny, nz = args.elements
    mesh = block_mesh(nx, ny, nz, args.size)
    dofs = 3 * len(mesh[0])
    free_dofs = dofs - 3 * len(mesh[2])
    print(f"mesh: {nx} x {ny} x {nz} hexahedra ({len(mesh[1])}), {len(mesh[0])} nodes, "
          f"{dofs} dofs ({free_dofs} free); threads {args.threads}")
    shutil.rmtree(args.workdir, ignore_errors=True)
    deck = os.path.join(args.workdir, "tessera")
    write_kratos_deck(deck, mesh, args.tessera_solver)

    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads),
               CCX_NPROC_EQUATION_SOLVER=str(args.threads), CCX_NPROC_STIFFNESS=str(args.threads),
               CCX_NPROC_RESULTS=str(args.threads))
    # the runs start in their own folders: a relative PYTHONPATH (build/python) must still hold
    env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in
                                        env.get("PYTHONPATH", "").split(os.pathsep) if p)
    rows = []
    tessera = [sys.executable, "-m", "tessera", "run", deck, "--threads", str(args.threads), "--quiet"]
    tessera_env = env
    if args.mpi:
        tessera = [shutil.which("mpirun"), "--oversubscribe", "--allow-run-as-root", "-np", str(args.mpi),
                   sys.executable, "-c", MPI_DRIVER, deck, str(mesh[4])]
        tessera_env = dict(env, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1",
                           OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_btl_vader_single_copy_mechanism="none")
    wall, rss, _ = timed(tessera, deck, tessera_env)
    with open(os.path.join(deck, "tip.json")) as f:
        tip = json.load(f)
    uz = tip[f"NODE_{mesh[4]}"]["DISPLACEMENT_Z"][-1]
    # time -v gives the largest process' peak; a distributed run's memory is its ranks' sum
    rss = tip.get("peak_rss_mib_all_ranks", rss)
    rows.append({"code": "tessera", "solver": json.loads(args.tessera_solver), "ranks": max(args.mpi, 1),
                 "wall_s": wall,
                 "peak_rss_mib": rss, "tip_uz": uz})

    for solver in args.ccx_solvers:
        # The whole name: "ITERATIVE SCALING" and "ITERATIVE CHOLESKY" apart.
        folder = os.path.join(args.workdir, "ccx_" + "_".join(solver.lower().split()))
        os.makedirs(folder)
        write_calculix_input(os.path.join(folder, "block.inp"), mesh, solver)
        wall, rss, _ = timed(["ccx", "-i", "block"], folder, env)
        rows.append({"code": "calculix", "solver": solver, "wall_s": wall, "peak_rss_mib": rss,
                     "tip_uz": calculix_tip(os.path.join(folder, "block.dat"))})

    reference = rows[0]
    print(f"{'code':>9} {'solver':>28} {'wall s':>8} {'peak MiB':>9} {'tip uz':>14} "
          f"{'time ratio':>10} {'mem ratio':>9} {'uz rel diff':>11}")
    worst = 0.0
    for row in rows:
        ratio_t = reference["wall_s"] / row["wall_s"]
        ratio_m = reference["peak_rss_mib"] / row["peak_rss_mib"]
        diff = abs(row["tip_uz"] - reference["tip_uz"]) / abs(row["tip_uz"])
        worst = max(worst, diff)
        row.update(tessera_over_this_time=ratio_t, tessera_over_this_memory=ratio_m,
                   tip_relative_difference=diff)
        name = row["solver"] if isinstance(row["solver"], str) else row["solver"].get("solver_type")
        if isinstance(row["solver"], dict) and row["solver"].get("preconditioner_type"):
            name += " + " + row["solver"]["preconditioner_type"]
        print(f"{row['code']:>9} {name:>28} {row['wall_s']:8.2f} {row['peak_rss_mib']:9.0f} "
              f"{row['tip_uz']:14.8e} {ratio_t:10.3f} {ratio_m:9.3f} {diff:11.2e}")
    with open(os.path.join(args.workdir, "results.json"), "w") as f:
        json.dump({"elements": args.elements, "size": args.size, "dofs": dofs, "threads": args.threads,
                   "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "runs": rows}, f,
                  indent=1)
    print("time ratio / mem ratio: Tessera's over the row's (< 1: Tessera faster / smaller)")
    if worst > args.tolerance:
        sys.exit(f"tip displacements differ by {worst:.2e} relative, more than {args.tolerance:.0e}")
    print(f"tip displacements agree within {args.tolerance:.0e} relative (worst {worst:.2e})")


if __name__ == "__main__":
    main()
