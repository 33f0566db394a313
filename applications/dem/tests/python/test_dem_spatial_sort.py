"""Spatial sorting of the particle rows (utilities/spatial_order, the
strategy's SortRows): the rows are permuted in the order of their cells every
DemSettings.sort_rows_frequency steps. Sorting changes only the order in which
forces are summed, so a sorted run must follow the unsorted one to round-off:
the tolerances below (1e-12 m in position, 1e-9 of the largest value in
velocity and spin, over 150 steps of a frictional pile with sliding and
sticking contacts) lie far above the differences measured (positions equal,
velocities 2e-16 m/s, spins 6e-14 rad/s of 389); a mis-signed tangential
history (the spring changes sign when a pair's spheres change places) gave
0.18 mm, 0.1 m/s and 26 rad/s and fails them.
"""
import numpy as np
import pytest
import tessera

from dem_test_utilities import ParallelThreads, Pile, Run, Settings


def Dem():
    from tessera import _dem
    return _dem


def RunPile(sort_every, steps=150, threads=1, bounding_box=None):
    model, spheres, walls = Pile(600, spacing=0.0125)
    settings = Settings(2e-5, "Symplectic_Euler", (0, 0, -9.81), search_frequency=7,
                        tolerance=0.001)
    settings.sort_rows_frequency = sort_every
    settings.sort_rows_minimum = 0
    if bounding_box is not None:
        settings.bounding_box = True
        settings.bounding_box_min, settings.bounding_box_max = bounding_box
    with ParallelThreads(threads):
        strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
        strategy.Initialize()
        Run(strategy, steps, 2e-5)
    return strategy, spheres


def ByElement(strategy):
    """The rows' state ordered by element id."""
    p = strategy.Particles
    order = np.argsort(p.element_id)
    return {name: getattr(p, name)[order] for name in
            ("element_id", "position", "velocity", "angular_velocity", "contact_force")}


def test_spatial_order_is_a_permutation_that_keeps_groups_together():
    rng = np.random.default_rng(5)
    position = rng.uniform(0.0, 1.0, size=(500, 3))
    group = np.zeros(500, dtype=np.uint32)
    group[[10, 11, 12]] = 1       # a cluster's members: consecutive rows
    group[[300, 301]] = 2
    order = Dem().SpatialOrder(position, 0.05, group)
    assert sorted(order) == list(range(500))
    for members in ([10, 11, 12], [300, 301]):
        k = order.index(members[0])
        assert order[k:k + len(members)] == members


def ShuffledLattice(counts, numbering, seed):
    """Points of a lattice of spacing 0.05 with counts[k] points along axis k,
    listed in `numbering`'s order (its first axis fastest), each but the first
    moved by up to 0.01 away from its cell's lower corner (the first fixes the
    grid's origin), and a shuffle of them."""
    rng = np.random.default_rng(seed)
    fast, middle, slow = numbering
    lattice = []
    for c in range(counts[slow]):
        for b in range(counts[middle]):
            for a in range(counts[fast]):
                point = [0, 0, 0]
                point[fast], point[middle], point[slow] = a, b, c
                lattice.append(point)
    lattice = np.array(lattice)
    position = (lattice + 0.5) * 0.05 + rng.uniform(0.0, 0.01, size=lattice.shape)
    position[0] = (0.025, 0.025, 0.025)
    return position, rng.permutation(len(lattice))


@pytest.mark.parametrize("counts, numbering", [
    ((8, 10, 12), (0, 1, 2)),   # x shortest: x fastest, then y, then z
    ((12, 10, 8), (2, 1, 0)),   # z shortest: z fastest, then y, then x
    ((10, 24, 6), (2, 0, 1)),   # a long y (the mixer's drum axis): y slowest
])
def test_spatial_order_numbers_a_shuffled_lattice_as_a_mesher_would(counts, numbering):
    # Sorted with cells of the spacing (each point alone in its cell), the
    # shuffled lattice comes back numbered row-major with the axis of fewest
    # cells fastest and that of most slowest (spatial_order.h: a contact then
    # reaches the fewest rows ahead).
    position, shuffle = ShuffledLattice(counts, numbering, seed=7)
    order = Dem().SpatialOrder(position[shuffle], 0.05, np.zeros(len(position), dtype=np.uint32))
    np.testing.assert_array_equal(shuffle[order], np.arange(len(position)))


def test_spatial_order_rejects_a_bad_cell_size():
    with pytest.raises(RuntimeError, match="cell size"):
        Dem().SpatialOrder([(0.0, 0.0, 0.0)], 0.0, [0])
    with pytest.raises(RuntimeError, match="groups"):
        Dem().SpatialOrder([(0.0, 0.0, 0.0)], 1.0, [0, 0])


def test_a_sorted_run_follows_the_unsorted_one_to_round_off():
    sorted_run, _ = RunPile(sort_every=14)
    unsorted_run, _ = RunPile(sort_every=0)
    ids = sorted_run.Particles.element_id
    assert np.any(np.diff(ids.astype(np.int64)) < 0), "the rows were not reordered"
    assert np.all(np.diff(unsorted_run.Particles.element_id.astype(np.int64)) > 0)
    assert sorted_run.NumberOfParticleContacts() == unsorted_run.NumberOfParticleContacts()
    assert sorted_run.NumberOfParticleContacts() > 50
    a, b = ByElement(sorted_run), ByElement(unsorted_run)
    np.testing.assert_allclose(a["position"], b["position"], rtol=0, atol=1e-12)
    for name in ("velocity", "angular_velocity"):
        scale = np.abs(b[name]).max()
        np.testing.assert_allclose(a[name], b[name], rtol=0, atol=1e-9 * scale)


def test_sorted_runs_are_bitwise_the_same_for_one_and_two_threads():
    one, _ = RunPile(sort_every=14, threads=1)
    two, _ = RunPile(sort_every=14, threads=2)
    assert np.array_equal(one.Particles.element_id, two.Particles.element_id)
    for name in ("position", "velocity", "angular_velocity", "force", "torque"):
        assert np.array_equal(getattr(one.Particles, name), getattr(two.Particles, name))


def test_nodes_follow_their_rows_after_sorting_and_deletion():
    # The bounding box cuts the pile at x = 0.03: spheres leave it and are
    # deleted between sorts; every remaining node must still receive its own
    # row's results.
    box = ([-1.0, -1.0, -1.0], [0.03, 1.0, 1.0])
    strategy, spheres = RunPile(sort_every=14, steps=200, bounding_box=box)
    assert 0 < spheres.NumberOfElements() < 600
    strategy.WriteToNodes()
    p = strategy.Particles
    assert len(p.element_id) == spheres.NumberOfElements()
    # The nodes lie in the database in row order (what keeps the node
    # synchronisation sequential).
    assert [node.Id for node in spheres.Nodes] == list(p.element_id)
    for row, element_id in enumerate(p.element_id):
        node = spheres.GetNode(int(element_id))  # Pile numbers node and element alike
        np.testing.assert_array_equal([node.X, node.Y, node.Z], p.position[row])
        np.testing.assert_array_equal(node.GetSolutionStepValue(tessera.VELOCITY), p.velocity[row])


def test_a_node_handle_kept_by_a_script_follows_its_node_through_sorts():
    model, spheres, walls = Pile(600, spacing=0.0125)
    settings = Settings(2e-5, "Symplectic_Euler", (0, 0, -9.81), search_frequency=7,
                        tolerance=0.001)
    settings.sort_rows_frequency = 14
    settings.sort_rows_minimum = 0
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
    kept = spheres.GetNode(17)
    strategy.Initialize()
    Run(strategy, 60, 2e-5)
    strategy.WriteToNodes()
    row = list(strategy.Particles.element_id).index(17)
    assert kept.Id == 17
    np.testing.assert_array_equal([kept.X, kept.Y, kept.Z], strategy.Particles.position[row])


def test_sorted_clusters_keep_their_members_together_and_follow_the_unsorted_run(tmp_path):
    # The test_dem_clusters set-up of 600 dumbbells on a plate, numbered x
    # slowest, so that the sort (x fastest) moves every cluster's rows.
    from test_dem_clusters import DumbbellBed

    def run(sort_every):
        def sort(settings):
            settings.sort_rows_frequency = sort_every
            settings.sort_rows_minimum = 0
        model, strategy = DumbbellBed(tmp_path, sort)
        Run(strategy, 100, 1e-5)
        assert strategy.NumberOfParticleContacts() > 0 and strategy.NumberOfWallContacts() > 0
        return model, strategy

    (_, sorted_run), (_, unsorted_run) = run(30), run(0)
    p = sorted_run.Particles
    assert np.any(np.diff(p.element_id.astype(np.int64)) < 0), "the rows were not reordered"
    for k, cluster in enumerate(sorted_run.Clusters()):
        rows = slice(cluster["first_row"], cluster["first_row"] + cluster["row_count"])
        assert list(p.cluster[rows]) == [k + 1] * cluster["row_count"]
        assert np.all(np.diff(p.element_id[rows].astype(np.int64)) == 1)  # members in order
        np.testing.assert_allclose(p.position[rows].mean(axis=0), cluster["centre"], atol=1e-12)
    a, b = sorted_run.Clusters(), unsorted_run.Clusters()
    np.testing.assert_allclose([c["centre"] for c in a], [c["centre"] for c in b], rtol=0,
                               atol=1e-12)
    np.testing.assert_allclose([c["angular_velocity"] for c in a],
                               [c["angular_velocity"] for c in b], rtol=0, atol=1e-9)


def SlideOverStrip(sort_every, steps=1500, mu=0.3, overlap=1e-3):
    """Two lanes of 20 rotation-free spheres (R 5 mm) pushed at fixed velocity
    (+1 and -1 m/s along x) and constant overlap over a strip of triangles
    0.5 mm wide, searching every step: in most steps some contact hands its
    tangential history to the next face. The lanes lie 15 mm apart (never in
    contact) in one row of the sort's cells (2 R + the 10 mm search
    tolerance), so the spheres passing each other change the rows' order. A step moves a contact point by 10 µm: a
    fresh spring takes 23 steps to reach μ F_n, so a lost hand-over shows for
    that long. Returns the contact forces of every step, by element."""
    from dem_test_utilities import Material, Relate, Sphere, SpheresPart
    radius = 0.005
    model = tessera.Model()
    spheres = SpheresPart(model)
    walls = model.CreateModelPart("RigidFacePart")
    grain = Material(spheres, 1, density=2500.0, young=1e7)
    wall = Material(walls, 2, young=1e12)
    Relate(grain, wall, static_friction=mu)
    Relate(grain, grain)
    xs = np.linspace(-0.15, 0.15, 601)
    for i in range(len(xs) - 1):
        ids = [4 * i + k + 1 for k in range(4)]
        for node_id, (x, y) in zip(ids, [(xs[i], -0.05), (xs[i + 1], -0.05), (xs[i + 1], 0.07),
                                         (xs[i], 0.07)]):
            walls.CreateNewNode(node_id, x, y, 0.0)
        a, b, c, d = ids
        walls.CreateNewCondition("RigidFace3D3N", 2 * i + 1, [a, b, c], wall)
        walls.CreateNewCondition("RigidFace3D3N", 2 * i + 2, [a, c, d], wall)
    rng = np.random.default_rng(3)
    for k in range(40):
        lane = k % 2
        x = -0.12 + 0.006 * k + rng.uniform(0.0, 0.0015)
        Sphere(spheres, k + 1, (x, 0.0005 + 0.015 * lane, radius - overlap), radius, grain,
               velocity=(1.0 if lane == 0 else -1.0, 0.0, 0.0))
        for component in (tessera.VELOCITY_X, tessera.VELOCITY_Y, tessera.VELOCITY_Z):
            spheres.GetNode(k + 1).Fix(component)
    dt = 1e-5
    settings = Settings(dt, "Symplectic_Euler", (0, 0, 0), search_frequency=1, tolerance=0.01)
    settings.rotation = False
    settings.sort_rows_frequency = sort_every
    settings.sort_rows_minimum = 0
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
    strategy.Initialize()
    forces = []
    Run(strategy, steps, dt, lambda time: forces.append(ByElement(strategy)["contact_force"]))
    return strategy, np.array(forces)


def test_sorting_keeps_the_wall_contact_points_that_hand_histories_across_faces():
    # A contact that moves to the next face takes the tangential history of
    # the ended contact whose last point is nearest (thesis §3.5.2): a sort
    # must carry those points with their contacts. Sorted at every search, the
    # contact forces of every step equal the unsorted run's to round-off
    # (1e-9 of the largest force); after the springs have slipped once, both
    # slide at |F_t| = μ F_n (to 1e-6) at every seam.
    sorted_run, sorted_forces = SlideOverStrip(sort_every=1)
    unsorted_run, forces = SlideOverStrip(sort_every=0)
    assert np.any(np.diff(sorted_run.Particles.element_id.astype(np.int64)) < 0)
    assert sorted_run.NumberOfWallContacts() == unsorted_run.NumberOfWallContacts() == 40
    slipping = forces[30:]
    np.testing.assert_allclose(np.abs(slipping[..., 0]) / slipping[..., 2], 0.3, rtol=1e-6)
    np.testing.assert_allclose(sorted_forces, forces, rtol=0, atol=1e-9 * np.abs(forces).max())
