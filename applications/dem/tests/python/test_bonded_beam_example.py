"""examples/bonded_beam.gid: a beam of 640 bonded spheres (simple cubic, 40 x 4
x 4, continuum strategy, KDEM) on two supports, struck at midspan by a steel
ball. The committed deck is what its generator writes, and the whole run
(20 ms, 2,000 steps, about 2 s) behaves as a beam under an impact:

- every pair of lattice neighbours is bonded: 3 n_x n_y n_z - (n_y n_z +
  n_x n_z + n_x n_y) = 1,584 bonds;
- the beam carries its own weight: no bond breaks before the ball arrives
  (5 mm at 4 m/s: 1.25 ms);
- then bonds break, all of them along the beam's axis (x), in tension
  across cross-sections, as a beam fails in bending, and at midspan the
  bottom (tension) fibre is among them.
"""
import filecmp
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import tessera

from dem_test_utilities import DeckStage

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))))
EXAMPLE = os.path.join(REPO_ROOT, "examples", "bonded_beam.gid")
MDPA_FILES = ("bonded_beamDEM.mdpa", "bonded_beamDEM_FEM_boundary.mdpa")
SPACING = 0.01
COUNT = (40, 4, 4)


def test_the_committed_deck_is_what_the_generator_writes(tmp_path):
    subprocess.run([sys.executable, os.path.join(EXAMPLE, "generate_bonded_beam.py"),
                    "--out", str(tmp_path)], check=True)
    for name in MDPA_FILES:
        assert filecmp.cmp(tmp_path / name, os.path.join(EXAMPLE, name), shallow=False), name


def test_the_beam_holds_its_weight_then_breaks_in_bending_under_the_ball(tmp_path, monkeypatch):
    for name in MDPA_FILES + ("ProjectParametersDEM.json", "MaterialsDEM.json"):
        shutil.copy(os.path.join(EXAMPLE, name), tmp_path)
    model, stage = DeckStage(tmp_path, monkeypatch)
    stage.Initialize()
    strategy = stage.GetStrategy()
    nx, ny, nz = COUNT
    assert strategy.NumberOfBonds() == 3 * nx * ny * nz - (ny * nz + nx * nz + nx * ny)
    intact_before_impact = None
    while stage.KeepAdvancingSolutionLoop():
        stage.time = stage._GetSolver().AdvanceInTime(stage.time)
        stage.InitializeSolutionStep()
        stage._GetSolver().Predict()
        stage._GetSolver().SolveSolutionStep()
        stage.FinalizeSolutionStep()
        stage.OutputSolutionStep()
        if intact_before_impact is None and stage.time >= 1.2e-3:
            intact_before_impact = strategy.NumberOfIntactBonds()
    stage.Finalize()
    assert intact_before_impact == strategy.NumberOfBonds()
    bonds = strategy.BondArrays()
    broken = np.nonzero(bonds["state"] != 0)[0]
    assert len(broken) > 0
    rows = strategy.Particles
    start = np.asarray(rows.position) - np.asarray(rows.displacement)
    first, second = start[bonds["first"][broken]], start[bonds["second"][broken]]
    along = np.abs(second - first)
    np.testing.assert_allclose(along[:, 0], SPACING, rtol=1e-9)  # x-bonds only
    np.testing.assert_allclose(along[:, 1:], 0.0, atol=1e-12)
    assert set(bonds["state"][broken]) == {4}  # tension
    midspan = 0.5 * (nx - 1) * SPACING
    bottom_midspan = [k for k in range(len(broken))
                      if abs(0.5 * (first[k][0] + second[k][0]) - midspan) < 1e-9
                      and abs(first[k][2]) < 1e-12]
    assert bottom_midspan
    # The bonds as ParaView lines (ContactMeshOption): one file per 1 ms.
    folder = tmp_path / "bonded_beam_Post_Files"
    assert len(list(folder.glob("bonded_beam_bonds_*.vtk"))) == 20
    # DAMAGE_RATIO on the sphere nodes (and in their VTK files): the share of
    # each sphere's bonds that broke; 1 for the ball, which has none.
    total = np.zeros(len(rows.radius))
    failed = np.zeros(len(rows.radius))
    for k in range(len(bonds["state"])):
        for row in (bonds["first"][k], bonds["second"][k]):
            total[row] += 1
            failed[row] += bonds["state"][k] != 0
    expected = np.where(total > 0, failed / np.maximum(total, 1), 1.0)
    nodes = model.GetModelPart("SpheresPart")
    by_element = {e.Id: e.GetGeometry()[0] for e in nodes.Elements}
    measured = [by_element[element].GetSolutionStepValue(tessera.DAMAGE_RATIO)
                for element in rows.element_id]
    np.testing.assert_array_equal(measured, expected)
    assert expected.max() == 1.0 and 0.0 < expected[total > 0].max() < 1.0
    last = sorted(folder.glob("SpheresPart_*.vtu"), key=lambda f: int(f.stem.split("_")[-1]))[-1]
    assert "DAMAGE_RATIO" in last.read_text(errors="ignore")
