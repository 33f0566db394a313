"""Kratos' forces_and_moments deck (tests/data/kratos_forces_and_moments,
README there), run unchanged: spheres and free rigid-body cubes loaded by
Kratos' force-and-moment processes (expressions of t, x, y, z; tables).

Sources and tolerances:
- Sphere 1, loaded by expressions over [0, 0.2] s and touching nothing that
  pushes: Kratos' VELOCITY and ANGULAR_VELOCITY at t = 0.1 within its 1e-3
  (measured: equal to the six printed digits). Its v_x is the impulse of the
  constant 100 N, 100 N x 0.1 s / m, to rel 1e-5 (measured 1.8e-6 below: the
  force 2000 (x + y) N along z presses it onto cube 1, whose friction takes
  that much).
- Not asserted (docs/validation.md): sphere 2 (measured within 1e-3 except
  v_z, 1.3e-3 off) and the cubes (wall node 4 within 1 %, node 13 apart).
  Sphere 2 sits on cube 2, which its table moments spin at 3,750 rad/s by
  t = 0.1, and by t = 0.3 the cubes have turned through hundreds of radians,
  so these values hang on the discrete rotation update of the free bodies.
"""
import math
import os

import pytest

import tessera

from dem_test_utilities import RunKratosDeck

DECK = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data",
                                     "kratos_forces_and_moments"))


def test_the_sphere_loaded_by_expressions_moves_as_in_kratos(tmp_path):
    found = {}

    def record(stage):
        if 0.099999 < stage.time < 0.100001:
            node = stage.model.GetModelPart("SpheresPart").GetNode(1)
            found["v"] = list(node.GetSolutionStepValue(tessera.VELOCITY))
            found["w"] = list(node.GetSolutionStepValue(tessera.ANGULAR_VELOCITY))

    RunKratosDeck(DECK, tmp_path, record)
    assert found["v"] == pytest.approx([0.000955, -0.980986, -0.000312], abs=1e-3)
    assert found["w"] == pytest.approx([-0.001194, 0.000716, 0.000718], abs=1e-3)
    mass = 2500.0 * 4.0 / 3.0 * math.pi
    assert found["v"][0] == pytest.approx(100.0 * 0.1 / mass, rel=1e-5)
