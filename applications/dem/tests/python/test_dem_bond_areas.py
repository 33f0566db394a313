"""Bond creation with the range β and the bonds' sections (thesis §5.1, §5.3;
contact_laws/bond_law.h, particles/continuum_bonds.h):

- Table 5.1: the surface of the regular polyhedron of n faces circumscribing
  a sphere over the sphere's: 6√3/π, 6/π, 3√3/π, the dodecahedron's and the
  icosahedron's closed forms; the printed 3.308, 1.910, 1.654, 1.325, 1.207
  to the table's 3 decimals; linear in n in between (rel 1e-12).
- VPAC on a simple cubic lattice, periodic so that every sphere has its six
  bonds: A = π R², α = (6/π) 4πR² / (6 π R²) = 4/π, each bond's section
  exactly the cube face (2R)² (the digest's exactness check; rel 1e-12);
  the springs k_n = E Ā / L, k_t = G Ā / L (5.34; rel 1e-12).
- β: pairs with |d / (R_i + R_j) - 1| <= β are bonded, with their initial
  distance as rest length (gap stored); others and other groups are not.
- The global correction α = 40 P / N_c (5.6): the section π min(R)² times it.
- V5.1 (thesis Table 5.3, acceptance of the digest: |error| <= 3.5 %): the
  bonds' sections projected on horizontal cuts of a random specimen
  (tessera.dem.specimen) add up to the specimen's section: on the mean of
  two small cylinders, and on every cut of the thesis' Ø150 × 300 mm one.
"""
import math

import numpy as np
import pytest

import tessera
import tessera.dem  # noqa: F401

from dem_test_utilities import Material, Relate, Settings, Sphere, SpheresPart

R, E, NU = 0.01, 1e9, 0.25
G = E / (2 * (1 + NU))


def Dem():
    from tessera import _dem
    return _dem


def test_table_5_1_polyhedron_ratios():
    pi, r3, r5 = math.pi, math.sqrt(3), math.sqrt(5)
    exact = {4: 6 * r3 / pi, 6: 6 / pi, 8: 3 * r3 / pi,
             12: 150 / (25 + 11 * r5) * math.sqrt((5 + 2 * r5) / 5) / pi,
             20: 30 * r3 / (7 + 3 * r5) / pi}
    printed = {4: 3.308, 6: 1.910, 8: 1.654, 12: 1.325, 20: 1.207}
    for n, value in exact.items():
        assert Dem().VpacAreaRatio(n) == pytest.approx(value, rel=1e-12)
        assert round(value, 3) == printed[n]
    # Linear in n between the Platonic solids, held at the ends.
    assert Dem().VpacAreaRatio(10) == pytest.approx(0.5 * (exact[8] + exact[12]), rel=1e-12)
    assert Dem().VpacAreaRatio(16) == pytest.approx(0.5 * (exact[12] + exact[20]), rel=1e-12)
    assert Dem().VpacAreaRatio(2) == pytest.approx(exact[4], rel=1e-12)
    assert Dem().VpacAreaRatio(30) == pytest.approx(exact[20], rel=1e-12)


def Block(points, radii, law="DEM_Dempack", correction="vpac", periodic=None, groups=None,
          porosity=-1.0, skin=None, **relation_values):
    model = tessera.Model()
    spheres = SpheresPart(model)
    spheres.AddNodalSolutionStepVariable(tessera.COHESIVE_GROUP)
    if skin is not None:
        spheres.AddNodalSolutionStepVariable(tessera.SKIN_SPHERE)
    grain = Material(spheres, 1, density=2500.0, young=E, poisson=NU)
    Relate(grain, grain, restitution=0.5, static_friction=0.3, law="DEM_D_Linear_viscous_Coulomb")
    relation = grain.GetSubProperties(1)
    values = {"DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME": law, "CONTACT_SIGMA_MIN": 1e6,
              "CONTACT_TAU_ZERO": 1e6, "CONTACT_INTERNAL_FRICC": 0.5}
    values.update(relation_values)
    for name, value in values.items():
        relation.SetValue(getattr(tessera, name), value)
    for k, (p, r) in enumerate(zip(points, radii)):
        Sphere(spheres, k + 1, tuple(p), r, grain)
        spheres.GetNode(k + 1).SetSolutionStepValue(tessera.COHESIVE_GROUP,
                                                    1 if groups is None else groups[k])
        if skin is not None:
            spheres.GetNode(k + 1).SetSolutionStepValue(tessera.SKIN_SPHERE, float(skin[k]))
    settings = Settings(1e-7, "Symplectic_Euler", tolerance=1e-4)
    settings.continuum = True
    settings.bond_area_correction = correction
    settings.bond_area_porosity = porosity
    if periodic is not None:
        settings.periodic = True
        settings.bounding_box_min = [0.0, 0.0, 0.0]
        settings.bounding_box_max = [periodic] * 3
    strategy = Dem().ExplicitSolverStrategy(spheres, None, settings)
    strategy.Initialize()
    return strategy


def test_vpac_gives_every_bond_of_a_simple_cubic_lattice_the_cube_face():
    side = 4
    points = [((i + 0.5) * 2 * R, (j + 0.5) * 2 * R, (k + 0.5) * 2 * R)
              for k in range(side) for j in range(side) for i in range(side)]
    strategy = Block(points, [R] * len(points), periodic=side * 2 * R)
    bonds = strategy.Bonds()
    assert len(bonds) == 3 * side**3  # six bonds per sphere, each shared
    for bond in bonds:
        assert bond["area"] == pytest.approx(4 * R * R, rel=1e-12)
        assert bond["normal_stiffness"] == pytest.approx(E * 4 * R * R / (2 * R), rel=1e-12)
        assert bond["tangential_stiffness"] == pytest.approx(G * 4 * R * R / (2 * R), rel=1e-12)


def test_bond_range_beta_bonds_pairs_within_one_plus_or_minus_beta_and_keeps_the_gap():
    # Sphere 1 at 0; 2 at 2R (1.00); 3 at 2R + 1.1 (2R) => d / 2R = 1.10 from 2;
    # 4 further at 1.2 × 2R from 3; 5 at 0.8 × 2R from 1 on the other side,
    # in another group.
    points = [(0.0, 0.0, 0.0), (2 * R, 0.0, 0.0), (2 * R + 2.2 * R, 0.0, 0.0),
              (2 * R + 4.6 * R, 0.0, 0.0), (0.0, 1.6 * R, 0.0)]
    groups = [1, 1, 1, 1, 2]
    strategy = Block(points, [R] * 5, groups=groups, BOND_RANGE_BETA=0.15)
    pairs = {bond["elements"]: bond["rest_length"] for bond in strategy.Bonds()}
    assert set(pairs) == {(1, 2), (2, 3)}
    assert pairs[(2, 3)] == pytest.approx(2.2 * R, rel=1e-12)  # the gap 0.2 R is kept
    # A wider range bonds the third pair too.
    strategy = Block(points, [R] * 5, groups=groups, BOND_RANGE_BETA=0.25)
    assert {bond["elements"] for bond in strategy.Bonds()} == {(1, 2), (2, 3), (3, 4)}


def test_global_area_correction_scales_the_section_by_40_p_over_n_c():
    """A chain of three touching spheres (R, 0.8 R, R): two bonds over three
    spheres, N_c = 4/3; with P = 0.3, α = 40 P / N_c = 9 and each section is
    9 π min(R_i, R_j)² = 9 π (0.8 R)² (rel 1e-12)."""
    points = [(0.0, 0.0, 0.0), (1.8 * R, 0.0, 0.0), (3.6 * R, 0.0, 0.0)]
    strategy = Block(points, [R, 0.8 * R, R], correction="global", porosity=0.3)
    bonds = strategy.Bonds()
    assert len(bonds) == 2
    for bond in bonds:
        assert bond["area"] == pytest.approx(9 * math.pi * (0.8 * R) ** 2, rel=1e-12)
    with pytest.raises(tessera.Error, match=r"needs the specimen's porosity P in \(0, 1\)"):
        Block(points, [R, 0.8 * R, R], correction="global")


def test_v51_projected_bond_area_across_cuts_equals_the_section():
    """Two Ø80 × 100 mm cylinders of 971 spheres each (R 4 mm ± 25 %, seeds
    1 and 4; porosity 0.45, coordination 7.0 at β 0.15), VPAC (R̃ = R_i, the
    skin spheres within one mean radius of the surface left uncorrected): the
    bonds crossing 21 horizontal cuts through the middle 60 %, projected,
    cover the section to within the digest's 3.5 % on the mean of the two
    specimens (measured -3.7 % and +0.1 %, mean -1.8 %), each within 5 %."""
    from tessera.dem.specimen import GenerateSpecimen, ProjectedBondArea, SkinFlags
    errors = []
    for seed in (1, 4):
        specimen = GenerateSpecimen("cylinder", diameter=0.08, length=0.10, radius=0.004,
                                    spread=0.25, seed=seed)
        skin = (SkinFlags(specimen) > 0).astype(float)
        strategy = Block(specimen.position, specimen.radius, BOND_RANGE_BETA=0.15, skin=skin)
        bonds = strategy.BondArrays()
        position = np.asarray(strategy.Particles.position)
        values = ProjectedBondArea(position, np.asarray(bonds["first"]), np.asarray(bonds["second"]),
                                   np.asarray(bonds["area"]), cuts=21)
        errors.append(values.mean() / (math.pi * 0.04**2) - 1.0)
    print("V5.1 projected area / section - 1:", errors)
    assert all(abs(e) <= 0.05 for e in errors)
    assert abs(np.mean(errors)) <= 0.035


def DenseCylinder(seed):
    """The V5.1 cylinder (Ø80 × 100 mm, R 4 mm ± 25 %) packed with the
    generator's densest settings (tessera.dem.specimen.DENSE)."""
    from tessera.dem.specimen import DENSE, GenerateSpecimen
    return GenerateSpecimen("cylinder", diameter=0.08, length=0.10, radius=0.004, spread=0.25,
                            seed=seed, **DENSE)


def test_the_dense_specimen_is_denser_and_its_overlaps_stay_within_the_tolerance():
    """The generator's dense settings (solid fraction 0.60, overlaps relaxed
    below 0.05 R, Verlet pair list) on the V5.1 cylinder, seed 1: porosity
    0.395 and coordination 8.10 at β 0.15 (measured), against 0.447 and 7.23
    of the default settings; checked by brute force over all pairs: no
    overlap above 0.05 of the mean radius, every sphere inside the cylinder
    (1e-12 m)."""
    from tessera.dem.specimen import GenerateSpecimen
    dense = DenseCylinder(1)
    loose = GenerateSpecimen("cylinder", diameter=0.08, length=0.10, radius=0.004, spread=0.25,
                             seed=1)
    print("porosity, coordination: dense", dense.Porosity(), dense.CoordinationNumber(0.15),
          "default", loose.Porosity(), loose.CoordinationNumber(0.15))
    assert dense.Porosity() < 0.40 < loose.Porosity()
    assert dense.CoordinationNumber(0.15) > loose.CoordinationNumber(0.15) + 0.5
    p, r = dense.position, dense.radius
    d = np.linalg.norm(p[:, None, :] - p[None, :, :], axis=2)
    overlap = r[:, None] + r[None, :] - d
    np.fill_diagonal(overlap, -np.inf)
    assert overlap.max() < 0.05 * 0.004
    assert np.all(np.hypot(p[:, 0], p[:, 1]) + r <= 0.04 + 1e-12)
    assert np.all(p[:, 2] - r >= -1e-12) and np.all(p[:, 2] + r <= 0.10 + 1e-12)


def test_v51_every_cut_of_the_thesis_cylinder_within_3_5_percent():
    """V5.1 as the digest states it (3.5 %) on each of the 21 cuts, on the
    thesis' own 3D specimen (Table 5.3, mesh 3D-2: Ø150 × 300 mm, mean R
    3.86 mm, 13,500 spheres, 0.9 % on its mean): the dense packing of that
    cylinder, seed 1 (12,427 spheres, porosity 0.399, coordination 8.39 at
    β 0.15), VPAC with R̃ = R_i and the skin uncorrected, as above.
    Measured: mean -0.2 %, cuts -3.2 to +3.0 % (seeds 2 and 3: +0.2 %, -2.2
    to +3.3 % and +0.2 %, -2.5 to +3.1 %; mesh 3D-1's size, R 4.21 mm, 9,578
    spheres: +1.0 %, -2.8 to +3.45 %). On the small Ø80 × 100 mm cylinder
    the cuts hold a third as many bonds and the skin a larger share: +2.6 to
    +10.2 % (docs/validation.md)."""
    from tessera.dem.specimen import DENSE, GenerateSpecimen, ProjectedBondArea, SkinFlags
    specimen = GenerateSpecimen("cylinder", diameter=0.15, length=0.30, radius=0.00386,
                                spread=0.25, seed=1, **DENSE)
    skin = (SkinFlags(specimen) > 0).astype(float)
    strategy = Block(specimen.position, specimen.radius, BOND_RANGE_BETA=0.15, skin=skin)
    bonds = strategy.BondArrays()
    values = ProjectedBondArea(np.asarray(strategy.Particles.position), np.asarray(bonds["first"]),
                               np.asarray(bonds["second"]), np.asarray(bonds["area"]), cuts=21)
    errors = values / (math.pi * 0.075**2) - 1.0
    print("V5.1 thesis cylinder, per cut:", np.round(errors, 4))
    assert np.all(np.abs(errors) <= 0.035)


def test_particle_stress_tensor_and_failure_criterion_state_of_a_compressed_pair():
    """Two spheres (R, touching along x) squeezed together for a few steps:
    DEM_STRESS_TENSOR of each is (1/V) arm n ⊗ F (digest §3.6: σ̄ = (1/V_i)
    Σ sym(r ⊗ F)) with F = -N n on the first sphere, arm = d / 2 the contact
    point halfway between the centres where the last step's forces were
    evaluated (Symplectic Euler: the positions before its move; d < 2 R, the
    bond shortened), V the virtual polyhedron's ⅓ R ratio(4) 4π R² (one
    bond: Table 5.1 held at n = 4): σ_xx = -N d / (2 V), compression
    negative, the other entries 0; and FAILURE_CRITERION_STATE is the
    bond's (0 under compression below LCS: no tension, no shear). Rel 1e-12
    (round-off of d: two subtractions and a root)."""
    model = tessera.Model()
    spheres = SpheresPart(model)
    for variable in (tessera.COHESIVE_GROUP, tessera.DEM_STRESS_TENSOR,
                     tessera.FAILURE_CRITERION_STATE):
        spheres.AddNodalSolutionStepVariable(variable)
    grain = Material(spheres, 1, density=2500.0, young=E, poisson=NU)
    Relate(grain, grain, restitution=1.0, static_friction=0.3, law="DEM_D_Linear_viscous_Coulomb")
    relation = grain.GetSubProperties(1)
    for name, value in {"DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME": "DEM_Dempack",
                        "CONTACT_SIGMA_MIN": 1e6, "CONTACT_TAU_ZERO": 1e6}.items():
        relation.SetValue(getattr(tessera, name), value)
    Sphere(spheres, 1, (0.0, 0.0, 0.0), R, grain, velocity=(0.01, 0.0, 0.0))
    Sphere(spheres, 2, (2 * R, 0.0, 0.0), R, grain, velocity=(-0.01, 0.0, 0.0))
    for k in (1, 2):
        spheres.GetNode(k).SetSolutionStepValue(tessera.COHESIVE_GROUP, 1)
    settings = Settings(1e-7, "Symplectic_Euler", tolerance=1e-4)
    settings.continuum = True
    strategy = Dem().ExplicitSolverStrategy(spheres, None, settings)
    strategy.Initialize()
    for step in range(1, 5):
        strategy.SolveSolutionStep(step * 1e-7)
    # Where the fifth step evaluates its forces (before it moves the spheres).
    position = np.array(strategy.Particles.position)
    strategy.SolveSolutionStep(5e-7)
    strategy.WriteToNodes()
    bond = strategy.BondArrays()
    normal = float(bond["normal_force"][0])
    assert normal > 0.0  # compressed
    volume = Dem().VpacAreaRatio(4) * 4 * math.pi * R**3 / 3
    direction = np.asarray(bond["direction"][0])
    arm = np.linalg.norm(position[1] - position[0]) / 2.0
    assert 1e-9 < (R - arm) / R < 1e-5  # shortened: the rest length's arm R is off by this
    for node in (1, 2):
        stress = np.asarray(spheres.GetNode(node).GetSolutionStepValue(tessera.DEM_STRESS_TENSOR))
        expected = -normal * arm / volume * np.outer(direction, direction)
        np.testing.assert_allclose(stress, expected, rtol=1e-12, atol=1e-12 * abs(expected).max())
        assert spheres.GetNode(node).GetSolutionStepValue(tessera.FAILURE_CRITERION_STATE) == 0.0
