"""The "petsc" linear solver (PETSc's Krylov methods with algebraic multigrid)
in serial runs: Kratos' structural patch decks solved with it give the direct
solver's displacements within 1e-8 relative (issue 42); its settings are
checked (unknown key or value: an error naming it and the choices). The runs
skip where the build has no PETSc."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tessera
from tessera import _structural

RUN_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "distributed_implicit_run.py")
needs_petsc = pytest.mark.skipif(not tessera.PetscBuilt(),
                                 reason="this build of Tessera has no PETSc (TESSERA_WITH_PETSC is OFF: "
                                        "petsc-dev missing)")
SHEAR_2D = "patch_test/small_disp/patch_test_2D_shear_tri_parameters.json"
HEXA_3D = "patch_test/total_lagrangian/patch_test_3D_tension_hexa_parameters.json"


def run(folder, out, deck, *overrides):
    command = [sys.executable, RUN_SCRIPT, folder, str(out), "OpenMP", deck, *overrides]
    result = subprocess.run(command, env=dict(os.environ, OMP_NUM_THREADS="1"), capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return np.load(out)


def solver_setting(settings):
    return "solver_settings.linear_solver_settings=" + json.dumps(settings)


@needs_petsc
@pytest.mark.parametrize("deck", [SHEAR_2D, HEXA_3D])
@pytest.mark.parametrize("ksp, pc", [("cg", "gamg"), ("cg", "hypre"), ("gmres", "gamg")])
def test_petsc_amg_equals_direct_solver(case_copy, tmp_path, deck, ksp, pc):
    folder = case_copy("sm_patch_tests")
    direct = run(folder, tmp_path / "direct.npz", deck)
    amg = run(folder, tmp_path / "amg.npz", deck,
              solver_setting({"solver_type": "petsc", "ksp_type": ksp, "pc_type": pc, "tolerance": 1e-12}))
    assert str(amg["solver"]).startswith(f"petsc ({ksp}, {pc}")
    np.testing.assert_array_equal(amg["ids"], direct["ids"])
    scale = np.abs(direct["u"]).max()
    assert scale > 1e-4  # the patch deforms (shear 7.8e-3, tension 2.73e-3)
    # Relative residual 1e-12 bounds the relative error by cond(K) * 1e-12; the
    # patch meshes' stiffness is far better conditioned than 1e4.
    difference = np.abs(amg["u"] - direct["u"]).max() / scale
    print(f"{deck} {ksp}/{pc}: max |u_petsc - u_lu| / max |u_lu| = {difference:.3e}")
    assert difference <= 1e-8


@pytest.mark.parametrize("key, value, expected", [
    ("pc_type", "multigrid", "\"gamg\", \"hypre\""),
    ("ksp_type", "minres", "\"cg\", \"gmres\""),
    ("factor_package", "pardiso", "\"mumps\""),
])
def test_petsc_unknown_value_names_the_key_and_choices(key, value, expected):
    settings = tessera.Parameters(json.dumps({"solver_type": "petsc", key: value}))
    with pytest.raises(tessera.Error) as error:
        _structural.CreateLinearSolver(settings)
    assert f"'{key}'" in str(error.value) and value in str(error.value) and expected in str(error.value)


def test_petsc_unknown_key_is_named():
    settings = tessera.Parameters('{"solver_type": "petsc", "preconditioner": "gamg"}')
    with pytest.raises(tessera.Error) as error:
        _structural.CreateLinearSolver(settings)
    assert "preconditioner" in str(error.value)


def test_petsc_preonly_needs_lu():
    settings = tessera.Parameters('{"solver_type": "petsc", "ksp_type": "preonly", "pc_type": "gamg"}')
    with pytest.raises(tessera.Error, match="preonly"):
        _structural.CreateLinearSolver(settings)


def test_petsc_gamg_threshold_out_of_range_names_the_key():
    settings = tessera.Parameters('{"solver_type": "petsc", "gamg_threshold": 1.5}')
    with pytest.raises(tessera.Error) as error:
        _structural.CreateLinearSolver(settings)
    assert "'gamg_threshold'" in str(error.value) and "1.5" in str(error.value)


@pytest.mark.skipif(tessera.PetscBuilt(), reason="the build has PETSc")
def test_petsc_in_a_build_without_it_says_so():
    with pytest.raises(tessera.Error, match="no PETSc"):
        _structural.CreateLinearSolver(tessera.Parameters('{"solver_type": "petsc"}'))


@needs_petsc
@pytest.mark.parametrize("pc", ["gamg", "hypre"])
def test_petsc_amg_on_a_cantilever_block_equals_direct_solver(tmp_path, pc):
    # The CalculiX benchmark's clamped block, 40 x 8 x 4 hexahedra (5,535 dofs,
    # 5,400 free): enough levels for the multigrid to be one. Linear static.
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "benchmarks"))
    from calculix_static_benchmark import block_mesh, write_kratos_deck
    mesh = block_mesh(40, 8, 4, (10.0, 2.0, 1.0))
    folder = str(tmp_path / "block")
    write_kratos_deck(folder, mesh, json.dumps({"solver_type": "sparse_lu"}))
    deck = "ProjectParameters.json"
    direct = run(folder, tmp_path / "direct.npz", deck)
    amg = run(folder, tmp_path / "amg.npz", deck,
              solver_setting({"solver_type": "petsc", "ksp_type": "cg", "pc_type": pc, "tolerance": 1e-12}))
    np.testing.assert_array_equal(amg["ids"], direct["ids"])
    scale = np.abs(direct["u"]).max()
    assert scale > 1e-3  # tip deflection ~ 9.5e-3 (docs/performance.md, finer mesh)
    # The block's cond(K) is ~1e5 at this size: 1e-12 on the residual leaves
    # at most ~1e-7 on u, in practice far less; the issue asks 1e-8.
    difference = np.abs(amg["u"] - direct["u"]).max() / scale
    print(f"block 40x8x4 cg/{pc}: max |u_petsc - u_lu| / max |u_lu| = {difference:.3e}")
    assert difference <= 1e-8
