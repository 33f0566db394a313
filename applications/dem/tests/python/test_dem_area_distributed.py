"""The Area Distributed Method for wall forces (walls/area_distribution.h,
thesis §4.3.3 and App. B), against its definition: a sphere pressed into a
flat square made of two triangles, its contact circle across their shared
diagonal. The Distance Hierarchy keeps one contact; ADM makes the other
face its slave, A_T = A_1 + A_2 = A_m, so the force on the sphere is the
direct one, and it reaches the four nodes in the faces' area shares at
their intersection centroids (B.2), where direct interpolation loads only
the master face's three."""
import numpy as np
import pytest

import tessera

from dem_test_utilities import Settings, SphereAndWalls, SpheresPart

CORNERS = [(-1.0, -1.0, 0.0), (1.0, -1.0, 0.0), (1.0, 1.0, 0.0), (-1.0, 1.0, 0.0)]
TRIANGLES = ([1, 2, 3], [1, 3, 4])  # the diagonal (-1, -1) - (1, 1) is shared
CENTRE, RADIUS = (0.008, -0.002, 0.1 - 2e-3), 0.1  # 0.0071 from the diagonal; a = 0.0199




def Pressed(transfer):
    from tessera import _dem
    spheres, walls, wall = SphereAndWalls(CENTRE, RADIUS, velocity=(0.3, 0.1, -0.2))
    for k, xyz in enumerate(CORNERS):
        walls.CreateNewNode(k + 1, *xyz)
    for k, nodes in enumerate(TRIANGLES):
        walls.CreateNewCondition("RigidFace3D3N", k + 1, nodes, wall)
    settings = Settings(1e-6)
    settings.wall_force_transfer = transfer
    strategy = _dem.ExplicitSolverStrategy(spheres, walls, settings)
    strategy.Initialize()
    strategy.WriteToNodes()
    force = np.array(strategy.Particles.force[0])
    nodal = np.array([walls.GetNode(k + 1).GetSolutionStepValue(tessera.CONTACT_FORCES)
                      for k in range(4)])
    return strategy, force, nodal


def test_coplanar_faces_share_the_force_by_area_at_their_centroids():
    import tessera.coupling  # the App. C functions, bound for Python there
    _, direct_force, direct_nodal = Pressed("direct")
    strategy, force, nodal = Pressed("area_distributed")
    assert strategy.NumberOfWallContacts() == 1
    # One master, whose faces hold the whole area: the force is the direct one.
    assert np.allclose(force, direct_force, rtol=1e-13, atol=0.0)
    assert np.linalg.norm(force) > 0.0
    # Every node loaded; the sum is minus the force on the sphere.
    assert np.count_nonzero(np.linalg.norm(nodal, axis=1)) == 4
    assert np.count_nonzero(np.linalg.norm(direct_nodal, axis=1)) == 3
    assert np.allclose(nodal.sum(axis=0), -force, rtol=0.0, atol=1e-13 * np.linalg.norm(force))
    # B.2 by hand: each triangle's share A_e / A_T at its centroid's weights.
    expected = np.zeros((4, 3))
    shares = [tessera.coupling.CircleTriangleIntersection(CENTRE, RADIUS, *[CORNERS[i - 1] for i in tri])
              for tri in TRIANGLES]
    total = sum(s["area"] for s in shares)
    assert total == pytest.approx(np.pi * (2 * RADIUS * 2e-3 - 4e-6), rel=1e-12)  # a² = δ(2R - δ)
    for tri, share in zip(TRIANGLES, shares):
        for node, weight in zip(tri, share["weights"]):
            expected[node - 1] += -force * share["area"] / total * weight
    assert np.allclose(nodal, expected, rtol=0.0, atol=1e-13 * np.linalg.norm(force))


def test_the_transfer_is_a_named_choice():
    from tessera import _dem
    settings = _dem.DemSettings()
    assert settings.wall_force_transfer == "direct"
    with pytest.raises(tessera.Error, match="area_distributed"):
        settings.wall_force_transfer = "areas"


@pytest.mark.parametrize("quad", [False, True])
def test_a_circle_inside_one_face_takes_the_short_cut_to_the_same_shares(quad):
    """A sphere on one face, its circle away from the edges (the common case,
    which skips App. C's composition): its force reaches the face's nodes
    with the shape functions at the circle's centre (barycentric; bilinear
    for a quadrilateral, here a skew one), as the composition gives them
    (tessera.coupling.CircleQuadrilateralIntersection); 1e-12."""
    import tessera.coupling
    from tessera import _dem
    corners = [(-1.0, -0.8, 0.0), (1.2, -1.0, 0.0), (0.9, 1.1, 0.0)] + ([(-1.1, 0.9, 0.0)] if quad else [])
    centre = (0.1, 0.05, 0.1 - 2e-3)
    spheres, walls, wall = SphereAndWalls(centre, RADIUS)
    for k, xyz in enumerate(corners):
        walls.CreateNewNode(k + 1, *xyz)
    walls.CreateNewCondition("RigidFace3D4N" if quad else "RigidFace3D3N", 1,
                             list(range(1, len(corners) + 1)), wall)
    settings = Settings(1e-6)
    settings.wall_force_transfer = "area_distributed"
    strategy = _dem.ExplicitSolverStrategy(spheres, walls, settings)
    strategy.Initialize()
    strategy.WriteToNodes()
    force = np.array(strategy.Particles.force[0])
    nodal = np.array([walls.GetNode(k + 1).GetSolutionStepValue(tessera.CONTACT_FORCES)
                      for k in range(len(corners))])
    composed = (tessera.coupling.CircleQuadrilateralIntersection if quad
                else tessera.coupling.CircleTriangleIntersection)(centre, RADIUS, *corners)
    expected = np.outer(composed["weights"][:len(corners)], -force)
    assert np.allclose(nodal, expected, rtol=0.0, atol=1e-12 * np.linalg.norm(force))


def Cornered(transfer, area_distributed_walls):
    """A sphere pressed into the corner of two perpendicular square walls, the
    floor z = 0 (sub model part Floor) and the side x = 0 (Side), with
    overlaps 2e-3 and 1e-3: the strategy's force on the sphere, and the two
    overlaps' direct contact forces (each wall alone)."""
    from tessera import _dem

    def build(parts, adm_parts):
        spheres, walls, wall = SphereAndWalls((RADIUS - 1e-3, 0.3, RADIUS - 2e-3), RADIUS)
        squares = {"Floor": [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)],
                   "Side": [(0, 0, 0), (0, 1, 0), (0, 1, 1), (0, 0, 1)]}
        for k, name in enumerate(parts):
            part = walls.CreateSubModelPart(name)
            for j, xyz in enumerate(squares[name]):
                walls.CreateNewNode(4 * k + j + 1, *xyz)
            part.AddNodes([4 * k + j + 1 for j in range(4)])
            walls.CreateNewCondition("RigidFace3D4N", k + 1, [4 * k + j + 1 for j in range(4)], wall)
            part.AddConditions([k + 1])
        settings = Settings(1e-6)
        settings.wall_force_transfer = transfer
        settings.area_distributed_walls = adm_parts
        strategy = _dem.ExplicitSolverStrategy(spheres, walls, settings)
        strategy.Initialize()
        return strategy, np.array(strategy.Particles.force[0])

    strategy, force = build(["Floor", "Side"], area_distributed_walls)
    alone = [build([name], [])[1] for name in ("Floor", "Side")]
    return strategy, force, alone


def test_rigid_walls_outside_adm_keep_whole_contacts_in_a_corner():
    """ADM on the floor only (a coupled skin) and a rigid side wall: both
    contacts stay whole, the force is the sum of each wall's own (1e-13
    relative: the same arithmetic in another order). ADM on both walls (the
    deck-wide key) shares A_T between the two: each normal force is scaled
    by its own area's share, A_m/A_T < 1, as App. B's B.1 writes."""
    strategy, force, (floor, side) = Cornered("direct", ["RigidFacePart.Floor"])
    assert strategy.NumberOfWallContacts() == 2
    assert floor[2] > 0.0 and side[0] > 0.0
    assert np.allclose(force, floor + side, rtol=1e-13, atol=0.0)
    # The same with the part's name below RigidFacePart.
    assert np.array_equal(Cornered("direct", ["Floor"])[1], force)
    _, shared, _ = Cornered("area_distributed", [])
    # a² = δ(2R - δ): the floor's circle is about twice the side's.
    a_floor, a_side = 2e-3 * (2 * RADIUS - 2e-3), 1e-3 * (2 * RADIUS - 1e-3)
    assert shared[2] == pytest.approx(floor[2] * a_floor / (a_floor + a_side), rel=1e-12)
    assert shared[0] == pytest.approx(side[0] * a_side / (a_floor + a_side), rel=1e-12)


def test_an_unknown_area_distributed_wall_part_names_the_parts():
    from tessera import _dem
    model = tessera.Model()
    spheres = SpheresPart(model)
    walls = model.CreateModelPart("RigidFacePart")
    walls.CreateSubModelPart("Floor")
    settings = Settings(1e-6)
    settings.area_distributed_walls = ["Flor"]
    strategy = _dem.ExplicitSolverStrategy(spheres, walls, settings)
    with pytest.raises(tessera.Error, match="area_distributed_walls names 'Flor'.*RigidFacePart.Floor"):
        strategy.Initialize()


def test_a_masters_overlap_is_its_faces_area_weighted_mean_plane():
    """A sphere over a shallow convex ridge (two triangles meeting at 4°
    along y, the sphere 0.5 mm off the ridge): the Distance Hierarchy keeps
    one contact, both faces are its slaves, and the force is the Hertz force
    of the mean surface (MasterSurface): the overlap R - Σ (A_e/A_m) d_e with
    d_e the centre's distance from face e's plane, along the normalised
    Σ (A_e/A_m) n_e. Checked against one flat triangle placed at that plane
    (the same contact law, direct interpolation), 1e-12."""
    import tessera.coupling
    from tessera import _dem
    slope = np.tan(np.radians(2.0))
    left = [(-1.0, -1.0, -slope), (0.0, -1.0, 0.0), (0.0, 1.0, 0.0), (-1.0, 1.0, -slope)]
    corners = left + [(1.0, -1.0, -slope), (1.0, 1.0, -slope)]
    triangles = ([1, 2, 3], [3, 4, 1], [2, 5, 6], [6, 3, 2])  # left pair, right pair
    centre = np.array([5e-4, 0.0, RADIUS - 2e-3])

    def pressed(points, faces, transfer):
        spheres, walls, wall = SphereAndWalls(tuple(centre), RADIUS)
        for k, xyz in enumerate(points):
            walls.CreateNewNode(k + 1, *xyz)
        for k, nodes in enumerate(faces):
            walls.CreateNewCondition("RigidFace3D3N", k + 1, list(nodes), wall)
        settings = Settings(1e-6)
        settings.wall_force_transfer = transfer
        strategy = _dem.ExplicitSolverStrategy(spheres, walls, settings)
        strategy.Initialize()
        return strategy, np.array(strategy.Particles.force[0])

    strategy, force = pressed(corners, triangles, "area_distributed")
    assert strategy.NumberOfWallContacts() == 1
    # The mean surface by hand: areas of the circle in each triangle, plane
    # distances and normals (towards the sphere) of the two sides.
    points = np.array(corners)
    distance, normal, total = 0.0, np.zeros(3), 0.0
    for tri in triangles:
        a, b, c = points[np.array(tri) - 1]
        n = np.cross(b - a, c - a)
        n /= np.linalg.norm(n)
        n = n if np.dot(centre - a, n) > 0 else -n
        area = tessera.coupling.CircleTriangleIntersection(tuple(centre), RADIUS, *map(tuple, (a, b, c)))["area"]
        distance += area * np.dot(centre - a, n)
        normal += area * n
        total += area
    distance /= total
    normal /= np.linalg.norm(normal)
    # Both sides carry a real share, and their planes' distances differ.
    assert 0.0 < distance < RADIUS
    # One flat triangle at the mean plane, large enough to hold the circle.
    u = np.cross(normal, (0.0, 1.0, 0.0))
    u /= np.linalg.norm(u)
    v = np.cross(normal, u)
    foot = centre - distance * normal
    flat = [tuple(foot + 2.0 * (np.cos(t) * u + np.sin(t) * v)) for t in (0.0, 2.1, 4.2)]
    _, expected = pressed(flat, ([1, 2, 3],), "direct")
    assert np.linalg.norm(expected) > 0.0
    assert np.allclose(force, expected, rtol=1e-12, atol=0.0)
