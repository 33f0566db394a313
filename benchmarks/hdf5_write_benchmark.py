"""Write cost of the HDF5 results output against the VTK binary writer, on the
same data in the same run (issue: 1 M spheres and a 1 M-node mesh).

Two model parts, read from .mdpa files this script writes:
  spheres  N nodes with SphericParticle3D elements (Sphere3D1 cells), RADIUS,
           DISPLACEMENT, VELOCITY, ANGULAR_VELOCITY historical;
  mesh     an n x n x n block of Hexahedron3D8N elements ((n+1)^3 nodes),
           DISPLACEMENT, VELOCITY historical.
Each writer writes `--repeat` output steps; reported: the seconds of the
first output (HDF5 writes the mesh then; with "file_per_step" later steps link
to it, where VTK writes the mesh in every file), the median seconds per
output, the file bytes per output (the run's total / steps) and MB/s
(bytes per output / median seconds); "vs VTK" is VTK's median over this one's. HDF5 is timed uncompressed and with gzip level 1.
Times are those of PrintOutput() into the page cache (no fsync), for both
writers alike.

    PYTHONPATH=build/python OMP_NUM_THREADS=1 /usr/bin/python3 benchmarks/hdf5_write_benchmark.py
    (--spheres 1000000 --cells 100 by default; --quick for 100k / 46^3)
"""
import argparse
import json
import os
import shutil
import statistics
import tempfile
import time

import numpy as np

import tessera
import tessera.dem  # noqa: F401  (registers SphericParticle3D)


def write_spheres_mdpa(path, count, rng):
    positions = rng.random((count, 3)) * 10.0
    ids = np.arange(1, count + 1)
    with open(path, "w") as f:
        f.write("Begin Properties 1\nEnd Properties\nBegin Nodes\n")
        np.savetxt(f, np.column_stack([ids, positions]), fmt="%d %.17g %.17g %.17g")
        f.write("End Nodes\nBegin Elements SphericParticle3D\n")
        np.savetxt(f, np.column_stack([ids, np.ones(count, dtype=int), ids]), fmt="%d")
        f.write("End Elements\n")


def write_block_mdpa(path, n):
    m = n + 1
    k, j, i = np.meshgrid(np.arange(m), np.arange(m), np.arange(m), indexing="ij")
    coordinates = np.column_stack([i.ravel(), j.ravel(), k.ravel()]) / n
    ids = np.arange(1, m ** 3 + 1)

    def node(i, j, k):
        return 1 + i + m * (j + m * k)

    k, j, i = np.meshgrid(np.arange(n), np.arange(n), np.arange(n), indexing="ij")
    i, j, k = i.ravel(), j.ravel(), k.ravel()
    connectivity = np.column_stack([node(i, j, k), node(i + 1, j, k), node(i + 1, j + 1, k),
                                    node(i, j + 1, k), node(i, j, k + 1), node(i + 1, j, k + 1),
                                    node(i + 1, j + 1, k + 1), node(i, j + 1, k + 1)])
    element_ids = np.arange(1, n ** 3 + 1)
    with open(path, "w") as f:
        f.write("Begin Properties 1\nEnd Properties\nBegin Nodes\n")
        np.savetxt(f, np.column_stack([ids, coordinates]), fmt="%d %.17g %.17g %.17g")
        f.write("End Nodes\nBegin Elements Element3D8N\n")
        np.savetxt(f, np.column_stack([element_ids, np.ones(n ** 3, dtype=int), connectivity]),
                   fmt="%d")
        f.write("End Elements\n")


def read(model, name, mdpa, variables):
    mp = model.CreateModelPart(name)
    for variable in variables:
        mp.AddNodalSolutionStepVariable(variable)
    tessera.ModelPartIO(mdpa[:-5]).ReadModelPart(mp)
    return mp


def fill(mp, variables, rng):
    for variable in variables:
        view = mp.NodalArray(variable)
        view[...] = rng.random(view.shape)


def directory_bytes(path):
    return sum(os.path.getsize(os.path.join(root, f)) for root, _, files in os.walk(path)
               for f in files)


def time_writer(make_writer, mp, folder, repeat):
    """Median seconds per PrintOutput and bytes per output of a fresh writer."""
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    writer = make_writer(folder)
    seconds = []
    for step in range(1, repeat + 1):
        mp.ProcessInfo[tessera.STEP] = step
        mp.ProcessInfo[tessera.TIME] = 0.1 * step
        start = time.perf_counter()
        writer.PrintOutput()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds), directory_bytes(folder) / repeat, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spheres", type=int, default=1_000_000)
    parser.add_argument("--cells", type=int, default=100, help="the block has cells^3 hexahedra")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="100,000 spheres, a 46^3 block")
    args = parser.parse_args()
    if args.quick:
        args.spheres, args.cells = 100_000, 46
    rng = np.random.default_rng(7)
    work = tempfile.mkdtemp(prefix="hdf5_write_benchmark_")
    sphere_vars = [tessera.RADIUS, tessera.DISPLACEMENT, tessera.VELOCITY, tessera.ANGULAR_VELOCITY]
    mesh_vars = [tessera.DISPLACEMENT, tessera.VELOCITY]
    try:
        model = tessera.Model()
        cases = []
        if args.spheres:
            write_spheres_mdpa(os.path.join(work, "spheres.mdpa"), args.spheres, rng)
            mp = read(model, "Spheres", os.path.join(work, "spheres.mdpa"), sphere_vars)
            fill(mp, sphere_vars, rng)
            cases.append((f"{args.spheres:,} spheres", mp, ["RADIUS", "DISPLACEMENT", "VELOCITY",
                                                           "ANGULAR_VELOCITY"]))
        if args.cells:
            write_block_mdpa(os.path.join(work, "block.mdpa"), args.cells)
            mp = read(model, "Block", os.path.join(work, "block.mdpa"), mesh_vars)
            fill(mp, mesh_vars, rng)
            cases.append((f"{mp.NumberOfNodes():,}-node hexahedral mesh", mp,
                          ["DISPLACEMENT", "VELOCITY"]))
        print(f"{'case':32s} {'writer':12s} {'s first':>8s} {'s/output':>9s} {'MB/output':>10s} "
              f"{'MB/s':>7s} {'vs VTK':>7s}")
        for label, mp, names in cases:
            variables = {"nodal_solution_step_data_variables": names}

            def vtk(folder):
                return tessera.VtkOutput(mp, tessera.Parameters(json.dumps(
                    {"output_path": folder, "file_format": "binary", **variables})))

            def hdf5(level):  # noqa: E306
                return lambda folder: tessera.Hdf5Output(mp, tessera.Parameters(json.dumps(
                    {"output_path": folder, "file_mode": "file_per_step",
                     "compression": level, **variables})))

            rows = [("VTK binary", vtk), ("HDF5", hdf5(0)), ("HDF5 gzip 1", hdf5(1))]
            reference = None
            for writer_name, make in rows:
                seconds, size, each = time_writer(make, mp, os.path.join(work, "out"), args.repeat)
                reference = reference or seconds
                print(f"{label:32s} {writer_name:12s} {each[0]:8.3f} {seconds:9.3f} "
                      f"{size / 1e6:10.1f} {size / 1e6 / seconds:7.1f} {reference / seconds:7.2f}",
                      flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
