"""The energy-consistent ADM forces (DemSettings.adm_energy_gradient,
strategies/adm_energy_gradient.cpp) are exact derivatives of the energy the
sphere stores, U = Σ_e (A_e/A_T) U_law(R - d_e): the force on a sphere at
rest is -∂U/∂x and the load on each wall node -∂U/∂X_node, against central
differences of U (the contacts' stored energy, ContactElasticEnergy) over
freshly built models with the centre or one node moved, for a sphere over
one face, over the ridge of two faces at an angle, over the apex of a fan
and over a warped quadrilateral."""
import numpy as np
import pytest

import tessera

from dem_test_utilities import Settings, SphereAndWalls

RADIUS = 0.1
# The difference step h = 1e-6 m: the central difference's truncation,
# h²/6 U''', is about (h/δ)²/6 of the force, δ >= 1.5e-3 m the shortest length
# U varies on here (the overlaps; the circles' radii and their distances
# from the edges are longer): below 1e-7; its rounding, ~1e-16 U / h with
# U ~ F δ, ~1e-13 of the force. Every component is checked relative to the
# largest force within 1e-6 (measured: 1e-10 to 3e-8).
STEP = 1e-5 * RADIUS
TOLERANCE = 1e-6


def Evaluate(centre, points, faces):
    """A sphere (R = RADIUS, at rest) at `centre` against walls of the faces
    `faces` (node indices into `points`, 3 or 4 per face) under ADM with the
    energy-consistent forces: U, the force on the sphere and the elastic
    load on each node."""
    from tessera import _dem
    spheres, walls, wall = SphereAndWalls(centre, RADIUS)
    for k, xyz in enumerate(points):
        walls.CreateNewNode(k + 1, *xyz)
    for k, face in enumerate(faces):
        walls.CreateNewCondition("RigidFace3D4N" if len(face) == 4 else "RigidFace3D3N", k + 1,
                                 [j + 1 for j in face], wall)
    settings = Settings(1e-6)
    settings.wall_force_transfer = "area_distributed"
    settings.adm_energy_gradient = True
    strategy = _dem.ExplicitSolverStrategy(spheres, walls, settings)
    strategy.Initialize()
    strategy.WriteToNodes()
    nodal = np.array([walls.GetNode(k + 1).GetSolutionStepValue(tessera.ELASTIC_FORCES)
                      for k in range(len(points))])
    return strategy.ContactElasticEnergy(), np.array(strategy.Particles.force[0]), nodal


def CentralDifferences(centre, points, faces):
    """-∂U/∂x and -∂U/∂X_node by central differences of U."""
    def energy(c, p):
        return Evaluate(c, p, faces)[0]
    force = np.zeros(3)
    for d in range(3):
        up, down = np.array(centre, float), np.array(centre, float)
        up[d] += STEP
        down[d] -= STEP
        force[d] = -(energy(up, points) - energy(down, points)) / (2.0 * STEP)
    nodal = np.zeros((len(points), 3))
    for k in range(len(points)):
        for d in range(3):
            up, down = np.array(points, float), np.array(points, float)
            up[k, d] += STEP
            down[k, d] -= STEP
            nodal[k, d] = -(energy(centre, up) - energy(centre, down)) / (2.0 * STEP)
    return force, nodal


def Ridge(angle_degrees):
    """A 2 x 2 strip of four triangles folded along the y axis: the halves
    x < 0 and x > 0 fall away from the ridge at `angle_degrees` each."""
    t = np.tan(np.radians(angle_degrees))
    points = [(0.0, -1.0, 0.0), (0.0, 1.0, 0.0), (1.0, -1.0, -t), (1.0, 1.0, -t), (-1.0, -1.0, -t),
              (-1.0, 1.0, -t)]
    return points, [(0, 2, 3), (0, 3, 1), (0, 1, 5), (0, 5, 4)]


def Fan(count, rise):
    """`count` triangles round an apex raised by `rise` over a unit circle of rim vertices."""
    points = [(0.0, 0.0, rise)] + [(np.cos(a), np.sin(a), 0.0)
                                   for a in 2.0 * np.pi * np.arange(count) / count]
    return points, [(0, 1 + k, 1 + (k + 1) % count) for k in range(count)]


CASES = {
    # One triangle, the circle (a ≈ 0.02) across one of its edges: the area
    # changes with the centre and the vertices, U with the plane distance only.
    "one face": ((0.15, 0.1, RADIUS - 2e-3),
                 [(-1.0, -1.0, 0.0), (0.16, -1.0, 0.0), (0.16, 1.0, 0.05)], [(0, 1, 2)]),
    # A convex ridge of 2 x 2 triangles falling 20° each way: each face's
    # normal is about 20° from the mean (the blend of plane and nearest
    # distances is between its clamps, 15° and 30°), the centre projects past
    # the ridge on both planes (the nearest points are on the ridge line),
    # the sphere off that line.
    "edge": ((0.006, 0.13, RADIUS - 1.5e-3),) + Ridge(20.0),
    # A fan of six triangles round an apex 0.05 high (normals 2.9° from the
    # axis), the sphere beside the apex.
    "vertex": ((0.004, -0.003, 0.05 + RADIUS - 2e-3),) + Fan(6, 0.05),
    # A warped quadrilateral (one corner 0.02 up), the circle across its corner.
    "quad": ((0.39, 0.41, RADIUS - 2e-3),
             [(-0.5, -0.5, 0.0), (0.4, -0.5, 0.0), (0.4, 0.4, 0.02), (-0.5, 0.4, 0.0)],
             [(0, 1, 2, 3)]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_forces_are_minus_the_stored_energys_exact_gradient(case):
    centre, points, faces = CASES[case]
    energy, force, nodal = Evaluate(centre, points, faces)
    assert energy > 0.0
    expected_force, expected_nodal = CentralDifferences(centre, points, faces)
    scale = max(np.linalg.norm(expected_force), np.abs(expected_nodal).max())
    assert np.abs(force - expected_force).max() <= TOLERANCE * scale, (force, expected_force)
    assert np.abs(nodal - expected_nodal).max() <= TOLERANCE * scale, (nodal, expected_nodal)
    # Translation invariance: the nodes' loads are minus the sphere's force.
    assert np.allclose(nodal.sum(axis=0), -force, rtol=0.0, atol=1e-12 * np.linalg.norm(force))


def test_the_area_and_its_derivatives_match_app_c_and_differences_in_every_case_of_fig_c4():
    """walls/sphere_face_area_gradient.h on 300 faces (random but one) about a unit
    sphere at the origin (triangles tilted up to ±0.5 across, nearly flat
    convex quadrilaterals warped by up to 0.1): the area equals App. C's
    composition (tessera.coupling.CircleTriangleIntersection,
    CircleQuadrilateralIntersection) within 1e-12 (round-off of areas of
    order 1; measured 7e-16), every case a-h of Fig. C.4 among the
    triangles; its derivatives equal central differences of the area
    (step 1e-6) within 1e-7: rounding ~1e-16 / 1e-6, truncation h² A''' ~1e-12,
    more only where an arc's end is within h of a vertex (A is C¹ there:
    O(h) at most); measured 1.4e-9."""
    import tessera.coupling
    from tessera import _dem
    rng = np.random.default_rng(3)
    h = 1e-6
    cases = set()

    def area(c, v):
        return _dem.SphereFaceAreaWithGradient(list(c), 1.0, [list(x) for x in v])["area"]

    for k in range(300):
        if k % 2 == 0:
            v = rng.uniform(-1.2, 1.2, (3, 3))
            v[:, 2] = rng.uniform(-0.95, 0.95) + rng.uniform(-0.5, 0.5, 3)
            if k == 0:  # case a: the circle inside a tilted triangle
                v = np.array([(-5.0, -5.0, 0.3), (5.0, -5.0, 0.5), (0.0, 5.0, 0.6)])
            reference = tessera.coupling.CircleTriangleIntersection((0.0, 0.0, 0.0), 1.0, *v.tolist())
            cases.add(reference["case"])
        else:
            angles, radii = np.sort(rng.uniform(0.0, 2.0 * np.pi, 4)), rng.uniform(0.3, 1.5, 4)
            v = np.column_stack([radii * np.cos(angles) + rng.uniform(-0.5, 0.5),
                                 radii * np.sin(angles) + rng.uniform(-0.5, 0.5),
                                 rng.uniform(-0.95, 0.95) + rng.uniform(-0.05, 0.05, 4)])
            reference = tessera.coupling.CircleQuadrilateralIntersection((0.0, 0.0, 0.0), 1.0,
                                                                         *v.tolist())
        g = _dem.SphereFaceAreaWithGradient((0.0, 0.0, 0.0), 1.0, v.tolist())
        assert g["area"] == pytest.approx(reference["area"], rel=0.0, abs=1e-12)
        centre = np.zeros(3)
        for d in range(3):
            step = np.eye(3)[d] * h
            difference = (area(centre + step, v) - area(centre - step, v)) / (2.0 * h)
            assert g["centre"][d] == pytest.approx(difference, rel=0.0, abs=1e-7)
        for j in range(len(v)):
            for d in range(3):
                up, down = v.copy(), v.copy()
                up[j, d] += h
                down[j, d] -= h
                difference = (area(centre, up) - area(centre, down)) / (2.0 * h)
                assert g["vertices"][j][d] == pytest.approx(difference, rel=0.0, abs=1e-7)
    assert set("abcdefgh") <= cases
