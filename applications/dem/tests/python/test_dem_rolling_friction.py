"""Rolling resistance (RollingFrictionOption, contact_laws/rolling_friction.h).

Sources and tolerances (rigid-body mechanics of a solid sphere, I = 2/5 m R²,
on a horizontal plane):
- Constant torque M_r = μ_r R |F_n| (R_r = R against a wall, thesis 2.42).
  While sliding (friction μ): v' = -μ g, ω' R = 5/2 (μ - μ_r) g, so pure rolling
  starts at v_roll = v0 (1 - μ / (7/2 μ - 5/2 μ_r)) (5/7 v0 for μ_r = 0). Then,
  about the contact point, 7/5 m R² ω' = -μ_r R m g: a = -5/7 μ_r g, and the
  sphere stops after s = 7 v_roll² / (10 μ_r g). Both checked to 1 % (the
  contact arm R - δ, δ/R ~ 2e-3, and the spring phase of the tangential law
  are the deviation).
- Viscous torque M_r = μ_r |F_n| R (R ω): 7/5 m R² ω' = -μ_r m g R² ω, so in
  pure rolling v decays as exp(-5/7 μ_r g t). Checked to 1 % over 0.4 s.
- Against a wall the material relation's ROLLING_FRICTION acts, as in Kratos'
  rolling models (they read the relation); a relation's
  ROLLING_FRICTION_WITH_WALLS, ten times larger here, changes nothing (same
  1 % stopping distance).
- The rolling torque is summed per contact like the other forces: one and two
  threads give bitwise the same run.
- Bad input: an unknown model name is an error naming it.
"""
import numpy as np
import pytest

import tessera

from dem_test_utilities import Face, Material, Relate, Run, Settings, Sphere, SpheresPart

CONSTANT = "DEMRollingFrictionModelConstantTorque"
VISCOUS = "DEMRollingFrictionModelViscousTorque"


def Dem():
    from tessera import _dem
    return _dem


def LaunchedSphere(model_name, rolling, friction=0.3, v0=0.3, dt=1e-5, option=True,
                   rolling_with_walls=None):
    model = tessera.Model()
    spheres = SpheresPart(model)
    walls = model.CreateModelPart("RigidFacePart")
    grain = Material(spheres, 1, density=2500.0, young=1e7, poisson=0.25)
    wall = Material(walls, 2, young=1e12, poisson=0.25)
    Relate(grain, wall, restitution=0.3, static_friction=friction, rolling_friction=rolling,
           rolling_model=model_name)
    if rolling_with_walls is not None:
        for owner, other in ((grain, wall), (wall, grain)):
            owner.GetSubProperties(other.Id).SetValue(tessera.ROLLING_FRICTION_WITH_WALLS,
                                                      rolling_with_walls)
    radius = 0.01
    Sphere(spheres, 1, (0.0, 0.0, radius - 1.7e-5), radius, grain, velocity=(v0, 0.0, 0.0))
    Face(walls, 1, [(-1, -1, 0), (1, -1, 0), (1, 1, 0), (-1, 1, 0)], wall)
    strategy = Dem().ExplicitSolverStrategy(
        spheres, walls, Settings(dt, "Symplectic_Euler", (0, 0, -9.81), rolling_friction=option))
    strategy.Initialize()
    return model, strategy


def Trace(strategy, steps, dt):
    x, v, spin = [], [], []

    def record(time):
        p = strategy.Particles
        x.append(p.position[0][0])
        v.append(p.velocity[0][0])
        spin.append(p.angular_velocity[0][1])

    Run(strategy, steps, dt, record)
    return np.array(x), np.array(v), np.array(spin)


@pytest.mark.parametrize("rolling_with_walls", [None, 0.5])
def test_constant_torque_rolls_at_the_analytic_speed_and_stops_at_the_analytic_distance(
        rolling_with_walls):
    mu, mu_r, v0, g, radius, dt = 0.3, 0.05, 0.3, 9.81, 0.01, 1e-5
    model, strategy = LaunchedSphere(CONSTANT, mu_r, mu, v0, dt,
                                     rolling_with_walls=rolling_with_walls)
    v_roll = v0 * (1 - mu / (3.5 * mu - 2.5 * mu_r))
    stop_time = 2 * v0 / (7 * mu * g) + 7 * v_roll / (5 * mu_r * g)
    x, v, spin = Trace(strategy, int(1.15 * stop_time / dt), dt)
    rolling = np.nonzero(v - spin * radius < 1e-3 * v0)[0][0]
    assert v[rolling] == pytest.approx(v_roll, rel=1e-2)
    distance = x[-1] - x[rolling]
    assert distance == pytest.approx(7 * v[rolling] ** 2 / (10 * mu_r * g), rel=1e-2)
    # At rest for good: no creeping back or forth once stopped.
    assert abs(v[-1]) < 1e-4 * v0 and abs(x[-1] - x[-1000]) < 1e-6 * radius


def test_viscous_torque_decays_the_rolling_speed_exponentially():
    mu, mu_r, v0, g, radius, dt = 0.3, 0.1, 0.3, 9.81, 0.01, 1e-5
    model, strategy = LaunchedSphere(VISCOUS, mu_r, mu, v0, dt)
    steps = int((2 * v0 / (7 * mu * g) + 0.5) / dt)
    x, v, spin = Trace(strategy, steps, dt)
    rolling = np.nonzero(v - spin * radius < 1e-3 * v0)[0][0]
    later = rolling + int(0.4 / dt)
    assert v[later] / v[rolling] == pytest.approx(np.exp(-5 / 7 * mu_r * g * 0.4), rel=1e-2)


def test_rolling_friction_off_leaves_the_five_sevenths_rule():
    # The same relation (μ_r = 0.05) with RollingFrictionOption false: no
    # rolling resistance at all, the sphere rolls on at 5/7 v0.
    mu, v0, dt = 0.3, 0.3, 1e-5
    model, strategy = LaunchedSphere(CONSTANT, 0.05, mu, v0, dt, option=False)
    x, v, spin = Trace(strategy, int(4 * v0 / (7 * mu * 9.81) / dt), dt)
    assert v[-1] == pytest.approx(5 / 7 * v0, rel=1e-2)
    assert v[-1] == pytest.approx(v[len(v) * 3 // 4], rel=1e-6)


@pytest.mark.parametrize("model_name", [CONSTANT, VISCOUS])
def test_one_and_two_threads_give_bitwise_the_same_run_with_rolling_friction(model_name):
    from dem_test_utilities import Pile

    def run(threads):
        model, spheres, walls = Pile(600, spacing=0.0125, rolling=(0.05, model_name))
        previous = tessera.GetParallelThreads()
        tessera.SetParallelThreads(threads)
        try:
            strategy = Dem().ExplicitSolverStrategy(
                spheres, walls,
                Settings(2e-5, "Symplectic_Euler", (0, 0, -9.81), rolling_friction=True))
            strategy.Initialize()
            Run(strategy, 100, 2e-5)
        finally:
            tessera.SetParallelThreads(previous)
        p = strategy.Particles
        return strategy, p.torque, p.angular_velocity, p.position

    one, two = run(1), run(2)
    assert one[0].NumberOfParticleContacts() > 50 and one[0].NumberOfWallContacts() > 2
    for a, b in zip(one[1:], two[1:]):
        assert np.array_equal(a, b)  # bitwise


def test_an_unknown_rolling_friction_model_is_an_error_naming_it():
    with pytest.raises(tessera.Error, match="DEMRollingFrictionModelBounded.*provides"):
        LaunchedSphere("DEMRollingFrictionModelBounded", 0.05)


def test_the_unknown_model_error_names_the_key_and_every_model_of_the_list():
    """The names come from the list of models (rolling_friction.h), none left out."""
    with pytest.raises(tessera.Error) as error:
        LaunchedSphere("DEMRollingFrictionModelBounded", 0.05)
    message = str(error.value)
    assert "DEM_ROLLING_FRICTION_MODEL_NAME 'DEMRollingFrictionModelBounded'" in message
    assert message.endswith("provides DEMRollingFrictionModelConstantTorque, "
                            "DEMRollingFrictionModelViscousTorque")


def test_a_negative_rolling_friction_is_an_error():
    with pytest.raises(tessera.Error, match="ROLLING_FRICTION .*must be >= 0, got -0.1"):
        LaunchedSphere(CONSTANT, -0.1)
