"""The walls' contact results of a distributed DEM run ("parallel_type":
"MPI", DistributedDem.WriteGlobalWallResults): the bed of mpi_dem_case.py (294
spheres thrown into an open box of five rigid quad walls, each wall one face)
with the floor a FORCE_INTEGRATION_GROUP part, 400 steps serially and under
mpirun on 2 and 4 ranks. At every 50th step each wall node's CONTACT_FORCES,
ELASTIC_FORCES, TANGENTIAL_ELASTIC_FORCES, DEM_PRESSURE, SHEAR_STRESS and
DEM_NODAL_AREA must equal the serial run's, and the floor's force graph the
serial graph. Not bitwise: each rank sums its owned spheres' contacts, then
rank 0 the ranks' partial sums in rank order, where the serial run adds the
contacts one by one; the bound is 1e-12 of the largest value of the variable
(the issue's bound for results that cannot be bitwise; the rounding of a few
hundred additions is ~1e-14 of it). The GiD and HDF5 files of the walls with
the Post* flags of those results equal the serial files to the same bound.
Two spheres pressing the floor from either side, one per rank, check that
DEM_PRESSURE takes each face's global normal shares before their magnitude.
The mpirun tests skip where the build has no MPI or there is no mpirun."""
import os
import sys

import numpy as np
import pytest

from tessera.parallel import MpiSkipReason, RunPython

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpi_dem_case import DT, WriteBed  # noqa: E402
from test_mpi_dem_post_files import gid_results, hdf5_datasets, tessera_run  # noqa: E402

RUN_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mpi_dem_walls_run.py")
needs_mpi = pytest.mark.skipif(MpiSkipReason() is not None, reason=str(MpiSkipReason()))
STEPS, EVERY = 400, 50
RELATIVE = 1e-12  # of the largest value of each variable (see above)
VARIABLES = ("CONTACT_FORCES", "ELASTIC_FORCES", "TANGENTIAL_ELASTIC_FORCES", "DEM_PRESSURE",
             "SHEAR_STRESS", "DEM_NODAL_AREA")
WALL_POST_KEYS = {"PostContactForces": True, "PostElasticForces": True,
                  "PostTangentialElasticForces": True, "PostPressure": True,
                  "PostShearStress": True, "PostNodalArea": True}


def write_case(folder, keys=None, **bed):
    WriteBed(folder, steps=STEPS, keys=dict({"GraphExportFreq": 25 * DT}, **(keys or {})), **bed)
    path = os.path.join(folder, "bedDEM_FEM_boundary.mdpa")
    with open(path) as f:
        text = f.read()
    text = text.replace("    IDENTIFIER floor\n", "    IDENTIFIER floor\n    FORCE_INTEGRATION_GROUP 1\n")
    with open(path, "w") as f:
        f.write(text)


def graph_rows(folder):
    with open(os.path.join(folder, "bed_Graphs", "bed_floor_force_graph.grf")) as f:
        lines = f.read().splitlines()
    return lines[0], np.array([[float(v) for v in line.split()] for line in lines[1:]])


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4])
def test_wall_results_and_force_graph_of_a_distributed_run_equal_the_serial_run(tmp_path, ranks):
    write_case(tmp_path / "serial")
    write_case(tmp_path / "mpi")
    RunPython([RUN_SCRIPT, tmp_path / "serial", tmp_path / "serial.npz", "OpenMP", EVERY])
    RunPython([RUN_SCRIPT, tmp_path / "mpi", tmp_path / "mpi.npz", "MPI", EVERY], ranks)
    serial, distributed = np.load(tmp_path / "serial.npz"), np.load(tmp_path / "mpi.npz")
    assert int(distributed["ranks"]) == ranks
    np.testing.assert_array_equal(distributed["steps"], serial["steps"])
    assert len(serial["steps"]) == STEPS // EVERY + 1
    forces = serial["CONTACT_FORCES"]
    # The spheres load the walls: most samples have contacts, on several nodes.
    loaded = [int(np.count_nonzero(np.abs(f).max(axis=1) > 0)) for f in forces]
    assert sum(n >= 4 for n in loaded) >= 5, loaded
    for name in VARIABLES:
        a, b = serial[name], distributed[name]
        assert a.shape == b.shape, name
        scale = np.abs(a).max()
        assert scale > 0, name
        np.testing.assert_allclose(b, a, rtol=0, atol=RELATIVE * scale, err_msg=name)
    # The floor's force graph: written once, by rank 0, with the global totals.
    header, rows = graph_rows(tmp_path / "serial")
    mine_header, mine = graph_rows(tmp_path / "mpi")
    assert mine_header == header and mine.shape == rows.shape and len(rows) == STEPS // 25 + 1
    np.testing.assert_array_equal(mine[:, 0], rows[:, 0])
    assert np.abs(rows[:, 3]).max() > 0  # the floor carries the bed's weight
    np.testing.assert_allclose(mine[:, 1:], rows[:, 1:], rtol=0,
                               atol=RELATIVE * np.abs(rows[:, 1:]).max())


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4])
def test_walls_gid_and_hdf5_results_of_a_distributed_run_equal_the_serial_files(tmp_path, ranks):
    keys = dict(WALL_POST_KEYS, post_gid_option=True, post_hdf5_option=True, OutputFileType="Ascii",
                Multifile="single_file", OutputTimeStep=100 * DT)
    write_case(tmp_path / "serial", keys)
    write_case(tmp_path / "mpi", dict(keys, parallel_type="MPI"))
    tessera_run(tmp_path / "serial")
    tessera_run(tmp_path / "mpi", ranks)
    serial, out = tmp_path / "serial" / "bed_Post_Files", tmp_path / "mpi" / "bed_Post_Files"
    names = sorted(os.listdir(serial))
    assert sorted(os.listdir(out)) == names
    walls = [name for name in names if "FEM" in name]
    assert any(n.endswith(".post.res") for n in walls) and any(n.endswith(".h5") for n in walls)
    for name in walls:
        if name.endswith(".post.res"):
            mine, reference = gid_results(out / name), gid_results(serial / name)
            assert mine.keys() == reference.keys(), name
            assert {v for v, _ in reference} >= set(VARIABLES), name
            for variable in VARIABLES:
                keys_of = sorted(k for k in reference if k[0] == variable)
                a = np.array([[[float(x) for x in reference[k][i].split()] for i in sorted(reference[k])]
                              for k in keys_of])
                b = np.array([[[float(x) for x in mine[k][i].split()] for i in sorted(mine[k])]
                              for k in keys_of])
                assert a.shape == b.shape and np.abs(a).max() > 0, (name, variable)
                np.testing.assert_allclose(b, a, rtol=0, atol=RELATIVE * np.abs(a).max(),
                                           err_msg=f"{name} {variable}")
        elif name.endswith(".h5"):
            mine, reference = hdf5_datasets(out / name), hdf5_datasets(serial / name)
            assert mine.keys() == reference.keys(), name
            results = [k for k in reference if any(v in k for v in VARIABLES)]
            assert {v for v in VARIABLES if any(v in k for k in results)} == set(VARIABLES), results
            for key, values in reference.items():
                values = np.asarray(values)
                if values.dtype.kind == "f":
                    scale = np.abs(values).max() if values.size else 0.0
                    np.testing.assert_allclose(mine[key], values, rtol=0,
                                               atol=RELATIVE * scale, err_msg=f"{name} {key}")
                else:
                    assert np.array_equal(mine[key], values), (name, key)
        else:
            with open(out / name) as f, open(serial / name) as g:
                assert f.read() == g.read(), name


def write_spheres_on_both_sides_of_the_floor(folder):
    """Two spheres pressed against the floor quad (44 x 22 mm) from above
    (R 10 mm, 0.8 mm overlap, x = 11 mm) and from below (R 9 mm, 1 mm overlap,
    x = 33 mm), no gravity: the bisection (along x, the longest extent) puts
    one on each rank, and every floor vertex gets normal shares of opposite
    signs from the two ranks."""
    write_case(folder, {"GravityZ": 0.0}, nx=2, ny=1, nz=1, speed=0.0)
    path = os.path.join(folder, "bedDEM.mdpa")
    with open(path) as f:
        lines = f.read().splitlines()
    start = lines.index("Begin Nodes")
    lines[start + 1] = "  1 0.011 0.011 0.0092"
    lines[start + 2] = "  2 0.033 0.011 -0.008"
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


@needs_mpi
def test_pressure_takes_the_magnitude_of_each_faces_global_normal_share(tmp_path):
    # DEM_PRESSURE sums over a node's faces |sum of the face's normal shares|
    # (node_sync.cpp): the shares of the sphere above (pushing the floor down)
    # and of the one below (pushing it up) partly cancel. Summing each rank's
    # magnitudes instead would give (|s1| + |s2|) / A, not |s1 + s2| / A.
    write_spheres_on_both_sides_of_the_floor(tmp_path / "serial")
    write_spheres_on_both_sides_of_the_floor(tmp_path / "mpi")
    RunPython([RUN_SCRIPT, tmp_path / "serial", tmp_path / "serial.npz", "OpenMP", EVERY])
    RunPython([RUN_SCRIPT, tmp_path / "mpi", tmp_path / "mpi.npz", "MPI", EVERY], 2)
    serial, distributed = np.load(tmp_path / "serial.npz"), np.load(tmp_path / "mpi.npz")
    for name in VARIABLES:
        a, b = serial[name], distributed[name]
        np.testing.assert_allclose(b, a, rtol=0, atol=RELATIVE * np.abs(a).max(), err_msg=name)
    # The floor's nodes are the walls' first four (ids 1-4, on the floor face
    # only). At the start each gets bilinear shares of both spheres' forces
    # (Hertz: the lower sphere's is about 1.3 times the upper's), so the
    # net normal force points down at the x = 0 nodes and up at x = 44 mm:
    # shares of opposite signs meet at every node.
    fz = distributed["CONTACT_FORCES"][0, :4, 2]
    assert fz.min() < 0 < fz.max(), fz
    pressure_area = distributed["DEM_PRESSURE"][0, :4] * distributed["DEM_NODAL_AREA"][0, :4]
    np.testing.assert_allclose(pressure_area, np.abs(fz), rtol=1e-12)
