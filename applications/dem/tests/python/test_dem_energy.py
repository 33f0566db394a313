"""Energy bookkeeping (DemSettings.energy_calculation, EnergyCalculationOption;
strategies/energy_bookkeeping.h).

Sources and tolerances:
- Conservation (issue 3): 1000 elastic (e = 1), frictionless, spinning Hertz
  spheres as a gas in a closed box, 10^5 Velocity Verlet steps: kinetic + gravitational
  + elastic energy stays at its initial value within 0.5 % (the issue's bound; a
  symplectic scheme keeps the error bounded and oscillating, O(Δt²); measured
  -4.3e-5 with 186 active contacts at the end). Gravity is off here to keep the test ~10 s (a settled pile has many
  more contacts); the impact tests below include the gravitational energy.
- Balance with dissipation: two spheres thrown obliquely at each other above a
  floor (sphere-sphere Hertz, sphere-wall linear contacts).
  * Damped (e = 0.5), frictional (μ = 0.3), with rolling resistance and global
    damping: kinetic + potential + elastic + dissipated (damping, friction,
    rolling, global) equals the initial energy to 3 % of it; measured -1.4 %
    (Symplectic_Euler) and -1.5 % (Velocity_Verlet) at Δt = 1e-5. The residual
    is energy the tangential law drops without booking it: the spring force
    scaled by k_t^{n+1}/k_t^n on Hertz unloading (erratum of 2.36b) and the
    dashpot part of a capped sliding force; the rest is the first-order power
    × Δt accumulation. Every dissipated term is checked > 0.1 % of the total.
  * Elastic (e = 1) with friction only: to 1 % (measured -0.3 %).
  * Damping only (μ = 0): to 1 % (measured +0.6 %, first order in Δt: +0.15 %
    at Δt/4).
- Elastic impact: nothing is dissipated (the dissipated terms stay 0 exactly).
"""
import numpy as np
import pytest

import tessera

from dem_test_utilities import Face, Material, Relate, Run, Settings, Sphere, SpheresPart


def Dem():
    from tessera import _dem
    return _dem


def Box(walls, material, low, high):
    """Six quadrilateral faces of the box [low, high]^3."""
    x0, y0, z0 = low
    x1, y1, z1 = high
    quads = [
        [(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0)],
        [(x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)],
        [(x0, y0, z0), (x1, y0, z0), (x1, y0, z1), (x0, y0, z1)],
        [(x0, y1, z0), (x1, y1, z0), (x1, y1, z1), (x0, y1, z1)],
        [(x0, y0, z0), (x0, y1, z0), (x0, y1, z1), (x0, y0, z1)],
        [(x1, y0, z0), (x1, y1, z0), (x1, y1, z1), (x1, y0, z1)],
    ]
    for k, quad in enumerate(quads):
        Face(walls, k + 1, quad, material)


def Total(energies):
    return energies["total"]


def test_an_elastic_frictionless_box_of_1000_spheres_conserves_energy():
    rng = np.random.default_rng(7)
    model = tessera.Model()
    spheres = SpheresPart(model)
    walls = model.CreateModelPart("RigidFacePart")
    grain = Material(spheres, 1, density=2600.0, young=1e7, poisson=0.25)
    wall = Material(walls, 2, young=1e7, poisson=0.25)
    Relate(grain, grain, restitution=1.0, static_friction=0.0)
    Relate(grain, wall, restitution=1.0, static_friction=0.0)
    side, spacing, radius = 10, 0.012, 0.005
    node = 0
    for a in range(side):
        for b in range(side):
            for c in range(side):
                node += 1
                Sphere(spheres, node, ((a + 0.5) * spacing, (b + 0.5) * spacing,
                                       (c + 0.5) * spacing),
                       radius * rng.uniform(0.9, 1.0), grain,
                       velocity=rng.normal(0.0, 0.5, size=3),
                       angular_velocity=rng.normal(0.0, 20.0, size=3))
    Box(walls, wall, (0, 0, 0), (side * spacing,) * 3)
    dt, steps = 2e-5, 100000
    settings = Settings(dt, "Velocity_Verlet", (0, 0, 0), search_frequency=20,
                        tolerance=0.002)
    settings.energy_calculation = True
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
    strategy.Initialize()
    initial = strategy.GetEnergies()
    Run(strategy, steps, dt, lambda t: None)
    final = strategy.GetEnergies()
    assert spheres.NumberOfElements() == 1000
    assert strategy.NumberOfParticleContacts() > 100  # the box is dense: a real test
    assert final["dissipated_damping"] == 0.0 and final["dissipated_friction"] == 0.0
    assert Total(final) == pytest.approx(Total(initial), abs=5e-3 * abs(Total(initial)))


def ImpactRun(restitution, friction, rolling, global_damping, scheme, steps=30000, dt=1e-5,
              damping_form="vector"):
    """Two spheres thrown obliquely at each other above a floor: sphere-sphere
    and sphere-wall contacts, bounces, sliding and rolling."""
    model = tessera.Model()
    spheres = SpheresPart(model)
    walls = model.CreateModelPart("RigidFacePart")
    grain = Material(spheres, 1, density=2500.0, young=1e7, poisson=0.25)
    wall = Material(walls, 2, young=1e9, poisson=0.25)
    rolling_relation = {} if rolling is None else {
        "rolling_friction": rolling, "rolling_model": "DEMRollingFrictionModelConstantTorque"}
    Relate(grain, grain, restitution=restitution, static_friction=friction, **rolling_relation)
    Relate(grain, wall, restitution=restitution, static_friction=friction,
           law="DEM_D_Linear_viscous_Coulomb", **rolling_relation)
    Sphere(spheres, 1, (-0.03, 0.0, 0.02), 0.01, grain, velocity=(1.0, 0.1, -0.5),
           angular_velocity=(0.0, 30.0, 0.0))
    Sphere(spheres, 2, (0.03, 0.004, 0.015), 0.008, grain, velocity=(-1.0, 0.0, -0.2))
    Face(walls, 1, [(-1, -1, 0), (1, -1, 0), (1, 1, 0), (-1, 1, 0)], wall)
    settings = Settings(dt, scheme, (0, 0, -9.81), rolling_friction=rolling is not None)
    settings.global_damping = global_damping
    settings.global_damping_form = damping_form
    settings.energy_calculation = True
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
    strategy.Initialize()
    initial = strategy.GetEnergies()
    contacts = [0, 0]

    def count(time):
        contacts[0] = max(contacts[0], strategy.NumberOfParticleContacts())
        contacts[1] = max(contacts[1], strategy.NumberOfWallContacts())

    Run(strategy, steps, dt, count)
    return initial, strategy.GetEnergies(), contacts


@pytest.mark.parametrize("scheme", ["Symplectic_Euler", "Velocity_Verlet"])
def test_a_damped_frictional_impact_balances_energy_in_and_dissipated(scheme):
    initial, final, contacts = ImpactRun(0.5, 0.3, 0.02, 0.05, scheme)
    assert contacts[0] >= 1 and contacts[1] >= 2  # both kinds of contact happened
    for key in ("dissipated_damping", "dissipated_friction", "dissipated_rolling",
                "dissipated_global_damping"):
        assert final[key] > 1e-3 * Total(initial), key
    kinetic = final["kinetic_translational"] + final["kinetic_rotational"]
    assert kinetic < 0.5 * (initial["kinetic_translational"] + initial["kinetic_rotational"])
    assert Total(final) == pytest.approx(Total(initial), abs=3e-2 * abs(Total(initial)))


@pytest.mark.parametrize("restitution,friction,key", [(1.0, 0.3, "dissipated_friction"),
                                                      (0.5, 0.0, "dissipated_damping")])
def test_one_dissipation_mechanism_balances_to_one_percent(restitution, friction, key):
    initial, final, contacts = ImpactRun(restitution, friction, None, 0.0, "Symplectic_Euler")
    assert final[key] > 0.1 * Total(initial)
    assert Total(final) == pytest.approx(Total(initial), abs=1e-2 * abs(Total(initial)))


@pytest.mark.parametrize("damping_form", ["vector", "per_component"])
def test_global_damping_alone_balances_to_one_percent_in_either_form(damping_form):
    # Its power: alpha |F| |v| (vector) or alpha sum_k |F_k v_k| (per component).
    initial, final, contacts = ImpactRun(1.0, 0.0, None, 0.1, "Symplectic_Euler",
                                         damping_form=damping_form)
    assert contacts[0] >= 1 and contacts[1] >= 1
    assert final["dissipated_global_damping"] > 0.05 * Total(initial)
    assert Total(final) == pytest.approx(Total(initial), abs=1e-2 * abs(Total(initial)))


def test_an_elastic_frictionless_impact_dissipates_nothing():
    initial, final, contacts = ImpactRun(1.0, 0.0, None, 0.0, "Velocity_Verlet", steps=10000)
    assert contacts[0] >= 1 and contacts[1] >= 1
    for key in ("dissipated_damping", "dissipated_friction", "dissipated_rolling",
                "dissipated_global_damping"):
        assert final[key] == 0.0
    assert Total(final) == pytest.approx(Total(initial), rel=1e-3)
