"""The coupled DE-FE case of the distributed coupling tests
(test_mpi_coupled.py): an elastic plate (8 x 8 x 1 hexahedra, 1 m x 1 m x
0.04 m, clamped at its edges) and 16 spheres (R 0.04 m) thrown down and
sideways (about 2.5 m/s along x and y) onto it from just above, some touching
each other, under gravity; 300 steps of 1e-4 s: every sphere strikes the
plate and dents it, and some roll across the cut between the ranks' boxes
(they change owner with their wall contacts). The skin is found
automatically (the plate's whole surface). WriteImplicitPlateCase: the same
plate and spheres with an implicit structure (Bossak, linear) on steps of
IMPLICIT_SUBSTEPS DEM steps (test_mpi_coupled_implicit.py); UseDeckWalls:
the plate's top as the DEM deck's own walls ("wall_model_parts";
test_mpi_checkpoint.py); WriteCubeCase: the thesis' V4.3 on tetrahedra
(test_mpi_coupled_energy.py); UseMoreauJean: the non-smooth DEM strategy."""
import os
import sys

import numpy as np


_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(_HERE, "..", "..", "applications", "coupling", "tests", "python"))
from coupled_decks import block_mesh, dem_files, structure_files, top_faces  # noqa: E402

CELLS = (8, 8, 1)
STEPS, TIME_STEP = 300, 1e-4
# The runs with moreau_jean_strategy (UseMoreauJean): the NLGS tolerance
# (the sweeps stop where max |dP| <= tolerance max |P|), and the bound on
# max |a - b| / max |a| of a field between runs that split the sweeps
# otherwise (serial, 2 and 4 ranks, continued on another rank count):
# 100 x the NLGS tolerance, the distributed Moreau-Jean DEM's own margin
# (test_mpi_moreau_jean.py: a few hundred times the tolerance times the
# speeds); measured at most 1.0e-10 (the resting plate, 4 ranks, the force
# on the structure per step).
NLGS_TOLERANCE = 1e-10
MOREAU_JEAN_TOLERANCE = 100 * NLGS_TOLERANCE


def WritePlateCase(folder, transfer_method="area_distributed", named_skin=False, adm_force="thesis",
                   energy_samples=None, rayleigh_alpha=0.0, resting=False):
    """Writes the case into `folder` (created); returns the number of spheres.
    `named_skin`: the skin is the plate's top, the quadrilateral conditions of
    the sub model part Skin (option skin_model_parts; their ids descending
    in the file, whose order the walls keep), instead of the whole surface
    found automatically. `energy_samples`: the coupled energy
    balance on (energy_output, about that many rows); `rayleigh_alpha`: the
    structure's mass damping (explicit solver's rayleigh_alpha); `resting`:
    the 16 spheres instead set down on the plate's middle, a square of 4 x 4
    each touching its neighbours and the plate, all sliding at (0.2, 0.1, 0)
    m/s, the plate weightless so that their weight presses on it from the
    first step (contacts at every step, chains of them across the plate's
    middle)."""
    os.makedirs(folder, exist_ok=True)
    nodes, elements = block_mesh((-0.5, -0.5, -0.04), (1.0, 1.0, 0.04), CELLS)
    clamped = [i for i, x in nodes.items() if abs(abs(x[0]) - 0.5) < 1e-9 or abs(abs(x[1]) - 0.5) < 1e-9]
    end_time = (STEPS - 0.5) * TIME_STEP  # STEPS steps, whatever the rounding of the time
    structure_files(folder, "plate", nodes, elements, "SmallDisplacementElement3D8N", young=5e6,
                    poisson=0.3, density=1000.0, fixed_nodes=clamped, end_time=end_time,
                    time_step=TIME_STEP, gravity=None if resting else (0.0, 0.0, -9.81),
                    skin_faces=top_faces(CELLS) if named_skin else (), skin_ids_descending=named_skin)
    rng = np.random.default_rng(42)
    spheres = []
    for j in range(4):
        for i in range(4):
            x = -0.13 + 0.085 * i + rng.uniform(-0.004, 0.004)
            y = -0.13 + 0.085 * j + rng.uniform(-0.004, 0.004)
            z = 0.045 + 0.01 * rng.uniform()
            v = (2.5 + rng.uniform(-0.3, 0.3), 2.5 + rng.uniform(-0.3, 0.3), -2.0 + 0.5 * rng.uniform())
            spheres.append((x, y, z, 0.04, v))
    if resting:
        spheres = [(-0.12 + 0.08 * i, -0.12 + 0.08 * j, 0.04, 0.04, (0.2, 0.1, 0.0))
                   for j in range(4) for i in range(4)]
    dem_files(folder, "plate", spheres, density=2500.0, young=1e7, poisson=0.25, restitution=0.5,
              friction=0.3, end_time=end_time, time_step=TIME_STEP, gravity=(0.0, 0.0, -9.81))
    if rayleigh_alpha:
        _SetStructuralSolverKey(folder, "rayleigh_alpha", rayleigh_alpha)
    WriteCouplingOptions(folder, {"transfer_method": transfer_method, "adm_force": adm_force,
                                  **({"skin_model_parts": ["Skin"]} if named_skin else {})}, energy_samples)
    return len(spheres)


IMPLICIT_STEPS, IMPLICIT_SUBSTEPS = 30, 10


def WriteImplicitPlateCase(folder, transfer_method="area_distributed", structural_solver=None):
    """WritePlateCase's plate and 16 spheres with the structure implicit
    (Bossak, linear analysis, its default linear solver: sparse LU serially,
    MUMPS' LU under MPI; `structural_solver` replaces linear_solver_settings)
    on IMPLICIT_STEPS steps of IMPLICIT_SUBSTEPS x 1e-4 s, the DEM taking
    IMPLICIT_SUBSTEPS sub-steps of 1e-4 s in each (time_integration
    "implicit_with_dem_substeps"). Returns the number of spheres."""
    count = WritePlateCase(folder, transfer_method)
    import json
    fe_step = IMPLICIT_SUBSTEPS * TIME_STEP
    end_time = (IMPLICIT_STEPS - 0.5) * fe_step
    nodes, elements = block_mesh((-0.5, -0.5, -0.04), (1.0, 1.0, 0.04), CELLS)
    clamped = [i for i, x in nodes.items() if abs(abs(x[0]) - 0.5) < 1e-9 or abs(abs(x[1]) - 0.5) < 1e-9]
    structure_files(folder, "plate", nodes, elements, "SmallDisplacementElement3D8N", young=5e6,
                    poisson=0.3, density=1000.0, fixed_nodes=clamped, end_time=end_time,
                    time_step=fe_step, gravity=(0.0, 0.0, -9.81), implicit=True)
    if structural_solver is not None:
        _SetStructuralSolverKey(folder, "linear_solver_settings", structural_solver)
    path = os.path.join(folder, "ProjectParametersDEM.json")
    with open(path) as f:
        dem = json.load(f)
    dem["FinalTime"] = end_time
    with open(path, "w") as f:
        json.dump(dem, f)
    WriteCouplingOptions(folder, {"transfer_method": transfer_method,
                                  "time_integration": "implicit_with_dem_substeps"})
    return count


def SetDemSearch(folder, frequency, tolerance):
    """The DEM deck's search every `frequency` steps at most, with
    SearchTolerance and search_tolerance_against_walls `tolerance` (the
    adaptive search then searches earlier where spheres or walls moved that
    far since the last search; the case's own deck searches every step)."""
    import json
    path = os.path.join(folder, "ProjectParametersDEM.json")
    with open(path) as f:
        parameters = json.load(f)
    parameters["NeighbourSearchFrequency"] = frequency
    parameters["SearchTolerance"] = parameters["search_tolerance_against_walls"] = tolerance
    with open(path, "w") as f:
        json.dump(parameters, f)


def UseMoreauJean(folder, tolerance):
    """The DEM deck's strategy moreau_jean_strategy (the skin's FE nodes in
    its contact problem) with the NLGS tolerance `tolerance`."""
    import json
    path = os.path.join(folder, "ProjectParametersDEM.json")
    with open(path) as f:
        parameters = json.load(f)
    parameters["solver_settings"]["strategy"] = "moreau_jean_strategy"
    parameters["solver_settings"]["moreau_jean_settings"] = {"tolerance": tolerance}
    with open(path, "w") as f:
        json.dump(parameters, f)


def UseDeckWalls(folder):
    """The plate's top as the DEM deck's own walls instead of the skin:
    plateDEM_FEM_boundary.mdpa with a RigidFace3D4N on each top face (nodes
    on the plate's, ids from 1001), in RigidFacePart.PlateWalls with the
    spheres' contact law and a wall material (E 1e7, nu 0.25), and the
    coupling option wall_model_parts ["PlateWalls"] (the walls follow the
    plate's nodes they lie on)."""
    import json
    nodes, _ = block_mesh((-0.5, -0.5, -0.04), (1.0, 1.0, 0.04), CELLS)
    faces = top_faces(CELLS)
    top = sorted({i for face in faces for i in face})
    wall_id = {i: 1000 + k + 1 for k, i in enumerate(top)}
    with open(os.path.join(folder, "plateDEM_FEM_boundary.mdpa"), "w") as f:
        f.write("Begin ModelPartData\nEnd ModelPartData\n\nBegin Properties 0\nEnd Properties\n\n")
        f.write("Begin Nodes\n")
        for i in top:
            f.write(f"  {wall_id[i]} {nodes[i][0]!r} {nodes[i][1]!r} {nodes[i][2]!r}\n")
        f.write("End Nodes\n\nBegin Conditions RigidFace3D4N\n")
        for k, face in enumerate(faces):
            f.write(f"  {k + 1} 0 " + " ".join(str(wall_id[i]) for i in face) + "\n")
        f.write("End Conditions\n\nBegin SubModelPart PlateWalls\n  Begin SubModelPartNodes\n")
        f.write("".join(f"    {wall_id[i]}\n" for i in top))
        f.write("  End SubModelPartNodes\n  Begin SubModelPartConditions\n")
        f.write("".join(f"    {k + 1}\n" for k in range(len(faces))))
        f.write("  End SubModelPartConditions\nEnd SubModelPart\n")
    path = os.path.join(folder, "MaterialsDEM.json")
    with open(path) as f:
        materials = json.load(f)
    materials["materials"].append({"material_name": "walls", "material_id": 2,
                                   "Variables": {"YOUNG_MODULUS": 1e7, "POISSON_RATIO": 0.25}})
    relation = dict(materials["material_relations"][0]["Variables"])
    materials["material_relations"].append({"material_names_list": ["balls", "walls"],
                                            "material_ids_list": [1, 2], "Variables": relation})
    materials["material_assignation_table"].append(["RigidFacePart.PlateWalls", "walls"])
    with open(path, "w") as f:
        json.dump(materials, f)
    path = os.path.join(folder, "ProjectParametersCoupling.json")
    with open(path) as f:
        options = json.load(f)
    options["wall_model_parts"] = ["PlateWalls"]
    with open(path, "w") as f:
        json.dump(options, f)


def _SetStructuralSolverKey(folder, key, value):
    import json
    path = os.path.join(folder, "ProjectParameters.json")
    with open(path) as f:
        parameters = json.load(f)
    parameters["solver_settings"][key] = value
    with open(path, "w") as f:
        json.dump(parameters, f)


def WriteCouplingOptions(folder, options, energy_samples=None):
    """ProjectParametersCoupling.json: `options`, echo_level 0, the energy
    balance on with about `energy_samples` rows where given, else off."""
    import json
    energy = {"energy_output": True, "energy_samples": energy_samples} if energy_samples \
        else {"energy_output": False}
    with open(os.path.join(folder, "ProjectParametersCoupling.json"), "w") as f:
        json.dump({**options, **energy, "echo_level": 0}, f)


CUBE_TIME_STEP = 5e-5


def WriteCubeCase(folder, steps, energy_samples):
    """The thesis' V4.3 (Table 4.2) as the serial energy test runs it
    (applications/coupling/tests/python/test_coupling_thesis_validation.py,
    _sphere_on_cube): a frictionless sphere, R 0.3 m, 2000 kg/m³, E 5 MPa,
    ν 0.2, e = 1, strikes a Neo-Hookean 1 m cube (1000 kg/m³, E 5 MPa, ν 0.2,
    four bottom nodes fixed) at 1 m/s from 0.03 m above, no gravity, Δt
    5e-5 s; here on six tetrahedra (so that METIS gives each of two ranks
    elements) and for `steps` steps; ADM; the energy balance on."""
    import json
    os.makedirs(folder, exist_ok=True)
    nodes, elements = block_mesh((-0.5, -0.5, -1.0), (1.0, 1.0, 1.0), (1, 1, 1), True)
    bottom = [i for i, x in nodes.items() if x[2] == -1.0]
    end_time = (steps - 0.5) * CUBE_TIME_STEP
    structure_files(folder, "cube", nodes, elements, "TotalLagrangianElement3D4N", young=5e6, poisson=0.2,
                    density=1000.0, fixed_nodes=bottom, end_time=end_time, time_step=CUBE_TIME_STEP)
    path = os.path.join(folder, "StructuralMaterials.json")
    with open(path) as f:
        materials = json.load(f)
    materials["properties"][0]["Material"]["constitutive_law"]["name"] = "HyperElastic3DLaw"
    with open(path, "w") as f:
        json.dump(materials, f)
    dem_files(folder, "cube", [(0.0, 0.0, 0.33, 0.3, (0.0, 0.0, -1.0))], density=2000.0, young=5e6,
              poisson=0.2, end_time=end_time, time_step=CUBE_TIME_STEP)
    WriteCouplingOptions(folder, {"transfer_method": "area_distributed"}, energy_samples)
