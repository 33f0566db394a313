"""Glued particles on sticky walls (IS_STICKY 1 in a wall sub model part's
SubModelPartData; applications/dem/walls/glued_particles.h): particles touching
a sticky wall when the run starts move rigidly with it instead of being
integrated.

Sources and tolerances:
- dem3d_glued_particles, the Kratos deck run unchanged (README of the case,
  from Kratos' test_glued_particles.py): the sphere (node 1 after the DEM
  stage's renumbering) has ANGULAR_VELOCITY_X = 2 at every step after
  t = 0.01; at t = 0.05 X = -1, Y = 0.960067, Z = 0.398002; at t = 0.1
  X = -1, Y = 0.920532, Z = 0.392027; older test version: t = 0.5
  (-1, 0.6634116060768411, 0.21612092234725555), t = 1.0
  (-1, 0.6362810292697275, -0.16645873461885752). Tolerance: the Kratos
  test's own, 1e-4 absolute.
- The same run against the README's analytic rigid rotation about the x axis
  through (-1, 1, 0): y = 1 - 0.4 sin 2t, z = 0.4 cos 2t. A glued particle is
  placed with the wall's exact motion, so only round-off separates them:
  1e-12 absolute.
- Decks built here: a glued particle follows x(t) = c0 + V t + R(ω t)(x0 - c0),
  v = V + ω × (x - c0 - V t), ω_particle = ω for a general V and ω (1e-12,
  round-off), with every translational scheme; a particle that does not touch
  the wall falls freely (v_z = -g t, exact for a constant force: rel 1e-12).
"""
import math

import numpy as np
import pytest

import tessera
import tessera.dem

from dem_test_utilities import (Material, Relate, Run, Settings, Sphere, SpheresPart,
                                SquarePlate)

KRATOS_TOLERANCE = 1e-4  # test_glued_particles.py compares with this absolute tolerance
ROUND_OFF = 1e-12


def Dem():
    from tessera import _dem
    return _dem


# ------------------------------------------------------------------ the Kratos deck
class CheckingStage(tessera.dem.DEMAnalysisStage):
    """The per-step checks of Kratos' test script (both stored versions),
    recorded while the deck runs, plus the analytic rigid rotation."""

    def __init__(self, model, parameters):
        super().__init__(model, parameters)
        self.checked = set()
        self.measured = {}
        self.largest_analytic_error = 0.0

    def _Check(self, label, value, expected):
        self.checked.add(label)
        assert value == pytest.approx(expected, abs=KRATOS_TOLERANCE), label

    def FinalizeSolutionStep(self):
        super().FinalizeSolutionStep()
        t = self.time
        node = self.spheres_model_part.GetNode(1)  # mdpa node 3, renumbered as Kratos does
        x = [node.X, node.Y, node.Z]
        if t > 0.01:
            self._Check("angular velocity", node.GetSolutionStepValue(tessera.ANGULAR_VELOCITY_X), 2.0)
        for label, low, high, expected in (
                ("t = 0.05", 0.0499999, 0.05000001, [-1.0, 0.960067, 0.398002]),
                ("t = 0.1", 0.0999999, 0.10000001, [-1.0, 0.920532, 0.392027]),
                ("t = 0.5", 0.4999999, 0.50000001, [-1.0, 0.6634116060768411, 0.21612092234725555]),
                ("t = 1.0", 0.9999999, 1.00000001, [-1.0, 0.6362810292697275, -0.16645873461885752])):
            if low < t < high:
                self._Check(label, x, expected)
                self.measured[label] = x
        if 0.0999999 < t < 0.10000001:
            assert node.X == -1.0  # the README: exact
        exact = [-1.0, 1.0 - 0.4 * math.sin(2.0 * t), 0.4 * math.cos(2.0 * t)]
        self.largest_analytic_error = max(self.largest_analytic_error,
                                          max(abs(a - b) for a, b in zip(x, exact)))


def test_dem3d_glued_particles_deck_matches_kratos(in_copy):
    in_copy("dem3d_glued_particles")
    model = tessera.Model()
    stage = CheckingStage(model, tessera.Parameters.FromFile("ProjectParametersDEM.json"))
    stage.Run()
    # All of Kratos' checks happened (the run reached t = 1).
    assert stage.checked == {"angular velocity", "t = 0.05", "t = 0.1", "t = 0.5", "t = 1.0"}
    assert stage.largest_analytic_error < ROUND_OFF
    (glued,) = stage.GetStrategy().GluedParticles()
    assert glued["wall"] == "RigidFacePart.0" and glued["element_id"] == 1
    assert glued["reference"] == pytest.approx([-1.0, 1.0, 0.4], abs=0.0)
    # Glued to the wall it touches: no contact with it is evaluated.
    assert stage.GetStrategy().NumberOfWallContacts() == 0
    # A glued row moves with its wall, not by v Δt: Symplectic Euler's pair
    # loop keeps the increments (test_dem_integration.py).
    assert not stage.GetStrategy().RelativeDisplacementIsVelocityStep()


def test_dem3d_glued_particles_runs_with_tessera_run(in_copy):
    """The same deck through the project runner behind `tessera run FOLDER`."""
    folder = in_copy("dem3d_glued_particles")
    from tessera.project import Project
    project = Project(str(folder), output_dir=str(folder / "out"))
    project.Run()
    node = project.model.GetModelPart("SpheresPart").GetNode(1)
    assert [node.X, node.Y, node.Z] == pytest.approx(
        [-1.0, 0.6362810292697275, -0.16645873461885752], abs=KRATOS_TOLERANCE)
    assert [node.X, node.Y, node.Z] == pytest.approx(
        [-1.0, 1.0 - 0.4 * math.sin(2.0), 0.4 * math.cos(2.0)], abs=ROUND_OFF)


# ------------------------------------------------------------------ decks built here
def Rodrigues(theta):
    angle = np.linalg.norm(theta)
    if angle == 0.0:
        return np.eye(3)
    k = theta / angle
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + math.sin(angle) * K + (1.0 - math.cos(angle)) * K @ K


def Model(sticky=True, motion=True, free_body=False, other_wall=False, half=1.0):
    """Spheres and a square plate z = 0 (RigidFace3D4N, |x|, |y| <= half) in
    RigidFacePart.plate, sticky unless told; `other_wall` adds a plate z = 0 at
    x in [3, 5] in RigidFacePart.other, not sticky."""
    model = tessera.Model()
    spheres = SpheresPart(model)
    grain = Material(spheres, 1, density=2500.0, young=1e7, poisson=0.25)
    walls = model.CreateModelPart("RigidFacePart")
    wall = Material(walls, 2, young=1e7, poisson=0.25)
    Relate(grain, wall, restitution=0.5, static_friction=0.3)
    Relate(grain, grain, restitution=0.5, static_friction=0.3)
    data = {"IS_STICKY": sticky}
    if motion:
        data.update(RIGID_BODY_MOTION=True, LINEAR_VELOCITY=list(V), ANGULAR_VELOCITY=list(OMEGA),
                    ROTATION_CENTER=list(CENTRE))
    if free_body:
        data.update(FREE_BODY_MOTION=True, RIGID_BODY_MASS=1.0,
                    RIGID_BODY_INERTIAS=[1.0, 1.0, 1.0])
    SquarePlate(walls, wall, half=half, **data)
    if other_wall:
        SquarePlate(walls, wall, name="other", centre=(4.0, 0.0), first_id=5)
    return model, spheres, walls, grain


V = np.array([0.1, -0.2, 0.05])
OMEGA = np.array([0.3, -0.5, 1.2])
CENTRE = np.array([0.2, 0.1, 0.0])


@pytest.mark.parametrize("scheme", ["Symplectic_Euler", "Forward_Euler", "Taylor_Scheme",
                                    "Velocity_Verlet"])
def test_a_glued_particle_follows_the_rigid_motion_of_its_wall_exactly(scheme):
    model, spheres, walls, grain = Model()
    x0 = np.array([0.3, -0.2, 0.09])  # radius 0.1: overlaps the plate by 0.01
    Sphere(spheres, 1, list(x0), 0.1, grain, velocity=(5.0, 0.0, 0.0))  # its own velocity is dropped
    Sphere(spheres, 2, (3.0, 3.0, 0.5), 0.1, grain)  # far from every wall
    dt, g = 1e-3, 9.81
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, Settings(dt, scheme=scheme,
                                                                     gravity=(0.0, 0.0, -g)))
    strategy.Initialize()
    assert list(strategy.Particles.glued) == [1, 0]
    (glued,) = strategy.GluedParticles()
    assert glued["row"] == 0 and glued["element_id"] == 1 and glued["wall"] == "RigidFacePart.plate"
    # It starts with the wall's velocity at its centre.
    assert list(strategy.Particles.velocity[0]) == pytest.approx(
        list(V + np.cross(OMEGA, x0 - CENTRE)), abs=ROUND_OFF)
    errors = []

    def check(time):
        p = strategy.Particles
        arm = Rodrigues(OMEGA * time) @ (x0 - CENTRE)
        errors.append(max(np.max(np.abs(p.position[0] - (CENTRE + V * time + arm))),
                          np.max(np.abs(p.velocity[0] - (V + np.cross(OMEGA, arm)))),
                          np.max(np.abs(p.angular_velocity[0] - OMEGA)),
                          np.max(np.abs(p.displacement[0] - (V * time + arm - (x0 - CENTRE))))))
        # The free sphere falls: constant acceleration, v = -g t in every scheme.
        assert p.velocity[1][2] == pytest.approx(-g * time, rel=ROUND_OFF)

    time = Run(strategy, 300, dt, on_step=check)
    assert max(errors) < ROUND_OFF
    # Not integrated: the wall's own contact (overlap 0.01, stiff) would have
    # thrown it off; the glued particle feels no contact with its wall.
    assert strategy.NumberOfWallContacts() == 0
    # The nodes get the glued state too.
    strategy.WriteToNodes()
    node = spheres.GetNode(1)
    arm = Rodrigues(OMEGA * time) @ (x0 - CENTRE)
    assert [node.X, node.Y, node.Z] == pytest.approx(list(CENTRE + V * time + arm), abs=ROUND_OFF)
    assert list(node.GetSolutionStepValue(tessera.ANGULAR_VELOCITY)) == pytest.approx(list(OMEGA),
                                                                                   abs=ROUND_OFF)


def test_a_glued_particle_dissipates_nothing_by_background_damping():
    """Background damping acts on integrated particles only: a glued particle
    moves with its wall, so its (unused) gravity and wall forces dissipate
    nothing; the free-falling one loses alpha |F| |v| per unit time."""
    model, spheres, walls, grain = Model()
    Sphere(spheres, 1, [0.3, -0.2, 0.09], 0.1, grain)  # glued
    dt, g = 1e-3, 9.81
    settings = Settings(dt, gravity=(0.0, 0.0, -g))
    settings.global_damping = 0.2
    settings.energy_calculation = True
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
    strategy.Initialize()
    assert list(strategy.Particles.glued) == [1]
    Run(strategy, 100, dt)
    assert strategy.GetEnergies()["dissipated_global_damping"] == 0.0
    # Control: the same sphere away from the wall is integrated and damped.
    model, spheres, walls, grain = Model()
    Sphere(spheres, 1, [3.0, 3.0, 0.5], 0.1, grain)
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
    strategy.Initialize()
    Run(strategy, 100, dt)
    assert strategy.GetEnergies()["dissipated_global_damping"] > 0.0


def test_only_particles_touching_a_sticky_wall_are_glued():
    model, spheres, walls, grain = Model(motion=False, other_wall=True)
    r = 0.1
    Sphere(spheres, 1, (0.0, 0.0, r - 0.02), r, grain)         # overlaps the sticky plate
    Sphere(spheres, 2, (0.5, 0.5, r - 1e-9), r, grain)         # overlaps it by 1 nm
    Sphere(spheres, 3, (-0.5, 0.5, r + 1e-6), r, grain)        # 1 µm above it: not touching
    Sphere(spheres, 4, (4.0, 0.0, r - 0.02), r, grain)         # on the plate that is not sticky
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, Settings(1e-4, scheme="Symplectic_Euler",
                                                                     gravity=(0.0, 0.0, -9.81)))
    strategy.Initialize()
    assert list(strategy.Particles.glued) == [1, 1, 0, 0]
    assert [g["element_id"] for g in strategy.GluedParticles()] == [1, 2]
    start = strategy.Particles.position
    Run(strategy, 100, 1e-4)
    p = strategy.Particles
    # A fixed sticky wall holds its particles exactly where they were, at rest.
    assert np.array_equal(p.position[:2], start[:2])
    assert not np.any(p.velocity[:2]) and not np.any(p.angular_velocity[:2])
    # The others move: 3 falls onto the plate, 4 is pushed off the other plate.
    assert p.position[2][2] < start[2][2]
    assert p.velocity[3][2] > 0.0


def test_a_glued_particle_is_an_obstacle_for_the_others():
    """A free sphere dropped onto a glued one (fixed sticky wall) bounces off
    it, and the glued one does not move."""
    model, spheres, walls, grain = Model(motion=False)
    Sphere(spheres, 1, (0.0, 0.0, 0.099), 0.1, grain)
    Sphere(spheres, 2, (0.0, 0.0, 0.31), 0.1, grain, velocity=(0.0, 0.0, -1.0))
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, Settings(1e-5, scheme="Symplectic_Euler"))
    strategy.Initialize()
    Run(strategy, 3000, 1e-5)
    p = strategy.Particles
    assert list(p.glued) == [1, 0]
    assert list(p.position[0]) == [0.0, 0.0, 0.099]
    assert p.velocity[1][2] > 0.2  # restitution 0.5: it comes back up


def test_glued_rows_follow_the_removal_of_other_particles():
    """A free particle leaving the bounding box is removed; the glued particle
    behind it changes row and keeps following its wall."""
    model, spheres, walls, grain = Model()
    Sphere(spheres, 1, (3.0, 3.0, -1.95), 0.1, grain, velocity=(0.0, 0.0, -10.0))  # leaves at z = -2
    x0 = np.array([0.3, -0.2, 0.09])
    Sphere(spheres, 2, list(x0), 0.1, grain)
    settings = Settings(1e-3, scheme="Symplectic_Euler")
    settings.bounding_box = True
    settings.bounding_box_min = [-2.0, -2.0, -2.0]
    settings.bounding_box_max = [4.0, 4.0, 2.0]
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
    strategy.Initialize()
    assert [g["row"] for g in strategy.GluedParticles()] == [1]
    time = Run(strategy, 50, 1e-3)
    assert len(strategy.Particles) == 1
    (glued,) = strategy.GluedParticles()
    assert glued["row"] == 0 and glued["element_id"] == 2
    arm = Rodrigues(OMEGA * time) @ (x0 - CENTRE)
    assert list(strategy.Particles.position[0]) == pytest.approx(list(CENTRE + V * time + arm),
                                                                 abs=ROUND_OFF)


def test_a_sticky_free_body_wall_is_an_error_naming_the_part():
    model, spheres, walls, grain = Model(motion=False, free_body=True)
    Sphere(spheres, 1, (0.0, 0.0, 0.09), 0.1, grain)
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, Settings(1e-4))
    with pytest.raises(tessera.Error,
                       match=r"RigidFacePart\.plate.*IS_STICKY on a FREE_BODY_MOTION wall is not supported"):
        strategy.Initialize()


def test_a_wall_that_is_not_sticky_glues_nothing():
    model, spheres, walls, grain = Model(sticky=False)
    Sphere(spheres, 1, (0.3, -0.2, 0.09), 0.1, grain)
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, Settings(1e-4, scheme="Symplectic_Euler"))
    strategy.Initialize()
    assert strategy.GluedParticles() == [] and list(strategy.Particles.glued) == [0]
    Run(strategy, 10, 1e-4)
    assert strategy.NumberOfWallContacts() == 1  # an ordinary contact


def test_a_sticky_part_moved_by_another_parts_motion_is_an_error():
    """IS_STICKY on a child of the moving part: its nodes move with the
    parent's motion, not its own (it has none), so the glued particles would
    not know what to follow."""
    model, spheres, walls, grain = Model(sticky=False)
    skin = walls.GetSubModelPart("plate").CreateSubModelPart("skin")
    skin.AddNodes([1, 2, 3, 4])
    skin.AddConditions([1])
    skin.SetValue(tessera.IS_STICKY, True)
    Sphere(spheres, 1, (0.3, -0.2, 0.09), 0.1, grain)
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, Settings(1e-4))
    with pytest.raises(tessera.Error, match=r"RigidFacePart\.plate\.skin \(IS_STICKY 1\): its node 1 "
                                            r"is moved by the imposed motion of RigidFacePart\.plate"):
        strategy.Initialize()
