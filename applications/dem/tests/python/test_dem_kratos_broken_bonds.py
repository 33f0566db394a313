"""Broken DEM_Dempack bonds as Kratos leaves them (BrokenBonds "kratos",
contact_laws/bond_law.h) against the default frictional contact, on two
bonded spheres of radius R = 1 cm (E 1e7, ν 0.25: k_n = E π R² / 2R =
1.57e5 N/m; restitution 1, so no bond dashpot; ρ 2e6, heavy, so that the
bond's forces hardly change the pair's motion) in the xy plane.

Kratos' DEM_Dempack (DEM_Dempack_CL.cpp, CalculateNormalForces then
CalculateTangentialForces) runs the normal branch first; once it has set the
failure flag the tangential branch leaves the shear force it was handed, the
last one rotated into the pair's new local frame: no increment, no friction.
A shear failure leaves (1 - D) of the strength with D = 1: nothing. Closed
forms checked:
- pulled apart past the tensile strength while sheared, then left to turn:
  from the step the bond breaks, the shear force keeps the magnitude it had
  the step before (rel 1e-12) and is that force turned with the pair, the
  rotation about z by the angle the line of centres turned through (abs
  1e-12 of its magnitude); the friction limit, μ max(F_n, 0) = 0 in tension,
  is not applied (the frictional default drops the force to 0 there). Once
  the gap passes twice the search tolerance (Kratos' search lets the pair
  go) the force is 0.
- sheared past the shear strength while compressed: from the failing step
  on the shear force is 0 (the frictional default slides at μ F_n > 0).
Both hold to round-off only: a rotation of a vector keeps its length.
"""
import math

import numpy as np
import pytest

import tessera
import tessera.dem  # noqa: F401  (registers the DEM variables)

from dem_test_utilities import Material, Relate, Run, Settings, Sphere, SpheresPart

R = 0.01
DT = 1e-5


def Pair(broken, velocity, tolerance, **bond):
    """Sphere 1 at (-R, 0, 0) moving at `velocity`, sphere 2 at rest at (R, 0,
    0), bonded by DEM_Dempack with the relation values `bond`; BrokenBonds
    `broken`, search tolerance `tolerance`. Returns the started strategy."""
    from tessera import _dem
    model = tessera.Model()
    spheres = SpheresPart(model)
    spheres.AddNodalSolutionStepVariable(tessera.COHESIVE_GROUP)
    grain = Material(spheres, 1, density=2e6, young=1e7, poisson=0.25)
    Relate(grain, grain, restitution=1.0, static_friction=0.5, law="DEM_D_Linear_viscous_Coulomb")
    relation = grain.GetSubProperties(1)
    relation.SetValue(tessera.DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME, "DEM_Dempack")
    for name, value in bond.items():
        relation.SetValue(getattr(tessera, name), value)
    for node, x, v in ((1, -R, velocity), (2, R, (0.0, 0.0, 0.0))):
        Sphere(spheres, node, (x, 0.0, 0.0), R, grain, velocity=v)
        spheres.GetNode(node).SetSolutionStepValue(tessera.COHESIVE_GROUP, 1)
    settings = Settings(DT, "Velocity_Verlet", tolerance=tolerance)
    settings.continuum = True
    settings.broken_bonds = broken
    strategy = _dem.ExplicitSolverStrategy(spheres, None, settings)
    strategy.Initialize()
    assert strategy.NumberOfBonds() == 1
    return strategy


def History(strategy, steps):
    """Per step: the bond's state, shear force, direction, and the gap."""
    states, shear, direction, gap = [], [], [], []

    def sample(_):
        (bond,) = strategy.Bonds()
        bonds = strategy.BondArrays()
        p = np.asarray(strategy.Particles.position)
        states.append(bond["state"])
        shear.append(np.asarray(bond["shear_force"], dtype=float))
        direction.append(np.array(bonds["direction"][0], dtype=float))
        gap.append(np.linalg.norm(p[1] - p[0]) - 2 * R)

    Run(strategy, steps, DT, on_step=sample)
    return np.array(states), np.array(shear), np.array(direction), np.array(gap)


# Tensile strength 1 kPa (u^l = σ_t A / k_n = 2e-6 m, reached in about ten
# steps at 0.02 m/s), shear strength far above what the slide at 0.2 m/s builds.
TENSION = dict(CONTACT_SIGMA_MIN=1e3, CONTACT_TAU_ZERO=1e6, CONTACT_INTERNAL_FRICC=0.0)


def test_a_bond_broken_in_tension_keeps_its_shear_force_turned_with_the_pair():
    reach = 2 * 0.001  # twice the search tolerance
    strategy = Pair("kratos", (-0.02, 0.2, 0.0), 0.001, **TENSION)
    states, shear, direction, gap = History(strategy, 6000)
    broke = int(np.nonzero(states == 4)[0][0])
    assert 0 < broke < 100
    kept = np.linalg.norm(shear[broke - 1])
    assert kept > 1e-3  # N: the shear spring carried load when the bond broke
    # The pair turns about z (everything stays in the xy plane).
    assert np.all(shear[:, 2] == 0.0) and np.all(direction[:, 2] == 0.0)
    near = np.nonzero(gap <= reach - 1e-5)[0]
    near = near[near >= broke]
    far = np.nonzero(gap > reach + 1e-5)[0]
    assert len(near) > 1000 and len(far) > 1000 and near[-1] < far[0]
    # Its magnitude, the step it breaks (no increment) and after (no friction).
    np.testing.assert_allclose(np.linalg.norm(shear[near], axis=1), kept, rtol=1e-12)
    # Turned with the pair: by the angle the line of centres turned since the
    # step before the break.
    last = near[-1]
    m, n = direction[broke - 1], direction[last]
    angle = math.atan2(m[0] * n[1] - m[1] * n[0], m[0] * n[0] + m[1] * n[1])
    assert abs(angle) > 0.3  # rad
    c, s = math.cos(angle), math.sin(angle)
    f = shear[broke - 1]
    turned = np.array([c * f[0] - s * f[1], s * f[0] + c * f[1], 0.0])
    np.testing.assert_allclose(shear[last], turned, rtol=0.0, atol=1e-12 * kept)
    # Kratos' search lets the pair go: no force from there on.
    assert np.all(shear[far[0]:] == 0.0)

    # The frictional default: in tension the friction limit is 0.
    states, shear, _, _ = History(Pair("frictional", (-0.02, 0.2, 0.0), 0.001, **TENSION), 200)
    assert int(np.nonzero(states == 4)[0][0]) == broke
    assert np.all(shear[broke:] == 0.0)


# Shear strength 10 kPa without shear damage (the bond breaks where the
# force passes τ_0 A, at u_t = 5e-5 m, some 25 steps at 0.2 m/s), tensile
# strength out of reach; the pair is pressed together at 0.05 m/s for the
# 16 ms of half an oscillation.
SHEAR = dict(CONTACT_SIGMA_MIN=1e6, CONTACT_TAU_ZERO=1e4, CONTACT_INTERNAL_FRICC=0.0,
             SHEAR_ENERGY_COEF=0.0)


@pytest.mark.parametrize("broken", ["kratos", "frictional"])
def test_a_bond_broken_in_shear_carries_no_shear_force(broken):
    strategy = Pair(broken, (0.05, 0.2, 0.0), 0.004, **SHEAR)
    states, shear, _, gap = History(strategy, 300)
    broke = int(np.nonzero(states == 2)[0][0])
    assert 0 < broke < 100
    assert np.all(gap[broke:] < 0.0)  # compressed throughout
    magnitude = np.linalg.norm(shear[broke:], axis=1)
    if broken == "kratos":
        assert np.all(magnitude == 0.0)
    else:
        # The frictional contact slides at μ F_n (the failing step keeps the
        # law's force): a shear force on every step after.
        assert np.all(magnitude[1:] > 0.0)
