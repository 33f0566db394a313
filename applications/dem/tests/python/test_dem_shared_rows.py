"""Particle rows sharing the nodal columns (ParticleStorage::ShareColumnsWithNodes,
DemSettings.share_rows_with_nodes).

Where the spheres' model part holds only their nodes, in row order, the rows'
state and force columns are the nodal columns themselves. Sharing changes where
values live, not what they are: every run here is compared bitwise with the
same run on rows of their own, with the analysis stage's synchronisation
(ReadFromNodes, step, WriteToNodes) and a script changing nodes in between.
"""
import numpy as np
import pytest

import tessera

from dem_test_utilities import Pile, Settings

DT = 2e-5
COLUMNS = ("position", "velocity", "angular_velocity", "displacement", "force", "torque",
           "contact_force")
NODAL = ("VELOCITY", "ANGULAR_VELOCITY", "DISPLACEMENT", "TOTAL_FORCES", "CONTACT_FORCES")


def Build(share, elastic_forces=False):
    from tessera import _dem
    model, spheres, walls = Pile(700, spacing=0.0125)
    if elastic_forces:  # summed (and shared) only where declared
        spheres.AddNodalSolutionStepVariable(tessera.ELASTIC_FORCES)
    settings = Settings(DT, "Symplectic_Euler", (0, 0, -9.81), 5, 0.002)
    settings.share_rows_with_nodes = share
    strategy = _dem.ExplicitSolverStrategy(spheres, walls, settings)
    strategy.Initialize()
    return model, spheres, strategy


def Step(strategy, step):
    # As DEMAnalysisStage does: nodes to rows, the step, rows to nodes.
    strategy.ReadFromNodes()
    strategy.SolveSolutionStep(step * DT)
    strategy.WriteToNodes()


def Nodal(spheres):
    # (The DEM variables exist once tessera.dem is loaded: looked up by name.)
    names = NODAL + (("ELASTIC_FORCES",) if spheres.HasNodalSolutionStepVariable(
        tessera.ELASTIC_FORCES) else ())
    return {name: np.array([node.GetSolutionStepValue(getattr(tessera, name))
                            for node in spheres.Nodes]) for name in names}


def AssertSameRun(a, b):
    for name in COLUMNS + ("elastic_force",):
        np.testing.assert_array_equal(getattr(a[2].Particles, name), getattr(b[2].Particles, name),
                                      err_msg=name)
    for name, values in Nodal(a[1]).items():
        np.testing.assert_array_equal(values, Nodal(b[1])[name], err_msg=name)


@pytest.mark.parametrize("elastic_forces", [False, True])
def test_shared_rows_hold_less_and_give_bitwise_the_run_of_own_rows(elastic_forces):
    shared, own = Build(True, elastic_forces), Build(False, elastic_forces)
    assert shared[2].Particles.shares_columns_with_nodes
    assert not own[2].Particles.shares_columns_with_nodes
    for step in range(1, 41):
        Step(shared[2], step)
        Step(own[2], step)
    AssertSameRun(shared, own)
    n = len(shared[2].Particles)
    assert len(shared[2].Particles.elastic_force) == (n if elastic_forces else 0)
    if elastic_forces:  # summed for every sphere with a contact force (and
        # those whose damping cancels it: a separating contact gives no pull)
        touched = np.any(shared[2].Particles.contact_force != 0.0, axis=1)
        assert np.count_nonzero(touched) > 10
        assert np.all(np.any(shared[2].Particles.elastic_force[touched] != 0.0, axis=1))
    # Nine columns of three doubles fewer per row (the nodal ones hold them),
    # ten with the elastic forces.
    saved = own[2].GetMemoryReport()["rows"] - shared[2].GetMemoryReport()["rows"]
    assert saved >= n * (10 if elastic_forces else 9) * 24
    # The nodes are the rows: a value read from a node is the row's.
    node = next(iter(shared[1].Nodes))
    row = list(shared[2].Particles.element_id).index(node.Id)
    np.testing.assert_array_equal(node.GetSolutionStepValue(tessera.TOTAL_FORCES),
                                  shared[2].Particles.force[row])


def test_a_script_setting_nodal_velocities_between_steps_reaches_shared_rows():
    shared, own = Build(True), Build(False)
    for step in range(1, 31):
        for run in (shared, own):
            if step % 10 == 0:
                # A process or script changes the nodes between two steps.
                for k, node in enumerate(run[1].Nodes):
                    if k % 7 == 0:
                        node.SetSolutionStepValue(tessera.VELOCITY, [0.1, -0.2, 0.3])
            Step(run[2], step)
    AssertSameRun(shared, own)


def test_a_foreign_node_in_the_spheres_part_ends_the_sharing_and_the_run_goes_on():
    shared, own = Build(True), Build(False)
    for step in range(1, 21):
        for run in (shared, own):
            if step == 10:
                assert run[2].Particles.shares_columns_with_nodes == (run is shared)
                # Not a sphere's node: rows and nodes no longer coincide.
                run[1].CreateNewNode(100000, 1.0, 1.0, 1.0)
            Step(run[2], step)
    assert not shared[2].Particles.shares_columns_with_nodes
    AssertSameRun(shared, own)
    np.testing.assert_array_equal(shared[1].GetNode(100000).GetSolutionStepValue(tessera.VELOCITY),
                                  [0.0, 0.0, 0.0])


def test_inserted_and_deleted_spheres_keep_the_rows_shared_and_the_run_unchanged(monkeypatch):
    # An inlet appends spheres (their new nodes come after the others: the rows
    # stay the nodes) and the bounding box deletes those that fall below it.
    from tessera import _dem
    from test_dem_inlets import Grid, InletModel, RunInlet
    original = _dem.ExplicitSolverStrategy

    def run(share):
        def Build(spheres, walls, settings):
            settings.share_rows_with_nodes = share
            settings.bounding_box = True
            settings.bounding_box_min = (-1.0, -1.0, -0.002)
            settings.bounding_box_max = (1.0, 1.0, 1.0)
            return original(spheres, walls, settings)

        monkeypatch.setattr(_dem, "ExplicitSolverStrategy", Build)
        model, _ = InletModel(Grid(400, 0.012), {
            "INLET_NUMBER_OF_PARTICLES": 2e5, "RADIUS": 0.005, "STANDARD_DEVIATION": 0.001,
            "VELOCITY": [0.0, 0.0, -1.0], "MAX_RAND_DEVIATION_ANGLE": 20.0})
        strategy, inlets = RunInlet(model, 1e-4, 40, gravity=(0.0, 0.0, -9.81))
        # As Build: (inlets in place of the model, spheres, strategy).
        return inlets, model.GetModelPart("SpheresPart"), strategy

    shared, own = run(True), run(False)
    injected, rows = shared[0].InjectedCount(0), len(shared[2].Particles)
    assert injected > 300 and 0 < rows < injected  # some inserted, some deleted
    assert shared[2].Particles.shares_columns_with_nodes
    AssertSameRun(shared, own)


def test_a_new_solution_step_of_a_two_step_buffer_moves_the_shared_rows_along():
    # CloneTimeStep rotates the buffer's columns: the rows follow the new
    # current step at the next entry (with what a script set there), and the
    # previous step keeps the previous values.
    shared, own = Build(True), Build(False)
    for run in (shared, own):
        run[1].SetBufferSize(2)
    for step in range(1, 21):
        for run in (shared, own):
            run[0].GetModelPart("SpheresPart").CloneTimeStep(step * DT)
            if step % 5 == 0:
                for k, node in enumerate(run[1].Nodes):
                    if k % 11 == 0:
                        node.SetSolutionStepValue(tessera.VELOCITY, [0.0, 0.3, 0.0])
            Step(run[2], step)
    assert shared[2].Particles.shares_columns_with_nodes
    AssertSameRun(shared, own)
    for node in shared[1].Nodes:
        np.testing.assert_array_equal(node.GetSolutionStepValue(tessera.VELOCITY, 1),
                                      own[1].GetNode(node.Id).GetSolutionStepValue(tessera.VELOCITY, 1))
