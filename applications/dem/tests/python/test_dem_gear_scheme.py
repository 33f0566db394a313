"""Gear_Predictor_Corrector: the five-value Gear scheme of the smooth DEM
strategy (applications/dem/strategies/gear_scheme.h; digest seed002 §A8,
coefficients 19/120, 3/4, 1, 1/2, 1/12 of Allen & Tildesley 1987, app. E).

Set-up: a sphere (R = 0.01 m, ρ = 2500, E = 1e6, ν = 0.25) and plane walls of
the same material, the linear law with the thesis' wall stiffness
k = 2 E* R, E* = E / (2 (1 - ν²)) (test_dem_contact_laws.py checks that k),
e = 1 (no dashpot), no friction, no gravity.

Sources and tolerances:
- Impact on a plane at v0 = 0.1 m/s (a linear spring while touching): the
  contact lasts half a period, t_c = π √(m/k), the overlap peaks at
  δ_max = v0 √(m/k) and the sphere leaves at v0 (closed form). At 40 steps
  per contact Gear gives t_c within 2e-5, δ_max within 3e-4 and the exit
  speed within 1e-6 (measured -5.1e-6, -1.34e-4, 1.4e-7; Symplectic Euler
  -2.6e-4, 4.1e-4, -1.3e-5). The force's kink at the onset limits Gear
  there: measured from 20 to 160 steps per contact, t_c falls as Δt³, δ_max
  (and the energy during the contact) as Δt², the exit speed faster.
- Order: the sphere held between two walls, overlapping each by d, swinging
  with amplitude A < d about the middle: a linear oscillator of stiffness 2k,
  z = z_eq + A cos(ω t), ω = √(2k/m), never leaving either wall. With the
  exact starting derivatives (a' = 0, a'' = ω⁴ A, set through
  SetGearDerivatives) the largest position and velocity errors over two
  periods fall with Δt at the scheme's order or better: the five-value
  method is exact for motion polynomial to degree 4 (order 4, Allen &
  Tildesley app. E); measured 4.8 and 4.9 (position), 4.8 and 4.7
  (velocity) from 16 to 32 to 64 steps per period, asserted >= 3.8 each.
  Started as Initialize starts it (a' = a'' = 0) the missing a'' leaves a
  velocity error of order 3 (measured 3.02, asserted in (2.5, 3.5)).
- Energy, compared with Symplectic Euler: kinetic + elastic energy (the
  strategy's KineticEnergy and ContactElasticEnergy, ½ k δ²) through the
  single contact above at 40 steps: largest deviation 2.7e-4 (Gear) against
  3.9e-2 (Symplectic Euler), asserted 10x smaller; and the elastic gas of
  test_dem_adaptive_search.py (1,000 frictionless spheres, e = 1, closed
  box, 3,000 steps of about 49 per contact, adaptive search at frequency
  10): largest deviation over the run 5.8e-5 (Gear) against 2.5e-3
  (Symplectic Euler; Velocity Verlet 3.2e-5), asserted < 1e-4 and 10x
  smaller than Symplectic Euler's.
- A name that is not a scheme: the error lists every valid name.
"""
import math

import numpy as np
import pytest

import tessera

from cluster_test_models import ClusterModel, WriteClu
from dem_test_utilities import Material, Relate, Run, Settings, Sphere, SpheresPart, SquarePlate

RADIUS, DENSITY, YOUNG, POISSON = 0.01, 2500.0, 1e6, 0.25
E_STAR = YOUNG / (2 * (1 - POISSON**2))
STIFFNESS = 2 * E_STAR * RADIUS
MASS = DENSITY * 4.0 / 3.0 * math.pi * RADIUS**3
SCHEMES = ("Forward_Euler", "Symplectic_Euler", "Taylor_Scheme", "Velocity_Verlet",
           "Gear_Predictor_Corrector")


def Dem():
    from tessera import _dem
    return _dem


def SphereBetweenPlanes(scheme, dt, z, velocity, ceiling=None):
    """The sphere at height z over a floor at 0 (and under a ceiling at
    `ceiling`), moving at `velocity` along z; returns the initialised strategy."""
    model = tessera.Model()
    spheres = SpheresPart(model)
    walls = model.CreateModelPart("RigidFacePart")
    grain = Material(spheres, 1, density=DENSITY, young=YOUNG, poisson=POISSON)
    Relate(grain, grain, restitution=1.0, static_friction=0.0,
           law="DEM_D_Linear_viscous_Coulomb")
    Sphere(spheres, 1, (0.0, 0.0, z), RADIUS, grain, velocity=(0.0, 0.0, velocity))
    SquarePlate(walls, grain, name="floor", half=0.1, z=0.0, first_id=1)
    if ceiling is not None:
        SquarePlate(walls, grain, name="ceiling", half=0.1, z=ceiling, first_id=5)
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, Settings(dt, scheme))
    strategy.Initialize()
    return strategy


def test_a_scheme_name_that_is_not_known_lists_the_valid_names():
    settings = Dem().DemSettings()
    with pytest.raises(Exception) as error:
        settings.translational_scheme = "Gear"
    for name in SCHEMES:
        assert name in str(error.value)
    settings.translational_scheme = "Gear_Predictor_Corrector"
    assert settings.translational_scheme == "Gear_Predictor_Corrector"


def test_the_project_parameters_accept_gear_and_name_the_schemes_otherwise():
    from tessera.dem import dem_parameters
    assert "Gear_Predictor_Corrector" in dem_parameters.TRANSLATIONAL_SCHEMES
    assert set(SCHEMES) == set(dem_parameters.TRANSLATIONAL_SCHEMES)


def Impact(scheme, steps_per_contact):
    """The sphere hitting the floor at 0.1 m/s; returns contact duration, peak
    overlap, exit speed and the largest relative deviation of kinetic +
    elastic energy, with the closed form's t_c."""
    v0 = 0.1
    contact_time = math.pi * math.sqrt(MASS / STIFFNESS)
    dt = contact_time / steps_per_contact
    # Touches 2.3 steps in (not at a step's end).
    strategy = SphereBetweenPlanes(scheme, dt, RADIUS + 2.3 * dt * v0, -v0)
    initial = strategy.KineticEnergy()
    times, overlaps, energy = [0.0], [RADIUS - strategy.Particles.position[0][2]], []
    rates = [v0]  # of the overlap

    def record(time):
        times.append(time)
        overlaps.append(RADIUS - strategy.Particles.position[0][2])
        rates.append(-strategy.Particles.velocity[0][2])
        energy.append((strategy.KineticEnergy() + strategy.ContactElasticEnergy()) / initial - 1)

    Run(strategy, steps_per_contact + 10, dt, record)
    times, overlaps = np.array(times), np.array(overlaps)
    # Duration: the zero crossings of the overlap, linearly interpolated.
    crossings = []
    for k in range(len(overlaps) - 1):
        if (overlaps[k] > 0) != (overlaps[k + 1] > 0):
            crossings.append(times[k] + (times[k + 1] - times[k]) * overlaps[k] /
                             (overlaps[k] - overlaps[k + 1]))
    assert len(crossings) == 2
    # Peak: the largest of the cubic Hermite interpolant of overlap and rate
    # over the step where the rate changes sign (its error O(Δt⁴), below
    # the schemes').
    k = next(k for k in range(len(rates) - 1) if rates[k] > 0 >= rates[k + 1])
    h = times[k + 1] - times[k]
    s = np.linspace(0.0, 1.0, 2001)
    hermite = ((2 * s**3 - 3 * s**2 + 1) * overlaps[k] + (s**3 - 2 * s**2 + s) * h * rates[k] +
               (-2 * s**3 + 3 * s**2) * overlaps[k + 1] + (s**3 - s**2) * h * rates[k + 1])
    peak = hermite.max()
    exit_speed = strategy.Particles.velocity[0][2]
    return (crossings[1] - crossings[0], peak, exit_speed, max(abs(e) for e in energy),
            contact_time, v0)


def test_gear_gives_the_contact_duration_and_overlap_of_the_linear_spring():
    duration, peak, exit_speed, _, contact_time, v0 = Impact("Gear_Predictor_Corrector", 40)
    se = Impact("Symplectic_Euler", 40)
    peak_exact = v0 * math.sqrt(MASS / STIFFNESS)
    print(f"Gear: t_c {duration / contact_time - 1:.2e}, δ_max {peak / peak_exact - 1:.2e}, "
          f"exit {exit_speed / v0 - 1:.2e}; Symplectic Euler: t_c {se[0] / contact_time - 1:.2e}, "
          f"δ_max {se[1] / peak_exact - 1:.2e}, exit {se[2] / v0 - 1:.2e}")
    assert duration == pytest.approx(contact_time, rel=2e-5)
    assert peak == pytest.approx(peak_exact, rel=3e-4)
    assert exit_speed == pytest.approx(v0, rel=1e-6)


def test_gear_keeps_the_elastic_contact_energy_closer_than_symplectic_euler():
    gear = Impact("Gear_Predictor_Corrector", 40)[3]
    euler = Impact("Symplectic_Euler", 40)[3]
    print(f"largest energy deviation through the contact: Gear {gear:.2e}, "
          f"Symplectic Euler {euler:.2e}")
    assert gear < 0.1 * euler


def test_gear_keeps_the_elastic_gas_energy_closer_than_symplectic_euler():
    from test_dem_adaptive_search import (DT, TOLERANCE, ElasticGas, MechanicalEnergy)
    worst = {}
    for scheme in ("Gear_Predictor_Corrector", "Symplectic_Euler"):
        spheres, walls = ElasticGas()
        settings = Settings(DT, scheme=scheme, search_frequency=10, tolerance=TOLERANCE)
        strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
        strategy.Initialize()
        start = MechanicalEnergy(strategy)
        worst[scheme] = 0.0

        def record(time):
            worst[scheme] = max(worst[scheme], abs(MechanicalEnergy(strategy) / start - 1))

        Run(strategy, 3000, DT, record)
    print("elastic gas, largest energy deviation:", worst)
    assert worst["Gear_Predictor_Corrector"] < 1e-4
    assert worst["Gear_Predictor_Corrector"] < 0.1 * worst["Symplectic_Euler"]


def OscillatorErrors(steps_per_period, exact_start):
    """Largest position and velocity errors over two periods of the sphere
    between two walls (see the module docstring)."""
    d, amplitude = 2e-4, 1e-4
    omega = math.sqrt(2 * STIFFNESS / MASS)
    dt = 2 * math.pi / omega / steps_per_period
    z_eq = RADIUS - d
    strategy = SphereBetweenPlanes("Gear_Predictor_Corrector", dt, z_eq + amplitude, 0.0,
                                   ceiling=2 * RADIUS - 2 * d)
    p = strategy.Particles
    assert p.gear[0][0][2] == pytest.approx(-omega**2 * amplitude, rel=1e-9)  # a = F/m
    if exact_start:
        p.SetGearDerivatives(0, [0.0, 0.0, -omega**2 * amplitude], [0.0, 0.0, 0.0],
                             [0.0, 0.0, omega**4 * amplitude])
    position, velocity = 0.0, 0.0

    def record(time):
        nonlocal position, velocity
        z, w = strategy.Particles.position[0][2], strategy.Particles.velocity[0][2]
        position = max(position, abs(z - z_eq - amplitude * math.cos(omega * time)))
        velocity = max(velocity, abs(w + amplitude * omega * math.sin(omega * time)))
        assert strategy.NumberOfWallContacts() == 2  # both walls all along

    Run(strategy, 2 * steps_per_period, dt, record)
    return position / amplitude, velocity / (amplitude * omega)


def test_gear_converges_at_its_order_on_a_linear_oscillator():
    errors = [OscillatorErrors(n, exact_start=True) for n in (16, 32, 64)]
    orders = [(math.log2(a[0] / b[0]), math.log2(a[1] / b[1])) for a, b in zip(errors, errors[1:])]
    print("Gear errors (position, velocity)/amplitude:", errors, "orders:", orders)
    for position_order, velocity_order in orders:
        assert position_order >= 3.8
        assert velocity_order >= 3.8
    # Started as Initialize starts it: the missing a'' costs a velocity order.
    cold = [OscillatorErrors(n, exact_start=False) for n in (32, 64)]
    cold_order = math.log2(cold[0][1] / cold[1][1])
    print("cold start velocity errors:", cold, "order:", cold_order)
    assert 2.5 < cold_order < 3.5


def test_gear_refuses_clusters_and_names_the_alternatives(tmp_path):
    clu = WriteClu(tmp_path / "one.clu", [(0.0, 0.0, 0.0, 0.01)], 0.02, 4.18879e-6,
                   (4e-5, 4e-5, 4e-5))
    model, spheres, clusters, walls, _ = ClusterModel(clu, [(0.0, 0.0, 0.5)], 0.02)
    strategy = Dem().ExplicitSolverStrategy(spheres, None,
                                            Settings(1e-5, "Gear_Predictor_Corrector"))
    strategy.SetClusterModelPart(clusters)
    with pytest.raises(Exception, match="Gear_Predictor_Corrector.*Cluster3D"):
        strategy.Initialize()


def test_gear_flies_the_parabola_exactly_and_keeps_fixed_components():
    # Thesis B2.1 (test_dem_integration.py): v0 = 1 m/s up, g = -10, Δt = 0.02,
    # 10 steps. Gear starts a = g exactly and a' = a'' = 0 are exact for a
    # constant force, so its polynomial prediction is the motion: y(0.2) = 0,
    # v(0.2) = -1 to round-off (1e-14). A fixed VELOCITY_X moves x at that
    # velocity and is not integrated.
    from dem_test_utilities import Material as DemMaterial
    model = tessera.Model()
    spheres = SpheresPart(model)
    material = DemMaterial(spheres, 1, density=1000.0)
    Sphere(spheres, 1, (0.0, 0.0, 0.0), 0.01, material, velocity=(2.0, 1.0, 0.0))
    node = spheres.GetNode(1)
    node.AddDof(tessera.VELOCITY_X)
    node.Fix(tessera.VELOCITY_X)
    strategy = Dem().ExplicitSolverStrategy(
        spheres, None, Settings(0.02, "Gear_Predictor_Corrector", (-10.0, -10.0, 0.0)))
    strategy.Initialize()
    Run(strategy, 10, 0.02)
    strategy.WriteToNodes()
    assert node.Y == pytest.approx(0.0, abs=1e-14)
    assert node.GetSolutionStepValue(tessera.VELOCITY_Y) == pytest.approx(-1.0, abs=1e-14)
    assert node.GetSolutionStepValue(tessera.VELOCITY_X) == 2.0
    assert node.X == pytest.approx(0.4, abs=1e-14)


@pytest.mark.parametrize("rotation,angle_steps", [
    ("Direct_Integration", lambda n: n * n / 2.0),
    ("Quaternion_Integration", lambda n: n * (n + 1) / 2.0)])
def test_gear_turns_a_sphere_under_a_constant_moment(rotation, angle_steps):
    # As test_dem_integration.py's rotational schemes: ω = n a Δt; the angle
    # is a Δt² n²/2 with Direct_Integration (Gear on the angle: exact for a
    # constant acceleration) and n(n+1)/2 with the symplectic turn; rel 1e-12.
    from dem_test_utilities import SphereUnderMoment
    moment = np.array([1e-6, -2e-6, 3e-6])
    _, spheres = SphereUnderMoment(moment)
    settings = Settings(1e-3, "Gear_Predictor_Corrector")
    settings.rotational_scheme = rotation
    strategy = Dem().ExplicitSolverStrategy(spheres, None, settings)
    strategy.Initialize()
    assert len(strategy.Particles.gear[3]) == (1 if rotation == "Direct_Integration" else 0)
    n, dt = 40, 1e-3
    Run(strategy, n, dt)
    alpha = moment / strategy.Particles.inertia[0]
    np.testing.assert_allclose(strategy.Particles.angular_velocity[0], n * alpha * dt, rtol=1e-12)
    np.testing.assert_allclose(strategy.Particles.rotation_angle[0],
                               angle_steps(n) * alpha * dt * dt, rtol=1e-12)


def test_gear_columns_exist_only_under_gear():
    strategy = SphereBetweenPlanes("Symplectic_Euler", 1e-5, 0.5, 0.0)
    assert all(len(column) == 0 for column in strategy.Particles.gear)
    strategy = SphereBetweenPlanes("Gear_Predictor_Corrector", 1e-5, 0.5, 0.0)
    # (The settings' default rotation is Direct_Integration: the angle's too.)
    assert [len(column) for column in strategy.Particles.gear] == [1] * 6


def test_gear_runs_are_bitwise_the_same_on_one_and_two_threads():
    # A frictional pile of 600 spheres with gravity, 100 steps, searching
    # every 7: the prediction and the correction are row by row, so the
    # thread count changes nothing (bitwise).
    from dem_test_utilities import ParallelThreads, Pile
    runs = []
    for threads in (1, 2):
        _, spheres, walls = Pile(600, spacing=0.0125)
        settings = Settings(2e-5, "Gear_Predictor_Corrector", (0, 0, -9.81), search_frequency=7,
                            tolerance=0.001)
        with ParallelThreads(threads):
            strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
            strategy.Initialize()
            Run(strategy, 100, 2e-5)
        runs.append(strategy)
    assert runs[0].NumberOfParticleContacts() > 0
    for column in ("position", "velocity", "angular_velocity", "force"):
        a, b = (np.asarray(getattr(s.Particles, column)) for s in runs)
        assert np.array_equal(a, b), column
    for k in range(6):
        assert np.array_equal(runs[0].Particles.gear[k], runs[1].Particles.gear[k])


def test_spheres_an_inlet_inserts_start_gear_from_their_weight():
    # An inlet model with no sphere at Initialize (the Gear columns follow the
    # rows from none), g = -10 z, Δt 1e-3, spheres injected at -1 m/s: each
    # starts with a = g (its weight, test_dem_inlets.py's set-up), so Gear
    # (exact for a constant force) gives v = -1 + g (t - t_in) to 1e-12.
    from test_dem_inlets import Grid, InletModel
    model, _ = InletModel(Grid(4, 0.05), {"INLET_NUMBER_OF_PARTICLES": 200.0, "RADIUS": 0.01,
                                          "VELOCITY": [0.0, 0.0, -1.0]})
    dem = Dem()
    strategy = dem.ExplicitSolverStrategy(model.GetModelPart("SpheresPart"), None,
                                          Settings(1e-3, "Gear_Predictor_Corrector", (0, 0, -10.0)))
    inlets = dem.ParticleInlets(model.GetModelPart("DEMInletPart"), strategy, 42, {})
    strategy.Initialize()
    assert len(strategy.Particles) == 0
    inserted = []  # (first row, step) of each injection
    for step in range(1, 101):
        strategy.SolveSolutionStep(step * 1e-3)
        before = len(strategy.Particles)
        inlets.Inject(step * 1e-3)
        if len(strategy.Particles) > before:
            inserted.append((before, step))
    p = strategy.Particles
    assert len(p) > 0 and [len(column) for column in p.gear] == [len(p)] * 6
    for row, step in inserted:
        assert p.velocity[row][2] == pytest.approx(-1.0 - 10.0 * (100 - step) * 1e-3, abs=1e-12)


def test_a_gear_run_with_an_inlet_continues_bitwise_from_a_checkpoint(tmp_path, monkeypatch):
    # test_dem_restart.py's inlet deck (moving floor, inlet injecting before
    # and after K) under Gear: N = 300 steps straight against K = 245 + a
    # checkpoint + 55 in a fresh model. Gear's derivatives are part of the
    # checkpoint: the continued run repeats the straight one bitwise (rows,
    # nodes and every dataset of the final checkpoints).
    from test_dem_restart import DT, AssertBitwiseEqual, StraightAndContinued, WriteInletDeck
    monkeypatch.chdir(tmp_path)
    parameters_file = WriteInletDeck(tmp_path,
                                     TranslationalIntegrationScheme="Gear_Predictor_Corrector")
    straight, first, continued = StraightAndContinued(str(tmp_path), parameters_file, 300, 245, DT)
    assert first.counts[1] > 0 and first.counts[2] > 0  # contacts at K
    AssertBitwiseEqual(straight, continued)


def test_a_gear_run_on_a_free_floor_continues_bitwise_from_a_checkpoint(tmp_path, monkeypatch):
    # test_dem_restart's free-floor inlet deck (the floor a FREE_BODY_MOTION
    # body pushed along y) under Gear: N = 300 steps straight against
    # K = 245 + a checkpoint + 55. The floor's Gear derivatives (a, a', a'' of
    # its centre) are in the checkpoint: the continued run repeats the
    # straight one bitwise, the floor moving.
    from test_dem_free_walls import FREE_FLOOR_PART
    from test_dem_restart import (DT, MOVING_FLOOR, AssertBitwiseEqual, StraightAndContinued,
                                  WriteInletDeck)
    monkeypatch.chdir(tmp_path)
    walls = MOVING_FLOOR.split("Begin SubModelPart")[0] + FREE_FLOOR_PART
    parameters_file = WriteInletDeck(tmp_path, walls=walls,
                                     TranslationalIntegrationScheme="Gear_Predictor_Corrector")
    straight, first, continued = StraightAndContinued(str(tmp_path), parameters_file, 300, 245, DT)
    assert first.counts[2] > 0 and len(first.free_walls) == 1
    assert np.linalg.norm(first.free_walls[0]["velocity"]) > 1e-3  # the floor moves
    AssertBitwiseEqual(straight, continued)
