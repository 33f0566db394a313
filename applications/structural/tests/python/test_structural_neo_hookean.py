"""Neo-Hookean (HyperElastic3DLaw, HyperElasticPlaneStrain2DLaw) against closed
forms, on distorted total-Lagrangian meshes.

The model: W = lambda/2 (ln J)^2 - mu ln J + mu/2 (tr C - 3), so
    S = mu (I - C^-1) + lambda ln J C^-1.

Uniaxial strain (x stretched by s, lateral displacements held, F = diag(s, 1, 1),
J = s, C^-1 = diag(1/s^2, 1, 1)):
    S_xx = mu (1 - 1/s^2) + lambda ln s / s^2,       S_yy = S_zz = lambda ln s,
    P_xx = s S_xx = mu (s - 1/s) + lambda ln(s) / s  (force per reference area),
    sigma_xx = s^2 S_xx / J = P_xx.
Plane strain with the lateral in-plane displacement held is the same state.

Uniaxial stress (lateral faces free, F = diag(s, t, t)): S_yy = 0 gives
    mu (t^2 - 1) + lambda ln(s t^2) = 0,
a monotone equation for t solved here by bisection; then
P_xx = s S_xx = mu (s - 1/s) + lambda ln(s t^2) / s.
"""
import math

import numpy as np
import pytest

import tessera
import tessera.structural as structural

from structural_meshes import add_dofs, distorted_grid, new_model_part, set_material, strategy

YOUNG, NU = 1000.0, 0.3
LAMBDA = YOUNG * NU / ((1 + NU) * (1 - 2 * NU))
MU = YOUNG / (2 * (1 + NU))
LENGTH = 3.0


def nominal_stress_uniaxial_strain(s):
    return MU * (s - 1 / s) + LAMBDA * math.log(s) / s


def lateral_stretch_uniaxial_stress(s):
    f = lambda t: MU * (t * t - 1) + LAMBDA * math.log(s * t * t)  # increasing in t
    lo, hi = 0.1, 10.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
    return 0.5 * (lo + hi)


def stretch_model(geometry, s, lateral_free):
    """A distorted cube/square of TL elements: x = 0 held in x, x = L moved to s L,
    the lateral displacements held (uniaxial strain) or free with symmetry
    planes y = 0 (and z = 0) (uniaxial stress)."""
    dim = int(geometry[0])
    model = tessera.Model()
    mp = new_model_part(model)
    law = "HyperElasticPlaneStrain2DLaw" if dim == 2 else "HyperElastic3DLaw"
    set_material(mp.GetProperties(1), law, YOUNG, NU, thickness=1.0 if dim == 2 else None)
    boundary = distorted_grid(mp, f"TotalLagrangianElement{geometry}", length=LENGTH)
    add_dofs(mp)
    components = (tessera.DISPLACEMENT_X, tessera.DISPLACEMENT_Y, tessera.DISPLACEMENT_Z)
    end = []
    for node in mp.Nodes:
        X = node.GetInitialPosition()
        if dim == 2:
            node.Fix(tessera.DISPLACEMENT_Z)
        if node.Id not in boundary:
            continue
        if abs(X[0]) < 1e-12:
            node.Fix(tessera.DISPLACEMENT_X)
        if abs(X[0] - LENGTH) < 1e-12:
            node.Fix(tessera.DISPLACEMENT_X)
            node.SetSolutionStepValue(tessera.DISPLACEMENT_X, (s - 1) * LENGTH)
            end.append(node.Id)
        for d in range(1, dim):
            if not lateral_free or abs(X[d]) < 1e-12:
                node.Fix(components[d])
    return model, mp, end


@pytest.mark.parametrize("geometry", ("2D3N", "2D4N", "3D4N", "3D8N"))
@pytest.mark.parametrize("s", (1.5, 0.7))
def test_uniaxial_strain_against_closed_form(geometry, s):
    dim = int(geometry[0])
    model, mp, end = stretch_model(geometry, s, lateral_free=False)
    st = strategy(mp, nonlinear=True)
    # five load steps, as a static analysis would take them: imposing the whole
    # 30 % compression at once, with the interior at rest, inverts the elements
    # next to the moved face in the first iteration
    steps = 5
    for k in range(1, steps + 1):
        for i in end:
            mp.GetNode(i).SetSolutionStepValue(tessera.DISPLACEMENT_X, (s - 1) * LENGTH * k / steps)
        assert st.Solve(), k
    # reaction on the moved face = f_int there = P_xx x reference area (L^{d-1},
    # thickness 1 in 2D). A homogeneous state is exact (see the patch tests):
    # 1e-9 relative covers rounding in sums over the face's nodes.
    force = sum(mp.GetNode(i).GetSolutionStepValue(tessera.REACTION_X) for i in end)
    area = LENGTH ** (dim - 1)
    assert force == pytest.approx(nominal_stress_uniaxial_strain(s) * area, rel=1e-9)
    # PK2 and Cauchy at every Gauss point
    S_xx = MU * (1 - 1 / s ** 2) + LAMBDA * math.log(s) / s ** 2
    S_lat = LAMBDA * math.log(s)
    for element in mp.Elements:
        for S in element.CalculateOnIntegrationPoints(structural.PK2_STRESS_VECTOR, mp.ProcessInfo):
            expected = [S_xx] + [S_lat] * (dim - 1) + [0.0] * (len(S) - dim)
            assert np.abs(np.array(S) - expected).max() < 1e-9 * S_xx.__abs__() + 1e-10
        for sigma in element.CalculateOnIntegrationPoints(structural.CAUCHY_STRESS_VECTOR, mp.ProcessInfo):
            assert sigma[0] == pytest.approx(nominal_stress_uniaxial_strain(s), rel=1e-9)
            # lateral Cauchy stress: F S F^T / J with F_yy = 1, J = s
            assert sigma[1] == pytest.approx(S_lat / s, rel=1e-9)
    # Newton on a consistent tangent: a handful of iterations per 10 % step
    assert st.GetIterationNumber() <= 6


@pytest.mark.parametrize("geometry", ("3D4N", "3D8N"))
def test_uniaxial_stress_against_bisection(geometry):
    s = 1.3
    model, mp, end = stretch_model(geometry, s, lateral_free=True)
    assert strategy(mp, nonlinear=True).Solve()
    t = lateral_stretch_uniaxial_stress(s)
    force = sum(mp.GetNode(i).GetSolutionStepValue(tessera.REACTION_X) for i in end)
    p_xx = MU * (s - 1 / s) + LAMBDA * math.log(s * t * t) / s
    # bisection to 2^-200: exact in double; the FE state is homogeneous: 1e-9
    assert force == pytest.approx(p_xx * LENGTH ** 2, rel=1e-9)
    for node in mp.Nodes:
        X = np.array(node.GetInitialPosition())
        u = np.array(node.GetSolutionStepValue(tessera.DISPLACEMENT))
        assert np.abs(u - np.array([(s - 1) * X[0], (t - 1) * X[1], (t - 1) * X[2]])).max() < 1e-10


def test_small_strain_limit_is_hooke():
    """At C = I the Neo-Hookean tangent is Hooke's: lambda d_ij d_kl + mu (d_ik d_jl + d_il d_jk)."""
    model, mp, _ = stretch_model("3D8N", 1.0, lateral_free=False)
    element = mp.GetElement(1)
    for D in element.CalculateOnIntegrationPoints(tessera.CONSTITUTIVE_MATRIX, mp.ProcessInfo):
        expected = np.zeros((6, 6))
        expected[:3, :3] = LAMBDA
        expected[np.arange(3), np.arange(3)] += 2 * MU
        expected[np.arange(3, 6), np.arange(3, 6)] = MU
        assert np.abs(np.array(D) - expected).max() < 1e-10 * YOUNG
