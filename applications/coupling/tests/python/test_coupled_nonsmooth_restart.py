"""Checkpoint and restart of a coupled DE-FE run with moreau_jean_strategy on
the DEM side (coupled_checkpoint.py; the strategy's state in
applications/dem/io/dem_checkpoint.cpp): continued from a checkpoint taken
while spheres press on the skin, the run gives bitwise (numpy array_equal, no
tolerance) the uninterrupted run's spheres, structure (the half-step impulse
bookkeeping lives in its VELOCITY and ACCELERATION), skin loads, energy monitor, and every
dataset of the two final checkpoints (the warm-start impulses among them)."""
import json

import numpy as np

import tessera
from tessera.checkpoint import DifferingDatasets

from coupled_decks import block_mesh, dem_files, structure_files, top_faces

ROWS = ("position", "velocity", "angular_velocity")
NODAL = ("DISPLACEMENT", "VELOCITY", "ACCELERATION", "DEM_NODAL_FORCE", "DEM_SURFACE_LOAD")


def _Run(folder, steps, restart=None, checkpoint=None):
    """`steps` coupled steps, continued from `restart` if given, the state
    saved to `checkpoint`; returns the results and the last step's contact
    count."""
    import tessera.coupling
    model = tessera.Model()
    stage = tessera.coupling.DemStructuresCouplingAnalysis(
        model, tessera.Parameters.FromFile(str(folder / "ProjectParameters.json")),
        tessera.Parameters.FromFile(str(folder / "ProjectParametersDEM.json")),
        {"echo_level": 0, "skin_model_parts": ["Skin"], "energy_output": True})
    if restart is not None:
        stage.RestartFrom(str(restart))
    stage.Initialize()
    stage.end_time = (steps - 0.5) * stage.delta_time
    stage.RunSolutionLoop()
    stage.SaveCheckpoint(str(checkpoint))
    strategy = stage.GetDEMStage().GetStrategy()
    results = {name: np.array(getattr(strategy.Particles, name)) for name in ROWS}
    structure = model.GetModelPart("Structure")
    for name in NODAL:
        results[name] = np.array(structure.NodalArray(getattr(tessera, name)))
    results["step"], results["time"] = stage.step, stage.time
    contacts = strategy.LastStep()["contacts"]
    stage.Finalize()
    return results, contacts


def test_a_coupled_moreau_jean_run_continues_bitwise(project):
    """Two spheres (R 0.1 m, friction 0.3, e = 0, gravity) strike the top of
    an elastic slab clamped at its base and stay on it, explicit structure
    on the common step 1e-4 s: N = 300 steps straight against K = 40 + 260,
    both spheres on the skin at K (the warm start then matters); they leave it
    and land again after K."""
    g = 9.81
    nodes, elements = block_mesh((-0.4, -0.4, -0.2), (0.8, 0.8, 0.2), (2, 2, 1))
    base = [i for i, x in nodes.items() if x[2] == -0.2]
    structure_files(project, "plate", nodes, elements, "SmallDisplacementElement3D8N", young=1e7,
                    poisson=0.3, density=1000.0, fixed_nodes=base, end_time=0.05, time_step=1e-4,
                    gravity=(0.0, 0.0, -g), skin_faces=top_faces((2, 2, 1)))
    spheres = [(-0.15, -0.1, 0.1005, 0.1, (0.3, 0.0, -0.5)), (0.12, 0.15, 0.1003, 0.1, (0.0, -0.2, -0.3))]
    dem_files(project, "plate", spheres, density=2000.0, young=1e7, poisson=0.3, restitution=0.0,
              friction=0.3, end_time=0.05, time_step=1e-4, gravity=(0.0, 0.0, -g))
    path = project / "ProjectParametersDEM.json"
    deck = json.loads(path.read_text())
    deck["solver_settings"]["strategy"] = "moreau_jean_strategy"
    deck["solver_settings"]["moreau_jean_settings"] = {}
    path.write_text(json.dumps(deck))
    n, k = 300, 40
    straight, _ = _Run(project, n, checkpoint=project / "straight.h5")
    first, contacts_at_k = _Run(project, k, checkpoint=project / "middle.h5")
    continued, _ = _Run(project, n, restart=project / "middle.h5", checkpoint=project / "continued.h5")
    assert first["step"] == k and straight["step"] == continued["step"] == n
    assert contacts_at_k == 2
    assert np.any(first["DEM_SURFACE_LOAD"] != 0.0)
    for name in straight:
        assert np.array_equal(straight[name], continued[name]), name
    for group in ("/ModelParts", "/Objects"):
        assert DifferingDatasets(str(project / "straight.h5"), str(project / "continued.h5"), group) == []
