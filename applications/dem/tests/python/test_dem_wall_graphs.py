"""Wall force graphs: <problem_name>_Graphs/<problem_name>_<IDENTIFIER>_force_graph.grf
for every wall sub model part with FORCE_INTEGRATION_GROUP 1 (Kratos' file
name, header and columns: time, total_force[0..2], total_moment[0..2] about the
part's ROTATION_CENTER), written every GraphExportFreq.

Reference: the rows must equal DEMAnalysisStage.GetWallForceAndMoment at the
same times (the resultant of the contact forces on the wall nodes; itself
checked against statics in test_dem_wall_motion.py). Written with 13
significant digits, so rel 1e-11.
"""
import numpy as np
import pytest

import tessera

from dem_test_utilities import WallSubModelPart
from test_dem_analysis_stage import WALLS_MDPA, SmallDeck, Stage

FLOOR_PART = WallSubModelPart("floor", ["FORCE_INTEGRATION_GROUP 1", "IDENTIFIER ground",
                                        "ROTATION_CENTER [3] (0.1, 0.2, 0.0)"])


def test_wall_force_graph_rows_equal_the_wall_resultant_at_those_times(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    parameters = SmallDeck(tmp_path, GraphExportFreq=0.004, FinalTime=0.0199)
    (tmp_path / "smallDEM_FEM_boundary.mdpa").write_text(WALLS_MDPA + FLOOR_PART)
    import tessera.dem

    class Recording(tessera.dem.DEMAnalysisStage):
        def Initialize(self):
            super().Initialize()
            self.seen = {0.0: self.GetWallForceAndMoment("floor")}

        def FinalizeSolutionStep(self):
            super().FinalizeSolutionStep()
            time = self.spheres_model_part.ProcessInfo[tessera.TIME]
            self.seen[time] = self.GetWallForceAndMoment("floor")

    stage = Recording(tessera.Model(), parameters)
    stage.Run()
    path = tmp_path / "small_Graphs" / "small_ground_force_graph.grf"
    header = path.read_text().splitlines()[0].split()
    assert header == ["#time", "total_force[0]", "total_force[1]", "total_force[2]",
                      "total_moment[0]", "total_moment[1]", "total_moment[2]"]
    rows = np.loadtxt(path)
    # t = 0, every 0.004 s, and the last step (started before FinalTime) ends at 0.02.
    assert rows[:, 0] == pytest.approx([0.0, 0.004, 0.008, 0.012, 0.016, 0.02], abs=1e-9)
    times = np.array(sorted(stage.seen))
    for row in rows:
        time = times[np.argmin(abs(times - row[0]))]
        force, moment = stage.seen[time]
        np.testing.assert_allclose(row[1:4], force, rtol=1e-11, atol=1e-12 * abs(force).max())
        np.testing.assert_allclose(row[4:7], moment, rtol=1e-11, atol=1e-12 * abs(moment).max())
    # Not a trivial series: the spheres (at x = 0 and 0.3) press on the floor,
    # and the one off the rotation centre gives a moment.
    assert (rows[1:, 3] < 0.0).all() and (abs(rows[1:, 4:7]).max(axis=1) > 0.0).all()


def test_two_force_groups_with_the_same_identifier_are_an_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    parameters = SmallDeck(tmp_path, GraphExportFreq=0.004, FinalTime=0.001)
    twin = FLOOR_PART.replace("floor", "floor2")
    (tmp_path / "smallDEM_FEM_boundary.mdpa").write_text(WALLS_MDPA + FLOOR_PART + twin)
    model, stage = Stage(parameters)
    with pytest.raises(tessera.Error, match="small_ground_force_graph.grf"):
        stage.Run()
