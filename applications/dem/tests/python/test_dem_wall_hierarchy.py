"""Sphere contact with the facets, edges and vertices of triangulated walls: the
Fast Intersection Test and the Double Hierarchy method (applications/dem/walls),
checked against the validation benchmarks of Santasusana's thesis §3.6
(Tables 3.6-3.10). Gravity is along
-z here (along -y in the thesis).

Tolerances and their sources:
- B3.1 facet / edge / vertex impact: the thesis reports the three rebounds
  identical; they are compared to 1e-9 relative (one contact of the same size
  whatever the mesh entity). Energy conservation (e = 1): the rebound height
  equals the drop height to 0.2 % (the symplectic time-integration error at
  Δt = 1e-5 s over a 35 % overlap).
- B3.2 continuity at a convex edge: ‖F‖ = 76.063 N (thesis) within 0.5 %
  (issue 4), its direction along the contact normal to 1e-9.
- B3.3 multiple contact: a sphere dropped into a square hole comes to rest on
  the four edges; statics: the four contacts carry m g to 1e-6.
- B3.4 mesh independence: x, v, ω after 1 s on one quadrilateral and on 80
  triangles within 1 % of the thesis' values 3.9021 m, 3.5410 m/s,
  -11.9788 rad/s (issue 4), and the two meshes within 1e-6 of each other.
- Thread independence: two threads reproduce one thread bit for bit.
"""
import math
import numpy as np
import pytest

import tessera

from dem_test_utilities import Face, Material, Relate, Run, Settings, Sphere, SpheresPart


def Dem():
    from tessera import _dem
    return _dem


# Thesis Table 3.6 (B3.1, B3.2).
RADIUS, DENSITY, YOUNG, POISSON, G = 0.3, 100.0, 1e5, 0.2, 9.81
RIGID = 1e15  # the thesis' walls are rigid: 76.063 N = (4/3) E/(1-ν²) √R δ^1.5


def Model(young=YOUNG, restitution=1.0, friction=0.3):
    model = tessera.Model()
    spheres = SpheresPart(model)
    walls = model.CreateModelPart("RigidFacePart")
    grain = Material(spheres, 1, density=DENSITY, young=young, poisson=POISSON)
    wall = Material(walls, 2, young=RIGID, poisson=POISSON)
    Relate(grain, wall, restitution=restitution, static_friction=friction)
    Relate(grain, grain, restitution=restitution, static_friction=friction)
    return model, spheres, walls, grain, wall


def Triangles(walls, wall, triangles):
    """RigidFace3D3N conditions over shared nodes: `triangles` lists vertex
    coordinate triples; equal coordinates become one node."""
    ids = {}
    for k, triangle in enumerate(triangles):
        nodes = []
        for xyz in triangle:
            key = tuple(round(c, 12) for c in xyz)
            if key not in ids:
                ids[key] = len(ids) + 1
                walls.CreateNewNode(ids[key], *xyz)
            nodes.append(ids[key])
        walls.CreateNewCondition("RigidFace3D3N", k + 1, nodes, wall)


def HexagonFan(size=2.0):
    """Six triangles around the origin: the origin is a vertex of all six."""
    corners = [(size * math.cos(k * math.pi / 3), size * math.sin(k * math.pi / 3), 0.0)
               for k in range(6)]
    return [[(0.0, 0.0, 0.0), corners[k], corners[(k + 1) % 6]] for k in range(6)]


def Drop(points, steps=100000):
    """B3.1: spheres fall from 1 m (their lowest point) onto the fan at the
    (x, y) `points`; returns the traces of heights, contact forces and the
    number of wall contacts."""
    model, spheres, walls, grain, wall = Model()
    for k, (x, y) in enumerate(points):
        Sphere(spheres, k + 1, (x, y, 1.0 + RADIUS), RADIUS, grain)
    Triangles(walls, wall, HexagonFan())
    dt = 1e-5
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, Settings(dt, "Symplectic_Euler",
                                                                     (0, 0, -G), 5, 0.05))
    strategy.Initialize()
    heights, forces, contacts = [], [], []

    def record(time):
        heights.append(strategy.Particles.position[:, 2])
        forces.append(strategy.Particles.contact_force)
        contacts.append(strategy.NumberOfWallContacts())

    Run(strategy, steps, dt, record)  # fall (0.45 s), bounce (0.07 s) and climb back
    return np.array(heights), np.array(forces), np.array(contacts)


def test_facet_edge_and_vertex_impacts_rebound_identically():
    traces = [Drop([point]) for point in (
        (1.0, 0.5),                                     # inside triangle 0
        (math.cos(math.pi / 3), math.sin(math.pi / 3)),  # on the spoke shared by 0 and 1
        (0.0, 0.0))]                                    # on the vertex of all six
    for heights, forces, contacts in traces:
        assert contacts.max() == 1  # one contact, however many faces the sphere overlaps
        peak = np.abs(forces[:, 0, 2]).max()
        assert peak > 0.0
        # The force is purely vertical (thesis Fig. 3.25).
        assert np.abs(forces[:, 0, :2]).max() <= 1e-9 * peak
        rebound = heights[len(heights) // 2:, 0].max() - RADIUS
        assert rebound == pytest.approx(1.0, rel=2e-3)
    for heights, _, _ in traces[1:]:
        np.testing.assert_allclose(heights, traces[0][0], rtol=1e-9)


def test_two_threads_give_the_same_impacts_as_one():
    # Spheres over facets, spokes, the centre and the rim of the fan, several
    # touching each other, so that both threads have particles with contacts.
    points = [(x, y) for x in np.linspace(-1.5, 1.5, 6) for y in np.linspace(-1.2, 1.2, 5)]
    runs, before = [], tessera.GetParallelThreads()
    try:
        for threads in (1, 2):
            tessera.SetParallelThreads(threads)
            runs.append(Drop(points, steps=60000))
    finally:
        tessera.SetParallelThreads(before)
    assert runs[0][2].max() >= 20
    for a, b in zip(runs[0], runs[1]):
        assert np.array_equal(a, b)


def ConvexEdge(angle):
    """f1: z = 0 for x <= 0; f2: from the edge x = z = 0 down at `angle`; each
    side two triangles whose shared diagonal the path crosses."""
    c, s = math.cos(angle), math.sin(angle)
    a, b = (0.0, -1.0, 0.0), (0.0, 1.0, 0.0)
    f1 = [(-1.0, -1.0, 0.0), a, b, (-1.0, 1.0, 0.0)]
    f2 = [a, (c, -1.0, -s), (c, 1.0, -s), b]
    return [[f1[0], f1[1], f1[2]], [f1[0], f1[2], f1[3]],
            [f2[0], f2[1], f2[2]], [f2[0], f2[2], f2[3]]]


def test_the_force_is_constant_around_a_convex_edge():
    """B3.2: frictionless, rotation-free sphere on an imposed path at constant
    overlap 0.01 m from facet f1 around the edge onto facet f2."""
    model, spheres, walls, grain, wall = Model(friction=0.0)
    Sphere(spheres, 1, (-0.3, 0.0, RADIUS - 0.01), RADIUS, grain)
    node = spheres.GetNode(1)
    for component in (tessera.VELOCITY_X, tessera.VELOCITY_Y, tessera.VELOCITY_Z):
        node.Fix(component)
    angle = math.radians(40.0)
    Triangles(walls, wall, ConvexEdge(angle))
    settings = Settings(1e-5, "Symplectic_Euler", (0, 0, 0), 1, 0.05)
    settings.rotation = False
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
    strategy.Initialize()
    reach = RADIUS - 0.01
    path, normals = [], []
    for x in np.linspace(-0.3, 0.0, 31):  # over f1 (crossing its diagonal)
        path.append((x, 0.1 * x, reach)), normals.append((0.0, 0.0, -1.0))
    for t in np.linspace(0.0, angle, 41)[1:]:  # around the edge
        path.append((reach * math.sin(t), 0.0, reach * math.cos(t)))
        normals.append((-math.sin(t), 0.0, -math.cos(t)))
    for d in np.linspace(0.0, 0.3, 31)[1:]:  # over f2
        path.append((reach * math.sin(angle) + d * math.cos(angle), -0.2 * d,
                     reach * math.cos(angle) - d * math.sin(angle)))
        normals.append((-math.sin(angle), 0.0, -math.cos(angle)))
    expected = 76.063  # N, thesis §3.6.2
    time = 0.0
    for centre, normal in zip(path, normals):
        node.X, node.Y, node.Z = centre
        strategy.ReadFromNodes()
        time += 1e-5
        strategy.SolveSolutionStep(time)
        force = np.array(strategy.Particles.contact_force[0])
        assert strategy.NumberOfWallContacts() == 1
        assert np.linalg.norm(force) == pytest.approx(expected, rel=5e-3), centre
        # The force pushes the sphere away from the wall along the contact normal.
        np.testing.assert_allclose(force / np.linalg.norm(force), -np.array(normal), atol=1e-9)


def SettleOnWalls(spheres, walls, seconds, contacts):
    """Runs one sphere under gravity for `seconds` and checks that it is at rest
    on `contacts` wall contacts that carry its weight (statics, 1e-6)."""
    dt = 2e-5
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, Settings(dt, "Symplectic_Euler",
                                                                     (0, 0, -G), 1, 0.05))
    strategy.Initialize()
    Run(strategy, int(seconds / dt), dt)
    p = strategy.Particles
    assert np.linalg.norm(p.velocity[0]) < 1e-4
    assert strategy.NumberOfWallContacts() == contacts
    weight = p.mass[0] * G
    np.testing.assert_allclose(p.contact_force[0], [0.0, 0.0, weight], rtol=1e-6,
                               atol=1e-6 * weight)
    return strategy


def test_a_sphere_in_a_square_hole_rests_on_its_four_edges():
    """B3.3 (multiple contact): a sphere falls into a square hole narrower than
    itself in a triangulated plate and comes to rest on the four edges."""
    model, spheres, walls, grain, wall = Model(young=1e6, restitution=0.4)
    half = 0.2  # hole [-0.2, 0.2]^2 in the plate [-1, 1]^2
    outer, inner = [(-1, -1), (1, -1), (1, 1), (-1, 1)], [(-half, -half), (half, -half),
                                                          (half, half), (-half, half)]
    triangles = []
    for k in range(4):
        o0, o1 = outer[k], outer[(k + 1) % 4]
        i0, i1 = inner[k], inner[(k + 1) % 4]
        triangles.append([(*o0, 0.0), (*o1, 0.0), (*i1, 0.0)])
        triangles.append([(*o0, 0.0), (*i1, 0.0), (*i0, 0.0)])
    Triangles(walls, wall, triangles)
    Sphere(spheres, 1, (0.01, -0.02, 0.5), RADIUS, grain)
    strategy = SettleOnWalls(spheres, walls, 2.5, 4)  # the thesis' spheres rest by 2.5 s
    p = strategy.Particles
    # Centred over the hole it would touch the four edges at their midpoints, a
    # from its axis, its centre √((R - δ)² - a²) above the plate (δ ≪ R);
    # friction holds it a little off centre, hence 5 %.
    x = p.position[0]
    assert x[2] == pytest.approx(math.sqrt(RADIUS ** 2 - half ** 2), rel=0.05)


def Slide(quad):
    """B3.4: v0 = 5 m/s along x on a plate of one quadrilateral or 80 triangles."""
    model, spheres, walls, grain, wall = Model(young=1e6, restitution=0.4, friction=0.3)
    x0, x1, y0, y1 = -1.0, 5.0, -0.5, 0.5
    if quad:
        Face(walls, 1, [(x0, y0, 0), (x1, y0, 0), (x1, y1, 0), (x0, y1, 0)], wall)
    else:
        xs, ys = np.linspace(x0, x1, 21), np.linspace(y0, y1, 3)
        triangles = []
        for i in range(20):
            for j in range(2):
                a, b = (xs[i], ys[j], 0.0), (xs[i + 1], ys[j], 0.0)
                c, d = (xs[i + 1], ys[j + 1], 0.0), (xs[i], ys[j + 1], 0.0)
                triangles += [[a, b, c], [a, c, d]]
        assert len(triangles) == 80
        Triangles(walls, wall, triangles)
    mass = DENSITY * 4 / 3 * math.pi * RADIUS ** 3
    # Start in vertical equilibrium: the Hertz overlap under m g.
    effective = 1e6 / (1 - POISSON ** 2)
    overlap = (mass * G / (4 / 3 * effective * math.sqrt(RADIUS))) ** (2 / 3)
    Sphere(spheres, 1, (0.0, 0.0, RADIUS - overlap), RADIUS, grain, velocity=(5.0, 0.0, 0.0))
    dt = 1e-5
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, Settings(dt, "Symplectic_Euler",
                                                                     (0, 0, -G), 5, 0.05))
    strategy.Initialize()
    Run(strategy, 100000, dt)
    p = strategy.Particles
    return p.position[0][0], p.velocity[0][0], p.angular_velocity[0][1]


def test_a_sliding_sphere_does_not_see_the_mesh():
    quad, triangles = Slide(True), Slide(False)
    # Thesis Table 3.8 (Quad): x, v, ω_z with gravity along -y; here gravity is
    # along -z and the sphere rolls about +y, so ω_y = -ω_z.
    for result in (quad, triangles):
        assert result[0] == pytest.approx(3.9021, rel=1e-2)
        assert result[1] == pytest.approx(3.5410, rel=1e-2)
        assert -result[2] == pytest.approx(-11.9788, rel=1e-2)
    np.testing.assert_allclose(triangles, quad, rtol=1e-6)


def test_brachistochrone_travel_time():
    """B3.5: a frictionless sphere (R 0.01 m, normal damping only) slides down a
    triangulated cycloid x = r(s - sin s), z = -r(1 - cos s) from A = (0, 0) to
    B = (0.2, -0.1) m. The thesis reports 0.2516 s from A to B (Table 3.10,
    against √(r/g) s_f = 0.2547 s for a point); within 1 % (issue 4). The start
    and end conventions are not printed in the thesis: here the sphere starts
    touching the cusp at A (centre at A + R x̂, at rest) and arrives when its
    centre passes x_B = 0.2 m."""
    r, s_end, radius = 0.05172, 3.5084, 0.01
    model = tessera.Model()
    spheres = SpheresPart(model)
    walls = model.CreateModelPart("RigidFacePart")
    grain = Material(spheres, 1, density=2500.0, young=1e7, poisson=0.2)
    wall = Material(walls, 2, young=RIGID, poisson=0.2)
    Relate(grain, wall, restitution=0.0, static_friction=0.0)
    s = np.linspace(0.0, 1.05 * s_end, 201)
    x, z = r * (s - np.sin(s)), -r * (1.0 - np.cos(s))
    lane = []  # one lane 0.05 m wide, two triangles per segment
    for k in range(len(s) - 1):
        a, b = (x[k], -0.025, z[k]), (x[k + 1], -0.025, z[k + 1])
        c, d = (x[k + 1], 0.025, z[k + 1]), (x[k], 0.025, z[k])
        lane += [[a, c, b], [a, d, c]]
    Triangles(walls, wall, lane)
    Sphere(spheres, 1, (radius, 0.0, 0.0), radius, grain)
    dt = 1e-5
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, Settings(dt, "Symplectic_Euler",
                                                                     (0, 0, -G), 1, 0.005))
    strategy.Initialize()
    time, previous = 0.0, radius
    while time < 0.4:
        time += dt
        strategy.SolveSolutionStep(time)
        current = strategy.Particles.position[0][0]
        if current >= 0.2:
            arrival = time - dt * (current - 0.2) / (current - previous)
            break
        previous = current
    else:
        pytest.fail("the sphere did not reach B")
    assert arrival == pytest.approx(0.2516, rel=1e-2)


def test_friction_stays_continuous_across_the_faces_of_a_mesh():
    """§3.5.2 (B3.0 on a flat mesh): a rotation-free sphere pushed at constant
    velocity and constant overlap over a strip of triangles slides at
    |F_t| = μ F_n. Handing the tangential history to the new face's contact
    keeps it there at every seam (without it F_t restarts from 0, thesis
    Fig. 3.22); checked to 1e-6 at every step after the first seam."""
    mu, overlap, speed = 0.3, 0.01, 0.5
    model, spheres, walls, grain, wall = Model(friction=mu)
    xs = np.linspace(-0.5, 1.5, 9)
    strip = []
    for i in range(len(xs) - 1):
        a, b, c, d = (xs[i], -1, 0), (xs[i + 1], -1, 0), (xs[i + 1], 1, 0), (xs[i], 1, 0)
        strip += [[a, b, c], [a, c, d]]
    Triangles(walls, wall, strip)
    Sphere(spheres, 1, (0.0, 0.13, RADIUS - overlap), RADIUS, grain, velocity=(speed, 0, 0))
    node = spheres.GetNode(1)
    for component in (tessera.VELOCITY_X, tessera.VELOCITY_Y, tessera.VELOCITY_Z):
        node.Fix(component)
    dt = 1e-5
    settings = Settings(dt, "Symplectic_Euler", (0, 0, 0), 5, 0.05)
    settings.rotation = False
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
    strategy.Initialize()
    ratios = []

    def record(time):
        force = strategy.Particles.contact_force[0]
        ratios.append(np.hypot(force[0], force[1]) / force[2])

    Run(strategy, int(0.8 / speed / dt), dt, record)  # x from 0 to 0.8: six seams
    ratios = np.array(ratios)
    first_seam = int(0.25 / speed / dt)  # diagonal of the first pair of triangles
    np.testing.assert_allclose(ratios[first_seam:], mu, rtol=1e-6)


def test_kratos_basic_benchmark_16_three_spheres_on_a_coarse_grid(in_copy):
    """dem_benchmarks_2019 benchmark 16, the legacy deck unchanged, run as its
    driver does (problem_name benchmark16, Δt 5e-5 s, 1 s): VELOCITY_Y of
    spheres 1-3 every 1e-2 s against Kratos' series benchmark16_graph.dat with
    the driver's criterion Σ|DEM − ref| / Σ|ref| < 5 % per sphere (README)."""
    from tessera.dem import DEMAnalysisStage
    in_copy("dem_benchmarks_2019/basic_benchmarks")
    parameters = tessera.Parameters.FromFile("ProjectParametersDEMFEM.json")
    parameters["problem_name"].SetString("benchmark16")
    parameters["MaxTimeStep"].SetDouble(5e-5)
    parameters["FinalTime"].SetDouble(1.0)
    samples = []

    class Stage(DEMAnalysisStage):
        def FinalizeSolutionStep(self):
            super().FinalizeSolutionStep()
            if self.GetStrategy().StepCount() % 200 == 0:  # every 1e-2 s
                part = self.model.GetModelPart("SpheresPart")
                samples.append([part.GetNode(k).GetSolutionStepValue(tessera.VELOCITY_Y)
                                for k in (1, 2, 3)])

    Stage(tessera.Model(), parameters).Run()
    reference = np.loadtxt("paper_data/benchmark16_graph.dat")[:len(samples), 1:4]
    samples = np.array(samples)
    assert len(samples) == 100
    errors = np.abs(samples - reference).sum(axis=0) / np.abs(reference).sum(axis=0)
    assert np.all(errors < 0.05), errors  # measured 2.67 %, 4.06 %, 1.52 %


def test_a_sphere_in_a_v_shaped_valley_rests_on_both_faces():
    """Concave corner: two planes inclined at ±30° meet at the valley line; the
    Distance Hierarchy keeps both facet contacts (neither lies behind the other)
    and statics gives each the normal force m g / (2 cos 30°) (to 1e-6)."""
    # Frictionless: with friction the wedged sphere's statics is indeterminate.
    model, spheres, walls, grain, wall = Model(young=1e6, restitution=0.4, friction=0.0)
    angle = math.radians(30.0)
    c, s = math.cos(angle), math.sin(angle)
    left = [(-c, -1, s), (0, -1, 0), (0, 1, 0), (-c, 1, s)]
    right = [(0, -1, 0), (c, -1, s), (c, 1, s), (0, 1, 0)]
    Triangles(walls, wall, [[left[0], left[1], left[2]], [left[0], left[2], left[3]],
                            [right[0], right[1], right[2]], [right[0], right[2], right[3]]])
    Sphere(spheres, 1, (0.05, 0.0, RADIUS / c + 0.05), RADIUS, grain)
    strategy = SettleOnWalls(spheres, walls, 2.0, 2)
    weight = strategy.Particles.mass[0] * G
    strategy.WriteToNodes()
    # The normal forces (Σ DEM_PRESSURE · DEM_NODAL_AREA) add up to 2 m g / (2 cos 30°).
    normal = sum(n.GetSolutionStepValue(tessera.DEM_PRESSURE) *
                 n.GetSolutionStepValue(tessera.DEM_NODAL_AREA) for n in walls.Nodes)
    assert normal == pytest.approx(weight / c, rel=1e-6)
