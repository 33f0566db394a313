"""Distributed explicit dynamics ("parallel_type": "MPI"): Kratos' explicit
solid beam deck (sm_explicit_solid_beam: 78 triangles, 500 central-difference
steps) split by METIS over 2 and 3 ranks under mpirun, compared with the
serial run; `tessera run` under mpirun (progress once, an error on one rank
stops all); the key's errors in serial runs. The mpirun tests skip where the
build has no MPI or there is no mpirun."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tessera
from tessera.parallel import MpiSkipReason, MpirunCommand, MpirunEnvironment, RunPython

DECK = "explicit_tests/explicit_solid_beam_test_parameters.json"
RUN_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "distributed_explicit_run.py")
needs_mpi = pytest.mark.skipif(MpiSkipReason() is not None, reason=str(MpiSkipReason()))


def run_deck(folder, out, ranks=None, deck=DECK):
    RunPython([RUN_SCRIPT, folder, out, "MPI" if ranks else "OpenMP", deck], ranks)
    return np.load(out)




@needs_mpi
@pytest.mark.parametrize("ranks", [2, 3])
def test_distributed_explicit_beam_equals_serial(case_copy, tmp_path, ranks):
    folder = case_copy("sm_explicit_solid_beam")
    serial = run_deck(folder, tmp_path / "serial.npz")
    distributed = run_deck(folder, tmp_path / "mpi.npz", ranks)
    assert int(distributed["ranks"]) == ranks
    assert float(distributed["time"]) == pytest.approx(5e-4, rel=1e-9)
    # Each rank read only its piece: the pieces' elements add up to the mesh's.
    assert len(distributed["imported"]) == ranks
    assert distributed["imported"].max() < serial["imported"][0]
    assert distributed["imported"].sum() == serial["imported"][0]
    # Every node exactly once (from its owner), the same nodes as the serial run.
    np.testing.assert_array_equal(distributed["ids"], serial["ids"])
    u_serial, u_mpi = serial["u"], distributed["u"]
    scale = np.abs(u_serial).max()
    assert scale > 1e-6  # the beam moved (tip ~ 6e-6 .. 6.6e-5 over 0.5 ms)
    # Not bitwise: a shared node's force is the sum of per-rank partial sums, a
    # different association of the same terms than the serial assembly; the
    # difference is rounding, 1e-12 of the largest displacement (issue 42).
    difference = np.abs(u_mpi - u_serial).max() / scale
    print(f"{ranks} ranks: max |u_mpi - u_serial| / max |u_serial| = {difference:.3e}")
    assert difference <= 1e-12
    # The halo exchange sums in ascending rank order on every rank, so each
    # copy of a shared node (owner and ghosts) holds the same bits.
    copies = {}
    for r in range(ranks):
        for node_id, row in zip(distributed[f"ids_{r}"], distributed[f"u_{r}"]):
            copies.setdefault(int(node_id), []).append(row)
    shared = [rows for rows in copies.values() if len(rows) > 1]
    assert shared, "METIS left no shared node: the test would not exercise the halo exchange"
    for rows in shared:
        for row in rows[1:]:
            np.testing.assert_array_equal(row, rows[0])


def set_key(folder, key_path, value):
    path = os.path.join(folder, DECK)
    with open(path) as f:
        deck = json.load(f)
    target = deck
    for key in key_path[:-1]:
        target = target[key]
    target[key_path[-1]] = value
    with open(path, "w") as f:
        json.dump(deck, f)


def tessera_run(folder, ranks=None, timeout=300):
    command = [sys.executable, "-m", "tessera", "run", folder, "--parameters", DECK]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    if ranks:
        command, env = MpirunCommand(ranks, *command), MpirunEnvironment()
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)


def test_mpi_parallel_type_in_a_serial_run_names_the_key(case_copy):
    folder = case_copy("sm_explicit_solid_beam")
    set_key(folder, ["problem_data", "parallel_type"], "MPI")
    result = tessera_run(folder)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "problem_data.parallel_type" in result.stderr
    assert ("mpirun" in result.stderr) if tessera.MPIBuilt() else ("no MPI" in result.stderr)


def test_unknown_parallel_type_names_the_key(case_copy):
    folder = case_copy("sm_explicit_solid_beam")
    set_key(folder, ["problem_data", "parallel_type"], "Threads")
    result = tessera_run(folder)
    assert result.returncode == 2
    assert "problem_data.parallel_type" in result.stderr and "Threads" in result.stderr


@needs_mpi
def test_tessera_run_under_mpirun_reports_once(case_copy):
    folder = case_copy("sm_explicit_solid_beam")
    set_key(folder, ["problem_data", "parallel_type"], "MPI")
    result = tessera_run(folder, ranks=2)
    assert result.returncode == 0, result.stdout + result.stderr
    # the summary line of the progress reporter (not a TTY), from rank 0 only
    summaries = [line for line in result.stderr.splitlines() if "steps" in line]
    assert len(summaries) == 1, result.stderr


@needs_mpi
def test_implicit_solver_under_mpi_runs_with_petsc_else_is_a_clear_error(case_copy):
    # The implicit solvers run distributed with PETSc
    # (test_structural_distributed_implicit.py compares them with serial runs);
    # a build without PETSc says so, from every rank.
    folder = case_copy("sm_explicit_solid_beam")
    set_key(folder, ["problem_data", "parallel_type"], "MPI")
    set_key(folder, ["solver_settings", "time_integration_method"], "implicit")
    set_key(folder, ["solver_settings", "scheme_type"], "bossak")
    set_key(folder, ["problem_data", "end_time"], 5e-5)
    result = tessera_run(folder, ranks=2)
    if tessera.PetscBuilt():
        assert result.returncode == 0, result.stdout + result.stderr
    else:
        assert result.returncode != 0
        assert "PETSc" in result.stderr and "on rank" in result.stderr


@needs_mpi
def test_an_error_on_one_rank_stops_all_ranks(case_copy):
    # The tip node 61 lies in one part: only the rank(s) holding it check it,
    # and a wrong expected value fails there at the first step while the other
    # rank waits in the next halo exchange; without MPI_Abort it would wait
    # until the timeout.
    folder = case_copy("sm_explicit_solid_beam")
    set_key(folder, ["problem_data", "parallel_type"], "MPI")
    set_key(folder, ["processes", "check_analytic_results_process", 0, "Parameters", "value"], "1.0")
    result = tessera_run(folder, ranks=3, timeout=120)
    assert result.returncode != 0
    assert "check failed on rank" in result.stderr, result.stderr


VTK_OUTPUT = {"python_module": "vtk_output_process", "kratos_module": "KratosMultiphysics",
              "Parameters": {"model_part_name": "Structure", "output_control_type": "step",
                             "output_interval": 250, "output_path": "vtk_output", "file_format": "ascii",
                             "output_precision": 17, "write_ids": True,
                             "nodal_solution_step_data_variables": ["DISPLACEMENT"]}}


def read_ascii_vtu(path):
    """NODE_ID and DISPLACEMENT of an ascii .vtu piece, and its cell count."""
    import re
    with open(path) as f:
        text = f.read()
    cells = int(re.search(r'NumberOfCells="(\d+)"', text).group(1))

    def array(name):
        body = re.search(r'<DataArray[^>]*Name="%s"[^>]*>(.*?)</DataArray>' % name, text, re.S).group(1)
        return np.array(body.split(), dtype=float)
    return array("NODE_ID").astype(np.int64), array("DISPLACEMENT").reshape(-1, 3), cells


@needs_mpi
def test_vtk_output_of_a_distributed_run_is_merged_per_step(case_copy):
    import re
    folder = case_copy("sm_explicit_solid_beam")
    set_key(folder, ["problem_data", "parallel_type"], "MPI")
    set_key(folder, ["output_processes"], {"vtk_output": [VTK_OUTPUT]})
    result = tessera_run(folder, ranks=2)
    assert result.returncode == 0, result.stdout + result.stderr
    out = os.path.join(folder, "vtk_output")
    # steps 250 and 500: each rank's piece, one .pvtu per step, one .pvd
    for step in (250, 500):
        with open(os.path.join(out, f"Structure_{step}.pvtu")) as f:
            pvtu = f.read()
        assert re.findall(r'<Piece Source="([^"]+)"', pvtu) == [f"Structure_0_{step}.vtu",
                                                               f"Structure_1_{step}.vtu"]
        assert re.search(r'<PDataArray[^>]*Name="DISPLACEMENT"[^>]*NumberOfComponents="3"', pvtu)
        pieces = [read_ascii_vtu(os.path.join(out, f"Structure_{r}_{step}.vtu")) for r in range(2)]
        # the mesh's 78 triangles (its README says 80; the .mdpa has 78) once over
        # the pieces; every node of the 62, shared
        # ones in both pieces with the same values
        assert sum(cells for _, _, cells in pieces) == 78
        values = {}
        for ids, u, _ in pieces:
            for node_id, row in zip(ids, u):
                values.setdefault(int(node_id), []).append(row)
        assert sorted(values) == list(range(1, 63))
        assert any(len(rows) == 2 for rows in values.values())
        for rows in values.values():
            np.testing.assert_array_equal(rows[0], rows[-1])
    with open(os.path.join(out, "Structure.pvd")) as f:
        pvd = f.read()
    assert re.findall(r'file="([^"]+)"', pvd) == ["Structure_250.pvtu", "Structure_500.pvtu"]
    # ParaView itself (where installed: python3-paraview) reads the merged series
    import shutil
    if shutil.which("pvbatch"):
        script = os.path.join(folder, "read_pvd.py")
        with open(script, "w") as f:
            f.write(PVBATCH_READ)
        read = subprocess.run(["pvbatch", script, os.path.join(out, "Structure.pvd")],
                              capture_output=True, text=True, timeout=300)
        assert read.returncode == 0, read.stdout + read.stderr
        assert re.findall(r"cells (\d+)", read.stdout) == ["78", "78"], read.stdout


PVBATCH_READ = """
import sys
from paraview.simple import PVDReader, UpdatePipeline, servermanager
reader = PVDReader(FileName=sys.argv[1])
for t in reader.TimestepValues:
    UpdatePipeline(time=t, proxy=reader)
    print("time", t, "cells", servermanager.Fetch(reader).GetNumberOfCells())
"""


@needs_mpi
def test_openmp_deck_on_several_ranks_is_a_clear_error(case_copy):
    # Each rank would run the whole problem and write the same files.
    folder = case_copy("sm_explicit_solid_beam")
    result = tessera_run(folder, ranks=2)
    assert result.returncode != 0
    assert "problem_data.parallel_type" in result.stderr and "mpirun started 2 ranks" in result.stderr


def gid_blocks(path, begin, end):
    """{id: the rest of the line's words} of every line between `begin` and
    `end` in a GiD ASCII file (a mesh's Elements, the last result's Values)."""
    rows, inside = {}, False
    with open(path) as f:
        for line in f:
            if line.startswith(begin):
                inside, rows = True, {}
            elif line.startswith(end):
                inside = False
            elif inside and line.split() and line.split()[0].isdigit():
                words = line.split()
                rows[int(words[0])] = [float(w) for w in words[1:]]
    return rows


@needs_mpi
def test_gid_output_of_a_distributed_run_writes_one_piece_per_rank(case_copy):
    # As Kratos' distributed GiD output: each rank writes its elements (and
    # their nodes) to <output_name>_<rank>.post.*; the pieces' elements
    # partition the serial mesh's, and the nodes' last displacements are the
    # serial run's to rounding (1e-12 of the largest: the explicit run sums
    # the cut's nodal forces per rank, see the beam test above).
    folder = case_copy("sm_explicit_solid_beam")
    gid = {"python_module": "gid_output_process", "kratos_module": "KratosMultiphysics",
           "Parameters": {"model_part_name": "Structure", "output_name": "beam",
                          "postprocess_parameters": {"result_file_configuration": {
                              "output_control_type": "step", "output_interval": 250,
                              "nodal_results": ["DISPLACEMENT"]}}}}
    set_key(folder, ["output_processes"], {"gid_output": [gid]})
    serial = tessera_run(folder)
    assert serial.returncode == 0, serial.stderr
    serial_elements = gid_blocks(os.path.join(folder, "beam.post.msh"), "Elements", "End Elements")
    serial_u = gid_blocks(os.path.join(folder, "beam.post.res"), "Values", "End Values")
    set_key(folder, ["problem_data", "parallel_type"], "MPI")
    result = tessera_run(folder, ranks=2)
    assert result.returncode == 0, result.stderr
    elements, u = {}, {}
    for rank in range(2):
        piece = gid_blocks(os.path.join(folder, f"beam_{rank}.post.msh"), "Elements", "End Elements")
        assert piece and not set(piece) & set(elements)  # each element in one piece
        elements.update(piece)
        u.update(gid_blocks(os.path.join(folder, f"beam_{rank}.post.res"), "Values", "End Values"))
    assert elements == serial_elements
    assert set(u) == set(serial_u)
    largest = max(np.abs(v).max() for v in serial_u.values())
    assert largest > 0.0
    for node, value in serial_u.items():
        np.testing.assert_allclose(u[node], value, rtol=0, atol=1e-12 * largest)


@needs_mpi
def test_checkpoints_of_a_distributed_run_one_file_per_rank_and_restart(case_copy):
    # `tessera run` under mpirun with SaveRestart: each rank writes its own
    # file (tessera.checkpoint.RankFile); `--restart` with the step's name
    # continues on 2 ranks (each loading its file) and on 3 (the files
    # merged, each rank loading its new piece: resized_checkpoint.py),
    # leaving no temporary file in the checkpoint folder
    # (tests/python/test_mpi_checkpoint.py compares the results).
    folder = case_copy("sm_explicit_solid_beam")
    set_key(folder, ["problem_data", "parallel_type"], "MPI")
    set_key(folder, ["restart_options"], {"SaveRestart": True, "RestartFrequency": 250,
                                          "checkpoint_folder": "ckpt"})
    result = tessera_run(folder, ranks=2)
    assert result.returncode == 0, result.stdout + result.stderr
    assert sorted(os.listdir(os.path.join(folder, "ckpt"))) == \
        [f"checkpoint_{step:09d}.rank{r}of2.h5" for step in (250, 500) for r in (0, 1)]
    restart = os.path.join(folder, "ckpt", "checkpoint_000000250.h5")
    command = [sys.executable, "-m", "tessera", "run", folder, "--parameters", DECK, "--restart", restart]
    resumed = subprocess.run(MpirunCommand(2, *command), env=MpirunEnvironment(), capture_output=True,
                             text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    resized = subprocess.run(MpirunCommand(3, *command), env=MpirunEnvironment(), capture_output=True,
                             text=True, timeout=300)
    assert resized.returncode == 0, resized.stdout + resized.stderr
    # It began after step 250 (it wrote only the 500th's files, on 3 ranks).
    assert sorted(os.listdir(os.path.join(folder, "ckpt"))) == \
        sorted(f"checkpoint_{step:09d}.rank{r}of{n}.h5" for step, n in ((250, 2), (500, 2), (500, 3))
               for r in range(n))


HEXA_DECK = "patch_test/total_lagrangian/patch_test_3D_tension_hexa_parameters.json"


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 3])
def test_distributed_explicit_hexa_with_a_surface_load_equals_serial(case_copy, tmp_path, ranks):
    # Kratos' 3D total-Lagrangian hexa patch (8 hexahedra, one
    # SurfaceLoadCondition3D4N) turned into an explicit dynamic run: the load
    # condition goes to exactly one rank, so it must be counted once.
    folder = case_copy("sm_patch_tests")
    path = os.path.join(folder, HEXA_DECK)
    with open(path) as f:
        deck = json.load(f)
    deck["problem_data"]["end_time"] = 0.3
    deck["solver_settings"].update({"solver_type": "Dynamic", "time_integration_method": "explicit",
                                    "time_stepping": {"time_step": 1e-3}})
    deck["processes"]["check_analytic_results_process"] = []
    with open(path, "w") as f:
        json.dump(deck, f)
    serial = run_deck(folder, tmp_path / "serial.npz", deck=HEXA_DECK)
    distributed = run_deck(folder, tmp_path / "mpi.npz", ranks, deck=HEXA_DECK)
    assert float(distributed["time"]) == pytest.approx(0.3, rel=1e-9)
    np.testing.assert_array_equal(distributed["ids"], serial["ids"])
    scale = np.abs(serial["u"]).max()
    assert scale > 1e-6  # the load moved the block
    difference = np.abs(distributed["u"] - serial["u"]).max() / scale
    print(f"hexa, {ranks} ranks: max |u_mpi - u_serial| / max |u_serial| = {difference:.3e}")
    assert difference <= 1e-12  # rounding only (see the beam test)


@needs_mpi
@pytest.mark.parametrize("resultant", [False, True], ids=["nodes", "resultant"])
def test_json_output_of_a_distributed_run_is_the_serial_runs_file(case_copy, resultant):
    # Kratos' json_output_process on the whole beam: rank 0 writes one file,
    # each node's values from the rank that owns it (shared nodes once), the
    # same nodes, times and values as the serial run's file; the values
    # within the distributed explicit run's 1e-12 of the largest (above).
    files = {}
    folder = case_copy("sm_explicit_solid_beam")
    for ranks in (None, 3):
        set_key(folder, ["problem_data", "parallel_type"], "MPI" if ranks else "OpenMP")
        set_key(folder, ["processes", "list_other_processes"], [{
            "python_module": "json_output_process", "kratos_module": "KratosMultiphysics",
            "process_name": "JsonOutputProcess",
            "Parameters": {"model_part_name": "Structure", "output_variables": ["DISPLACEMENT", "VELOCITY_Y"],
                           "output_file_name": "beam_results.json", "time_frequency": 1e-4,
                           "resultant_solution": resultant}}])
        result = tessera_run(folder, ranks=ranks)
        assert result.returncode == 0, result.stdout + result.stderr
        with open(os.path.join(folder, "beam_results.json")) as f:
            files[ranks] = json.load(f)
    serial, distributed = files[None], files[3]
    assert distributed.keys() == serial.keys()
    assert len(serial["TIME"]) >= 4 and distributed["TIME"] == serial["TIME"]
    if not resultant:
        assert len(serial) == 1 + 62  # TIME and every node of the beam
    records = [key for key in serial if key != "TIME"]
    # each variable's largest value over the run (the 2D beam's DISPLACEMENT_Z
    # is 0: compared exactly)
    scale = {name: max(np.abs(serial[key][name]).max() for key in records)
             for name in serial[records[0]]}
    assert scale["DISPLACEMENT_Y"] > 1e-7 and scale["VELOCITY_Y"] > 0.0  # the beam moved
    for key in records:
        assert distributed[key].keys() == serial[key].keys(), key
        for name, values in serial[key].items():
            np.testing.assert_allclose(distributed[key][name], values, rtol=0.0, atol=1e-12 * scale[name],
                                       err_msg=f"{key} {name}")


@needs_mpi
def test_hdf5_output_of_a_distributed_run_is_pieces_and_one_xdmf_series(case_copy):
    # hdf5_output_process on the beam, 3 ranks: each rank writes its METIS
    # piece (Structure_<rank>.h5, .xdmf), rank 0 one Structure.xdmf whose
    # every step is the spatial collection of the three pieces. Over the
    # pieces every element once, every node with the serial run's values
    # (1e-12 of the largest, the distributed explicit run's tolerance above).
    import xml.etree.ElementTree as ElementTree
    h5py = pytest.importorskip("h5py")
    folder = case_copy("sm_explicit_solid_beam")
    files = {}
    for ranks in (None, 3):
        set_key(folder, ["problem_data", "parallel_type"], "MPI" if ranks else "OpenMP")
        set_key(folder, ["output_processes"], {"hdf5": [{
            "python_module": "hdf5_output_process", "kratos_module": "KratosMultiphysics",
            "Parameters": {"model_part_name": "Structure", "output_path": f"h5_{ranks or 1}",
                           "output_interval": 100, "nodal_solution_step_data_variables": ["DISPLACEMENT"]}}]})
        result = tessera_run(folder, ranks=ranks)
        assert result.returncode == 0, result.stdout + result.stderr
        files[ranks] = os.path.join(folder, f"h5_{ranks or 1}")
    assert sorted(os.listdir(files[3])) == sorted([f"Structure_{r}.{e}" for r in range(3) for e in ("h5", "xdmf")]
                                                  + ["Structure.xdmf"])
    series = ElementTree.parse(os.path.join(files[3], "Structure.xdmf")).getroot().find("Domain/Grid")
    steps = series.findall("Grid")
    assert len(steps) == 5 and all(s.get("CollectionType") == "Spatial" for s in steps)
    for k, step in enumerate(steps):
        assert float(step.find("Time").get("Value")) == pytest.approx((k + 1) * 100 * 1e-6, rel=1e-9)
        grids = step.findall("Grid")
        assert len(grids) == 3
        for rank, grid in enumerate(grids):
            assert all(item.text.startswith(f"Structure_{rank}.h5:") for item in grid.iter("DataItem"))

    def read(path):
        with h5py.File(path, "r") as f:
            ids = f["ModelData/Nodes/Local/Ids"][()]
            elements = np.concatenate([g["Ids"][()] for g in f["ModelData/Elements"].values()
                                       if isinstance(g, h5py.Group) and "Ids" in g])
            results = {label: f[f"ResultsData/{label}/NodalSolutionStepData/DISPLACEMENT"][()]
                       for label in f["ResultsData"]}
        return ids, elements, results

    serial_ids, serial_elements, serial_results = read(os.path.join(files[None], "Structure.h5"))
    pieces = [read(os.path.join(files[3], f"Structure_{r}.h5")) for r in range(3)]
    elements = np.concatenate([p[1] for p in pieces])
    assert sorted(elements.tolist()) == sorted(serial_elements.tolist())  # each element once
    assert set(np.concatenate([p[0] for p in pieces]).tolist()) == set(serial_ids.tolist())
    scale = max(np.abs(values).max() for values in serial_results.values())
    assert scale > 1e-7  # the beam moved
    row = {int(i): k for k, i in enumerate(serial_ids)}
    for ids, _, results in pieces:
        assert results.keys() == serial_results.keys()
        for label, values in results.items():
            expected = serial_results[label][[row[int(i)] for i in ids]]
            np.testing.assert_allclose(values, expected, rtol=0.0, atol=1e-12 * scale, err_msg=label)
