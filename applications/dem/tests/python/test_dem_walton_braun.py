"""DEM_D_Linear_Walton_Braun (contact_laws/laws/linear_walton_braun.h), the
hysteretic linear law of Walton & Braun (1986), through the running strategy:
a law that keeps six doubles of history per contact, the sixth (the largest
overlap δ_max) in the contact lists' side table (contact_force.h,
ExtraHistoryRow).

Closed forms (the law's, with k_1 = 2 E* R_eq, k_2 = k_1 / e², δ_0 = δ_max
(1 - e²)):
- a frictionless normal impact at relative speed v loads along k_1 to δ_max =
  v sqrt(m*/k_1) and unloads along k_2: it rebounds at e v, e = sqrt(k_1/k_2),
  and the spring's force vanishes at the plastic overlap δ_0. The rebound and
  δ_max are taken from a Velocity Verlet run with 2000 steps per loading
  half-period: rel 5e-5 (measured: rebound 2e-10 at e = 1, 1.2e-7, 6.4e-7,
  5.1e-6 at e = 0.8, 0.5, 0.2; δ_max and δ_0 2.1e-7; the step's sampling of
  the turning point and of the branch change); the force on each branch is algebraic in the
  overlap, so F = k_1 δ and F = k_2 (δ - δ_0) hold step by step to rounding
  (rel 1e-12 of k_1 δ_max).
- the stored elastic energy is F_ne² / (2 k_2) (what unloading returns, rel
  1e-12), and the rest of the normal work, (1 - e²) of the impact's energy,
  is dissipated: kinetic + elastic + dissipated stays the initial kinetic
  energy to 2e-3 (the dissipated power is summed step by step over the ~1000
  loading steps, an error O(Δt/t_c): measured 1.2e-3).
The history must survive what the contact lists do between steps (carry-over
at each search, searches every few steps and adaptive ones, the spatial sort,
the removal of other particles' rows): those runs give bitwise the positions
and velocities of a plain run. Losing δ_max makes the law reload along k_1
(the rebound then is elastic), and a side table row permuted out of step with
its record gives another pair's δ_max (the pairs below approach at different
speeds): both are far outside bitwise equality.
"""
import json
import math
import os
import shutil

import numpy as np
import pytest

import tessera

from dem_test_utilities import (Material, ParallelThreads, Relate, Run, RunKratosDeck, Settings,
                                Sphere, SpheresPart, SquarePlate)

LAW = "DEM_D_Linear_Walton_Braun"
RADIUS, DENSITY, YOUNG, POISSON = 0.01, 100.0, 1e5, 0.2  # the thesis' B2.2 spheres
E_STAR = YOUNG / (2.0 * (1.0 - POISSON**2))
MASS = DENSITY * 4.0 / 3.0 * math.pi * RADIUS**3


def Dem():
    from tessera import _dem
    return _dem


def PairStiffness():
    """k_1 of two equal spheres (R_eq = R / 2) and their m* = m / 2."""
    return 2.0 * E_STAR * 0.5 * RADIUS, 0.5 * MASS


def LoadingContactTime(k1, mass):
    return math.pi * math.sqrt(mass / k1)


def Collisions(speeds, restitution, law=LAW, steps_per_contact=2000, friction=0.0,
               bystander=None, swap=(), settings_hook=None, order=None):
    """Head-on pairs of equal spheres, pair k along x at y = 0.05 k approaching
    at relative speed speeds[k] (oblique by a tangential 5 % where friction is
    set). `bystander`: a pair created first (rows 0 and 1, the first entry of
    the candidate list once it touches) colliding at 1 m/s at that position,
    both moving at +10 m/s along z, apart from the other pairs. Pairs listed in `swap` create
    their right sphere first (the rows of a pair then change places when
    sorted in space). `order`: the order in which the pairs are created (their
    rows' order). Returns the strategy and its time step."""
    dem = Dem()
    model = tessera.Model()
    spheres = SpheresPart(model)
    material = Material(spheres, 1, density=DENSITY, young=YOUNG, poisson=POISSON)
    Relate(material, material, restitution=restitution, static_friction=friction, law=law)
    node = 1
    if bystander is not None:
        x, y, z = bystander
        for side in (-1.0, 1.0):
            Sphere(spheres, node, (x + side * (RADIUS + 1e-5), y, z), RADIUS, material,
                   velocity=(-0.5 * side, 0.0, 10.0))
            node += 1
    for k in (range(len(speeds)) if order is None else order):
        v = speeds[k]
        y = 0.05 * k
        tangential = 0.05 * v if friction > 0.0 else 0.0
        left = ((-RADIUS - 1e-5, y, 0.0), (0.5 * v, 0.5 * tangential, 0.0))
        right = ((RADIUS + 1e-5, y, 0.0), (-0.5 * v, -0.5 * tangential, 0.0))
        for position, velocity in ((right, left) if k in swap else (left, right)):
            Sphere(spheres, node, position, RADIUS, material, velocity=velocity)
            node += 1
    k1, mass = PairStiffness()
    dt = LoadingContactTime(k1, mass) / steps_per_contact
    settings = Settings(dt)
    if settings_hook is not None:
        settings_hook(settings)
    strategy = dem.ExplicitSolverStrategy(spheres, None, settings)
    strategy.Initialize()
    return strategy, dt


def ByElement(strategy):
    p = strategy.Particles
    order = np.argsort(p.element_id)
    return {name: getattr(p, name)[order].copy() for name in
            ("element_id", "position", "velocity", "angular_velocity")}


def StepsOfOneImpact(_speed=1.0):
    """Steps from the start to apart again at e >= 0.2 (t_1: LoadingContactTime,
    2000 steps): the 2e-5 m gap closed (20 steps at 1 m/s), loading t_1/2,
    unloading e t_1/2, then the flight from δ_0 to no overlap, δ_0 / (e v) =
    (1 - e²) t_1 / (π e): about 4200 steps at e = 0.2."""
    return 4400


@pytest.mark.parametrize("restitution", [1.0, 0.8, 0.5, 0.2])
def test_a_head_on_impact_rebounds_with_e_the_root_of_the_stiffness_ratio(restitution):
    strategy, dt = Collisions([1.0], restitution)
    Run(strategy, StepsOfOneImpact(1.0), dt)
    assert strategy.NumberOfParticleContacts() == 0  # apart again
    velocity = strategy.Particles.velocity
    # e = sqrt(k_1 / k_2) (Walton & Braun 1986), the relation's restitution.
    assert velocity[1][0] - velocity[0][0] == pytest.approx(restitution, rel=5e-5)
    np.testing.assert_allclose(velocity[:, 1:], 0.0, atol=1e-14)
    assert strategy.PairParameters(0, 0)["damping_ratio"] == 0.0  # no dashpot


def test_the_force_loads_along_k1_unloads_along_k2_and_leaves_the_plastic_overlap():
    e = 0.5
    strategy, dt = Collisions([1.0], e)
    k1, mass = PairStiffness()
    k2 = k1 / e**2
    overlaps, forces, energies = [], [], []

    def record(_time):
        p = strategy.Particles
        overlaps.append(2.0 * RADIUS - (p.position[1][0] - p.position[0][0]))
        forces.append(p.contact_force[1][0])  # the normal force, pushing 2 to +x
        energies.append(strategy.ContactElasticEnergy())

    Run(strategy, StepsOfOneImpact(1.0), dt, record)
    overlaps, forces = np.array(overlaps), np.array(forces)
    peak = int(np.argmax(overlaps))
    largest = overlaps[peak]
    # δ_max = v sqrt(m*/k_1): the undamped loading spring's amplitude.
    assert largest == pytest.approx(1.0 * math.sqrt(mass / k1), rel=5e-5)
    plastic = largest * (1.0 - e**2)
    scale = k1 * largest
    touching = overlaps > 0.0
    loading = touching & (np.arange(len(overlaps)) <= peak)
    unloading = touching & (np.arange(len(overlaps)) > peak)
    assert loading.sum() > 500 and unloading.sum() > 500
    np.testing.assert_allclose(forces[loading], k1 * overlaps[loading], rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(forces[unloading],
                               np.maximum(0.0, k2 * (overlaps[unloading] - plastic)),
                               rtol=0, atol=1e-12 * scale)
    # The spring lets go at δ_0 = δ_max (1 - e²) while the spheres still
    # overlap; they part with no force from there.
    free = unloading & (forces == 0.0)
    assert free.any() and overlaps[free].max() <= plastic
    last_pressed = np.nonzero(unloading & (forces > 0.0))[0][-1]
    assert overlaps[last_pressed] - forces[last_pressed] / k2 == pytest.approx(
        1.0 * math.sqrt(mass / k1) * (1.0 - e**2), rel=5e-5)
    # Stored energy F² / (2 k_2) on both branches (StoredEnergy from the history).
    energies = np.array(energies)
    np.testing.assert_allclose(energies[touching], forces[touching]**2 / (2.0 * k2), rtol=1e-12,
                               atol=1e-12 * scale * largest)


def test_the_dissipated_plastic_work_closes_the_energy_balance():
    e = 0.5

    def energy_on(settings):
        settings.energy_calculation = True

    strategy, dt = Collisions([1.0], e, settings_hook=energy_on)
    initial = strategy.GetEnergies()["total"]
    k1, mass = PairStiffness()
    assert initial == pytest.approx(0.5 * mass * 1.0**2, rel=1e-12)  # m* v² / 2
    Run(strategy, StepsOfOneImpact(1.0), dt)
    energies = strategy.GetEnergies()
    assert energies["kinetic_translational"] == pytest.approx(e**2 * initial, rel=5e-5)
    assert energies["elastic_normal"] == 0.0  # apart
    # The plastic work, (1 - e²) of the impact's energy, with the dashpots'.
    assert energies["dissipated_damping"] == pytest.approx((1.0 - e**2) * initial, rel=2e-3)
    assert energies["total"] == pytest.approx(initial, rel=2e-3)


def test_a_sphere_thrown_at_a_wall_rebounds_with_e_and_the_wall_keeps_its_history():
    dem = Dem()
    e, v = 0.6, 0.5
    model = tessera.Model()
    spheres = SpheresPart(model)
    walls = model.CreateModelPart("RigidFacePart")
    grain = Material(spheres, 1, density=DENSITY, young=YOUNG, poisson=POISSON)
    wall = Material(walls, 2, young=YOUNG, poisson=POISSON)
    Relate(grain, wall, restitution=e, law=LAW)
    Sphere(spheres, 1, (0.0, 0.0, RADIUS + 1e-5), RADIUS, grain, velocity=(0.0, 0.0, -v))
    SquarePlate(walls, wall, half=0.1)
    k1 = 2.0 * E_STAR * RADIUS  # against a wall R_eq = R, m* = m
    dt = LoadingContactTime(k1, MASS) / 2000
    strategy = dem.ExplicitSolverStrategy(spheres, walls, Settings(dt))
    strategy.Initialize()
    lowest = [RADIUS]
    last_force = []

    def record(_time):
        p = strategy.Particles
        lowest[0] = min(lowest[0], p.position[0][2])
        if p.contact_force[0][2] > 0.0:
            last_force[:] = [RADIUS - p.position[0][2], p.contact_force[0][2]]

    Run(strategy, 4400, dt, record)
    assert strategy.Particles.velocity[0][2] == pytest.approx(e * v, rel=5e-5)
    largest = RADIUS - lowest[0]
    assert largest == pytest.approx(v * math.sqrt(MASS / k1), rel=5e-5)
    overlap, force = last_force
    assert overlap - force * e**2 / k1 == pytest.approx(largest * (1.0 - e**2), rel=1e-9)


def test_the_law_needs_a_positive_restitution():
    with pytest.raises(tessera.Error, match="DEM_D_Linear_Walton_Braun needs "
                                            r"COEFFICIENT_OF_RESTITUTION in \(0, 1\]"):
        Collisions([1.0], 0.0)
    assert LAW in Dem().ContactLawNames()


# ------------------------------------------------------------------ the history's storage
SPEEDS = [1.0, 0.7, 0.45, 0.3]  # δ_max differs from pair to pair
# The pairs' rows from the slowest pair's to the fastest's: each pair that
# touches enters the candidate list before the pairs touching already (a
# search moves their histories), and the spatial sort reverses the order.
ORDER = (3, 2, 1, 0)


def Reference(steps, **keys):
    strategy, dt = Collisions(SPEEDS, 0.5, order=ORDER, **keys)
    Run(strategy, steps, dt)
    return strategy, ByElement(strategy)


def AssertBitwise(a, b):
    for name in ("position", "velocity", "angular_velocity"):
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


def test_the_plastic_pairs_rebound_with_e_whatever_their_speed():
    strategy, _ = Reference(6000)
    v = strategy.Particles.velocity
    for row, k in enumerate(ORDER):  # no sort: the rows in creation order
        assert v[2 * row + 1][0] - v[2 * row][0] == pytest.approx(0.5 * SPEEDS[k], rel=5e-5)


@pytest.mark.parametrize("frequency,adaptive", [(7, False), (25, True)])
def test_the_side_table_survives_searches_every_few_steps_and_adaptive_ones(frequency, adaptive):
    _, plain = Reference(6000)

    def search(settings):
        settings.search_frequency = frequency
        settings.search_tolerance = 0.002
        settings.adaptive_search = adaptive

    strategy, searched = Reference(6000, settings_hook=search)
    assert strategy.NumberOfSearches() > 6000 // frequency // 2
    AssertBitwise(plain, searched)


def test_sorting_the_rows_keeps_each_contact_its_own_history():
    _, plain = Reference(6000, swap=(1, 3))

    def sort(settings):
        settings.sort_rows_frequency = 3
        settings.sort_rows_minimum = 0

    strategy, sorted_run = Reference(6000, swap=(1, 3), settings_hook=sort)
    AssertBitwise(plain, sorted_run)
    # The rows were reordered: pairs 1 and 3 were created right sphere first.
    assert list(strategy.Particles.element_id) != sorted(strategy.Particles.element_id)
    # And with friction (the tangential spring changes sign where a pair's
    # rows change places; the side table does not).
    _, plain = Reference(6000, swap=(1, 3), friction=0.3)
    _, sorted_run = Reference(6000, swap=(1, 3), friction=0.3, settings_hook=sort)
    AssertBitwise(plain, sorted_run)


def test_removing_a_touching_pair_mid_contact_keeps_the_other_histories():
    # The bystanders (rows 0 and 1, touching) leave the bounding box at 10 m/s
    # while every pair is pressed: the contacts behind theirs move down by
    # one entry, the rows by two.
    _, plain = Reference(6000)

    def box(settings):
        settings.bounding_box = True
        settings.bounding_box_min = [-1.0, -1.0, -1.0]
        settings.bounding_box_max = [1.0, 1.0, 0.0125]

    strategy, removed = Reference(6000, bystander=(0.0, -0.1, 0.0), settings_hook=box)
    assert len(strategy.Particles) == 2 * len(SPEEDS)
    AssertBitwise(plain, {k: v for k, v in removed.items()})


def test_the_side_table_is_held_only_where_a_law_keeps_more_history():
    # Same spheres and candidates: the plastic law's lists hold one more
    # double per pair candidate than the linear law's, and nothing else.
    linear, dt = Collisions(SPEEDS, 0.5, law="DEM_D_Linear_viscous_Coulomb")
    plastic, _ = Collisions(SPEEDS, 0.5)
    for s in (linear, plastic):
        Run(s, 100, dt)  # touching
    candidates = plastic.NumberOfParticlePairCandidates()
    assert candidates == linear.NumberOfParticlePairCandidates() > 0
    held = plastic.GetMemoryReport()["pair_contacts"] - linear.GetMemoryReport()["pair_contacts"]
    assert candidates * 8 <= held <= 2 * candidates * 8  # capacity, not size


# ------------------------------------------------------------------ from a materials file
DECK = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data",
                                     "kratos_contact_models"))


def WaltonBraunMaterials(tmp_path, restitution=0.2):
    """The contact-models deck's materials file with the law's name (and
    `restitution`) in its relation: spheres and walls share the material."""
    with open(os.path.join(DECK, "MaterialsDEM_Linear_Viscous_Coulomb.json")) as f:
        materials = json.load(f)
    relation = materials["material_relations"][0]["Variables"]
    relation["DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME"] = LAW
    relation["COEFFICIENT_OF_RESTITUTION"] = restitution
    path = tmp_path / "MaterialsDEM_Walton_Braun.json"
    with open(path, "w") as f:
        json.dump(materials, f)
    return str(path)


def RunWaltonBraunDeck(tmp_path, threads):
    """The 500 spheres of Kratos' contact-models deck (overlapping one another
    and the floor and walls at the start) under the plastic law, 100 steps."""
    found = {}

    def record(stage):
        found["pair"] = stage.GetStrategy().PairParameters(0, 0)

    with ParallelThreads(threads):
        model = RunKratosDeck(DECK, tmp_path / f"threads{threads}",
                              materials=WaltonBraunMaterials(tmp_path), on_step=record)
    spheres = model.GetModelPart("SpheresPart")
    state = np.array([list(node.GetSolutionStepValue(variable)) for node in spheres.Nodes
                      for variable in (tessera.VELOCITY, tessera.ANGULAR_VELOCITY)])
    return found, state


def test_the_law_is_chosen_by_name_in_the_materials_file_and_runs_the_same_on_two_threads(
        tmp_path):
    found, one = RunWaltonBraunDeck(tmp_path, 1)
    _, two = RunWaltonBraunDeck(tmp_path, 2)
    assert found["pair"]["law"] == LAW
    assert found["pair"]["damping_ratio"] == 0.0
    assert np.all(np.isfinite(one)) and np.abs(one).max() > 0.0
    # Results identical for any thread count (the side table included).
    np.testing.assert_array_equal(one, two)


def test_a_zero_restitution_in_the_materials_file_is_an_error_naming_the_pair(tmp_path):
    with pytest.raises(tessera.Error, match="contact between .*DEM_D_Linear_Walton_Braun needs "
                                            r"COEFFICIENT_OF_RESTITUTION in \(0, 1\]"):
        RunKratosDeck(DECK, tmp_path, materials=WaltonBraunMaterials(tmp_path, 0.0))


# ------------------------------------------------------------------ checkpoints
def RunDeckFor(case, steps, restart=None, checkpoint=None):
    """The deck in `case` (the working directory) for `steps` steps, continued
    from the checkpoint `restart` if given, its state saved to `checkpoint`;
    returns the rows' state."""
    import tessera.dem
    parameters = tessera.Parameters.FromFile(os.path.join(case, "ProjectParametersDEM.json"))
    dt = parameters["MaxTimeStep"].GetDouble()
    parameters["FinalTime"].SetDouble((steps - 0.5) * dt)
    stage = tessera.dem.DEMAnalysisStage(tessera.Model(), parameters)
    if restart is not None:
        stage.RestartFrom(restart)
    stage.Initialize()
    stage.RunSolutionLoop()
    if checkpoint is not None:
        stage.SaveCheckpoint(checkpoint)
    rows = stage.GetStrategy().Particles
    state = {name: np.array(getattr(rows, name)) for name in
             ("element_id", "position", "velocity", "angular_velocity", "contact_force")}
    stage.Finalize()
    return state


def RestartedDeck(tmp_path, monkeypatch, law, n=60, k=30):
    """The contact-models deck under `law` (its relation in the materials
    file): n steps straight, and k steps, a checkpoint, and the rest in a fresh
    model. Returns both final states and the checkpoint's dataset names."""
    case = tmp_path / "case"
    shutil.copytree(DECK, case)
    materials = WaltonBraunMaterials(tmp_path)
    with open(materials) as f:
        content = json.load(f)
    content["material_relations"][0]["Variables"]["DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME"] = law
    with open(case / "MaterialsDEM.json", "w") as f:
        json.dump(content, f)
    with open(case / "ProjectParametersDEM.json") as f:
        parameters = json.load(f)
    parameters["solver_settings"]["material_import_settings"]["materials_filename"] = \
        "MaterialsDEM.json"
    with open(case / "ProjectParametersDEM.json", "w") as f:
        json.dump(parameters, f)
    monkeypatch.chdir(case)
    straight = RunDeckFor(str(case), n)
    RunDeckFor(str(case), k, checkpoint=str(case / "middle.h5"))
    continued = RunDeckFor(str(case), n, restart=str(case / "middle.h5"))
    datasets = tessera.CheckpointReader(str(case / "middle.h5")).ListDatasets("/Objects")
    return straight, continued, datasets


def test_a_restart_mid_contact_continues_bitwise_with_the_side_table(tmp_path, monkeypatch):
    """A checkpoint (applications/dem/io/dem_checkpoint: the strategy's contact
    lists saved as their columns) holds the side tables with the records: 30
    steps, a checkpoint and 30 more in a fresh model end bitwise as 60
    straight (500 spheres pressed against one another and the walls at the
    checkpoint, so that a lost δ_max changes their forces)."""
    straight, continued, datasets = RestartedDeck(tmp_path, monkeypatch, LAW)
    assert any(name.endswith("PairContacts/extra_history") for name in datasets)
    assert any(name.endswith("WallContacts/extra_history") for name in datasets)
    for name, values in straight.items():
        np.testing.assert_array_equal(values, continued[name], err_msg=name)
