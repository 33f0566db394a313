"""DEM_STRESS_TENSOR with the contacts' forces (issue 40): σ̄_i = (1/V_i)
Σ_c sym(r_c ⊗ F_c) over the sphere's bonds, its contacts with other spheres
and with the walls (digest §3.6). Checked on columns of spheres, unbonded
and bonded, pressed between two plates and brought to rest, against the average stress
theorem (Love–Weber): Σ_i V_i σ̄_i = Σ over the wall contacts of x_c ⊗ F_c
(the internal contacts cancel in pairs, Σ_i x_i ⊗ F_i vanishes at rest), here
per column -(F/4) H_c e_z ⊗ e_z, F the load and H_c the distance between the
column's two wall contact points: the contact point splits the overlap δ as
two springs in series (E_w / (E_i + E_w) = 1/2, the same E), so it lies δ/2
beyond the plate and H_c = H + (δ_top + δ_floor)/2, H the plates' gap. For a
sphere between two spheres -(F/4) (d_up + d_down)/2 (its contact points
halfway to its neighbours). The bond test is test_dem_bond_areas.py."""
import math

import numpy as np
import pytest

import tessera
import tessera.dem  # noqa: F401

from dem_test_utilities import (Face, Material, ParallelThreads, Relate, Run, Settings, Sphere,
                                SpheresPart)

R = 0.01
GAP = 2.5 * R  # between the columns' axes: no lateral contacts
LEVELS = 3
SQUEEZE = 3e-3 * R  # the top sphere's initial overlap with the top plate
YOUNG, POISSON = 1e7, 0.25  # the spheres' and the plates'


def Dem():
    from tessera import _dem
    return _dem


def AssertIdentityAtAnyInstant(spheres, position, radius, faces):
    """Σ_i V_i σ̄_i = sym(−Σ_i x_i ⊗ F_i) (the internal x_c ⊗ F cancel in
    pairs where a pair's arms meet at one point), F_i = CONTACT_FORCES, to
    1e-12 of Σ |x_i| |F_i| (round-off); V_i = VpacAreaRatio(n_i) 4/3 π R_i³
    with n_i = faces(i, touching), touching the rows within r_i + r_j of i
    (i itself included)."""
    total, expected, scale = np.zeros((3, 3)), np.zeros((3, 3)), 0.0
    for a, node in enumerate(spheres.Nodes):
        x = np.array([node.X, node.Y, node.Z])
        assert np.array_equal(x, position[a])
        force = np.asarray(node.GetSolutionStepValue(tessera.CONTACT_FORCES))
        expected -= 0.5 * (np.outer(x, force) + np.outer(force, x))
        scale += np.linalg.norm(x) * np.linalg.norm(force)
        d = position - position[a]
        touching = np.einsum("ij,ij->i", d, d) < (radius + radius[a])**2
        volume = Dem().VpacAreaRatio(int(faces(a, touching))) * 4.0 * math.pi * radius[a]**3 / 3.0
        total += volume * np.asarray(node.GetSolutionStepValue(tessera.DEM_STRESS_TENSOR))
    print("largest entry / scale", abs(expected).max() / scale,
          "error / scale", abs(total - expected).max() / scale)
    assert abs(expected).max() > 1e-3 * scale
    np.testing.assert_allclose(total, expected, rtol=0, atol=1e-12 * scale)


def Columns(stress=True, block_rows=None, bonded=False):
    """Four columns of LEVELS touching spheres on a floor at z = 0 under a
    plate at 2 R LEVELS - SQUEEZE (both fixed, frictionless, e = 0.1): the
    spheres' and walls' parts and the strategy, run to rest. With `bonded`,
    each column's touching spheres are bonded (DEM_KDEM, bar springs, too
    strong to break); the columns stand 0.5 R apart, beyond the bond search."""
    model = tessera.Model()
    spheres = SpheresPart(model)
    if stress:
        spheres.AddNodalSolutionStepVariable(tessera.DEM_STRESS_TENSOR)
    if bonded:
        spheres.AddNodalSolutionStepVariable(tessera.COHESIVE_GROUP)
    walls = model.CreateModelPart("RigidFacePart")
    grain = Material(spheres, 1, density=2000.0, young=YOUNG, poisson=POISSON)
    plate = Material(walls, 2, young=YOUNG, poisson=POISSON)
    for a, b in ((grain, grain), (grain, plate)):
        Relate(a, b, restitution=0.1, static_friction=0.0, law="DEM_D_Linear_viscous_Coulomb")
    if bonded:
        relation = grain.GetSubProperties(1)
        for name, value in {"DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME": "DEM_KDEM",
                            "CONTACT_TAU_ZERO": 1e12, "CONTACT_INTERNAL_FRICC": 0.0}.items():
            relation.SetValue(getattr(tessera, name), value)
    node = 0
    for cx in (0.0, GAP):
        for cy in (0.0, GAP):
            for k in range(LEVELS):
                node += 1
                Sphere(spheres, node, (cx, cy, R + 2 * R * k), R, grain)
                if bonded:
                    spheres.GetNode(node).SetSolutionStepValue(tessera.COHESIVE_GROUP, 1)
    h, top = 4 * R, 2 * R * LEVELS - SQUEEZE
    Face(walls, 1, [(-h, -h, 0), (h, -h, 0), (h, h, 0), (-h, h, 0)], plate)
    Face(walls, 2, [(-h, -h, top), (-h, h, top), (h, h, top), (h, -h, top)], plate)
    # The bonds' search takes the neighbours within the search tolerance:
    # touching in exact arithmetic, 2 R apart to round-off here.
    settings = Settings(2e-5, "Symplectic_Euler", tolerance=1e-6 if bonded else 0.0)
    settings.continuum = bonded
    if block_rows is not None:
        settings.force_block_rows = block_rows
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
    strategy.Initialize()
    Run(strategy, 20000, 2e-5)
    strategy.WriteToNodes()
    return spheres, walls, strategy, top


@pytest.mark.parametrize("bonded", [False, True])
def test_columns_at_rest_satisfy_the_average_stress_theorem(bonded):
    """Unbonded, and bonded (the bonds take the contacts' place: the
    identity is the same, a bond's arms meeting at its midpoint); the
    bonded columns' load is also that of springs in series: the two wall
    contacts (k_w = 2 E* R, E* = E / (2 (1 - ν²)), thesis 2.33) and LEVELS - 1
    bonds (k_b = E π R² / 2R, bar springs) share the squeeze,
    F / 4 = SQUEEZE / (2 / k_w + (LEVELS - 1) / k_b); rel 1e-9 (the rest's
    residual, 1e-12 of the load, and the linear springs' round-off)."""
    spheres, walls, strategy, top = Columns(bonded=bonded)
    if bonded:
        bonds = strategy.BondArrays()
        assert len(bonds["first"]) == 4 * (LEVELS - 1)
        assert not np.any(np.asarray(bonds["state"]))
    # The load: the particles' force on the top plate (its four nodes).
    load = sum(walls.GetNode(n).GetSolutionStepValue(tessera.CONTACT_FORCES)[2]
               for n in (5, 6, 7, 8))
    assert load > 0.0
    # The residual of the rest: the largest net force on a sphere over the load.
    residual = max(abs(np.asarray(node.GetSolutionStepValue(tessera.CONTACT_FORCES))).max()
                   for node in spheres.Nodes) / load
    print(f"load {load:.6e} N, net force / load {residual:.1e}")
    assert residual < 1e-12
    if bonded:
        wall_spring = 2.0 * YOUNG / (2.0 * (1.0 - POISSON**2)) * R
        bond_spring = YOUNG * math.pi * R**2 / (2.0 * R)
        series = SQUEEZE / (2.0 / wall_spring + (LEVELS - 1) / bond_spring)
        print(f"load / 4 {load / 4:.9e} N, springs in series {series:.9e} N")
        assert abs(load / 4 / series - 1.0) < 1e-9
    # Each sphere has two contacts: V_i the virtual polyhedron of 4 faces (n_i clamped).
    volume = Dem().VpacAreaRatio(2) * 4.0 * math.pi * R**3 / 3.0
    moments = {node.Id: volume * np.asarray(node.GetSolutionStepValue(tessera.DEM_STRESS_TENSOR))
               for node in spheres.Nodes}
    expected = np.zeros((3, 3))
    # Tolerance: the residual of the rest (1e-12 of the load) times the lever
    # (< 2 H), and round-off; the lateral entries are exactly 0 (no friction).
    for column in range(4):
        ids = [LEVELS * column + k + 1 for k in range(LEVELS)]
        z = [spheres.GetNode(i).Z for i in ids]
        reach = top + ((z[-1] + R - top) + (R - z[0])) / 2.0  # H_c
        column_sum = sum(moments[i] for i in ids)
        assert abs(column_sum[2, 2] / (-reach * load / 4) - 1.0) < 1e-11
        expected[2, 2] -= reach * load / 4
        # The middle sphere: contact points halfway to its neighbours.
        middle = moments[ids[1]]
        assert abs(middle[2, 2] / (-load / 4 * (z[2] - z[0]) / 2.0) - 1.0) < 1e-11
        assert np.all(middle[:2, :] == 0.0) and np.all(middle[:, :2] == 0.0)
    total = sum(moments.values())
    print("Σ V σ̄ / (H F):", total[2, 2] / (-top * load),
          "/ (Σ H_c F):", total[2, 2] / expected[2, 2])
    np.testing.assert_allclose(total, expected, rtol=0, atol=1e-11 * top * load)


def test_the_kept_forces_change_no_result():
    """Declaring DEM_STRESS_TENSOR makes the passes keep each contact's force
    (the batch kernel's lanes and the scalar loop): the same bits."""
    with_stress = Columns(stress=True)[2]
    without = Columns(stress=False)[2]
    assert np.array_equal(np.asarray(with_stress.Particles.position),
                          np.asarray(without.Particles.position))
    assert np.array_equal(np.asarray(with_stress.Particles.velocity),
                          np.asarray(without.Particles.velocity))


def test_the_stress_tensor_is_the_same_on_two_threads():
    """Force blocks of two rows (a column spans two blocks: cross contacts), on
    one thread and on two: the same bits."""
    tensors = []
    for threads in (1, 2):
        with ParallelThreads(threads):
            spheres = Columns(block_rows=2)[0]
        tensors.append(np.array([node.GetSolutionStepValue(tessera.DEM_STRESS_TENSOR)
                                 for node in spheres.Nodes]))
    assert np.any(tensors[0] != 0.0)
    assert np.array_equal(tensors[0], tensors[1])


def test_the_stress_tensor_holds_the_last_pass_after_the_lists_change():
    """The tensor is the last force pass's, written by the pass: a sphere
    added to the model part beside a column's bottom sphere, overlapping it
    (ReadFromNodes adopts it and searches its candidates, which changes the
    pair lists the pass kept its forces in) changes no tensor until the next
    pass (bitwise), and has none itself."""
    spheres, walls, strategy, top = Columns()
    before = {node.Id: np.array(node.GetSolutionStepValue(tessera.DEM_STRESS_TENSOR))
              for node in spheres.Nodes}
    assert all(np.any(value != 0.0) for value in before.values())
    Sphere(spheres, 100, (-1.99 * R, 0.0, R), R, spheres.GetElement(1).GetProperties())
    candidates = strategy.NumberOfParticlePairCandidates()
    strategy.ReadFromNodes()
    assert strategy.NumberOfParticlePairCandidates() > candidates
    strategy.WriteToNodes()
    for node in spheres.Nodes:
        value = np.array(node.GetSolutionStepValue(tessera.DEM_STRESS_TENSOR))
        if node.Id == 100:
            assert value.shape == (3, 3) and not np.any(value)  # none yet
        else:
            assert np.array_equal(value, before[node.Id]), node.Id


def Collision(batched=True, eight_lanes=True):
    """27 spheres (0.85–1.05 R, Hertz, μ 0.5, e 0.5, spinning) thrown at each
    other, no walls, Velocity Verlet, 2 ms: the spheres' part and the strategy."""
    rng = np.random.default_rng(7)
    model = tessera.Model()
    spheres = SpheresPart(model)
    spheres.AddNodalSolutionStepVariable(tessera.DEM_STRESS_TENSOR)
    grain = Material(spheres, 1, density=2000.0, young=1e7, poisson=0.25)
    Relate(grain, grain, restitution=0.5, static_friction=0.5)
    node = 0
    for i in range(3):
        for j in range(3):
            for k in range(3):
                node += 1
                centre = 2.2 * R * (np.array([i, j, k]) - 1.0)
                Sphere(spheres, node, centre + rng.uniform(-0.05, 0.05, 3) * R,
                       R * rng.uniform(0.85, 1.05), grain, velocity=-centre / (2.2 * R) * 2.0,
                       angular_velocity=rng.uniform(-50.0, 50.0, 3))
    settings = Settings(2e-6, "Velocity_Verlet")
    settings.batched_pair_contacts = batched
    settings.eight_lane_pair_contacts = eight_lanes
    strategy = Dem().ExplicitSolverStrategy(spheres, None, settings)
    strategy.Initialize()
    Run(strategy, 1000, 2e-6)  # 2 ms: 47 contacts, the first after 0.7 ms
    strategy.WriteToNodes()
    return spheres, strategy


def test_colliding_frictional_spheres_give_the_identity_at_any_instant():
    """Collision: Velocity Verlet's forces are those of the positions after
    the step. The internal contacts' x_c ⊗ F cancel in pairs (the two
    arms meet at one point, a_i + a_j = d), so at every instant Σ_i V_i σ̄_i =
    sym(-Σ_i x_i ⊗ F_i), F_i the sphere's CONTACT_FORCES: tangential forces
    and oblique normals included. Rel 1e-12 of Σ |x_i| |F_i| (round-off of
    sums in another order; measured 6e-17)."""
    spheres, strategy = Collision()
    contacts = strategy.NumberOfParticleContacts()
    print("contacts", contacts)
    assert contacts >= 20
    position = np.asarray(strategy.Particles.position)
    radius = np.asarray(strategy.Particles.radius)
    # V_i: n_i the sphere's touching contacts (the pass's test d² < (r_i + r_j)²).
    AssertIdentityAtAnyInstant(spheres, position, radius,
                               lambda a, touching: np.count_nonzero(touching) - 1)


def test_the_batch_kernel_and_the_scalar_loop_keep_the_same_forces():
    """The stress tensors of Collision with the batch kernel (four and eight
    lanes where the processor has them) and with the scalar loop: the same bits."""
    tensors = []
    for batched, eight_lanes in ((True, True), (True, False), (False, False)):
        spheres = Collision(batched, eight_lanes)[0]
        tensors.append(np.array([node.GetSolutionStepValue(tessera.DEM_STRESS_TENSOR)
                                 for node in spheres.Nodes]))
    print("batch kernel", Dem().PairContactBatchAvailable(),
          "eight lanes", Dem().EightLanePairContactBatchAvailable())
    assert np.any(tensors[0] != 0.0)
    for other in tensors[1:]:
        assert np.array_equal(tensors[0], other)


def BondedLattice(steps=400, stress=True, lanes=True, kratos=False):
    """27 spheres (R, a simple cubic lattice at contact) bonded to their six
    neighbours (DEM_Dempack, weak in tension: some bonds break and act as
    contacts) and thrown about (random velocities up to 0.5 m/s, spins),
    no walls, Velocity Verlet: the spheres' part and the strategy after
    `steps` steps of 1e-7 s. With `kratos`, Kratos' lever arms and broken
    bonds (bond by bond)."""
    rng = np.random.default_rng(11)
    model = tessera.Model()
    spheres = SpheresPart(model)
    spheres.AddNodalSolutionStepVariable(tessera.COHESIVE_GROUP)
    if stress:
        spheres.AddNodalSolutionStepVariable(tessera.DEM_STRESS_TENSOR)
    grain = Material(spheres, 1, density=2500.0, young=1e9, poisson=0.25)
    Relate(grain, grain, restitution=0.5, static_friction=0.3, law="DEM_D_Linear_viscous_Coulomb")
    relation = grain.GetSubProperties(1)
    for name, value in {"DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME": "DEM_Dempack",
                        "CONTACT_SIGMA_MIN": 2e5, "CONTACT_TAU_ZERO": 4e5}.items():
        relation.SetValue(getattr(tessera, name), value)
    node = 0
    for i in range(3):
        for j in range(3):
            for k in range(3):
                node += 1
                Sphere(spheres, node, 2.0 * R * np.array([i, j, k], dtype=float), R, grain,
                       velocity=rng.uniform(-0.5, 0.5, 3),
                       angular_velocity=rng.uniform(-50.0, 50.0, 3))
                spheres.GetNode(node).SetSolutionStepValue(tessera.COHESIVE_GROUP, 1)
    settings = Settings(1e-7, "Velocity_Verlet", tolerance=1e-4)
    settings.continuum = True
    settings.tuning.batched_bonds = lanes
    if kratos:
        settings.bond_lever_arms = settings.broken_bonds = "kratos"
    strategy = Dem().ExplicitSolverStrategy(spheres, None, settings)
    strategy.Initialize()
    Run(strategy, steps, 1e-7)
    strategy.WriteToNodes()
    return spheres, strategy


@pytest.mark.parametrize("kratos", [False, True])
def test_a_bonded_lattice_gives_the_identity_at_any_instant(kratos):
    """BondedLattice: each bond's two arms meet at one point of the line of
    centres where its forces were evaluated (Velocity Verlet: the positions
    after the step), so its x ⊗ F cancel as a contact's do and Σ_i V_i σ̄_i =
    sym(-Σ_i x_i ⊗ F_i) holds exactly for strained, intact and broken bonds
    (F_i = CONTACT_FORCES, the bonds' forces included); also with Kratos'
    lever arms and broken bonds, whose torques take other arms (the stress
    takes the point that divides the distance as the radii do). Rel 1e-12 of Σ |x_i|
    |F_i|, round-off of sums in another order (the rest length's arm was off
    by the bonds' strain, here about 1e-4 of it: measured below)."""
    spheres, strategy = BondedLattice(kratos=kratos)
    bonds = strategy.BondArrays()
    first, second = np.asarray(bonds["first"]), np.asarray(bonds["second"])
    state = np.asarray(bonds["state"])
    print("bonds", len(first), "broken", np.count_nonzero(state))
    assert len(first) == 54 and 0 < np.count_nonzero(state) < len(first)
    position = np.asarray(strategy.Particles.position)
    radius = np.asarray(strategy.Particles.radius)
    strain = max(abs(np.linalg.norm(position[b] - position[a]) / (radius[a] + radius[b]) - 1.0)
                 for a, b in zip(first, second))
    print("largest bond strain", strain)
    assert strain > 1e-6
    bonded = {(int(a), int(b)) for a, b in zip(first, second)}
    # V_i: n_i its bonds plus its touching unbonded contacts.
    AssertIdentityAtAnyInstant(spheres, position, radius, lambda a, touching: (
        np.count_nonzero(first == a) + np.count_nonzero(second == a) + sum(
            1 for b in np.flatnonzero(touching)
            if b != a and (min(a, b), max(a, b)) not in bonded)))


def test_the_bonds_lanes_keep_the_same_arms_and_change_no_result():
    """BondedLattice with the bonds four at a time on AVX2 lanes (where the
    processor has them) and one by one: the same tensors, bitwise; and the
    run without DEM_STRESS_TENSOR (no kept force or length) moves the spheres
    bitwise alike."""
    tensors, rows = [], []
    for stress, lanes in ((True, True), (True, False), (False, True)):
        spheres, strategy = BondedLattice(stress=stress, lanes=lanes)
        rows.append((np.array(strategy.Particles.position), np.array(strategy.Particles.velocity)))
        if stress:
            tensors.append(np.array([node.GetSolutionStepValue(tessera.DEM_STRESS_TENSOR)
                                     for node in spheres.Nodes]))
    assert np.any(tensors[0] != 0.0)
    assert np.array_equal(tensors[0], tensors[1])
    for position, velocity in rows[1:]:
        assert np.array_equal(position, rows[0][0]) and np.array_equal(velocity, rows[0][1])


def test_post_stress_strain_option_declares_and_writes_the_tensor(tmp_path, monkeypatch):
    # Kratos' PostStressStrainOption selects DEM_STRESS_TENSOR: the stage
    # declares it (the force pass then sums it) and writes it to the spheres'
    # VTK files; without the flag it is not declared and costs nothing.
    from test_dem_analysis_stage import SmallDeck, Stage
    for post in (False, True):
        folder = tmp_path / str(post)
        folder.mkdir()
        monkeypatch.chdir(folder)
        model, stage = Stage(SmallDeck(folder, PostStressStrainOption=post, post_vtk_option=True,
                                       OutputTimeStep=0.01, FinalTime=0.01))
        stage.Run()
        spheres = model.GetModelPart("SpheresPart")
        assert spheres.HasNodalSolutionStepVariable(tessera.DEM_STRESS_TENSOR) == post
        files = sorted(f for f in (folder / "small_Post_Files").iterdir()
                       if f.name.startswith("SpheresPart") and f.suffix == ".vtu")
        assert ("DEM_STRESS_TENSOR" in files[-1].read_text(errors="replace")) == post
        if post:
            # The sphere at rest on the floor (mdpa node 11) carries its weight
            # through the wall contact: compressive σ_zz, the only large entry.
            s = np.asarray(spheres.GetNode(1).GetSolutionStepValue(tessera.DEM_STRESS_TENSOR))
            assert s[2, 2] < 0.0 and abs(s[0, 0]) < 1e-6 * abs(s[2, 2])
