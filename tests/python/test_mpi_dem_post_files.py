"""GiD and HDF5 post files of a distributed DEM run ("parallel_type": "MPI",
distributed_run.MergedSpheresOutput): the bed of mpi_dem_case.py (294
spheres in an open box of five rigid quad walls) run 200 steps with
"post_gid_option" and "post_hdf5_option" true (a matrix result among the
written ones: PostStressStrainOption's DEM_STRESS_TENSOR), serially and under mpirun on 2
and 4 ranks, writes one set of files whose values per node id are the serial
run's. The bed's distributed run is bitwise equal to the serial run
(test_mpi_dem.py, docs/architecture.md "Distributed DEM"), so the written
values must be equal bit for bit (GiD's ASCII numbers as text, HDF5 arrays
exactly), the walls written once (rank 0's, as every rank holds them alike)."""
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from tessera.parallel import MpiSkipReason, MpirunCommand, MpirunEnvironment

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpi_dem_case import DT, AddInlet, WriteBed  # noqa: E402

needs_mpi = pytest.mark.skipif(MpiSkipReason() is not None, reason=str(MpiSkipReason()))
STEPS = 200
KEYS = {"post_gid_option": True, "post_hdf5_option": True, "OutputFileType": "Ascii",
        "OutputTimeStep": 50 * DT, "PostAngularVelocity": True, "PostTotalForces": True,
        "PostRadius": True, "PostStressStrainOption": True}


def tessera_run(folder, ranks=None, timeout=300):
    command = [sys.executable, "-m", "tessera", "run", str(folder)]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    if ranks:
        command, env = MpirunCommand(ranks, *command), MpirunEnvironment()
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def set_keys(folder, keys):
    path = os.path.join(folder, "ProjectParametersDEM.json")
    with open(path) as f:
        deck = json.load(f)
    deck.update(keys)
    with open(path, "w") as f:
        json.dump(deck, f)


def gid_results(path):
    """{(variable, label): {node id: value text}} of a GiD ASCII .post.res."""
    results, current = {}, None
    with open(path) as f:
        for line in f:
            words = line.split()
            if line.startswith("Result "):
                name, label = re.match(r'Result "([^"]+)" "Kratos" (\S+)', line).groups()
                current = results.setdefault((name, label), {})
            elif current is not None and words and words[0].isdigit():
                current[int(words[0])] = " ".join(words[1:])
            elif line.startswith("End Values"):
                current = None
    return results


def hdf5_datasets(path):
    """{dataset path: array} of every dataset of an HDF5 file."""
    import h5py

    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, item: out.__setitem__(name, item[()])
                     if isinstance(item, h5py.Dataset) else None)
    return out


def run_bed(folder, multifile, ranks=None, inlet=False):
    keys = dict(KEYS, Multifile=multifile)
    if ranks:
        keys["parallel_type"] = "MPI"
    WriteBed(folder, steps=STEPS, keys=keys)
    if inlet:
        AddInlet(folder, stop=STEPS * DT)
    tessera_run(folder, ranks)
    return folder / "bed_Post_Files"


@needs_mpi
@pytest.mark.parametrize("ranks, multifile, inlet", [(2, "multiple_files", False),
                                                     (4, "single_file", False),
                                                     (2, "multiple_files", True)])
def test_gid_and_hdf5_files_of_a_distributed_run_equal_the_serial_run(tmp_path, ranks, multifile,
                                                                      inlet):
    serial = run_bed(tmp_path / "serial", multifile, inlet=inlet)
    out = run_bed(tmp_path / "mpi", multifile, ranks, inlet=inlet)
    # one set of files, named as the serial run's (not one per rank)
    names = sorted(os.listdir(serial))
    assert sorted(os.listdir(out)) == names
    outputs = STEPS // 50  # OutputTimeStep of 50 steps
    kinds = {".post.msh": 0, ".post.res": 0, ".h5": 0, ".xdmf": 0}
    spheres = {}  # spheres written per output label
    for name in names:
        kind = next(k for k in kinds if name.endswith(k))
        kinds[kind] += 1
        if kind in (".post.msh", ".xdmf"):
            # the mesh (spheres with their radius, the walls' quads, initial
            # coordinates) and the XDMF descriptor, as the serial run's text
            with open(out / name) as f, open(serial / name) as g:
                assert f.read() == g.read(), name
        elif kind == ".post.res":
            # every result per node id; the numbers as text: the serial run's bits
            mine, reference = gid_results(out / name), gid_results(serial / name)
            assert mine.keys() == reference.keys() and len(reference) > 0, name
            for key, values in reference.items():
                assert mine[key] == values, (name, key)
            if "FEM" not in name:  # the spheres' files
                assert {v for v, _ in reference} == {"DISPLACEMENT", "VELOCITY", "RADIUS",
                                                     "ANGULAR_VELOCITY", "TOTAL_FORCES",
                                                     "DEM_STRESS_TENSOR"}
                spheres.update({label: len(values) for (_, label), values in reference.items()})
        else:
            # every dataset (node ids, coordinates, connectivity, the nodal
            # results of each output) exactly equal
            mine, reference = hdf5_datasets(out / name), hdf5_datasets(serial / name)
            assert mine.keys() == reference.keys() and len(reference) > 0, name
            for key, values in reference.items():
                assert np.array_equal(mine[key], values), (name, key)
    files_per_part = outputs if multifile == "multiple_files" else 1
    assert kinds == {".post.msh": 2 * files_per_part, ".post.res": 2 * files_per_part,
                     ".h5": 2, ".xdmf": 2}, kinds
    # every output written; the bed's 294 spheres, with the inlet more and more
    counts = [spheres[label] for label in sorted(spheres, key=float)]
    assert len(counts) == outputs, spheres
    if inlet:
        assert 294 < counts[0] < counts[-1], counts
    else:
        assert counts == [294] * outputs, counts



@needs_mpi
@pytest.mark.parametrize("inlet", [False, True], ids=["bed", "inlet"])
def test_json_output_of_a_distributed_run_equals_the_serial_runs_file(tmp_path, inlet):
    # Kratos' json_output_process on SpheresPart: rank 0 writes one file,
    # each sphere's values from the rank that owns it at each record; the
    # spheres change owner and (with the inlet) are added during the run.
    # The runs are bitwise equal, so the files are equal as JSON values.
    process = {"python_module": "json_output_process", "kratos_module": "KratosMultiphysics",
               "process_name": "JsonOutputProcess",
               "Parameters": {"model_part_name": "SpheresPart", "output_variables": ["VELOCITY", "TOTAL_FORCES_Z"],
                              "output_file_name": "spheres.json", "time_frequency": 40 * DT}}
    files = {}
    for ranks in (None, 2):
        folder = tmp_path / ("mpi" if ranks else "serial")
        WriteBed(folder, steps=STEPS, keys={"parallel_type": "MPI" if ranks else "OpenMP",
                                            "processes": {"json_output": [process]}})
        if inlet:
            AddInlet(folder, stop=STEPS * DT)
        tessera_run(folder, ranks)
        with open(folder / "spheres.json") as f:
            files[ranks] = json.load(f)
    serial, distributed = files[None], files[2]
    assert len(serial["TIME"]) == STEPS // 40 - 1 and distributed["TIME"] == serial["TIME"]
    spheres = [key for key in serial if key != "TIME"]
    assert (len(spheres) > 294) if inlet else (len(spheres) == 294)
    assert sorted(distributed) == sorted(serial)
    for key in spheres:
        assert distributed[key] == serial[key], key
