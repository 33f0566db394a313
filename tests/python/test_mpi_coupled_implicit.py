"""The implicit coupled scheme and Kratos' DEM-first order under MPI
("parallel_type": "MPI"; applications/coupling/python_scripts/
distributed_coupling.py): an implicit structure (Newmark/Bossak, distributed
PETSc solve) with DEM sub-steps, the skin's start and end states gathered
once per structural step for the walls' interpolation, the DEM loads
averaged over the sub-steps per rank and added over the ranks in rank order
before the structure's next solve.

Cases: the plate struck by 16 spheres of mpi_coupled_case.py with a Bossak
structure (30 steps of 1 ms, 10 DEM sub-steps each); the same plate with the
explicit structure in Kratos' DEM-first order; Kratos' ball_and_box deck
(shared/kratos_cases/demstruct_ball_and_box_examples, Newmark, 5,000 DEM
sub-steps per step, inlet spheres) shortened to its first 0.4 s. Each on
2 ranks against the serial run within issue 42's 1e-10 relative. The
structural solve is a direct one on both sides (the decks' default
sparse_lu serially, MUMPS' LU under MPI: rounding-level differences, no
iterative tolerance). The mpirun tests skip where the build has no MPI or
there is no mpirun."""
import json
import math
import os
import shutil
import sys

import numpy as np
import pytest

from tessera.parallel import MpiSkipReason, RunPython

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpi_coupled_case import IMPLICIT_STEPS, IMPLICIT_SUBSTEPS, STEPS, WriteCouplingOptions, \
    WriteImplicitPlateCase, WritePlateCase  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_SCRIPT = os.path.join(HERE, "mpi_coupled_run.py")
CASES = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "kratos_cases"))
needs_mpi = pytest.mark.skipif(MpiSkipReason() is not None, reason=str(MpiSkipReason()))
SPHERE_FIELDS = ("sphere_x", "sphere_VELOCITY", "sphere_ANGULAR_VELOCITY", "sphere_DISPLACEMENT")
STRUCTURE_FIELDS = ("structure_DISPLACEMENT", "structure_VELOCITY", "structure_DEM_NODAL_FORCE")
# issue 42's gate for coupled runs against serial (relative to the field's
# largest value); the structure's linear solver is direct on both sides
# (sparse LU; MUMPS' LU, PETSc preonly/lu), so no solver tolerance enters it
TOLERANCE = 1e-10


def run_case(folder, out, ranks=None, reaction_part=None):
    extra = [reaction_part] if reaction_part else []
    RunPython([RUN_SCRIPT, folder, out, "MPI" if ranks else "OpenMP", *extra], ranks, timeout=600)
    return np.load(out)


def relative_differences(serial, distributed, names, floors=None):
    """{name: max |a - b| over max |a|} (the issue's relative measure);
    `floors` {name: least scale} for a field that may be zero but for
    rounding."""
    result = {}
    for name in names:
        scale = max(np.max(np.abs(serial[name])), (floors or {}).get(name, 0.0))
        assert scale > 0.0, name
        result[name] = float(np.max(np.abs(distributed[name] - serial[name])) / scale)
    return result


def check_same_run(serial, distributed, ranks=2):
    assert int(distributed["ranks"]) == ranks
    assert int(serial["steps"]) == int(distributed["steps"])
    assert int(serial["substeps"]) == int(distributed["substeps"])
    assert float(serial["delta_time"]) == float(distributed["delta_time"])
    np.testing.assert_array_equal(distributed["sphere_ids"], serial["sphere_ids"])
    np.testing.assert_array_equal(distributed["structure_ids"], serial["structure_ids"])


def check_action_reaction(result):
    """Σ DEM_NODAL_FORCE over the skin = -Σ CONTACT_FORCES over the spheres
    (their pair forces cancel; the skin is the only wall), per step (implicit:
    both averaged over the step's sub-steps). Rounding of sums of tens of
    terms: 1e-12 of the largest."""
    scale = np.max(np.abs(result["on_spheres"]))
    assert scale > 0.0
    np.testing.assert_allclose(result["on_structure"], -result["on_spheres"], rtol=0.0, atol=1e-12 * scale)


@needs_mpi
def test_implicit_coupled_plate_on_two_ranks_equals_serial(tmp_path):
    count = WriteImplicitPlateCase(tmp_path / "serial")
    WriteImplicitPlateCase(tmp_path / "mpi")
    serial = run_case(tmp_path / "serial", tmp_path / "serial.npz")
    distributed = run_case(tmp_path / "mpi", tmp_path / "mpi.npz", 2)
    check_same_run(serial, distributed)
    assert int(serial["steps"]) == IMPLICIT_STEPS and int(serial["substeps"]) == IMPLICIT_SUBSTEPS
    assert len(serial["sphere_ids"]) == count
    # The case is alive: the plate dented, the skin loaded, spheres near the
    # cut ghosts on the other rank and some changing owner.
    assert np.max(np.abs(serial["structure_DISPLACEMENT"][:, 2])) > 1e-4
    assert np.max(np.abs(serial["on_structure"][:, 2])) > 10.0
    assert int(distributed["ghosts"]) > 0 and int(distributed["migrations"]) > 0
    differences = relative_differences(serial, distributed, SPHERE_FIELDS + STRUCTURE_FIELDS + ("on_structure",))
    bitwise = all(np.array_equal(serial[name], distributed[name]) for name in SPHERE_FIELDS + STRUCTURE_FIELDS)
    print(f"implicit plate, 2 ranks: {int(distributed['ghosts'])} ghosts, {int(distributed['migrations'])} "
          f"owner changes; bitwise {bitwise}; largest relative differences {differences}")
    for name, difference in differences.items():
        assert difference <= TOLERANCE, name
    # The structure's loads are the sub-steps' average: equal and opposite to
    # the spheres' averaged skin forces, on both runs ...
    for result in (serial, distributed):
        check_action_reaction(result)
    # ... which the last sub-step's force alone is not (the check tells an
    # average from a sample: the forces change within a structural step).
    last, average = distributed["on_spheres_last_substep"], distributed["on_spheres"]
    assert np.max(np.abs(last - average)) > 1e-2 * np.max(np.abs(average))


@needs_mpi
def test_dem_first_order_plate_on_two_ranks_equals_serial(tmp_path):
    """Kratos' CoSimulation order (time_integration "explicit_dem_first": the
    DEM step with the walls where the structure's last step left them, then
    the structure's step) on the explicit plate of test_mpi_coupled.py."""
    for name in ("serial", "mpi"):
        WritePlateCase(tmp_path / name)
        WriteCouplingOptions(tmp_path / name, {"time_integration": "explicit_dem_first"})
    serial = run_case(tmp_path / "serial", tmp_path / "serial.npz")
    distributed = run_case(tmp_path / "mpi", tmp_path / "mpi.npz", 2)
    check_same_run(serial, distributed)
    assert int(serial["steps"]) == STEPS
    assert np.max(np.abs(serial["structure_DISPLACEMENT"][:, 2])) > 1e-4
    assert int(distributed["ghosts"]) > 0 and int(distributed["migrations"]) > 0
    # The order is not the default one: the same case in the default order differs.
    WritePlateCase(tmp_path / "default")
    default = run_case(tmp_path / "default", tmp_path / "default.npz")
    assert relative_differences(serial, default, ("structure_DISPLACEMENT",))["structure_DISPLACEMENT"] > 1e-6
    differences = relative_differences(serial, distributed, SPHERE_FIELDS + STRUCTURE_FIELDS)
    print(f"DEM-first plate, 2 ranks: largest relative differences {differences}")
    for name, difference in differences.items():
        assert difference <= TOLERANCE, name
    for result in (serial, distributed):
        check_action_reaction(result)


BOX_WEIGHT = 7850.0 * 0.5 * 9.81
BALL_AND_BOX_END = 0.4


def write_short_ball_and_box(folder):
    """Kratos' ball_and_box deck (shared/kratos_cases/demstruct_ball_and_box_examples)
    unchanged but for its end, 0.4 s (4 structural steps of 0.1 s, 20,000 DEM
    sub-steps; the first inlet sphere lands on the box at 0.25 s), its
    output (GiD files of both sides, off) and echo levels."""
    shutil.copytree(os.path.join(CASES, "demstruct_ball_and_box_examples"), folder)
    for name in os.listdir(folder):
        os.chmod(os.path.join(folder, name), 0o644)
    path = os.path.join(folder, "ProjectParameters.json")
    with open(path) as f:
        structural = json.load(f)
    structural["problem_data"].update({"end_time": BALL_AND_BOX_END, "echo_level": 0})
    structural["solver_settings"]["echo_level"] = 0
    structural["output_processes"] = {}
    with open(path, "w") as f:
        json.dump(structural, f, indent=2)
    path = os.path.join(folder, "ProjectParametersDEM.json")
    with open(path) as f:
        dem = json.load(f)
    dem.update({"FinalTime": BALL_AND_BOX_END, "OutputTimeStep": 10.0, "GraphExportFreq": 10.0})
    with open(path, "w") as f:
        json.dump(dem, f, indent=2)
    with open(os.path.join(folder, "ProjectParametersCoupling.json"), "w") as f:
        json.dump({"echo_level": 0}, f)


@needs_mpi
def test_ball_and_box_deck_on_two_ranks_equals_serial(tmp_path):
    """The deck's check (test_coupling_kratos_decks.py, README): the base
    reaction carries the box's weight and the spheres' loads. Per step on
    2 ranks: the reaction equal to the serial run's within 1e-10 (of the box's
    weight), the spheres and the structure too; before the first landing the
    reaction is the box's weight (1e-3, the serial test's tolerance for the
    empty box); the skin loads are minus the spheres' averaged skin forces."""
    for name in ("serial", "mpi"):
        write_short_ball_and_box(str(tmp_path / name))
    part = "DISPLACEMENT_Displacement_Auto1"
    serial = run_case(tmp_path / "serial", tmp_path / "serial.npz", reaction_part=part)
    distributed = run_case(tmp_path / "mpi", tmp_path / "mpi.npz", 2, reaction_part=part)
    check_same_run(serial, distributed)
    assert int(serial["steps"]) == round(BALL_AND_BOX_END / 0.1) and int(serial["substeps"]) == 5000
    np.testing.assert_array_equal(distributed["sphere_counts"], serial["sphere_counts"])
    assert serial["sphere_counts"][-1] >= 2  # the inlet injected
    z = serial["reactions"][:, 2]
    loaded = np.abs(serial["on_structure"][:, 2]) > 0.0
    assert loaded[-1] and not loaded[0]  # a sphere landed between
    assert z[0] == pytest.approx(BOX_WEIGHT, rel=1e-3)
    difference = float(np.max(np.abs(distributed["reactions"] - serial["reactions"])) / BOX_WEIGHT)
    # The spheres fall straight onto the box's top and have not rolled by
    # 0.4 s: their angular velocities are rounding (about 1e-18 rad/s),
    # measured against the spin of a sphere rolling at their largest speed.
    spin = np.max(np.abs(serial["sphere_VELOCITY"])) / 0.2
    differences = relative_differences(serial, distributed, SPHERE_FIELDS + STRUCTURE_FIELDS,
                                       {"sphere_ANGULAR_VELOCITY": spin})
    print(f"ball_and_box to {BALL_AND_BOX_END} s, 2 ranks: base reactions {z.tolist()} N; relative "
          f"difference of the reactions {difference:.3g}, of the fields {differences}")
    assert difference <= TOLERANCE
    for name, value in differences.items():
        assert value <= TOLERANCE, name
    for result in (serial, distributed):
        check_action_reaction(result)
