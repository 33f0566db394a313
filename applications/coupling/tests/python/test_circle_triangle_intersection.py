"""The sphere-face intersections of the Area Distributed Method (thesis App. C):
tessera.coupling.CircleTriangleIntersection and CircleQuadrilateralIntersection
against an independent exact computation.

The reference is Green's theorem on the boundary of circle & triangle, traced
directly: the pieces of the triangle's edges inside the circle and the arcs of
the circle inside the triangle, each integrated in closed form for the area
(1/2 of x dy - y dx) and the first moments (x^2/2 dy, -y^2/2 dx). It shares
nothing with the case composition of App. C (no cases, no segments, no
spikes). The configurations are built in 2D (circle centre at the origin) and
placed in 3D by a rotation and a translation, the sphere at a distance d from
the plane with R = sqrt(a^2 + d^2)."""
import math

import numpy as np
import pytest

import tessera.coupling as coupling

TOL = 1e-10


# ---------------------------------------------------------------- reference
def _segment_terms(p, q):
    """Area and first moments of a straight boundary piece p -> q (Green)."""
    dx, dy = q[0] - p[0], q[1] - p[1]
    area = 0.5 * (p[0] * q[1] - p[1] * q[0])
    mx = 0.5 * dy * (p[0] ** 2 + p[0] * dx + dx * dx / 3.0)
    my = -0.5 * dx * (p[1] ** 2 + p[1] * dy + dy * dy / 3.0)
    return np.array([area, mx, my])


def _arc_terms(a, t1, t2):
    """Area and first moments of the arc of radius a about the origin from
    angle t1 to t2 (counter-clockwise, t2 >= t1)."""
    area = 0.5 * a * a * (t2 - t1)
    fx = lambda t: math.sin(t) - math.sin(t) ** 3 / 3.0  # noqa: E731  (integral of cos^3)
    fy = lambda t: -math.cos(t) + math.cos(t) ** 3 / 3.0  # noqa: E731  (integral of sin^3)
    return np.array([area, 0.5 * a**3 * (fx(t2) - fx(t1)), 0.5 * a**3 * (fy(t2) - fy(t1))])


def _margin(P, x):
    """Distance of x inside the triangle P (counter-clockwise): > 0 inside."""
    return min(
        (
            (P[(k + 1) % 3][0] - P[k][0]) * (x[1] - P[k][1])
            - (P[(k + 1) % 3][1] - P[k][1]) * (x[0] - P[k][0])
        )
        / math.dist(P[k], P[(k + 1) % 3])
        for k in range(3)
    )


def reference_2d(P, a):
    """Area and centroid of (disc of radius a at the origin) & (triangle P,
    counter-clockwise, 3x2), by Green's theorem on the traced boundary."""
    P = [np.asarray(p, dtype=float) for p in P]
    if (P[1][0] - P[0][0]) * (P[2][1] - P[0][1]) - (P[1][1] - P[0][1]) * (P[2][0] - P[0][0]) < 0.0:
        P = P[::-1]
    total = np.zeros(3)
    angles = []
    for k in range(3):
        A, B = P[k], P[(k + 1) % 3]
        d = B - A
        # the line's meeting points: foot of the perpendicular -/+ the half
        # chord (exactly none for an exactly tangent line)
        length = math.sqrt(d @ d)
        s = abs(A[0] * d[1] - A[1] * d[0]) / length
        if s >= a:
            continue
        foot, half = -(A @ d) / (d @ d), math.sqrt((a - s) * (a + s)) / length
        t0, t1 = foot - half, foot + half
        lo, hi = max(t0, 0.0), min(t1, 1.0)
        if hi > lo:
            total += _segment_terms(A + lo * d, A + hi * d)
            for t in (t0, t1):
                if 0.0 <= t <= 1.0:
                    x = A + t * d
                    angles.append(math.atan2(x[1], x[0]))
    if not angles:
        probe = a * np.array([math.cos(0.123), math.sin(0.123)])
        if _margin(P, probe) > 0.0:
            total += _arc_terms(a, 0.0, 2.0 * math.pi)
    else:
        angles.sort()
        for i, t1 in enumerate(angles):
            t2 = angles[i + 1] if i + 1 < len(angles) else angles[0] + 2.0 * math.pi
            mid = 0.5 * (t1 + t2)
            # An arc between consecutive meeting points is wholly inside the
            # closed triangle or wholly outside; its midpoint decides, on the
            # boundary (a tangent edge, or a cap of height ~1e-16) counting
            # as inside.
            if t2 > t1 and _margin(P, a * np.array([math.cos(mid), math.sin(mid)])) >= -1e-14 * a:
                total += _arc_terms(a, t1, t2)
    area = total[0]
    centroid = total[1:] / area if area > 0.0 else None
    return area, centroid


# ---------------------------------------------------------------- placing in 3D
def _rotation(rng):
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q = q * np.sign(np.diag(r))
    if np.linalg.det(q) < 0.0:
        q[:, 0] = -q[:, 0]
    return q


class Placement:
    """x(u, v) = origin + u e1 + v e2 in 3D, with e1, e2, n = columns of Q."""

    def __init__(self, rng=None, origin=None, Q=None):
        rng = rng if rng is not None else np.random.default_rng(7)
        self.Q = Q if Q is not None else _rotation(rng)
        self.origin = origin if origin is not None else rng.uniform(-3.0, 3.0, 3)

    def point(self, uv):
        return self.origin + uv[0] * self.Q[:, 0] + uv[1] * self.Q[:, 1]

    def sphere(self, a, d):
        """A sphere over the origin of the plane whose circle has radius a."""
        return self.origin + d * self.Q[:, 2], math.sqrt(a * a + d * d)


def _check_against_reference(P, a, d, placement, tol=TOL):
    centre, radius = placement.sphere(a, d)
    v = [placement.point(p) for p in P]
    result = coupling.CircleTriangleIntersection(centre, radius, *v)
    area, centroid_2d = reference_2d(P, a)
    assert result["area"] == pytest.approx(area, abs=tol)
    if area > 1e-6 * a * a:  # below, neither centroid is resolved to 1e-10
        np.testing.assert_allclose(result["centroid"], placement.point(centroid_2d), rtol=0, atol=tol)
    return result, area


# ---------------------------------------------------------------- the eight cases
# (label, triangle in the circle's plane (circle: origin, radius 1), expected
# (vertices inside, edges crossed)); the primed ones have C_pi outside the
# triangle, where the segments are major parts of the circle.
CASES = [
    ("a", [(-10, -10), (10, -10), (0, 10)], (0, 0)),
    ("b", [(-10, -0.5), (10, -0.5), (0, 10)], (0, 1)),
    ("b", [(-10, 0.3), (10, 0.3), (0, 10)], (0, 1)),  # C_pi outside: major segment
    ("c", [(-10, -0.8), (0.8, -0.8), (0.8, 10)], (0, 2)),
    ("c", [(-10, 0.1), (1.5, 0.1), (-1, 1.2)], (0, 2)),  # C_pi outside
    ("d", [(1.6, 0.0), (-0.8, 1.6 * math.sqrt(3) / 2), (-0.8, -1.6 * math.sqrt(3) / 2)], (0, 3)),
    ("e", [(0, 0), (3, 0), (0, 3)], (1, 2)),
    ("e", [(0.2, 0.2), (3, 0.2), (0.2, 3)], (1, 2)),  # C_pi outside
    ("f", [(0, -0.5), (2, 0.6), (-2, 0.6)], (1, 3)),
    ("f", [(0.1, 0.3), (2, 0.6), (-2, 0.9)], (1, 3)),  # C_pi outside
    ("g", [(-0.5, -0.5), (0.5, -0.5), (0, 2)], (2, 2)),
    ("g", [(0.1, 0.2), (0.6, 0.2), (0.3, 3)], (2, 2)),  # C_pi outside
    ("h", [(-0.3, -0.2), (0.5, -0.1), (0.1, 0.6)], (3, 0)),
    ("apart", [(2, 2), (4, 2), (3, 4)], (0, 0)),
]


@pytest.mark.parametrize("label, P, counts", CASES)
@pytest.mark.parametrize("a, d", [(1.0, 0.3), (0.05, -0.01), (250.0, 40.0)])
def test_each_case_against_green(label, P, counts, a, d):
    """Each case of Fig. C.4, at three scales (the triangle scaled with the
    circle), on both sides of the plane: area and centroid equal the traced
    boundary's to 1e-10 (relative to a^2 and a)."""
    P = [(a * x, a * y) for x, y in P]
    placement = Placement(np.random.default_rng(11))
    result, area = _check_against_reference(P, a, d, placement, tol=TOL * max(a, a * a))
    assert result["case"] == label
    assert (result["vertices_inside"], result["edges_crossed"]) == counts
    assert result["circle_radius"] == pytest.approx(a, rel=1e-12)
    np.testing.assert_allclose(result["circle_centre"], placement.origin, rtol=0, atol=1e-12 * max(a, 3))
    if label == "apart":
        assert area == 0.0 and result["area"] == 0.0


def test_closed_form_values():
    """Values known in closed form: the full circle, a quarter circle about a
    right-angled vertex at C_pi (centroid 4a/(3 pi) along both legs), half a
    circle with C_pi on an edge, and the full triangle."""
    pl = Placement(np.random.default_rng(3))
    centre, radius = pl.sphere(1.0, 0.4)
    r = coupling.CircleTriangleIntersection(centre, radius, *[pl.point(p) for p in [(-9, -9), (9, -9), (0, 9)]])
    assert r["area"] == pytest.approx(math.pi, abs=1e-13)
    np.testing.assert_allclose(r["centroid"], pl.origin, atol=1e-13)
    r = coupling.CircleTriangleIntersection(centre, radius, *[pl.point(p) for p in [(0, 0), (5, 0), (0, 5)]])
    assert r["case"] == "e"
    assert r["area"] == pytest.approx(math.pi / 4, abs=1e-13)
    g = 4.0 / (3.0 * math.pi)
    np.testing.assert_allclose(r["centroid"], pl.point((g, g)), atol=1e-13)
    # C_pi on the edge y = 0 (the edge's ends outside): half the circle.
    r = coupling.CircleTriangleIntersection(centre, radius, *[pl.point(p) for p in [(-5, 0), (5, 0), (0, 9)]])
    assert r["case"] == "b"
    assert r["area"] == pytest.approx(math.pi / 2, abs=1e-13)
    np.testing.assert_allclose(r["centroid"], pl.point((0, g)), atol=1e-13)
    P = [(-0.3, -0.2), (0.5, -0.1), (0.1, 0.6)]
    r = coupling.CircleTriangleIntersection(centre, radius, *[pl.point(p) for p in P])
    assert r["area"] == pytest.approx(0.5 * abs(np.cross(np.subtract(P[1], P[0]), np.subtract(P[2], P[0]))), abs=1e-14)
    np.testing.assert_allclose(r["centroid"], pl.point(np.mean(P, axis=0)), atol=1e-14)


# ---------------------------------------------------------------- fans
def _fan(rng, n, radii, centre_uv=(0.0, 0.0)):
    # near-uniform angles: no gap wider than pi (the fan surrounds its centre)
    angles = np.linspace(0.0, 2.0 * math.pi, n, endpoint=False) + rng.uniform(-0.3, 0.3, n)
    return [np.asarray(centre_uv) + r * np.array([math.cos(t), math.sin(t)]) for r, t in zip(radii, angles)]


def _sum_over(triangles, centre, radius, pl):
    area, moment, cases = 0.0, np.zeros(3), set()
    for tri in triangles:
        r = coupling.CircleTriangleIntersection(centre, radius, *[pl.point(p) for p in tri])
        area += r["area"]
        moment += r["area"] * np.asarray(r["centroid"])
        cases.add(r["case"])
    return area, moment / area, cases


def test_fan_of_seven_triangles_covers_the_circle():
    """Seven triangles around a point O, with a second ring out to a polygon
    that contains the circle; the circle's centre is off O and the circle is
    larger than the inner triangles. The areas sum to pi a^2 and the
    area-weighted centroids to C_pi, to 1e-10."""
    rng = np.random.default_rng(2024)
    pl = Placement(rng)
    O = np.array([0.15, -0.1])
    inner = _fan(rng, 7, rng.uniform(0.3, 0.6, 7), O)
    outer = _fan(rng, 7, rng.uniform(1.8, 2.2, 7), O)  # edges at > 1.8 cos(pi/7 + 0.6) > 1.1 from O
    triangles = []
    for k in range(7):
        k1 = (k + 1) % 7
        triangles += [[O, inner[k], inner[k1]], [inner[k], outer[k], outer[k1]], [inner[k], outer[k1], inner[k1]]]
    a = 0.95
    centre, radius = pl.sphere(a, -0.2)
    area, centroid, cases = _sum_over(triangles, centre, radius, pl)
    assert area == pytest.approx(math.pi * a * a, abs=1e-10)
    np.testing.assert_allclose(centroid, pl.origin, rtol=0, atol=1e-10)
    assert "h" in cases and len(cases) >= 3


def test_plain_fan_around_the_circle_centre():
    """Seven triangles around C_pi itself, reaching beyond the circle in some
    directions and not in others (so the circle is only partly covered):
    every triangle equals the traced boundary's value, and with the far
    vertices all outside the sum is pi a^2 with centroid C_pi."""
    rng = np.random.default_rng(99)
    pl = Placement(rng)
    a, d = 1.3, 0.7
    far = _fan(rng, 7, rng.uniform(0.8, 2.5, 7) * a)
    triangles = [[np.zeros(2), far[k], far[(k + 1) % 7]] for k in range(7)]
    for tri in triangles:
        _check_against_reference(tri, a, d, pl)
    far = _fan(rng, 7, rng.uniform(1.25, 2.5, 7) * a)  # outer polygon contains the circle
    triangles = [[np.zeros(2), far[k], far[(k + 1) % 7]] for k in range(7)]
    centre, radius = pl.sphere(a, d)
    area, centroid, cases = _sum_over(triangles, centre, radius, pl)
    assert area == pytest.approx(math.pi * a * a, abs=1e-10)
    np.testing.assert_allclose(centroid, pl.origin, rtol=0, atol=1e-10)


# ---------------------------------------------------------------- random
def test_random_triangles_and_circles_against_green():
    """3000 random triangles and circles (fixed seed): area and centroid
    equal the traced boundary's to 1e-10 (the centroid where the area exceeds
    1e-6, below which it is not resolved by either method to 1e-10); every
    case of Fig. C.4 occurs."""
    rng = np.random.default_rng(12345)
    seen = {}
    worst_area, worst_centroid = 0.0, 0.0
    for _ in range(3000):
        P = rng.uniform(-2.0, 2.0, (3, 2))
        if np.cross(P[1] - P[0], P[2] - P[0]) < 0.0:
            P = P[::-1]
        if 0.5 * abs(np.cross(P[1] - P[0], P[2] - P[0])) < 1e-3:
            continue
        a = rng.uniform(0.1, 2.0)
        d = rng.uniform(-1.0, 1.0)
        pl = Placement(rng)
        centre, radius = pl.sphere(a, d)
        v = [pl.point(p) for p in P]
        # randomly present the vertices clockwise in 3D too
        if rng.uniform() < 0.5:
            v = v[::-1]
        r = coupling.CircleTriangleIntersection(centre, radius, *v)
        area, c2 = reference_2d(P, a)
        worst_area = max(worst_area, abs(r["area"] - area))
        if area > 1e-6:
            worst_centroid = max(worst_centroid, np.max(np.abs(r["centroid"] - pl.point(c2))))
        seen[r["case"]] = seen.get(r["case"], 0) + 1
    print(f"random: max |area error| {worst_area:.2e}, max |centroid error| {worst_centroid:.2e}, cases {seen}")
    assert worst_area < TOL
    assert worst_centroid < TOL
    assert set(seen) >= set("abcdefgh") | {"apart"}


# ---------------------------------------------------------------- other properties
def test_sphere_not_reaching_the_plane_gives_nothing():
    pl = Placement(origin=np.zeros(3), Q=np.eye(3))
    v = [pl.point(p) for p in [(-1, -1), (1, -1), (0, 1)]]
    for d, R in [(1.0, 1.0), (1.5, 1.0), (-2.0, 1.0), (1.0 + 1e-15, 1.0)]:
        r = coupling.CircleTriangleIntersection(pl.origin + d * pl.Q[:, 2], R, *v)
        assert r["area"] == 0.0 and r["case"] == "none" and r["circle_radius"] == 0.0
        assert sum(r["weights"]) == pytest.approx(1.0, abs=1e-15)
    # barely touching: tiny area, well defined
    r = coupling.CircleTriangleIntersection(pl.origin + (1.0 - 1e-9) * pl.Q[:, 2], 1.0, *v)
    assert r["case"] == "a" and r["area"] == pytest.approx(math.pi * (2e-9 - 1e-18), rel=1e-5)


def test_invariance_under_rotation_translation_and_vertex_order():
    rng = np.random.default_rng(5)
    for _ in range(200):
        P = rng.uniform(-2.0, 2.0, (3, 3))
        C = rng.uniform(-2.0, 2.0, 3)
        R = rng.uniform(0.2, 2.5)
        base = coupling.CircleTriangleIntersection(C, R, *P)
        Q, t = _rotation(rng), rng.uniform(-50.0, 50.0, 3)
        moved = coupling.CircleTriangleIntersection(Q @ C + t, R, *[Q @ p + t for p in P])
        assert moved["area"] == pytest.approx(base["area"], abs=1e-12)
        assert moved["case"] == base["case"]
        if base["area"] > 1e-6:
            np.testing.assert_allclose(moved["centroid"], Q @ base["centroid"] + t, rtol=0, atol=1e-11)
            np.testing.assert_allclose(moved["weights"], base["weights"], rtol=0, atol=1e-11)
        for order in ([1, 2, 0], [2, 1, 0], [0, 2, 1]):
            perm = coupling.CircleTriangleIntersection(C, R, *P[order])
            assert perm["area"] == pytest.approx(base["area"], abs=1e-12)
            if base["area"] > 1e-6:
                np.testing.assert_allclose(perm["centroid"], base["centroid"], rtol=0, atol=1e-12)
                np.testing.assert_allclose(np.asarray(perm["weights"]), np.asarray(base["weights"])[order], atol=1e-12)


def test_weights_sum_to_one_and_reproduce_the_centroid():
    rng = np.random.default_rng(8)
    for _ in range(500):
        P = rng.uniform(-2.0, 2.0, (3, 3))
        r = coupling.CircleTriangleIntersection(rng.uniform(-2, 2, 3), rng.uniform(0.1, 3.0), *P)
        w = np.asarray(r["weights"])
        assert w.sum() == pytest.approx(1.0, abs=1e-14)
        assert np.all(w >= 0.0)
        np.testing.assert_allclose(w @ P, r["centroid"], rtol=0, atol=1e-12)


# ---------------------------------------------------------------- degenerate configurations
DEGENERATE = [
    # a vertex exactly on the circle (unit circle at the origin)
    ("vertex on circle, two inside", [(-0.3, -0.2), (0.4, -0.1), (0.0, 1.0)]),
    ("vertex on circle, one inside", [(0.0, -0.2), (1.0, 0.0), (-2.0, 2.0)]),
    ("vertex on circle, wedge into the circle", [(0.0, -1.0), (3.0, 1.0), (-3.0, 1.0)]),
    ("vertex on circle, wedge away", [(0.0, 1.0), (1.0, 3.0), (-1.0, 3.0)]),
    ("inscribed triangle", [(1.0, 0.0), (-0.5, math.sqrt(3) / 2), (-0.5, -math.sqrt(3) / 2)]),
    ("right triangle inscribed", [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0)]),
    # tangent edges
    ("edge tangent from inside", [(-5.0, -1.0), (5.0, -1.0), (0.0, 8.0)]),
    ("edge tangent from outside", [(-5.0, 1.0), (5.0, 1.0), (0.0, 8.0)]),
    ("two edges tangent", [(-5.0, -1.0), (1.0, -1.0), (1.0, 5.0)]),
    # C_pi on an edge and at a vertex
    ("centre on an edge, vertices outside", [(-3.0, 0.0), (2.0, 0.0), (0.5, 2.0)]),
    ("centre on an edge, one vertex inside", [(-0.5, 0.0), (2.0, 0.0), (0.5, 2.0)]),
    ("centre at a vertex", [(0.0, 0.0), (2.0, 0.5), (0.3, 2.0)]),
    ("centre at a vertex, small triangle", [(0.0, 0.0), (0.5, 0.1), (0.1, 0.5)]),
]


@pytest.mark.parametrize("name, P", DEGENERATE, ids=[n for n, _ in DEGENERATE])
def test_tangencies_and_points_on_the_circle(name, P):
    """Exact tangencies and points on the circle give the traced boundary's
    value, and moving the circle by 1e-12 changes the area by O(1e-12) (the
    limit of the neighbouring cases, from every side)."""
    pl = Placement(np.random.default_rng(21), origin=np.zeros(3), Q=np.eye(3))
    r, area = _check_against_reference(P, 1.0, 0.25, pl)
    assert sum(r["weights"]) == pytest.approx(1.0, abs=1e-14)
    for shift in ([1e-12, 0], [-1e-12, 0], [0, 1e-12], [0, -1e-12]):
        Ps = [(x - shift[0], y - shift[1]) for x, y in P]
        for a in (1.0, 1.0 + 1e-12, 1.0 - 1e-12):
            rs, _ = _check_against_reference(Ps, a, 0.25, pl)
            assert rs["area"] == pytest.approx(r["area"], abs=1e-10)


# ---------------------------------------------------------------- quadrilaterals
def test_quadrilateral_against_two_triangles_and_bilinear_weights():
    """A planar convex quadrilateral: the four sub-triangles about the centroid
    (Fig. 4.12) give the same area and centroid as the two triangles of a
    diagonal split, and the bilinear weights at (xi, eta) reproduce the
    centroid."""
    rng = np.random.default_rng(77)
    checked = 0
    for _ in range(300):
        pl = Placement(rng)
        uv = np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)], dtype=float) + rng.uniform(-0.3, 0.3, (4, 2))
        uv = uv * rng.uniform(0.5, 2.0)
        v = [pl.point(p) for p in uv]
        a = rng.uniform(0.2, 2.0)
        centre, radius = pl.sphere(a, rng.uniform(-1, 1))
        centre = centre + pl.point(rng.uniform(-1.5, 1.5, 2)) - pl.origin
        q = coupling.CircleQuadrilateralIntersection(centre, radius, *v)
        t1 = coupling.CircleTriangleIntersection(centre, radius, v[0], v[1], v[2])
        t2 = coupling.CircleTriangleIntersection(centre, radius, v[0], v[2], v[3])
        area = t1["area"] + t2["area"]
        assert q["area"] == pytest.approx(area, abs=1e-12)
        if area > 1e-6:
            checked += 1
            c = (t1["area"] * t1["centroid"] + t2["area"] * t2["centroid"]) / area
            np.testing.assert_allclose(q["centroid"], c, rtol=0, atol=1e-10)
            assert q["inverse_map_converged"]
            w = np.asarray(q["weights"])
            assert w.sum() == pytest.approx(1.0, abs=1e-14)
            np.testing.assert_allclose(w @ np.asarray(v), q["centroid"], rtol=0, atol=1e-10)
            N = [0.25 * (1 + sx * q["xi"]) * (1 + sy * q["eta"]) for sx, sy in [(-1, -1), (1, -1), (1, 1), (-1, 1)]]
            np.testing.assert_allclose(w, N, atol=1e-15)
    assert checked > 100


def test_quadrilateral_containing_the_circle_and_warped_face():
    pl = Placement(np.random.default_rng(4))
    v = [pl.point(p) for p in [(-3, -2), (4, -2), (3, 3), (-2, 4)]]
    centre, radius = pl.sphere(1.1, 0.5)
    q = coupling.CircleQuadrilateralIntersection(centre, radius, *v)
    assert q["area"] == pytest.approx(math.pi * 1.1**2, abs=1e-12)
    np.testing.assert_allclose(q["centroid"], pl.origin, atol=1e-12)
    # a warped face: every sub-triangle in its own plane; weights still sum to one
    v[2] = v[2] + 0.4 * pl.Q[:, 2]
    q = coupling.CircleQuadrilateralIntersection(centre, radius, *v)
    assert q["inverse_map_converged"]
    assert sum(q["weights"]) == pytest.approx(1.0, abs=1e-14)
    assert q["area"] == pytest.approx(sum(s["area"] for s in q["sub_triangles"]), abs=1e-14)


def test_random_near_degenerate_configurations():
    """Random triangles with vertices put on the circle (to round-off) and
    edges along tangents of it. There the traced boundary itself is
    ill-conditioned (a chord of length sqrt(eps) a, a vertex on or off the
    circle by round-off), so the check is the one the area's monotonicity in
    a gives: A(a) lies between the reference at a(1 - 1e-9) and a(1 + 1e-9),
    which are regular configurations, and those two differ by O(1e-9)."""
    rng = np.random.default_rng(31)
    h = 1e-9
    worst = 0.0
    cases = set()
    for _ in range(1500):
        a = rng.uniform(0.3, 2.0)
        kind = rng.integers(0, 4)
        if kind < 3:  # 1, 2 or 3 vertices on the circle, the others anywhere
            P = rng.uniform(-2.5, 2.5, (3, 2))
            for k in range(kind + 1):
                t = rng.uniform(0.0, 2.0 * math.pi)
                P[k] = a * np.array([math.cos(t), math.sin(t)])
        else:  # an edge along a tangent, touching between its ends
            t = rng.uniform(0.0, 2.0 * math.pi)
            touch = a * np.array([math.cos(t), math.sin(t)])
            along = np.array([-math.sin(t), math.cos(t)])
            P = np.array([touch - rng.uniform(0.0, 2.0) * along, touch + rng.uniform(0.0, 2.0) * along,
                          rng.uniform(-2.5, 2.5, 2)])
        if 0.5 * abs(np.cross(P[1] - P[0], P[2] - P[0])) < 1e-3:
            continue
        pl = Placement(rng)
        centre, radius = pl.sphere(a, rng.uniform(-1.0, 1.0))
        r = coupling.CircleTriangleIntersection(centre, radius, *[pl.point(p) for p in P])
        lower, _ = reference_2d(P, a * (1.0 - h))
        upper, _ = reference_2d(P, a * (1.0 + h))
        assert upper - lower < 1e-7
        assert lower - TOL <= r["area"] <= upper + TOL
        worst = max(worst, upper - lower)
        cases.add(r["case"])
        assert sum(r["weights"]) == pytest.approx(1.0, abs=1e-14)
    print(f"near-degenerate: widest bracket {worst:.2e}, cases {sorted(cases)}")
    assert len(cases) >= 8
