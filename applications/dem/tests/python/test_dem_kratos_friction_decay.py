"""Kratos' friction_decay deck (tests/data/kratos_friction_decay, README there),
run unchanged: six spheres dragged at imposed speeds over two floors with
FRICTION_DECAY 500 and 5 s/m.

Sources and tolerances:
- Kratos' test: TOTAL_FORCES_X of spheres 1-6 at t = 0.05 s within 1e-4 N.
- Coulomb friction with Kratos' decay, checked to rel 1e-6: the sphere slides,
  so |F_x| = mu(v) F_n with mu = mu_d + (mu_s - mu_d) exp(-d v) and the Hertz
  force of the 1 mm overlap F_n = 4/3 E* sqrt(R) delta^(3/2) (thesis 2.35,
  E* = E / (2 (1 - nu^2)) for a wall of the spheres' E and nu); the imposed
  vertical velocity is zero, so no dashpot acts.
"""
import math
import os

import pytest

import tessera

from dem_test_utilities import RunKratosDeck

DECK = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data",
                                     "kratos_friction_decay"))
KRATOS = [-4.406849, -6.480977, -4.392052, -5.724009, -4.392052, -4.406849]
SPEED = [0.01, 0.01, 0.1, 0.1, 1.0, 1.0]  # m/s, spheres 1..6
DECAY = [500.0, 5.0] * 3  # s/m: odd spheres on face 3, even ones on face 4


def RunDeck(tmp_path):
    """TOTAL_FORCES_X of spheres 1-6 at the step that ends at t = 0.05 s."""
    found = {}

    def record(stage):
        if 0.0499999 < stage.time < 0.0500001:
            spheres = stage.model.GetModelPart("SpheresPart")
            found["force"] = [spheres.GetNode(k).GetSolutionStepValue(tessera.TOTAL_FORCES)[0]
                              for k in range(1, 7)]

    RunKratosDeck(DECK, tmp_path, record)
    return found["force"]


def test_the_friction_decay_deck_gives_kratos_forces(tmp_path):
    force = RunDeck(tmp_path)
    assert force == pytest.approx(KRATOS, abs=1e-4)
    e_star = 1e6 / (2 * (1 - 0.2**2))
    normal = 4.0 / 3.0 * e_star * math.sqrt(0.25) * 1e-3**1.5
    for k in range(6):
        mu = 0.4 + 0.2 * math.exp(-DECAY[k] * SPEED[k])
        assert force[k] == pytest.approx(-mu * normal, rel=1e-6)
