"""The four-row updates (strategies/row_quads) against the row-by-row loops
they replace: each lane repeats the scalar operations in order without fused
multiply-adds, so a run must be bitwise the same with
DemSettings.quad_row_updates on and off (tolerance 0, by construction).

The runs cover the schemes with a quad update (Velocity Verlet's drift and
kick, Symplectic Euler) and without one (Taylor, Forward Euler: the setting
must leave them row by row, which a quad update given to them would break), both
rotational schemes, rotation off, a virtual mass coefficient, applied forces
and moments, rows that receive cross slots, rows that must stay row by row
inside a quad (an imposed velocity, background damping), and the elastic
forces, which the strategy sums where ELASTIC_FORCES is declared.
"""
import numpy as np
import pytest
import tessera

from dem_test_utilities import ParallelThreads, Pile, Run, Settings


def Dem():
    from tessera import _dem
    return _dem


pytestmark = pytest.mark.skipif(
    not Dem().RowQuadsAvailable(),
    reason="this processor has no AVX2: the row-by-row loops are the only path")


def RunPile(quads, scheme, rotational_scheme="Direct_Integration", rotation=True, loads=False,
            fixed=False, damping=0.0, threads=1, steps=100):
    model, spheres, walls = Pile(600, spacing=0.0125)
    # The elastic forces summed too (only where declared).
    spheres.AddNodalSolutionStepVariable(tessera.ELASTIC_FORCES)
    if loads:
        # Applied loads on every seventh sphere: the others read zero.
        spheres.AddNodalSolutionStepVariable(tessera.EXTERNAL_APPLIED_FORCE)
        spheres.AddNodalSolutionStepVariable(tessera.EXTERNAL_APPLIED_MOMENT)
        for node in list(spheres.Nodes)[::7]:
            node.SetSolutionStepValue(tessera.EXTERNAL_APPLIED_FORCE, [0.01, -0.02, 0.03])
            node.SetSolutionStepValue(tessera.EXTERNAL_APPLIED_MOMENT, [1e-5, 2e-5, -1e-5])
    if fixed:
        # One imposed velocity component on every eleventh sphere.
        for node in list(spheres.Nodes)[::11]:
            node.Fix(tessera.VELOCITY_X)
    settings = Settings(2e-5, scheme, (0, 0, -9.81), search_frequency=7, tolerance=0.001)
    settings.quad_row_updates = quads
    settings.rotational_scheme = rotational_scheme
    settings.rotation = rotation
    settings.virtual_mass_coefficient = 0.8
    settings.global_damping = damping
    settings.energy_calculation = True
    # Small blocks: many rows receive cross slots from the blocks before them.
    settings.force_block_rows = 64
    with ParallelThreads(threads):
        strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
        strategy.Initialize()
        Run(strategy, steps, 2e-5)
    return strategy


def AssertBitwiseEqual(a, b):
    pa, pb = a.Particles, b.Particles
    for name in ("position", "velocity", "angular_velocity", "force", "torque", "contact_force",
                 "elastic_force", "displacement", "delta_displacement", "delta_rotation",
                 "rotation_angle"):
        assert np.array_equal(getattr(pa, name), getattr(pb, name)), name
    assert a.GetEnergies() == b.GetEnergies()


@pytest.mark.parametrize("scheme", ["Velocity_Verlet", "Symplectic_Euler", "Taylor_Scheme",
                                    "Forward_Euler"])
@pytest.mark.parametrize("rotational_scheme", ["Direct_Integration", "Quaternion_Integration"])
def test_quad_and_row_updates_are_bitwise_equal(scheme, rotational_scheme):
    quads = RunPile(True, scheme, rotational_scheme, loads=True)
    rows = RunPile(False, scheme, rotational_scheme, loads=True)
    assert quads.NumberOfParticleContacts() > 50
    assert np.any(quads.Particles.rotation_angle != 0.0)
    AssertBitwiseEqual(quads, rows)


@pytest.mark.parametrize("scheme", ["Velocity_Verlet", "Symplectic_Euler"])
def test_quads_without_rotation_are_bitwise_equal(scheme):
    AssertBitwiseEqual(RunPile(True, scheme, rotation=False), RunPile(False, scheme, rotation=False))


@pytest.mark.parametrize("scheme", ["Velocity_Verlet", "Symplectic_Euler"])
def test_quads_beside_fixed_and_damped_rows_are_bitwise_equal(scheme):
    quads = RunPile(True, scheme, fixed=True)
    assert np.count_nonzero(quads.Particles.fixed) > 40
    AssertBitwiseEqual(quads, RunPile(False, scheme, fixed=True))
    AssertBitwiseEqual(RunPile(True, scheme, damping=0.3), RunPile(False, scheme, damping=0.3))


def test_two_threads_with_quads_equal_one_thread_row_by_row():
    AssertBitwiseEqual(RunPile(True, "Velocity_Verlet", loads=True, threads=2),
                       RunPile(False, "Velocity_Verlet", loads=True, threads=1))
