"""Neighbour search (applications/dem/utilities/neighbour_search) and the
contact lists built on it.

- The cell grid finds exactly the pairs a brute-force loop finds (|x_i - x_j| <
  r_i + r_j + tolerance), and the particle-face candidates a brute-force
  distance to the faces finds.
- Contact histories survive new searches: searching every step or every 10
  steps with a tolerance covering the motion gives bitwise the same run.
- OpenMP: one and two threads give bitwise the same forces and positions.
"""
import numpy as np
import pytest

import tessera

from dem_test_utilities import Face, Material, Pile, Relate, Run, Settings, Sphere, SpheresPart


def Dem():
    from tessera import _dem
    return _dem


# The wall search bins the faces on the pair search's grid, whose cells are
# 2 r_max + the pair tolerance: a wall tolerance far above that (10 mm against
# cells of 10 mm) must find the same candidates as brute force.
@pytest.mark.parametrize("tolerance, wall_tolerance", [(0.002, 0.002), (0.0, 0.01)])
def test_cell_search_finds_the_brute_force_pairs_and_wall_candidates(tolerance, wall_tolerance):
    model, spheres, walls = Pile(700)
    dem = Dem()
    settings = Settings(1e-6, gravity=(0, 0, -9.81), tolerance=tolerance)
    settings.wall_search_tolerance = wall_tolerance
    strategy = dem.ExplicitSolverStrategy(spheres, walls, settings)
    strategy.Initialize()
    p = strategy.Particles
    x, r = p.position, p.radius
    d = np.linalg.norm(x[:, None, :] - x[None, :, :], axis=2)
    i, j = np.nonzero(np.triu(d < r[:, None] + r[None, :] + tolerance, k=1))
    first, second = strategy.ParticlePairCandidates()
    assert len(first) > 100
    np.testing.assert_array_equal(first, i)
    np.testing.assert_array_equal(second, j)
    # Walls: every face within r + tolerance of a centre (the distance to the
    # polygon itself, not to its box: the search's boxes are only a first cut).
    h = 0.15
    polygons = [[(-h, -h), (0, -h), (0, 0)], [(-h, -h), (0, 0), (-h, 0)],
                [(0, -h), (h, -h), (h, 0)], [(0, -h), (h, 0), (0, 0)],
                [(-h, 0), (h, 0), (h, h), (-h, h)]]  # Pile's floor, in the plane z = 0
    expected, in_boxes = [], 0
    for k in range(len(x)):
        for f, polygon in enumerate(polygons):
            corners = np.array(polygon)
            gap = np.maximum(np.maximum(corners.min(axis=0) - x[k, :2], x[k, :2] - corners.max(axis=0)), 0.0)
            in_boxes += float(np.dot(gap, gap) + x[k, 2] ** 2) < (r[k] + wall_tolerance) ** 2
            if SquaredDistanceToConvexPolygon(x[k], corners) <= (r[k] + wall_tolerance) ** 2:
                expected.append((k, f))
    particle, face = strategy.WallCandidates()
    assert len(expected) > 20
    assert in_boxes > len(expected)  # the boxes of the floor's triangles overlap
    assert list(zip(particle.tolist(), face.tolist())) == expected


def SquaredDistanceToConvexPolygon(point, corners):
    """Squared distance from `point` to a convex polygon in the plane z = 0
    (corners counter-clockwise, seen from +z)."""
    p = point[:2]
    edges = [(corners[a], corners[(a + 1) % len(corners)]) for a in range(len(corners))]
    inside = all((b - a)[0] * (p - a)[1] - (b - a)[1] * (p - a)[0] >= 0.0 for a, b in edges)
    in_plane = 0.0 if inside else min(
        float(np.sum((a + np.clip(np.dot(p - a, b - a) / np.dot(b - a, b - a), 0.0, 1.0) * (b - a) - p) ** 2))
        for a, b in edges)
    return in_plane + point[2] ** 2


def WarpedQuadContact(centre, radius, corners):
    """Whether a sphere touches the quadrilateral `corners` as the strategy's
    contact test defines it (thesis §3.3-3.4): the plane through the vertex
    mean normal to the diagonals' cross product; a facet contact where the
    centre projects inside the face (within the inside tolerance), else the
    closest point of the true edges."""
    normal = np.cross(corners[2] - corners[0], corners[3] - corners[1])
    normal /= np.linalg.norm(normal)
    plane_distance = float(np.dot(centre - corners.mean(axis=0), normal))
    if abs(plane_distance) > radius:
        return False
    projection = centre - plane_distance * normal
    edges = [(corners[a], corners[(a + 1) % 4]) for a in range(4)]
    if all(np.dot(np.cross(b - a, projection - a), normal) >= -1e-12 * np.dot(b - a, b - a)
           for a, b in edges):
        return True
    return min(np.linalg.norm(a + np.clip(np.dot(centre - a, b - a) / np.dot(b - a, b - a), 0.0, 1.0)
                              * (b - a) - centre) for a, b in edges) <= radius


def test_face_candidates_of_a_warped_quadrilateral_match_its_contact_test():
    # A saddle: opposite corners 4 mm above the others, so that the edges
    # leave the face's mean plane by 2 mm, as much as a sphere's overlap. The
    # search keeps a face where the sphere enlarged by the wall tolerance
    # touches it; the shortcut that drops a face whose edge line is out of
    # reach must allow for the edges that come closer to the sphere than the
    # plane does (dropping them would lose these contacts).
    length, lift, tolerance = 0.05, 0.004, 0.001
    corners = np.array([(0, 0, 0), (length, 0, lift), (length, length, 0), (0, length, lift)])
    rng = np.random.default_rng(5)
    count = 1500
    centres = rng.uniform([-0.012, -0.012, -0.008], [length + 0.012, length + 0.012, 0.012],
                          size=(count, 3))
    radii = rng.uniform(0.004, 0.006, size=count)
    model = tessera.Model()
    spheres = SpheresPart(model)
    walls = model.CreateModelPart("RigidFacePart")
    grain = Material(spheres, 1, density=2600.0, young=5e7, poisson=0.25)
    wall = Material(walls, 2, young=2e11, poisson=0.3)
    Relate(grain, grain, restitution=0.5, static_friction=0.3)
    Relate(grain, wall, restitution=0.5, static_friction=0.3)
    for k in range(count):
        Sphere(spheres, k + 1, centres[k], radii[k], grain)
    Face(walls, 1, [tuple(c) for c in corners], wall)
    settings = Settings(1e-6, tolerance=0.0)
    settings.wall_search_tolerance = tolerance
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
    strategy.Initialize()
    p = strategy.Particles
    x, r = p.position, p.radius
    expected = [k for k in range(count) if WarpedQuadContact(x[k], r[k] + tolerance, corners)]
    # Edge and vertex contacts off the facet's plane, not just facets.
    off_facet = [k for k in expected if not (0.0 <= x[k, 0] <= length and 0.0 <= x[k, 1] <= length)]
    assert len(expected) > 100 and len(off_facet) > 20
    particle, face = strategy.WallCandidates()
    assert particle.tolist() == expected


def RunPile(threads=1, search_frequency=1, tolerance=0.0, steps=100, count=600):
    model, spheres, walls = Pile(count, spacing=0.0125)
    previous = tessera.GetParallelThreads()
    tessera.SetParallelThreads(threads)
    try:
        strategy = Dem().ExplicitSolverStrategy(
            spheres, walls, Settings(2e-5, "Symplectic_Euler", (0, 0, -9.81), search_frequency,
                                     tolerance))
        strategy.Initialize()
        Run(strategy, steps, 2e-5)
    finally:
        tessera.SetParallelThreads(previous)
    p = strategy.Particles
    return strategy, p.force, p.torque, p.position, p.angular_velocity


def test_one_and_two_threads_give_bitwise_the_same_run():
    # 600 spheres: above the size where the loops go parallel (ParallelRows).
    one = RunPile(threads=1)
    two = RunPile(threads=2)
    assert one[0].NumberOfParticleContacts() > 50 and one[0].NumberOfWallContacts() > 2
    for a, b in zip(one[1:], two[1:]):
        assert np.array_equal(a, b)  # bitwise, not approximately


@pytest.mark.parametrize("count, block_rows", [(5000, 2048), (2000, 64)])
def test_blocked_force_sums_balance_and_do_not_depend_on_threads(count, block_rows):
    # Spheres at random places, so rows are in random spatial order: with
    # force blocks of 2048 rows or 64 most contacts join two blocks and reach
    # their second sphere through the cross slots (the default
    # DemSettings.force_block_rows, 8192, would make the 5000 rows one
    # block). No walls, no gravity: every contact adds +F and -F, so
    # the contact forces sum to zero up to round-off (a lost or doubled cross
    # contribution would not), and one and two threads must agree bitwise.
    runs = []
    for threads in (1, 2):
        model, spheres, _ = Pile(count, speed=0.1)
        previous = tessera.GetParallelThreads()
        tessera.SetParallelThreads(threads)
        try:
            settings = Settings(1e-6, "Symplectic_Euler", (0, 0, 0), 1, 0.0)
            settings.force_block_rows = block_rows
            strategy = Dem().ExplicitSolverStrategy(spheres, None, settings)
            strategy.Initialize()
            Run(strategy, 3, 1e-6)
        finally:
            tessera.SetParallelThreads(previous)
        runs.append(strategy)
    forces = [np.asarray(s.Particles.contact_force) for s in runs]
    torques = [np.asarray(s.Particles.torque) for s in runs]
    assert runs[0].NumberOfParticleContacts() > count // 2
    total = np.abs(forces[0]).sum()
    # ~2e4 terms of relative rounding 1e-16 each: 1e-12 of the total is generous.
    assert np.abs(forces[0].sum(axis=0)).max() < 1e-12 * total
    assert np.array_equal(forces[0], forces[1]) and np.array_equal(torques[0], torques[1])


def test_force_block_size_changes_only_the_order_of_the_sums():
    # The same pile with blocks of 2048 rows (one block) and of 32 rows (most
    # contacts through cross slots): only the order of the additions differs,
    # so after 100 steps the states agree to round-off, here 1e-9 of the
    # largest value (measured: 4e-17 of the largest force, 2e-17 of the
    # largest velocity, positions equal).
    runs = []
    for block_rows in (2048, 32):
        model, spheres, walls = Pile(600, spacing=0.0125)
        settings = Settings(2e-5, "Symplectic_Euler", (0, 0, -9.81), 1, 0.0)
        settings.force_block_rows = block_rows
        strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
        strategy.Initialize()
        Run(strategy, 100, 2e-5)
        runs.append(strategy)
    assert runs[0].NumberOfParticleContacts() > 50
    for name in ("position", "velocity", "angular_velocity", "force"):
        a, b = (np.asarray(getattr(s.Particles, name)) for s in runs)
        np.testing.assert_allclose(b, a, rtol=0, atol=1e-9 * np.abs(a).max())


def test_a_force_block_of_no_rows_is_refused():
    model, spheres, walls = Pile(10)
    settings = Settings(1e-6)
    settings.force_block_rows = 0
    with pytest.raises(RuntimeError, match="force_block_rows must be >= 1, got 0"):
        Dem().ExplicitSolverStrategy(spheres, walls, settings)


def test_contact_histories_survive_a_new_search():
    # Between searches a sphere moves at most ~4 m/s * 10 steps * 2e-5 s = 0.8 mm;
    # a 2 mm tolerance keeps every contact in the candidate list, so searching
    # every step or every 10 steps must give the same run bit for bit. Had the
    # tangential histories been lost at a search, the frictional forces would differ.
    every_step = RunPile(search_frequency=1, tolerance=0.002)
    every_tenth = RunPile(search_frequency=10, tolerance=0.002)
    assert every_step[0].NumberOfParticleContacts() > 50
    for a, b in zip(every_step[1:], every_tenth[1:]):
        assert np.array_equal(a, b)


def InitialPair(distance, radii, **options):
    model = tessera.Model()
    spheres = SpheresPart(model)
    grain = Material(spheres, 1, density=2600.0, young=5e7, poisson=0.25)
    Relate(grain, grain, restitution=0.5)
    Sphere(spheres, 1, (0.0, 0.0, 0.0), radii[0], grain)
    Sphere(spheres, 2, (distance, 0.0, 0.0), radii[1], grain)
    settings = Settings(1e-6)
    for key, value in options.items():
        setattr(settings, key, value)
    strategy = Dem().ExplicitSolverStrategy(spheres, None, settings)
    strategy.Initialize()
    return spheres, strategy


def test_clean_indentations_shrinks_overlapping_spheres_until_they_touch():
    # CleanIndentationsOption: both radii scaled by d / (r1 + r2).
    spheres, strategy = InitialPair(0.018, (0.01, 0.01), clean_indentations=True)
    np.testing.assert_allclose(strategy.Particles.radius, [0.009, 0.009], rtol=1e-15)
    assert strategy.NumberOfParticleContacts() == 0
    np.testing.assert_allclose(strategy.Particles.mass,
                               2600.0 * 4 / 3 * np.pi * 0.009**3 * np.ones(2), rtol=1e-14)
    strategy.WriteToNodes()
    assert spheres.GetNode(2).GetSolutionStepValue(tessera.RADIUS) == pytest.approx(0.009, rel=1e-15)


def test_a_sphere_embedded_in_another_is_removed_when_asked():
    # RemoveBallsInEmbeddedOption: d + r_small <= r_big.
    spheres, strategy = InitialPair(0.004, (0.01, 0.005), remove_embedded=True)
    assert len(strategy.Particles) == 1 and spheres.NodeIds() == [1]
    spheres, strategy = InitialPair(0.004, (0.01, 0.005))
    assert len(strategy.Particles) == 2


def test_memory_report_counts_the_lists_and_releases_the_search_scratch():
    # GetMemoryReport() gives the capacity of the strategy's arrays: at least
    # what the rows and lists hold (their element sizes below). The search's
    # scratch lists (the replaced pair and face lists, the match) stay for the
    # next search, about one set of lists, until the lists shrink to half of
    # their longest: that search frees them.
    # Rows of their own here (test_dem_shared_rows.py: shared with the nodes).
    model, spheres, walls = Pile(700)
    settings = Settings(1e-6, gravity=(0, 0, -9.81))
    settings.share_rows_with_nodes = False
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
    strategy.Initialize()
    for step in range(1, 4):
        strategy.SolveSolutionStep(step * 1e-6)
    report = strategy.GetMemoryReport()
    n = len(strategy.Particles.radius)
    # 10 vectors of 3 doubles, radius, mass, inertia, material, node, element
    # id, fixity byte, glued and cluster numbers (no elastic forces: the
    # model part does not declare ELASTIC_FORCES).
    assert len(strategy.Particles.elastic_force) == 0
    assert report["rows"] >= n * (10 * 24 + 3 * 8 + 4 + 4 + 8 + 1 + 4 + 4)
    # Per candidate: two rows, the spring (3 doubles), stiffness, normal
    # elastic force, energy, sliding and active bytes.
    candidates = strategy.NumberOfParticlePairCandidates()
    assert candidates > 100
    assert report["pair_contacts"] >= candidates * (2 * 4 + 24 + 3 * 8 + 2)
    assert report["wall_contacts"] >= len(strategy.WallCandidates()[0]) * (2 * 4 + 24)
    assert report["search"] > 0
    walls = len(strategy.WallCandidates()[0])
    assert 0 < report["scratch"] <= 2 * (candidates * (2 * 4 + 4) + walls * 2 * 4)
    parts = ("rows", "pair_contacts", "wall_contacts", "search", "scratch", "other")
    assert report["total"] == sum(report[k] for k in parts)
    # Spread out ten times: no candidates after the next search, which frees
    # the scratch.
    for node in spheres.Nodes:
        node.X, node.Y, node.Z = 10 * node.X, 10 * node.Y, 10 * node.Z
    strategy.ReadFromNodes()
    strategy.SolveSolutionStep(4e-6)
    assert strategy.NumberOfParticlePairCandidates() < candidates / 2
    assert strategy.GetMemoryReport()["scratch"] == 0
