"""Checkpoints of DEM runs are not provided yet (the strategy's contact
histories, search, wall and inlet state are not saved): asking for one, or
continuing from one, is an error rather than a run from a wrong state."""
import os

import pytest

import tessera
from tessera.project import Project


def test_dem_stage_refuses_checkpoints(in_copy, tmp_path):
    folder = in_copy("dem3d_contact")
    fake = tmp_path / "fake.h5"
    fake.write_bytes(b"")
    with pytest.raises(tessera.Error, match="checkpoints of DEM runs are not provided yet"):
        Project(str(folder)).Run(restart=str(fake))
    project = Project(str(folder), settings=["FinalTime=0.0"])
    stage = project.Run()
    with pytest.raises(tessera.Error, match="checkpoints of DEM runs are not provided yet"):
        stage.SaveCheckpoint(os.path.join(str(tmp_path), "x.h5"))
