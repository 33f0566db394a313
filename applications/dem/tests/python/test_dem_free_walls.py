"""Free rigid-body walls: wall sub model parts with FREE_BODY_MOTION 1 move as
one rigid body under the particles' contact forces, gravity and the applied
EXTERNAL_APPLIED_FORCE / EXTERNAL_APPLIED_MOMENT (SubModelPartData keys of
Kratos' DEM_FEM_boundary mdpa; applications/dem/walls/free_rigid_wall.h).

Sources and tolerances (analytic comparisons only):
- Constant force: x = x0 + v0 t + F t²/(2M), v = v0 + F t / M. Velocity Verlet
  and Gear (its Taylor prediction with a constant a, no correction) integrate
  a constant force exactly, so rel 1e-12 (round-off); Symplectic
  Euler gives exactly x_N = x0 + v0 N Δt + a Δt² N (N + 1)/2, same tolerance.
- Constant moment about a principal axis: ω = M t / I, angle M t²/(2 I)
  (exact for Velocity Verlet: rel 1e-12); torque-free spin of an asymmetric
  body: angular momentum exactly constant (no torque enters the kicks; rel
  1e-12) and kinetic energy ½ ω·L constant to O(Δt²) (rel 1e-6 at Δt 1e-4).
- Elastic central impact of a sphere (m, v0) on a free plate (M): linear
  momentum constant (action = reaction in the same step: rel 1e-12; under
  Gear the predictor and corrector are linear in the accelerations, and
  sum m a = sum m a' = sum m a'' = 0 is kept step by step), and after
  the impact v = (m - M)/(m + M) v0, V = 2 m/(m + M) v0 (rigid-body collision
  with e = 1, no damping; rel 1e-6 for the Hertz contact integrated with
  about 1200 steps per contact: measured 3e-8).
- A sphere resting (zero overlap) on a free plate with nothing below: both
  fall at g, the contact carries nothing (rel 1e-9 on the speeds).
"""
import math

import numpy as np
import pytest

import tessera

from dem_test_utilities import (Material, Relate, Run, Settings, Sphere, SpheresPart,
                                SquarePlate, WallSubModelPart)


def Dem():
    from tessera import _dem
    return _dem


def FreePlate(model, wall, half=0.5, z=0.0, **data):
    """A square RigidFace3D4N at height z, centred on the z axis, in the
    FREE_BODY_MOTION sub model part RigidFacePart.plate."""
    walls = model.CreateModelPart("RigidFacePart")
    return walls, SquarePlate(walls, wall, half=half, z=z, FREE_BODY_MOTION=True,
                              RIGID_BODY_CENTER_OF_MASS=[0.0, 0.0, z], **data)


def Setup(restitution=1.0, friction=0.0, sphere_at=None, radius=0.05, velocity=(0, 0, 0),
          **data):
    model = tessera.Model()
    spheres = SpheresPart(model)
    grain = Material(spheres, 1, density=2500.0, young=1e7, poisson=0.25)
    wall = Material(model.CreateModelPart("WallMaterials"), 2, young=1e7, poisson=0.25)
    Relate(grain, wall, restitution=restitution, static_friction=friction)
    walls, plate = FreePlate(model, wall, **data)
    # Spheres far from the plate unless placed.
    Sphere(spheres, 1, sphere_at if sphere_at is not None else (0.0, 0.0, 50.0), radius, grain,
           velocity=velocity)
    return model, spheres, walls, plate


def Body(strategy):
    (body,) = strategy.FreeWalls()
    return body


@pytest.mark.parametrize("scheme", ["Velocity_Verlet", "Symplectic_Euler", "Gear_Predictor_Corrector"])
def test_a_free_wall_under_a_constant_force_accelerates_at_f_over_m(scheme):
    mass, force, v0 = 4.0, np.array([2.0, -1.0, 3.0]), np.array([0.5, 0.0, -0.25])
    model, spheres, walls, plate = Setup(
        RIGID_BODY_MASS=mass, RIGID_BODY_INERTIAS=[1.0, 1.0, 1.0],
        EXTERNAL_APPLIED_FORCE=list(force), INITIAL_VELOCITY_X_VALUE=v0[0],
        INITIAL_VELOCITY_Z_VALUE=v0[2])
    initial = {n.Id: np.array([n.X, n.Y, n.Z]) for n in walls.Nodes}
    dt, steps = 1e-3, 400
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, Settings(dt, scheme))
    strategy.Initialize()
    time = Run(strategy, steps, dt)
    a = force / mass
    shift = v0 * time + (0.5 * a * time**2 if scheme != "Symplectic_Euler"
                         else a * dt**2 * steps * (steps + 1) / 2)
    body = Body(strategy)
    np.testing.assert_allclose(body["velocity"], v0 + a * time, rtol=1e-12)
    np.testing.assert_allclose(body["centre"], shift, rtol=1e-12, atol=1e-14)
    for node in walls.Nodes:
        np.testing.assert_allclose([node.X, node.Y, node.Z], initial[node.Id] + shift, rtol=1e-12)
        np.testing.assert_allclose(node.GetSolutionStepValue(tessera.VELOCITY), v0 + a * time,
                                   rtol=1e-12)


def test_a_moment_spins_a_free_wall_at_m_over_i():
    inertia, moment = [1.0, 2.0, 3.0], 0.6
    model, spheres, walls, plate = Setup(RIGID_BODY_MASS=1.0, RIGID_BODY_INERTIAS=inertia,
                                         EXTERNAL_APPLIED_MOMENT=[0.0, 0.0, moment])
    initial = {n.Id: np.array([n.X, n.Y, n.Z]) for n in walls.Nodes}
    dt = 1e-3
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, Settings(dt))
    strategy.Initialize()
    time = Run(strategy, 500, dt)
    omega = moment / inertia[2] * time
    angle = 0.5 * moment / inertia[2] * time**2
    np.testing.assert_allclose(Body(strategy)["angular_velocity"], [0, 0, omega], rtol=1e-12,
                               atol=1e-15)
    c, s = math.cos(angle), math.sin(angle)
    rotation = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    for node in walls.Nodes:
        expected = rotation @ initial[node.Id]
        np.testing.assert_allclose([node.X, node.Y, node.Z], expected, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(node.GetSolutionStepValue(tessera.VELOCITY),
                                   np.cross([0, 0, omega], expected), rtol=1e-12, atol=1e-14)


def test_a_torque_free_asymmetric_wall_keeps_its_angular_momentum_and_energy():
    inertia, omega0 = np.array([1.0, 2.0, 3.0]), np.array([0.3, 0.2, 1.0])
    model, spheres, walls, plate = Setup(
        RIGID_BODY_MASS=1.0, RIGID_BODY_INERTIAS=list(inertia),
        INITIAL_ANGULAR_VELOCITY_X_VALUE=omega0[0], INITIAL_ANGULAR_VELOCITY_Y_VALUE=omega0[1],
        INITIAL_ANGULAR_VELOCITY_Z_VALUE=omega0[2])
    dt = 1e-4
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, Settings(dt))
    strategy.Initialize()
    Run(strategy, 20000, dt)  # 2 s: ω precesses (Euler's equations)
    body = Body(strategy)
    momentum = inertia * omega0
    energy = 0.5 * np.dot(omega0, momentum)
    np.testing.assert_allclose(body["angular_momentum"], momentum, rtol=1e-12)
    assert 0.5 * np.dot(body["angular_velocity"], body["angular_momentum"]) == pytest.approx(
        energy, rel=1e-6)
    assert np.linalg.norm(body["angular_velocity"] - omega0) > 0.05  # it did precess
    rotation = np.asarray(body["rotation"])
    np.testing.assert_allclose(rotation @ rotation.T, np.eye(3), atol=1e-12)


@pytest.mark.parametrize("scheme", ["Velocity_Verlet", "Symplectic_Euler", "Gear_Predictor_Corrector"])
def test_momentum_is_exchanged_between_a_sphere_and_a_free_plate(scheme):
    radius, v0, plate_mass = 0.05, 1.0, 3.0
    model, spheres, walls, plate = Setup(
        sphere_at=(0.0, 0.0, radius + 1e-3), radius=radius, velocity=(0.0, 0.0, -v0),
        RIGID_BODY_MASS=plate_mass, RIGID_BODY_INERTIAS=[1.0, 1.0, 1.0])
    dt = 1e-5  # the contact lasts about 12 ms (Hertz, E* 5.3 MPa)
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, Settings(dt, scheme))
    strategy.Initialize()
    m = strategy.Particles.mass[0]
    total = []

    def momentum(_):
        total.append(m * strategy.Particles.velocity[0][2] + plate_mass * Body(strategy)["velocity"][2])

    Run(strategy, 2500, dt, momentum)
    assert strategy.NumberOfWallContacts() == 0
    np.testing.assert_allclose(total, -m * v0, rtol=1e-12)
    v_sphere = strategy.Particles.velocity[0][2]
    v_plate = Body(strategy)["velocity"][2]
    assert v_sphere == pytest.approx(-(m - plate_mass) / (m + plate_mass) * v0, rel=1e-6)
    assert v_plate == pytest.approx(-2 * m / (m + plate_mass) * v0, rel=1e-6)


def test_a_sphere_resting_on_an_unsupported_free_plate_falls_with_it_at_g():
    radius, g = 0.05, 9.81
    model, spheres, walls, plate = Setup(sphere_at=(0.1, 0.0, radius), radius=radius,
                                         restitution=0.5, friction=0.3, RIGID_BODY_MASS=2.0,
                                         RIGID_BODY_INERTIAS=[0.1, 0.1, 0.2])
    dt = 1e-5
    strategy = Dem().ExplicitSolverStrategy(spheres, walls,
                                            Settings(dt, "Symplectic_Euler", (0, 0, -g)))
    strategy.Initialize()
    time = Run(strategy, 20000, dt)  # 0.2 s
    body = Body(strategy)
    assert strategy.Particles.velocity[0][2] == pytest.approx(-g * time, rel=1e-9)
    assert body["velocity"][2] == pytest.approx(-g * time, rel=1e-9)
    np.testing.assert_allclose(body["contact_force"], 0.0, atol=1e-12)
    np.testing.assert_allclose(body["angular_velocity"], 0.0, atol=1e-12)
    # The gap did not change.
    assert strategy.Particles.position[0][2] - body["centre"][2] == pytest.approx(radius, rel=1e-9)


def test_free_body_data_errors_name_the_part_and_key():
    model, spheres, walls, plate = Setup(RIGID_BODY_INERTIAS=[1.0, 1.0, 1.0])
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, Settings(1e-4))
    with pytest.raises(tessera.Error, match="RigidFacePart.plate .*RIGID_BODY_MASS is missing"):
        strategy.Initialize()
    model, spheres, walls, plate = Setup(RIGID_BODY_MASS=1.0, RIGID_BODY_INERTIAS=[1.0, 0.0, 1.0])
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, Settings(1e-4))
    with pytest.raises(tessera.Error, match="RigidFacePart.plate .*RIGID_BODY_INERTIAS must be > 0"):
        strategy.Initialize()


def test_two_threads_move_a_free_wall_as_one():
    # 600 spheres pressed into a free plate off its centre (so it translates and
    # turns): the particle rows are processed in parallel (above 512 rows), the
    # loads on the body are summed in contact order, so the body is bitwise
    # the same for 1 and 2 threads.
    def run():
        model, spheres, walls, plate = Setup(RIGID_BODY_MASS=10.0,
                                             RIGID_BODY_INERTIAS=[0.5, 1.0, 1.5])
        grain = spheres.GetProperties(1)
        k = 2
        for x in np.linspace(-0.4, 0.3, 30):
            for y in np.linspace(-0.2, 0.4, 20):
                Sphere(spheres, k, (x, y, 0.0099), 0.01, grain, velocity=(0.1, 0.0, -0.2))
                k += 1
        strategy = Dem().ExplicitSolverStrategy(spheres, walls,
                                                Settings(1e-5, "Symplectic_Euler", (0, 0, -9.81)))
        strategy.Initialize()
        contacts = []
        Run(strategy, 60, 1e-5, lambda t: contacts.append(strategy.NumberOfWallContacts()))
        body = Body(strategy)
        assert min(contacts) > 300
        return [np.asarray(body[key]) for key in ("centre", "velocity", "angular_velocity",
                                                   "rotation", "contact_force")]

    runs, before = [], tessera.GetParallelThreads()
    try:
        for threads in (1, 2):
            tessera.SetParallelThreads(threads)
            runs.append(run())
    finally:
        tessera.SetParallelThreads(before)
    assert np.linalg.norm(runs[0][2]) > 0.0  # it turns
    for a, b in zip(*runs):
        assert np.array_equal(a, b)


def test_imposed_components_hold_while_the_others_move_freely():
    # IMPOSED_VELOCITY_Z_VALUE 0 and IMPOSED_ANGULAR_VELOCITY_Z_VALUE 2 hold
    # those components (Kratos' fixed DOFs) between VELOCITY_START_TIME and
    # VELOCITY_STOP_TIME against the applied load; the x component accelerates
    # at F/M throughout (exact for Velocity Verlet), z is free after the stop.
    mass, force = 2.0, np.array([1.0, 0.0, -4.0])
    model, spheres, walls, plate = Setup(
        RIGID_BODY_MASS=mass, RIGID_BODY_INERTIAS=[1.0, 1.0, 1.0],
        EXTERNAL_APPLIED_FORCE=list(force), EXTERNAL_APPLIED_MOMENT=[0.0, 0.0, 5.0],
        IMPOSED_VELOCITY_Z_VALUE=0.0, IMPOSED_ANGULAR_VELOCITY_Z_VALUE=2.0,
        VELOCITY_STOP_TIME=0.1005)  # between steps: no round-off question
    dt = 1e-3
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, Settings(dt))
    strategy.Initialize()
    time = Run(strategy, 100, dt)
    body = Body(strategy)
    assert body["velocity"][0] == pytest.approx(force[0] / mass * time, rel=1e-12)
    assert body["velocity"][2] == 0.0 and body["centre"][2] == 0.0
    assert body["angular_velocity"][2] == 2.0
    Run(strategy, 100, dt, start_time=time)  # free again after 0.1 s
    body = Body(strategy)
    assert body["velocity"][2] == pytest.approx(force[2] / mass * 0.1, rel=2e-2)
    assert body["angular_velocity"][2] == pytest.approx(2.0 + 5.0 * 0.1, rel=2e-2)


FREE_FLOOR_PART = WallSubModelPart("floor", [
    "FREE_BODY_MOTION 1", "RIGID_BODY_MASS 2.0", "RIGID_BODY_CENTER_OF_MASS [3] (0.0, 0.0, 0.0)",
    "RIGID_BODY_INERTIAS [3] (0.7, 0.7, 1.3)", "IMPOSED_VELOCITY_Z_VALUE 0.0",
    "IMPOSED_ANGULAR_VELOCITY_X_VALUE 0.0", "IMPOSED_ANGULAR_VELOCITY_Y_VALUE 0.0",
    "IMPOSED_ANGULAR_VELOCITY_Z_VALUE 0.0", "EXTERNAL_APPLIED_FORCE_Y 0.5"])


def test_a_free_floor_read_from_a_deck_takes_the_momentum_of_a_sliding_sphere(tmp_path,
                                                                               monkeypatch):
    # The small deck of test_dem_analysis_stage.py (two spheres on a floor, one
    # sliding at 4 m/s along x, μ 0.3) with the floor a free body read from its
    # SubModelPartData: held vertically and in rotation (IMPOSED_*), pushed
    # along y by EXTERNAL_APPLIED_FORCE_Y. Friction is internal, so the x
    # momentum of spheres + floor stays m v0 and the y momentum grows as F_y t
    # (rel 1e-12, round-off), while the floor is dragged along x.
    from test_dem_analysis_stage import WALLS_MDPA, SmallDeck
    monkeypatch.chdir(tmp_path)
    parameters = SmallDeck(tmp_path)
    (tmp_path / "smallDEM_FEM_boundary.mdpa").write_text(WALLS_MDPA + FREE_FLOOR_PART)
    import tessera.dem
    stage = tessera.dem.DEMAnalysisStage(tessera.Model(), parameters)
    stage.Run()
    strategy = stage.GetStrategy()
    body = Body(strategy)
    p = strategy.Particles
    momentum = sum(p.mass[i] * np.asarray(p.velocity[i]) for i in range(2)) + \
        body["mass"] * np.asarray(body["velocity"])
    assert momentum[0] == pytest.approx(p.mass[1] * 4.0, rel=1e-12)
    assert momentum[1] == pytest.approx(0.5 * stage.time, rel=1e-12)
    assert body["velocity"][0] > 1e-3 and body["velocity"][2] == 0.0
    np.testing.assert_array_equal(body["angular_velocity"], 0.0)
    node = next(iter(stage.rigid_face_model_part.Nodes))  # renumbered after the spheres
    np.testing.assert_allclose(node.GetSolutionStepValue(tessera.VELOCITY), body["velocity"],
                               rtol=1e-14)


def test_energy_is_conserved_in_an_elastic_impact_on_a_free_plate():
    # e = 1, frictionless, gravity on: GetEnergies() counts the free plate's
    # kinetic and potential energy, so the total (sphere + plate + contact
    # spring) stays at its initial value up to the time discretisation
    # (rel 2e-6 at about 1000 steps per contact; measured 4.8e-7).
    radius, plate_mass = 0.05, 3.0
    model, spheres, walls, plate = Setup(
        sphere_at=(0.02, 0.01, radius + 1e-3), radius=radius, velocity=(0.0, 0.0, -1.0),
        RIGID_BODY_MASS=plate_mass, RIGID_BODY_INERTIAS=[0.2, 0.3, 0.5])
    dt = 1e-5
    settings = Settings(dt, "Velocity_Verlet", (0.0, 0.0, -9.81))
    settings.energy_calculation = True
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
    strategy.Initialize()
    start = strategy.GetEnergies()
    totals = []
    Run(strategy, 2000, dt, lambda t: totals.append(strategy.GetEnergies()["total"]))
    assert Body(strategy)["velocity"][2] < -0.5  # the plate took most of the impact
    assert np.linalg.norm(Body(strategy)["angular_velocity"]) > 0.0  # off-centre: it turns
    np.testing.assert_allclose(totals, start["total"], rtol=2e-6)
