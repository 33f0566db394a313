"""Checkpoint and restart of the coupled DE-FE stage
(coupling/python_scripts/coupled_checkpoint.py): a coupled run continued from
a checkpoint gives bitwise (numpy array_equal, no tolerance) the results of
the uninterrupted run: the structure's nodes, the spheres' rows, and every
dataset of the two runs' final checkpoints (both sides' model parts, the DEM
strategy's state, the coupling's)."""
import json
import os

import numpy as np
import pytest

import tessera
from tessera.checkpoint import DifferingDatasets

from coupled_decks import block_mesh, dem_files, structure_files, top_faces

ROWS = ("position", "velocity", "angular_velocity", "force", "torque", "contact_force")


def _Run(folder, steps, options, restart=None, checkpoint=None, restart_options=None):
    """The coupled run of `steps` of its (coupled) steps, continued from
    `restart` if given; its state saved to `checkpoint`; `restart_options`
    (a dict) set in the structure's deck. Returns its results."""
    import tessera.coupling
    structural = tessera.Parameters.FromFile(str(folder / "ProjectParameters.json"))
    if restart_options is not None:
        structural.AddValue("restart_options", tessera.Parameters(json.dumps(restart_options)))
    model = tessera.Model()
    stage = tessera.coupling.DemStructuresCouplingAnalysis(
        model, structural, tessera.Parameters.FromFile(str(folder / "ProjectParametersDEM.json")),
        options)
    if restart is not None:
        stage.RestartFrom(str(restart))
    stage.Initialize()
    stage.end_time = (steps - 0.5) * stage.delta_time
    stage.RunSolutionLoop()
    stage.SaveCheckpoint(str(checkpoint))
    rows = stage.GetDEMStage().GetStrategy().Particles
    results = {name: np.array(getattr(rows, name)) for name in ROWS}
    structure = model.GetModelPart("Structure")
    for name in ("DISPLACEMENT", "VELOCITY", "ACCELERATION", "DEM_NODAL_FORCE"):
        results[name] = np.array(structure.NodalArray(getattr(tessera, name)))
    results["step"], results["time"] = stage.step, stage.time
    results["wall contacts"] = stage.GetDEMStage().GetStrategy().NumberOfWallContacts()
    stage.Finalize()
    return results


def _AssertContinuedBitwise(folder, n, k, options):
    straight = _Run(folder, n, options, checkpoint=folder / "straight.h5")
    first = _Run(folder, k, options, checkpoint=folder / "middle.h5")
    continued = _Run(folder, n, options, restart=folder / "middle.h5",
                     checkpoint=folder / "continued.h5")
    assert first["step"] == k and straight["step"] == continued["step"] == n
    for name in straight:
        assert np.array_equal(straight[name], continued[name]), name
    for group in ("/ModelParts", "/Objects"):
        assert DifferingDatasets(str(folder / "straight.h5"), str(folder / "continued.h5"), group) == []
    return first, straight


def _BlockWithTwoSpheres(project):
    nodes, elements = block_mesh((-0.2, -0.2, -0.4), (0.4, 0.4, 0.4), (2, 2, 2))
    structure_files(project, "block", nodes, elements, "SmallDisplacementElement3D8N", young=1e7,
                    poisson=0.3, density=1000.0, end_time=0.03, time_step=1e-4,
                    skin_faces=top_faces((2, 2, 2)))
    spheres = [(-0.1, -0.1, 0.102, 0.1, (0.0, 0.0, -1.0)), (0.1, 0.12, 0.102, 0.1, (0.5, 0.0, -2.0))]
    dem_files(project, "block", spheres, density=2000.0, young=1e7, poisson=0.3, end_time=0.03,
              time_step=1e-4, friction=0.3, wall_material=(1e7, 0.3))


@pytest.mark.parametrize("adm_force", ["thesis", "energy_gradient"])
def test_an_explicit_coupled_run_continues_bitwise(project, adm_force):
    """Two spheres strike the top of a free elastic block (the set-up of
    test_coupling_invariants' force balance), explicit structure on the common
    step, energy monitor on: N = 240 steps straight against K = 130 + 110,
    the spheres in contact with the skin at K. With the energy-consistent ADM
    forces the checkpoint keeps the contacts' vertex forces too."""
    _BlockWithTwoSpheres(project)
    options = {"echo_level": 0, "skin_model_parts": ["Skin"], "energy_output": True, "adm_force": adm_force}
    first, straight = _AssertContinuedBitwise(project, 240, 130, options)
    assert first["wall contacts"] > 0
    assert np.any(first["DEM_NODAL_FORCE"] != 0.0)  # the skin is loaded at K


def test_periodic_coupled_checkpoints_follow_the_structures_restart_options(project):
    """restart_options of the structure's deck (every 50 coupled steps): the
    straight run writes steps 50 to 200, the one stopped at 130 steps 50 and
    100, and the run continued from its step 100 writes 150 and 200, the last
    bitwise the straight run's."""
    _BlockWithTwoSpheres(project)
    options = {"echo_level": 0, "skin_model_parts": ["Skin"]}
    for name, steps, restart in (("straight", 200, None), ("first", 130, None),
                                 ("continued", 200, project / "first" / "checkpoint_000000100.h5")):
        _Run(project, steps, options, restart=restart, checkpoint=project / f"{name}.h5",
             restart_options={"SaveRestart": True, "RestartFrequency": 50,
                              "checkpoint_folder": name})
    listing = {name: sorted(os.listdir(project / name)) for name in ("straight", "first", "continued")}
    assert listing == {"straight": [f"checkpoint_{k:09d}.h5" for k in (50, 100, 150, 200)],
                       "first": [f"checkpoint_{k:09d}.h5" for k in (50, 100)],
                       "continued": [f"checkpoint_{k:09d}.h5" for k in (150, 200)]}
    for group in ("/ModelParts", "/Objects"):
        assert DifferingDatasets(str(project / "straight" / "checkpoint_000000200.h5"),
                                 str(project / "continued" / "checkpoint_000000200.h5"), group) == []


def test_an_implicit_coupled_run_with_dem_substeps_continues_bitwise(project):
    """Four spheres fall on an elastic slab clamped at its base (Bossak,
    structural step 0.01 s, 50 DEM sub-steps of 2e-4 s): N = 8 structural
    steps straight against K = 5 + 3; the sub-steps' averaged loads carry over
    in the structure's DEM_NODAL_FORCE."""
    g = 9.81
    nodes, elements = block_mesh((-0.5, -0.5, -0.1), (1.0, 1.0, 0.1), (4, 4, 1))
    base = [i for i, x in nodes.items() if x[2] == -0.1]
    structure_files(project, "plate", nodes, elements, "SmallDisplacementElement3D8N", young=1e8,
                    poisson=0.3, density=1000.0, fixed_nodes=base, end_time=0.6, time_step=0.01,
                    gravity=(0.0, 0.0, -g), skin_faces=top_faces((4, 4, 1)), implicit=True)
    spheres = [(x, y, 0.11, 0.1, (0.0, 0.0, -0.5)) for x in (-0.2, 0.2) for y in (-0.2, 0.2)]
    dem_files(project, "plate", spheres, density=2000.0, young=1e7, poisson=0.3, restitution=0.2,
              friction=0.3, end_time=0.6, time_step=2e-4, gravity=(0.0, 0.0, -g))
    first, straight = _AssertContinuedBitwise(project, 8, 5, {"echo_level": 0, "skin_model_parts": ["Skin"]})
    assert first["wall contacts"] > 0


def test_a_coupled_checkpoint_of_other_decks_is_refused(project):
    nodes, elements = block_mesh((-0.2, -0.2, -0.4), (0.4, 0.4, 0.4), (1, 1, 1))
    structure_files(project, "block", nodes, elements, "SmallDisplacementElement3D8N", young=1e7,
                    poisson=0.3, density=1000.0, end_time=0.03, time_step=1e-4,
                    skin_faces=top_faces((1, 1, 1)))
    dem_files(project, "block", [(0.0, 0.0, 0.102, 0.1, (0.0, 0.0, -1.0))], density=2000.0, young=1e7,
              poisson=0.3, end_time=0.03, time_step=1e-4, wall_material=(1e7, 0.3))
    options = {"echo_level": 0, "skin_model_parts": ["Skin"]}
    _Run(project, 5, options, checkpoint=project / "a.h5")
    deck = json.loads((project / "ProjectParametersDEM.json").read_text())
    deck["GravityZ"] = -1.0
    (project / "ProjectParametersDEM.json").write_text(json.dumps(deck))
    with pytest.raises(tessera.Error, match=r"checkpoint .*a\.h5 belongs to other decks: key 'GravityZ' "
                                            r"of /Deck/DEMParameters is"):
        _Run(project, 10, options, restart=project / "a.h5", checkpoint=project / "b.h5")
