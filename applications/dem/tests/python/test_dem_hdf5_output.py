"""HDF5 results of the DEM stage ("post_hdf5_option", tessera's key): the
spheres' and walls' files hold, at every OutputTimeStep, the nodal results the
Post* flags select, equal bit for bit to the model's values; the XDMF shows
the spheres as points with RADIUS at their current positions."""
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from test_dem_analysis_stage import SmallDeck
from test_dem_gid_output import RecordingStage

h5py = pytest.importorskip("h5py", reason="python3-h5py is not installed")


def test_hdf5_files_hold_the_selected_results_at_the_output_times(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = RecordingStage(SmallDeck(tmp_path, post_hdf5_option=True, OutputTimeStep=0.005,
                                   PostVelocity=True, PostAngularVelocity=True,
                                   PostTotalForces=True, PostDisplacement=False))
    folder = tmp_path / "small_Post_Files"
    with h5py.File(folder / "small_DEM.h5", "r") as f:
        assert list(f["ModelData/Elements"]) == ["Sphere3D1"]
        ids = f["ModelData/Nodes/Local/Ids"][()]
        steps = sorted(f["ResultsData"].values(), key=lambda g: g.attrs["TIME"])
        assert len(steps) == 4  # every 0.005 s over 0.02 s
        for group in steps:
            recorded = run.snapshots[group.attrs["TIME"]]
            assert set(group["NodalSolutionStepData"]) == {
                "VELOCITY", "ANGULAR_VELOCITY", "TOTAL_FORCES", "RADIUS"}
            for name, dataset in group["NodalSolutionStepData"].items():
                expected = np.array([recorded[name][i] for i in ids]).reshape(dataset.shape)
                assert dataset[()].tobytes() == expected.tobytes(), name
        # The ball launched at 4 m/s moves: current coordinates differ per output.
        first, last = steps[0]["NodalCoordinates"][()], steps[-1]["NodalCoordinates"][()]
        assert last[1, 0] - first[1, 0] > 0.03
    root = ET.parse(folder / "small_DEM.xdmf").getroot()
    grids = root.findall("Domain/Grid/Grid")
    assert len(grids) == 4
    assert grids[0].find("Topology").get("TopologyType") == "Polyvertex"
    assert grids[0].find("Attribute[@Name='RADIUS']") is not None
    with h5py.File(folder / "small_DEM_FEM_boundary.h5", "r") as f:
        assert list(f["ModelData/Conditions"]) == ["Quadrilateral3D4"]
        assert set(f["ResultsData"][sorted(f["ResultsData"])[0]]["NodalSolutionStepData"]) == {
            "VELOCITY"}
