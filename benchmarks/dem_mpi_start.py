"""The start of a distributed DEM run: each rank reading its piece of the
sphere file (mpi_settings.read "pieces", the default;
applications/dem/parallel/spheres_piece.h) against every rank reading and
initialising the whole file ("whole"). The bed of tests/python/mpi_dem_case.py,
NX x NY x NZ spheres in all, thrown in a box of rigid walls, its rows never
sorted in space (SortParticlesFrequency 0: the whole-file start would
otherwise key the rows in the serial run's sorted order, the pieces in the
file's, and the two runs differ by rounding).

Reported per run and rank: the spheres it read, those it owns after the
start, the seconds of stage.Initialize() (reading, materials, the strategy's
first search and forces, the decomposition) and the rank's peak resident
memory then (VmHWM, the interpreter and libraries included); and the same
for one serial process. Then STEPS steps, whose final positions and
velocities must be the same bits in both modes (checked; their distance
from the serial run's is printed).

With --bonded the bed is bonded (the continuum strategy): the grains'
relation gets the DEM_Dempack law of the virtual laboratory's concrete
(tessera.dem.virtual_lab.DEFAULT_MATERIAL) with BOND_RANGE_BETA 0.25, which
bonds the lattice's neighbours along its axes (centres 22 ± 1.6 mm apart,
radii 9 and 10 mm); every sphere is of COHESIVE_GROUP 1. A piece then
reaches one longest bond beyond the ghost layer (spheres_piece.h).

With --clean the bed's radii are 20 % larger (neighbours overlap by up to
2.6 mm) and CleanIndentationsOption shrinks them at the start: from pieces,
rank 0 works that out over every sphere's centre and radius
(ShareInitialShrinks, spheres_piece.h).

With --clusters N LAYERS an N x N x LAYERS lattice of three-sphere clusters
(tests/python/mpi_dem_clusters_case.py: members of radius 8 mm, 42 mm apart,
thrown at up to 1 m/s and 30 rad/s) lies above the bed (NX = NY): from
pieces each rank reads a slice of the cluster file, then the clusters it
keeps, and makes their members only (spheres_piece.h).

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/dem_mpi_start.py
        [--nx 60 --ny 60 --nz 40] [--ranks 2 4] [--steps 20]
        [--bonded | --clean | --clusters N LAYERS]
"""
import argparse
import json
import os
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "python"))

from mpi_dem_case import BedState, WriteBed  # noqa: E402
from mpi_dem_clusters_case import CLUSTER_SPACING, _WriteClusters  # noqa: E402
from tessera.parallel import MpiSkipReason, RunPython  # noqa: E402


def PeakResidentMiB():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def Child(folder, out, parallel_type):
    """One run (each rank of it): the start measured, then the steps; rank 0
    writes OUT (JSON) with every rank's numbers and the owned spheres' final
    state (node ids ascending)."""
    import tessera
    import tessera.dem  # noqa: F401
    from tessera.dem import distributed_run
    from tessera.project import Project, WorkingDirectory

    project = Project(folder, "ProjectParametersDEM.json", settings=[f'parallel_type="{parallel_type}"'])
    with WorkingDirectory(folder):
        stage = project.CreateStage()
        start = time.perf_counter()
        stage.Initialize()
        seconds = time.perf_counter() - start
        peak = PeakResidentMiB()
        solver = stage._GetSolver()
        spheres = project.model.GetModelPart("SpheresPart")
        piece = getattr(stage, "spheres_piece", None)
        read = len(piece.element_ids) if piece is not None else None
        clusters = project.model.GetModelPart("ClusterPart").NumberOfElements()
        distributed, communicator = solver.distributed, stage.communicator
        bonds = distributed.GlobalNumberOfBonds() if distributed else solver.strategy.NumberOfBonds()
        stage.RunSolutionLoop()
        stage.Finalize()
    if distributed is None:
        order = np.argsort(np.asarray(spheres.NodeIds(), dtype=np.int64))
        ids = np.asarray(spheres.NodeIds(), dtype=np.int64)[order]
        x = np.array([[n.X, n.Y, n.Z] for n in spheres.Nodes])[order]
        v = np.array(spheres.NodalArray(tessera.VELOCITY), dtype=float).reshape(len(ids), 3)[order]
        ranks = [{"read": spheres.NumberOfElements(), "owned": spheres.NumberOfElements(),
                  "seconds": seconds, "peak_mib": peak, "clusters": clusters}]
    else:
        ids, values = distributed_run.GatherOwned(communicator, distributed, spheres, ("VELOCITY",),
                                                  coordinates=True)
        x, v = (values.get("x"), values.get("VELOCITY")) if communicator.Rank() == 0 else (None, None)
        # (The whole-file start read every sphere.)
        mine = [float(read if read is not None else distributed.GlobalNumberOfParticles()),
                float(distributed.NumberOfOwned()), seconds, peak, float(clusters)]
        gathered = communicator.GatherDoubles(mine, 0)
        if communicator.Rank() != 0:
            return
        ranks = [{"read": int(g[0]), "owned": int(g[1]), "seconds": g[2], "peak_mib": g[3],
                  "clusters": int(g[4])} for g in gathered]
    with open(out, "w") as f:
        json.dump({"ranks": ranks, "bonds": bonds, "ids": [int(i) for i in ids],
                   "x": np.asarray(x).tolist(), "v": np.asarray(v).tolist()}, f)


def MakeBonded(folder, count):
    """The bed of `folder`, `count` spheres, bonded (see the module text)."""
    from tessera.dem.virtual_lab import DEFAULT_MATERIAL
    path = os.path.join(folder, "MaterialsDEM.json")
    with open(path) as f:
        materials = json.load(f)
    law = {k: v for k, v in DEFAULT_MATERIAL.items()
           if k.startswith(("CONTACT_", "DAMAGE_", "SHEAR_", "SLOPE_", "DEM_CONTINUUM"))}
    materials["material_relations"][0]["Variables"].update(law, BOND_RANGE_BETA=0.25)
    with open(path, "w") as f:
        json.dump(materials, f, indent=1)
    with open(os.path.join(folder, "bedDEM.mdpa"), "a") as f:
        f.write("Begin NodalData COHESIVE_GROUP\n")
        f.write("".join(f"  {n + 1} 0 1\n" for n in range(count)))
        f.write("End NodalData\n")
    path = os.path.join(folder, "ProjectParametersDEM.json")
    with open(path) as f:
        deck = json.load(f)
    deck["solver_settings"]["strategy"] = "continuum_sphere_strategy"
    deck.update(PoissonEffectOption=False, ShearStrainParallelToBondOption=False)
    with open(path, "w") as f:
        json.dump(deck, f, indent=1)


def Run(folder, out, ranks):
    mode = "MPI" if ranks > 1 else "OpenMP"
    RunPython([os.path.abspath(__file__), "--child", folder, out, mode], ranks if ranks > 1 else None,
              timeout=3600)
    with open(out) as f:
        return json.load(f)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nx", type=int, default=60)
    parser.add_argument("--ny", type=int, default=60)
    parser.add_argument("--nz", type=int, default=40)
    parser.add_argument("--ranks", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--bonded", action="store_true", help="the continuum strategy's bonded bed")
    parser.add_argument("--clean", action="store_true",
                        help="radii 20 %% larger, shrunk at the start (CleanIndentationsOption)")
    parser.add_argument("--clusters", type=int, nargs=2, metavar=("N", "LAYERS"),
                        help="an N x N x LAYERS lattice of three-sphere clusters above the bed")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        Child(*args.child)
        return
    if MpiSkipReason() is not None:
        sys.exit(f"dem_mpi_start.py: {MpiSkipReason()}")
    with tempfile.TemporaryDirectory() as tmp:
        runs = {}
        for mode in ("pieces", "whole"):
            folder = os.path.join(tmp, mode)
            keys = {"mpi_settings": {"read": mode}, "SortParticlesFrequency": 0}
            state = None
            if args.clean:
                nodes, radii, velocities = BedState(args.nx, args.ny, args.nz)[:3]
                state = (nodes, [1.2 * r for r in radii], velocities)
                keys["CleanIndentationsOption"] = True
            count = WriteBed(folder, args.nx, args.ny, args.nz, steps=args.steps, keys=keys,
                             state=state)
            if args.bonded:
                MakeBonded(folder, count)
            if args.clusters:
                lx = BedState(args.nx, args.ny, 1)[3][0]
                bottom = (args.nz + 0.6) * 0.022 + 2 * CLUSTER_SPACING  # above the bed
                clusters = len(_WriteClusters(folder, "bed", lx, args.clusters[0],
                                              args.clusters[1], CLUSTER_SPACING, 1.0, 30.0, 7,
                                              bottom))
            for ranks in args.ranks:
                runs[mode, ranks] = Run(folder, os.path.join(tmp, f"{mode}{ranks}.json"), ranks)
        serial = Run(os.path.join(tmp, "whole"), os.path.join(tmp, "serial.json"), 1)
    bonded = f", {serial['bonds']} bonds at the start" if args.bonded else ""
    bonded += ", radii shrunk at the start (CleanIndentationsOption)" if args.clean else ""
    bonded += f", {clusters} three-sphere clusters above it" if args.clusters else ""
    print(f"bed of {count} spheres{bonded}, {args.steps} steps; load average {os.getloadavg()[0]:.2f}")
    print("| run | rank | spheres read | clusters held | owned after the start | Initialize | "
          "peak memory (VmHWM) |")
    print("|---|---|---|---|---|---|---|")
    for name, result in [("serial", serial)] + [(f"{m}, {r} ranks", runs[m, r]) for m, r in runs]:
        for rank, row in enumerate(result["ranks"]):
            print(f"| {name} | {rank} | {row['read']} | {row['clusters']} | {row['owned']} | "
                  f"{row['seconds']:.2f} s | {row['peak_mib']:.0f} MiB |")
    # Both starts give each rank the same boxes and rows, so the same bits;
    # against the serial run, bitwise only below 4096 spheres and one force
    # block (docs/user_guide.md): the largest difference is printed.
    failed = False
    for ranks in args.ranks:
        pieces, whole = runs["pieces", ranks], runs["whole", ranks]
        same = (pieces["ids"] == whole["ids"] and np.array_equal(pieces["x"], whole["x"])
                and np.array_equal(pieces["v"], whole["v"]))
        dx = np.abs(np.subtract(pieces["x"], serial["x"])).max()
        dv = np.abs(np.subtract(pieces["v"], serial["v"])).max()
        print(f"{ranks} ranks: pieces and whole file {'bitwise equal' if same else 'DIFFER'}; "
              f"from the serial run max |dx| {dx:.3g} m, |dv| {dv:.3g} m/s")
        failed = failed or not same
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
