"""Adaptive neighbour search (DemSettings.adaptive_search, "AdaptiveSearch"):
contacts are never missed between searches.

Between two searches only the candidates of the last one are tested for
contact: a pair farther apart than SearchTolerance, or a sphere farther from a
face than search_tolerance_against_walls, cannot touch until the next search.
With NeighbourSearchFrequency alone, spheres that approach by more than the
tolerance within one interval meet without a contact and are found at the next
search deeply overlapped: an elastic gas gains energy, a ball shot at a wall
goes in deep and comes out at the wrong speed. The adaptive search also
searches whenever 2 d_particle > SearchTolerance or d_particle + d_wall >
search_tolerance_against_walls (largest displacements since the last search),
so NeighbourSearchFrequency is only the longest interval
(strategies/dem_strategy.h). A zero tolerance arms no trigger (Kratos' cadence).

Measured without the adaptive search (adaptive_search False, this file's
set-ups, 1 thread): the elastic gas of 1,000 spheres gains 7.3 % (Velocity
Verlet) and 7.1 % (Symplectic Euler) of its energy in 3,000 steps at search
frequency 10, and blows up (x500) at 50; the ball shot at the wall with
restitution 0.5 rebounds at 0.62 / 0.59 of its speed at frequency 10 and 1.66 /
1.62 at 50. With it, the gas keeps its energy to +0.0019 % / -0.0136 % (the
integrators' own error: the same figures as searching every step) and the ball
rebounds at 0.50598, bitwise the ratio of a search at every step.
"""
import numpy as np
import pytest
import tessera
from dem_test_utilities import (Face, Material, ParallelThreads, Relate, Run, Settings, Sphere,
                                SpheresPart, SquarePlate)

RADIUS = 0.005
DENSITY = 2500.0
YOUNG = 1e7  # linear law: k_n = 2 E* R* ≈ 2.7e4 N/m, contact time ≈ 4.9e-4 s
DT = 1e-5  # about 49 steps per contact
TOLERANCE = 1e-4  # the search margin, pairs and walls (2 % of the radius)


def Dem():
    from tessera import _dem
    return _dem


def ElasticGas(count=1000, fraction=0.12, seed=7, speed_margins=3.0, interval=10):
    """`count` equal frictionless spheres with restitution 1 (linear law, no
    damping) at random non-overlapping places in a closed box of six walls
    (restitution 1, frictionless), with velocities in random directions and
    speeds uniform up to the speed that covers `speed_margins` tolerances in
    `interval` steps. Returns (spheres, walls)."""
    rng = np.random.default_rng(seed)
    model = tessera.Model()
    spheres = SpheresPart(model)
    walls = model.CreateModelPart("RigidFacePart")
    grain = Material(spheres, 1, density=DENSITY, young=YOUNG, poisson=0.25)
    wall = Material(walls, 2, young=YOUNG, poisson=0.25)
    for a, b in ((grain, grain), (grain, wall)):
        Relate(a, b, restitution=1.0, static_friction=0.0, law="DEM_D_Linear_viscous_Coulomb")
    side = (count * 4.0 / 3.0 * np.pi * RADIUS**3 / fraction) ** (1.0 / 3.0)
    # Random places on a lattice of spacing 2.2 R: no initial overlaps.
    cells = int(np.floor((side - 2.0 * RADIUS) / (2.2 * RADIUS)))
    chosen = rng.choice(cells**3, size=count, replace=False)
    lattice = np.stack(np.unravel_index(chosen, (cells, cells, cells)), axis=1)
    positions = RADIUS * 1.1 + lattice * 2.2 * RADIUS + rng.uniform(0, 0.05 * RADIUS, (count, 3))
    fastest = speed_margins * TOLERANCE / (interval * DT)
    directions = rng.normal(size=(count, 3))
    directions /= np.linalg.norm(directions, axis=1)[:, None]
    velocities = directions * rng.uniform(0.0, fastest, size=count)[:, None]
    for i in range(count):
        Sphere(spheres, i + 1, positions[i], RADIUS, grain, velocity=velocities[i])
    s = side
    corners = {"x0": [(0, 0, 0), (0, s, 0), (0, s, s), (0, 0, s)],
               "x1": [(s, 0, 0), (s, 0, s), (s, s, s), (s, s, 0)],
               "y0": [(0, 0, 0), (0, 0, s), (s, 0, s), (s, 0, 0)],
               "y1": [(0, s, 0), (s, s, 0), (s, s, s), (0, s, s)],
               "z0": [(0, 0, 0), (s, 0, 0), (s, s, 0), (0, s, 0)],
               "z1": [(0, 0, s), (0, s, s), (s, s, s), (s, 0, s)]}
    for k, points in enumerate(corners.values()):
        Face(walls, k + 1, points, wall)
    return spheres, walls


def MechanicalEnergy(strategy):
    # Kinetic and contact spring energy (no gravity, nothing dissipated).
    return strategy.GetEnergies()["total"]


def RunGas(frequency, scheme, adaptive=True, steps=3000, threads=1):
    spheres, walls = ElasticGas()
    settings = Settings(DT, scheme=scheme, search_frequency=frequency, tolerance=TOLERANCE)
    settings.adaptive_search = adaptive
    with ParallelThreads(threads):
        strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
        strategy.Initialize()
        start = MechanicalEnergy(strategy)
        Run(strategy, steps, DT)
    return strategy, start, MechanicalEnergy(strategy)



def RunGas(frequency, scheme, adaptive=True, steps=3000, threads=1):
    """(strategy, energy at the start, energy after `steps`) of the gas."""
    spheres, walls = ElasticGas()
    settings = Settings(DT, scheme=scheme, search_frequency=frequency, tolerance=TOLERANCE)
    settings.adaptive_search = adaptive
    with ParallelThreads(threads):
        strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
        strategy.Initialize()
        start = MechanicalEnergy(strategy)
        Run(strategy, steps, DT)
    return strategy, start, MechanicalEnergy(strategy)


SCHEMES = ("Velocity_Verlet", "Symplectic_Euler")


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("frequency", [10, 50])
def test_an_elastic_gas_keeps_its_energy_at_a_coarse_search_frequency(frequency, scheme):
    """The fastest spheres cover three tolerances per 10 steps (15 per 50):
    Kratos' cadence alone misses contacts (module docstring: +7 %, and a
    blow-up at 50), the adaptive search none."""
    steps = 3000
    strategy, start, end = RunGas(frequency, scheme, steps=steps)
    assert end == pytest.approx(start, rel=1e-3)
    # The cadence alone would have searched steps // frequency times; the
    # spheres' motion made the adaptive search search more.
    assert strategy.NumberOfEarlySearches() > steps // frequency
    assert strategy.NumberOfSearches() <= steps + 1


def test_without_the_adaptive_search_the_gas_gains_energy():
    """The test above can fail: with the cadence alone the gas gains several
    per cent (7.3 % measured)."""
    strategy, start, end = RunGas(10, "Velocity_Verlet", adaptive=False)
    assert end > 1.03 * start
    assert strategy.NumberOfEarlySearches() == 0
    assert strategy.NumberOfSearches() == 1 + 3000 // 10  # Initialize's and the cadence's


@pytest.mark.parametrize("scheme", SCHEMES)
def test_searches_and_results_are_the_same_on_one_and_two_threads(scheme):
    """The trigger is a max over the rows (exact in any order), and Velocity
    Verlet decides on a bound of the drift whether or not the pair pass does
    the drift (only on one thread): the same steps search, bitwise."""
    runs = [RunGas(10, scheme, steps=400, threads=threads)[0] for threads in (1, 2)]
    counts = [(s.NumberOfSearches(), s.NumberOfEarlySearches()) for s in runs]
    assert counts[0] == counts[1] and counts[0][1] > 0
    for column in ("position", "velocity"):
        a, b = (np.asarray(getattr(s.Particles, column)) for s in runs)
        assert np.array_equal(a, b)


def test_a_zero_tolerance_keeps_kratos_cadence():
    """A zero tolerance promises no margin: any motion would search every step,
    so it arms no trigger, and the run is bitwise the one without the adaptive
    search (Kratos' cadence, which Kratos decks with zero tolerance match)."""
    runs = []
    for adaptive in (True, False):
        spheres, walls = ElasticGas(count=200)
        settings = Settings(DT, search_frequency=10, tolerance=0.0)
        settings.adaptive_search = adaptive
        strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
        strategy.Initialize()
        Run(strategy, 200, DT)
        runs.append(strategy)
    assert [s.NumberOfSearches() for s in runs] == [1 + 200 // 10] * 2
    assert runs[0].NumberOfEarlySearches() == 0
    assert np.array_equal(np.asarray(runs[0].Particles.position),
                          np.asarray(runs[1].Particles.position))


def ShotAtWall(frequency, scheme, adaptive=True, margins=5.0, restitution=0.5, steps=400):
    """A ball starting 1.5 tolerances above a plate (outside its candidates)
    and shot down at `margins` wall tolerances per `frequency` steps; returns
    (-v_out / v_in, strategy). Linear law: a contact time of about 69 steps."""
    model = tessera.Model()
    spheres = SpheresPart(model)
    walls = model.CreateModelPart("RigidFacePart")
    grain = Material(spheres, 1, density=DENSITY, young=YOUNG, poisson=0.25)
    wall = Material(walls, 2, young=YOUNG, poisson=0.25)
    for a, b in ((grain, grain), (grain, wall)):
        Relate(a, b, restitution=restitution, law="DEM_D_Linear_viscous_Coulomb")
    speed = margins * TOLERANCE / (frequency * DT)
    Sphere(spheres, 1, (0.0, 0.0, RADIUS + 1.5 * TOLERANCE), RADIUS, grain,
           velocity=(0.0, 0.0, -speed))
    SquarePlate(walls, wall, half=0.05)
    settings = Settings(DT, scheme=scheme, search_frequency=frequency, tolerance=TOLERANCE)
    settings.adaptive_search = adaptive
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
    strategy.Initialize()
    Run(strategy, steps, DT)
    return strategy.Particles.velocity[0][2] / speed, strategy


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("frequency", [10, 50])
def test_a_ball_shot_at_a_wall_rebounds_with_its_restitution(frequency, scheme):
    """5 tolerances per interval: without the adaptive search the ball is found
    inside the plate and leaves at 0.59-1.66 of its speed (module docstring);
    with it, at the ratio of a search at every step: 0.50598 (the time step's
    error against the exact 0.5 of the restitution map, 69 steps per contact)."""
    ratio, strategy = ShotAtWall(frequency, scheme)
    every_step, _ = ShotAtWall(1, scheme, margins=5.0 / frequency)  # the same speed
    assert ratio == pytest.approx(every_step, rel=1e-9)
    assert ratio == pytest.approx(0.5, abs=0.01)
    assert strategy.NumberOfEarlySearches() > 0
    without, _ = ShotAtWall(frequency, scheme, adaptive=False)
    assert abs(without - 0.5) > 0.05


def test_a_wall_moving_faster_than_the_margin_is_not_missed():
    """A plate moving up at 5 wall tolerances per 10 steps towards a ball at
    rest: the wall vertices' displacement triggers the searches (d_p + d_w >
    tolerance), and the ball is hit as with a search at every step."""
    def Hit(frequency, adaptive=True):
        model = tessera.Model()
        spheres = SpheresPart(model)
        walls = model.CreateModelPart("RigidFacePart")
        grain = Material(spheres, 1, density=DENSITY, young=YOUNG, poisson=0.25)
        wall = Material(walls, 2, young=YOUNG, poisson=0.25)
        for a, b in ((grain, grain), (grain, wall)):
            Relate(a, b, restitution=0.5, law="DEM_D_Linear_viscous_Coulomb")
        Sphere(spheres, 1, (0.0, 0.0, RADIUS + 1.5 * TOLERANCE), RADIUS, grain)
        speed = 5.0 * TOLERANCE / (10 * DT)
        SquarePlate(walls, wall, half=0.05, RIGID_BODY_MOTION=True,
                    LINEAR_VELOCITY=[0.0, 0.0, speed])
        settings = Settings(DT, search_frequency=frequency, tolerance=TOLERANCE)
        settings.adaptive_search = adaptive
        strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
        strategy.Initialize()
        Run(strategy, 200, DT)
        return np.asarray(strategy.Particles.velocity)[0], strategy

    reference, _ = Hit(1)
    adaptive, strategy = Hit(10)
    assert reference[2] > 0.0
    assert np.array_equal(adaptive, reference)
    assert strategy.NumberOfEarlySearches() > 0
    without, _ = Hit(10, adaptive=False)
    assert not np.allclose(without, reference, rtol=1e-3)


def test_the_stage_reports_its_searches(tmp_path, monkeypatch):
    """The run's summary (tessera run, or echo_level > 0) counts the searches;
    "AdaptiveSearch": false keeps Kratos' cadence. The small deck's second
    sphere moves 4 m/s: 4 mm per 10 steps of 1e-4 s, past half of 1 mm."""
    import io
    from tessera import progress
    from test_dem_analysis_stage import SmallDeck, Stage
    monkeypatch.chdir(tmp_path)
    counts = {}
    for adaptive in (True, False):
        parameters = SmallDeck(tmp_path, NeighbourSearchFrequency=10, SearchTolerance=1e-3,
                               AdaptiveSearch=adaptive)
        model, stage = Stage(parameters)
        stream = io.StringIO()
        stage.SetProgressReporter(progress.SummaryLine(stream))
        stage.Run()
        strategy = stage.GetStrategy()
        counts[adaptive] = (strategy.NumberOfSearches(), strategy.NumberOfEarlySearches())
        assert stage.SearchSummary() in stream.getvalue()
        assert (f"{counts[adaptive][0]} neighbour searches in {strategy.StepCount()} steps "
                f"(NeighbourSearchFrequency 10; {counts[adaptive][1]} early") in stream.getvalue()
    steps = stage.GetStrategy().StepCount()
    assert counts[False] == (1 + (steps + 1) // 10, 0)
    assert counts[True][1] > 0 and counts[True][0] == counts[False][0] + counts[True][1]


def test_a_wall_that_moved_and_stopped_still_counts():
    """A script lifts the plate by 0.6 tolerance at one step (its nodes), then
    it stands still while a ball 1.1 tolerances above it comes down at 0.05
    tolerance per step: the ball touches after 0.5 tolerance, when d_p +
    d_w = 1.1 > tolerance, although no wall moves at that step (the largest
    wall displacement is kept since the search). Pair tolerance 0, so that
    only the wall trigger can search. Frequency 50: as with a search at every
    step, bitwise (measuring only the faces moving at the step, the ball went
    into the plate)."""
    def Lifted(frequency):
        model = tessera.Model()
        spheres = SpheresPart(model)
        walls = model.CreateModelPart("RigidFacePart")
        grain = Material(spheres, 1, density=DENSITY, young=YOUNG, poisson=0.25)
        wall = Material(walls, 2, young=YOUNG, poisson=0.25)
        for a, b in ((grain, grain), (grain, wall)):
            Relate(a, b, restitution=0.5, law="DEM_D_Linear_viscous_Coulomb")
        Sphere(spheres, 1, (0.0, 0.0, RADIUS + 1.1 * TOLERANCE), RADIUS, grain,
               velocity=(0.0, 0.0, -0.05 * TOLERANCE / DT))
        SquarePlate(walls, wall, half=0.05)
        settings = Settings(DT, search_frequency=frequency, tolerance=TOLERANCE)
        settings.search_tolerance = 0.0  # the wall trigger alone
        strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
        strategy.Initialize()
        time = 0.0
        for step in range(300):
            if step == 1:
                for node in walls.Nodes:
                    node.Z = node.Z + 0.6 * TOLERANCE
            time += DT
            strategy.SolveSolutionStep(time)
        return np.asarray(strategy.Particles.velocity)[0], strategy

    reference, _ = Lifted(1)
    velocity, strategy = Lifted(50)
    assert reference[2] > 0.0  # rebounded
    assert np.array_equal(velocity, reference)
    assert strategy.NumberOfEarlySearches() > 0
