"""The spheres' ELASTIC_FORCES: the elastic part of their contact forces,
summed by the strategy only where the spheres' model part declares the
variable (a script, DeclareParticleVariables(elastic_forces=True), or the
stage's PostElasticForces). Nothing in a step reads it back, so declaring it
must change nothing else, bit for bit; where it is summed it must be the
spring force alone, without the dashpot.

Sources and tolerances:
- Hertz normal spring, thesis eq. 2.35 as Kratos' DEM_D_Hertz_viscous_Coulomb:
  F_e = 4/3 E* sqrt(R*) delta^(3/2), E* = E / (2 (1 - nu^2)) and R* = R / 2
  for two equal spheres of one material; the overlap is known exactly from the
  imposed velocities, so rel 1e-9 (round-off of the positions).
- Whether the variable is declared: bitwise (tolerance 0), by construction.
"""
import math

import numpy as np
import pytest

import tessera

from dem_test_utilities import Material, Pile, Relate, Run, Settings, Sphere, SpheresPart


def Dem():
    from tessera import _dem
    return _dem


def RunPile(elastic_forces, scheme, batched, steps=120):
    model, spheres, walls = Pile(500, spacing=0.0125)
    if elastic_forces:
        spheres.AddNodalSolutionStepVariable(tessera.ELASTIC_FORCES)
    settings = Settings(2e-5, scheme, (0, 0, -9.81), search_frequency=7, tolerance=0.001)
    settings.energy_calculation = True
    settings.batched_pair_contacts = batched  # the kernel, or the scalar loop
    settings.force_block_rows = 64  # many cross slots, whose elastic parts are summed too
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
    strategy.Initialize()
    for step in range(1, steps + 1):
        strategy.ReadFromNodes()
        strategy.SolveSolutionStep(step * 2e-5)
        strategy.WriteToNodes()
    return spheres, strategy


@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("scheme", ["Symplectic_Euler", "Velocity_Verlet"])
def test_declaring_elastic_forces_sums_them_and_changes_nothing_else(scheme, batched):
    plain_part, plain = RunPile(False, scheme, batched)
    summed_part, summed = RunPile(True, scheme, batched)
    for name in ("position", "velocity", "angular_velocity", "force", "torque", "contact_force",
                 "displacement", "rotation_angle"):
        assert np.array_equal(getattr(plain.Particles, name), getattr(summed.Particles, name)), name
    assert plain.GetEnergies() == summed.GetEnergies()
    # Not summed, not held, not declared: a script reading it gets an error
    # that says how to declare it.
    assert len(plain.Particles.elastic_force) == 0
    assert not plain_part.HasNodalSolutionStepVariable(tessera.ELASTIC_FORCES)
    with pytest.raises(tessera.Error, match="ELASTIC_FORCES.*AddNodalSolutionStepVariable"):
        next(iter(plain_part.Nodes)).GetSolutionStepValue(tessera.ELASTIC_FORCES)
    # Summed: every sphere with a contact force has an elastic one, and the
    # nodes hold the rows' values.
    elastic = np.array(summed.Particles.elastic_force)
    touched = np.any(np.array(summed.Particles.contact_force) != 0.0, axis=1)
    assert np.count_nonzero(touched) > 50
    assert np.all(np.any(elastic[touched] != 0.0, axis=1))
    rows = {int(e): k for k, e in enumerate(summed.Particles.element_id)}
    for node in summed_part.Nodes:
        np.testing.assert_array_equal(node.GetSolutionStepValue(tessera.ELASTIC_FORCES),
                                      elastic[rows[node.Id]])


def test_the_elastic_force_of_a_pressed_pair_is_the_hertz_spring_without_the_dashpot():
    # Two spheres, R 0.01 m, approaching head-on at an imposed 0.05 m/s each
    # (their velocity dofs fixed): a dashpot acts, and the elastic part is the
    # spring of the overlap at the last force evaluation alone.
    radius, young, poisson, speed, dt, steps = 0.01, 1e7, 0.25, 0.05, 1e-6, 40
    model = tessera.Model()
    spheres = SpheresPart(model, elastic_forces=True)
    grain = Material(spheres, 1, density=2500.0, young=young, poisson=poisson)
    Relate(grain, grain, restitution=0.5, static_friction=0.3)
    initial_overlap = 1e-5
    gap = 2 * radius - initial_overlap
    Sphere(spheres, 1, (0.0, 0.0, 0.0), radius, grain, velocity=(speed, 0.0, 0.0))
    Sphere(spheres, 2, (gap, 0.0, 0.0), radius, grain, velocity=(-speed, 0.0, 0.0))
    for node in spheres.Nodes:
        for axis in "XYZ":
            node.Fix(getattr(tessera, f"VELOCITY_{axis}"))
    strategy = Dem().ExplicitSolverStrategy(spheres, None, Settings(dt, "Symplectic_Euler"))
    strategy.Initialize()
    Run(strategy, steps, dt)
    # Symplectic Euler evaluates the forces before the move: the last of the
    # `steps` evaluations saw the spheres after steps - 1 moves.
    overlap = initial_overlap + 2 * speed * (steps - 1) * dt
    e_star = young / (2 * (1 - poisson**2))
    spring = 4.0 / 3.0 * e_star * math.sqrt(radius / 2) * overlap**1.5
    p = strategy.Particles
    np.testing.assert_allclose(p.elastic_force[0], [-spring, 0.0, 0.0], rtol=1e-9, atol=0.0)
    np.testing.assert_allclose(p.elastic_force[1], [spring, 0.0, 0.0], rtol=1e-9, atol=0.0)
    # The dashpot resists the approach: the total push is larger than the spring's.
    assert p.contact_force[0][0] < -1.01 * spring


def test_post_elastic_forces_declares_them_for_the_output(tmp_path, monkeypatch):
    # The stage declares the spheres' ELASTIC_FORCES only with PostElasticForces.
    from test_dem_analysis_stage import SmallDeck, Stage
    for post in (False, True):
        folder = tmp_path / str(post)
        folder.mkdir()
        monkeypatch.chdir(folder)
        model, stage = Stage(SmallDeck(folder, PostElasticForces=post, FinalTime=0.005))
        stage.Run()
        spheres = model.GetModelPart("SpheresPart")
        assert spheres.HasNodalSolutionStepVariable(tessera.ELASTIC_FORCES) == post
        assert len(stage.GetStrategy().Particles.elastic_force) == (2 if post else 0)
        # The walls' nodal elastic forces are written either way.
        walls = model.GetModelPart("RigidFacePart")
        assert sum(n.GetSolutionStepValue(tessera.ELASTIC_FORCES_Z) for n in walls.Nodes) < 0.0
