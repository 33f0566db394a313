"""Periodic domains (PeriodicDomainOption: the bounding box, periodic along x,
y and z, as in Kratos).

Sources and tolerances:
- Search: the candidate pairs are those of a brute-force check of every pair
  at its nearest periodic image (minimum-image convention); exact.
- Translation invariance: a collision across a face of the box gives the
  forces and motion of the same collision inside it; rel 1e-9 (the images'
  separation is computed from coordinates one period apart, so the last bits
  differ).
- A free sphere leaving the box comes back through the opposite face: its
  coordinates move by one period, its displacement stays v t; rel 1e-12.
- A box of colliding spheres without gravity or walls keeps its total
  momentum (Newton's third law across the faces too); 1e-12 of the momentum
  scale, and contacts across the faces did occur.
"""
import numpy as np
import pytest

import tessera

from dem_test_utilities import Material, Relate, Run, Settings, Sphere, SpheresPart

LOW, HIGH = np.array([0.0, 0.0, 0.0]), np.array([0.2, 0.15, 0.1])


def Dem():
    from tessera import _dem
    return _dem


def PeriodicSettings(dt, tolerance=0.002, low=LOW, high=HIGH, **options):
    settings = Settings(dt, "Symplectic_Euler", tolerance=tolerance)
    settings.periodic = True
    settings.bounding_box_min = list(low)
    settings.bounding_box_max = list(high)
    for key, value in options.items():
        setattr(settings, key, value)
    return settings


def Spheres(positions, radii, velocities=None, restitution=0.5, friction=0.3):
    model = tessera.Model()
    spheres = SpheresPart(model)
    grain = Material(spheres, 1, density=2000.0, young=1e7, poisson=0.25)
    Relate(grain, grain, restitution=restitution, static_friction=friction)
    for k, (x, r) in enumerate(zip(positions, radii)):
        v = (0.0, 0.0, 0.0) if velocities is None else tuple(velocities[k])
        Sphere(spheres, k + 1, tuple(x), r, grain, velocity=v)
    return model, spheres


def Nearest(d, length):
    return d - length * np.round(d / length)


def test_the_search_finds_the_pairs_at_their_nearest_periodic_image():
    rng = np.random.default_rng(5)
    count, tolerance = 600, 0.002
    positions = LOW + rng.random((count, 3)) * (HIGH - LOW)
    radii = rng.uniform(0.003, 0.006, count)
    _, spheres = Spheres(positions, radii)
    strategy = Dem().ExplicitSolverStrategy(spheres, None, PeriodicSettings(1e-6, tolerance))
    strategy.Initialize()
    x, r = strategy.Particles.position, strategy.Particles.radius
    d = np.linalg.norm(Nearest(x[None, :, :] - x[:, None, :], HIGH - LOW), axis=2)
    i, j = np.nonzero(np.triu(d < r[:, None] + r[None, :] + tolerance, k=1))
    first, second = strategy.ParticlePairCandidates()
    across = np.linalg.norm(x[j] - x[i], axis=1) > (r[i] + r[j] + tolerance)
    assert len(i) > 200 and np.count_nonzero(across) > 20  # pairs across the faces
    np.testing.assert_array_equal(first, i)
    np.testing.assert_array_equal(second, j)


def Collision(shift, steps=2000, dt=2e-6):
    """Two spheres meeting obliquely with spin, centred at `shift` (x)."""
    centre = np.array([shift, 0.075, 0.05])
    positions = [centre + [-0.0105, -0.002, 0.0], centre + [0.0105, 0.002, 0.0]]
    _, spheres = Spheres(positions, [0.01, 0.01], [(0.5, 0.1, 0.0), (-0.5, 0.0, 0.05)])
    strategy = Dem().ExplicitSolverStrategy(spheres, None, PeriodicSettings(dt))
    strategy.Initialize()
    forces = []
    Run(strategy, steps, dt, on_step=lambda t: forces.append(
        np.array(strategy.Particles.contact_force[0])))
    p = strategy.Particles
    return (np.array(forces), np.array(p.velocity), np.array(p.angular_velocity),
            np.array(p.displacement))


def test_a_collision_across_a_face_equals_the_same_collision_inside():
    inside = Collision(0.1)
    across = Collision(0.0)  # the contact point on the face x = 0
    assert np.max(np.abs(inside[0])) > 1.0  # they did collide
    for a, b in zip(inside, across):
        np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-9 * np.max(np.abs(a)))


def test_a_sphere_leaving_the_box_comes_back_through_the_opposite_face():
    dt, steps, v = 1e-4, 1000, np.array([0.45, -0.22, 0.15])
    x0 = np.array([0.17, 0.02, 0.05])
    _, spheres = Spheres([x0], [0.01], [v])
    strategy = Dem().ExplicitSolverStrategy(spheres, None, PeriodicSettings(dt))
    strategy.Initialize()
    time = Run(strategy, steps, dt)
    p = strategy.Particles
    travelled = v * time  # 0.045, -0.022, 0.015 m: across x (0.215) and y (-0.002)
    np.testing.assert_allclose(p.displacement[0], travelled, rtol=1e-12)
    expected = LOW + np.mod(x0 + travelled - LOW, HIGH - LOW)
    np.testing.assert_allclose(p.position[0], expected, rtol=1e-12)
    assert p.position[0][0] < 0.1 and p.position[0][1] > 0.1  # wrapped, not only moved
    strategy.WriteToNodes()
    node = spheres.GetNode(1)
    np.testing.assert_allclose([node.X, node.Y, node.Z], expected, rtol=1e-12)
    np.testing.assert_allclose(node.GetSolutionStepValue(tessera.DISPLACEMENT), travelled,
                               rtol=1e-12)
    strategy.ReadFromNodes()  # displacements are not recomputed from the wrapped coordinates
    np.testing.assert_allclose(p.displacement[0], travelled, rtol=1e-12)


@pytest.mark.parametrize("scheme", ["Symplectic_Euler", "Velocity_Verlet"])
def test_a_periodic_box_of_colliding_spheres_keeps_its_momentum(scheme):
    rng = np.random.default_rng(8)
    grid = [(x, y, z) for x in range(8) for y in range(6) for z in range(4)]
    positions = LOW + (np.array(grid) + 0.5) * (HIGH - LOW) / [8, 6, 4]
    count = len(positions)
    velocities = rng.normal(0.0, 0.5, (count, 3))
    _, spheres = Spheres(positions, np.full(count, 0.0124), velocities)  # gaps of 0.2 mm
    settings = PeriodicSettings(2e-6, 0.003, search_frequency=5)
    settings.translational_scheme = scheme
    strategy = Dem().ExplicitSolverStrategy(spheres, None, settings)
    strategy.Initialize()
    p = strategy.Particles
    mass = np.array(p.mass)
    momentum0 = (mass[:, None] * np.array(p.velocity)).sum(axis=0)
    scale = np.sum(mass * np.linalg.norm(velocities, axis=1))
    across = []

    def count_across(_):
        first, second = strategy.ParticlePairCandidates()
        x = np.array(p.position)
        span = np.abs(x[second] - x[first]).max(axis=1)
        touching = np.linalg.norm(Nearest(x[second] - x[first], HIGH - LOW), axis=1) < 0.0248
        across.append(np.count_nonzero(touching & (span > 0.05)))

    Run(strategy, 600, 2e-6, on_step=count_across)
    momentum = (mass[:, None] * np.array(p.velocity)).sum(axis=0)
    assert sum(across) > 0
    np.testing.assert_allclose(momentum, momentum0, rtol=0, atol=1e-12 * scale)
    assert np.all(np.array(p.position) >= LOW) and np.all(np.array(p.position) < HIGH)


def test_a_box_too_small_for_the_reach_or_without_extent_is_an_error():
    _, spheres = Spheres([(0.05, 0.05, 0.05)], [0.02])
    strategy = Dem().ExplicitSolverStrategy(spheres, None, PeriodicSettings(1e-6))
    with pytest.raises(tessera.Error, match="the periodic domain is 0.1 long along axis 2; it must "
                                            "be at least three times"):
        strategy.Initialize()
    with pytest.raises(tessera.Error, match="its side 1 is empty"):
        Dem().ExplicitSolverStrategy(spheres, None, PeriodicSettings(1e-6, high=[0.2, 0.0, 0.1]))


def ClusterAndSphere(tmp_path, shift, steps=1500, dt=2e-6):
    """A spinning dumbbell cluster (two 1 cm spheres) flying at a sphere,
    the pair centred at `shift` (x) in the periodic box; no gravity."""
    from test_dem_clusters import ClusterModel, WriteClu
    clu = WriteClu(tmp_path / "pair.clu", [(0.01, 0.0, 0.0, 0.01), (-0.01, 0.0, 0.0, 0.01)],
                   size=0.04, volume=8e-6, inertia=(1e-4, 2e-4, 2e-4))
    model, spheres, clusters, _, material = ClusterModel(
        clu, [(shift - 0.0225, 0.075, 0.05)], 0.04, velocity=(1.0, 0.0, 0.0),
        angular_velocity=(0.0, 0.0, 5.0))
    Relate(material, material, restitution=0.5, static_friction=0.3)
    Sphere(spheres, 1, (shift + 0.011, 0.078, 0.05), 0.01, material, velocity=(-0.5, 0.0, 0.0))
    strategy = Dem().ExplicitSolverStrategy(spheres, None, PeriodicSettings(dt))
    strategy.SetClusterModelPart(clusters)
    strategy.Initialize()
    Run(strategy, steps, dt)
    c = strategy.Clusters()[0]
    p = strategy.Particles
    free = int(np.flatnonzero(np.array(p.cluster) == 0)[0])
    members = np.array(p.position)[c["first_row"]:c["first_row"] + c["row_count"]]
    return (np.array(c["velocity"]), np.array(c["angular_velocity"]),
            np.array(p.velocity[free]), np.array(p.angular_velocity[free]),
            np.array(c["centre"]), members)


def test_a_cluster_collides_across_a_face_as_inside_and_stays_rigid(tmp_path):
    inside = ClusterAndSphere(tmp_path, 0.1225)
    across = ClusterAndSphere(tmp_path, 0.0225)  # the cluster's centre on the face x = 0:
    # its members start on both sides of it
    assert np.linalg.norm(inside[2] - [-0.5, 0.0, 0.0]) > 0.1  # they did collide
    for a, b in zip(inside[:4], across[:4]):
        np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-9 * np.max(np.abs(a)))
    # The centre 0.1 m (the shift) from the other run's, up to a period; the
    # members wrapped one by one, their nearest-image separation still 2 cm.
    np.testing.assert_allclose(Nearest(across[4] - inside[4] + [0.1, 0.0, 0.0], HIGH - LOW), 0.0,
                               atol=1e-12)
    members = across[5]
    assert np.all(members >= LOW) and np.all(members < HIGH)
    assert np.linalg.norm(Nearest(members[1] - members[0], HIGH - LOW)) == \
        pytest.approx(0.02, rel=1e-12)


def test_a_large_periodic_box_with_few_spheres_keeps_a_small_grid():
    """Kratos' default bounding box (±10 m) around two 1 cm spheres: the grid
    takes larger cells (at most four per sphere, three per side at least)
    instead of 2000³ cells of the contact reach; the spheres still meet across
    the face x = ±10."""
    low, high = np.full(3, -10.0), np.full(3, 10.0)
    _, spheres = Spheres([(9.985, 0.0, 0.0), (-9.985, 0.0, 0.0)], [0.01, 0.01],
                         [(0.5, 0.0, 0.0), (-0.5, 0.0, 0.0)])  # 1 cm apart through x = ±10
    strategy = Dem().ExplicitSolverStrategy(spheres, None,
                                            PeriodicSettings(1e-5, 0.002, low=low, high=high))
    strategy.Initialize()
    assert strategy.GetMemoryReport()["search"] < 1e4  # bytes: no huge grid
    contacts = []
    Run(strategy, 2000, 1e-5, on_step=lambda t: contacts.append(strategy.NumberOfParticleContacts()))
    assert max(contacts) == 1
