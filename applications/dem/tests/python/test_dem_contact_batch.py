"""The vectorised sphere-sphere contact kernel (contact_laws/pair_contact_batch)
against the scalar loop it replaces: the kernel repeats the scalar arithmetic
operation for operation without fused multiply-adds, so a run must be bitwise
the same with DemSettings.batched_pair_contacts on and off (tolerance 0, by
construction) for both 3D laws, both relative-displacement forms (v Δt under
Velocity Verlet and Symplectic Euler, the increments under Forward Euler and
Taylor), sliding and unloading contacts,
rolling resistance, energy bookkeeping, the elastic forces, two particle materials, candidates
that come apart, and one and two threads; and the contact law on four lanes
(AVX2) and, where the processor has AVX-512, on eight
(DemSettings.eight_lane_pair_contacts).
"""
import numpy as np
import pytest
import tessera

from dem_test_utilities import (Material, ParallelThreads, Pile, Relate, Run, Settings, Sphere,
                                SpheresPart)


def Dem():
    from tessera import _dem
    return _dem


pytestmark = pytest.mark.skipif(
    not Dem().PairContactBatchAvailable(),
    reason="this processor has no AVX2: the scalar loop is the only path")


def RunPile(batched, scheme, steps=120, threads=1, energy=False, eight_lanes=True, **pile):
    model, spheres, walls = Pile(600, spacing=0.0125, **pile)
    # The elastic forces summed too (only where declared).
    spheres.AddNodalSolutionStepVariable(tessera.ELASTIC_FORCES)
    settings = Settings(2e-5, scheme, (0, 0, -9.81), search_frequency=7, tolerance=0.001)
    settings.batched_pair_contacts = batched
    settings.eight_lane_pair_contacts = eight_lanes
    settings.energy_calculation = energy
    settings.rolling_friction = "rolling" in pile
    with ParallelThreads(threads):
        strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
        strategy.Initialize()
        Run(strategy, steps, 2e-5)
    return strategy


def State(strategy):
    p = strategy.Particles
    return [p.position, p.velocity, p.angular_velocity, p.force, p.torque, p.elastic_force]


@pytest.mark.parametrize("scheme", ["Velocity_Verlet", "Symplectic_Euler", "Taylor_Scheme"])
def test_batched_and_scalar_hertz_runs_are_bitwise_equal(scheme):
    # The pile's sphere pairs follow Hertz (dem_test_utilities.Pile), friction
    # 0.4 (0.32 dynamic) with random velocities of 1 m/s: contacts slide and
    # unload, and the 1 mm search margin keeps candidates that are apart.
    batched = RunPile(True, scheme, energy=True)
    scalar = RunPile(False, scheme, energy=True)
    assert batched.NumberOfParticleContacts() > 50
    assert batched.NumberOfParticlePairCandidates() > batched.NumberOfParticleContacts()
    for a, b in zip(State(batched), State(scalar)):
        assert np.array_equal(a, b)
    energies_batched, energies_scalar = batched.GetEnergies(), scalar.GetEnergies()
    assert energies_batched["dissipated_friction"] > 0.0
    assert energies_batched == energies_scalar


@pytest.mark.parametrize("rolling", [(0.05, "DEMRollingFrictionModelConstantTorque"),
                                     (0.5, "DEMRollingFrictionModelViscousTorque")])
def test_batched_and_scalar_runs_with_rolling_resistance_are_bitwise_equal(rolling):
    # The kernel computes the rolling torque in its lanes, the scalar loop per
    # contact (rolling_friction.h): the same operations, so the same bits.
    batched = RunPile(True, "Velocity_Verlet", energy=True, rolling=rolling)
    scalar = RunPile(False, "Velocity_Verlet", energy=True, rolling=rolling)
    for a, b in zip(State(batched), State(scalar)):
        assert np.array_equal(a, b)
    energies = batched.GetEnergies()
    assert energies["dissipated_rolling"] > 0.0
    assert energies == scalar.GetEnergies()


@pytest.mark.parametrize("eight_lanes", [False, True])
def test_four_and_eight_lane_laws_give_the_scalar_bits(eight_lanes):
    # Both widths of the law, whichever the processor would pick: Hertz with
    # rolling resistance and energy bookkeeping (a last group of fewer lanes
    # than the width in most batches), and the linear law with two materials.
    if eight_lanes and not Dem().EightLanePairContactBatchAvailable():
        pytest.skip("this processor has no AVX-512: the four-lane law is the only one")
    rolling = (0.05, "DEMRollingFrictionModelConstantTorque")
    lanes = RunPile(True, "Velocity_Verlet", energy=True, eight_lanes=eight_lanes,
                    rolling=rolling)
    scalar = RunPile(False, "Velocity_Verlet", energy=True, rolling=rolling)
    for a, b in zip(State(lanes), State(scalar)):
        assert np.array_equal(a, b)
    assert lanes.GetEnergies() == scalar.GetEnergies()
    (lanes, contacts), (scalar, _) = (LinearPair(True, "Velocity_Verlet", eight_lanes),
                                      LinearPair(False, "Velocity_Verlet"))
    assert contacts[0] > 1000
    for a, b in zip(State(lanes), State(scalar)):
        assert np.array_equal(a, b)


def test_two_threads_batched_equal_one_thread_scalar():
    batched = RunPile(True, "Velocity_Verlet", threads=2)
    scalar = RunPile(False, "Velocity_Verlet", threads=1)
    for a, b in zip(State(batched), State(scalar)):
        assert np.array_equal(a, b)


def LinearPair(batched, scheme, eight_lanes=True):
    """Spheres of two materials (E 1e7 and 3e7) under the linear law, in a
    jittered lattice with random velocities: pair parameters and the contact
    point's share differ per material pair."""
    rng = np.random.default_rng(5)
    model = tessera.Model()
    spheres = SpheresPart(model)
    soft = Material(spheres, 1, density=2500.0, young=1e7, poisson=0.25)
    stiff = Material(spheres, 2, density=2000.0, young=3e7, poisson=0.3)
    for a, b in ((soft, soft), (soft, stiff), (stiff, stiff)):
        Relate(a, b, restitution=0.5, static_friction=0.5, dynamic_friction=0.3,
               law="DEM_D_Linear_viscous_Coulomb")
    n = 9
    node = 0
    for x in range(n):
        for y in range(n):
            for z in range(n):
                node += 1
                position = np.array([x, y, z]) * 0.00999 + rng.uniform(-5e-6, 5e-6, 3)
                Sphere(spheres, node, position, 0.005, soft if (x + y + z) % 2 else stiff,
                       velocity=rng.normal(0.0, 0.05, 3), angular_velocity=rng.normal(0.0, 5.0, 3))
    settings = Settings(1e-5, scheme, (0, 0, 0), search_frequency=5, tolerance=0.0005)
    settings.batched_pair_contacts = batched
    settings.eight_lane_pair_contacts = eight_lanes
    strategy = Dem().ExplicitSolverStrategy(spheres, None, settings)
    strategy.Initialize()
    contacts = []  # per step: the compressed lattice springs apart as it runs
    Run(strategy, 150, 1e-5, on_step=lambda t: contacts.append(strategy.NumberOfParticleContacts()))
    return strategy, contacts


@pytest.mark.parametrize("scheme", ["Velocity_Verlet", "Forward_Euler"])
def test_batched_and_scalar_linear_runs_with_two_materials_are_bitwise_equal(scheme):
    (batched, contacts), (scalar, _) = LinearPair(True, scheme), LinearPair(False, scheme)
    assert contacts[0] > 1000 and sum(contacts) > 20000
    for a, b in zip(State(batched), State(scalar)):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("scheme", ["Velocity_Verlet", "Symplectic_Euler"])
def test_batched_and_scalar_periodic_runs_are_bitwise_equal(scheme):
    # A periodic box of colliding spheres (test_dem_periodic.py): both paths
    # take the nearest images with the same operations.
    from test_dem_periodic import HIGH, LOW, Nearest, PeriodicSettings, Spheres
    rng = np.random.default_rng(8)
    grid = [(x, y, z) for x in range(8) for y in range(6) for z in range(4)]
    positions = LOW + (np.array(grid) + 0.5) * (HIGH - LOW) / [8, 6, 4]
    velocities = rng.normal(0.0, 0.5, (len(positions), 3))
    states, across = [], 0
    for batched in (True, False):
        _, spheres = Spheres(positions, np.full(len(positions), 0.0124), velocities)
        settings = PeriodicSettings(2e-6, 0.003, search_frequency=5, batched_pair_contacts=batched)
        settings.translational_scheme = scheme
        strategy = Dem().ExplicitSolverStrategy(spheres, None, settings)
        strategy.Initialize()
        Run(strategy, 600, 2e-6)
        first, second = strategy.ParticlePairCandidates()
        x = np.array(strategy.Particles.position)
        touching = np.linalg.norm(Nearest(x[second] - x[first], HIGH - LOW), axis=1) < 0.0248
        across = max(across, np.count_nonzero(touching & (np.abs(x[second] - x[first]).max(
            axis=1) > 0.05)))
        states.append(State(strategy))
    assert across > 0  # contacts across the faces at the end
    for a, b in zip(*states):
        assert np.array_equal(a, b)


def test_batched_and_scalar_runs_with_friction_decay_are_bitwise_equal():
    # FRICTION_DECAY 20 s/m (Kratos' blend of the pile's 0.4 / 0.32 frictions
    # with the sliding speed): the kernel calls the scalar law's blend per lane.
    batched = RunPile(True, "Velocity_Verlet", friction_decay=20.0)
    scalar = RunPile(False, "Velocity_Verlet", friction_decay=20.0)
    plain = RunPile(True, "Velocity_Verlet")
    for a, b in zip(State(batched), State(scalar)):
        assert np.array_equal(a, b)
    assert not np.array_equal(State(batched)[1], State(plain)[1])  # the blend acts
