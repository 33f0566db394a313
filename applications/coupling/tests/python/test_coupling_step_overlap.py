"""The explicit coupled step with the structure's internal forces assembled
while the DEM steps (step_overlap.py): the results must be bitwise those of
the sequential step, whatever the thread count and the split."""
import hashlib

import numpy as np

import tessera

from coupled_decks import block_mesh, dem_files, structure_files

CELLS, SIZE, RADIUS, ROWS = (8, 8, 2), (0.4, 0.4, 0.05), 0.01, 19


def _write_plate_with_spheres(folder):
    """A clamped plate with two layers of spheres pressed onto it and into
    each other (contacts from the first step), under gravity."""
    nodes, elements = block_mesh((-SIZE[0] / 2, -SIZE[1] / 2, -SIZE[2]), SIZE, CELLS)
    base = [i for i, x in nodes.items() if x[2] == -SIZE[2]]
    structure_files(folder, "plate", nodes, elements, "SmallDisplacementElement3D8N", young=1e8,
                    poisson=0.3, density=1000.0, fixed_nodes=base, end_time=1.0, time_step=2e-5,
                    gravity=(0.0, 0.0, -9.81))
    spacing = 2 * RADIUS * 0.999
    spheres = [((i - (ROWS - 1) / 2) * spacing, (j - (ROWS - 1) / 2) * spacing, 0.5 * spacing + k * spacing,
                RADIUS, (0.01 * (i % 3 - 1), 0.0, -0.05 * (j % 2))) for k in range(2) for j in range(ROWS)
               for i in range(ROWS)]
    dem_files(folder, "plate", spheres, density=2500.0, young=1e7, poisson=0.25, restitution=0.5,
              friction=0.3, end_time=1.0, time_step=2e-5, gravity=(0.0, 0.0, -9.81),
              wall_material=(1e8, 0.3), search_frequency=10)


def _run(folder, threads, overlap, steps, scheme="explicit", probe=None):
    """The state after `steps` coupled steps on `threads` threads, hashed, and
    the stage's overlap (None where the step ran sequentially)."""
    import tessera.coupling
    from tessera.coupling.step_overlap import StepOverlap
    saved = tessera.GetParallelThreads()
    saved_probe = (StepOverlap.WARM_STEPS, StepOverlap.PROBE_STEPS, StepOverlap.PROBE_CYCLE)
    if probe is not None:
        StepOverlap.WARM_STEPS, StepOverlap.PROBE_STEPS, StepOverlap.PROBE_CYCLE = probe
    tessera.SetParallelThreads(threads)
    try:
        model = tessera.Model()
        stage = tessera.coupling.DemStructuresCouplingAnalysis(
            model, tessera.Parameters.FromFile(str(folder / "ProjectParameters.json")),
            tessera.Parameters.FromFile(str(folder / "ProjectParametersDEM.json")),
            {"echo_level": 0, "energy_output": False, "time_integration": scheme,
             "overlap_structure_and_dem": overlap})
        stage.Initialize()
        for _ in range(steps):
            stage.AdvanceInTime()
            stage.InitializeSolutionStep()
            stage.SolveSolutionStep()
            stage.FinalizeSolutionStep()
        particles = stage.GetDEMStage().GetStrategy().Particles
        digest = hashlib.sha256()
        for array in (particles.position, particles.velocity, particles.angular_velocity):
            digest.update(np.ascontiguousarray(np.asarray(array)).tobytes())
        for variable in (tessera.DISPLACEMENT, tessera.VELOCITY, tessera.ACCELERATION,
                         tessera.DEM_NODAL_FORCE):
            digest.update(np.ascontiguousarray(stage.structure.NodalArray(variable)).tobytes())
        loaded = float(np.abs(stage.structure.NodalArray(tessera.DEM_NODAL_FORCE)).sum())
        return digest.hexdigest(), stage._overlap, loaded
    finally:
        tessera.SetParallelThreads(saved)
        StepOverlap.WARM_STEPS, StepOverlap.PROBE_STEPS, StepOverlap.PROBE_CYCLE = saved_probe


def test_the_overlapped_step_is_bitwise_the_sequential_one(project):
    """1 thread (sequential), 2 threads with and without the overlap, and 3
    threads over more steps than StepOverlap.REBALANCE_STEPS (so the split
    is chosen again from the measured halves, 1 + 2 or 2 + 1): the spheres'
    and the structure's states are bitwise equal (each solver's results do
    not depend on its thread count, and Kick sums the same terms in the same
    order)."""
    from tessera.coupling.step_overlap import StepOverlap
    steps = StepOverlap.REBALANCE_STEPS + 10
    _write_plate_with_spheres(project)
    reference, none, loaded = _run(project, 1, True, steps)
    assert none is None  # one thread: sequential
    assert loaded > 0.0  # the spheres load the plate: the deferred conditions matter
    state, overlap, _ = _run(project, 2, True, steps)
    assert overlap is not None and (overlap.structure_threads, overlap.dem_threads) == (1, 1)
    assert overlap.worker.LastTaskSeconds() > 0.0 and overlap.overlapped_steps == steps
    assert state == reference
    state, none, _ = _run(project, 2, False, steps)
    assert none is None and state == reference
    state, overlap, _ = _run(project, 3, True, steps)
    assert overlap is not None and overlap.structure_threads + overlap.dem_threads == 3
    assert state == reference


def test_the_overlapped_dem_first_step_is_bitwise_the_sequential_one(project):
    """Kratos' DEM-first order: the worker takes the structure's drift too,
    while the DEM steps with the walls of the last step; 1 thread against 2
    threads with the overlap, bitwise."""
    _write_plate_with_spheres(project)
    reference, none, loaded = _run(project, 1, True, 30, "explicit_dem_first")
    assert none is None and loaded > 0.0
    state, overlap, _ = _run(project, 2, True, 30, "explicit_dem_first")
    assert overlap is not None and overlap.worker.LastTaskSeconds() > 0.0
    assert state == reference


def test_the_automatic_choice_switches_between_the_two_with_the_same_bits(project):
    """"auto" with a probe cycle of 9 steps (1 untimed and 2 timed steps of
    each mode, then the faster for 3): over 40 steps the stage runs both
    ways several times, and the state is bitwise the one-thread run's."""
    _write_plate_with_spheres(project)
    reference, _, _ = _run(project, 1, True, 40)
    state, overlap, _ = _run(project, 2, "auto", 40, probe=(1, 2, 9))
    assert overlap.overlapped_steps >= 8 and overlap.sequential_steps >= 8
    assert state == reference
    none = _run(project, 2, False, 1)[1]
    assert none is None


def test_the_probe_keeps_the_mode_of_the_smaller_median_step(monkeypatch):
    """StepOverlap's "auto" choice on a scripted clock: with overlapped step
    cycles of 1 s and sequential ones of 2 s it keeps overlapping after the
    probe; with the costs swapped it keeps the sequential step, although
    one sequential step took 30 s (an output step: a sum of the probe's
    steps would have chosen the overlap)."""
    import types

    from tessera.coupling import step_overlap

    class Strategy:
        def DeferConditionsOf(self, part):
            pass

    for overlapped_cost, sequential_cost, expected in ((1.0, 2.0, True), (2.0, 1.0, False)):
        clock = {"now": 0.0}
        monkeypatch.setattr(step_overlap, "time", types.SimpleNamespace(perf_counter=lambda: clock["now"]))
        saved = tessera.GetParallelThreads()
        try:
            overlap = step_overlap.StepOverlap(Strategy(), None, 2, "auto")
            window = overlap.WARM_STEPS + overlap.PROBE_STEPS
            modes = []
            for step in range(2 * window + 5):
                modes.append(overlap.BeginStep())
                cost = overlapped_cost if modes[-1] else sequential_cost
                if step == overlap.WARM_STEPS:
                    cost = 30.0  # an outlier among the sequential timed steps
                clock["now"] += cost
        finally:
            tessera.SetParallelThreads(saved)
        assert modes[:window] == [False] * window  # the sequential probe first
        assert modes[window:2 * window] == [True] * window
        assert modes[2 * window:] == [expected] * 5
