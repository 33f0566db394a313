"""Explicit central differences with lumped mass (kernel/solving/
explicit_central_differences.h, the "explicit" Dynamic solver): the bar wave
speed, energy conservation of an undamped cantilever, the critical time step,
thread-count independence, and Kratos' explicit solid beam deck run unchanged."""
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import tessera
import tessera.structural as structural
from tessera.project import Project

from structural_meshes import add_dofs, new_model_part, set_material


def strip(nx, ny, length, height, young, poisson, density, law="LinearElasticPlaneStress2DLaw"):
    """An nx x ny grid of SmallDisplacementElement2D4N on [0, length] x [0, height]
    with VELOCITY/ACCELERATION; returns the model part and the node id grid."""
    model = tessera.Model()
    mp = new_model_part(model)
    for variable in (tessera.VELOCITY, tessera.ACCELERATION):
        mp.AddNodalSolutionStepVariable(variable)
    ids = {}
    for i in range(nx + 1):
        for j in range(ny + 1):
            ids[i, j] = len(ids) + 1
            mp.CreateNewNode(ids[i, j], length * i / nx, height * j / ny, 0.0)
    properties = mp.GetProperties(1)
    set_material(properties, law, young=young, poisson=poisson, thickness=1.0, density=density)
    element_id = 0
    for i in range(nx):
        for j in range(ny):
            element_id += 1
            mp.CreateNewElement("SmallDisplacementElement2D4N", element_id,
                                [ids[i, j], ids[i + 1, j], ids[i + 1, j + 1], ids[i, j + 1]], properties)
    add_dofs(mp)
    for node in mp.Nodes:
        node.Fix(tessera.DISPLACEMENT_Z)
    mp.ProcessInfo[tessera.TIME] = 0.0
    return model, mp, ids


def explicit_strategy(mp, rayleigh_alpha=0.0):
    builder = structural.ResidualBasedEliminationBuilderAndSolver(
        structural.CreateLinearSolver(tessera.Parameters("{}")))
    strategy = structural.ExplicitCentralDifferencesStrategy(mp, builder, rayleigh_alpha=rayleigh_alpha)
    strategy.Initialize()
    return strategy


def test_bar_wave_speed_is_sqrt_e_over_rho():
    # A free bar (nu = 0, y fixed: 1D) whose left end is pushed at constant speed
    # v0 from t = 0. The compression front travels at c = sqrt(E / rho); the free
    # end stays at rest until t = L / c, then moves at 2 v0 (reflection) until
    # 3 L / c: u_tip = 2 v0 (t - L / c). A line fitted to u_tip over
    # t in [1.5, 2.5] L / c gives the arrival time, hence c. Tolerance 1 %: the
    # lumped-mass central-difference front disperses, but its low wavenumbers
    # (which carry the mean arrival) travel at c to O((k h)^2).
    E, rho, length, n = 4.0, 1.0, 1.0, 100
    c = math.sqrt(E / rho)
    model, mp, ids = strip(n, 1, length, length / n, E, 0.0, rho)
    left = [mp.GetNode(ids[0, j]) for j in (0, 1)]
    for node in mp.Nodes:
        node.Fix(tessera.DISPLACEMENT_Y)
    for node in left:
        node.Fix(tessera.DISPLACEMENT_X)
    dt_crit = structural.EstimateCriticalTimeStep(mp)
    # l_e = h for square quads; c_e = c for nu = 0
    assert dt_crit == pytest.approx((length / n) / c, rel=1e-12)
    dt = 0.5 * dt_crit
    strategy = explicit_strategy(mp)
    v0 = 1e-3
    tip = mp.GetNode(ids[n, 0])
    times, u_tip = [], []
    step = 0
    while step * dt < 2.5 * length / c:
        step += 1
        t = step * dt
        mp.CloneTimeStep(t)
        for node in left:
            node.SetSolutionStepValue(tessera.DISPLACEMENT_X, v0 * t)
        strategy.Solve()
        times.append(t)
        u_tip.append(tip.GetSolutionStepValue(tessera.DISPLACEMENT_X))
    times, u_tip = np.array(times), np.array(u_tip)
    window = (times > 1.5 * length / c) & (times < 2.5 * length / c)
    slope, intercept = np.polyfit(times[window], u_tip[window], 1)
    arrival = -intercept / slope
    assert length / arrival == pytest.approx(c, rel=0.01)
    assert slope == pytest.approx(2.0 * v0, rel=0.01)
    # before the front arrives the tip has not moved (beyond the dispersive precursor)
    assert np.max(np.abs(u_tip[times < 0.8 * length / c])) < 1e-3 * v0 * length / c


def released_cantilever(v0=1e-3):
    """A 20 x 2 quad cantilever [0, 1] x [0, 0.1] (E 1000, nu 0.3, rho 1), clamped
    at x = 0, released with v_y = v0 x^2 (close to the first bending mode);
    returns the model, the model part and the first bending period
    2 pi / omega_1, omega_1 = 1.875^2 sqrt(E I / (rho A L^4)), I = h^3 / 12."""
    E, nu, rho, length, height = 1000.0, 0.3, 1.0, 1.0, 0.1
    model, mp, ids = strip(20, 2, length, height, E, nu, rho)
    for j in range(3):
        mp.GetNode(ids[0, j]).Fix(tessera.DISPLACEMENT_X)
        mp.GetNode(ids[0, j]).Fix(tessera.DISPLACEMENT_Y)
    for node in mp.Nodes:
        node.SetSolutionStepValue(tessera.VELOCITY_Y, v0 * (node.X0 / length) ** 2)
    period = 2.0 * math.pi / (1.875 ** 2 * math.sqrt(E * height ** 2 / 12.0 / rho) / length ** 2)
    return model, mp, period


def cantilever_energy(mp):
    """Kinetic energy with the lumped mass plus strain energy 1/2 u.K u, summed over
    the elements (linear elasticity, no external load)."""
    info = mp.ProcessInfo
    kinetic = strain = 0.0
    for element in mp.Elements:
        nodes = list(element.GetGeometry())
        u = np.array([n.GetSolutionStepValue(v) for n in nodes for v in (tessera.DISPLACEMENT_X, tessera.DISPLACEMENT_Y)])
        v = np.array([n.GetSolutionStepValue(w) for n in nodes for w in (tessera.VELOCITY_X, tessera.VELOCITY_Y)])
        info[tessera.COMPUTE_LUMPED_MASS_MATRIX] = True
        mass = np.diag(np.array(element.CalculateMassMatrix(info)))
        info[tessera.COMPUTE_LUMPED_MASS_MATRIX] = False
        stiffness = np.array(element.CalculateLeftHandSide(info))
        kinetic += 0.5 * np.dot(mass * v, v)
        strain += 0.5 * u @ stiffness @ u
    return kinetic + strain


def test_undamped_cantilever_conserves_energy():
    # Central differences conserve a shadow energy; the energy
    # evaluated with full-step velocities oscillates by O((omega dt)^2), here
    # below 0.5 % (the bound) over one first-mode period.
    model, mp, period = released_cantilever()
    dt = 0.5 * structural.EstimateCriticalTimeStep(mp)
    strategy = explicit_strategy(mp)
    energy0 = cantilever_energy(mp)
    steps = int(period / dt)
    energies = []
    for step in range(1, steps + 1):
        mp.CloneTimeStep(step * dt)
        strategy.Solve()
        if step % 50 == 0:
            energies.append(cantilever_energy(mp))
    energies = np.array(energies)
    assert np.max(np.abs(energies / energy0 - 1.0)) < 5e-3
    # and the beam did swing: the tip went up and came back down
    assert min(energies) > 0.0


def test_mass_damping_decays_energy():
    # D = alpha M damps every mode at rate alpha (energy ~ exp(-alpha t)); with
    # alpha = 0.5 over one period T = 1.96 the energy drops to about
    # exp(-0.98) = 0.375; tolerance 5 % (O(dt) of the half-step damping and the
    # energy's oscillation between kinetic and strain parts for a damped mode).
    model, mp, period = released_cantilever()
    alpha = 0.5
    dt = 0.5 * structural.EstimateCriticalTimeStep(mp)
    strategy = explicit_strategy(mp, rayleigh_alpha=alpha)
    energy0 = cantilever_energy(mp)
    steps = int(period / dt)
    for step in range(1, steps + 1):
        mp.CloneTimeStep(step * dt)
        strategy.Solve()
    assert cantilever_energy(mp) / energy0 == pytest.approx(math.exp(-alpha * steps * dt), rel=0.05)


def test_explicit_deck_matches_kratos(case_copy):
    folder = case_copy("sm_explicit_solid_beam")
    project = Project(folder, "explicit_tests/explicit_solid_beam_test_parameters.json")
    stage = project.Run()
    # The deck's check_scalar_to_nodes_process has compared DISPLACEMENT_Y of the
    # tip (node 61) with -3.28e-5 (1 - cos(pi / 0.0049 (t - 1e-6))) at every one
    # of the 500 steps (assertAlmostEqual, places = 6: |diff| < 5e-7). Here: the
    # run reached the end time, and the early-time response is physical: the tip
    # cannot fall faster than free fall, |u_tip| <= g t^2 / 2 (2 % margin for the
    # one-step offset of the first acceleration).
    mp = project.model.GetModelPart("Structure")
    t = mp.ProcessInfo[tessera.TIME]
    assert t == pytest.approx(5e-4, rel=1e-9)
    u_tip = mp.GetNode(61).GetSolutionStepValue(tessera.DISPLACEMENT_Y)
    assert -0.5 * 9.81 * t * t * 1.02 < u_tip < 0.0
    assert u_tip == pytest.approx(-3.28e-5 * (1.0 - math.cos(3.14159 / 0.0049 * (t - 1e-6))), abs=5e-7)
    # the deck's dt = 1e-6 is below our estimate of the critical step
    assert 1e-6 < stage._GetSolver().critical_time_step


RUN_DECK = """
import sys, tessera, tessera.structural
from tessera.project import Project
p = Project(sys.argv[1], "explicit_tests/explicit_solid_beam_test_parameters.json")
p.Run()
for n in p.model.GetModelPart("Structure").Nodes:
    print(n.Id, repr(n.GetSolutionStepValue(tessera.DISPLACEMENT_X)), repr(n.GetSolutionStepValue(tessera.DISPLACEMENT_Y)),
          repr(n.GetSolutionStepValue(tessera.VELOCITY_Y)))
"""


def test_explicit_results_do_not_depend_on_the_thread_count(case_copy):
    folder = case_copy("sm_explicit_solid_beam")
    outputs = []
    for threads in ("1", "2"):
        env = dict(os.environ, OMP_NUM_THREADS=threads)
        result = subprocess.run([sys.executable, "-c", RUN_DECK, folder], env=env, capture_output=True,
                                text=True, check=True)
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1]  # bitwise: coloured assembly, per-dof updates


@pytest.mark.parametrize("key, value, message", [
    ("scheme_type", "multi_stage", "scheme_type"),
    ("rayleigh_beta", 0.1, "rayleigh_beta"),
    ("time_step_prediction_level", 2, "time_step_prediction_level"),
    ("time_stepping", {"time_step": 1e-4}, "critical time step"),
])
def test_explicit_solver_rejects_what_it_cannot_do(case_copy, key, value, message):
    folder = case_copy("sm_explicit_solid_beam")
    path = os.path.join(folder, "explicit_tests", "explicit_solid_beam_test_parameters.json")
    with open(path) as f:
        deck = json.load(f)
    deck["solver_settings"][key] = value
    with open(path, "w") as f:
        json.dump(deck, f)
    with pytest.raises(tessera.Error, match=message):
        Project(folder, "explicit_tests/explicit_solid_beam_test_parameters.json").Run()


def test_predicted_time_step_is_a_fraction_of_the_critical_one(case_copy):
    folder = case_copy("sm_explicit_solid_beam")
    path = os.path.join(folder, "explicit_tests", "explicit_solid_beam_test_parameters.json")
    with open(path) as f:
        deck = json.load(f)
    deck["solver_settings"]["time_step_prediction_level"] = 1
    deck["solver_settings"]["fraction_delta_time"] = 0.5
    deck["problem_data"]["end_time"] = 2e-5
    with open(path, "w") as f:
        json.dump(deck, f)
    project = Project(folder, "explicit_tests/explicit_solid_beam_test_parameters.json")
    stage = project.Run()
    solver = stage._GetSolver()
    assert solver.ComputeDeltaTime() == pytest.approx(0.5 * solver.critical_time_step, rel=1e-12)
