"""VirtualMassCoefficient c (Kratos' force reduction factor): every
acceleration, translational and rotational, of spheres, clusters and free
walls is c F/m (c M/I), as if the masses and inertias were divided by c.

Sources and tolerances:
- Constant loads (gravity, an applied moment, an applied wall force): the
  velocities grow at exactly c times the rate without virtual mass, for every
  translational scheme (each integrates a constant acceleration exactly in
  the velocity); rel 1e-12.
- An undamped linear contact (e = 1) lasts π sqrt(m*/(c k_n)) (harmonic
  oscillator of mass m*/c): 1/sqrt(c) times longer; rel 2.5e-3, about two
  steps (measured 880 and 1,392 µs against 880.4 and 1,392.1 µs). The
  time-step estimate's contact time scales by 1/sqrt(c); rel 1e-12.
"""
import math

import numpy as np
import pytest

import tessera

from dem_test_utilities import (Material, Relate, Run, Settings, Sphere, SphereUnderMoment,
                                SpheresPart)
from test_dem_clusters import ClusterModel, Strategy, WriteClu
from test_dem_free_walls import Body, Setup

C = 0.4


def Dem():
    from tessera import _dem
    return _dem


@pytest.mark.parametrize("scheme", ["Forward_Euler", "Symplectic_Euler", "Taylor_Scheme",
                                    "Velocity_Verlet"])
def test_sphere_accelerations_are_scaled_by_the_coefficient(scheme):
    g, moment, dt, steps = np.array([0.0, -2.0, -9.81]), np.array([0.0, 3e-6, 1e-6]), 1e-3, 200
    _, spheres = SphereUnderMoment(moment)
    settings = Settings(dt, scheme, tuple(g))
    settings.virtual_mass_coefficient = C
    strategy = Dem().ExplicitSolverStrategy(spheres, None, settings)
    strategy.Initialize()
    time = Run(strategy, steps, dt)
    inertia = strategy.Particles.inertia[0]
    np.testing.assert_allclose(strategy.Particles.velocity[0], C * g * time, rtol=1e-12)
    np.testing.assert_allclose(strategy.Particles.angular_velocity[0], C * moment / inertia * time,
                               rtol=1e-12)


def ContactDuration(coefficient, dt=1e-6):
    """Two spheres meeting head-on at 0.2 m/s, linear law, e = 1: (steps in
    contact) Δt, and the strategy's estimated contact time."""
    model = tessera.Model()
    spheres = SpheresPart(model)
    grain = Material(spheres, 1, density=2000.0, young=1e7, poisson=0.25)
    Relate(grain, grain, restitution=1.0, law="DEM_D_Linear_viscous_Coulomb")
    Sphere(spheres, 1, (-0.0101, 0.0, 0.0), 0.01, grain, velocity=(0.1, 0.0, 0.0))
    Sphere(spheres, 2, (0.0101, 0.0, 0.0), 0.01, grain, velocity=(-0.1, 0.0, 0.0))
    settings = Settings(dt, "Velocity_Verlet", tolerance=0.001)
    settings.virtual_mass_coefficient = coefficient
    strategy = Dem().ExplicitSolverStrategy(spheres, None, settings)
    strategy.Initialize()
    in_contact = []
    Run(strategy, 6000, dt, on_step=lambda t: in_contact.append(
        strategy.NumberOfParticleContacts() > 0))
    assert not in_contact[-1]  # apart again
    return sum(in_contact) * dt, strategy.EstimateTimeStep(0.2).contact_time, strategy


def test_an_elastic_contact_lasts_one_over_root_c_longer():
    plain, plain_estimate, strategy = ContactDuration(1.0)
    slow, slow_estimate, _ = ContactDuration(C)
    # The linear law: k_n = 2 E* R*, m* = m / 2 (contact_law.h).
    particles = strategy.Particles
    e_star = 1e7 / (2 * (1 - 0.25**2))
    k_n = 2 * e_star * 0.005
    m_star = particles.mass[0] / 2
    assert plain == pytest.approx(math.pi * math.sqrt(m_star / k_n), rel=2.5e-3)
    assert slow == pytest.approx(math.pi * math.sqrt(m_star / (C * k_n)), rel=2.5e-3)
    assert slow_estimate == pytest.approx(plain_estimate / math.sqrt(C), rel=1e-12)


def test_cluster_and_free_wall_accelerations_are_scaled_by_the_coefficient(tmp_path):
    clu = WriteClu(tmp_path / "pair.clu", [(0.01, 0.0, 0.0, 0.01), (-0.01, 0.0, 0.0, 0.01)],
                   size=0.04, volume=8e-6, inertia=(1e-4, 2e-4, 2e-4))
    g, dt = np.array([0.0, 0.0, -9.81]), 1e-4
    _, spheres, clusters, walls, _ = ClusterModel(clu, [(0.0, 0.0, 1.0)], 0.04)
    settings = Settings(dt, gravity=tuple(g))
    settings.virtual_mass_coefficient = C
    strategy = Strategy(spheres, clusters, walls, settings)
    time = Run(strategy, 300, dt)
    np.testing.assert_allclose(strategy.Clusters()[0]["velocity"], C * g * time, rtol=1e-12)

    mass, force = 4.0, np.array([2.0, -1.0, 3.0])
    _, spheres, walls, _ = Setup(RIGID_BODY_MASS=mass, RIGID_BODY_INERTIAS=[1.0, 1.0, 1.0],
                                 EXTERNAL_APPLIED_FORCE=list(force))
    settings = Settings(dt, "Symplectic_Euler")
    settings.virtual_mass_coefficient = C
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
    strategy.Initialize()
    time = Run(strategy, 300, dt)
    np.testing.assert_allclose(Body(strategy)["velocity"], C * force / mass * time, rtol=1e-12)


@pytest.mark.parametrize("coefficient", [0.0, -0.5, 1.5])
def test_a_coefficient_outside_zero_one_is_an_error(coefficient):
    model = tessera.Model()
    spheres = SpheresPart(model)
    settings = Settings(1e-4)
    settings.virtual_mass_coefficient = coefficient
    with pytest.raises(tessera.Error, match=r"VirtualMassCoefficient must be in \(0, 1\]"):
        Dem().ExplicitSolverStrategy(spheres, None, settings)
