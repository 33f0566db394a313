"""The Area Distributed Method's area and weights of a warped quadrilateral
(tessera.coupling.CircleQuadrilateralAreaShare, walls/circle_face_intersection.h)
against the composition it replaces (CircleQuadrilateralIntersection: four
sub-triangles about the node average, thesis Fig. 4.12, each cut by App. C).
The short cut places the sphere's circle against each sub-triangle in that
sub-triangle's own plane and composes only where the circle crosses an edge
line; by construction it performs the composition's operations, so the two
agree to round-off: 1e-12 relative in the area, 1e-12 in the weights (which
sum to one). Sampled: random quadrilaterals warped by 1e-9 to 0.2 of their
size in random placements, circles from 1e-3 to 0.6 of the size, the sphere
anywhere over the face and beyond it, and pointedly next to the edges, the
diagonals to the centre node, the centre node and the corners."""
import math

import numpy as np
import pytest


from dem_test_utilities import Settings, SphereAndWalls

SIGNS = np.array([(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)])


def _rotation(rng):
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q = q * np.sign(np.diag(r))
    return q if np.linalg.det(q) > 0 else -q


def _warped_quadrilateral(rng, size, warp):
    """A convex quadrilateral of about `size` (its corners moved up to 0.3 of
    the half-size in its plane) whose corners leave the plane by ±warp·size
    (alternating, the warp of a twisted face), rotated and moved at random:
    the four corners and the mean plane's unit normal."""
    uv = 0.5 * size * (SIGNS + rng.uniform(-0.3, 0.3, (4, 2)))
    w = warp * size * np.array([1.0, -1.0, 1.0, -1.0]) * rng.uniform(0.5, 1.0)
    local = np.column_stack([uv, w])
    Q, origin = _rotation(rng), rng.uniform(-2.0, 2.0, 3) * size
    return [origin + Q @ p for p in local], Q[:, 2]


def _point_of_interest(rng, v, a):
    """Where to put the circle's centre: anywhere over the face or a little
    beyond, or within 2a of an edge, a diagonal to the centre node, the
    centre node or a corner."""
    v = np.asarray(v)
    x_cm = v.mean(axis=0)
    kind = rng.integers(0, 5)
    k = rng.integers(0, 4)
    if kind == 0:
        xi, eta = rng.uniform(-1.2, 1.2, 2)
        N = 0.25 * (1 + SIGNS[:, 0] * xi) * (1 + SIGNS[:, 1] * eta)
        base = N @ v
    elif kind == 1:  # on an edge
        base = v[k] + rng.uniform(0, 1) * (v[(k + 1) % 4] - v[k])
    elif kind == 2:  # on a diagonal to the centre node (a sub-triangles' common edge)
        base = v[k] + rng.uniform(0, 1) * (x_cm - v[k])
    elif kind == 3:
        base = x_cm
    else:
        base = v[k]
    offset = rng.normal(size=3)
    return base + rng.uniform(0.0, 2.0) * a * offset / np.linalg.norm(offset)


def test_the_short_cut_equals_the_composition_on_warped_quadrilaterals():
    import tessera.coupling as coupling
    rng = np.random.default_rng(38)
    closed_form, partly_composed, deferred, worst_area, worst_weight = 0, 0, 0, 0.0, 0.0
    for _ in range(6000):
        size = 10.0 ** rng.uniform(-2.0, 1.0)
        warp = 10.0 ** rng.uniform(-9.0, math.log10(0.2))
        v, normal = _warped_quadrilateral(rng, size, warp)
        a = size * 10.0 ** rng.uniform(-3.0, math.log10(0.6))
        d = rng.uniform(-1.0, 1.0) * 3.0 * a
        centre = _point_of_interest(rng, v, a) + d * normal
        radius = math.hypot(a, d)
        full = coupling.CircleQuadrilateralIntersection(centre, radius, *v)
        quick = coupling.CircleQuadrilateralAreaShare(centre, radius, *v)
        if quick is None:
            # Only where the composition's own fallbacks take over.
            assert full["area"] == 0.0 or not full["inverse_map_converged"]
            deferred += 1
            continue
        assert full["area"] > 0.0 and full["inverse_map_converged"]
        assert quick["area"] == pytest.approx(full["area"], rel=1e-12, abs=0.0)
        np.testing.assert_allclose(quick["weights"], full["weights"], rtol=0.0, atol=1e-12)
        worst_area = max(worst_area, abs(quick["area"] / full["area"] - 1.0))
        worst_weight = max(worst_weight, np.max(np.abs(np.subtract(quick["weights"], full["weights"]))))
        if quick["sub_triangles_composed"] == 0:
            closed_form += 1
        else:
            partly_composed += 1
    # Both paths ran, and so did the fallback (a sphere short of the face):
    # about 500, 3500 and 2000 of the 6000 with this seed.
    assert closed_form > 300 and partly_composed > 1000 and deferred > 50, \
        (closed_form, partly_composed, deferred)
    print(f"closed form {closed_form}, partly composed {partly_composed}, deferred {deferred}; "
          f"worst relative area {worst_area:.2e}, worst weight {worst_weight:.2e}")


def test_a_sphere_on_a_warped_face_takes_the_short_cut_to_the_same_nodal_forces():
    """Through the DEM strategy (walls/area_distribution.cpp): a sphere pressed
    into a warped RigidFace3D4N (warp 1e-4 of its size, well above the flat
    face's closed form's 1e-12), its circle inside one sub-triangle, and
    across a diagonal to the centre node: the nodal forces are the sphere's
    force spread with the composition's weights (1e-12 of the force)."""
    import tessera.coupling
    from tessera import _dem
    corners = [(-1.0, -0.8, 1e-4), (1.2, -1.0, -1e-4), (0.9, 1.1, 1e-4), (-1.1, 0.9, -1e-4)]
    radius = 0.1
    # Inside the sub-triangle on the edge (1.2, -1.0)-(0.9, 1.1); across its
    # diagonal to (0.9, 1.1) (circle radius 0.0199).
    for xy, cases in (((0.45, -0.05), ["apart", "a", "apart", "apart"]),
                      ((0.27, 0.355), ["apart", "b", "b", "apart"])):
        centre = (xy[0], xy[1], radius - 2e-3)
        spheres, walls, wall = SphereAndWalls(centre, radius)
        for k, xyz in enumerate(corners):
            walls.CreateNewNode(k + 1, *xyz)
        walls.CreateNewCondition("RigidFace3D4N", 1, [1, 2, 3, 4], wall)
        settings = Settings(1e-6)
        settings.wall_force_transfer = "area_distributed"
        strategy = _dem.ExplicitSolverStrategy(spheres, walls, settings)
        strategy.Initialize()
        strategy.WriteToNodes()
        force = np.array(strategy.Particles.force[0])
        assert np.linalg.norm(force) > 0.0
        nodal = np.array([walls.GetNode(k + 1).GetSolutionStepValue(tessera.CONTACT_FORCES)
                          for k in range(4)])
        composed = tessera.coupling.CircleQuadrilateralIntersection(centre, radius, *corners)
        assert [s["case"] for s in composed["sub_triangles"]] == cases
        expected = np.outer(composed["weights"], -force)
        assert np.allclose(nodal, expected, rtol=0.0, atol=1e-12 * np.linalg.norm(force))


def test_a_face_moved_between_searches_is_cut_where_it_now_is():
    """The walls keep a quadrilateral's sub-triangles (RigidFaceStorage::
    sub_triangles) for the faces in some sphere's reach, from the search on,
    and recompute them where the face moves: a face moved after the search
    (its nodes shifted in its plane by 0.01-0.02 and their warp reversed by a
    script, no search in between) gives the nodal forces of the composition
    at its new corners (1e-12 of the force, as above), for a circle inside a
    sub-triangle and one across a diagonal; sub-triangles kept from before the
    move would place the circle against the old centre node and planes."""
    import tessera.coupling
    from tessera import _dem
    corners = [(-1.0, -0.8, 1e-4), (1.2, -1.0, -1e-4), (0.9, 1.1, 1e-4), (-1.1, 0.9, -1e-4)]
    moved = [(x + 0.01, y - 0.02, -z) for x, y, z in corners]
    radius, dt = 0.1, 1e-6
    for xy in ((0.45, -0.05), (0.27, 0.355)):
        centre = (xy[0], xy[1], radius - 2e-3)
        spheres, walls, wall = SphereAndWalls(centre, radius)
        for k, xyz in enumerate(corners):
            walls.CreateNewNode(k + 1, *xyz)
        walls.CreateNewCondition("RigidFace3D4N", 1, [1, 2, 3, 4], wall)
        settings = Settings(dt, search_frequency=1000, tolerance=1e-3)
        settings.wall_force_transfer = "area_distributed"
        strategy = _dem.ExplicitSolverStrategy(spheres, walls, settings)
        strategy.Initialize()
        for k, xyz in enumerate(moved):
            node = walls.GetNode(k + 1)
            node.X, node.Y, node.Z = xyz
        strategy.SolveSolutionStep(dt)
        strategy.WriteToNodes()
        force = np.array(strategy.Particles.force[0])
        position = tuple(strategy.Particles.position[0])
        assert np.linalg.norm(force) > 0.0
        nodal = np.array([walls.GetNode(k + 1).GetSolutionStepValue(tessera.CONTACT_FORCES)
                          for k in range(4)])
        composed = tessera.coupling.CircleQuadrilateralIntersection(position, radius, *moved)
        expected = np.outer(composed["weights"], -force)
        assert np.allclose(nodal, expected, rtol=0.0, atol=1e-12 * np.linalg.norm(force))
