"""A sphere resting on a prestressed membrane (the thesis' chapter 6 demo of
a sphere on a membrane): membranes are skin themselves, so the automatic
skin makes the membrane elements the walls, and the sphere's weight must
reach the membrane's supports."""
import json

import numpy as np
import pytest

import tessera

from coupled_decks import dem_files

CELLS, SIDE = 8, 1.0
MEMBRANE = {"YOUNG_MODULUS": 1e6, "POISSON_RATIO": 0.3, "DENSITY": 1000.0, "THICKNESS": 0.002,
            "PRESTRESS_VECTOR": [1e5, 1e5, 0.0]}


def _membrane_deck(folder, end_time, time_step):
    h = SIDE / CELLS
    ids, lines = {}, ["Begin ModelPartData", "End ModelPartData", "Begin Properties 1", "End Properties",
                      "Begin Nodes"]
    for j in range(CELLS + 1):
        for i in range(CELLS + 1):
            ids[(i, j)] = len(ids) + 1
            lines.append(f"  {ids[(i, j)]} {i * h - SIDE / 2!r} {j * h - SIDE / 2!r} 0.0")
    lines += ["End Nodes", "Begin Elements MembraneElement3D4N"]
    count = 0
    for j in range(CELLS):
        for i in range(CELLS):
            count += 1
            quad = [ids[(i, j)], ids[(i + 1, j)], ids[(i + 1, j + 1)], ids[(i, j + 1)]]
            lines.append(f"  {count} 1 " + " ".join(map(str, quad)))
    lines += ["End Elements"]
    edges = [n for (i, j), n in ids.items() if i in (0, CELLS) or j in (0, CELLS)]
    for name, nodes, elements in (("Membrane", list(ids.values()), range(1, count + 1)),
                                  ("Edges", edges, ())):
        lines += [f"Begin SubModelPart {name}", "  Begin SubModelPartNodes"]
        lines += [f"    {n}" for n in nodes] + ["  End SubModelPartNodes", "  Begin SubModelPartElements"]
        lines += [f"    {e}" for e in elements] + ["  End SubModelPartElements", "End SubModelPart"]
    (folder / "membrane.mdpa").write_text("\n".join(lines) + "\n")
    json.dump({"properties": [{"model_part_name": "Structure.Membrane", "properties_id": 1, "Material": {
        "constitutive_law": {"name": "LinearElasticPlaneStress2DLaw"}, "Variables": MEMBRANE,
        "Tables": {}}}]}, open(folder / "StructuralMaterials.json", "w"))
    json.dump({
        "problem_data": {"problem_name": "membrane", "parallel_type": "OpenMP", "echo_level": 0,
                         "start_time": 0.0, "end_time": end_time},
        "solver_settings": {"solver_type": "Dynamic", "model_part_name": "Structure", "domain_size": 3,
                            "time_integration_method": "explicit", "rayleigh_alpha": 80.0,
                            "model_import_settings": {"input_type": "mdpa", "input_filename": "membrane"},
                            "material_import_settings": {"materials_filename": "StructuralMaterials.json"},
                            "time_stepping": {"time_step": time_step}},
        "processes": {"constraints_process_list": [{
            "python_module": "assign_vector_variable_process", "kratos_module": "KratosMultiphysics",
            "Parameters": {"model_part_name": "Structure.Edges", "variable_name": "DISPLACEMENT",
                           "constrained": [True, True, True], "value": [0.0, 0.0, 0.0],
                           "interval": [0.0, "End"]}}],
            "loads_process_list": [{
                "python_module": "assign_vector_by_direction_process", "kratos_module": "KratosMultiphysics",
                "Parameters": {"model_part_name": "Structure.Membrane", "variable_name": "VOLUME_ACCELERATION",
                               "constrained": False, "modulus": 9.81, "direction": [0.0, 0.0, -1.0],
                               "interval": [0.0, "End"]}}]},
        "output_processes": {}}, open(folder / "ProjectParameters.json", "w"))


def test_a_sphere_on_a_prestressed_membrane_loads_its_supports_with_its_weight(project):
    """A 1 m square membrane (8 x 8 MembraneElement3D4N, 2 mm, E 1 MPa,
    prestress 100 kPa, 1000 kg/m³, Rayleigh mass damping 80 s⁻¹) held at
    its edges; a sphere (R 0.1 m, 1000 kg/m³, restitution 0.2) put on its
    centre, gravity on both. The membrane's 64 elements are the walls (the
    automatic skin of membranes is themselves); the sphere sinks into the
    membrane; over the last second of 3 s the vertical support reactions
    average the weight of membrane and sphere, 60.71 N (1 %: the impulse
    balance, what the remaining slow oscillation leaves is m Δv / T, below
    0.5 %)."""
    g = 9.81
    _membrane_deck(project, end_time=3.0, time_step=2e-4)
    dem_files(project, "membrane", [(0.0, 0.0, 0.1, 0.1, (0.0, 0.0, 0.0))], density=1000.0, young=1e6,
              poisson=0.3, restitution=0.2, friction=0.3, end_time=3.0, time_step=2e-4,
              gravity=(0.0, 0.0, -g))
    import tessera.coupling
    model = tessera.Model()
    stage = tessera.coupling.DemStructuresCouplingAnalysis(
        model, tessera.Parameters.FromFile(str(project / "ProjectParameters.json")),
        tessera.Parameters.FromFile(str(project / "ProjectParametersDEM.json")),
        {"echo_level": 0, "energy_output": False})
    stage.Initialize()
    assert stage.skin.walls.NumberOfConditions() == CELLS * CELLS
    edges = model.GetModelPart("Structure").GetSubModelPart("Edges")
    reactions = []
    while stage.KeepAdvancingSolutionLoop():
        stage.AdvanceInTime()
        stage.InitializeSolutionStep()
        stage.SolveSolutionStep()
        stage.FinalizeSolutionStep()
        if stage.time > 2.0:
            reactions.append(sum(n.GetSolutionStepValue(tessera.REACTION_Z) for n in edges.Nodes))
    weights = 1000.0 * (4.0 / 3.0 * np.pi * 0.1 ** 3 + SIDE * SIDE * 0.002) * g
    centre = model.GetModelPart("Structure").GetNode((CELLS + 1) * (CELLS // 2) + CELLS // 2 + 1)
    sag = centre.GetSolutionStepValue(tessera.DISPLACEMENT_Z)
    print(f"membrane: mean reaction {np.mean(reactions):.4f} N, weights {weights:.4f} N, sag {sag:.4g} m")
    assert sag < -0.02
    assert np.mean(reactions) == pytest.approx(weights, rel=0.01)
