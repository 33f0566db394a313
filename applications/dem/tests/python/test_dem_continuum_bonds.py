"""Bonded spheres of the continuum strategy (KDEM, contact_laws/bond_law.h).

Two spheres of radius R = 1 cm (ρ 2000, E 1e7, ν 0.25) touching at the start,
in COHESIVE_GROUP 1, are joined by a bar of rest length L = 2R and section
A = π R²: k_n = E A / L, k_t = G A / L with G = E / (2 (1 + ν)), and (with
ROTATIONAL_MOMENT_COEFFICIENT 1) a twisting spring G J / L, J = π R⁴ / 2.
Sources and tolerances:
- A free axial oscillation of the pair (reduced mass m/2) has the period
  2π sqrt(m* / k_n) and the amplitude v_rel / ω (harmonic oscillator); over
  three periods sampled every 1 µs: rel 2e-3 (period), 1e-3 (amplitude).
  Without damping Velocity Verlet keeps the energy to within its O((ωΔt)²/8)
  = 5e-6 fluctuation at Δt = T/1000: rel 1e-5.
- The dashpot 2 ξ sqrt(m* k_n) takes ξ from the pair's contact law (for a
  linear law the clamped spring-dashpot's map of Thornton et al., Kratos'
  DAMPING_GAMMA): each extreme of the oscillation is exp(-πξ/√(1-ξ²)) times
  the previous one (damped harmonic oscillator); rel 1e-2 (the extremes
  sampled every 1 µs). The energy
  balance closes with the dissipated energy to rel 1e-3 (the dashpot's power
  is sampled at the force evaluations, with Velocity Verlet's half-kicked
  velocities: an O(ωΔt) error of the dissipated part).
- The twist of the bar, ω_twist = sqrt(2 k_tw / I) (two equal inertias), rel 2e-3.
- An undamped bonded block keeps its energy up to Velocity Verlet's O(Δt²)
  oscillation: the error falls 4× when Δt halves (within [3.5, 4.5]).
- A clamped chain under a tip load bends as the equilibrium of its spheres
  says (shear and bending springs, torque arms): rel 1e-5.
- Contact area weighting (thesis §5.3, Kratos' ContactAreaWeighting): the
  interior of a simple cubic lattice gets the cube face (2R)² per bond; rel
  1e-12 (1e-5 with Kratos' printed skin constant 1.40727).
- Kratos' lever arms (BondLeverArms "kratos"): across a gap g the torques
  take the arms R, not the contact point's R + g / 2: after one step from
  rest the spins are 2R / (2R + g) of the centred arms' (rel 1e-9).
- Failure (Kratos' KDEM, strengths in Pa): a bond breaks in tension once
  k_n |u| > σ_t A, σ_t = 2 τ_0 cos φ / (1 + sin φ) with φ = atan μ_i, and in
  shear once |F_t| > τ_0 A (no compression); the largest force carried before
  is within one step's growth (k Δu per step) of the strength.
"""
import math
import os
import shutil

import numpy as np
import pytest

import tessera
import tessera.dem  # noqa: F401  (registers the DEM variables)

from dem_test_utilities import (DeckStage, Material, ParallelThreads, Relate, Run, Settings,
                                Sphere, SpheresPart)

R, DENSITY, YOUNG, POISSON = 0.01, 2000.0, 1e7, 0.25
SHEAR = YOUNG / (2 * (1 + POISSON))
AREA = math.pi * R * R
K_N = YOUNG * AREA / (2 * R)
K_T = SHEAR * AREA / (2 * R)
# BondStiffness "kratos": the linear contact law's springs at R* = R / 2, with
# the Hertz combinations of two equal materials E* = E / (2 (1 - ν²)) and
# G* = G / (2 (2 - ν)) (Kratos' DEM_KDEM, contact_laws/bond_law.h).
E_STAR = YOUNG / (2 * (1 - POISSON**2))
G_STAR = SHEAR / (2 * (2 - POISSON))
K_N_KRATOS = 1.432 * math.pi * E_STAR * 0.31225 * R / 2
K_T_KRATOS = 4 * G_STAR * K_N_KRATOS / E_STAR
MASS = DENSITY * 4.0 / 3.0 * math.pi * R**3
DT = 1e-6
CASE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "..", "shared",
                    "kratos_cases", "dem3d_continuum_bond")


def Dem():
    from tessera import _dem
    return _dem


HERTZ, LINEAR = "DEM_D_Hertz_viscous_Coulomb", "DEM_D_Linear_viscous_Coulomb"


def BondedMaterial(restitution, contact_law, friction=0.5, bond_law="DEM_KDEM", **bond):
    """A model whose spheres part declares COHESIVE_GROUP, with one material
    (ρ 2000, E 1e7, ν 0.25) related to itself by `contact_law` and, unless
    bond_law is None, by the bond law with the relation values `bond`
    (variable name -> value). Returns (model, spheres, material)."""
    model = tessera.Model()
    spheres = SpheresPart(model)
    spheres.AddNodalSolutionStepVariable(tessera.COHESIVE_GROUP)
    grain = Material(spheres, 1, density=DENSITY, young=YOUNG, poisson=POISSON)
    Relate(grain, grain, restitution=restitution, static_friction=friction, law=contact_law)
    relation = grain.GetSubProperties(1)
    if bond_law is not None:
        relation.SetValue(tessera.DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME, bond_law)
    for name, value in bond.items():
        relation.SetValue(getattr(tessera, name), value)
    return model, spheres, grain


def BondedSphere(spheres, node, position, grain, group=1, radius=R, **motion):
    """A sphere (radius R unless given) in COHESIVE_GROUP `group` (velocity,
    angular_velocity)."""
    Sphere(spheres, node, tuple(position), radius, grain, **motion)
    spheres.GetNode(node).SetSolutionStepValue(tessera.COHESIVE_GROUP, group)


def LatticePoints(side):
    """(i, j, k) of a side³ lattice, x fastest."""
    return [(i, j, k) for k in range(side) for j in range(side) for i in range(side)]


def Started(spheres, settings):
    strategy = Dem().ExplicitSolverStrategy(spheres, None, settings)
    strategy.Initialize()
    return strategy


def BondedPair(velocity=(0.0, 0.0, 0.0), angular_velocity=(0.0, 0.0, 0.0), restitution=1.0,
               tau=None, internal_friction=0.0, rotational=0.0, unbreakable=False, law="DEM_KDEM",
               groups=(1, 1), energy=False, contact_law=LINEAR, stiffness="thesis"):
    """Sphere 1 at (-R, 0, 0) with the given motion, sphere 2 at rest at (R, 0, 0)."""
    strengths = {} if tau is None else {"CONTACT_TAU_ZERO": tau}
    model, spheres, grain = BondedMaterial(
        restitution, contact_law, bond_law=law, CONTACT_INTERNAL_FRICC=internal_friction,
        ROTATIONAL_MOMENT_COEFFICIENT=rotational, IS_UNBREAKABLE=unbreakable, **strengths)
    BondedSphere(spheres, 1, (-R, 0.0, 0.0), grain, groups[0], velocity=velocity,
                 angular_velocity=angular_velocity)
    BondedSphere(spheres, 2, (R, 0.0, 0.0), grain, groups[1])
    settings = Settings(DT, "Velocity_Verlet", tolerance=0.001)
    settings.continuum = True
    settings.energy_calculation = energy
    settings.bond_stiffness = stiffness
    return model, Started(spheres, settings)


def Gap(strategy):
    p = strategy.Particles.position
    return np.linalg.norm(np.asarray(p[1]) - np.asarray(p[0])) - 2 * R


def Extremes(values):
    """The values at the local extremes of |values|."""
    a = np.abs(values)
    peaks = np.where((a[1:-1] > a[:-2]) & (a[1:-1] >= a[2:]))[0] + 1
    return values[peaks]


def TotalEnergy(strategy):
    e = strategy.GetEnergies()
    return sum(e[k] for k in ("kinetic_translational", "kinetic_rotational", "elastic_normal",
                              "elastic_tangential", "dissipated_damping", "dissipated_friction"))


def test_bond_constants_follow_the_bar_formulas():
    _, strategy = BondedPair(rotational=1.0)
    (bond,) = strategy.Bonds()
    assert bond["elements"] == (1, 2) and bond["state"] == 0
    assert bond["rest_length"] == pytest.approx(2 * R, rel=1e-14)
    assert bond["area"] == pytest.approx(AREA, rel=1e-14)
    assert bond["normal_stiffness"] == pytest.approx(K_N, rel=1e-14)
    assert bond["tangential_stiffness"] == pytest.approx(K_T, rel=1e-14)
    assert bond["twisting_stiffness"] == pytest.approx(SHEAR * math.pi * R**4 / 2 / (2 * R),
                                                       rel=1e-14)
    assert bond["bending_stiffness"] == pytest.approx(YOUNG * math.pi * R**4 / 4 / (2 * R),
                                                      rel=1e-14)
    assert bond["normal_damping"] == 0.0  # e = 1


def test_kratos_bond_stiffness_takes_the_linear_contact_laws_springs():
    _, strategy = BondedPair(rotational=1.0, stiffness="kratos")
    (bond,) = strategy.Bonds()
    assert bond["normal_stiffness"] == pytest.approx(K_N_KRATOS, rel=1e-14)
    assert bond["tangential_stiffness"] == pytest.approx(K_T_KRATOS, rel=1e-14)
    # The section still sets the bending and twisting springs (and the strengths).
    assert bond["area"] == pytest.approx(AREA, rel=1e-14)
    assert bond["bending_stiffness"] == pytest.approx(YOUNG * math.pi * R**4 / 4 / (2 * R),
                                                      rel=1e-14)


@pytest.mark.parametrize("stiffness, k_n", [("thesis", K_N), ("kratos", K_N_KRATOS)])
def test_bonded_pair_oscillates_at_its_spring_frequency(stiffness, k_n):
    omega = math.sqrt(k_n / (MASS / 2))
    # Three periods and a bit, sampled every DT.
    steps = int(3.3 * 2 * math.pi / omega / DT)
    _, strategy = BondedPair(velocity=(0.1, 0.0, 0.0), unbreakable=True, stiffness=stiffness)
    start = TotalEnergy(strategy)
    gaps, contacts = [], []
    Run(strategy, steps, DT, on_step=lambda t: (gaps.append(Gap(strategy)),
                                                contacts.append(strategy.NumberOfParticleContacts())))
    gaps = np.array(gaps)
    rising = np.where((gaps[:-1] < 0) & (gaps[1:] >= 0))[0]
    assert len(rising) == 3
    period = (rising[-1] - rising[0]) * DT / 2
    assert period == pytest.approx(2 * math.pi / omega, rel=2e-3)
    assert -gaps.min() == pytest.approx(0.1 / omega, rel=1e-3)
    assert gaps.max() == pytest.approx(0.1 / omega, rel=1e-3)
    # The spheres overlap half the time, yet the bond alone acts between them.
    assert max(contacts) == 0
    assert TotalEnergy(strategy) == pytest.approx(start, rel=1e-5)
    assert strategy.Bonds()[0]["state"] == 0


def ClampedLinearDampingRatio(e):
    """The damping ratio ξ of a linear spring-dashpot whose impact, ending when
    the force (not the overlap) returns to zero, rebounds with e (Thornton et
    al. 2013, for ξ <= 1/√2: e = exp(-ξ/√(1-ξ²) (π - atan(2ξ√(1-ξ²)/(1-2ξ²))))),
    by bisection: the map Kratos uses for DAMPING_GAMMA of a linear law."""
    def restitution(xi):
        root = math.sqrt(1 - xi * xi)
        return math.exp(-xi / root * (math.pi - math.atan(2 * xi * root / (1 - 2 * xi * xi))))
    low, high = 0.0, 1.0 / math.sqrt(2.0) - 1e-12
    for _ in range(200):
        mid = 0.5 * (low + high)
        low, high = (mid, high) if restitution(mid) > e else (low, mid)
    return 0.5 * (low + high)


def test_bond_damping_is_the_contact_laws_and_decays_the_oscillation():
    """The bond takes the damping ratio ξ of its pair's contact law (Kratos'
    DAMPING_GAMMA): for a linear law and e = 0.5, the clamped spring-dashpot's
    ξ (0.2587, against 0.2155 for a free oscillation decaying by e). The bond
    never unloads, so its free oscillation decays by exp(-πξ/√(1-ξ²)) per
    half period (damped harmonic oscillator): rel 1e-2."""
    e = 0.5
    _, strategy = BondedPair(velocity=(0.1, 0.0, 0.0), restitution=e, unbreakable=True,
                             energy=True)
    xi = ClampedLinearDampingRatio(e)
    (bond,) = strategy.Bonds()
    assert bond["normal_damping"] == pytest.approx(2 * xi * math.sqrt(MASS / 2 * K_N), rel=1e-6)
    start = TotalEnergy(strategy)
    gaps = []
    Run(strategy, 2600, DT, on_step=lambda t: gaps.append(Gap(strategy)))
    extremes = Extremes(np.array(gaps))
    assert len(extremes) >= 4
    ratios = -extremes[1:] / extremes[:-1]
    np.testing.assert_allclose(ratios[:3], math.exp(-math.pi * xi / math.sqrt(1 - xi * xi)),
                               rtol=1e-2)
    assert TotalEnergy(strategy) == pytest.approx(start, rel=1e-3)
    # The dashpot takes the energy of the relative motion, half of the start's
    # (m* = m/2), less the ~4e-4 left after five half periods and the sampling
    # error above.
    assert strategy.GetEnergies()["dissipated_damping"] == pytest.approx(0.5 * start, rel=5e-3)


def test_twisting_spring_turns_the_pair_back():
    w0 = 2.0
    _, strategy = BondedPair(angular_velocity=(w0, 0.0, 0.0), rotational=1.0, unbreakable=True)
    k_twist = SHEAR * math.pi * R**4 / 2 / (2 * R)
    inertia = 0.4 * MASS * R * R
    omega = math.sqrt(2 * k_twist / inertia)
    spins = []
    Run(strategy, 4000, DT, on_step=lambda t: spins.append(
        strategy.Particles.angular_velocity[0][0] - strategy.Particles.angular_velocity[1][0]))
    spins = np.array(spins)
    falling = np.where((spins[:-1] > 0) & (spins[1:] <= 0))[0]
    assert len(falling) >= 2
    period = (falling[-1] - falling[0]) * DT / (len(falling) - 1)
    assert period == pytest.approx(2 * math.pi / omega, rel=2e-3)
    # The twist is about the bond's axis: the total spin stays w0 I.
    total = strategy.Particles.angular_velocity[0][0] + strategy.Particles.angular_velocity[1][0]
    assert total == pytest.approx(w0, rel=1e-12)


@pytest.mark.parametrize("internal_friction", [0.0, 1.0])
def test_tension_breaks_the_bond_at_the_tensile_strength(internal_friction):
    # Kratos' KDEM: σ_t = 2 τ_0 cos φ / (1 + sin φ), φ = atan μ_i (2 τ_0 at
    # μ_i = 0, 0.828 τ_0 at μ_i = 1).
    tau = 1000.0  # Pa
    _, strategy = BondedPair(velocity=(-0.1, 0.0, 0.0), tau=tau,
                             internal_friction=internal_friction)
    phi = math.atan(internal_friction)
    strength = 2 * tau * math.cos(phi) / (1 + math.sin(phi)) * AREA
    forces, states = [], []
    Run(strategy, 200, DT, on_step=lambda t: (forces.append(strategy.Bonds()[0]["normal_force"]),
                                              states.append(strategy.Bonds()[0]["state"])))
    assert states[-1] == 4
    # The pull grows by at most k_n v_rel Δt per step before it breaks.
    largest_pull = -min(forces)
    assert strength - K_N * 0.1 * DT < largest_pull <= strength
    # Broken and apart: no force, the spheres fly apart at constant speed.
    v = strategy.Particles.velocity
    Run(strategy, 50, DT, start_time=200 * DT)
    np.testing.assert_array_equal(strategy.Particles.velocity, v)


def test_shear_breaks_the_bond_at_the_cohesion():
    tau = 1000.0  # Pa (CONTACT_TAU_ZERO); the tensile strength, 2 τ_0, is not reached
    _, strategy = BondedPair(velocity=(0.0, 0.1, 0.0), tau=tau)
    strength = tau * AREA
    shear, states = [], []
    Run(strategy, 300, DT, on_step=lambda t: (
        shear.append(np.linalg.norm(strategy.Bonds()[0]["shear_force"])),
        states.append(strategy.Bonds()[0]["state"])))
    assert 2 in states
    broke = states.index(2)
    # The step that breaks it still carries the force (Kratos' KDEM), the next does not pull.
    assert strength < shear[broke] <= strength + K_T * 0.1 * DT
    assert max(shear[:broke]) <= strength


def GappedPairAfterOneStep(arms, gap):
    """Two unbreakable KDEM-bonded spheres of radius R, `gap` apart, the first
    sliding along y at 0.1 m/s, after one step with BondLeverArms `arms`:
    the bond's shear force and the spheres' angular velocities."""
    model, spheres, grain = BondedMaterial(1.0, LINEAR, IS_UNBREAKABLE=True)
    half = R + 0.5 * gap
    BondedSphere(spheres, 1, (-half, 0.0, 0.0), grain, velocity=(0.0, 0.1, 0.0))
    BondedSphere(spheres, 2, (half, 0.0, 0.0), grain)
    settings = Settings(DT, "Velocity_Verlet", tolerance=gap)
    settings.continuum = True
    settings.bond_lever_arms = arms
    strategy = Started(spheres, settings)
    Run(strategy, 1, DT)
    (bond,) = strategy.Bonds()
    spin = np.asarray(strategy.Particles.angular_velocity)
    return np.asarray(bond["shear_force"]), spin[0], spin[1]


def test_kratos_lever_arms_turn_the_spheres_about_their_radii():
    # BondLeverArms (contact_laws/bond_law.h): for the torques Kratos' arm is
    # R - (L - d) / 2 (equal materials), about R across a gap g, where the
    # contact point on the line of centres is at d / 2 = R + g / 2; for the
    # slip both take d / 2 here (equal spheres). After one step from rest the
    # shear forces are the same and the spins stand in the ratio of the arms,
    # 2R / (2R + g) (the bond lengthens by (v Δt)² / 2d, 1e-14 of R: rel 1e-9).
    gap = 0.5 * R
    force_c, first_c, second_c = GappedPairAfterOneStep("centres", gap)
    force_k, first_k, second_k = GappedPairAfterOneStep("kratos", gap)
    np.testing.assert_allclose(force_k, force_c, rtol=1e-12)
    assert abs(first_c[2]) > 0.0
    assert first_k[2] / first_c[2] == pytest.approx(2 * R / (2 * R + gap), rel=1e-9)
    assert second_k[2] / second_c[2] == pytest.approx(2 * R / (2 * R + gap), rel=1e-9)
    # Both spheres turn the same way, as the couple of the shear forces says.
    assert first_c[2] == pytest.approx(second_c[2], rel=1e-12)


def test_a_broken_bond_pushes_but_does_not_pull():
    # CONTACT_TAU_ZERO 0 (absent): no strength, the first tension breaks the bond. Before,
    # the bar bounced the spheres elastically: they leave at the speed they met.
    _, strategy = BondedPair(velocity=(0.1, 0.0, 0.0))
    Run(strategy, 2000, DT)
    (bond,) = strategy.Bonds()
    assert bond["state"] == 4
    v = np.asarray(strategy.Particles.velocity)
    assert v[1][0] - v[0][0] == pytest.approx(0.1, rel=1e-3)
    assert strategy.NumberOfIntactBonds() == 0


def test_a_broken_bond_whose_spheres_parted_touches_only_where_they_touch():
    # BrokenBonds "frictional" (contact_laws/bond_law.h): a broken bond pushes
    # with k_n (L - d) while its spheres stay closer than its rest length L;
    # once they have parted beyond both L and touch 2R, the crack is open and
    # they meet again as unbonded spheres: k_n (2R - d) where d < 2R, nothing
    # between 2R and L (the bond's gap g). No damping (restitution 1): the
    # force is the spring's, to rounding (1e-12).
    gap = 0.2 * R
    model, spheres, grain = BondedMaterial(1.0, LINEAR)  # no strength: the first pull breaks it
    BondedSphere(spheres, 1, (-R - 0.5 * gap, 0.0, 0.0), grain, velocity=(-0.1, 0.0, 0.0))
    BondedSphere(spheres, 2, (R + 0.5 * gap, 0.0, 0.0), grain)
    settings = Settings(DT, "Velocity_Verlet", tolerance=gap)
    settings.continuum = True
    strategy = Started(spheres, settings)
    (bond,) = strategy.Bonds()
    rest, k_n = bond["rest_length"], bond["normal_stiffness"]
    assert rest == pytest.approx(2 * R + gap, rel=1e-12)
    Run(strategy, 20, DT)
    (bond,) = strategy.Bonds()
    assert bond["state"] == 4 and bond["opened"]
    assert strategy.BondArrays()["opened"].tolist() == [1]
    # Back towards the other sphere, through the bond's gap and into contact.
    strategy.Particles.SetVelocity(0, [1.0, 0.0, 0.0])
    strategy.Particles.SetVelocity(1, [0.0, 0.0, 0.0])
    distances, forces = [], []

    def Record(time):
        p = np.asarray(strategy.Particles.position)
        distances.append(np.linalg.norm(p[1] - p[0]))
        forces.append(strategy.Bonds()[0]["normal_force"])
    Run(strategy, 3000, DT, start_time=20 * DT, on_step=Record)
    distances, forces = np.array(distances), np.array(forces)
    in_gap = (distances < rest) & (distances > 2 * R)
    touching = distances < 2 * R
    assert in_gap.sum() > 10 and touching.sum() > 10
    assert (forces[in_gap] == 0.0).all()
    np.testing.assert_allclose(forces[touching], k_n * (2 * R - distances[touching]), rtol=1e-12)


def test_only_spheres_of_one_cohesive_group_are_bonded():
    for groups in ((1, 2), (0, 0)):
        _, strategy = BondedPair(groups=groups)
        assert strategy.NumberOfBonds() == 0
    # Without a bond the touching pair is an ordinary contact.
    _, strategy = BondedPair(velocity=(0.1, 0.0, 0.0), groups=(1, 2))
    Run(strategy, 10, DT)
    assert strategy.NumberOfParticleContacts() == 1


@pytest.mark.parametrize("unequal", [False, True])
def test_sorting_the_rows_keeps_the_bonds(unequal):
    """A bonded chain listed out of order, sorted in space every 5 steps, moves
    as the unsorted one (the sums change order only: abs 1e-15 m). With
    unequal radii a sort that swaps a bond's spheres must swap the contact
    point's share R_i / (R_i + R_j) too, or the lever arms of the shear force
    and the spins go wrong."""
    radii = [R * (0.7 + 0.15 * k) if unequal else R for k in range(6)]
    x = np.concatenate(([0.0], np.cumsum([radii[k] + radii[k + 1] for k in range(5)])))

    def Chain(sort):
        model, spheres, grain = BondedMaterial(0.8, HERTZ, ROTATIONAL_MOMENT_COEFFICIENT=0.5,
                                               IS_UNBREAKABLE=True)
        order = [4, 1, 5, 0, 3, 2]
        for node, k in enumerate(order, start=1):
            BondedSphere(spheres, node, (x[k], 0.001 * k * k, 0.0), grain, radius=radii[k],
                         velocity=(0.0, 0.05 * (k - 2.5), 0.02 * k), angular_velocity=(k, 0.0, -k))
        settings = Settings(DT, "Velocity_Verlet", tolerance=0.005)
        settings.continuum = True
        settings.sort_rows_frequency = 5 if sort else 0
        settings.sort_rows_minimum = 1
        strategy = Started(spheres, settings)
        Run(strategy, 300, DT)
        strategy.WriteToNodes()
        return strategy, {n.Id: np.array([n.X, n.Y, n.Z]) for n in spheres.Nodes}

    plain, unsorted = Chain(False)
    sorted_, moved = Chain(True)
    assert plain.NumberOfBonds() == sorted_.NumberOfBonds() == 5
    for node in unsorted:
        np.testing.assert_allclose(moved[node], unsorted[node], rtol=0, atol=1e-15)


def BondedBlock(threads, side=8, steps=60):
    """A jittered simple cubic block of side³ bonded spheres with random
    velocities and spins, weak enough that some bonds break: the final
    positions and the bond states."""
    rng = np.random.default_rng(7)
    model, spheres, grain = BondedMaterial(0.6, HERTZ, friction=0.4, CONTACT_TAU_ZERO=2000.0,
                                           CONTACT_INTERNAL_FRICC=0.5,
                                           ROTATIONAL_MOMENT_COEFFICIENT=0.5)
    for node, (i, j, k) in enumerate(LatticePoints(side), start=1):
        centre = 2 * R * np.array([i, j, k]) + rng.uniform(-1e-5, 1e-5, 3)
        BondedSphere(spheres, node, centre, grain, velocity=tuple(rng.normal(0.0, 0.05, 3)),
                     angular_velocity=tuple(rng.normal(0.0, 5.0, 3)))
    settings = Settings(DT, "Velocity_Verlet", tolerance=0.0005, search_frequency=10)
    settings.continuum = True
    with ParallelThreads(threads):
        strategy = Started(spheres, settings)
        Run(strategy, steps, DT)
        return (np.array(strategy.Particles.position),
                [bond["state"] for bond in strategy.Bonds()])


def Cantilever(dt, steps, restitution=0.2, global_damping=0.3, bonds=5, load=0.01):
    """A straight chain of bonds + 1 spheres along x, the first clamped (all
    six velocity dofs fixed), a load -load along y on the last; bending and
    twisting springs on (ROTATIONAL_MOMENT_COEFFICIENT 1)."""
    model, spheres, grain = BondedMaterial(restitution, HERTZ, ROTATIONAL_MOMENT_COEFFICIENT=1.0,
                                           IS_UNBREAKABLE=True)
    spheres.AddNodalSolutionStepVariable(tessera.EXTERNAL_APPLIED_FORCE)
    for k in range(bonds + 1):
        BondedSphere(spheres, k + 1, (2 * R * k, 0.0, 0.0), grain)
    for dof in (tessera.VELOCITY_X, tessera.VELOCITY_Y, tessera.VELOCITY_Z,
                tessera.ANGULAR_VELOCITY_X, tessera.ANGULAR_VELOCITY_Y, tessera.ANGULAR_VELOCITY_Z):
        spheres.GetNode(1).Fix(dof)
    spheres.GetNode(bonds + 1).SetSolutionStepValue(tessera.EXTERNAL_APPLIED_FORCE,
                                                    [0.0, -load, 0.0])
    settings = Settings(dt, "Symplectic_Euler", tolerance=1e-4, search_frequency=50)
    settings.continuum = True
    settings.global_damping = global_damping
    strategy = Started(spheres, settings)
    Run(strategy, steps, dt)
    strategy.WriteToNodes()
    return strategy, spheres


def test_a_bonded_cantilever_bends_as_its_bar_springs_say():
    """Static tip load P on a chain of N bonds (L = 2R, arms a = R), first
    sphere clamped, reached by dynamic relaxation (background damping 0.3,
    30,000 steps of 4e-5 s). Equilibrium of the spheres beyond each bond: every bond
    carries the shear P, sphere N balances the shear's torque with the bending
    spring, M_N = a P, and each sphere passes on M_k = M_(k+1) + L P, so
    M_k = P (a + (N - k) L); then θ_k = θ_(k-1) + M_k / k_bend and
    u_k = u_(k-1) + P / k_t + a (θ_k + θ_(k-1)) (the shear spring's slip at
    the contact point). Rel 1e-5 (the relaxation leaves 5e-7)."""
    bonds, load = 5, 0.01
    strategy, spheres = Cantilever(4e-5, 30000, bonds=bonds, load=load)
    k_t = SHEAR * AREA / (2 * R)
    k_bend = YOUNG * math.pi * R**4 / 4 / (2 * R)
    p = -load
    theta, u = [0.0], [0.0]
    for k in range(1, bonds + 1):
        moment = p * (R + (bonds - k) * 2 * R)
        theta.append(theta[-1] + moment / k_bend)
        u.append(u[-1] + p / k_t + R * (theta[k] + theta[k - 1]))
    nodes = sorted(spheres.Nodes, key=lambda n: n.Id)
    measured_u = [n.GetSolutionStepValue(tessera.DISPLACEMENT)[1] for n in nodes]
    measured_theta = [n.GetSolutionStepValue(tessera.PARTICLE_ROTATION_ANGLE)[2] for n in nodes]
    np.testing.assert_allclose(measured_u[1:], u[1:], rtol=1e-5)
    np.testing.assert_allclose(measured_theta[1:], theta[1:], rtol=1e-5)
    assert measured_u[0] == 0.0 and measured_theta[0] == 0.0


@pytest.mark.parametrize("restitution", [1.0, 0.2])
def test_the_time_step_estimate_keeps_a_bonded_chain_stable(restitution):
    """The estimate bounds every bonded sphere's stiffness and damping by
    Gershgorin's theorem, 2 / (sqrt(K + ζ²) + ζ); the cantilever at 0.95 of
    it stays bounded. Measured: e = 1, estimate 1.54e-4 s; e = 0.2 (Hertz
    damping ratio), estimate 4.36e-5 s, the chain runs at 1.5 times that and
    blows up at 7.8e-5 s (one bond's estimate, before: 1.78e-4 s with the
    linear damping ratio)."""
    probe, _ = Cantilever(1e-6, 0, restitution=restitution, global_damping=0.0)
    critical = probe.EstimateTimeStep(0.0).critical_time_step
    strategy, _ = Cantilever(0.95 * critical, 5000, restitution=restitution, global_damping=0.0)
    assert np.all(np.abs(np.array(strategy.Particles.velocity)) < 1.0)


def EnergyErrorOfBondedBlock(dt, duration=8e-3, side=4):
    """Largest relative change of the total energy (kinetic + bond springs)
    of an undamped, unbreakable 4³ bonded block with bending and twisting
    springs, random velocities and spins, over `duration`."""
    rng = np.random.default_rng(3)
    model, spheres, grain = BondedMaterial(1.0, HERTZ, ROTATIONAL_MOMENT_COEFFICIENT=1.0,
                                           IS_UNBREAKABLE=True)
    for node, point in enumerate(LatticePoints(side), start=1):
        BondedSphere(spheres, node, 2 * R * np.array(point), grain,
                     velocity=tuple(rng.normal(0.0, 0.05, 3)),
                     angular_velocity=tuple(rng.normal(0.0, 5.0, 3)))
    settings = Settings(dt, "Velocity_Verlet", tolerance=1e-4, search_frequency=20)
    settings.continuum = True
    strategy = Started(spheres, settings)
    start = TotalEnergy(strategy)
    errors = []
    Run(strategy, round(duration / dt), dt,
        on_step=lambda t: errors.append(abs(TotalEnergy(strategy) / start - 1.0)))
    return max(errors)


def test_a_bonded_block_keeps_its_energy_to_second_order():
    """Velocity Verlet conserves energy up to an O(Δt²) oscillation: the
    bond springs' energies (normal, shear, bending, twisting, with the springs
    turned along as the bonds rotate) must account for all the work the bonds
    do. Halving Δt divides the largest error by 4 (measured 2.40e-4, 6.00e-5,
    with the critical step 7.9e-5 s): ratio within [3.5, 4.5]."""
    coarse = EnergyErrorOfBondedBlock(4e-6)
    fine = EnergyErrorOfBondedBlock(2e-6)
    assert fine < 1e-4
    assert 3.5 < coarse / fine < 4.5


def CubicLatticeBonds(side, skin=False):
    """Bonds of a simple cubic lattice of touching spheres (spacing 2R):
    {(node_a, node_b): area}, and the node ids of the interior spheres."""
    model, spheres, grain = BondedMaterial(0.5, HERTZ)
    if skin:
        spheres.AddNodalSolutionStepVariable(tessera.SKIN_SPHERE)
    interior = set()
    for node, point in enumerate(LatticePoints(side), start=1):
        BondedSphere(spheres, node, 2 * R * np.array(point), grain)
        if skin:
            spheres.GetNode(node).SetSolutionStepValue(tessera.SKIN_SPHERE, 1.0)
        if all(0 < c < side - 1 for c in point):
            interior.add(node)
    settings = Settings(DT, "Velocity_Verlet", tolerance=1e-4)
    settings.continuum = True
    strategy = Started(spheres, settings)
    return {bond["elements"]: bond["area"] for bond in strategy.Bonds()}, interior


def test_bond_sections_of_spheres_with_six_bonds_cover_the_cube_faces():
    """Thesis §5.3 (VPAC) as Kratos applies it to spheres with six bonds or
    more: an interior sphere of a simple cubic lattice has α = (6/π) 4πR² /
    (6 π R²) = 4/π, so a bond between two of them gets exactly the cube face
    (2R)² (the thesis' exactness check); a sphere with five bonds or fewer
    keeps π R², and a bond takes the mean of its two spheres' sections."""
    areas, interior = CubicLatticeBonds(4)
    assert len(areas) == 3 * 4 * 4 * 3
    kinds = set()
    for (a, b), area in areas.items():
        inside = (a in interior) + (b in interior)
        kinds.add(inside)
        expected = {2: 4 * R * R, 1: 0.5 * (4 / math.pi + 1) * AREA, 0: AREA}[inside]
        assert area == pytest.approx(expected, rel=1e-12), (a, b)
    assert kinds == {0, 1, 2}
    # On the skin (SKIN_SPHERE 1) Kratos' factor 1.40727 (4πR² / (6 π R²)) 6/11.
    skin_areas, _ = CubicLatticeBonds(4, skin=True)
    weight = 1.40727 * (4.0 / 6.0) * 6.0 / 11.0
    for (a, b), area in skin_areas.items():
        inside = (a in interior) + (b in interior)
        expected = {2: weight, 1: 0.5 * (weight + 1), 0: 1.0}[inside] * AREA
        assert area == pytest.approx(expected, rel=1e-5), (a, b)


def test_one_and_two_threads_give_bitwise_the_same_bonded_block():
    one, states = BondedBlock(1)
    two, states_two = BondedBlock(2)
    assert len(states) == 3 * 8 * 8 * 7  # every lattice neighbour pair
    assert 0 < states.count(0) < len(states)  # some bonds broke, some hold
    assert states == states_two
    np.testing.assert_array_equal(one, two)


def test_one_and_two_threads_give_bitwise_the_same_large_bonded_block():
    """8,000 spheres: 32 blocks of 256 rows in the bond pass, 16 per thread
    on two (bond_forces.cpp): the second thread's first blocks (a layer of
    the block) wait for all first passes, its later ones are added from its
    ring (the small block above: one block per thread)."""
    one, states = BondedBlock(1, side=20, steps=30)
    two, states_two = BondedBlock(2, side=20, steps=30)
    assert len(states) == 3 * 20 * 20 * 19  # every lattice neighbour pair
    assert 0 < states.count(0) < len(states)  # some bonds broke, some hold
    assert states == states_two
    np.testing.assert_array_equal(one, two)


@pytest.mark.parametrize("law, message", [
    ("DEM_Unknown", "'DEM_Unknown' is not supported; this build provides DEM_KDEM, DEM_Dempack"),
    (None, "names no DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME"),
])
def test_bond_law_errors_name_the_materials(law, message):
    with pytest.raises(Exception, match=message):
        BondedPair(law=law)


def WriteContinuumDeck(folder):
    """The model that Kratos' test_DEM_3D_continuum.py builds in its script
    (the case's README): two SphericContinuumParticle3D spheres of radius 1 in
    COHESIVE_GROUP 1, 1.95 apart, the first moving at 0.1 m/s along x, over
    two RigidFace3D3N triangles at z = -1.008; the deck's JSON files unchanged."""
    for name in ("ProjectParametersDEM.json", "MaterialsDEM.json"):
        shutil.copy(os.path.join(CASE, name), folder)
    with open(os.path.join(folder, "test_DEM_3D_continuumDEM.mdpa"), "w") as f:
        f.write("Begin Properties 0\nEnd Properties\n"
                "Begin Nodes\n1 -1.0 0.0 0.0\n2 0.95 0.0 0.0\nEnd Nodes\n"
                "Begin Elements SphericContinuumParticle3D\n1 0 1\n2 0 2\nEnd Elements\n"
                "Begin NodalData RADIUS\n1 0 1.0\n2 0 1.0\nEnd NodalData\n"
                "Begin NodalData VELOCITY_X\n1 0 0.1\nEnd NodalData\n"
                "Begin NodalData COHESIVE_GROUP\n1 0 1\n2 0 1\nEnd NodalData\n")
    with open(os.path.join(folder, "test_DEM_3D_continuumDEM_FEM_boundary.mdpa"), "w") as f:
        f.write("Begin Properties 0\nEnd Properties\n"
                "Begin Nodes\n3 -5.0 5.0 -1.008\n4 5.0 5.0 -1.008\n5 -5.0 -5.0 -1.008\n"
                "6 5.0 -5.0 -1.008\nEnd Nodes\n"
                "Begin Conditions RigidFace3D3N\n7 0 5 6 3\n8 0 3 6 4\nEnd Conditions\n")


# Kratos' references (test_DEM_3D_continuum.py, absolute tolerance 1e-8):
# sphere node 1 and wall node 5, the node at (-5, -5, -1.008) of the model its
# script builds (read from an mdpa, the walls' nodes are renumbered after the
# spheres', as Kratos' reader does: it is node 6 here).
KRATOS_CONTINUUM = {"VELOCITY_X": 0.028907825348927448, "VELOCITY_Z": -0.8757276957864403,
                    "TOTAL_FORCES_X": -26919.437972831598, "TOTAL_FORCES_Z": 1970950.3578554934,
                    "DEM_PRESSURE": 21566.85065708402, "ELASTIC_FORCES_Z": -273575.41245014494,
                    "SHEAR_STRESS": 362.391011482587,
                    "TANGENTIAL_ELASTIC_FORCES_X": 6039.850191376444}


def ContinuumDeckResults(model):
    sphere = model.GetModelPart("SpheresPart").GetNode(1)
    (wall,) = [n for n in model.GetModelPart("RigidFacePart").Nodes
               if (n.X, n.Y, n.Z) == (-5.0, -5.0, -1.008)]
    return {"VELOCITY_X": sphere.GetSolutionStepValue(tessera.VELOCITY)[0],
            "VELOCITY_Z": sphere.GetSolutionStepValue(tessera.VELOCITY)[2],
            "TOTAL_FORCES_X": sphere.GetSolutionStepValue(tessera.TOTAL_FORCES)[0],
            "TOTAL_FORCES_Z": sphere.GetSolutionStepValue(tessera.TOTAL_FORCES)[2],
            "DEM_PRESSURE": wall.GetSolutionStepValue(tessera.DEM_PRESSURE),
            "ELASTIC_FORCES_Z": wall.GetSolutionStepValue(tessera.ELASTIC_FORCES)[2],
            "SHEAR_STRESS": wall.GetSolutionStepValue(tessera.SHEAR_STRESS),
            "TANGENTIAL_ELASTIC_FORCES_X":
                wall.GetSolutionStepValue(tessera.TANGENTIAL_ELASTIC_FORCES)[0]}


# Measured relative errors and the tolerance asserted on each.
# "thesis" (the bar springs, the default): VELOCITY_Z 0.23 %, TOTAL_FORCES_Z
# 0.085 %, DEM_PRESSURE 0.10 %, ELASTIC_FORCES_Z 0.060 %; the horizontal
# response VELOCITY_X 33 %, TOTAL_FORCES_X 6.5 %, SHEAR_STRESS and
# TANGENTIAL_ELASTIC_FORCES_X 25 %, not asserted. "kratos" (Kratos' KDEM
# springs): VELOCITY_X 6.9 %, VELOCITY_Z 0.30 %, TOTAL_FORCES_X 2.5 %,
# TOTAL_FORCES_Z 0.31 %, DEM_PRESSURE 0.21 %, ELASTIC_FORCES_Z 0.17 %,
# SHEAR_STRESS and TANGENTIAL_ELASTIC_FORCES_X 1.1 %.
CONTINUUM_TOLERANCES = {
    "thesis": {"VELOCITY_Z": 5e-3, "TOTAL_FORCES_Z": 5e-3, "DEM_PRESSURE": 5e-3,
               "ELASTIC_FORCES_Z": 5e-3},
    "kratos": {"VELOCITY_X": 0.1, "VELOCITY_Z": 5e-3, "TOTAL_FORCES_X": 0.04,
               "TOTAL_FORCES_Z": 5e-3, "DEM_PRESSURE": 5e-3, "ELASTIC_FORCES_Z": 5e-3,
               "SHEAR_STRESS": 0.02, "TANGENTIAL_ELASTIC_FORCES_X": 0.02},
}


@pytest.mark.skipif(not os.path.isdir(CASE), reason="shared/kratos_cases not present")
@pytest.mark.parametrize("stiffness", ["thesis", "kratos"])
def test_dem3d_continuum_bond_deck_runs_near_kratos(tmp_path, monkeypatch, stiffness):
    """Kratos' own KDEM and continuum strategy reach the references; Tessera's
    bond is its own implementation of the KDEM formulas, and its values lie
    within the tolerances above (CONTINUUM_TOLERANCES), not at Kratos' 1e-8.
    The bond holds, as in Kratos: CONTACT_TAU_ZERO 0.5e6 Pa and
    CONTACT_INTERNAL_FRICC 1 give a tensile strength of 4.1e5 Pa, 1.3e6 N on
    its section, far above the ~2e4 N it carries. With the bar springs the
    horizontal response (the phase of the bond's axial oscillation) is off by
    6.5-33 %; Kratos' springs (BondStiffness "kratos"), 4.4 times softer here,
    bring every quantity within 7 %."""
    WriteContinuumDeck(tmp_path)
    model, stage = DeckStage(tmp_path, monkeypatch, BondStiffness=stiffness)
    stage.Run()
    (bond,) = stage.GetStrategy().Bonds()
    assert bond["state"] == 0
    results = ContinuumDeckResults(model)
    for name, tolerance in CONTINUUM_TOLERANCES[stiffness].items():
        assert results[name] == pytest.approx(KRATOS_CONTINUUM[name], rel=tolerance), name
    # One contact on the wall node's only face, tangential along x: Kratos'
    # SHEAR_STRESS is |TANGENTIAL_ELASTIC_FORCES| over the nodal area (50/3 m²).
    assert results["SHEAR_STRESS"] == pytest.approx(
        abs(results["TANGENTIAL_ELASTIC_FORCES_X"]) / (50.0 / 3.0), rel=1e-12)


# Kratos' test_DEM3D_continuum_KDEM_two_spheres_wall (the older version of the
# same model, whose script set the properties itself; README of the case):
# references and its gate, ±0.1 % on absolute values.
TWO_SPHERES_WALL = os.path.join(os.path.dirname(CASE), "test_DEM3D_continuum_KDEM_two_spheres_wall")
KRATOS_TWO_SPHERES_WALL = {"VELOCITY_X": 0.02043790, "VELOCITY_Z": -0.8771226,
                           "TOTAL_FORCES_X": -25240.795, "TOTAL_FORCES_Z": 1963237.70,
                           "DEM_PRESSURE": 21558.5, "ELASTIC_FORCES_Z": -273320.0,
                           "SHEAR_STRESS": 271.471, "TANGENTIAL_ELASTIC_FORCES_X": 4524.52}
# Kratos' gate where Tessera meets it; elsewhere the measured error, rounded
# up (docs/validation.md says why these are not closed): VELOCITY_X -5.01 %,
# VELOCITY_Z +0.101 %, TOTAL_FORCES_X -0.79 %, TOTAL_FORCES_Z +0.145 %,
# DEM_PRESSURE -0.038 %, ELASTIC_FORCES_Z -0.080 %, SHEAR_STRESS and
# TANGENTIAL_ELASTIC_FORCES_X -0.645 %.
TWO_SPHERES_WALL_TOLERANCES = {"VELOCITY_X": 0.055, "VELOCITY_Z": 1.5e-3,
                               "TOTAL_FORCES_X": 0.01, "TOTAL_FORCES_Z": 2e-3,
                               "DEM_PRESSURE": 1e-3, "ELASTIC_FORCES_Z": 1e-3,
                               "SHEAR_STRESS": 7e-3, "TANGENTIAL_ELASTIC_FORCES_X": 7e-3}


@pytest.mark.skipif(not os.path.isdir(TWO_SPHERES_WALL), reason="shared/kratos_cases not present")
def test_kdem_two_spheres_wall_deck_against_kratos_older_references(tmp_path, monkeypatch):
    """The same two bonded spheres on the plane (the deck's JSON files of that
    test, identical to dem3d_continuum_bond's) with the default bar springs
    against the older test's references: the wall node's pressure and
    elastic force meet Kratos' ±0.1 %; the rest does not (tolerances above)."""
    WriteContinuumDeck(tmp_path)
    for name in ("ProjectParametersDEM.json", "MaterialsDEM.json"):
        shutil.copy(os.path.join(TWO_SPHERES_WALL, name), tmp_path)
    model, stage = DeckStage(tmp_path, monkeypatch)
    stage.Run()
    (bond,) = stage.GetStrategy().Bonds()
    assert bond["state"] == 0
    results = ContinuumDeckResults(model)
    for name, tolerance in TWO_SPHERES_WALL_TOLERANCES.items():
        assert abs(results[name]) == pytest.approx(abs(KRATOS_TWO_SPHERES_WALL[name]),
                                                   rel=tolerance), name


@pytest.mark.skipif(not os.path.isdir(CASE), reason="shared/kratos_cases not present")
def test_contact_mesh_option_writes_the_bonds_for_paraview(tmp_path, monkeypatch):
    """ContactMeshOption (true in the deck) with VTK output on: every
    OutputTimeStep (5e-4 s over 0.025 s: 50 files) a legacy VTK polydata file
    with the bond as a line between the sphere centres and its state, sigma,
    tau and normal force, listed in a .pvd collection."""
    WriteContinuumDeck(tmp_path)
    model, stage = DeckStage(tmp_path, monkeypatch, post_vtk_option=True)
    # The deck's contact-mesh flags PostContactSigma, PostContactTau and
    # PostLocalContactForce are in the bonds' file; the flags without results
    # here are named.
    with pytest.warns(UserWarning, match="PostRigidElementForces, PostEulerAngles, "
                                         "PostFailureCriterionState are true, but Tessera"):
        stage.Run()
    folder = tmp_path / "test_DEM_3D_continuum_Post_Files"
    files = sorted(folder.glob("test_DEM_3D_continuum_bonds_*.vtk"))
    assert len(files) == 50
    text = (folder / "test_DEM_3D_continuum_bonds_50.vtk").read_text().split("\n")
    assert text[text.index("LINES 1 3") + 1] == "2 0 1"
    (bond,) = stage.GetStrategy().Bonds()
    state = text[text.index("SCALARS state int 1") + 2]
    sigma = float(text[text.index("SCALARS sigma double 1") + 2])
    assert int(state) == bond["state"] and sigma == bond["sigma"]
    collection = (folder / "test_DEM_3D_continuum_bonds.pvd").read_text()
    assert collection.count("<DataSet") == 50
    # PostElasticForces and PostTangentialElasticForces (true in the deck)
    # reach the walls' files.
    walls = sorted(folder.glob("RigidFacePart_*.vtu"))
    assert walls
    header = walls[-1].read_bytes()
    assert b"\"TANGENTIAL_ELASTIC_FORCES\"" in header and b"\"ELASTIC_FORCES\"" in header


def BondedTriple(settings, centre_x):
    """Three bonded spheres in a row along x centred at centre_x (a chain of
    two bonds), the first with a velocity and spin that load every spring."""
    model, spheres, grain = BondedMaterial(0.5, LINEAR, ROTATIONAL_MOMENT_COEFFICIENT=1.0,
                                           IS_UNBREAKABLE=True)
    BondedSphere(spheres, 1, (centre_x - 2 * R, 0.05, 0.05), grain, velocity=(0.05, 0.02, -0.01),
                 angular_velocity=(3.0, -2.0, 1.0))
    for k in (2, 3):
        BondedSphere(spheres, k, (centre_x + (k - 2) * 2 * R, 0.05, 0.05), grain)
    return Started(spheres, settings)


def test_a_bonded_chain_across_a_periodic_face_moves_as_inside():
    """PeriodicDomainOption: the bonds are made and evaluated at the nearest
    periodic image, so a chain straddling the face x = 0 of a 0.1 m box moves
    as the same chain in the middle of the box (velocities, rel 1e-9)."""
    def Settle(centre_x):
        settings = Settings(DT, "Velocity_Verlet", tolerance=1e-4)
        settings.continuum = True
        settings.periodic = True
        settings.bounding_box_min = [0.0, 0.0, 0.0]
        settings.bounding_box_max = [0.1, 0.1, 0.1]
        strategy = BondedTriple(settings, centre_x)
        assert strategy.NumberOfBonds() == 2
        Run(strategy, 500, DT)
        return np.array(strategy.Particles.velocity), np.array(strategy.Particles.angular_velocity)

    inside = Settle(0.05)
    across = Settle(0.0)  # the middle sphere on the face: the first one wraps to x = 0.09
    for a, b in zip(inside, across):
        np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-9 * np.abs(a).max())
    assert np.abs(inside[0]).max() > 0.0


def test_deleting_a_bonded_sphere_drops_its_bonds_and_keeps_the_others():
    """BoundingBoxOption: the first sphere of a chain of three, launched at
    2 m/s along -x, stretches its bond until it breaks (tensile strength
    2 τ_0 = 1.6e5 Pa, 50 N on the section), leaves the box and is deleted at
    a search; its bond goes, the other one stays with the remaining pair,
    renumbered, and keeps holding it: the pair's momentum (what the broken
    bond passed on) is conserved, rel 1e-12."""
    settings = Settings(1e-5, "Velocity_Verlet", tolerance=1e-4, search_frequency=10)
    settings.continuum = True
    settings.bounding_box = True
    settings.bounding_box_min = [-0.02, -1.0, -1.0]
    settings.bounding_box_max = [1.0, 1.0, 1.0]
    model, spheres, grain = BondedMaterial(1.0, LINEAR, CONTACT_TAU_ZERO=8e4)
    BondedSphere(spheres, 1, (0.0, 0.0, 0.0), grain, velocity=(-2.0, 0.0, 0.0))
    for k in (2, 3):
        BondedSphere(spheres, k, (2 * R * (k - 1), 0.0, 0.0), grain)
    strategy = Started(spheres, settings)
    assert strategy.NumberOfBonds() == 2
    Run(strategy, 100, 1e-5)
    states = [bond["state"] for bond in strategy.Bonds()]
    assert states[0] == 4 and len(strategy.Particles.radius) == 3
    Run(strategy, 2400, 1e-5, start_time=100 * 1e-5)
    assert len(strategy.Particles.radius) == 2
    (bond,) = strategy.Bonds()
    assert bond["elements"] == (2, 3) and bond["rows"] == (0, 1)
    assert bond["rest_length"] == pytest.approx(2 * R, rel=1e-12)
    v = np.array(strategy.Particles.velocity)
    momentum = MASS * (v[0] + v[1])
    Run(strategy, 200, 1e-5, start_time=2500 * 1e-5)
    v = np.array(strategy.Particles.velocity)
    np.testing.assert_allclose(MASS * (v[0] + v[1]), momentum, rtol=1e-12)
    assert abs(momentum[0]) > 0.0


def test_spheres_injected_into_a_bonded_run_are_not_bonded_and_leave_the_bonds_alone():
    """An inlet 0.1 m above a bonded, oscillating pair injects spheres (up to
    100/s, 1 m/s down, no gravity; not bonded: the inlet makes them in
    COHESIVE_GROUP 0). Until the first
    one arrives the pair moves bitwise as without the inlet (the bond list is
    re-indexed for the appended rows, its sums unchanged); then the newcomers
    strike the pair through the contact law and the bond stays the only one."""
    from test_dem_inlets import InletModel

    def Run_(inlet, steps):
        if inlet:
            model, grain = InletModel([(0.0, 0.0, 0.1)], {"RADIUS": R})
        else:
            model, grain = InletModel([], {"RADIUS": R})
        spheres = model.GetModelPart("SpheresPart")
        spheres.AddNodalSolutionStepVariable(tessera.COHESIVE_GROUP)
        relation = grain.GetSubProperties(1)
        relation.SetValue(tessera.DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME, "DEM_KDEM")
        relation.SetValue(tessera.IS_UNBREAKABLE, True)
        BondedSphere(spheres, 1001, (-R, 0.0, 0.0), grain, velocity=(0.1, 0.0, 0.0))
        BondedSphere(spheres, 1002, (R, 0.0, 0.0), grain)
        settings = Settings(1e-5, "Symplectic_Euler", tolerance=0.001)
        settings.continuum = True
        strategy = Dem().ExplicitSolverStrategy(spheres, None, settings)
        inlets = Dem().ParticleInlets(model.GetModelPart("DEMInletPart"), strategy, 42, {})
        strategy.Initialize()
        contacts, time = 0, 0.0
        for _ in range(steps):
            time += 1e-5
            strategy.SolveSolutionStep(time)
            inlets.Inject(time)
            contacts = max(contacts, strategy.NumberOfParticleContacts())
        return strategy, contacts

    plain, _ = Run_(False, 3000)
    fed, contacts = Run_(True, 3000)
    # Injected (one per diameter travelled: its point is busy until then), none arrived.
    assert len(fed.Particles.radius) > 2 and contacts == 0
    np.testing.assert_array_equal(np.array(fed.Particles.position)[:2],
                                  np.array(plain.Particles.position)[:2])
    fed, contacts = Run_(True, 12000)
    assert contacts > 0 and fed.NumberOfBonds() == 1
    assert fed.Bonds()[0]["elements"] == (1001, 1002)
