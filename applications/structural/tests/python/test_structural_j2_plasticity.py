"""Small-strain J2 plasticity (SmallStrainJ2Plasticity3DLaw,
SmallStrainJ2PlasticityPlaneStrain2DLaw): a unit cube in uniaxial stress
loaded, unloaded and loaded in reverse against the analytic elastoplastic
curve, and the algorithmic tangent against finite differences."""
import numpy as np
import pytest

import tessera
import tessera.structural as structural

from structural_meshes import add_dofs, new_model_part, strategy
from test_structural_tangent import NODES, finite_difference_tangent, set_displacement

E_MOD, NU, Y0, H = 2.0e5, 0.3, 250.0, 1.0e4
CUBE = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]


def plastic_properties(properties, law, saturation=None, exponent=None):
    properties[tessera.YOUNG_MODULUS] = E_MOD
    properties[tessera.POISSON_RATIO] = NU
    properties[structural.YIELD_STRESS] = Y0
    properties[structural.ISOTROPIC_HARDENING_MODULUS] = H
    if saturation is not None:
        properties[structural.EXPONENTIAL_SATURATION_YIELD_STRESS] = saturation
        properties[structural.HARDENING_EXPONENT] = exponent
    structural.SetConstitutiveLaw(properties, law)


def uniaxial_1d(strains, hardening):
    """The exact 1D elastoplastic response with isotropic hardening k(eps_p):
    elastic predictor, then |sigma| = k(alpha) solved by bisection."""
    eps_p, alpha, out = 0.0, 0.0, []
    for eps in strains:
        trial = E_MOD * (eps - eps_p)
        if abs(trial) <= hardening(alpha):
            out.append(trial)
            continue
        lo, hi = 0.0, abs(trial) / E_MOD
        for _ in range(200):  # g(d) = |trial| - E d - k(alpha + d), decreasing
            mid = 0.5 * (lo + hi)
            if abs(trial) - E_MOD * mid - hardening(alpha + mid) > 0:
                lo = mid
            else:
                hi = mid
        d = 0.5 * (lo + hi)
        eps_p += np.sign(trial) * d
        alpha += d
        out.append(trial - np.sign(trial) * E_MOD * d)
    return out


def run_cube(strains, **hardening_keys):
    model = tessera.Model()
    mp = new_model_part(model)
    for i, x in enumerate(CUBE):
        mp.CreateNewNode(i + 1, *x)
    properties = mp.GetProperties(1)
    plastic_properties(properties, "SmallStrainJ2Plasticity3DLaw", **hardening_keys)
    element = mp.CreateNewElement("SmallDisplacementElement3D8N", 1, list(range(1, 9)), properties)
    add_dofs(mp)
    for node in mp.Nodes:  # symmetry planes x = 0, y = 0, z = 0; x = 1 pulled
        for X, component in zip(node.GetInitialPosition(), (tessera.DISPLACEMENT_X, tessera.DISPLACEMENT_Y,
                                                             tessera.DISPLACEMENT_Z)):
            if X == 0.0:
                node.Fix(component)
        if node.GetInitialPosition()[0] == 1.0:
            node.Fix(tessera.DISPLACEMENT_X)
    s = strategy(mp, nonlinear=True, move_mesh=False)
    stresses = []
    for eps in strains:
        for node in mp.Nodes:
            if node.GetInitialPosition()[0] == 1.0:
                node.SetSolutionStepValue(tessera.DISPLACEMENT_X, eps)
        assert s.Solve()
        sigma = element.CalculateOnIntegrationPoints(tessera.STRESS_VECTOR, mp.ProcessInfo)
        for point in sigma:  # homogeneous: every Gauss point uniaxial
            assert np.abs(np.array(point)[1:]).max() < 1e-9 * Y0
        stresses.append(sigma[0][0])
    return stresses


def test_uniaxial_loading_unloading_reverse_linear_hardening():
    eps_y = Y0 / E_MOD
    strains = [0.5 * eps_y, 2 * eps_y, 4 * eps_y, 6 * eps_y, 3 * eps_y, 0.0, -4 * eps_y, -8 * eps_y]
    got = run_cube(strains)
    expected = uniaxial_1d(strains, lambda a: Y0 + H * a)
    # closed form e.g. sigma = Y0 + E H / (E + H) (eps - eps_y) on first loading;
    # the cube is homogeneous and the return mapping exact, so only Newton's
    # tolerance (1e-13 relative on u) is left: 1e-9 relative.
    assert got[2] == pytest.approx(Y0 + E_MOD * H / (E_MOD + H) * 3 * eps_y, rel=1e-9)
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-9 * Y0)


def test_uniaxial_exponential_saturation_hardening():
    eps_y = Y0 / E_MOD
    strains = [2 * eps_y, 10 * eps_y, 40 * eps_y]
    y_inf, delta = 400.0, 50.0
    got = run_cube(strains, saturation=y_inf, exponent=delta)
    expected = uniaxial_1d(strains, lambda a: y_inf + (Y0 - y_inf) * np.exp(-delta * a) + H * a)
    # the bisection reference is exact to 1e-15; Newton tolerance as above
    assert got == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("geometry,law", [("3D8N", "SmallStrainJ2Plasticity3DLaw"),
                                          ("2D4N", "SmallStrainJ2PlasticityPlaneStrain2DLaw"),
                                          ("2D4N", "SmallStrainJ2PlasticityPlaneStress2DLaw")])
def test_algorithmic_tangent_matches_finite_differences(geometry, law):
    dim = int(geometry[0])
    model = tessera.Model()
    mp = new_model_part(model)
    for i, x in enumerate(NODES[geometry]):
        mp.CreateNewNode(i + 1, *x)
    properties = mp.GetProperties(1)
    plastic_properties(properties, law, saturation=400.0, exponent=50.0)
    element = mp.CreateNewElement(f"SmallDisplacementElement{geometry}", 1,
                                  list(range(1, len(NODES[geometry]) + 1)), properties)
    add_dofs(mp)
    element.Initialize(mp.ProcessInfo)
    rng = np.random.default_rng(5)
    for node in mp.Nodes:  # strains ~ 10 eps_y: every Gauss point plastic
        u = 10 * Y0 / E_MOD * rng.uniform(-1, 1, 3)
        if dim == 2:
            u[2] = 0.0
        set_displacement(mp, node, u)
    K, _ = element.CalculateLocalSystem(mp.ProcessInfo)
    K_fd = finite_difference_tangent(mp, element, dim, 1e-9)
    # central differences with h = 1e-9 (strains 1e-9 against 1e-2): truncation
    # ~ (h/u)^2 ~ 1e-12, rounding ~ eps |r| / (h |K|) ~ 1e-7 relative; 1e-5 of
    # max|K| leaves room, while the elastic (continuum) tangent differs by O(1).
    assert np.abs(np.array(K) - K_fd).max() < 1e-5 * np.abs(K_fd).max()
    # and it is not the elastic one: plastic flow softens the response
    properties[structural.YIELD_STRESS] = 1e6 * Y0
    properties[structural.EXPONENTIAL_SATURATION_YIELD_STRESS] = 1e6 * Y0
    K_elastic, _ = element.CalculateLocalSystem(mp.ProcessInfo)
    assert np.abs(np.array(K_elastic) - np.array(K)).max() > 0.05 * np.abs(K_fd).max()


def test_plane_stress_uniaxial_matches_the_1d_curve():
    """A unit square of SmallDisplacementElement2D4N with the plane-stress law,
    pulled in x (free in y): uniaxial stress, so the same exact 1D curve as the
    cube, through the local sigma_zz = 0 iteration (1e-9 relative)."""
    model = tessera.Model()
    mp = new_model_part(model)
    for i, x in enumerate([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)]):
        mp.CreateNewNode(i + 1, *x)
    properties = mp.GetProperties(1)
    plastic_properties(properties, "SmallStrainJ2PlasticityPlaneStress2DLaw")
    properties[tessera.THICKNESS] = 0.1
    element = mp.CreateNewElement("SmallDisplacementElement2D4N", 1, [1, 2, 3, 4], properties)
    add_dofs(mp)
    for node in mp.Nodes:
        node.Fix(tessera.DISPLACEMENT_Z)
        X = node.GetInitialPosition()
        if X[0] == 0.0:
            node.Fix(tessera.DISPLACEMENT_X)
        if X[1] == 0.0:
            node.Fix(tessera.DISPLACEMENT_Y)
        if X[0] == 1.0:
            node.Fix(tessera.DISPLACEMENT_X)
    s = strategy(mp, nonlinear=True, move_mesh=False)
    eps_y = Y0 / E_MOD
    strains = [2 * eps_y, 5 * eps_y, 1 * eps_y, -6 * eps_y]
    got = []
    for eps in strains:
        for node in mp.Nodes:
            if node.GetInitialPosition()[0] == 1.0:
                node.SetSolutionStepValue(tessera.DISPLACEMENT_X, eps)
        assert s.Solve()
        sigma = element.CalculateOnIntegrationPoints(tessera.STRESS_VECTOR, mp.ProcessInfo)
        assert abs(sigma[0][1]) < 1e-9 * Y0 and abs(sigma[0][2]) < 1e-9 * Y0
        got.append(sigma[0][0])
    assert got == pytest.approx(uniaxial_1d(strains, lambda a: Y0 + H * a), rel=1e-9)


def test_missing_yield_stress_is_reported():
    model = tessera.Model()
    mp = new_model_part(model)
    for i, x in enumerate(CUBE):
        mp.CreateNewNode(i + 1, *x)
    properties = mp.GetProperties(1)
    properties[tessera.YOUNG_MODULUS] = E_MOD
    properties[tessera.POISSON_RATIO] = NU
    structural.SetConstitutiveLaw(properties, "SmallStrainJ2Plasticity3DLaw")
    element = mp.CreateNewElement("SmallDisplacementElement3D8N", 1, list(range(1, 9)), properties)
    add_dofs(mp)
    with pytest.raises(RuntimeError, match="YIELD_STRESS"):
        element.Check(mp.ProcessInfo)
