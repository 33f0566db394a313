"""Event-driven hard spheres: time-of-impact location and the bouncing
ball's Zeno time (digest seed002_003_nonsmooth.md §B4.6, §C1.5, §C2.3).

- Time of impact: closed forms (uniform relative motion of a pair; a
  quadratic gap against a plane under gravity) to 1e-12, and the thesis'
  iteration t -= gap/rate reaching them to its tolerance.
- Bouncing ball, h0 = 1 m, e = 0.9, g = 9.81: first impact at
  sqrt(2 h0/g) = 0.451524 s, 4.429447 m/s; the k-th bounce lasts
  2 e^k v1/g, so the bounces end at t_inf = t1 (1+e)/(1-e) = 8.578957 s.
  The run stops bouncing once the rebound is below rest_speed = 1e-6 m/s; the
  bounces left then last 2 rest_speed/(g (1-e)) ~ 2e-6 s: t_rest to 1e-5.
"""
import math

import pytest

from nonsmooth_test_cases import Body, Material, RADIUS

G = 9.81


def test_pair_and_plane_time_of_impact():
    from tessera import _dem
    t = _dem.PairTimeOfImpact([0, 0, 0], [1, 0, 0], 0.5, [3, 0.5, 0], [-1, 0, 0], 0.5)
    # |(-3 + 2t, -0.5)| = 1: t = (3 - sqrt(0.75))/2
    assert t == pytest.approx((3.0 - math.sqrt(0.75)) / 2.0, rel=1e-12)
    assert _dem.PairTimeOfImpact([0, 0, 0], [-1, 0, 0], 0.5, [3, 0, 0], [0, 0, 0], 0.5) == math.inf
    t = _dem.PlaneTimeOfImpact([0, 0, 1.0 + RADIUS], [0, 0, 0], RADIUS, [0, 0, -G], [0, 0, 0],
                               [0, 0, 1])
    assert t == pytest.approx(math.sqrt(2.0 / G), rel=1e-12)
    # Leaving the plane at 2 m/s: back after 2 v/g.
    t = _dem.PlaneTimeOfImpact([0, 0, RADIUS], [0, 0, 2.0], RADIUS, [0, 0, -G], [0, 0, 0], [0, 0, 1])
    assert t == pytest.approx(4.0 / G, rel=1e-12)
    # The thesis' iteration from an overshooting step.
    gap = lambda s: 1.0 - 0.5 * G * s * s
    rate = lambda s: -G * s
    assert _dem.RefineTimeOfImpact(gap, rate, 0.5, 1e-14) == pytest.approx(math.sqrt(2.0 / G),
                                                                           rel=1e-12)


def test_bouncing_ball_zeno_time():
    from tessera.dem.event_driven import EventDrivenSpheres
    ball = Body((0.0, 0.0, 1.0 + RADIUS))
    run = EventDrivenSpheres([ball], Material(friction=0.0, restitution=0.9), gravity=(0, 0, -G),
                             planes=[((0.0, 0.0, 0.0), (0.0, 0.0, 1.0))], rest_speed=1e-6)
    run.Advance(10.0)
    times = [t for t, _ in run.impacts]
    t1 = math.sqrt(2.0 / G)
    assert times[0] == pytest.approx(0.451524, abs=1e-6)
    assert times[0] == pytest.approx(t1, rel=1e-12)
    first = run.impacts[0][1]
    assert first["contacts"][0]["normal_impulse"] == pytest.approx(
        1.9 * ball.mass * math.sqrt(2.0 * G), rel=1e-12)
    assert math.sqrt(2.0 * G) == pytest.approx(4.429447, abs=1e-6)
    # Bounce k lasts 2 e^k v1/g.
    for k in range(1, 6):
        assert times[k] - times[k - 1] == pytest.approx(2.0 * 0.9 ** k * math.sqrt(2.0 * G) / G,
                                                        rel=1e-9)
    t_inf = t1 * 1.9 / 0.1
    assert t_inf == pytest.approx(8.578957, abs=1e-5)  # the digest rounds t1 to 0.451524 first
    assert times[-1] == pytest.approx(t_inf, abs=1e-5)
    assert run.bodies[0].position[2] == pytest.approx(RADIUS, abs=1e-9)
    assert abs(run.bodies[0].velocity[2]) < 1e-12
