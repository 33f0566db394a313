"""Sphere-wall contact on RigidFace3D3N/3D4N faces and RigidFace3D2N segments
(applications/dem/walls).

Sources and tolerances:
- A sphere resting on a floor carries its weight m g (statics, to 1e-9 after
  the bounce has died out), also when its centre sits over the shared edge of
  two coplanar triangles (the contact is counted once), and the same as on one
  quadrilateral face. The wall nodes receive -m g in CONTACT_FORCES (shape
  function weights) and DEM_PRESSURE = normal force share / nodal area.
- A sphere launched sliding at v0 on a floor with Coulomb friction (rigid-body
  mechanics, e.g. Chung & Ooi's oblique-impact analysis, anchors §3.1): it slides
  with deceleration μ_d g until it rolls at 5/7 v0 (solid sphere, I = 2/5 m R²),
  after t = 2 v0 / (7 μ_d g). Checked to 0.5 % (speed) and 2 % (time; the
  spring phase of the tangential law rounds the transition).
- The wall nodes' DEM_PRESSURE and SHEAR_STRESS (Kratos' nodal results:
  normal and tangential force share / nodal area) times the nodal area sum
  to the contact's normal and tangential force (definition, to 1e-9); their
  ELASTIC_FORCES and TANGENTIAL_ELASTIC_FORCES sum to the contact's elastic
  force and the tangential part of its force, on the wall (1e-12). Two spheres
  sliding opposite ways over one face load its nodes with tangential shares
  that cancel in part: SHEAR_STRESS is the magnitude of the vector sum, as in
  Kratos' explicit strategy (CalculateNodalPressuresAndStressesOnWalls).
"""

import numpy as np
import pytest

import tessera

from dem_test_utilities import Face, Material, Relate, Run, Settings, Sphere, SpheresPart


def Dem():
    from tessera import _dem
    return _dem


def Floor(walls, material, quad=False, half=0.05):
    """The square [-half, half]^2 at z = 0: one quadrilateral, or two triangles
    whose shared diagonal runs through the origin (as in dem3d_restitution)."""
    h = half
    if quad:
        Face(walls, 1, [(-h, -h, 0), (h, -h, 0), (h, h, 0), (-h, h, 0)], material)
    else:
        walls.CreateNewNode(1, -h, h, 0.0)
        walls.CreateNewNode(2, h, h, 0.0)
        walls.CreateNewNode(3, -h, -h, 0.0)
        walls.CreateNewNode(4, h, -h, 0.0)
        walls.CreateNewCondition("RigidFace3D3N", 1, [3, 4, 1], material)
        walls.CreateNewCondition("RigidFace3D3N", 2, [1, 4, 2], material)


def Resting(quad, x=0.0, y=0.0, restitution=0.2, friction=0.3, z=0.0101):
    model = tessera.Model()
    spheres = SpheresPart(model)
    walls = model.CreateModelPart("RigidFacePart")
    grain = Material(spheres, 1, density=2000.0, young=1e7, poisson=0.25)
    wall = Material(walls, 2, young=1e12, poisson=0.25)
    Relate(grain, wall, restitution=restitution, static_friction=friction)
    Sphere(spheres, 1, (x, y, z), 0.01, grain)
    Floor(walls, wall, quad)
    strategy = Dem().ExplicitSolverStrategy(spheres, walls,
                                            Settings(2e-6, "Symplectic_Euler", (0, 0, -9.81)))
    strategy.Initialize()
    return model, spheres, walls, strategy


@pytest.mark.parametrize("quad", [False, True])
def test_a_sphere_on_the_shared_edge_of_two_faces_carries_its_weight_once(quad):
    model, spheres, walls, strategy = Resting(quad)
    Run(strategy, 100000, 2e-6)  # 0.2 s: the bounces have died out
    strategy.WriteToNodes()
    weight = strategy.Particles.mass[0] * 9.81
    assert strategy.NumberOfWallContacts() == 1
    contact = spheres.GetNode(1).GetSolutionStepValue(tessera.CONTACT_FORCES)
    assert contact == pytest.approx([0.0, 0.0, weight], rel=1e-9, abs=1e-12 * weight)
    assert abs(spheres.GetNode(1).GetSolutionStepValue(tessera.VELOCITY_Z)) < 1e-9
    # The wall nodes carry the opposite force, shared with the shape functions.
    total = np.zeros(3)
    for node in walls.Nodes:
        total += node.GetSolutionStepValue(tessera.CONTACT_FORCES)
    np.testing.assert_allclose(total, [0.0, 0.0, -weight], rtol=1e-9, atol=1e-12 * weight)
    pressure_times_area = sum(n.GetSolutionStepValue(tessera.DEM_PRESSURE) *
                              n.GetSolutionStepValue(tessera.DEM_NODAL_AREA) for n in walls.Nodes)
    assert pressure_times_area == pytest.approx(weight, rel=1e-9)
    assert sum(n.GetSolutionStepValue(tessera.DEM_NODAL_AREA) for n in walls.Nodes) == \
        pytest.approx(0.1 * 0.1, rel=1e-12)


def test_triangles_and_a_quadrilateral_give_the_same_bounce():
    heights = []
    for quad in (False, True):
        _, spheres, _, strategy = Resting(quad, restitution=0.5)
        trace = []
        Run(strategy, 20000, 2e-6, lambda t: trace.append(strategy.Particles.position[0][2]))
        heights.append(np.array(trace))
    np.testing.assert_allclose(heights[0], heights[1], rtol=1e-12, atol=0)


@pytest.mark.parametrize("quad", [False, True])
def test_a_centre_projecting_outside_every_face_touches_the_edge(quad):
    # Centre beyond the floor's edge x = 0.05: the contact is the closest point
    # of that edge, the force points from it to the centre (geometry, to 1e-9).
    model, spheres, walls, strategy = Resting(quad, x=0.056, y=0.01, z=0.006)
    strategy.SolveSolutionStep(2e-6)
    assert strategy.NumberOfWallContacts() == 1
    x = strategy.Particles.position[0]
    force = strategy.Particles.contact_force[0]
    away = np.array([x[0] - 0.05, 0.0, x[2]])
    np.testing.assert_allclose(force / np.linalg.norm(force), away / np.linalg.norm(away),
                               atol=1e-9)


def test_a_centre_beyond_the_edge_out_of_reach_makes_no_contact():
    model, spheres, walls, strategy = Resting(True, x=0.0505)  # 0.0101 from the edge
    Run(strategy, 20, 2e-6)
    assert strategy.NumberOfWallContacts() == 0


@pytest.mark.parametrize("static,dynamic", [(0.5, 0.2), (0.2, 0.2)])
def test_a_sliding_sphere_ends_rolling_at_five_sevenths_of_its_speed(static, dynamic):
    model = tessera.Model()
    spheres = SpheresPart(model)
    walls = model.CreateModelPart("RigidFacePart")
    grain = Material(spheres, 1, density=2500.0, young=1e8, poisson=0.25)
    wall = Material(walls, 2, young=1e12, poisson=0.25)
    Relate(grain, wall, restitution=0.3, static_friction=static, dynamic_friction=dynamic)
    radius, v0, g = 0.01, 1.0, 9.81
    # Resting overlap of a Hertz contact under m g, so that it starts in contact.
    Sphere(spheres, 1, (0.0, 0.0, radius - 1e-7), radius, grain, velocity=(v0, 0.0, 0.0))
    Floor(walls, wall, quad=True, half=1.0)
    dt = 2e-6
    strategy = Dem().ExplicitSolverStrategy(spheres, walls,
                                            Settings(dt, "Symplectic_Euler", (0, 0, -g)))
    strategy.Initialize()
    slip_time = 2 * v0 / (7 * dynamic * g)
    speeds, spins = [], []

    def record(time):
        speeds.append(strategy.Particles.velocity[0][0])
        spins.append(strategy.Particles.angular_velocity[0][1])

    Run(strategy, int(1.5 * slip_time / dt), dt, record)
    speeds, spins = np.array(speeds), np.array(spins)
    assert speeds[-1] == pytest.approx(5 / 7 * v0, rel=5e-3)
    assert spins[-1] * radius == pytest.approx(speeds[-1], rel=5e-3)  # rolling: ω R = v
    # Slip ends when the contact point stops: v - ω R reaches ~0.
    slipping = np.nonzero(speeds - spins * radius > 1e-3 * v0)[0]
    assert (slipping[-1] + 1) * dt == pytest.approx(slip_time, rel=2e-2)
    # Mid-slip deceleration is μ_d g (static friction does not act while sliding).
    mid = len(speeds) // 6
    deceleration = -(speeds[mid + 100] - speeds[mid - 100]) / (200 * dt)
    assert deceleration == pytest.approx(dynamic * g, rel=1e-2)



def SlidingOnTheFloor(launches):
    """Spheres (radius 0.01, ρ 2500, E 1e8) resting on the two-triangle floor
    at (x, y) with horizontal velocity (v_x, v_y), one per launch, sliding for
    200 steps (μ_s 0.3, μ_d 0.2); the wall nodes written. Returns (strategy,
    walls)."""
    model = tessera.Model()
    spheres = SpheresPart(model, elastic_forces=True)
    walls = model.CreateModelPart("RigidFacePart")
    grain = Material(spheres, 1, density=2500.0, young=1e8, poisson=0.25)
    wall = Material(walls, 2, young=1e12, poisson=0.25)
    Relate(grain, wall, restitution=0.3, static_friction=0.3, dynamic_friction=0.2)
    radius = 0.01
    for node, ((x, y), (vx, vy)) in enumerate(launches, start=1):
        Sphere(spheres, node, (x, y, radius - 1e-7), radius, grain, velocity=(vx, vy, 0.0))
    Floor(walls, wall)
    strategy = Dem().ExplicitSolverStrategy(spheres, walls,
                                            Settings(2e-6, "Symplectic_Euler", (0, 0, -9.81)))
    strategy.Initialize()
    Run(strategy, 200, 2e-6)
    strategy.WriteToNodes()
    return strategy, walls


def test_a_sliding_sphere_loads_the_wall_nodes_with_pressure_and_shear_stress():
    # Kratos' nodal wall results: DEM_PRESSURE and SHEAR_STRESS are the normal
    # and tangential force of each contact, shared with the shape-function
    # weights and divided by the node's DEM_NODAL_AREA (a third of each
    # triangle it is a vertex of). Summed as stress times area over the nodes
    # they give back the contact's normal force and the magnitude of its
    # tangential force (the weights sum to 1), to rounding (1e-9).
    strategy, walls = SlidingOnTheFloor([((-0.02, -0.01), (1.0, 0.5))])
    assert strategy.NumberOfWallContacts() == 1
    force = np.array(strategy.Particles.contact_force[0])  # on the sphere, from the floor
    tangential = np.hypot(force[0], force[1])
    assert tangential > 0.1 * force[2] > 0.0  # sliding: μ_d F_n
    areas = {n.Id: n.GetSolutionStepValue(tessera.DEM_NODAL_AREA) for n in walls.Nodes}
    assert sorted(areas.values()) == pytest.approx([0.1 * 0.1 / 6] * 2 + [0.1 * 0.1 / 3] * 2,
                                                  rel=1e-12)
    pressure = sum(n.GetSolutionStepValue(tessera.DEM_PRESSURE) * areas[n.Id] for n in walls.Nodes)
    shear = sum(n.GetSolutionStepValue(tessera.SHEAR_STRESS) * areas[n.Id] for n in walls.Nodes)
    assert pressure == pytest.approx(force[2], rel=1e-9)
    assert shear == pytest.approx(tangential, rel=1e-9)
    # Only the vertices of the face under the sphere are loaded.
    assert walls.GetNode(2).GetSolutionStepValue(tessera.SHEAR_STRESS) == 0.0
    # The elastic part and the tangential part of the force, on the wall.
    elastic = np.array(strategy.Particles.elastic_force[0])
    assert np.linalg.norm(elastic - force) > 1e-3 * np.linalg.norm(force)  # damped: they differ
    nodal_elastic = sum(np.array(n.GetSolutionStepValue(tessera.ELASTIC_FORCES)) for n in walls.Nodes)
    np.testing.assert_allclose(nodal_elastic, -elastic, rtol=0, atol=1e-12 * np.linalg.norm(force))
    nodal_tangential = sum(np.array(n.GetSolutionStepValue(tessera.TANGENTIAL_ELASTIC_FORCES))
                           for n in walls.Nodes)
    np.testing.assert_allclose(nodal_tangential, [-force[0], -force[1], 0.0], rtol=0,
                               atol=1e-12 * np.linalg.norm(force))


def test_opposite_shear_on_one_face_cancels_in_the_wall_nodes_shear_stress():
    # Two spheres over the same triangle sliding in opposite directions: each
    # node's tangential shares add up as vectors (TANGENTIAL_ELASTIC_FORCES),
    # SHEAR_STRESS is their magnitude over the area, so the nodes' shear
    # forces sum to less than the two friction forces' magnitudes while
    # TANGENTIAL_ELASTIC_FORCES still sums to the net tangential force.
    # Both over the first triangle (3, 4, 1).
    strategy, walls = SlidingOnTheFloor([((-0.03, -0.02), (1.0, 0.0)),
                                         ((-0.01, -0.035), (-1.0, 0.0))])
    assert strategy.NumberOfWallContacts() == 2
    forces = [np.array(strategy.Particles.contact_force[k]) for k in range(2)]
    friction = [np.hypot(f[0], f[1]) for f in forces]
    assert forces[0][0] < 0.0 < forces[1][0] and min(friction) > 0.1 * forces[0][2]
    areas = {n.Id: n.GetSolutionStepValue(tessera.DEM_NODAL_AREA) for n in walls.Nodes}
    tangential = {n.Id: np.array(n.GetSolutionStepValue(tessera.TANGENTIAL_ELASTIC_FORCES))
                  for n in walls.Nodes}
    for n in walls.Nodes:
        assert n.GetSolutionStepValue(tessera.SHEAR_STRESS) * areas[n.Id] == pytest.approx(
            np.linalg.norm(tangential[n.Id]), rel=1e-12, abs=1e-300)
    shear_forces = sum(n.GetSolutionStepValue(tessera.SHEAR_STRESS) * areas[n.Id]
                       for n in walls.Nodes)
    assert shear_forces < 0.9 * sum(friction)
    net = -(forces[0] + forces[1])
    np.testing.assert_allclose(sum(tangential.values()), [net[0], net[1], 0.0], rtol=0,
                               atol=1e-12 * sum(friction))

def SegmentWall(x, y, z, segment_start, segment_end):
    """A sphere (radius 0.01) at (x, y, z) and one RigidFace3D2N segment wall."""
    model = tessera.Model()
    spheres = SpheresPart(model)
    walls = model.CreateModelPart("RigidFacePart")
    grain = Material(spheres, 1, density=2000.0, young=1e7, poisson=0.25)
    wall = Material(walls, 2, young=1e12, poisson=0.25)
    Relate(grain, wall, restitution=0.2, static_friction=0.3)
    Sphere(spheres, 1, (x, y, z), 0.01, grain)
    walls.CreateNewNode(1, *segment_start)
    walls.CreateNewNode(2, *segment_end)
    walls.CreateNewCondition("RigidFace3D2N", 3, [1, 2], wall)
    strategy = Dem().ExplicitSolverStrategy(spheres, walls,
                                            Settings(2e-6, "Symplectic_Euler", (0, 0, -9.81)))
    strategy.Initialize()
    return strategy


def test_a_sphere_touching_a_3d_segment_wall_feels_the_same_force_as_on_a_face_edge():
    # RigidFace3D2N in a 3D run (Kratos' DEM-FEM-Wall lines): the contact is
    # the closest point of the segment. A segment lying on the floor's edge
    # x = 0.05 gives the sphere beyond that edge exactly the force of the quad
    # floor's edge contact (same closest point, same law; to 1e-12).
    _, _, _, on_face = Resting(True, x=0.056, y=0.01, z=0.006)
    on_face.SolveSolutionStep(2e-6)
    on_segment = SegmentWall(0.056, 0.01, 0.006, (0.05, -0.05, 0.0), (0.05, 0.05, 0.0))
    on_segment.SolveSolutionStep(2e-6)
    assert on_segment.NumberOfWallContacts() == 1
    np.testing.assert_allclose(on_segment.Particles.contact_force[0],
                               on_face.Particles.contact_force[0], rtol=1e-12, atol=0)


def test_a_sphere_beyond_the_end_of_a_3d_segment_touches_its_end_point():
    # Centre past the end (0.05, 0.05, 0): the force points from that vertex to
    # the centre (geometry, to 1e-9).
    strategy = SegmentWall(0.053, 0.054, 0.004, (0.05, -0.05, 0.0), (0.05, 0.05, 0.0))
    assert strategy.NumberOfWallContacts() == 1
    force = strategy.Particles.contact_force[0]
    away = np.array([0.003, 0.004, 0.004])
    np.testing.assert_allclose(force / np.linalg.norm(force), away / np.linalg.norm(away),
                               rtol=0, atol=1e-9)


def test_a_wall_without_material_relation_is_an_error_on_contact():
    model = tessera.Model()
    spheres = SpheresPart(model)
    walls = model.CreateModelPart("RigidFacePart")
    grain = Material(spheres, 1, density=2000.0)
    wall = Material(walls, 7, young=1e12)
    Sphere(spheres, 1, (0.0, 0.0, 0.009), 0.01, grain)
    Floor(walls, wall, quad=True)
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, Settings(1e-5))
    with pytest.raises(tessera.Error, match=r"particle \(element 1\) touches wall condition 1, but "
                                            "contact between particle material 1 and wall material 7"):
        strategy.Initialize()


def test_spheres_touching_walls_at_the_start_are_removed_when_asked():
    """RemoveBallsInitiallyTouchingWalls: a sphere overlapping the facet, one
    overlapping the floor's edge from the side (centre off the face) and one
    clear of it; only the clear one is left, in the rows and the model part."""
    for remove, kept in ((True, [3]), (False, [1, 2, 3])):
        model = tessera.Model()
        spheres = SpheresPart(model)
        walls = model.CreateModelPart("RigidFacePart")
        grain = Material(spheres, 1, density=2000.0, young=1e7, poisson=0.25)
        wall = Material(walls, 2, young=1e12, poisson=0.25)
        Relate(grain, grain, restitution=0.5)
        Relate(grain, wall, restitution=0.5)
        Sphere(spheres, 1, (0.0, 0.0, 0.0099), 0.01, grain)    # on the facet
        Sphere(spheres, 2, (0.0595, 0.0, 0.0), 0.01, grain)    # 0.5 mm past the edge x = 0.05
        Sphere(spheres, 3, (0.02, 0.02, 0.0105), 0.01, grain)  # 0.5 mm above
        Floor(walls, wall)
        settings = Settings(2e-6, "Symplectic_Euler", (0, 0, -9.81), tolerance=0.002)
        settings.remove_touching_walls = remove
        strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
        strategy.Initialize()
        assert sorted(spheres.NodeIds()) == kept
        assert len(strategy.Particles) == len(kept)
        Run(strategy, 10, 2e-6)


@pytest.mark.parametrize("speed", [0.01, 0.05, 0.2])
def test_friction_decay_blends_static_and_dynamic_friction_with_the_sliding_speed(speed):
    """FRICTION_DECAY d (Kratos): a sphere dragged along a floor at a held
    speed v without turning slides with mu = mu_d + (mu_s - mu_d) exp(-d v):
    the contact's tangential force is that mu times its normal force
    (mu_s 0.5, mu_d 0.2, d 10 s/m; rel 1e-9 once the bounce has settled)."""
    model = tessera.Model()
    spheres = SpheresPart(model)
    walls = model.CreateModelPart("RigidFacePart")
    grain = Material(spheres, 1, density=2500.0, young=1e8, poisson=0.25)
    wall = Material(walls, 2, young=1e12, poisson=0.25)
    Relate(grain, wall, restitution=0.3, static_friction=0.5, dynamic_friction=0.2,
           friction_decay=10.0)
    radius = 0.01
    Sphere(spheres, 1, (0.0, 0.0, radius - 1e-7), radius, grain, velocity=(speed, 0.0, 0.0))
    node = spheres.GetNode(1)
    for component in (tessera.VELOCITY_X, tessera.ANGULAR_VELOCITY_X, tessera.ANGULAR_VELOCITY_Y,
                      tessera.ANGULAR_VELOCITY_Z):
        node.Fix(component)
    Floor(walls, wall, quad=True, half=1.0)
    dt = 2e-6
    strategy = Dem().ExplicitSolverStrategy(spheres, walls,
                                            Settings(dt, "Symplectic_Euler", (0, 0, -9.81)))
    strategy.Initialize()
    Run(strategy, 20000, dt)
    force = strategy.Particles.contact_force[0]
    mu = 0.2 + 0.3 * np.exp(-10.0 * speed)
    assert -force[0] / force[2] == pytest.approx(mu, rel=1e-9)
