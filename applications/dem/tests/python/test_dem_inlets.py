"""Particle inlets (applications/dem/inlets/, Kratos' DEM_Inlet.mdpa).

- Rate: with INLET_NUMBER_OF_PARTICLES n the inlet has injected exactly
  floor(n (t - start) + 1e-6) particles by time t (while a point is free),
  none before INLET_START_TIME, none after INLET_STOP_TIME; with
  IMPOSED_MASS_FLOW_OPTION the injected mass M(t) satisfies
  MASS_FLOW (t - start) <= M < MASS_FLOW (t - start) + (largest particle mass).
- Radii: sample mean and standard deviation of N injected radii against the
  normal and lognormal parameters within 4 standard errors (σ/√N for the mean,
  σ/√(2N) for the deviation of a normal sample, σ √((κ-1)/(4N)) with the
  lognormal kurtosis κ), discrete frequencies within 4 binomial standard
  errors, piecewise-linear mean within 4 standard errors. 4 standard errors:
  a false failure has probability < 1e-4 per check, and the seed is fixed, so a
  passing run passes every time.
- Velocities: the component along VELOCITY is |VELOCITY| (1e-12), the angle to
  it at most MAX_RAND_DEVIATION_ANGLE, the perpendicular components average 0.
- A dense inlet (points closer than a diameter) never injects overlapping
  spheres, nor on an existing sphere, and the contact lists hold the new ones
  (and keep the old ones).
- One and two threads give bitwise the same run.
- Bad input: errors name the sub model part and the key.
"""
import json
import math

import numpy as np
import pytest

import tessera

from dem_test_utilities import Material, Relate, Settings, Sphere, SpheresPart


def Dem():
    from tessera import _dem
    return _dem


def InletModel(points, data, density=2500.0, name="Inlet_1"):
    """A spheres part, and an inlet part holding Properties 1 (legacy style) and
    one inlet at `points` with the SubModelPartData `data` over defaults."""
    model = tessera.Model()
    SpheresPart(model)
    inlets = model.CreateModelPart("DEMInletPart")
    grain = Material(inlets, 1, density=density, young=1e7, poisson=0.25)
    Relate(grain, grain, restitution=0.5, static_friction=0.3)
    for k, x in enumerate(points):
        inlets.CreateNewNode(k + 1, *x)
    part = inlets.CreateSubModelPart(name)
    part.AddNodes(list(range(1, len(points) + 1)))
    values = {"PROPERTIES_ID": 1, "IDENTIFIER": name, "INJECTOR_ELEMENT_TYPE": "SphericParticle3D",
              "ELEMENT_TYPE": "SphericParticle3D", "CONTAINS_CLUSTERS": False,
              "RIGID_BODY_MOTION": False, "VELOCITY": [0.0, 0.0, -1.0],
              "MAX_RAND_DEVIATION_ANGLE": 0.0, "INLET_NUMBER_OF_PARTICLES": 100.0,
              "IMPOSED_MASS_FLOW_OPTION": False, "INLET_START_TIME": 0.0, "INLET_STOP_TIME": 1.0,
              "RADIUS": 0.01, "PROBABILITY_DISTRIBUTION": "normal", "STANDARD_DEVIATION": 0.0}
    values.update(data)
    for key, value in values.items():
        if value is not None:
            part.SetValue(tessera.GetVariable(key), value)
    return model, grain


def Grid(count, spacing, z=0.0):
    side = int(math.ceil(math.sqrt(count)))
    return [(spacing * (k % side), spacing * (k // side), z) for k in range(count)]


def RunInlet(model, dt, steps, seed=42, tables=None, on_step=None, gravity=(0.0, 0.0, 0.0),
             search_frequency=1, tolerance=0.0, before_injection=None):
    """Builds the strategy and the inlets, runs `steps` steps of `dt` with an
    injection after each; before_injection(strategy) and
    on_step(time, strategy, inlets, first_new_row) around it."""
    dem = Dem()
    strategy = dem.ExplicitSolverStrategy(
        model.GetModelPart("SpheresPart"), None,
        Settings(dt, "Symplectic_Euler", gravity, search_frequency, tolerance))
    inlets = dem.ParticleInlets(model.GetModelPart("DEMInletPart"), strategy, seed, tables or {})
    strategy.Initialize()
    time = 0.0
    for _ in range(steps):
        time += dt
        strategy.SolveSolutionStep(time)
        before = len(strategy.Particles)
        if before_injection is not None:
            before_injection(strategy)
        inlets.Inject(time)
        if on_step is not None:
            on_step(time, strategy, inlets, before)
    strategy.WriteToNodes()
    return strategy, inlets


# ------------------------------------------------------------------ rate, start, stop
def test_particles_per_second_is_exact_up_to_the_integer_part_and_respects_start_and_stop():
    rate, start, stop, dt = 1000.0, 0.01, 0.03, 1e-4
    # 4 points; a particle leaves its point (2 r = 0.01) in 5 steps at 20 m/s.
    model, _ = InletModel(Grid(4, 0.05), {"INLET_NUMBER_OF_PARTICLES": rate, "INLET_START_TIME": start,
                                          "INLET_STOP_TIME": stop, "VELOCITY": [0.0, 0.0, -20.0]})
    counts = []

    def check(time, strategy, inlets, _):
        expected = 0 if time < start else math.floor(rate * (min(time, stop) - start) + 1e-6)
        counts.append((inlets.InjectedCount(0), expected, len(strategy.Particles)))

    strategy, inlets = RunInlet(model, dt, 400, on_step=check)
    assert all(got == expected == rows for got, expected, rows in counts)
    assert counts[-1][0] == 20  # 1000/s over 0.02 s
    spheres = model.GetModelPart("SpheresPart")
    assert spheres.NumberOfElements() == spheres.NumberOfNodes() == 20
    assert inlets.Name(0) == "DEMInletPart.Inlet_1"
    # The nodes carry the results like the spheres read from an mdpa.
    node = next(iter(spheres.Nodes))
    assert node.GetSolutionStepValue(tessera.RADIUS) == 0.01
    assert node.GetSolutionStepValue(tessera.VELOCITY_Z) == -20.0


def test_imposed_mass_flow_is_met_within_one_particle():
    mass_flow, dt, density, radius = 2.0, 1e-4, 2500.0, 0.005
    model, _ = InletModel(Grid(9, 0.04), {"IMPOSED_MASS_FLOW_OPTION": True, "MASS_FLOW": mass_flow,
                                          "RADIUS": radius, "STANDARD_DEVIATION": 0.001,
                                          "VELOCITY": [0.0, 0.0, -20.0], "INLET_STOP_TIME": 0.02})
    largest = density * 4.0 / 3.0 * math.pi * (1.5 * radius) ** 3  # MAXIMUM_RADIUS 1.5 R
    checks = []

    def check(time, strategy, inlets, _):
        target = mass_flow * min(time, 0.02)
        mass = inlets.InjectedMass(0)
        checks.append(target <= mass + 1e-15 < target + largest)
        # The rows hold exactly what the inlet counted.
        checks.append(math.isclose(float(np.sum(strategy.Particles.mass)), mass, rel_tol=1e-12))

    _, inlets = RunInlet(model, dt, 300, on_step=check)
    assert all(checks)
    assert inlets.InjectedCount(0) > 20  # 0.04 kg of 1.3 g spheres


# ------------------------------------------------------------------ radius distributions
def InjectMany(data, tables=None, count=2000):
    """`count` particles from 400 points far apart, cleared within one step."""
    rate = count / 10 / 1e-3  # all within 10 steps of 1e-3 s
    model, _ = InletModel(Grid(400, 0.1), {"INLET_NUMBER_OF_PARTICLES": rate,
                                           "VELOCITY": [0.0, 0.0, -200.0], **data})
    strategy, inlets = RunInlet(model, 1e-3, 10, tables=tables)
    assert inlets.InjectedCount(0) == count
    return strategy.Particles.radius


def test_normal_radii_have_the_mean_and_deviation_asked_for():
    mean, sigma = 0.01, 0.001
    r = InjectMany({"RADIUS": mean, "STANDARD_DEVIATION": sigma})
    n = len(r)
    # Truncation at 0.5 R and 1.5 R is ±5 σ: it changes the variance by 1.5e-5 relative.
    assert abs(r.mean() - mean) < 4 * sigma / math.sqrt(n)
    assert abs(r.std(ddof=1) - sigma) < 4 * sigma / math.sqrt(2 * n)
    assert r.min() >= 0.5 * mean and r.max() <= 1.5 * mean


def test_lognormal_radii_have_the_mean_and_deviation_of_the_radius_asked_for():
    mean, sigma = 0.01, 0.001  # of the radius itself (Kratos' RADIUS, STANDARD_DEVIATION)
    r = InjectMany({"RADIUS": mean, "STANDARD_DEVIATION": sigma,
                    "PROBABILITY_DISTRIBUTION": "lognormal"})
    n = len(r)
    cv = sigma / mean
    kurtosis = (1 + cv ** 2) ** 4 + 2 * (1 + cv ** 2) ** 3 + 3 * (1 + cv ** 2) ** 2 - 3
    skewness = (cv ** 2 + 3) * cv
    assert abs(r.mean() - mean) < 4 * sigma / math.sqrt(n)
    assert abs(r.std(ddof=1) - sigma) < 4 * sigma * math.sqrt((kurtosis - 1) / (4 * n))
    # Skewness 0.30 (a normal law would give 0): standard error sqrt(6/n).
    z = (r - r.mean()) / r.std()
    assert abs(np.mean(z ** 3) - skewness) < 4 * math.sqrt(6 / n)


def Table(values, weights, seed=None):
    table = Dem().InletRadiusTable()
    table.values, table.weights = values, weights
    if seed is not None:
        table.use_seed, table.seed = True, seed
    return table


def test_discrete_and_piecewise_linear_radii_follow_their_tables():
    r = InjectMany({"PROBABILITY_DISTRIBUTION": "discrete"},
                   {"Inlet_1": Table([0.01, 0.02], [1.0, 3.0])})
    assert set(np.unique(r)) == {0.01, 0.02}
    share = np.mean(r == 0.02)
    assert abs(share - 0.75) < 4 * math.sqrt(0.75 * 0.25 / len(r))
    # Density rising linearly from 0 at 0.01 to its peak at 0.02: mean 0.01 + 2/3 0.01,
    # deviation 0.01 / sqrt(18).
    r = InjectMany({"PROBABILITY_DISTRIBUTION": "piecewise_linear"},
                   {"Inlet_1": Table([0.01, 0.02], [0.0, 1.0])})
    assert r.min() >= 0.01 and r.max() <= 0.02
    sigma = 0.01 / math.sqrt(18)
    assert abs(r.mean() - (0.01 + 0.02 / 3)) < 4 * sigma / math.sqrt(len(r))


def test_a_table_with_its_own_seed_draws_the_same_radii_whatever_the_global_seed():
    tables = {"Inlet_1": Table([0.01, 0.012, 0.015], [1.0, 1.0, 1.0], seed=5)}
    model_a, _ = InletModel(Grid(50, 0.1), {"PROBABILITY_DISTRIBUTION": "discrete",
                                            "INLET_NUMBER_OF_PARTICLES": 5e3})
    model_b, _ = InletModel(Grid(50, 0.1), {"PROBABILITY_DISTRIBUTION": "discrete",
                                            "INLET_NUMBER_OF_PARTICLES": 5e3})
    a, _ = RunInlet(model_a, 1e-3, 5, seed=1, tables=tables)
    b, _ = RunInlet(model_b, 1e-3, 5, seed=2, tables=tables)
    assert np.array_equal(np.sort(a.Particles.radius), np.sort(b.Particles.radius))
    assert not np.array_equal(a.Particles.position, b.Particles.position)  # other points


# ------------------------------------------------------------------ velocities
def test_velocities_lie_within_the_deviation_angle_around_the_inlet_velocity():
    velocity, angle = np.array([1.0, -2.0, 2.0]), 10.0  # |v| = 3
    axis = velocity / 3.0
    new_velocities = []

    def collect(time, strategy, inlets, first_new):
        new_velocities.extend(strategy.Particles.velocity[first_new:])

    model, _ = InletModel(Grid(400, 0.1), {"INLET_NUMBER_OF_PARTICLES": 1e5,
                                           "VELOCITY": list(velocity * 100),
                                           "MAX_RAND_DEVIATION_ANGLE": angle})
    RunInlet(model, 1e-3, 10, on_step=collect)
    v = np.array(new_velocities)
    assert len(v) == 1000
    along = v @ axis
    assert np.allclose(along, 300.0, rtol=0, atol=1e-12 * 300)
    perpendicular = v - np.outer(along, axis)
    angles = np.degrees(np.arctan2(np.linalg.norm(perpendicular, axis=1), along))
    assert angles.max() <= angle + 1e-9
    assert angles.max() > 0.9 * angle  # the whole cone is used
    # Uniform over the disc of radius ρ = 300 tan 10°: each perpendicular
    # component has mean 0 and deviation ρ/2.
    rho = 300.0 * math.tan(math.radians(angle))
    assert np.all(np.abs(perpendicular.mean(axis=0)) < 4 * (rho / 2) / math.sqrt(len(v)))


# ------------------------------------------------------------------ overlap
def test_a_dense_inlet_never_injects_overlapping_spheres():
    radius = 0.01
    # 100 points 0.6 diameters apart, asking far more particles than fit.
    points = Grid(100, 1.2 * radius)
    model, grain = InletModel(points, {"INLET_NUMBER_OF_PARTICLES": 1e6, "DENSE_INLET": True,
                                       "RADIUS": radius, "STANDARD_DEVIATION": 0.002,
                                       "VELOCITY": [0.0, 0.0, -5.0]})
    # An existing sphere sits on the middle of the inlet.
    spheres = model.GetModelPart("SpheresPart")
    centre = np.mean(np.array(points), axis=0)
    Sphere(spheres, 1, list(centre), 0.02, grain)
    checks = []

    def check(time, strategy, inlets, first_new):
        p = strategy.Particles
        x, r = p.position, p.radius
        new = range(first_new, len(r))
        for i in new:
            d = np.linalg.norm(x - x[i], axis=1)
            d[i] = np.inf
            checks.append(np.all(d >= r + r[i] - 1e-12))
        # The contact lists hold the new spheres: their candidates are exactly
        # the pairs within r_i + r_j + tolerance that involve a new row, and
        # every earlier candidate is still there (the regular search runs only
        # every 10000 steps here).
        if not new:
            return
        first, second = strategy.ParticlePairCandidates()
        pairs = set(zip(first.tolist(), second.tolist()))
        d = np.linalg.norm(x[:, None, :] - x[None, :, :], axis=2)
        i, j = np.nonzero(np.triu(d < r[:, None] + r[None, :] + tolerance, k=1))
        expected = {(a, b) for a, b in zip(i.tolist(), j.tolist()) if b >= first_new}
        checks.append({(a, b) for a, b in pairs if b >= first_new} == expected)
        checks.append(previous[0] <= pairs)

    previous = [set()]

    def remember(strategy):
        first, second = strategy.ParticlePairCandidates()
        previous[0] = set(zip(first.tolist(), second.tolist()))

    tolerance = 0.005
    strategy, inlets = RunInlet(model, 1e-4, 120, on_step=check, search_frequency=10000,
                                tolerance=tolerance, before_injection=remember)
    assert all(checks) and len(checks) > 100
    count = inlets.InjectedCount(0)
    # The first step fills what fits among the 100 points; later ones refill the
    # points their spheres have left (5 m/s: one diameter in 40 steps).
    assert 40 < count < 120 * 100
    assert len(strategy.Particles) == count + 1
    assert strategy.NumberOfParticlePairCandidates() > 0


def test_an_insertion_keeps_the_contacts_in_force_and_finds_the_new_wall_candidates():
    """A sphere resting on a floor; an inlet injects next to it, 1 mm above the
    floor (within the wall search tolerance). The injection adds the new row's
    wall candidate and leaves the resting contact as it was: its elastic
    energy and the wall nodes' contact force are those of the last evaluation."""
    from dem_test_utilities import Face
    radius = 0.01
    model, grain = InletModel([(0.05, 0.0, radius + 0.001)], {
        "RADIUS": radius, "INLET_NUMBER_OF_PARTICLES": 100.0, "INLET_START_TIME": 0.0105,
        "VELOCITY": [1.0, 0.0, 0.0]})
    spheres = model.GetModelPart("SpheresPart")
    Sphere(spheres, 1, (0.0, 0.0, radius), radius, grain)
    walls = model.CreateModelPart("RigidFacePart")
    floor = Material(walls, 2, young=1e9, poisson=0.25)
    Relate(grain, floor, restitution=0.5, static_friction=0.3)
    Face(walls, 1, [(-1, -1, 0), (1, -1, 0), (1, 1, 0), (-1, 1, 0)], floor)
    dem = Dem()
    strategy = dem.ExplicitSolverStrategy(spheres, walls, Settings(1e-5, "Symplectic_Euler",
                                                                   (0, 0, -9.81), 1, 0.002))
    inlets = dem.ParticleInlets(model.GetModelPart("DEMInletPart"), strategy, 42, {})
    strategy.Initialize()
    time = 0.0
    for _ in range(2500):  # settles, then the injection at t = 0.0105 + 0.01 (1 per 0.01 s)
        time += 1e-5
        strategy.SolveSolutionStep(time)
        strategy.WriteToNodes()
        before = (strategy.GetEnergies()["elastic_normal"], strategy.NumberOfWallContacts(),
                  sum(n.GetSolutionStepValue(tessera.CONTACT_FORCES_Z) for n in walls.Nodes))
        inlets.Inject(time)
        if len(strategy.Particles) == 2:
            break
    assert len(strategy.Particles) == 2 and before[0] > 0.0 and before[1] == 1
    assert strategy.GetEnergies()["elastic_normal"] == before[0]
    assert strategy.NumberOfWallContacts() == 1
    particle, face = strategy.WallCandidates()
    assert particle.tolist() == [0, 1] and face.tolist() == [0, 0]
    strategy.WriteToNodes()
    load = sum(n.GetSolutionStepValue(tessera.CONTACT_FORCES_Z) for n in walls.Nodes)
    assert load == before[2]
    # The resting sphere's weight (still bouncing a little: 5 %).
    assert load == pytest.approx(-strategy.Particles.mass[0] * 9.81, rel=5e-2)


# ------------------------------------------------------------------ threads
def test_one_and_two_threads_give_bitwise_the_same_run():
    def run(threads):
        previous = tessera.GetParallelThreads()
        tessera.SetParallelThreads(threads)
        try:
            model, _ = InletModel(Grid(900, 0.012), {
                "INLET_NUMBER_OF_PARTICLES": 2e5, "RADIUS": 0.005, "STANDARD_DEVIATION": 0.001,
                "VELOCITY": [0.0, 0.0, -1.0], "MAX_RAND_DEVIATION_ANGLE": 20.0})
            strategy, inlets = RunInlet(model, 1e-4, 40, gravity=(0.0, 0.0, -9.81))
        finally:
            tessera.SetParallelThreads(previous)
        p = strategy.Particles
        return inlets.InjectedCount(0), p.position, p.velocity, p.force, p.radius

    one, two = run(1), run(2)
    assert one[0] > 600  # above the size where the loops go parallel
    for a, b in zip(one[1:], two[1:]):
        assert np.array_equal(a, b)  # bitwise


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("data, message", [
    ({"MASS_FLOW": -1.0, "IMPOSED_MASS_FLOW_OPTION": True}, r"Inlet_1: MASS_FLOW must be >= 0"),
    ({"RADIUS": 0.0}, r"Inlet_1: RADIUS must be > 0"),
    ({"PROBABILITY_DISTRIBUTION": "weibull"}, r"Inlet_1: PROBABILITY_DISTRIBUTION 'weibull' is unknown"),
    ({"PROBABILITY_DISTRIBUTION": "discrete"}, r"Inlet_1: PROBABILITY_DISTRIBUTION discrete needs "
                                               r"dem_inlets_settings.Inlet_1"),
    ({"INLET_NUMBER_OF_PARTICLES": -5.0}, r"Inlet_1: INLET_NUMBER_OF_PARTICLES must be >= 0"),
    ({"STANDARD_DEVIATION": -0.1}, r"Inlet_1: STANDARD_DEVIATION must be >= 0"),
    ({"VELOCITY": [0.0, 0.0, 0.0]}, r"Inlet_1: VELOCITY must be a finite non-zero vector"),
    ({"MAX_RAND_DEVIATION_ANGLE": 95.0}, r"Inlet_1: MAX_RAND_DEVIATION_ANGLE must be in \[0, 89.5\]"),
    ({"INLET_STOP_TIME": -1.0}, r"Inlet_1: INLET_STOP_TIME \(-1\) must not be before"),
    ({"PROPERTIES_ID": None}, r"Inlet_1: SubModelPartData has no PROPERTIES_ID"),
    ({"PROPERTIES_ID": 7}, r"Inlet_1: PROPERTIES_ID 7 names no Properties"),
    ({"YOUNG_MODULUS": 1e7}, r"Inlet_1: SubModelPartData key YOUNG_MODULUS is not an inlet key"),
    ({"CONTAINS_CLUSTERS": True}, r"Inlet_1: CONTAINS_CLUSTERS 1: inlets of clusters are not supported"),
    ({"RIGID_BODY_MOTION": True}, r"Inlet_1: moving inlets .* are not supported yet"),
    ({"MINIMUM_RADIUS": 0.02}, r"Inlet_1: MINIMUM_RADIUS \(0.02\) <= RADIUS"),
    ({"ELEMENT_TYPE": "Cluster3D"}, r"Inlet_1: ELEMENT_TYPE Cluster3D cannot be injected"),
])
def test_bad_inlet_data_is_an_error_naming_the_inlet_and_the_key(data, message):
    model, _ = InletModel([(0.0, 0.0, 0.0)], data)
    strategy = Dem().ExplicitSolverStrategy(model.GetModelPart("SpheresPart"), None,
                                            Settings(1e-4))
    with pytest.raises(tessera.Error, match=message):
        Dem().ParticleInlets(model.GetModelPart("DEMInletPart"), strategy, 42, {})


def test_bad_radius_tables_are_errors():
    model, _ = InletModel([(0.0, 0.0, 0.0)], {"PROBABILITY_DISTRIBUTION": "discrete"})
    strategy = Dem().ExplicitSolverStrategy(model.GetModelPart("SpheresPart"), None, Settings(1e-4))
    inlets = model.GetModelPart("DEMInletPart")
    for table, message in ((Table([0.02, 0.01], [1, 1]), "the radii must increase"),
                           (Table([0.01, 0.02], [1]), "must be lists of the same length"),
                           (Table([0.01, 0.02], [0, 0]), "sum to zero"),
                           (Table([-0.01, 0.02], [1, 1]), r"radius -0.01 \(entry 0\) must be > 0")):
        with pytest.raises(tessera.Error, match=message):
            Dem().ParticleInlets(inlets, strategy, 42, {"Inlet_1": table})
    with pytest.raises(tessera.Error, match="dem_inlets_settings: 'Outlet' is no inlet"):
        Dem().ParticleInlets(inlets, strategy, 42, {"Outlet": Table([0.01], [1])})


# ------------------------------------------------------------------ through the stage
INLET_MDPA = """Begin Nodes
  1 0.0 0.0 0.5
  2 0.2 0.0 0.5
End Nodes
Begin SubModelPart Inlet_1
  Begin SubModelPartData
    RIGID_BODY_MOTION 0
    IDENTIFIER Inlet_1
    INJECTOR_ELEMENT_TYPE SphericParticle3D
    ELEMENT_TYPE SphericParticle3D
    CONTAINS_CLUSTERS 0
    VELOCITY [3] (0.0, 0.0, -20.0)
    MAX_RAND_DEVIATION_ANGLE 5.0
    INLET_NUMBER_OF_PARTICLES 500.0
    IMPOSED_MASS_FLOW_OPTION 0
    INLET_START_TIME 0.0
    INLET_STOP_TIME 0.01
    RADIUS 0.02
    PROBABILITY_DISTRIBUTION discrete
    STANDARD_DEVIATION 0.0
    DENSE_INLET 0
  End SubModelPartData
  Begin SubModelPartNodes
    1
    2
  End SubModelPartNodes
End SubModelPart
"""


def InletDeck(folder, inlet_mdpa=INLET_MDPA, **overrides):
    """The small deck of test_dem_analysis_stage with an inlet whose material
    comes from MaterialsDEM.json (material_assignation_table row)."""
    from test_dem_analysis_stage import MATERIALS, SmallDeck
    settings = {"Inlet_1": {"random_variable_settings": {
        "possible_values": [0.015, 0.02], "relative_frequencies": [1.0, 1.0]}}}
    parameters = SmallDeck(folder, dem_inlet_option=True, dem_inlets_settings=settings,
                           **overrides)
    materials = json.loads(json.dumps(MATERIALS))
    materials["material_assignation_table"].append(["DEMInletPart.Inlet_1", "grain"])
    (folder / "MaterialsDEM.json").write_text(json.dumps(materials))
    (folder / "smallDEM_Inlet.mdpa").write_text(inlet_mdpa)
    return parameters


def test_the_stage_reads_the_inlet_file_and_injects_into_the_spheres_part(tmp_path, monkeypatch):
    import tessera.dem
    monkeypatch.chdir(tmp_path)
    model = tessera.Model()
    stage = tessera.dem.DEMAnalysisStage(model, InletDeck(tmp_path))
    stage.Run()
    inlets = stage.GetInlets()
    # 500/s over 0.01 s; the deck's two spheres keep elements 5, 6 (renumbered 1, 2).
    assert inlets.InjectedCount(0) == 5
    spheres = model.GetModelPart("SpheresPart")
    assert spheres.NumberOfElements() == 2 + 5
    radii = [n.GetSolutionStepValue(tessera.RADIUS) for n in spheres.Nodes if n.Id > 2]
    assert len(radii) == 5 and set(radii) <= {0.015, 0.02}  # the table of dem_inlets_settings
    # New ids follow those of the spheres and of the inlet nodes.
    assert min(e.Id for e in spheres.Elements) == 1 and max(e.Id for e in spheres.Elements) > 2


def test_no_inlet_file_means_no_inlets_and_a_malformed_one_names_file_and_line(tmp_path, monkeypatch):
    import tessera.dem
    from test_dem_analysis_stage import SmallDeck
    monkeypatch.chdir(tmp_path)
    stage = tessera.dem.DEMAnalysisStage(tessera.Model(), SmallDeck(tmp_path, dem_inlet_option=True))
    stage.Initialize()
    assert stage.GetInlets() is None
    parameters = InletDeck(tmp_path, inlet_mdpa=INLET_MDPA.replace("RADIUS 0.02", "RADIUS 0.02 0.03"))
    stage = tessera.dem.DEMAnalysisStage(tessera.Model(), parameters)
    with pytest.raises(tessera.Error, match=r"smallDEM_Inlet.mdpa:18"):
        stage.Initialize()


def test_bad_inlet_settings_in_the_project_parameters_are_errors(tmp_path, monkeypatch):
    import tessera.dem
    monkeypatch.chdir(tmp_path)
    parameters = InletDeck(tmp_path)
    parameters["dem_inlets_settings"]["Inlet_1"]["random_variable_settings"].AddDouble("mean", 1.0)
    stage = tessera.dem.DEMAnalysisStage(tessera.Model(), parameters)
    with pytest.raises(tessera.Error, match=r"dem_inlets_settings.Inlet_1.random_variable_settings: "
                                            r"unknown key\(s\) mean"):
        stage.Initialize()
    parameters = InletDeck(tmp_path, inlet_mdpa=INLET_MDPA.replace("MASS_FLOW_OPTION 0",
                                                                  "MASS_FLOW_OPTION 0\n    MASS_FLOW -2"))
    stage = tessera.dem.DEMAnalysisStage(tessera.Model(), parameters)
    with pytest.raises(tessera.Error, match=r"smallDEM_Inlet.mdpa: DEMInletPart.Inlet_1: MASS_FLOW "
                                            r"must be >= 0, got -2"):
        stage.Initialize()


def test_the_time_step_check_counts_the_spheres_inlets_will_inject(tmp_path, monkeypatch):
    """Δt 4e-4 s resolves the deck's linear grain contact of R = 0.05 m (about
    7e-3 s: 17 steps) but not that of the inlet's smallest spheres, R = 0.015 m
    (t_c ∝ R at a given density: about 2e-3 s, 5 steps)."""
    import tessera.dem
    from test_dem_analysis_stage import SmallDeck
    monkeypatch.chdir(tmp_path)
    stage = tessera.dem.DEMAnalysisStage(tessera.Model(), SmallDeck(
        tmp_path, MaxTimeStep=4e-4, TimeStepCheck="error"))
    stage.Initialize()  # no inlet: fine
    stage = tessera.dem.DEMAnalysisStage(tessera.Model(), InletDeck(
        tmp_path, MaxTimeStep=4e-4, TimeStepCheck="error"))
    with pytest.raises(tessera.Error, match="resolves the shortest contact"):
        stage.Initialize()


# ------------------------------------------------------------------ the Kratos deck
def test_ball_and_box_inlet_deck_runs_unchanged(in_copy):
    """demstruct_ball_and_box (DEM part, run unchanged; no reference values exist,
    README): one point at z = 1.2, 50 spheres/s of R = 0.2 (σ 0) at 1 m/s down,
    0 to 0.5 s, no walls, bounding box z >= 0. The point is free again once the
    last sphere has fallen a diameter: 0.4 = τ + g τ²/2 gives τ = 0.2013 s (the
    1° deviation leaves the vertical speed 1 m/s). So injections at 0.02 s (the
    first whole particle of 50/s), 0.2213 s and 0.4226 s, and none after 0.5 s;
    every sphere leaves the box (z < 0) before FinalTime 2 s."""
    import tessera.dem
    in_copy("demstruct_ball_and_box/ball_and_box.gid")
    model = tessera.Model()

    class Recording(tessera.dem.DEMAnalysisStage):
        injections = []

        def FinalizeSolutionStep(self):
            super().FinalizeSolutionStep()
            count = self.GetInlets().InjectedCount(0)
            if count > len(self.injections):
                self.injections.append(self.time)

    stage = Recording(model, tessera.Parameters.FromFile("ProjectParametersDEM.json"))
    stage.Run()
    g, dt = 9.81, 2e-5
    tau = (-1.0 + math.sqrt(1.0 + 2.0 * g * 0.4)) / g
    expected = [0.02, 0.02 + tau, 0.02 + 2 * tau]
    assert len(stage.injections) == 3
    # One step to notice the point is free, and the O(Δt) of symplectic Euler.
    assert np.allclose(stage.injections, expected, rtol=0, atol=2 * dt)
    inlets = stage.GetInlets()
    assert inlets.InjectedMass(0) == pytest.approx(3 * 1e4 * 4 / 3 * math.pi * 0.2 ** 3, rel=1e-14)
    assert model.GetModelPart("SpheresPart").NumberOfElements() == 0


def test_a_step_that_inserts_spheres_keeps_the_increment_form_for_the_next_forces(
        tmp_path, monkeypatch):
    """Under Symplectic Euler (the deck's scheme, Kratos' default) the pair
    loop takes relative velocity × Δt for the relative displacement where
    every row's increments are its velocities times Δt
    (test_dem_integration.py). An inlet's newcomers have made no increment
    yet while they move: after a step that inserts spheres the next forces
    keep the increments, and after a step that inserts none they take the
    velocity form again."""
    import tessera.dem
    monkeypatch.chdir(tmp_path)
    model = tessera.Model()
    stage = tessera.dem.DEMAnalysisStage(model, InletDeck(tmp_path))
    stage.Initialize()
    strategy, spheres = stage.GetStrategy(), model.GetModelPart("SpheresPart")
    seen = {True: 0, False: 0}
    for step in range(1, 201):
        count = spheres.NumberOfElements()
        stage.end_time = (step - 0.5) * 1e-4  # one more step of the stage's loop
        stage.RunSolutionLoop()
        inserted = spheres.NumberOfElements() > count
        assert strategy.RelativeDisplacementIsVelocityStep() == (not inserted)
        seen[inserted] += 1
    assert seen[True] == 5 and seen[False] == 195  # 500 spheres/s over 0.01 s


# ------------------------------------------------------------------ spheres a script adds

def test_a_sphere_a_script_adds_between_steps_joins_the_run():
    """A node with RADIUS and VELOCITY and a SphericParticle3D element created
    in the spheres' model part between steps (as a Kratos script does with its
    creator-destructor) becomes a particle at the next step; it had been left
    out silently, frozen where it was made. Reference: Velocity Verlet is exact
    for a constant force, z = z0 + v0 t - g t^2 / 2 (rel 1e-12), then the sphere
    lands on the floor and rests on it: a wall contact whose overlap is the
    static m g / k_n of the linear law, k_n = 2 E* R (statics; rel 1e-3, the
    contact's damped oscillation having died out)."""
    from tessera import _dem
    from dem_test_utilities import Pile
    model, spheres, walls = Pile(50, spacing=0.0125, speed=0.0)  # a pile settling, |x|, |y| < 2 cm
    dt, g = 1e-5, 9.81  # 30 steps per wall contact
    strategy = _dem.ExplicitSolverStrategy(spheres, walls, Settings(dt, gravity=(0, 0, -g)))
    strategy.Initialize()
    time = 0.0
    for _ in range(5):
        time += dt
        strategy.SolveSolutionStep(time)
    z0, v0, radius = 0.012, 0.2, 0.005
    Sphere(spheres, 999, (0.12, 0.12, z0), radius, spheres.GetProperties(1),
           velocity=(0.0, 0.0, v0))
    node = spheres.GetNode(999)
    for step in range(1, 21):
        strategy.ReadFromNodes()
        time += dt
        strategy.SolveSolutionStep(time)
        strategy.WriteToNodes()
        t = step * dt
        assert node.Z == pytest.approx(z0 + v0 * t - 0.5 * g * t * t, rel=1e-12)
    assert len(strategy.Particles.position) == 51
    walls_before = strategy.NumberOfWallContacts()
    for _ in range(30000):
        time += dt
        strategy.SolveSolutionStep(time)
    strategy.WriteToNodes()
    assert strategy.NumberOfWallContacts() > walls_before
    grain_on_floor = strategy.PairParameters(0, 1)
    assert grain_on_floor["law"] == "DEM_D_Linear_viscous_Coulomb"
    mass = 2600.0 * 4.0 / 3.0 * math.pi * radius ** 3  # the pile's grain density
    k_n = 2.0 * grain_on_floor["effective_young"] * radius
    assert radius - node.Z == pytest.approx(mass * g / k_n, rel=1e-3)
    assert abs(node.GetSolutionStepValue(tessera.VELOCITY)[2]) < 1e-3


def test_a_sphere_a_script_adds_with_an_unknown_material_is_an_error_naming_it():
    from tessera import _dem
    from dem_test_utilities import Pile
    model, spheres, walls = Pile(20, spacing=0.0125)
    strategy = _dem.ExplicitSolverStrategy(spheres, walls, Settings(1e-4))
    strategy.Initialize()
    stranger = Material(spheres, 7, density=2000.0)
    Sphere(spheres, 999, (0.12, 0.12, 0.05), 0.005, stranger)
    with pytest.raises(tessera.Error, match="element #?999.*Properties 7 were not known when the "
                                            "DEM strategy started"):
        strategy.SolveSolutionStep(1e-4)
