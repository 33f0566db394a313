"""Imposed rigid-body motion of wall sub model parts (SubModelPartData keys of
Kratos' DEM_FEM_boundary mdpa: RIGID_BODY_MOTION, LINEAR_VELOCITY,
ANGULAR_VELOCITY, ROTATION_CENTER, *_PERIOD, *_START_TIME, *_STOP_TIME) and the
resultant force and moment on a wall (applications/dem/walls,
tessera.dem.wall_resultants).

Sources and tolerances:
- Node kinematics: the exact integral of the imposed velocities (a rotation by
  |Θ| about a centre that travels with the translation), to 1e-12.
- A sphere at rest dropped onto a plate translating at V with Coulomb friction
  (rigid-body mechanics, as the sliding test of test_dem_walls.py seen from the
  plate): it is dragged until it rolls on the plate, at 2/7 V (solid sphere),
  after t = 2 V / (7 μ g). Checked to 0.5 % (speed) and 2 % (time; the spring
  phase of the tangential law rounds the transition).
- Resultants: a sphere resting on a plate pushes it with -m g at its contact
  point, moment r × F about the rotation centre (statics, 1e-6).
"""
import math

import numpy as np
import pytest

import tessera

from dem_test_utilities import (Material, Relate, Run, Settings, Sphere, SpheresPart,
                                SquarePlate)


def Dem():
    from tessera import _dem
    return _dem


def Plate(model, wall, half=1.0, **data):
    """A square quadrilateral at z = 0 in the sub model part RigidFacePart.plate
    with RIGID_BODY_MOTION and the given SubModelPartData."""
    walls = model.CreateModelPart("RigidFacePart")
    return walls, SquarePlate(walls, wall, half=half, RIGID_BODY_MOTION=True, **data)


def Setup(**data):
    model = tessera.Model()
    spheres = SpheresPart(model)
    grain = Material(spheres, 1, density=2500.0, young=1e8, poisson=0.25)
    wall = Material(model.CreateModelPart("WallMaterials"), 2, young=1e12, poisson=0.25)
    walls, plate = Plate(model, wall, **data)
    Relate(grain, wall, restitution=0.3, static_friction=0.3)
    return model, spheres, walls, plate, grain


def test_wall_nodes_follow_the_imposed_rigid_motion():
    v, w, c = np.array([0.1, -0.05, 0.0]), np.array([0.0, 0.0, 2.0]), np.array([0.5, 0.0, 0.0])
    model, spheres, walls, plate, grain = Setup(
        LINEAR_VELOCITY=list(v), ANGULAR_VELOCITY=list(w), ROTATION_CENTER=list(c),
        VELOCITY_STOP_TIME=0.03, ANGULAR_VELOCITY_PERIOD=0.2)
    Sphere(spheres, 1, (0.0, 0.0, 5.0), 0.01, grain)  # far from the plate
    initial = {n.Id: np.array([n.X, n.Y, n.Z]) for n in walls.Nodes}
    dt = 1e-3
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, Settings(dt))
    strategy.Initialize()
    time = Run(strategy, 50, dt)
    shift = v * 0.03  # the translation stopped at 0.03 s
    phase = 2 * math.pi / 0.2  # ω(t) = W sin(2π t / T): angle W (1 - cos(2π t/T)) T / 2π
    angle = w[2] * (1 - math.cos(phase * time)) / phase
    omega = w * math.sin(phase * time)
    rotation = np.array([[math.cos(angle), -math.sin(angle), 0.0],
                         [math.sin(angle), math.cos(angle), 0.0], [0.0, 0.0, 1.0]])
    for node in walls.Nodes:
        arm = rotation @ (initial[node.Id] - c)
        expected = c + shift + arm
        np.testing.assert_allclose([node.X, node.Y, node.Z], expected, atol=1e-12)
        np.testing.assert_allclose(node.GetSolutionStepValue(tessera.VELOCITY),
                                   np.cross(omega, arm), atol=1e-12)
        np.testing.assert_allclose(node.GetSolutionStepValue(tessera.DISPLACEMENT),
                                   expected - initial[node.Id], atol=1e-12)


def test_a_sphere_on_a_translating_plate_ends_rolling_at_two_sevenths_of_its_speed():
    speed, g, mu, radius = 0.5, 9.81, 0.3, 0.01
    model, spheres, walls, plate, grain = Setup(LINEAR_VELOCITY=[speed, 0.0, 0.0])
    Sphere(spheres, 1, (0.0, 0.0, radius - 1e-7), radius, grain)
    dt = 2e-6
    strategy = Dem().ExplicitSolverStrategy(spheres, walls,
                                            Settings(dt, "Symplectic_Euler", (0, 0, -g)))
    strategy.Initialize()
    slip_time = 2 * speed / (7 * mu * g)
    speeds = []
    Run(strategy, int(1.5 * slip_time / dt), dt,
        lambda t: speeds.append(strategy.Particles.velocity[0][0]))
    speeds = np.array(speeds)
    assert speeds[-1] == pytest.approx(2 / 7 * speed, rel=5e-3)
    # The drag ends when the speed stops growing at μ g.
    growing = np.nonzero(np.diff(speeds) > 0.5 * mu * g * dt)[0]
    assert (growing[-1] + 1) * dt == pytest.approx(slip_time, rel=2e-2)


def test_force_and_moment_on_a_wall_part():
    from tessera.dem.wall_resultants import WallForceAndMoment
    model, spheres, walls, plate, grain = Setup(ROTATION_CENTER=[0.0, 0.0, 0.0])
    radius, g = 0.01, 9.81
    Sphere(spheres, 1, (0.02, 0.01, radius), radius, grain)
    dt = 2e-6
    strategy = Dem().ExplicitSolverStrategy(spheres, walls,
                                            Settings(dt, "Symplectic_Euler", (0, 0, -g)))
    strategy.Initialize()
    Run(strategy, 50000, dt)  # 0.1 s: at rest
    strategy.WriteToNodes()
    weight = strategy.Particles.mass[0] * g
    force, moment = WallForceAndMoment(plate)
    np.testing.assert_allclose(force, [0.0, 0.0, -weight], rtol=1e-6, atol=1e-6 * weight)
    np.testing.assert_allclose(moment, np.cross([0.02, 0.01, 0.0], [0.0, 0.0, -weight]),
                               rtol=1e-6, atol=1e-8 * weight)


def test_bad_motion_data_is_an_error_naming_the_part():
    model, spheres, walls, plate, grain = Setup(LINEAR_VELOCITY=[1.0, 0.0, 0.0],
                                                VELOCITY_PERIOD=-1.0)
    Sphere(spheres, 1, (0.0, 0.0, 5.0), 0.01, grain)
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, Settings(1e-5))
    with pytest.raises(tessera.Error, match="RigidFacePart.plate: VELOCITY_PERIOD must be >= 0"):
        strategy.Initialize()
