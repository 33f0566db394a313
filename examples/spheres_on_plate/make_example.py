"""Writes the spheres_on_plate project folder: an elastic plate clamped at its
edges (hexahedra) and 25 spheres above it, falling under gravity.

    /usr/bin/python3 make_example.py     # rewrites the .mdpa files beside it

The JSON files are written too, so that the folder can be rebuilt from this
script alone; edit the constants below to change the example.
"""
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "spheres_on_plate"

# The plate: side x side x thickness, cells per side and through the thickness.
SIDE, THICKNESS = 1.0, 0.04
CELLS, LAYERS = 12, 2
PLATE = {"DENSITY": 1000.0, "YOUNG_MODULUS": 5e6, "POISSON_RATIO": 0.3}
# The spheres: a ROWS x ROWS grid, jittered, between 0.12 m and 0.3 m above the plate.
ROWS, RADIUS = 5, 0.04
SPHERES = {"PARTICLE_DENSITY": 2500.0, "YOUNG_MODULUS": 1e7, "POISSON_RATIO": 0.25}
RESTITUTION, FRICTION = 0.5, 0.3
END_TIME, TIME_STEP, OUTPUT_INTERVAL = 0.5, 1e-4, 0.01


def write_plate():
    h, hz = SIDE / CELLS, THICKNESS / LAYERS
    ids = {}
    lines = ["Begin ModelPartData", "End ModelPartData", "", "Begin Properties 1", "End Properties", "",
             "Begin Nodes"]
    for k in range(LAYERS + 1):
        for j in range(CELLS + 1):
            for i in range(CELLS + 1):
                ids[(i, j, k)] = len(ids) + 1
                lines.append(f"  {ids[(i, j, k)]} {i * h - SIDE / 2:.6f} {j * h - SIDE / 2:.6f} "
                             f"{k * hz - THICKNESS:.6f}")
    lines += ["End Nodes", "", "Begin Elements SmallDisplacementElement3D8N"]
    count = 0
    for k in range(LAYERS):
        for j in range(CELLS):
            for i in range(CELLS):
                count += 1
                corners = [ids[(i, j, k)], ids[(i + 1, j, k)], ids[(i + 1, j + 1, k)], ids[(i, j + 1, k)],
                           ids[(i, j, k + 1)], ids[(i + 1, j, k + 1)], ids[(i + 1, j + 1, k + 1)],
                           ids[(i, j + 1, k + 1)]]
                lines.append(f"  {count} 1 " + " ".join(map(str, corners)))
    lines += ["End Elements", ""]
    edges = sorted(n for (i, j, k), n in ids.items() if i in (0, CELLS) or j in (0, CELLS))
    centre = [ids[(CELLS // 2, CELLS // 2, LAYERS)]]
    for name, nodes, elements in (("Plate", sorted(ids.values()), range(1, count + 1)),
                                  ("ClampedEdges", edges, ()), ("Centre", centre, ())):
        lines += [f"Begin SubModelPart {name}", "  Begin SubModelPartNodes"]
        lines += [f"    {n}" for n in nodes]
        lines += ["  End SubModelPartNodes", "  Begin SubModelPartElements"]
        lines += [f"    {e}" for e in elements]
        lines += ["  End SubModelPartElements", "End SubModelPart", ""]
    with open(os.path.join(HERE, f"{NAME}.mdpa"), "w") as f:
        f.write("\n".join(lines))


def write_spheres():
    rng = random.Random(7)
    spacing = 0.8 * SIDE / ROWS
    lines = ["Begin ModelPartData", "End ModelPartData", "", "Begin Properties 1", "End Properties", "",
             "Begin Nodes"]
    count = 0
    for j in range(ROWS):
        for i in range(ROWS):
            count += 1
            x = (i - (ROWS - 1) / 2) * spacing + rng.uniform(-0.02, 0.02)
            y = (j - (ROWS - 1) / 2) * spacing + rng.uniform(-0.02, 0.02)
            z = rng.uniform(0.12, 0.3)
            lines.append(f"  {count} {x:.6f} {y:.6f} {z:.6f}")
    lines += ["End Nodes", "", "Begin Elements SphericParticle3D"]
    lines += [f"  {n} 1 {n}" for n in range(1, count + 1)]
    lines += ["End Elements", "", "Begin NodalData RADIUS"]
    lines += [f"  {n} 0 {RADIUS}" for n in range(1, count + 1)]
    lines += ["End NodalData", "", "Begin SubModelPart Spheres", "  Begin SubModelPartNodes"]
    lines += [f"    {n}" for n in range(1, count + 1)]
    lines += ["  End SubModelPartNodes", "  Begin SubModelPartElements"]
    lines += [f"    {n}" for n in range(1, count + 1)]
    lines += ["  End SubModelPartElements", "End SubModelPart", ""]
    with open(os.path.join(HERE, f"{NAME}DEM.mdpa"), "w") as f:
        f.write("\n".join(lines))
    with open(os.path.join(HERE, f"{NAME}DEM_FEM_boundary.mdpa"), "w") as f:
        f.write("Begin ModelPartData\nEnd ModelPartData\n")


def write_json(name, data):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(data, f, indent=4)
        f.write("\n")


def write_parameters():
    write_json("StructuralMaterials.json", {"properties": [{
        "model_part_name": "Structure.Plate", "properties_id": 1,
        "Material": {"constitutive_law": {"name": "LinearElastic3DLaw"}, "Variables": PLATE, "Tables": {}}}]})
    vtk = {"python_module": "vtk_output_process", "kratos_module": "KratosMultiphysics",
           "Parameters": {"model_part_name": "Structure", "output_control_type": "time",
                          "output_interval": OUTPUT_INTERVAL, "file_format": "binary",
                          "output_path": "VTK_Output",
                          "nodal_solution_step_data_variables": ["DISPLACEMENT", "VELOCITY",
                                                                 "DEM_SURFACE_LOAD", "DEM_NODAL_FORCE"]}}
    write_json("ProjectParameters.json", {
        "problem_data": {"problem_name": NAME, "parallel_type": "OpenMP", "echo_level": 0,
                         "start_time": 0.0, "end_time": END_TIME},
        "solver_settings": {"solver_type": "Dynamic", "model_part_name": "Structure", "domain_size": 3,
                            "echo_level": 0, "time_integration_method": "explicit",
                            "rayleigh_alpha": 5.0,
                            "model_import_settings": {"input_type": "mdpa", "input_filename": NAME},
                            "material_import_settings": {"materials_filename": "StructuralMaterials.json"},
                            "time_stepping": {"time_step": TIME_STEP}},
        "processes": {
            "constraints_process_list": [{
                "python_module": "assign_vector_variable_process", "kratos_module": "KratosMultiphysics",
                "Parameters": {"model_part_name": "Structure.ClampedEdges", "variable_name": "DISPLACEMENT",
                               "constrained": [True, True, True], "value": [0.0, 0.0, 0.0],
                               "interval": [0.0, "End"]}}],
            "loads_process_list": [{
                "python_module": "assign_vector_by_direction_process", "kratos_module": "KratosMultiphysics",
                "Parameters": {"model_part_name": "Structure.Plate", "variable_name": "VOLUME_ACCELERATION",
                               "constrained": False, "modulus": 9.81, "direction": [0.0, 0.0, -1.0],
                               "interval": [0.0, "End"]}}]},
        "output_processes": {"vtk_output": [vtk]}})
    relation = {"COEFFICIENT_OF_RESTITUTION": RESTITUTION, "STATIC_FRICTION": FRICTION,
                "DYNAMIC_FRICTION": FRICTION, "FRICTION_DECAY": 500.0, "ROLLING_FRICTION": 0.0,
                "ROLLING_FRICTION_WITH_WALLS": 0.0,
                "DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME": "DEM_D_Hertz_viscous_Coulomb"}
    write_json("MaterialsDEM.json", {
        "materials": [{"material_name": "spheres", "material_id": 1, "Variables": SPHERES}],
        "material_relations": [{"material_names_list": ["spheres", "spheres"], "material_ids_list": [1, 1],
                                "Variables": relation}],
        "material_assignation_table": [["SpheresPart", "spheres"]]})
    write_json("ProjectParametersDEM.json", {
        "problem_name": NAME, "Dimension": 3, "BoundingBoxOption": False, "dem_inlet_option": False,
        "GravityX": 0.0, "GravityY": 0.0, "GravityZ": -9.81, "RotationOption": True,
        "solver_settings": {"strategy": "sphere_strategy",
                            "material_import_settings": {"materials_filename": "MaterialsDEM.json"}},
        "TranslationalIntegrationScheme": "Velocity_Verlet", "MaxTimeStep": TIME_STEP,
        "FinalTime": END_TIME, "NeighbourSearchFrequency": 1, "SearchTolerance": 0.0,
        "OutputTimeStep": OUTPUT_INTERVAL, "post_vtk_option": True, "PostVelocity": True,
        "PostDisplacement": True, "PostRadius": True, "PostContactForces": True, "PostPressure": True})
    write_json("ProjectParametersCoupling.json", {"transfer_method": "area_distributed",
                                                  "fe_time_step_fraction": 0.9, "echo_level": 1})


if __name__ == "__main__":
    write_plate()
    write_spheres()
    write_parameters()
