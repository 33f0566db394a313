"""MoreauJeanStrategy (applications/dem/nonsmooth): non-smooth contact
dynamics of DEM spheres and rigid walls, against closed forms.

Sources (digest ../shared/reference/seed002_003_nonsmooth.md):
- Table 5.1 (thesis 003): one Moreau-Jean step (theta = 1) of two touching
  spheres gives the binary impulses, 1e-9 relative (the step solves the same
  velocity-level Newton-Coulomb law; all four cases slide, so e_t does not
  enter). Cases 5, 6 = case 1 permuted.
- §C2.2 sphere on a wall, oblique: v = (1, 0, -1), e = 0.9, mu = 0.15:
  L_n = 1.9 m, slip, v_t+ = 0.715, v_z+ = 0.9, |w+| = 28.5 rad/s (1e-12).
- §A5/A9 the paradox: a ball arriving at v on the wall gets the impulse
  (1 + e) m |v| whatever the step h (1e-12), so its mean contact force is
  (1 + e) m |v| / h: forces of impacts depend on the step, impulses do not.
- §C2.3 bouncing ball (h0 = 1 m, e = 0.9): first impact at 0.451524 s,
  4.429447 m/s; rest from t_inf = t1 (1 + e)/(1 - e) = 8.578957 s, then
  P_N = m g h per step, no drift, no chatter.
- §C2.4 sliding block (v0 = 1, mu = 0.3): stops at v0/(mu g) = 0.339789 s
  after v0^2/(2 mu g) = 0.169895 m. §C2.6 rolling sphere (v0 = 1, mu = 0.2):
  rolls from 2 v0/(7 mu g) = 0.145623 s at 5 v0/7 = 0.714286 m/s, after
  12 v0^2/(49 mu g) = 0.124820 m.
"""
import math

import numpy as np
import pytest

import tessera

from nonsmooth_models import Scene, Strategy
from nonsmooth_test_cases import Direction

R = 0.025
M = 7850.0 * 4.0 / 3.0 * math.pi * R ** 3
G = 9.81
TABLE_5_1 = {1: (1.3805333130, 0.2070799969), 2: (1.3334927811, 0.2000239172),
             3: (1.1955769198, 0.1793365380), 4: (0.9761844673, 0.1464276701)}


@pytest.mark.parametrize("case", [1, 2, 3, 4, 5, 6])
def test_one_step_of_two_touching_spheres_gives_table_5_1(case):
    theta = {1: 45.0, 2: 30.0, 3: 15.0, 4: 0.0, 5: 45.0, 6: 45.0}[case]
    d = Direction(theta, {5: 1, 6: 2}.get(case, 0))
    _, spheres, _ = Scene([((0.0, 0.0, 0.0), R, (1.0, 1.0, 1.0)),
                           (tuple(2.0 * R * d), R, (-1.0, -1.0, -1.0))])
    # theta = 1 poses the contact problem at q_m = q, where the spheres touch
    # with the Table's normal (at theta < 1 the normal of q_m turns by the
    # relative motion over (1 - theta) h).
    strategy = Strategy(spheres, None, 1e-4, tolerance=1e-14, tangential_restitution=0.9,
                        theta=1.0)
    strategy.SolveSolutionStep(1e-4)
    (contact,) = strategy.ContactImpulses()
    pn, pt1, pt2 = contact["local_impulse"]
    ln, lt = TABLE_5_1[{5: 1, 6: 1}.get(case, case)]
    assert pn == pytest.approx(ln, rel=1e-9)
    assert math.hypot(pt1, pt2) == pytest.approx(lt, rel=1e-9)
    from tessera import _dem
    from nonsmooth_test_cases import Binary, Material
    bodies = Binary(case)
    closed = _dem.BinaryImpactClosedForm(bodies[0], bodies[1], Material())
    np.testing.assert_allclose(strategy.Particles.velocity, closed["velocity"], atol=1e-12)
    np.testing.assert_allclose(strategy.Particles.angular_velocity, closed["angular_velocity"],
                               atol=1e-9)
    assert strategy.LastStep()["iterations"] <= 2  # one contact: exact in one sweep


def test_sphere_on_a_wall_oblique():
    _, spheres, walls = Scene([((0.3, 0.2, R), R, (1.0, 0.0, -1.0))], floor=0.0)
    strategy = Strategy(spheres, walls, 1e-5, tolerance=1e-14)
    strategy.SolveSolutionStep(1e-5)
    (contact,) = strategy.ContactImpulses()
    assert contact["j"] == -1
    assert contact["local_impulse"][0] == pytest.approx(1.9 * M, rel=1e-12)
    v = strategy.Particles.velocity[0]
    w = strategy.Particles.angular_velocity[0]
    assert v[0] == pytest.approx(0.715, rel=1e-12)
    assert v[2] == pytest.approx(0.9, rel=1e-12)
    assert np.linalg.norm(w) == pytest.approx(28.5, rel=1e-12)


@pytest.mark.parametrize("restitution", [0.0, 0.9])
def test_impulse_of_an_impact_does_not_depend_on_the_step(restitution):
    impulses, forces = [], []
    for h in (1e-2, 1e-3, 1e-4):
        _, spheres, walls = Scene([((0.0, 0.0, R), R, (0.0, 0.0, -1.0))], floor=0.0,
                                  restitution=restitution, friction=0.0)
        strategy = Strategy(spheres, walls, h, tolerance=1e-14)
        strategy.SolveSolutionStep(h)
        impulses.append(strategy.ContactImpulses()[0]["local_impulse"][0])
        forces.append(strategy.Particles.contact_force[0][2])
        assert strategy.Particles.velocity[0][2] == pytest.approx(restitution, abs=1e-14)
        assert strategy.Particles.position[0][2] == pytest.approx(R + 0.5 * h * (restitution - 1.0),
                                                                  rel=1e-12)
    np.testing.assert_allclose(impulses, (1.0 + restitution) * M, rtol=1e-12)
    # The mean force of the impact, P/h, grows as 1/h (the paradox of §A5).
    np.testing.assert_allclose(np.array(forces) * np.array([1e-2, 1e-3, 1e-4]),
                               (1.0 + restitution) * M, rtol=1e-12)


def BouncingBall(h, final_time, activation="predicted_gap"):
    _, spheres, walls = Scene([((0.0, 0.0, 1.0 + R), R, (0.0, 0.0, 0.0))], floor=0.0, friction=0.0)
    strategy = Strategy(spheres, walls, h, gravity=(0.0, 0.0, -G), tolerance=1e-12,
                        activation=activation)
    steps = int(round(final_time / h))
    z = np.empty(steps + 1)
    v = np.empty(steps + 1)
    f = np.empty(steps + 1)
    z[0], v[0], f[0] = 1.0 + R, 0.0, 0.0
    for k in range(1, steps + 1):
        strategy.SolveSolutionStep(k * h)
        z[k] = strategy.Particles.position[0][2]
        v[k] = strategy.Particles.velocity[0][2]
        f[k] = strategy.Particles.contact_force[0][2]
    return strategy, np.arange(steps + 1) * h, z - R, v, f


# Measured |t_rest - t_inf| at h = 1e-3: 46 h (predicted_gap: each bounce
# starts up to a step early, from a gap) and 15 h (midpoint_gap: each starts
# up to a step late, overlapped); both fall as h does (next test).
REST_TIME_BOUND = {"predicted_gap": 60, "midpoint_gap": 20}


@pytest.mark.parametrize("activation", sorted(REST_TIME_BOUND))
def test_bouncing_ball_first_impact_apexes_zeno_time_and_rest(activation):
    h = 1e-3
    strategy, t, gap, v, force = BouncingBall(h, 10.0, activation)
    t1 = math.sqrt(2.0 / G)
    assert t1 == pytest.approx(0.451524, abs=1e-6)
    # First impact: the step in which the velocity turns upwards (within a
    # step; midpoint_gap activates once q_m, half a step on, has crossed).
    first = np.argmax(v > 0.0)
    assert abs(t[first] - t1) <= (h if activation == "predicted_gap" else 2.0 * h)
    # The rebound is e times the velocity at the start of that step, exact
    # for a uniform fall: e sqrt(2 g h0) to within g h.
    assert v[first] == pytest.approx(0.9 * math.sqrt(2.0 * G), abs=G * h)
    # Apexes e^2k h0 (0.81, 0.6561), to within the step's travel.
    apexes = [gap[k] for k in range(1, len(gap) - 1)
              if v[k - 1] > 0.0 >= v[k] and gap[k] > 0.01]
    assert apexes[0] == pytest.approx(0.81, abs=0.02)
    assert apexes[1] == pytest.approx(0.6561, abs=0.02)
    # Rest: the last step with a non-zero velocity, near t_inf = 8.578957 s.
    t_inf = t1 * 1.9 / 0.1
    assert t_inf == pytest.approx(8.578957, abs=1e-5)  # the digest rounds t1 to 0.451524 first
    moving = np.nonzero(np.abs(v) > 1e-12)[0]
    t_rest = t[moving[-1]]
    assert abs(t_rest - t_inf) < REST_TIME_BOUND[activation] * h
    # At rest: P_N = m g h each step (mean force m g), no drift, no chatter.
    rest = t > t_inf + 0.1
    np.testing.assert_allclose(v[rest], 0.0, atol=1e-13)
    assert np.ptp(gap[rest]) < 1e-13
    np.testing.assert_allclose(force[rest], M * G, rtol=1e-12)
    assert abs(gap[-1]) < G * h * h  # rests on the floor, to the order of one step's fall


@pytest.mark.parametrize("activation", sorted(REST_TIME_BOUND))
def test_bouncing_ball_rest_time_converges_with_the_step(activation):
    errors = []
    t_inf = math.sqrt(2.0 / G) * 19.0
    for h in (2e-3, 5e-4):
        _, t, _, v, _ = BouncingBall(h, 9.0, activation)
        moving = np.nonzero(np.abs(v) > 1e-12)[0]
        errors.append(abs(t[moving[-1]] - t_inf))
    assert errors[1] < 0.5 * errors[0]


def SlidingSphere(v0, mu, h, duration, fix_rotation):
    model, spheres, walls = Scene([((0.0, 0.0, R), R, (v0, 0.0, 0.0))], floor=0.0, friction=mu,
                                  restitution=0.0)
    node = spheres.GetNode(1)
    if fix_rotation:  # a block: the sphere slides without turning
        for var in (tessera.ANGULAR_VELOCITY_X, tessera.ANGULAR_VELOCITY_Y,
                    tessera.ANGULAR_VELOCITY_Z):
            node.AddDof(var)
            node.Fix(var)
    strategy = Strategy(spheres, walls, h, gravity=(0.0, 0.0, -G), tolerance=1e-13)
    strategy.ReadFromNodes()
    steps = int(round(duration / h))
    x, v, w = [], [], []
    for k in range(1, steps + 1):
        strategy.SolveSolutionStep(k * h)
        x.append(strategy.Particles.position[0][0])
        v.append(strategy.Particles.velocity[0][0])
        w.append(strategy.Particles.angular_velocity[0][1])
    return np.arange(1, steps + 1) * h, np.array(x), np.array(v), np.array(w), strategy


def test_sliding_block_stops_at_v0_over_mu_g():
    h = 1e-4
    t, x, v, _, strategy = SlidingSphere(1.0, 0.3, h, 0.5, fix_rotation=True)
    stop = 1.0 / (0.3 * G)
    assert stop == pytest.approx(0.339789, abs=1e-6)
    # Friction takes mu m g h per step: the velocity is exact at each step.
    sliding = t < stop - h
    np.testing.assert_allclose(v[sliding], 1.0 - 0.3 * G * t[sliding], atol=1e-12)
    t_stop = t[np.argmax(v <= 1e-14)]
    assert stop <= t_stop < stop + h
    assert x[-1] == pytest.approx(1.0 / (2.0 * 0.3 * G), abs=h)  # 0.169895 m
    assert np.all(v[t > stop + h] == 0.0)
    assert strategy.LastStep()["max_penetration"] < 1e-12


def test_rolling_sphere_starts_rolling_at_2v0_over_7_mu_g():
    h = 1e-4
    t, x, v, w, _ = SlidingSphere(1.0, 0.2, h, 0.3, fix_rotation=False)
    t_roll = 2.0 / (7.0 * 0.2 * G)
    assert t_roll == pytest.approx(0.145623, abs=1e-6)
    # Angular momentum about the contact point is conserved: v = 5 v0/7 exactly.
    assert v[-1] == pytest.approx(5.0 / 7.0, rel=1e-12)
    assert w[-1] == pytest.approx(v[-1] / R, rel=1e-12)
    rolling = np.abs(v - w * R) < 1e-12
    t_start = t[np.argmax(rolling)]
    assert t_roll <= t_start < t_roll + h
    x_roll = x[np.argmax(rolling)]
    assert x_roll == pytest.approx(12.0 / (49.0 * 0.2 * G), abs=2 * h)  # 0.124820 m


def test_settings_errors_name_the_key():
    _, spheres, _ = Scene([((0.0, 0.0, 0.0), R, (0.0, 0.0, 0.0))])
    from tessera import _dem
    from nonsmooth_models import MoreauJean
    from dem_test_utilities import Settings
    for keys, message in (({"theta": 1.5}, "theta must be in"),
                          ({"sweep_order": "sideways"}, "sweep_order 'sideways'"),
                          ({"relaxation": 2.0}, "relaxation must be in"),
                          ({"activation": "never"}, "activation 'never'")):
        with pytest.raises(tessera.Error, match=message):
            _dem.MoreauJeanStrategy(spheres, None, Settings(1e-3), MoreauJean(**keys))
