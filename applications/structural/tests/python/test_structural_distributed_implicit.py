"""Distributed implicit structural solvers ("parallel_type": "MPI" with the
static and implicit dynamic solvers): each rank assembles its METIS piece,
PETSc solves the global system (DistributedBuilderAndSolver), Newton iterates
with global norms. Kratos' decks on 2 and 3 ranks against the serial run
(displacements within 1e-8 relative, issue 42's tolerance):

* the 2D small-displacement shear patch, linear strategy (one solve);
* the 3D total-Lagrangian tension hexa patch, Newton (large displacement);
* the hyperelastic total-Lagrangian pendulum, Newton with Bossak and with
  Newmark over 60 steps (nonlinear dynamics).

The deck's direct solver maps to MUMPS' distributed LU; one case also runs
PETSc's CG with BoomerAMG. The runs skip where the build has no MPI or no
PETSc, or there is no mpirun."""
import json
import os
import sys

import numpy as np
import pytest

import tessera
from tessera.parallel import MpiSkipReason, RunPython

RUN_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "distributed_implicit_run.py")


def _skip_reason():
    return MpiSkipReason() or (None if tessera.PetscBuilt() else
                               "this build of Tessera has no PETSc (TESSERA_WITH_PETSC is OFF: petsc-dev missing)")


needs_mpi_petsc = pytest.mark.skipif(_skip_reason() is not None, reason=str(_skip_reason()))

SHEAR_2D = "patch_test/small_disp/patch_test_2D_shear_tri_parameters.json"
HEXA_3D = "patch_test/total_lagrangian/patch_test_3D_tension_hexa_parameters.json"
PENDULUM = "pendulus_test/pendulus_TL_test_parameters.json"


def run(folder, out, deck, ranks=None, *overrides):
    RunPython([RUN_SCRIPT, folder, out, "MPI" if ranks else "OpenMP", deck, *overrides], ranks, timeout=600)
    return np.load(out)


def compare(serial, distributed, ranks, label):
    assert int(distributed["ranks"]) == ranks
    assert float(distributed["time"]) == pytest.approx(float(serial["time"]), rel=1e-12)
    # every node once (from its owner), the same nodes as the serial run
    np.testing.assert_array_equal(distributed["ids"], serial["ids"])
    scale = np.abs(serial["u"]).max()
    assert scale > 1e-4, label  # the structure moved
    difference = np.abs(distributed["u"] - serial["u"]).max() / scale
    print(f"{label}, {ranks} ranks ({distributed['solver']}): max |u_mpi - u_serial| / max |u_serial| = "
          f"{difference:.3e}")
    # Not bitwise: PETSc adds the ranks' partial rows in its own order, and
    # MUMPS' distributed LU orders the elimination differently from Eigen's
    # SparseLU: the difference is rounding times the matrix' conditioning.
    assert difference <= 1e-8
    return difference


@needs_mpi_petsc
@pytest.mark.parametrize("ranks", [2, 3])
@pytest.mark.parametrize("deck, case, overrides", [
    (SHEAR_2D, "sm_patch_tests", ['solver_settings.analysis_type="linear"']),
    (HEXA_3D, "sm_patch_tests", []),
    (PENDULUM, "sm_pendulus_hyperelastic_TL", []),
    # Newmark leaves Kratos' Bossak reference values: their check goes
    (PENDULUM, "sm_pendulus_hyperelastic_TL", ['solver_settings.scheme_type="newmark"',
                                               "processes.json_check_process=[]"]),
], ids=["shear2d-linear", "hexa3d-newton", "pendulum-bossak", "pendulum-newmark"])
def test_distributed_implicit_equals_serial(case_copy, tmp_path, ranks, deck, case, overrides):
    folder = case_copy(case)
    serial = run(folder, tmp_path / "serial.npz", deck, None, *overrides)
    distributed = run(folder, tmp_path / "mpi.npz", deck, ranks, *overrides)
    assert "distributed" in str(distributed["solver"])
    compare(serial, distributed, ranks, os.path.basename(deck) + " " + " ".join(overrides))


@needs_mpi_petsc
@pytest.mark.parametrize("pc", ["hypre", "gamg"])
def test_distributed_implicit_with_petsc_amg_equals_serial(case_copy, tmp_path, pc):
    # CG with hypre's BoomerAMG or GAMG (with the rigid-body modes of the
    # distributed dofs) at a relative residual of 1e-12: the error is at most
    # cond(K) * 1e-12, far under 1e-8 for the patch's stiffness.
    folder = case_copy("sm_patch_tests")
    amg = json.dumps({"solver_type": "petsc", "ksp_type": "cg", "pc_type": pc, "tolerance": 1e-12})
    serial = run(folder, tmp_path / "serial.npz", HEXA_3D)
    distributed = run(folder, tmp_path / "mpi.npz", HEXA_3D, 2, "solver_settings.linear_solver_settings=" + amg)
    assert str(distributed["solver"]).startswith(f"petsc (cg, {pc}")
    compare(serial, distributed, 2, f"hexa3d cg/{pc}")


@needs_mpi_petsc
@pytest.mark.parametrize("ranks", [2, 3])
@pytest.mark.parametrize("solver", [None, {"solver_type": "petsc", "ksp_type": "cg", "pc_type": "gamg",
                                           "tolerance": 1e-12}], ids=["mumps", "cg-gamg"])
def test_distributed_calculix_benchmark_block_equals_serial(tmp_path, ranks, solver):
    # The CalculiX benchmark's clamped block (its generator), 40 x 8 x 4
    # hexahedra, 5,535 dofs: cut surfaces of hundreds of shared nodes, GAMG
    # with several levels. Serial reference: sparse_lu.
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "benchmarks"))
    from calculix_static_benchmark import block_mesh, write_kratos_deck
    folder = str(tmp_path / "block")
    write_kratos_deck(folder, block_mesh(40, 8, 4, (10.0, 2.0, 1.0)), json.dumps({"solver_type": "sparse_lu"}))
    deck = "ProjectParameters.json"
    overrides = []
    if solver:
        overrides.append("solver_settings.linear_solver_settings=" + json.dumps(solver))
    serial = run(folder, tmp_path / "serial.npz", deck, None)
    distributed = run(folder, tmp_path / "mpi.npz", deck, ranks, *overrides)
    # cond(K) ~ 1e5 here: 1e-12 on the residual leaves <= ~1e-7, in practice ~1e-12
    compare(serial, distributed, ranks, f"block 40x8x4 {solver['pc_type'] if solver else 'mumps'}")
