"""Finite-strain J2 plasticity (HyperElasticPlasticJ23DLaw,
HyperElasticPlasticJ2PlaneStrain2DLaw) with the total-Lagrangian elements.

The model (Simo & Hughes, Computational Inelasticity, ch. 9): F = Fe Fp,
tau = kappa/2 (J^2 - 1) 1 + mu dev(bbe), yield |dev tau| = sqrt(2/3) k(alpha),
radial return on the trial bbe and the update bbe = s/mu + x 1 with
det bbe = 1. The tests: (a) uniaxial stress loading to 50 % stretch and
unloading against the model's scalar uniaxial equations (derived in
uniaxial_reference), (b) the small-strain limit against
SmallStrainJ2Plasticity3DLaw, (c) the algorithmic tangent against finite
differences, (d) det Fp = 1, (e) large simple shear under a superposed
time-varying rigid rotation (objectivity) and on the yield surface, and the
errors for bad parameters."""
import numpy as np
import pytest

import tessera
import tessera.structural as structural

from structural_meshes import add_dofs, new_model_part, strategy
from test_structural_tangent import NODES, finite_difference_tangent, set_displacement

E_MOD, NU, Y0, H = 2.0e5, 0.3, 250.0, 1.0e3
Y_INF, DELTA = 400.0, 20.0
MU = E_MOD / (2 * (1 + NU))
KAPPA = E_MOD / (3 * (1 - 2 * NU))
CUBE = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]


def hardening(alpha):
    return Y_INF + (Y0 - Y_INF) * np.exp(-DELTA * alpha) + H * alpha


def hardening_slope(alpha):
    return -DELTA * (Y0 - Y_INF) * np.exp(-DELTA * alpha) + H


def set_plastic(properties, law, yield_stress=Y0, saturation=Y_INF):
    properties[tessera.YOUNG_MODULUS] = E_MOD
    properties[tessera.POISSON_RATIO] = NU
    properties[structural.YIELD_STRESS] = yield_stress
    properties[structural.ISOTROPIC_HARDENING_MODULUS] = H
    properties[structural.EXPONENTIAL_SATURATION_YIELD_STRESS] = saturation
    properties[structural.HARDENING_EXPONENT] = DELTA
    structural.SetConstitutiveLaw(properties, law)


def bisect(f, lo, hi, iterations=200):
    """Root of f in [lo, hi] (sign change), to round-off."""
    f_lo = f(lo)
    for _ in range(iterations):
        mid = 0.5 * (lo + hi)
        f_mid = f(mid)
        if (f_mid > 0) == (f_lo > 0):
            lo, f_lo = mid, f_mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def uniaxial_reference(stretches):
    """Cauchy stress sigma_11 of the model's algorithm in uniaxial stress, as
    scalar equations. F = diag(l, t, t); the plastic metric P = Cp^-1 stays
    diag(p, p^-1/2, p^-1/2) (det P = 1). With c1 = l^2 p, c2 = t^2 p^-1/2,
    J = l t^2 and D = c1 - c2:
      dev(C P) = D diag(2/3, -1/3, -1/3),  tr(C P) = c1 + 2 c2,
      |s_trial| = mu J^-2/3 sqrt(2/3) |D|,  Ibar = J^-2/3 (c1 + 2 c2) / 3,
      return: |s_trial| - 2 mu Ibar dg - sqrt(2/3) k(alpha_n + sqrt(2/3) dg) = 0,
      theta = 1 - 2 mu Ibar dg / |s_trial|,
      tau_22 = kappa/2 (J^2 - 1) - theta mu J^-2/3 D / 3 = 0   (fixes t),
      tau_11 = theta mu J^-2/3 D,  sigma_11 = tau_11 / J,
    and the update: m = theta D, y the root of (y + 2m/3)(y - m/3)^2 = J^2,
    p_new = (y + 2m/3) / l^2. Every scalar root by bisection, independent of
    the law's tensor Newton iterations."""
    p, alpha, out = 1.0, 0.0, []
    for stretch in stretches:
        def state(t):
            J = stretch * t * t
            c1, c2 = stretch**2 * p, t * t / np.sqrt(p)
            D = c1 - c2
            j23 = J ** (-2.0 / 3.0)
            q = MU * j23 * np.sqrt(2.0 / 3.0) * abs(D)
            ibar = j23 * (c1 + 2 * c2) / 3
            dg = 0.0
            if q - np.sqrt(2.0 / 3.0) * hardening(alpha) > 1e-12 * Y0:
                dg = bisect(lambda g: q - 2 * MU * ibar * g - np.sqrt(2.0 / 3.0) *
                            hardening(alpha + np.sqrt(2.0 / 3.0) * g), 0.0, q / (2 * MU * ibar))
            theta = 1 - 2 * MU * ibar * dg / q if dg > 0 else 1.0
            return J, D, j23, theta, dg

        def lateral_stress(t):
            J, D, j23, theta, _ = state(t)
            return KAPPA / 2 * (J * J - 1) - theta * MU * j23 * D / 3

        t = bisect(lateral_stress, 0.5, 1.5)
        J, D, j23, theta, dg = state(t)
        out.append(theta * MU * j23 * D / J)
        if dg > 0:
            m = theta * D
            y = bisect(lambda y: (y + 2 * m / 3) * (y - m / 3) ** 2 - J * J, abs(m) + 1e-3 * J,
                       abs(m) + 2 * J)
            p = (y + 2 * m / 3) / stretch**2
            alpha += np.sqrt(2.0 / 3.0) * dg
    return out, alpha


def cube_model(formulation="TotalLagrangian", law="HyperElasticPlasticJ23DLaw", **material):
    model = tessera.Model()
    mp = new_model_part(model)
    for i, x in enumerate(CUBE):
        mp.CreateNewNode(i + 1, *x)
    properties = mp.GetProperties(1)
    set_plastic(properties, law, **material)
    element = mp.CreateNewElement(f"{formulation}Element3D8N", 1, list(range(1, 9)), properties)
    add_dofs(mp)
    return model, mp, element


def pull_cube(stretches, formulation="TotalLagrangian", law="HyperElasticPlasticJ23DLaw", tolerance=1e-11,
              uniaxial=1e-9, **material):
    """A unit cube on symmetry planes x, y, z = 0, the face x = 1 moved to
    x = stretch: uniaxial stress, homogeneous. Returns sigma_xx per step and
    the element."""
    model, mp, element = cube_model(formulation, law, **material)
    for node in mp.Nodes:
        for X, component in zip(node.GetInitialPosition(), (tessera.DISPLACEMENT_X, tessera.DISPLACEMENT_Y,
                                                             tessera.DISPLACEMENT_Z)):
            if X == 0.0:
                node.Fix(component)
        if node.GetInitialPosition()[0] == 1.0:
            node.Fix(tessera.DISPLACEMENT_X)
    # |du|/|u| < 1e-11: tighter stalls on the round-off of E = (F^T F - I)/2
    s = strategy(mp, nonlinear=True, tolerance=tolerance, move_mesh=False)
    stresses = []
    for stretch in stretches:
        for node in mp.Nodes:
            if node.GetInitialPosition()[0] == 1.0:
                node.SetSolutionStepValue(tessera.DISPLACEMENT_X, stretch - 1.0)
        assert s.Solve()
        sigma = np.array(element.CalculateOnIntegrationPoints(structural.CAUCHY_STRESS_VECTOR, mp.ProcessInfo))
        scale = max(abs(sigma[0][0]), material.get("yield_stress", Y0))
        assert np.abs(sigma[:, 1:]).max() < uniaxial * scale  # uniaxial at every Gauss point
        assert np.abs(sigma[:, 0] - sigma[0, 0]).max() < uniaxial * scale  # homogeneous
        stresses.append(sigma[0][0])
    return stresses, element, mp, model


def test_uniaxial_loading_to_50_percent_and_unloading_matches_the_scalar_equations():
    stretches = [1.0005, 1.001, 1.002, 1.01, 1.05, 1.15, 1.3, 1.5, 1.498, 1.45, 1.4, 1.3]
    got, element, mp, _ = pull_cube(stretches)
    expected, alpha = uniaxial_reference(stretches)
    # The cube is homogeneous, so the FE answer is the law's answer at the
    # imposed stretch, solved to Newton's 1e-11 on u (measured agreement 7e-12);
    # the reference roots are exact to round-off. Issue 5 asks 1e-6 relative;
    # 1e-9 is asserted.
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-9 * Y0)
    # the first step is elastic (sigma < Y0) and the curve hardens past Y0
    assert got[0] < Y0 < got[3] < got[7]
    # unloading: elastic first (alpha unchanged: 1.498 is inside the surface),
    # then from 1.45 on into compressive yield
    assert 0 < got[8] < got[7] and got[11] < got[10] < got[9] < 0
    alphas = element.CalculateOnIntegrationPoints(structural.EQUIVALENT_PLASTIC_STRAIN, mp.ProcessInfo)
    assert alphas == pytest.approx([alpha] * 8, rel=1e-6)
    assert alpha > 0.4  # plastic flow of the order of ln 1.5 + reverse flow


def test_small_strain_limit_matches_small_strain_j2():
    """At strains ~1e-5 (yield strain 5e-6) the finite-strain law reduces to
    the small-strain radial return: terms O(eps) relative, 1e-3 required."""
    y0 = 1.0
    strains = [3e-6, 1e-5, 2e-5, 5e-6, -2e-5]
    # E = (F^T F - I)/2 at strains 1e-5 carries round-off 1e-11 relative: Newton to 1e-8
    # and leaves lateral stresses ~1e-6 of sigma_xx
    finite, element_f, mp_f, _ = pull_cube([1 + e for e in strains], tolerance=1e-8, uniaxial=1e-5,
                                           yield_stress=y0, saturation=1.6 * y0)
    small, element_s, mp_s, _ = pull_cube([1 + e for e in strains], "SmallDisplacement",
                                          "SmallStrainJ2Plasticity3DLaw", tolerance=1e-8, uniaxial=1e-5,
                                          yield_stress=y0, saturation=1.6 * y0)
    assert finite == pytest.approx(small, rel=1e-3)
    assert max(abs(s) for s in small) > 1.02 * y0  # plastic, hardened
    alpha_f = element_f.CalculateOnIntegrationPoints(structural.EQUIVALENT_PLASTIC_STRAIN, mp_f.ProcessInfo)
    alpha_s = element_s.CalculateOnIntegrationPoints(structural.EQUIVALENT_PLASTIC_STRAIN, mp_s.ProcessInfo)
    assert alpha_f[0] == pytest.approx(alpha_s[0], rel=1e-3) and alpha_s[0] > 1e-5


@pytest.mark.parametrize("geometry,law", [("3D8N", "HyperElasticPlasticJ23DLaw"),
                                          ("3D4N", "HyperElasticPlasticJ23DLaw"),
                                          ("2D4N", "HyperElasticPlasticJ2PlaneStrain2DLaw")])
def test_algorithmic_tangent_matches_finite_differences(geometry, law):
    dim = int(geometry[0])
    model = tessera.Model()
    mp = new_model_part(model)
    for i, x in enumerate(NODES[geometry]):
        mp.CreateNewNode(i + 1, *x)
    properties = mp.GetProperties(1)
    set_plastic(properties, law)
    element = mp.CreateNewElement(f"TotalLagrangianElement{geometry}", 1,
                                  list(range(1, len(NODES[geometry]) + 1)), properties)
    add_dofs(mp)
    element.Initialize(mp.ProcessInfo)
    rng = np.random.default_rng(11)

    def move(scale):
        for node in mp.Nodes:
            u = np.array(node.GetSolutionStepValue(tessera.DISPLACEMENT)) + scale * rng.uniform(-1, 1, 3)
            if dim == 2:
                u[2] = 0.0
            set_displacement(mp, node, u)

    move(0.1)  # a committed plastic step (P != I), then a further plastic one
    element.FinalizeSolutionStep(mp.ProcessInfo)
    assert min(element.CalculateOnIntegrationPoints(structural.EQUIVALENT_PLASTIC_STRAIN, mp.ProcessInfo)) > 0
    move(0.05)
    K, _ = element.CalculateLocalSystem(mp.ProcessInfo)
    K_fd = finite_difference_tangent(mp, element, dim, 1e-6)
    # central differences, h = 1e-6 against displacements ~0.1: truncation
    # ~ (h/u)^2 |K| ~ 1e-10, rounding ~ 1e-16 |r| / (h |K|) ~ 1e-10 relative;
    # required 1e-5 of max|K| (issue 5).
    assert np.abs(np.array(K) - K_fd).max() < 1e-5 * np.abs(K_fd).max()
    # and it is not the elastic one: plastic flow softens the response
    properties[structural.YIELD_STRESS] = 1e6 * Y0
    properties[structural.EXPONENTIAL_SATURATION_YIELD_STRESS] = 1e6 * Y0
    K_elastic, _ = element.CalculateLocalSystem(mp.ProcessInfo)
    assert np.abs(np.array(K_elastic) - np.array(K)).max() > 0.05 * np.abs(K_fd).max()


def rotation(angle, axis):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k


def shear_history(rotated):
    """One hexahedron under homogeneous simple shear F = Q(t) (I + g e1 x e2),
    g up to 0.5 in steps (all nodes imposed, a material-point test), Q = I or
    a rigid rotation growing with the step. Returns per step the Cauchy
    invariants (tr, |dev|, det), the PK2 stress and the committed alpha and
    E_p of the first Gauss point."""
    model, mp, element = cube_model()
    element.Initialize(mp.ProcessInfo)
    history = []
    for step, g in enumerate(np.linspace(0.05, 0.5, 10)):
        F = np.eye(3)
        F[0, 1] = g
        if rotated:
            F = rotation(0.3 * (step + 1), [1.0, 2.0, -0.5]) @ F
        for node in mp.Nodes:
            X = np.array(node.GetInitialPosition())
            set_displacement(mp, node, F @ X - X)
        element.FinalizeSolutionStep(mp.ProcessInfo)
        sigma = np.array(element.CalculateOnIntegrationPoints(structural.CAUCHY_STRESS_TENSOR, mp.ProcessInfo)[0])
        dev = sigma - np.trace(sigma) / 3 * np.eye(3)
        S = np.array(element.CalculateOnIntegrationPoints(structural.PK2_STRESS_VECTOR, mp.ProcessInfo)[0])
        alpha = element.CalculateOnIntegrationPoints(structural.EQUIVALENT_PLASTIC_STRAIN, mp.ProcessInfo)[0]
        Ep = np.array(element.CalculateOnIntegrationPoints(structural.PLASTIC_STRAIN_TENSOR, mp.ProcessInfo)[0])
        history.append((np.array([np.trace(sigma), np.linalg.norm(dev), np.linalg.det(sigma)]), S, alpha, Ep,
                        np.linalg.det(F)))
    return history


def test_large_simple_shear_is_objective_plastically_incompressible_and_on_the_yield_surface():
    plain, rotated = shear_history(False), shear_history(True)
    for (inv, S, alpha, Ep, J), (inv_r, S_r, alpha_r, Ep_r, _) in zip(plain, rotated):
        # objectivity: the law sees C = F^T F only, so a superposed rotation
        # changes nothing but round-off (1e-10 relative, issue 5)
        scale = np.abs(inv).max()
        assert np.abs(inv - inv_r).max() < 1e-10 * np.array([scale, scale, scale**3]).max()
        assert np.abs(S - S_r).max() < 1e-10 * np.abs(S).max()
        assert alpha_r == pytest.approx(alpha, rel=1e-10)
        # plastic incompressibility: det Cp = det(I + 2 E_p) = (det Fp)^2 = 1
        assert abs(np.linalg.det(np.eye(3) + 2 * Ep) - 1) < 1e-10
        # consistency: the committed Kirchhoff stress is on the yield surface,
        # |dev tau| = J |dev sigma| = sqrt(2/3) k(alpha) (plastic from the first step)
        assert J * inv[1] == pytest.approx(np.sqrt(2 / 3) * hardening(alpha), rel=1e-10)
    assert plain[-1][2] > 0.2  # large plastic shear strain reached
    assert np.abs(plain[-1][3]).max() > 0.1


def test_plane_strain_law_matches_the_3d_law_in_plane_strain():
    """The plane-strain law on a square and the 3D law on a cube with
    u_z = 0, both under the same homogeneous in-plane F, give the same
    stresses and alpha to round-off."""
    F = np.array([[1.2, 0.15, 0.0], [-0.05, 0.9, 0.0], [0.0, 0.0, 1.0]])
    results = []
    for dim, law, nodes in ((2, "HyperElasticPlasticJ2PlaneStrain2DLaw", CUBE[:4]),
                            (3, "HyperElasticPlasticJ23DLaw", CUBE)):
        model = tessera.Model()
        mp = new_model_part(model)
        for i, x in enumerate(nodes):
            mp.CreateNewNode(i + 1, *x)
        properties = mp.GetProperties(1)
        set_plastic(properties, law)
        element = mp.CreateNewElement(f"TotalLagrangianElement{dim}D{len(nodes)}N", 1,
                                      list(range(1, len(nodes) + 1)), properties)
        add_dofs(mp)
        element.Initialize(mp.ProcessInfo)
        for fraction in (0.5, 1.0):
            Fs = np.eye(3) + fraction * (F - np.eye(3))
            for node in mp.Nodes:
                X = np.array(node.GetInitialPosition())
                set_displacement(mp, node, Fs @ X - X)
            element.FinalizeSolutionStep(mp.ProcessInfo)
        S = np.array(element.CalculateOnIntegrationPoints(structural.PK2_STRESS_VECTOR, mp.ProcessInfo)[0])
        alpha = element.CalculateOnIntegrationPoints(structural.EQUIVALENT_PLASTIC_STRAIN, mp.ProcessInfo)[0]
        results.append((S[[0, 1, 3]] if dim == 3 else S, alpha))
    assert results[0][0] == pytest.approx(results[1][0], rel=1e-10, abs=1e-10 * Y0)
    assert results[0][1] == pytest.approx(results[1][1], rel=1e-10) and results[0][1] > 0


@pytest.mark.parametrize("key,value,message", [
    (structural.YIELD_STRESS, 0.0, "positive YIELD_STRESS"),
    (structural.YIELD_STRESS, -5.0, "positive YIELD_STRESS"),
    (structural.ISOTROPIC_HARDENING_MODULUS, -1.0, "ISOTROPIC_HARDENING_MODULUS >= 0"),
    (structural.EXPONENTIAL_SATURATION_YIELD_STRESS, 100.0, "softening is not supported"),
    (structural.HARDENING_EXPONENT, -1.0, "HARDENING_EXPONENT >= 0"),
])
def test_bad_parameters_are_reported(key, value, message):
    _, mp, element = cube_model()
    element.GetProperties()[key] = value
    with pytest.raises(RuntimeError, match=f"HyperElasticPlasticJ23DLaw: properties 1.*{message}"):
        element.Check(mp.ProcessInfo)


def test_a_2d_law_on_a_3d_element_is_reported():
    _, mp, element = cube_model(law="HyperElasticPlasticJ2PlaneStrain2DLaw")
    with pytest.raises(RuntimeError, match="HyperElasticPlasticJ2PlaneStrain2DLaw is for 2D"):
        element.Check(mp.ProcessInfo)


def test_equivalent_plastic_strain_reaches_the_vtk_output(tmp_path):
    import json
    import xml.etree.ElementTree as ET
    _, element, mp, _ = pull_cube([1.01, 1.05])
    alpha = element.CalculateOnIntegrationPoints(structural.EQUIVALENT_PLASTIC_STRAIN, mp.ProcessInfo)
    output = tessera.VtkOutput(mp, tessera.Parameters(json.dumps({
        "output_path": str(tmp_path), "output_precision": 15,
        "gauss_point_variables_extrapolated_to_nodes": ["EQUIVALENT_PLASTIC_STRAIN"]})))
    output.PrintOutput()
    piece = ET.parse(tmp_path / "Structure_0.vtu").getroot().find("UnstructuredGrid/Piece")
    values = [float(v) for v in piece.find("PointData/DataArray[@Name='EQUIVALENT_PLASTIC_STRAIN']").text.split()]
    # homogeneous alpha: the extrapolation to the nodes reproduces it (1e-10)
    assert values == pytest.approx([alpha[0]] * 8, rel=1e-10) and alpha[0] > 0.03
