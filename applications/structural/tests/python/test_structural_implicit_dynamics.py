"""Implicit structural dynamics (Newmark/Bossak in kernel/solving/bossak_scheme.h,
consistent and Rayleigh mass in the solid elements, the "Dynamic" implicit
solver) against analytic single-dof solutions, and Kratos' pendulus deck run
unchanged.

The single-dof oscillator: one plane-stress bilinear quad [0, L] x [0, h]
(nu = 0, thickness 1) with the left edge clamped, every y fixed, and the right
edge's two x-dofs given the same initial velocity. By symmetry the motion stays
u_x = u(t) x / L (linear, so the bilinear element is exact): strain u/L, stiffness
k = E h / L, kinetic energy 1/2 rho h L/3 u'^2, so m = rho h L / 3 and
omega = sqrt(3 E / rho) / L."""
import json
import math
import os

import numpy as np
import pytest

import tessera
import tessera.structural as structural
from tessera.project import Project

from structural_meshes import add_dofs, new_model_part, set_material

E, RHO, L, H = 3.0, 1.0, 1.0, 1.0
K_SDOF = E * H / L
M_SDOF = RHO * H * L / 3.0
OMEGA = math.sqrt(K_SDOF / M_SDOF)  # = 3
V0 = 0.01


def oscillator(scheme, rayleigh=(0.0, 0.0), v0=V0):
    model = tessera.Model()
    mp = new_model_part(model)
    for variable in (tessera.VELOCITY, tessera.ACCELERATION):
        mp.AddNodalSolutionStepVariable(variable)
    for i, (x, y) in enumerate([(0, 0), (L, 0), (L, H), (0, H)], start=1):
        mp.CreateNewNode(i, x, y, 0.0)
    properties = mp.GetProperties(1)
    set_material(properties, "LinearElasticPlaneStress2DLaw", young=E, poisson=0.0, thickness=1.0,
                 density=RHO)
    properties[tessera.RAYLEIGH_ALPHA], properties[tessera.RAYLEIGH_BETA] = rayleigh
    mp.CreateNewElement("SmallDisplacementElement2D4N", 1, [1, 2, 3, 4], properties)
    add_dofs(mp)
    for node in mp.Nodes:
        node.Fix(tessera.DISPLACEMENT_Y)
        node.Fix(tessera.DISPLACEMENT_Z)
        if node.X0 == 0.0:
            node.Fix(tessera.DISPLACEMENT_X)
        else:
            node.SetSolutionStepValue(tessera.VELOCITY_X, v0)
    mp.ProcessInfo[tessera.TIME] = 0.0
    builder = structural.ResidualBasedEliminationBuilderAndSolver(
        structural.CreateLinearSolver(tessera.Parameters("{}")))
    strategy = structural.ResidualBasedLinearStrategy(mp, scheme, builder, compute_reactions=False)
    strategy.Initialize()
    return mp, strategy


def run(mp, strategy, dt, steps, v0=V0):
    """(u, v, a) of the right edge after each step, starting with the initial state."""
    right = mp.GetNode(2)
    history = [(0.0, v0, 0.0)]
    for step in range(1, steps + 1):
        mp.CloneTimeStep(step * dt)
        strategy.Solve()
        history.append(tuple(right.GetSolutionStepValue(v) for v in
                             (tessera.DISPLACEMENT_X, tessera.VELOCITY_X, tessera.ACCELERATION_X)))
        assert mp.GetNode(3).GetSolutionStepValue(tessera.DISPLACEMENT_X) == pytest.approx(history[-1][0],
                                                                                            rel=1e-12)
    return np.array(history)


def bossak_recurrence(alpha_m, omega, dt, steps, newmark_beta=0.25, v0=V0, state=None):
    """The textbook Bossak recurrence (Wood, Bossak & Zienkiewicz 1980) for
    (1 - alpha_m) a_n+1 + alpha_m a_n + omega^2 u_n+1 = 0, written out here
    independently of the scheme."""
    beta, gamma = (1.0 - alpha_m) ** 2 * newmark_beta, 0.5 - alpha_m
    u, v, a = (0.0, v0, 0.0) if state is None else state
    out = [(u, v, a)]
    for _ in range(steps):
        predictor = u + dt * v + dt * dt * (0.5 - beta) * a
        a_new = -(alpha_m * a + omega ** 2 * predictor) / ((1.0 - alpha_m) + omega ** 2 * beta * dt * dt)
        u, v, a = predictor + beta * dt * dt * a_new, v + dt * ((1.0 - gamma) * a + gamma * a_new), a_new
        out.append((u, v, a))
    return np.array(out)


def test_newmark_trapezoidal_conserves_energy_and_has_the_known_period():
    period = 2.0 * math.pi / OMEGA
    dt = period / 40.0
    mp, strategy = oscillator(structural.ResidualBasedNewmarkDisplacementScheme())
    history = run(mp, strategy, dt, 200)  # five periods
    u, v = history[:, 0], history[:, 1]
    energy = 0.5 * M_SDOF * v ** 2 + 0.5 * K_SDOF * u ** 2
    # The trapezoidal rule (beta = 1/4, gamma = 1/2) conserves the energy of a
    # linear undamped system exactly (Hughes 2000, sec. 9.3): round-off only.
    assert np.max(np.abs(energy / energy[0] - 1.0)) < 1e-10
    # Its step is a rotation by theta = 2 atan(omega dt / 2) in (sqrt(k) u, sqrt(m) v):
    # u_n = v0 / omega sin(n theta) exactly (round-off tolerance).
    theta = 2.0 * math.atan(OMEGA * dt / 2.0)
    n = np.arange(len(u))
    assert np.max(np.abs(u - V0 / OMEGA * np.sin(n * theta))) < 1e-10 * V0 / OMEGA
    # Against the continuous solution: amplitude v0/omega exact, the period
    # elongated by (omega dt)^2 / 12 = 2.1e-3 relative, so after 5 periods the
    # phase error is 5 * 2 pi * 2.1e-3 = 0.065 rad: |u - exact| < 0.07 amplitude.
    exact = V0 / OMEGA * np.sin(OMEGA * n * dt)
    assert np.max(np.abs(u - exact)) < 0.07 * V0 / OMEGA
    assert np.max(np.abs(u)) == pytest.approx(V0 / OMEGA, rel=1e-3)


@pytest.mark.parametrize("alpha_m", [-0.1, -0.3])
def test_bossak_follows_its_recurrence_and_damps_high_frequencies(alpha_m):
    # Moderate step: the whole history equals the textbook recurrence (round-off).
    dt = 2.0 * math.pi / OMEGA / 10.0
    mp, strategy = oscillator(structural.ResidualBasedBossakDisplacementScheme(alpha_m))
    history = run(mp, strategy, dt, 60)
    reference = bossak_recurrence(alpha_m, OMEGA, dt, 60)
    scale = np.array([V0 / OMEGA, V0, V0 * OMEGA])
    assert np.max(np.abs((history - reference) / scale)) < 1e-9
    # Numerical damping: the energy of the undamped system decreases.
    energy = 0.5 * M_SDOF * history[:, 1] ** 2 + 0.5 * K_SDOF * history[:, 0] ** 2
    assert energy[-1] < energy[0]
    # omega dt -> infinity: the spectral radius is (1 + alpha_m) / (1 - alpha_m)
    # (Wood, Bossak & Zienkiewicz 1980). At omega dt = 3e4 the scheme still
    # follows the recurrence (round-off; a tiny v0 keeps the predictor dt v0 from
    # inverting the element), and the recurrence's amplification matrix has that
    # spectral radius to 1e-6 (the double root there makes a measured decay rate
    # carry an n rho^n factor, hence the eigenvalues rather than a fit).
    dt, v0 = 1.0e4, 1e-7
    mp, strategy = oscillator(structural.ResidualBasedBossakDisplacementScheme(alpha_m), v0=v0)
    history = run(mp, strategy, dt, 20, v0=v0)
    reference = bossak_recurrence(alpha_m, OMEGA, dt, 20, v0=v0)
    scale = np.array([v0 * dt, v0, v0 / dt])
    assert np.max(np.abs((history - reference) / scale)) < 1e-9
    amplification = np.column_stack([bossak_recurrence(alpha_m, OMEGA * dt, 1.0, 1, state=e)[1] for e in np.eye(3)])
    rho = max(abs(np.linalg.eigvals(amplification)))
    assert rho == pytest.approx((1.0 + alpha_m) / (1.0 - alpha_m), rel=1e-6)


def test_rayleigh_mass_damping_gives_the_analytic_decay():
    # D = alpha M: u'' + alpha u' + omega^2 u = 0, damping ratio zeta = alpha / (2 omega);
    # the energy envelope decays as exp(-alpha t). Newmark (trapezoidal) with
    # omega dt = 2 pi / 200: the discrete decay rate differs from alpha by
    # O((omega dt)^2) ~ 1e-3 relative; compare the energy after 2 periods with 1 %.
    alpha = 0.3
    period = 2.0 * math.pi / OMEGA
    dt = period / 200.0
    mp, strategy = oscillator(structural.ResidualBasedNewmarkDisplacementScheme(), rayleigh=(alpha, 0.0))
    history = run(mp, strategy, dt, 400)
    omega_d = OMEGA * math.sqrt(1.0 - (alpha / (2.0 * OMEGA)) ** 2)
    t = 400 * dt
    u_exact = V0 / omega_d * math.exp(-0.5 * alpha * t) * math.sin(omega_d * t)
    v_exact = V0 * math.exp(-0.5 * alpha * t) * (math.cos(omega_d * t)
                                                  - 0.5 * alpha / omega_d * math.sin(omega_d * t))
    energy = 0.5 * M_SDOF * history[-1, 1] ** 2 + 0.5 * K_SDOF * history[-1, 0] ** 2
    energy_exact = 0.5 * M_SDOF * v_exact ** 2 + 0.5 * K_SDOF * u_exact ** 2
    assert energy == pytest.approx(energy_exact, rel=1e-2)


def test_simplex_consistent_mass_is_exact():
    # int N_a N_b dA over a linear triangle = A (1 + delta_ab) / 12 (Zienkiewicz &
    # Taylor, vol. 1, sec. 16.2.3); a tetrahedron: V (1 + delta_ab) / 20.
    model = tessera.Model()
    mp = new_model_part(model)
    for i, x in enumerate([(0, 0, 0), (2, 0, 0), (0, 1, 0), (0, 0, 3)], start=1):
        mp.CreateNewNode(i, *x)
    properties = mp.GetProperties(1)
    set_material(properties, "LinearElastic3DLaw", density=5.0)
    triangle_properties = mp.GetProperties(2)
    set_material(triangle_properties, "LinearElasticPlaneStrain2DLaw", density=5.0, thickness=0.5)
    add_dofs(mp)
    tet = mp.CreateNewElement("TotalLagrangianElement3D4N", 1, [1, 2, 3, 4], properties)
    tri = mp.CreateNewElement("SmallDisplacementElement2D3N", 2, [1, 2, 3], triangle_properties)
    info = mp.ProcessInfo
    for element, dim, nodes, measure, denominator in ((tet, 3, 4, 5.0 * 1.0, 20.0),
                                                      (tri, 2, 3, 5.0 * 0.5 * 1.0, 12.0)):
        element.Initialize(info)
        mass = np.array(element.CalculateMassMatrix(info))
        expected = np.kron(measure / denominator * (np.ones((nodes, nodes)) + np.eye(nodes)), np.eye(dim))
        assert np.allclose(mass, expected, rtol=1e-13, atol=0.0)


def test_pendulus_deck_matches_kratos(case_copy):
    folder = case_copy("sm_pendulus_hyperelastic_TL")
    project = Project(folder, "pendulus_test/pendulus_TL_test_parameters.json")
    project.Run()
    # The deck's own from_json_check_result_process has already compared
    # DISPLACEMENT_Y of all 18 nodes at 44 times with Kratos' results
    # (isclose rel 1e-6, abs 1e-3); here the final values the case README quotes,
    # with the same absolute tolerance.
    mp = project.model.GetModelPart("Structure")
    expected = {16: -1.0316849, 1: -0.9999975, 3: 0.9999974, 2: 0.0}
    for node_id, value in expected.items():
        assert mp.GetNode(node_id).GetSolutionStepValue(tessera.DISPLACEMENT_Y) == pytest.approx(value, abs=1e-3)


def test_dynamic_solver_rejects_unknown_scheme_and_method(case_copy):
    folder = case_copy("sm_pendulus_hyperelastic_TL")
    path = os.path.join(folder, "pendulus_test", "pendulus_TL_test_parameters.json")
    with open(path) as f:
        deck = json.load(f)
    for key, value, message in (("scheme_type", "bdf2", "scheme_type"),
                                ("damp_factor_m", -0.5, "alpha_m"),
                                ("time_integration_method", "semi_implicit", "time_integration_method")):
        broken = json.loads(json.dumps(deck))
        broken["solver_settings"][key] = value
        with open(path, "w") as f:
            json.dump(broken, f)
        with pytest.raises(tessera.Error, match=message):
            Project(folder, "pendulus_test/pendulus_TL_test_parameters.json").Run()
