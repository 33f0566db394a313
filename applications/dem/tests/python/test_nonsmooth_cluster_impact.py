"""The concurrent-impact (cluster) solver of thesis 003 (applications/dem/
nonsmooth/cluster_impact_solver.h) against the thesis' Table 5.1 and the
reproduction values of the digest (../shared/reference/seed002_003_nonsmooth.md).

Sources and tolerances:
- Table 5.1 (binary impulses, 10 significant digits in the thesis): 1e-9
  relative, for the closed form (eqs 5.1-5.2) and the cluster solver; cases 5
  and 6 (the case-1 geometry rotated cyclically) equal case 1 permuted.
- §B9 post velocities (printed to 6 decimals): 2e-6 absolute (half the last
  printed digit plus rounding); the impulses printed to 10 digits: 1e-9
  relative. §B9 lists the values of the digest's reconstructed model, which
  reproduces Table 5.1.
- Frictionless closed forms (§B9, §C2.7): ternary planar v1 = (0.4 - 0.6 e) V,
  tetrahedron v1z = (2e - 1)/3 and L_n = (1+e) m cos b/(1 + 3 cos^2 b): 1e-12.
- Property checks (§C2.8): momentum to round-off (1e-14 kg m/s on ~1 kg m/s
  impulses), kinetic energy not increasing, L_n >= 0, symmetric results.
"""
import math

import numpy as np
import pytest

from nonsmooth_test_cases import (MASS, RADIUS, Binary, Body, Dem, Heptenary, Hexenary, Material,
                                  Octenary, QuaternaryPlanar, QuaternaryStack, Quintenary, Solve,
                                  TernaryPlanar, TernaryStack, Tetrahedron)

TABLE_5_1 = {1: (1.3805333130, 0.2070799969), 2: (1.3334927811, 0.2000239172),
             3: (1.1955769198, 0.1793365380), 4: (0.9761844673, 0.1464276701)}
B9_BINARY = {1: ((-0.9, -0.9, 0.596949), (-28.5, 28.5, 0.0), 1.224070),
             2: ((-1.180815, -0.413614, 0.634404), (-18.2798, 31.6616, -13.3818), 1.205736),
             3: ((-1.195566, 0.203066, 0.715000), (-7.3763, 27.5289, -20.1525), 1.174726),
             4: ((-0.9, 0.798475, 0.798475), (0.0, 20.1525, -20.1525), 1.175627)}
KE_BEFORE = 1.541344


def Checks(result, bodies, static=False):
    """Post-checks every result must pass (§C1.4)."""
    assert result["converged"], result["message"]
    assert result["residual"] < 1e-12
    assert result["kinetic_energy_after"] <= result["kinetic_energy_before"] * (1.0 + 1e-12)
    assert result["smallest_normal_impulse"] >= 0.0
    if not static:
        assert np.max(np.abs(result["momentum_change"])) < 1e-14


@pytest.mark.parametrize("case", [1, 2, 3, 4, 5, 6])
def test_binary_impulses_match_table_5_1_closed_form_and_cluster_solver(case):
    bodies = Binary(case)
    ln, lt = TABLE_5_1[{5: 1, 6: 1}.get(case, case)]
    closed = Dem().BinaryImpactClosedForm(bodies[0], bodies[1], Material())
    cluster, _ = Solve(bodies)
    Checks(cluster, bodies)
    for result in (closed, cluster):
        contact = result["contacts"][0]
        assert contact["normal_impulse"] == pytest.approx(ln, rel=1e-9)
        assert contact["tangential_impulse"] == pytest.approx(lt, rel=1e-9)
        assert contact["state"] == "slip"  # all four slide (Table 5.1: L_t = 0.15 L_n)
    np.testing.assert_allclose(cluster["velocity"], closed["velocity"], atol=1e-13)
    np.testing.assert_allclose(cluster["angular_velocity"], closed["angular_velocity"], atol=1e-11)
    base = {5: 1, 6: 1}.get(case, case)
    v, w, ke = B9_BINARY[base]
    shift = {5: 1, 6: 2}.get(case, 0)
    np.testing.assert_allclose(cluster["velocity"][0], np.roll(v, shift), atol=2e-6)
    np.testing.assert_allclose(cluster["velocity"][1], -np.roll(v, shift), atol=2e-6)
    np.testing.assert_allclose(cluster["angular_velocity"][0], np.roll(w, shift), atol=2e-4)
    np.testing.assert_allclose(cluster["angular_velocity"][1], np.roll(w, shift), atol=2e-4)
    assert cluster["kinetic_energy_before"] == pytest.approx(KE_BEFORE, abs=1e-6)
    assert cluster["kinetic_energy_after"] == pytest.approx(ke, abs=1e-6)


def test_binary_cases_5_and_6_are_case_1_permuted_to_round_off():
    one, _ = Solve(Binary(1))
    for case, shift in ((5, 1), (6, 2)):
        other, _ = Solve(Binary(case))
        for key in ("velocity", "angular_velocity"):
            np.testing.assert_allclose(np.asarray(other[key]),
                                       np.roll(np.asarray(one[key]), shift, axis=1), atol=1e-12)


B9_TERNARY = {1: ((-0.9, -0.9, 0.776471), (-15.8059, 15.8059, 0.0), 0.1148452314, "stick",
                  1.334622),
              2: ((-1.206815, -0.368580, 0.776471), (-11.1765, 19.3582, -8.1817), 0.1222966695,
                  "stick", 1.346162),
              3: ((-1.206815, 0.245051, 0.776471), (-5.7854, 21.5913, -15.8059), 0.1406561082,
                  "stick", 1.377689),
              4: ((-0.9, 0.798475, 0.798475), (0.0, 20.1525, -20.1525), 0.1464276701, "slip",
                  1.384286)}


@pytest.mark.parametrize("case", [1, 2, 3, 4])
def test_ternary_stack(case):
    bodies = TernaryStack(case)
    result, contacts = Solve(bodies)
    Checks(result, bodies)
    v1, w1, lt, state, ke = B9_TERNARY[case]
    np.testing.assert_allclose(result["velocity"][0], v1, atol=2e-6)
    np.testing.assert_allclose(result["angular_velocity"][0], w1, atol=2e-4)
    # Symmetry: sphere 3 mirrors sphere 1, the middle one does not translate
    # and turns at twice sphere 1's rate (§B9).
    np.testing.assert_allclose(result["velocity"][2], -np.asarray(result["velocity"][0]),
                               atol=1e-12)
    np.testing.assert_allclose(result["velocity"][1], 0.0, atol=1e-12)
    np.testing.assert_allclose(result["angular_velocity"][1],
                               2.0 * np.asarray(result["angular_velocity"][0]), atol=1e-10)
    for c in result["contacts"]:
        assert c["normal_impulse"] == pytest.approx(TABLE_5_1[case][0], rel=1e-9)
        assert abs(c["tangential_impulse"]) == pytest.approx(lt, rel=1e-9)
        assert c["state"] == state
    assert result["kinetic_energy_after"] == pytest.approx(ke, abs=1e-6)


def test_ternary_cases_7_and_8():
    seven, _ = Solve(TernaryStack(7))
    Checks(seven, None)
    np.testing.assert_allclose(seven["velocity"][0], (-0.9, 0.752850, 0.858078), atol=2e-6)
    np.testing.assert_allclose(seven["velocity"][1], (0.0, 0.494300, 0.0), atol=2e-6)
    np.testing.assert_allclose(seven["angular_velocity"][1], (0.0, 28.3844, 0.0), atol=2e-4)
    assert seven["kinetic_energy_after"] == pytest.approx(1.304500, abs=1e-6)
    eight, _ = Solve(TernaryStack(8))
    Checks(eight, None)
    np.testing.assert_allclose(eight["velocity"][0], (-0.9, 0.798475, 0.798475), atol=2e-6)
    np.testing.assert_allclose(eight["velocity"][2], (0.9, 0.798475, 0.798475), atol=2e-6)
    np.testing.assert_allclose(eight["velocity"][1], (0.0, 0.403051, 0.403051), atol=2e-6)
    np.testing.assert_allclose(eight["angular_velocity"][1], 0.0, atol=1e-9)
    assert eight["kinetic_energy_after"] == pytest.approx(1.259091, abs=1e-6)


def ContactBetween(result, contacts, i, j):
    for c, r in zip(contacts, result["contacts"]):
        if {c.i, c.j} == {i, j}:
            return r
    raise KeyError((i, j))


def test_ternary_planar_9_and_10():
    bodies = TernaryPlanar(9)
    result, contacts = Solve(bodies)
    Checks(result, bodies)
    np.testing.assert_allclose(result["velocity"][0], (-0.177540, 0.0, 0.0), atol=2e-6)
    np.testing.assert_allclose(result["velocity"][1], (0.588770, 0.231558, 0.0), atol=2e-6)
    np.testing.assert_allclose(result["velocity"][2], (0.588770, -0.231558, 0.0), atol=2e-6)
    np.testing.assert_allclose(np.abs(result["angular_velocity"][1]), (0.0, 0.0, 9.3850), atol=2e-4)
    np.testing.assert_allclose(result["angular_velocity"][2],
                               -np.asarray(result["angular_velocity"][1]), atol=1e-10)
    for pair in ((0, 1), (0, 2)):
        c = ContactBetween(result, contacts, *pair)
        assert c["normal_impulse"] == pytest.approx(0.3214568320, rel=1e-9)
        assert c["tangential_impulse"] == pytest.approx(0.0482185248, rel=1e-9)
        assert c["state"] == "slip"
    assert ContactBetween(result, contacts, 1, 2)["state"] == "inactive"  # §B7
    assert result["kinetic_energy_before"] == pytest.approx(0.256891, abs=1e-6)
    assert result["kinetic_energy_after"] == pytest.approx(0.225061, abs=1e-6)

    ten, contacts = Solve(TernaryPlanar(10))
    Checks(ten, None)
    np.testing.assert_allclose(ten["velocity"][0], (-0.139707, 0.0, 9.802476), atol=2e-6)
    np.testing.assert_allclose(ten["angular_velocity"][0], (0.0, 17.1061, 0.0), atol=2e-4)
    np.testing.assert_allclose(ten["velocity"][1], (0.569854, 0.329850, 0.098762), atol=2e-6)
    np.testing.assert_allclose(ten["velocity"][2], (0.569854, -0.329850, 0.098762), atol=2e-6)
    assert ContactBetween(ten, contacts, 0, 1)["normal_impulse"] == pytest.approx(0.3382903977,
                                                                                  rel=1e-9)
    assert ten["kinetic_energy_after"] == pytest.approx(24.948334, abs=1e-6)


@pytest.mark.parametrize("e", [0.9, 0.5, 1.0])
def test_frictionless_closed_forms_planar_triple_and_tetrahedron(e):
    planar, contacts = Solve(TernaryPlanar(9), Material(friction=0.0, restitution=e))
    Checks(planar, None)
    assert planar["velocity"][0][0] == pytest.approx(0.4 - 0.6 * e, abs=1e-12)
    assert ContactBetween(planar, contacts, 1, 2)["state"] == "inactive"
    tetra, contacts = Solve(Tetrahedron(7), Material(friction=0.0, restitution=e))
    Checks(tetra, None)
    assert tetra["velocity"][0][2] == pytest.approx((2.0 * e - 1.0) / 3.0, abs=1e-12)
    cos2 = 2.0 / 3.0
    expected = (1.0 + e) * MASS * math.sqrt(cos2) / (1.0 + 3.0 * cos2)
    for k in (1, 2, 3):
        assert ContactBetween(tetra, contacts, 0, k)["normal_impulse"] == pytest.approx(
            expected, rel=1e-12)
    for pair in ((1, 2), (1, 3), (2, 3)):
        assert ContactBetween(tetra, contacts, *pair)["state"] == "inactive"


def test_tetrahedron_7_with_friction_and_radial_symmetry():
    bodies = Tetrahedron(7)
    result, contacts = Solve(bodies)
    Checks(result, bodies)
    np.testing.assert_allclose(result["velocity"][0], (0.0, 0.0, 0.308493), atol=2e-6)
    np.testing.assert_allclose(result["velocity"][1], (0.219689, 0.0, -0.436164), atol=2e-6)
    np.testing.assert_allclose(result["angular_velocity"][1], (0.0, -7.2445, 0.0), atol=2e-4)
    for k in (1, 2, 3):
        c = ContactBetween(result, contacts, 0, k)
        assert c["normal_impulse"] == pytest.approx(0.2481377700, rel=1e-9)
        assert c["tangential_impulse"] == pytest.approx(0.0372206655, rel=1e-9)
        assert c["state"] == "slip"
    # Radial symmetry: sphere k's velocity is sphere 2's rotated by 120 deg.
    for k, angle in ((2, 120.0), (3, 240.0)):
        a = math.radians(angle)
        rot = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
        np.testing.assert_allclose(result["velocity"][k], rot @ result["velocity"][1], atol=1e-10)
    assert result["kinetic_energy_after"] == pytest.approx(0.218366, abs=1e-6)


def test_quaternary_stacks():
    expected = {1: ((-0.9, -0.9, 0.701124), 1.330751), 2: ((-1.193026, -0.392464, 0.701124), 1.341772),
                3: ((-1.195566, 0.203066, 0.715), 1.353577), 4: ((-0.9, 0.798475, 0.798475), 1.294861)}
    for case, (v1, ke) in expected.items():
        result, _ = Solve(QuaternaryStack(case))
        Checks(result, None)
        np.testing.assert_allclose(result["velocity"][0], v1, atol=2e-6)
        assert result["kinetic_energy_after"] == pytest.approx(ke, abs=1e-6)


def test_quaternary_planar_5_and_6():
    result, contacts = Solve(QuaternaryPlanar(5))
    Checks(result, None)
    np.testing.assert_allclose(result["velocity"][0], (-0.376570, 0.0, 0.0), atol=2e-6)
    np.testing.assert_allclose(result["velocity"][1], (0.523430, 0.0, 0.0), atol=2e-6)
    np.testing.assert_allclose(result["velocity"][2], (0.426570, 0.167766, 0.0), atol=2e-6)
    np.testing.assert_allclose(result["velocity"][3], (0.426570, -0.167766, 0.0), atol=2e-6)
    assert ContactBetween(result, contacts, 0, 1)["normal_impulse"] == pytest.approx(
        0.7072560002, rel=1e-9)
    assert ContactBetween(result, contacts, 1, 2)["normal_impulse"] == pytest.approx(
        0.2328988843, rel=1e-9)
    assert result["kinetic_energy_after"] == pytest.approx(0.220699, abs=1e-6)
    frictionless, _ = Solve(QuaternaryPlanar(5), Material(friction=0.0))
    np.testing.assert_allclose(frictionless["velocity"][0][0], -5.0 / 14.0, atol=1e-12)
    np.testing.assert_allclose(frictionless["velocity"][1][0], 19.0 / 35.0, atol=1e-12)
    six, _ = Solve(QuaternaryPlanar(6))
    Checks(six, None)
    np.testing.assert_allclose(six["velocity"][0], (-0.375331, 0.0, 9.793700), atol=2e-6)
    np.testing.assert_allclose(six["velocity"][1], (0.524669, 0.0, 0.254998), atol=2e-6)
    assert six["kinetic_energy_after"] == pytest.approx(24.922739, abs=1e-6)


def test_quintenary_hexenary_heptenary_octenary():
    quint, contacts = Solve(Quintenary())
    Checks(quint, None)
    assert quint["velocity"][0][2] == pytest.approx(0.448922, abs=2e-6)
    assert quint["velocity"][1][2] == pytest.approx(-0.451078, abs=2e-6)
    assert ContactBetween(quint, contacts, 0, 1)["normal_impulse"] == pytest.approx(0.7444290381,
                                                                                   rel=1e-9)
    assert quint["kinetic_energy_after"] == pytest.approx(0.216814, abs=1e-6)
    for pair in ((2, 3), (2, 4), (3, 4)):
        assert ContactBetween(quint, contacts, *pair)["state"] == "inactive"

    hexa, contacts = Solve(Hexenary())
    Checks(hexa, None)
    assert hexa["velocity"][0][2] == pytest.approx(0.466118, abs=2e-6)
    assert hexa["velocity"][5][2] == pytest.approx(-0.152565, abs=2e-6)
    assert hexa["kinetic_energy_after"] == pytest.approx(0.211481, abs=1e-6)

    hepta, contacts = Solve(Heptenary())
    Checks(hepta, None)
    np.testing.assert_allclose(hepta["velocity"][0], (-0.563026, 0.0, 0.0), atol=2e-6)
    np.testing.assert_allclose(hepta["velocity"][1], (0.336974, 0.0, 0.0), atol=2e-6)
    np.testing.assert_allclose(hepta["velocity"][2], (0.271161, 0.113991, 0.0), atol=2e-6)
    np.testing.assert_allclose(hepta["velocity"][5], (0.205347, 0.0, 0.0), atol=2e-6)
    assert hepta["kinetic_energy_after"] == pytest.approx(0.214524, abs=1e-6)

    octa, contacts = Solve(Octenary())
    Checks(octa, None)
    assert octa["velocity"][0][2] == pytest.approx(0.365221, abs=2e-6)
    assert octa["velocity"][4][2] == pytest.approx(-0.119490, abs=2e-6)
    assert octa["kinetic_energy_after"] == pytest.approx(0.200467, abs=1e-6)
    rotated, _ = Solve(Octenary(60.0))  # the same with 6-7-8 turned by 60 deg (§B7)
    np.testing.assert_allclose(rotated["velocity"][0], octa["velocity"][0], atol=1e-9)


def test_sphere_on_a_static_wall_oblique():
    """§C2.2: v = (1, 0, -1) onto the floor, e 0.9, mu 0.15 (m* = m, m_t = 2m/7):
    L_n = 1.9 m, slip, v_t+ = 1 - 0.15 * 1.9 = 0.715, v_z+ = 0.9, |w+| = 28.5."""
    from tessera import _dem
    ball = Body((0.0, 0.0, RADIUS), (1.0, 0.0, -1.0))
    result = _dem.SolveConcurrentImpact([ball], [_dem.ImpactContact(0, -1, [0.0, 0.0, 1.0])],
                                        Material())
    Checks(result, [ball], static=True)
    np.testing.assert_allclose(result["momentum_change"], 0.0, atol=1e-14)
    contact = result["contacts"][0]
    assert contact["normal_impulse"] == pytest.approx(1.9 * MASS, rel=1e-12)
    assert contact["state"] == "slip"
    np.testing.assert_allclose(result["velocity"][0], (0.715, 0.0, 0.9), atol=1e-12)
    assert np.linalg.norm(result["angular_velocity"][0]) == pytest.approx(28.5, rel=1e-12)
