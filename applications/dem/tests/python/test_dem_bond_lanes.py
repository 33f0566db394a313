"""The bonds' four-lane evaluation (particles/bond_forces.cpp) against the
bond-by-bond loop it replaces: each lane repeats the scalar operations in
order without fused multiply-adds and selects where the loop branches, so a
run must be bitwise the same with DemSettings.tuning.batched_bonds on and off
(tolerance 0, by construction).

The runs: a jittered simple cubic block of bonded spheres with random
velocities and spins, weak enough that bonds break in tension and in shear
during the run (so that groups of four mix intact, breaking and broken bonds),
under KDEM with bending and twisting springs and under DEMpack with damage and
compressive branches, and without damage (brittle); Velocity Verlet (the
step's slip from the velocities) and Symplectic Euler (from the rows'
displacement increments); the energies (the bonds' dissipated powers) on, and
the elastic forces declared.
"""
import numpy as np
import pytest
import tessera
import tessera.dem  # noqa: F401  (registers the DEM variables)

from dem_test_utilities import Material, Relate, Run, Settings, Sphere, SpheresPart

R, DT = 0.01, 1e-6


def Dem():
    from tessera import _dem
    return _dem


pytestmark = pytest.mark.skipif(
    not Dem().RowQuadsAvailable(),
    reason="this processor has no AVX2: the bond-by-bond loop is the only path")

LAWS = {
    "DEM_KDEM": {"CONTACT_TAU_ZERO": 2000.0, "CONTACT_INTERNAL_FRICC": 0.5,
                 "ROTATIONAL_MOMENT_COEFFICIENT": 0.5},
    "DEM_Dempack": {"CONTACT_SIGMA_MIN": 1500.0, "CONTACT_TAU_ZERO": 2500.0,
                    "CONTACT_INTERNAL_FRICC": 0.5, "DAMAGE_FACTOR": 0.5,
                    "SHEAR_ENERGY_COEF": 0.5, "SLOPE_LIMIT_COEFF_C1": 2000.0,
                    "SLOPE_LIMIT_COEFF_C2": 4000.0, "SLOPE_LIMIT_COEFF_C3": 6000.0,
                    "SLOPE_FRACTION_N1": 2.0, "SLOPE_FRACTION_N2": 4.0,
                    "SLOPE_FRACTION_N3": 8.0},
    # DEM_Dempack without softening (DAMAGE_FACTOR and SHEAR_ENERGY_COEF 0):
    # the law's brittle branches on the lanes.
    "DEM_Dempack brittle": {"CONTACT_SIGMA_MIN": 1500.0, "CONTACT_TAU_ZERO": 2500.0,
                            "CONTACT_INTERNAL_FRICC": 0.5, "DAMAGE_FACTOR": 0.0,
                            "SHEAR_ENERGY_COEF": 0.0, "SLOPE_LIMIT_COEFF_C1": 2000.0,
                            "SLOPE_FRACTION_N1": 2.0},
}
# DEM_Dempack with the thesis' damage form (BondDamage "thesis").
LAWS["DEM_Dempack thesis"] = LAWS["DEM_Dempack"]


def RunBlock(lanes, law, scheme, side=7, steps=80):
    rng = np.random.default_rng(11)
    model = tessera.Model()
    spheres = SpheresPart(model)
    spheres.AddNodalSolutionStepVariable(tessera.COHESIVE_GROUP)
    spheres.AddNodalSolutionStepVariable(tessera.ELASTIC_FORCES)
    grain = Material(spheres, 1, density=2000.0, young=1e7, poisson=0.25)
    Relate(grain, grain, restitution=0.6, static_friction=0.4, law="DEM_D_Hertz_viscous_Coulomb")
    relation = grain.GetSubProperties(1)
    relation.SetValue(tessera.DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME, law.split()[0])
    for name, value in LAWS[law].items():
        relation.SetValue(getattr(tessera, name), value)
    node = 0
    for k in range(side):
        for j in range(side):
            for i in range(side):
                node += 1
                centre = 2 * R * np.array([i, j, k]) + rng.uniform(-1e-5, 1e-5, 3)
                Sphere(spheres, node, tuple(centre), R, grain,
                       velocity=tuple(rng.normal(0.0, 0.05, 3)),
                       angular_velocity=tuple(rng.normal(0.0, 5.0, 3)))
                spheres.GetNode(node).SetSolutionStepValue(tessera.COHESIVE_GROUP, 1)
    settings = Settings(DT, scheme, tolerance=0.0005, search_frequency=10)
    settings.continuum = True
    settings.energy_calculation = True
    settings.bond_damage = "thesis" if law.endswith("thesis") else "kratos"
    settings.tuning.batched_bonds = lanes
    strategy = Dem().ExplicitSolverStrategy(spheres, None, settings)
    strategy.Initialize()
    Run(strategy, steps, DT)
    return strategy


@pytest.mark.parametrize("law", ["DEM_KDEM", "DEM_Dempack", "DEM_Dempack brittle",
                                 "DEM_Dempack thesis"])
@pytest.mark.parametrize("scheme", ["Velocity_Verlet", "Symplectic_Euler"])
def test_four_lane_and_bond_by_bond_evaluations_are_bitwise_equal(law, scheme):
    lanes = RunBlock(True, law, scheme)
    single = RunBlock(False, law, scheme)
    states = [bond["state"] for bond in lanes.Bonds()]
    assert len(states) == 3 * 7 * 7 * 6
    # Bonds broke in both ways and others hold: groups mix the three cases.
    assert states.count(0) > len(states) // 4
    assert states.count(2) > 0 and states.count(4) > 0
    assert states == [bond["state"] for bond in single.Bonds()]
    a, b = lanes.Particles, single.Particles
    for name in ("position", "velocity", "angular_velocity", "force", "torque", "contact_force",
                 "elastic_force"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    bonds_a, bonds_b = lanes.BondArrays(), single.BondArrays()
    for name in bonds_a:
        assert np.array_equal(np.asarray(bonds_a[name]), np.asarray(bonds_b[name])), name
    energies = lanes.GetEnergies()
    assert energies["dissipated_damping"] > 0.0
    assert energies == single.GetEnergies()
