"""BoundingBoxOption under moreau_jean_strategy: spheres whose centre leaves
the box are deleted at the end of the step that takes them out, as the
smooth strategy does, and the others move on as if nothing happened."""
import json

import numpy as np

import tessera

from test_nonsmooth_stage import Deck


def _run(folder, box):
    """Steps the drop deck (a sphere bouncing at x = 0, one sliding along +x
    from x = 0.2 at 1 m/s) under Moreau-Jean; returns, per step, the ids of
    the spheres left and sphere 1's position."""
    import tessera.dem
    keys = {"BoundingBoxOption": box, "BoundingBoxMinX": -1.0, "BoundingBoxMaxX": 0.25,
            "BoundingBoxMinY": -1.0, "BoundingBoxMaxY": 1.0, "BoundingBoxMinZ": -1.0,
            "BoundingBoxMaxZ": 1.0, "BoundingBoxStartTime": 0.0, "FinalTime": 0.1}
    parameters = Deck(folder, {"strategy": "moreau_jean_strategy"}, **keys)
    model = tessera.Model()
    stage = tessera.dem.DEMAnalysisStage(model, parameters)
    stage.Initialize()
    spheres = model.GetModelPart("SpheresPart")
    ids, first, second = [], [], []
    while stage.KeepAdvancingSolutionLoop():
        stage.time = stage._GetSolver().AdvanceInTime(stage.time)
        stage.InitializeSolutionStep()
        stage._GetSolver().SolveSolutionStep()
        stage.FinalizeSolutionStep()
        ids.append(sorted(n.Id for n in spheres.Nodes))
        node = spheres.GetNode(1)
        first.append((node.X, node.Y, node.Z))
        second.append(spheres.GetNode(2).X if 2 in ids[-1] else None)
    stage.Finalize()
    return ids, np.array(first), second


def test_a_sphere_leaving_the_box_is_deleted_at_the_step_that_takes_it_out(tmp_path, monkeypatch):
    """Without the box, sphere 2 (sliding, then rolling) passes x = 0.25 at
    some step k; with BoundingBoxMaxX 0.25 it is gone from that step on (its
    element and node), present before, and sphere 1 follows the same
    trajectory bit for bit (the removal changes nobody else's contact
    problem here; the warm start's keys follow the renumbered rows)."""
    monkeypatch.chdir(tmp_path)
    ids_free, first_free, second_free = _run(tmp_path, box=False)
    outside = [k for k, x in enumerate(second_free) if x > 0.25]
    assert outside, "sphere 2 must cross x = 0.25 within the run"
    k = outside[0]
    assert 5 < k < len(second_free) - 5
    ids_box, first_box, second_box = _run(tmp_path, box=True)
    assert all(ids == [1, 2] for ids in ids_box[:k])
    assert all(ids == [1] for ids in ids_box[k:])
    np.testing.assert_array_equal(first_box, first_free)


def test_the_box_waits_for_its_start_time(tmp_path, monkeypatch):
    """BoundingBoxStartTime after the end of the run: nothing is deleted."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "ProjectParametersDEM.json"
    import tessera.dem
    parameters = Deck(tmp_path, {"strategy": "moreau_jean_strategy"}, BoundingBoxOption=True,
                      BoundingBoxMaxX=0.25, BoundingBoxStartTime=1.0, FinalTime=0.1)
    deck = json.loads(path.read_text())
    assert deck["BoundingBoxStartTime"] == 1.0
    model = tessera.Model()
    stage = tessera.dem.DEMAnalysisStage(model, parameters)
    stage.Run()
    assert sorted(n.Id for n in model.GetModelPart("SpheresPart").Nodes) == [1, 2]
    assert model.GetModelPart("SpheresPart").GetNode(2).X > 0.25
