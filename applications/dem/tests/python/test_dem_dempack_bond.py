"""The DEMpack cohesive law (DEM_Dempack, contact_laws/bond_laws/dempack_bond.h)
on one bond driven along prescribed displacement paths, against the closed
form of each branch (thesis §5.2, eqs. 5.11-5.28 and 5.44; the linear
softening of the damaged strength as Kratos' DEM_Dempack draws it):

- elastic: F_n = k_n δ, k_n = E A / L; F_t = k_t u_t, k_t = G A / L (5.14-5.16);
- compression: the envelope of slopes k_n0, k_n0 / YRC_1..3 past LCS_1..3 A,
  unloading and reloading with k_n0 from the largest shortening (5.27-5.28);
- tension: strength ℱ = σ_t A at u^l = ℱ / k_n, damaged strength (1 - D) ℱ,
  D = (u_max - u^l) / (u^f - u^l), u^f = (1 + DAMAGE_FACTOR) u^l, secant
  unloading F = (1 - D) ℱ u / u_max, broken at u^f; then a frictional contact
  with the same k_n;
- shear: ℱ_t = τ^f A + μ_s max(F_n, 0) (5.21 with the compressive force),
  the same damage with SHEAR_ENERGY_COEF; without damage it breaks as soon as
  the force passes ℱ_t;
- Failure Criterion State (5.44): max(F_s / ℱ_t, F_n / ℱ) without damage,
  max(F_s / ℱ_t, u_n / u^f) with it, 1 once broken.
All values are exact arithmetic of the law's own formulas: rel 1e-12.
Bad input (a parameter out of range, u^f < u^l, a missing strength) is an
error naming the materials file, the material and the key.
"""
import json
import math

import numpy as np
import pytest

import tessera
import tessera.dem  # noqa: F401
from tessera import _dem

E, NU = 1.0e9, 0.25
G = E / (2 * (1 + NU))
AREA, LENGTH = math.pi * 0.01**2, 0.02
K_N, K_T = E * AREA / LENGTH, G * AREA / LENGTH
SIGMA_T, TAU, MU = 1.0e6, 2.0e6, 0.5
LCS, YRC = (2.0e6, 4.0e6, 6.0e6), (3.0, 12.0, 22.0)
RTOL = 1e-12


def Material(law="DEM_Dempack", damage=0.8, shear_energy=0.5, **extra):
    p = tessera.Properties(1)
    values = {"DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME": law, "YOUNG_MODULUS": E, "POISSON_RATIO": NU,
              "CONTACT_SIGMA_MIN": SIGMA_T, "CONTACT_TAU_ZERO": TAU, "CONTACT_INTERNAL_FRICC": MU,
              "DAMAGE_FACTOR": damage, "SHEAR_ENERGY_COEF": shear_energy, "FRICTION": 0.3,
              "SLOPE_LIMIT_COEFF_C1": LCS[0], "SLOPE_LIMIT_COEFF_C2": LCS[1],
              "SLOPE_LIMIT_COEFF_C3": LCS[2], "SLOPE_FRACTION_N1": YRC[0],
              "SLOPE_FRACTION_N2": YRC[1], "SLOPE_FRACTION_N3": YRC[2]}
    values.update(extra)
    for name, value in values.items():
        p.SetValue(getattr(tessera, name), value)
    return p


def Path(material, shortening, slip=None, bond_damage="kratos"):
    shortening = list(map(float, shortening))
    slip = [0.0] * len(shortening) if slip is None else list(map(float, slip))
    return _dem.EvaluateBondLawPath(material, AREA, LENGTH, shortening, slip, bond_damage)


def Envelope(delta):
    """The compressive loading envelope, written out branch by branch."""
    forces = [c * AREA for c in LCS]
    d1 = forces[0] / K_N
    d2 = d1 + (forces[1] - forces[0]) / (K_N / YRC[0])
    d3 = d2 + (forces[2] - forces[1]) / (K_N / YRC[1])
    if delta <= d1:
        return K_N * delta
    if delta <= d2:
        return forces[0] + K_N / YRC[0] * (delta - d1)
    if delta <= d3:
        return forces[1] + K_N / YRC[1] * (delta - d2)
    return forces[2] + K_N / YRC[2] * (delta - d3)


def test_springs_are_the_bar_of_the_section():
    path = Path(Material(), [0.0])
    assert path["normal_stiffness"] == pytest.approx(K_N, rel=RTOL)
    assert path["tangential_stiffness"] == pytest.approx(K_T, rel=RTOL)


def test_calibration_factors_scale_the_springs():
    path = Path(Material(BOND_NORMAL_STIFFNESS_FACTOR=1.5, BOND_TANGENTIAL_STIFFNESS_FACTOR=2.5), [0.0])
    assert path["normal_stiffness"] == pytest.approx(1.5 * K_N, rel=RTOL)
    assert path["tangential_stiffness"] == pytest.approx(2.5 * K_T, rel=RTOL)


def test_compression_loads_the_branches_unloads_and_reloads_with_the_initial_slope():
    top = 4.0 * LCS[2] * AREA / K_N * 3  # well into the last branch
    load = np.linspace(0.0, top, 401)
    offset = top - Envelope(top) / K_N  # plastic offset
    # Down through the offset into tension, to half the tensile strength (elastic).
    unload = np.linspace(top, offset - 0.5 * SIGMA_T * AREA / K_N, 200)[1:]
    reload = np.linspace(unload[-1], 1.2 * top, 300)[1:]
    path = Path(Material(), np.concatenate([load, unload, reload]))
    normal = path["normal"]
    expected_load = [Envelope(d) for d in load]
    np.testing.assert_allclose(normal[:401], expected_load, rtol=RTOL, atol=1e-9 * K_N * top)
    assert offset > 0.0
    expected_unload = K_N * (unload - offset)
    np.testing.assert_allclose(normal[401:600], expected_unload, rtol=1e-9, atol=1e-9 * K_N * top)
    expected_reload = [K_N * (d - offset) if d <= top else Envelope(d) for d in reload]
    np.testing.assert_allclose(normal[600:], expected_reload, rtol=1e-9, atol=1e-9 * K_N * top)
    assert (path["state"] == 0).all()


def test_tension_damages_linearly_unloads_secant_and_breaks_at_the_failure_displacement():
    strength = SIGMA_T * AREA
    limit = strength / K_N
    ultimate = 1.8 * limit  # DAMAGE_FACTOR 0.8
    u_max = limit + 0.5 * (ultimate - limit)  # D = 0.5
    load = np.sort(np.append(np.linspace(0.0, u_max, 100), limit))  # through u^l exactly
    unload = np.linspace(u_max, 0.25 * u_max, 50)[1:]
    reload = np.linspace(0.25 * u_max, ultimate * 1.05, 200)[1:]
    u = np.concatenate([load, unload, reload])
    path = Path(Material(), -u)
    tension = -path["normal"]

    def damage(peak):
        return min(max((peak - limit) / (ultimate - limit), 0.0), 1.0)

    expected = []
    peak = 0.0
    for value in u:
        peak = max(peak, value)
        if peak >= ultimate:
            expected.append(0.0)
        elif peak <= limit:
            expected.append(K_N * value)
        else:
            expected.append((1 - damage(peak)) * strength * value / peak)
    np.testing.assert_allclose(tension, expected, rtol=RTOL, atol=1e-12 * strength)
    # The peak on the envelope is the strength; the damaged strength at D = 0.5 is half of it.
    assert tension[:101].max() == pytest.approx(strength, rel=RTOL)
    assert tension[100] == pytest.approx(0.5 * strength, rel=RTOL)
    broken = np.nonzero(path["state"])[0]
    assert path["state"][broken[0]] == 4 and u[broken[0]] >= ultimate
    assert (path["state"][: broken[0]] == 0).all() and u[broken[0] - 1] < ultimate
    assert (path["criterion"][broken] == 1.0).all()


def test_the_thesis_damage_form_is_1_minus_d_times_the_spring_as_printed():
    """BondDamage "thesis": the thesis' (5.23) as printed, F = (1 - d) k_n u with
    d = (u_max - u^l) / (u^f - u^l), secant in unloading; on loading F = k_n u
    (u^f - u) / (u^f - u^l), which with u^f = 5 u^l (the digest's reading of
    Table 5.5) rises past ℱ to k_n u^f² / (4 (u^f - u^l)) = 1.5625 ℱ at u = 2.5
    u^l, and breaks at u^f. In shear (5.24) alike: F_t = (1 - d_t) k_t u_t."""
    strength = SIGMA_T * AREA
    limit = strength / K_N
    ultimate = 5.0 * limit  # DAMAGE_FACTOR 4
    u_max = 2.5 * limit
    load = np.sort(np.append(np.linspace(0.0, u_max, 200), limit))
    unload = np.linspace(u_max, 0.4 * u_max, 50)[1:]
    reload = np.linspace(0.4 * u_max, 1.02 * ultimate, 300)[1:]
    u = np.concatenate([load, unload, reload])
    path = Path(Material(damage=4.0), -u, bond_damage="thesis")
    tension = -path["normal"]
    expected, peak = [], 0.0
    for value in u:
        peak = max(peak, value)
        d = min(max((peak - limit) / (ultimate - limit), 0.0), 1.0)
        expected.append(0.0 if peak >= ultimate else (1 - d) * K_N * value)
    np.testing.assert_allclose(tension, expected, rtol=RTOL, atol=1e-12 * strength)
    assert tension[: len(load)].max() == pytest.approx(1.5625 * strength, rel=RTOL)
    broken = np.nonzero(path["state"])[0]
    assert path["state"][broken[0]] == 4 and u[broken[0]] >= ultimate > u[broken[0] - 1]
    # Kratos' form on the same path: the strength is its largest force.
    kratos = -Path(Material(damage=4.0), -u)["normal"]
    assert kratos.max() == pytest.approx(strength, rel=RTOL)

    shear_strength = TAU * AREA
    shear_limit = shear_strength / K_T
    slip = np.linspace(0.0, 1.1 * 5.0 * shear_limit, 331)
    path = Path(Material(shear_energy=4.0), np.zeros_like(slip), slip, bond_damage="thesis")
    d = np.clip((slip - shear_limit) / (4.0 * shear_limit), 0.0, 1.0)
    broken = np.nonzero(path["state"])[0][0]
    np.testing.assert_allclose(path["shear"][:broken], ((1 - d) * K_T * slip)[:broken],
                               rtol=1e-11, atol=1e-12 * shear_strength)
    # 2.5 u^l is a sample of the path: the top, 1.5625 ℱ_t, to the incremental
    # spring's round-off (as the closed form above, 1e-11).
    assert path["shear"][:broken].max() == pytest.approx(1.5625 * shear_strength, rel=1e-11)
    assert path["state"][broken] == 2


def test_a_bond_broken_in_tension_is_a_frictional_contact_with_the_same_stiffness():
    ultimate = 1.8 * SIGMA_T * AREA / K_N
    delta = np.concatenate([-np.linspace(0.0, 1.1 * ultimate, 50), np.linspace(-ultimate, 2e-5, 60)])
    path = Path(Material(), delta)
    after = np.nonzero(path["state"])[0][0]
    expected = np.where(delta[after:] > 0.0, K_N * delta[after:], 0.0)
    np.testing.assert_allclose(path["normal"][after:], expected, rtol=RTOL, atol=0.0)


def test_a_bond_broken_while_crushed_keeps_pushing_as_its_compression_law():
    """Crushed onto the second branch, then sheared until it breaks (no shear
    damage): the broken bond's normal force is the envelope's where it broke
    (continuous: not k_n δ, 1.8 times that here), and is k_n from the
    plastic offset δ_p = δ_max - F_env(δ_max) / k_n it broke with,
    unloading, below it zero (no tension), and reloading beyond δ_max (it
    crushes no further) (1e-12; 1e-9 on the lines)."""
    top = 0.5 * (LCS[0] + LCS[1]) * AREA / K_N * 2.0  # on the second branch
    crush = np.linspace(0.0, top, 101)
    strength = TAU * AREA + MU * Envelope(top)
    slip = np.linspace(0.0, 1.2 * strength / K_T, 121)
    offset = top - Envelope(top) / K_N
    unload = np.linspace(top, offset - 0.2 * top, 80)[1:]
    reload = np.linspace(unload[-1], 1.3 * top, 120)[1:]
    delta = np.concatenate([crush, np.full_like(slip, top), unload, reload])
    slips = np.concatenate([np.zeros_like(crush), slip, np.full(len(unload) + len(reload), slip[-1])])
    path = Path(Material(shear_energy=0.0), delta, slips)
    broken = np.nonzero(path["state"])[0][0]
    assert path["state"][broken] == 2 and 101 < broken < 101 + len(slip) - 1
    assert K_N * top > 1.7 * Envelope(top) and offset > 0.4 * top
    n = 101 + len(slip)
    np.testing.assert_allclose(path["normal"][101:n], Envelope(top), rtol=RTOL)
    expected = [K_N * (d - offset) if d > offset else 0.0 for d in unload]
    np.testing.assert_allclose(path["normal"][n:n + len(unload)], expected, rtol=1e-9,
                               atol=1e-9 * K_N * top)
    expected = [max(K_N * (d - offset), 0.0) for d in reload]
    np.testing.assert_allclose(path["normal"][n + len(unload):], expected, rtol=1e-9,
                               atol=1e-9 * K_N * top)


def test_without_damage_the_bond_breaks_where_the_force_passes_the_tensile_strength():
    limit = SIGMA_T * AREA / K_N
    u = np.linspace(0.0, 1.1 * limit, 111)
    path = Path(Material(damage=0.0), -u)
    first = np.nonzero(path["state"])[0][0]
    assert u[first] > limit >= u[first - 1]
    np.testing.assert_allclose(-path["normal"][:first], K_N * u[:first], rtol=RTOL)
    # FCS (5.44) without damage: F_nt / ℱ_nt.
    np.testing.assert_allclose(path["criterion"][:first], u[:first] / limit, rtol=RTOL, atol=1e-15)


def test_shear_damages_linearly_and_breaks_at_the_failure_displacement():
    strength = TAU * AREA
    limit = strength / K_T
    ultimate = 1.5 * limit  # SHEAR_ENERGY_COEF 0.5
    slip = np.linspace(0.0, 1.1 * ultimate, 221)
    path = Path(Material(), np.zeros_like(slip), slip)
    expected = []
    for value in slip:
        if value >= ultimate:
            expected.append(0.0)
        elif value <= limit:
            expected.append(K_T * value)
        else:
            expected.append((1 - (value - limit) / (ultimate - limit)) * strength)
    broken = np.nonzero(path["state"])[0][0]
    np.testing.assert_allclose(path["shear"][:broken], expected[:broken], rtol=1e-11,
                               atol=1e-12 * strength)
    # Broken at the first sample that reaches u^f (to the round-off of the
    # incremental spring: rel 1e-9).
    assert path["state"][broken] == 2
    assert np.nonzero(slip >= ultimate * (1 - 1e-9))[0][0] <= broken
    assert broken <= np.nonzero(slip > ultimate * (1 + 1e-9))[0][0]
    # FCS: F_s / ℱ_t while intact.
    np.testing.assert_allclose(path["criterion"][:broken],
                               np.abs(path["shear"][:broken]) / strength, rtol=1e-11, atol=1e-15)


def test_shear_compression_breaks_at_the_mohr_coulomb_strength():
    """Compressed by F_n (elastic, below LCS_1), the bond without shear damage
    breaks once k_t u_t > τ A + μ_s F_n."""
    delta = 0.5 * LCS[0] * AREA / K_N
    normal = K_N * delta
    strength = TAU * AREA + MU * normal
    slip = np.linspace(0.0, 1.2 * strength / K_T, 241)
    path = Path(Material(shear_energy=0.0), np.full_like(slip, delta), slip)
    first = np.nonzero(path["state"])[0][0]
    assert path["state"][first] == 2
    assert K_T * slip[first] > strength >= K_T * slip[first - 1]
    np.testing.assert_allclose(path["shear"][:first], K_T * slip[:first], rtol=1e-11)
    np.testing.assert_allclose(path["criterion"][:first], K_T * slip[:first] / strength, rtol=1e-11)
    # Tension does not strengthen: under tension the strength is τ A alone.
    path = Path(Material(shear_energy=0.0), np.full_like(slip, -0.1 * SIGMA_T * AREA / K_N), slip)
    first = np.nonzero(path["state"])[0][0]
    assert K_T * slip[first] > TAU * AREA >= K_T * slip[first - 1]


def test_failure_criterion_state_with_damage_is_the_opening_over_the_failure_opening():
    ultimate = 1.8 * SIGMA_T * AREA / K_N
    u = np.linspace(0.0, 0.9 * ultimate, 50)
    path = Path(Material(), -u)
    np.testing.assert_allclose(path["criterion"], u / ultimate, rtol=RTOL, atol=1e-15)


def WriteMaterials(folder, **variables):
    base = {"DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME": "DEM_Dempack", "YOUNG_MODULUS": E,
            "POISSON_RATIO": NU, "PARTICLE_DENSITY": 2500.0, "CONTACT_SIGMA_MIN": SIGMA_T,
            "CONTACT_TAU_ZERO": TAU, "CONTACT_INTERNAL_FRICC": MU, "DAMAGE_FACTOR": 0.2}
    base.update(variables)
    base = {k: v for k, v in base.items() if v is not None}
    path = folder / "MaterialsDEM.json"
    path.write_text(json.dumps({"materials": [{"material_name": "concrete", "material_id": 1,
                                               "Variables": base}],
                                "material_relations": [], "material_assignation_table": []}))
    return str(path)


@pytest.mark.parametrize("variables, message", [
    ({"DAMAGE_FACTOR": -0.5}, r"DAMAGE_FACTOR = \(u_n\^f - u_n\^l\) / u_n\^l must be >= 0"),
    ({"SHEAR_ENERGY_COEF": -0.1}, r"SHEAR_ENERGY_COEF .* must be >= 0"),
    ({"CONTACT_SIGMA_MIN": None}, r"CONTACT_SIGMA_MIN \(tensile strength .*\) is missing"),
    ({"CONTACT_TAU_ZERO": None}, r"CONTACT_TAU_ZERO \(shear strength .*\) is missing"),
    ({"POISSON_RATIO": 0.7}, r"POISSON_RATIO must be in \[0, 0.5\]"),
    ({"BOND_RANGE_BETA": 1.5}, r"BOND_RANGE_BETA .* must lie in \[0, 1\]"),
    ({"SLOPE_LIMIT_COEFF_C1": 3e6, "SLOPE_LIMIT_COEFF_C2": 2e6}, r"SLOPE_LIMIT_COEFF_C2 .* is below"),
    ({"SLOPE_FRACTION_N2": 0.0}, r"SLOPE_FRACTION_N2 .* must lie in"),
])
def test_bad_bond_input_names_the_file_the_material_and_the_key(tmp_path, variables, message):
    from tessera.dem import materials
    path = WriteMaterials(tmp_path, **variables)
    with pytest.raises(tessera.Error) as error:
        materials.ReadMaterials(path)
    text = str(error.value)
    assert path in text and "materials[0] ('concrete')" in text
    assert __import__("re").search(message, text), text
