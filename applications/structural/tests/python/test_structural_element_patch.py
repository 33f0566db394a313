"""Patch tests: a homogeneous deformation u = A X imposed on the boundary of a
distorted mesh must be reproduced exactly inside, by every element.

Why exact: every element here interpolates linear fields exactly, and a
homogeneous deformation with constant stress satisfies equilibrium
element-wise (for the total-Lagrangian elements, constant F gives constant S
and P, so the internal forces of interior nodes cancel at any strain). So
the finite-element solution equals the exact one up to rounding and solver
tolerance. Tolerance 1e-10 (absolute, on displacements of size 1e-3 to 0.3):
the brief's; rounding of a sparse LU solve on these 10-100 dof systems is
about 1e-15 relative, and the Newton iterations stop at |dx| <= 1e-13 |x|.
"""
import numpy as np
import pytest

import tessera
import tessera.structural as structural

from structural_meshes import add_dofs, distorted_grid, new_model_part, set_material, strategy

# A general displacement gradient (stretch, shear and rotation parts).
A_SMALL = 1e-3 * np.array([[1.0, 0.4, -0.3], [-0.2, -0.7, 0.5], [0.6, 0.1, 0.9]])
A_FINITE = 100.0 * A_SMALL  # |A| ~ 0.1: strains of 10 %
LAWS_2D = ("LinearElasticPlaneStrain2DLaw", "LinearElasticPlaneStress2DLaw")
LAW_3D = "LinearElastic3DLaw"
GEOMETRIES = ("2D3N", "2D4N", "3D4N", "3D8N")


def hooke(law, young=1000.0, nu=0.3):
    if law == "LinearElasticPlaneStress2DLaw":
        f = young / (1 - nu * nu)
        return f * np.array([[1, nu, 0], [nu, 1, 0], [0, 0, (1 - nu) / 2]])
    lam = young * nu / ((1 + nu) * (1 - 2 * nu))
    mu = young / (2 * (1 + nu))
    n = 3 if law.endswith("2DLaw") else 6
    d = 3 if n == 6 else 2
    D = np.zeros((n, n))
    D[:d, :d] = lam
    for i in range(d):
        D[i, i] += 2 * mu
    for i in range(d, n):
        D[i, i] = mu
    return D


def voigt_strain(E):
    if E.shape == (2, 2):
        return np.array([E[0, 0], E[1, 1], 2 * E[0, 1]])
    return np.array([E[0, 0], E[1, 1], E[2, 2], 2 * E[0, 1], 2 * E[1, 2], 2 * E[0, 2]])


def run_patch(formulation, geometry, law, A):
    dim = int(geometry[0])
    model = tessera.Model()
    mp = new_model_part(model)
    set_material(mp.GetProperties(1), law, thickness=0.5 if dim == 2 else None)
    boundary = distorted_grid(mp, f"{formulation}Element{geometry}")
    add_dofs(mp)
    grad = A[:dim, :dim]
    for node in mp.Nodes:
        X = np.array(node.GetInitialPosition())[:dim]
        if node.Id in boundary:
            u = np.zeros(3)
            u[:dim] = grad @ X
            node.SetSolutionStepValue(tessera.DISPLACEMENT, u)
            for component in (tessera.DISPLACEMENT_X, tessera.DISPLACEMENT_Y, tessera.DISPLACEMENT_Z):
                node.Fix(component)
        elif dim == 2:
            node.Fix(tessera.DISPLACEMENT_Z)
    s = strategy(mp, nonlinear=formulation == "TotalLagrangian")
    assert s.Solve()
    return mp, grad


@pytest.mark.parametrize("geometry", GEOMETRIES)
@pytest.mark.parametrize("formulation", ("SmallDisplacement", "TotalLagrangian"))
def test_small_strain_patch_is_exact(formulation, geometry):
    dim = int(geometry[0])
    for law in (LAWS_2D if dim == 2 else (LAW_3D,)):
        mp, grad = run_patch(formulation, geometry, law, A_SMALL)
        interior = 0
        for node in mp.Nodes:
            X = np.array(node.GetInitialPosition())[:dim]
            u = np.array(node.GetSolutionStepValue(tessera.DISPLACEMENT))[:dim]
            assert np.abs(u - grad @ X).max() < 1e-10, (law, node.Id, u, grad @ X)
            interior += not node.IsFixed(tessera.DISPLACEMENT_X)
        assert interior > 0
        # constant stress everywhere: D times the (small or Green-Lagrange) strain
        F = np.eye(dim) + grad
        E = 0.5 * (grad + grad.T) if formulation == "SmallDisplacement" else 0.5 * (F.T @ F - np.eye(dim))
        expected = hooke(law) @ voigt_strain(E)
        for element in mp.Elements:
            for stress in element.CalculateOnIntegrationPoints(structural.PK2_STRESS_VECTOR, mp.ProcessInfo):
                # stresses ~ 1, computed from exact displacements: rounding, 1e-10
                assert np.abs(np.array(stress) - expected).max() < 1e-10 * np.abs(expected).max() + 1e-12


@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_total_lagrangian_patch_is_exact_at_finite_strain(geometry):
    """Beyond the brief's small strains: the TL elements reproduce a 10 % strain
    homogeneous deformation too, with the Neo-Hookean law."""
    dim = int(geometry[0])
    law = "HyperElasticPlaneStrain2DLaw" if dim == 2 else "HyperElastic3DLaw"
    mp, grad = run_patch("TotalLagrangian", geometry, law, A_FINITE)
    for node in mp.Nodes:
        X = np.array(node.GetInitialPosition())[:dim]
        u = np.array(node.GetSolutionStepValue(tessera.DISPLACEMENT))[:dim]
        assert np.abs(u - grad @ X).max() < 1e-10, (node.Id, u, grad @ X)
        # move_mesh: current coordinates follow
        assert np.abs(np.array(node.Coordinates())[:dim] - X - u).max() < 1e-14


def test_small_displacement_patch_with_iterative_solvers():
    """The same patch through cg (diagonal and incomplete Cholesky) and amgcl
    (mapped): tolerance 1e-14 relative residual on a system with condition
    number ~1e3 gives ~1e-11 relative error on displacements of 3e-3, well
    inside 1e-10."""
    for solver in ('{"solver_type": "cg", "tolerance": 1e-14, "max_iteration": 5000}',
                   '{"solver_type": "cg", "preconditioner_type": "incomplete_cholesky", "tolerance": 1e-14}',
                   '{"solver_type": "amgcl", "tolerance": 1e-14, "max_iteration": 5000}',
                   '{"solver_type": "bicgstab", "tolerance": 1e-14, "max_iteration": 5000}'):
        model = tessera.Model()
        mp = new_model_part(model)
        set_material(mp.GetProperties(1), LAW_3D)
        boundary = distorted_grid(mp, "SmallDisplacementElement3D8N")
        add_dofs(mp)
        for node in mp.Nodes:
            if node.Id in boundary:
                node.SetSolutionStepValue(tessera.DISPLACEMENT, A_SMALL @ np.array(node.GetInitialPosition()))
                for component in (tessera.DISPLACEMENT_X, tessera.DISPLACEMENT_Y, tessera.DISPLACEMENT_Z):
                    node.Fix(component)
        assert strategy(mp, nonlinear=False, solver=solver).Solve()
        for node in mp.Nodes:
            expected = A_SMALL @ np.array(node.GetInitialPosition())
            assert np.abs(np.array(node.GetSolutionStepValue(tessera.DISPLACEMENT)) - expected).max() < 1e-10, solver
