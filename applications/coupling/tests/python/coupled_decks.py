"""Coupled DE-FE project folders written by the tests: a hexahedral block
(or plate) of an elastic solid, spheres above it, and the four files of each
side as Kratos writes them (ProjectParameters.json, StructuralMaterials.json,
<name>.mdpa; ProjectParametersDEM.json, MaterialsDEM.json, <name>DEM.mdpa).
"""
import json
import os

import numpy as np


def _write_json(path, data):
    with open(path, "w") as f:
        json.dump(data, f, indent=2)


def block_mesh(corner, size, cells, tetrahedra=False):
    """Nodes {id: (x, y, z)} and elements [node ids] of a box of hexahedra
    (or six tetrahedra per hexahedron), ids from 1."""
    nx, ny, nz = cells
    x0 = np.asarray(corner, dtype=float)
    h = np.asarray(size, dtype=float) / np.asarray(cells)
    ids = {}
    nodes = {}
    for k in range(nz + 1):
        for j in range(ny + 1):
            for i in range(nx + 1):
                node_id = len(nodes) + 1
                ids[(i, j, k)] = node_id
                nodes[node_id] = tuple(x0 + h * (i, j, k))
    elements = []
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                c = [ids[(i, j, k)], ids[(i + 1, j, k)], ids[(i + 1, j + 1, k)], ids[(i, j + 1, k)],
                     ids[(i, j, k + 1)], ids[(i + 1, j, k + 1)], ids[(i + 1, j + 1, k + 1)],
                     ids[(i, j + 1, k + 1)]]
                if not tetrahedra:
                    elements.append(c)
                    continue
                # Six tetrahedra around the diagonal 0-6 (Kuhn), positively oriented.
                for a, b in ((1, 2), (2, 3), (3, 7), (7, 4), (4, 5), (5, 1)):
                    elements.append([c[0], c[a], c[b], c[6]])
    return nodes, elements


def top_faces(cells, tetrahedra=False):
    """The faces (outward node order) of the top side z = max of block_mesh's box."""
    nx, ny, nz = cells

    def node(i, j, k):
        return 1 + i + (nx + 1) * (j + (ny + 1) * k)

    faces = []
    for j in range(ny):
        for i in range(nx):
            quad = [node(i, j, nz), node(i + 1, j, nz), node(i + 1, j + 1, nz), node(i, j + 1, nz)]
            if tetrahedra:  # the Kuhn split's diagonal 4-6 of the cell
                faces += [[quad[0], quad[1], quad[2]], [quad[0], quad[2], quad[3]]]
            else:
                faces.append(quad)
    return faces


def structure_files(folder, name, nodes, elements, element_name, young, poisson, density,
                    fixed_nodes=(), end_time=1e-3, time_step=1e-5, gravity=None, skin_faces=(),
                    implicit=False, skin_ids_descending=False):
    """<name>.mdpa, StructuralMaterials.json and an explicit (or implicit
    Bossak) ProjectParameters.json;
    `skin_faces` (node id lists) become SurfaceCondition3D3N/3D4N of the sub
    model part Skin, with ids 1, 2, ... in the file's order (descending:
    the first face the largest id, so the file's order is not the ids')."""
    def skin_id(k):
        return len(skin_faces) - k if skin_ids_descending else k + 1

    with open(os.path.join(folder, f"{name}.mdpa"), "w") as f:
        f.write("Begin ModelPartData\nEnd ModelPartData\n\nBegin Properties 1\nEnd Properties\n\n")
        f.write("Begin Nodes\n")
        for node_id, x in nodes.items():
            f.write(f"  {node_id} {x[0]!r} {x[1]!r} {x[2]!r}\n")
        f.write("End Nodes\n\n")
        f.write(f"Begin Elements {element_name}\n")
        for k, element in enumerate(elements):
            f.write(f"  {k + 1} 1 {' '.join(map(str, element))}\n")
        f.write("End Elements\n\n")
        f.write("Begin SubModelPart Solid\n  Begin SubModelPartNodes\n")
        for node_id in nodes:
            f.write(f"    {node_id}\n")
        f.write("  End SubModelPartNodes\n  Begin SubModelPartElements\n")
        for k in range(len(elements)):
            f.write(f"    {k + 1}\n")
        f.write("  End SubModelPartElements\nEnd SubModelPart\n")
        if skin_faces:
            for count in (3, 4):
                faces = [(k, face) for k, face in enumerate(skin_faces) if len(face) == count]
                if faces:
                    f.write(f"\nBegin Conditions SurfaceCondition3D{count}N\n")
                    for k, face in faces:
                        f.write(f"  {skin_id(k)} 1 {' '.join(map(str, face))}\n")
                    f.write("End Conditions\n")
            f.write("\nBegin SubModelPart Skin\n  Begin SubModelPartNodes\n")
            for node_id in sorted({i for face in skin_faces for i in face}):
                f.write(f"    {node_id}\n")
            f.write("  End SubModelPartNodes\n  Begin SubModelPartConditions\n")
            for k in range(len(skin_faces)):
                f.write(f"    {skin_id(k)}\n")
            f.write("  End SubModelPartConditions\nEnd SubModelPart\n")
        if fixed_nodes:
            f.write("\nBegin SubModelPart Support\n  Begin SubModelPartNodes\n")
            for node_id in fixed_nodes:
                f.write(f"    {node_id}\n")
            f.write("  End SubModelPartNodes\nEnd SubModelPart\n")
    _write_json(os.path.join(folder, "StructuralMaterials.json"), {"properties": [{
        "model_part_name": "Structure.Solid", "properties_id": 1,
        "Material": {"constitutive_law": {"name": "LinearElastic3DLaw"},
                     "Variables": {"DENSITY": density, "YOUNG_MODULUS": young, "POISSON_RATIO": poisson},
                     "Tables": {}}}]})
    constraints = []
    if fixed_nodes:
        constraints.append({"python_module": "assign_vector_variable_process",
                            "kratos_module": "KratosMultiphysics",
                            "Parameters": {"model_part_name": "Structure.Support",
                                           "variable_name": "DISPLACEMENT",
                                           "constrained": [True, True, True], "value": [0.0, 0.0, 0.0],
                                           "interval": [0.0, "End"]}})
    loads = []
    if gravity is not None:
        loads.append({"python_module": "assign_vector_by_direction_process",
                      "kratos_module": "KratosMultiphysics",
                      "Parameters": {"model_part_name": "Structure.Solid",
                                     "variable_name": "VOLUME_ACCELERATION", "constrained": False,
                                     "modulus": float(np.linalg.norm(gravity)),
                                     "direction": list(np.asarray(gravity) / np.linalg.norm(gravity)),
                                     "interval": [0.0, "End"]}})
    _write_json(os.path.join(folder, "ProjectParameters.json"), {
        "problem_data": {"problem_name": name, "parallel_type": "OpenMP", "echo_level": 0,
                         "start_time": 0.0, "end_time": end_time},
        "solver_settings": {"solver_type": "Dynamic", "model_part_name": "Structure", "domain_size": 3,
                            "echo_level": 0,
                            "time_integration_method": "implicit" if implicit else "explicit",
                            **({"scheme_type": "bossak", "analysis_type": "linear"} if implicit else {}),
                            "model_import_settings": {"input_type": "mdpa", "input_filename": name},
                            "material_import_settings": {"materials_filename": "StructuralMaterials.json"},
                            "time_stepping": {"time_step": time_step}},
        "processes": {"constraints_process_list": constraints, "loads_process_list": loads},
        "output_processes": {}})


def dem_files(folder, name, spheres, density, young, poisson, restitution=1.0, friction=0.0,
              end_time=1e-3, time_step=1e-5, gravity=(0.0, 0.0, 0.0), wall_material=None,
              search_frequency=1, law="DEM_D_Hertz_viscous_Coulomb"):
    """<name>DEM.mdpa (spheres: [(x, y, z, radius, (vx, vy, vz))]), MaterialsDEM.json
    and ProjectParametersDEM.json. `wall_material` (E, nu) assigns the walls
    (the structure's skin) a DEM material; None leaves them to the coupling."""
    with open(os.path.join(folder, f"{name}DEM.mdpa"), "w") as f:
        f.write("Begin ModelPartData\nEnd ModelPartData\n\nBegin Properties 1\nEnd Properties\n\n")
        f.write("Begin Nodes\n")
        for k, s in enumerate(spheres):
            f.write(f"  {k + 1} {s[0]!r} {s[1]!r} {s[2]!r}\n")
        f.write("End Nodes\n\nBegin Elements SphericParticle3D\n")
        for k in range(len(spheres)):
            f.write(f"  {k + 1} 1 {k + 1}\n")
        f.write("End Elements\n\nBegin NodalData RADIUS\n")
        for k, s in enumerate(spheres):
            f.write(f"  {k + 1} 0 {s[3]!r}\n")
        f.write("End NodalData\n")
        for axis, label in enumerate("XYZ"):
            f.write(f"\nBegin NodalData VELOCITY_{label}\n")
            for k, s in enumerate(spheres):
                f.write(f"  {k + 1} 0 {s[4][axis]!r}\n")
            f.write("End NodalData\n")
        f.write("\nBegin SubModelPart Balls\n  Begin SubModelPartNodes\n")
        for k in range(len(spheres)):
            f.write(f"    {k + 1}\n")
        f.write("  End SubModelPartNodes\n  Begin SubModelPartElements\n")
        for k in range(len(spheres)):
            f.write(f"    {k + 1}\n")
        f.write("  End SubModelPartElements\nEnd SubModelPart\n")
    relation = {"COEFFICIENT_OF_RESTITUTION": restitution, "STATIC_FRICTION": friction,
                "DYNAMIC_FRICTION": friction, "FRICTION_DECAY": 500.0, "ROLLING_FRICTION": 0.0,
                "ROLLING_FRICTION_WITH_WALLS": 0.0, "DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME": law}
    materials = [{"material_name": "balls", "material_id": 1,
                  "Variables": {"PARTICLE_DENSITY": density, "YOUNG_MODULUS": young,
                                "POISSON_RATIO": poisson}}]
    relations = [{"material_names_list": ["balls", "balls"], "material_ids_list": [1, 1],
                  "Variables": relation}]
    table = [["SpheresPart", "balls"]]
    if wall_material is not None:
        materials.append({"material_name": "skin", "material_id": 2,
                          "Variables": {"YOUNG_MODULUS": wall_material[0],
                                        "POISSON_RATIO": wall_material[1]}})
        relations.append({"material_names_list": ["balls", "skin"], "material_ids_list": [1, 2],
                          "Variables": relation})
        table.append(["RigidFacePart", "skin"])
    _write_json(os.path.join(folder, "MaterialsDEM.json"), {
        "materials": materials, "material_relations": relations, "material_assignation_table": table})
    _write_json(os.path.join(folder, "ProjectParametersDEM.json"), {
        "Dimension": 3, "BoundingBoxOption": False, "dem_inlet_option": False,
        "GravityX": gravity[0], "GravityY": gravity[1], "GravityZ": gravity[2],
        "RotationOption": True, "CleanIndentationsOption": False,
        "solver_settings": {"RemoveBallsInitiallyTouchingWalls": False, "strategy": "sphere_strategy",
                            "material_import_settings": {"materials_filename": "MaterialsDEM.json"}},
        "VirtualMassCoefficient": 1.0, "RollingFrictionOption": False, "GlobalDamping": 0.0,
        "TranslationalIntegrationScheme": "Velocity_Verlet", "RotationalIntegrationScheme":
        "Direct_Integration", "MaxTimeStep": time_step, "FinalTime": end_time,
        "NeighbourSearchFrequency": search_frequency, "SearchTolerance": 0.0,
        "search_tolerance_against_walls": 0.0, "OutputTimeStep": 1e9, "GraphExportFreq": 1e9,
        "post_vtk_option": False, "problem_name": name})
