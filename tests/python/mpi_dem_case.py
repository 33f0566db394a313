"""A small DEM bed for the distributed DEM tests (test_mpi_dem.py) and the
weak-scaling benchmark: spheres of two radii on a jittered lattice in an open
box of rigid quad walls (floor and four sides), thrown with random
velocities so that they collide, cross the ranks' boxes and settle under
gravity; optionally a side wall pushed inwards (imposed LINEAR_VELOCITY).

    WriteBed(folder, nx, ny, nz, moving_wall=False, steps=400, ..., state=None)

writes <folder>/bedDEM.mdpa, bedDEM_FEM_boundary.mdpa, MaterialsDEM.json and
ProjectParametersDEM.json (the run's key overrides in `keys`); `state`, the
spheres' (centres, radii, velocities) in place of BedState's (a settled bed).

    WritePeriodicBed(folder, nx, ny, nz, steps=1000, ...)

writes the bed's spheres without walls or gravity in a periodic box
(periodicDEM.mdpa, PeriodicDomainOption).

    AddInlet(folder, ...)

adds an inlet above the bed (bedDEM_Inlet.mdpa, "dem_inlet_option": true):
a row of injection points across the box, spheres of a normal radius
distribution shot downwards with a random deviation.

    AddImposedVelocities(folder, groups)

adds sub model parts of the spheres that impose velocity components
(SubModelPartData IMPOSED_VELOCITY_*_VALUE, Kratos' "DEM-VelocityBC").

    RunSampled(stage, sample, every)

runs an initialised stage's loop, calling sample() at the start and after
every `every`-th step (the run scripts' samples).

    WriteBondedPair(folder, steps, period=0.04, speed=20.0, keys=None)

two bonded spheres thrown apart in a box periodic along x: the broken bond's
spheres part farther than the ghost layer and meet again across the face.

    RunBed(folder, out, ranks=None)
    AssertSpheresBitwise(expected, result, names=SPHERE_RESULTS)
    AssertBondsBitwise(expected, result)

run a bed's deck through mpi_dem_run.py (serially, or under mpirun on
`ranks` ranks) and load its results; and compare two runs' sphere results
bit for bit, node by node, and their bond tables.
"""
import json
import os
import random

SPACING = 0.022  # lattice spacing: 2 mm gaps between the larger spheres
RADII = (0.010, 0.009)
DT = 5e-5


def _box(nx, ny):
    return nx * SPACING, ny * SPACING


def BedState(nx=7, ny=7, nz=6, speed=1.0, seed=7):
    """The bed's spheres: centres, radii and velocities (lists of tuples and
    floats), and the box (lx, ly, wall height)."""
    rng = random.Random(seed)
    lx, ly = _box(nx, ny)
    nodes, radii, velocities = [], [], []
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                x = (i + 0.5) * SPACING + rng.uniform(-0.0008, 0.0008)
                y = (j + 0.5) * SPACING + rng.uniform(-0.0008, 0.0008)
                z = (k + 0.6) * SPACING + rng.uniform(-0.0008, 0.0008)
                nodes.append((x, y, z))
                radii.append(RADII[(i + j + k) % 2])
                velocities.append(tuple(rng.uniform(-speed, speed) for _ in range(3)))
    return nodes, radii, velocities, (lx, ly, (nz + 2) * SPACING)


def _WriteSpheres(path, nodes, radii, velocities):
    lines = ["Begin ModelPartData", "End ModelPartData", "", "Begin Properties 1", "End Properties", "",
             "Begin Nodes"]
    lines += [f"  {n + 1} {x!r} {y!r} {z!r}" for n, (x, y, z) in enumerate(nodes)]
    lines += ["End Nodes", "", "Begin Elements SphericParticle3D"]
    lines += [f"  {n + 1} 1 {n + 1}" for n in range(len(nodes))]
    lines += ["End Elements", "", "Begin NodalData RADIUS"]
    lines += [f"  {n + 1} 0 {r!r}" for n, r in enumerate(radii)]
    lines += ["End NodalData", ""]
    for component, axis in (("VELOCITY_X", 0), ("VELOCITY_Y", 1), ("VELOCITY_Z", 2)):
        lines += [f"Begin NodalData {component}"]
        lines += [f"  {n + 1} 0 {v[axis]!r}" for n, v in enumerate(velocities)]
        lines += ["End NodalData", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


def WriteBed(folder, nx=7, ny=7, nz=6, moving_wall=False, steps=400, speed=1.0, seed=7, keys=None,
             state=None):
    os.makedirs(folder, exist_ok=True)
    lx, ly = _box(nx, ny)
    nodes, radii, velocities = state if state is not None else BedState(nx, ny, nz, speed, seed)[:3]
    _WriteSpheres(os.path.join(folder, "bedDEM.mdpa"), nodes, radii, velocities)

    # Walls: floor z = 0, sides x = 0, x = lx, y = 0, y = ly (height h), one quad each.
    h = (nz + 2) * SPACING
    corners = {
        "floor": [(0, 0, 0), (lx, 0, 0), (lx, ly, 0), (0, ly, 0)],
        "xlow": [(0, 0, 0), (0, ly, 0), (0, ly, h), (0, 0, h)],
        "xhigh": [(lx, 0, 0), (lx, 0, h), (lx, ly, h), (lx, ly, 0)],
        "ylow": [(0, 0, 0), (0, 0, h), (lx, 0, h), (lx, 0, 0)],
        "yhigh": [(0, ly, 0), (lx, ly, 0), (lx, ly, h), (0, ly, h)],
    }
    lines = ["Begin ModelPartData", "End ModelPartData", "", "Begin Properties 2", "End Properties", "",
             "Begin Nodes"]
    node_id, faces = 1, {}
    for name, points in corners.items():
        ids = []
        for p in points:
            lines.append(f"  {node_id} {p[0]!r} {p[1]!r} {p[2]!r}")
            ids.append(node_id)
            node_id += 1
        faces[name] = ids
    lines += ["End Nodes", "", "Begin Conditions RigidFace3D4N"]
    for c, name in enumerate(corners, start=1):
        lines.append(f"  {c} 2 " + " ".join(map(str, faces[name])))
    lines += ["End Conditions", ""]
    for c, name in enumerate(corners, start=1):
        velocity = "(-0.5,0.0,0.0)" if moving_wall and name == "xhigh" else "(0.0,0.0,0.0)"
        lines += [f"Begin SubModelPart {name}", "  Begin SubModelPartData",
                  f"    LINEAR_VELOCITY [3] {velocity}", "    VELOCITY_PERIOD 0.0",
                  "    VELOCITY_START_TIME 0.0", "    VELOCITY_STOP_TIME 100.0",
                  "    ANGULAR_VELOCITY [3] (0.0,0.0,0.0)", "    ANGULAR_VELOCITY_PERIOD 0.0",
                  "    ANGULAR_VELOCITY_START_TIME 0.0", "    ANGULAR_VELOCITY_STOP_TIME 100.0",
                  "    FIXED_MESH_OPTION 0", "    RIGID_BODY_MOTION 1", "    FREE_BODY_MOTION 0",
                  f"    IDENTIFIER {name}", "  End SubModelPartData", "  Begin SubModelPartNodes"]
        lines += [f"    {n}" for n in faces[name]]
        lines += ["  End SubModelPartNodes", "  Begin SubModelPartConditions", f"    {c}",
                  "  End SubModelPartConditions", "End SubModelPart", ""]
    with open(os.path.join(folder, "bedDEM_FEM_boundary.mdpa"), "w") as f:
        f.write("\n".join(lines))

    WriteMaterialsAndDeck(folder, "bed", "DEM_D_Hertz_viscous_Coulomb",
                          [f"RigidFacePart.{name}" for name in corners], steps, dimension=3,
                          gravity=(0.0, 0.0, -9.81), keys=keys)
    return len(nodes)


def WritePeriodicBed(folder, nx=7, ny=7, nz=6, steps=1000, speed=1.0, seed=7, keys=None):
    """The bed's spheres (BedState) without walls or gravity in the periodic
    box [0, nx SPACING] x [0, ny SPACING] x [0, nz SPACING]
    (PeriodicDomainOption): thrown at up to `speed` per component, they
    collide with each other across the faces too. Returns the spheres'
    initial centres."""
    os.makedirs(folder, exist_ok=True)
    nodes, radii, velocities, (lx, ly, _) = BedState(nx, ny, nz, speed, seed)
    _WriteSpheres(os.path.join(folder, "periodicDEM.mdpa"), nodes, radii, velocities)
    with open(os.path.join(folder, "periodicDEM_FEM_boundary.mdpa"), "w") as f:
        f.write("Begin ModelPartData\nEnd ModelPartData\n")
    box = {"PeriodicDomainOption": True, "BoundingBoxOption": True}
    for axis, high in zip("XYZ", (lx, ly, nz * SPACING)):
        box[f"BoundingBoxMin{axis}"], box[f"BoundingBoxMax{axis}"] = 0.0, high
    box.update(keys or {})
    WriteMaterialsAndDeck(folder, "periodic", "DEM_D_Hertz_viscous_Coulomb", [], steps, dimension=3,
                          gravity=(0.0, 0.0, 0.0), keys=box)
    return nodes


def WriteMaterialsAndDeck(folder, name, law, wall_parts, steps, dimension, gravity, keys=None):
    """MaterialsDEM.json and ProjectParametersDEM.json of the beds: grains
    (ρ 2500, E 1e7, ν 0.25) against themselves and steel walls (E 1e9) with
    `law`, restitution and friction 0.4; the sphere strategy, Velocity Verlet,
    Δt DT for `steps` steps, searches every 20 steps with a 1 mm tolerance, no
    output; `keys` override the deck's."""
    relation = {"COEFFICIENT_OF_RESTITUTION": 0.4, "STATIC_FRICTION": 0.4, "DYNAMIC_FRICTION": 0.4,
                "FRICTION_DECAY": 500.0, "ROLLING_FRICTION": 0.0, "ROLLING_FRICTION_WITH_WALLS": 0.0,
                "DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME": law}
    materials = {
        "materials": [
            {"material_name": "grains", "material_id": 1,
             "Variables": {"PARTICLE_DENSITY": 2500.0, "YOUNG_MODULUS": 1e7, "POISSON_RATIO": 0.25}},
            {"material_name": "steel", "material_id": 2,
             "Variables": {"YOUNG_MODULUS": 1e9, "POISSON_RATIO": 0.25}}],
        "material_relations": [
            {"material_names_list": ["grains", "grains"], "material_ids_list": [1, 1],
             "Variables": relation},
            {"material_names_list": ["grains", "steel"], "material_ids_list": [1, 2],
             "Variables": relation}],
        "material_assignation_table": [["SpheresPart", "grains"]] +
                                      [[part, "steel"] for part in wall_parts]}
    with open(os.path.join(folder, "MaterialsDEM.json"), "w") as f:
        json.dump(materials, f, indent=1)
    deck = {"problem_name": name, "Dimension": dimension, "BoundingBoxOption": False,
            "dem_inlet_option": False, "GravityX": gravity[0], "GravityY": gravity[1],
            "GravityZ": gravity[2], "RotationOption": True,
            "solver_settings": {"strategy": "sphere_strategy",
                                "material_import_settings": {"materials_filename": "MaterialsDEM.json"}},
            "TranslationalIntegrationScheme": "Velocity_Verlet", "MaxTimeStep": DT,
            "FinalTime": steps * DT, "NeighbourSearchFrequency": 20, "SearchTolerance": 0.001,
            "search_tolerance_against_walls": 0.001, "OutputTimeStep": 1.0,
            "post_vtk_option": False, "TimeStepCheck": "off"}
    deck.update(keys or {})
    with open(os.path.join(folder, "ProjectParametersDEM.json"), "w") as f:
        json.dump(deck, f, indent=1)


def WriteDiscBed(folder, nx=12, ny=10, steps=1000, seed=7):
    """A 2D bed ("Dimension": 2): nx x ny CylinderParticle2D discs (unit
    thickness, radii 9-11 mm) on a square grid of SPACING in the x-y plane,
    thrown at up to 1 m/s in random directions under gravity -y, in a box of
    four RigidEdge2D2N walls; DEM_D_Linear_viscous_Coulomb2D. Returns the
    number of discs."""
    os.makedirs(folder, exist_ok=True)
    rng = random.Random(seed)
    lx, ly = (nx + 1) * SPACING, (ny + 3) * SPACING
    lines = ["Begin ModelPartData", "End ModelPartData", "", "Begin Properties 1", "End Properties", "",
             "Begin Nodes"]
    count = nx * ny
    for k in range(count):
        i, j = k % nx, k // nx
        lines.append(f"  {k + 1} {(i + 1) * SPACING!r} {(j + 1) * SPACING!r} 0.0")
    lines += ["End Nodes", "", "Begin Elements CylinderParticle2D"]
    lines += [f"  {k + 1} 1 {k + 1}" for k in range(count)]
    lines += ["End Elements", "", "Begin NodalData RADIUS"]
    lines += [f"  {k + 1} 0 {rng.uniform(0.009, 0.011)!r}" for k in range(count)]
    lines += ["End NodalData", ""]
    velocities = [(rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)) for _ in range(count)]
    for component, axis in (("VELOCITY_X", 0), ("VELOCITY_Y", 1)):
        lines += [f"Begin NodalData {component}"]
        lines += [f"  {k + 1} 0 {v[axis]!r}" for k, v in enumerate(velocities)]
        lines += ["End NodalData", ""]
    with open(os.path.join(folder, "discsDEM.mdpa"), "w") as f:
        f.write("\n".join(lines))
    corners = [(0.0, 0.0), (lx, 0.0), (lx, ly), (0.0, ly)]
    lines = ["Begin ModelPartData", "End ModelPartData", "", "Begin Properties 2", "End Properties", "",
             "Begin Nodes"]
    lines += [f"  {k + 1} {x!r} {y!r} 0.0" for k, (x, y) in enumerate(corners)]
    lines += ["End Nodes", "", "Begin Conditions RigidEdge2D2N"]
    lines += [f"  {k + 1} 2 {k + 1} {(k + 1) % 4 + 1}" for k in range(4)]
    lines += ["End Conditions", "", "Begin SubModelPart box", "  Begin SubModelPartData",
              "    RIGID_BODY_MOTION 0", "    FREE_BODY_MOTION 0", "    IDENTIFIER box",
              "  End SubModelPartData", "  Begin SubModelPartNodes"]
    lines += [f"    {k + 1}" for k in range(4)]
    lines += ["  End SubModelPartNodes", "  Begin SubModelPartConditions"]
    lines += [f"    {k + 1}" for k in range(4)]
    lines += ["  End SubModelPartConditions", "End SubModelPart", ""]
    with open(os.path.join(folder, "discsDEM_FEM_boundary.mdpa"), "w") as f:
        f.write("\n".join(lines))
    WriteMaterialsAndDeck(folder, "discs", "DEM_D_Linear_viscous_Coulomb2D", ["RigidFacePart.box"],
                          steps, dimension=2, gravity=(0.0, -9.81, 0.0))
    return count


def AddInlet(folder, nx=7, ny=7, nz=6, rate=6000.0, stop=0.02, radius=0.007, deviation=0.001):
    """Injection points on a 4 x 3 grid at z = (nz + 1.2) SPACING (above the
    bed, below the walls' top), VELOCITY (0, 0, -4) m/s within 10 degrees,
    `rate` spheres per second from t = 0 to `stop`, radii normal (`radius`,
    `deviation`) between 0.5 and 1.5 times `radius` (Kratos' default bounds).
    The inlet uses the grains' material."""
    lx, ly = _box(nx, ny)
    z = (nz + 1.2) * SPACING
    points = [(lx * (i + 0.5) / 4, ly * (j + 0.5) / 3, z) for j in range(3) for i in range(4)]
    lines = ["Begin Nodes"]
    lines += [f"  {k + 1} {x!r} {y!r} {z!r}" for k, (x, y, z) in enumerate(points)]
    lines += ["End Nodes", "", "Begin SubModelPart Inlet_1", "  Begin SubModelPartData",
              "    RIGID_BODY_MOTION 0", "    IDENTIFIER Inlet_1",
              "    INJECTOR_ELEMENT_TYPE SphericParticle3D", "    ELEMENT_TYPE SphericParticle3D",
              "    CONTAINS_CLUSTERS 0", "    VELOCITY [3] (0.0, 0.0, -4.0)",
              "    MAX_RAND_DEVIATION_ANGLE 10.0", f"    INLET_NUMBER_OF_PARTICLES {rate!r}",
              "    IMPOSED_MASS_FLOW_OPTION 0", "    INLET_START_TIME 0.0",
              f"    INLET_STOP_TIME {stop!r}", f"    RADIUS {radius!r}",
              "    PROBABILITY_DISTRIBUTION normal", f"    STANDARD_DEVIATION {deviation!r}",
              "    DENSE_INLET 0", "  End SubModelPartData", "  Begin SubModelPartNodes"]
    lines += [f"    {k + 1}" for k in range(len(points))]
    lines += ["  End SubModelPartNodes", "End SubModelPart", ""]
    with open(os.path.join(folder, "bedDEM_Inlet.mdpa"), "w") as f:
        f.write("\n".join(lines))
    AssignMaterial(folder, "DEMInletPart.Inlet_1", "grains")
    path = os.path.join(folder, "ProjectParametersDEM.json")
    with open(path) as f:
        deck = json.load(f)
    deck["dem_inlet_option"] = True
    with open(path, "w") as f:
        json.dump(deck, f, indent=1)
    return len(points)


def WriteBondedSpecimen(folder, steps=1000, platen_velocity=0.5, dt=5e-7, drift=(8.0, 8.0, 0.0),
                        periodic=False, diameter=0.06, keys=None):
    """A small UCS specimen of the virtual laboratory (tessera.dem.virtual_lab),
    a disc-like cylinder Ø60 (`diameter`) x 30 mm of spheres of radius 4 mm ± 25 %, solid
    fraction 0.5 (denser packings take the generator much longer), bonded by
    the DEM_Dempack law of its default concrete (thesis Table 5.5), written as
    a DEM deck: the continuum strategy, the platens (frictionless) approaching
    at `platen_velocity` each, `steps` steps of `dt` (the bonds' critical step
    is about 1e-6 s). Every sphere starts with the velocity `drift`, so the
    specimen slides across the platens while it is crushed: wider than long,
    the ranks' boxes cut it across x and y, and spheres cross the cuts with
    their bonds. With `periodic`, the box [-10, 80] x [-10, 80] x [-15, 45] mm
    is periodic (PeriodicDomainOption): its faces x = -10 and y = -10 mm cut
    the specimen, whose spheres beyond them are wrapped 90 mm away, bonded
    across the faces; the platens are widened to ±200 mm to carry them.
    `keys`: more keys of the deck. Returns the number of spheres."""
    from tessera.dem.virtual_lab import VirtualLaboratory
    lab = VirtualLaboratory({"test": "UCS",
                             "specimen": {"diameter": diameter, "length": 0.03, "radius": 0.004,
                                          "solid_fraction": 0.5},
                             "loading": {"platen_velocity": platen_velocity},
                             "output": {"folder": os.path.basename(folder), "name": "ucs",
                                        "plot": False}},
                            folder=os.path.dirname(os.path.abspath(folder)))
    lab._WriteDeck()
    n = len(lab.specimen.radius)
    with open(os.path.join(folder, "ucsDEM.mdpa"), "a") as f:
        for axis, v in zip("XYZ", drift):
            if v:
                f.write(f"\nBegin NodalData VELOCITY_{axis}\n")
                f.write("".join(f"{k + 1} 0 {float(v)!r}\n" for k in range(n)))
                f.write("End NodalData\n")
    deck = json.loads(lab._Parameters().WriteJsonString())
    deck.update({"MaxTimeStep": dt, "FinalTime": steps * dt, "TimeStepCheck": "off",
                 "OutputTimeStep": 1.0})
    if periodic:
        path = os.path.join(folder, "ucsDEM_FEM_boundary.mdpa")
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(text.replace("0.045", "0.2"))
        deck.update({"PeriodicDomainOption": True, "BoundingBoxOption": True})
        for axis, (low, high) in zip("XYZ", ((-0.01, 0.08), (-0.01, 0.08), (-0.015, 0.045))):
            deck[f"BoundingBoxMin{axis}"], deck[f"BoundingBoxMax{axis}"] = low, high
    deck.update(keys or {})
    with open(os.path.join(folder, "ProjectParametersDEM.json"), "w") as f:
        json.dump(deck, f, indent=1)
    return n


def RunSampled(stage, sample, every):
    """Runs the initialised stage's solution loop and finalizes it, calling
    sample() before the first step and after every step whose count is a
    multiple of `every` (a distributed run's every rank alike)."""
    strategy = stage.GetStrategy()
    sample()
    finalize = stage.FinalizeSolutionStep

    def finalize_and_sample():
        finalize()
        if strategy.StepCount() % every == 0:
            sample()

    stage.FinalizeSolutionStep = finalize_and_sample
    stage.RunSolutionLoop()
    stage.Finalize()


def AddImposedVelocities(folder, groups):
    """Appends to <folder>/bedDEM.mdpa one sub model part of SpheresPart per
    (name, select, data) of `groups`: the spheres whose centre x (a tuple)
    satisfies select(x), with `data` ({variable: value}, e.g.
    IMPOSED_VELOCITY_X_VALUE, VELOCITY_START_TIME) as SubModelPartData.
    Returns {name: [node ids]} (node and element ids are equal in the bed)."""
    path = os.path.join(folder, "bedDEM.mdpa")
    with open(path) as f:
        text = f.read()
    block = text.split("Begin Nodes", 1)[1].split("End Nodes", 1)[0]
    centres = {}
    for line in block.strip().splitlines():
        node_id, x, y, z = line.split()
        centres[int(node_id)] = (float(x), float(y), float(z))
    chosen, lines = {}, []
    for name, select, data in groups:
        ids = [i for i, x in centres.items() if select(x)]
        chosen[name] = ids
        lines += [f"Begin SubModelPart {name}", "  Begin SubModelPartData"]
        lines += [f"    {key} {value!r}" for key, value in data.items()]
        lines += ["  End SubModelPartData", "  Begin SubModelPartNodes"]
        lines += [f"    {i}" for i in ids]
        lines += ["  End SubModelPartNodes", "  Begin SubModelPartElements"]
        lines += [f"    {i}" for i in ids]
        lines += ["  End SubModelPartElements", "End SubModelPart", ""]
    with open(path, "a") as f:
        f.write("\n" + "\n".join(lines))
    return chosen



def AssignMaterial(folder, part, material):
    """Adds [part, material] to <folder>/MaterialsDEM.json's material_assignation_table."""
    path = os.path.join(folder, "MaterialsDEM.json")
    with open(path) as f:
        materials = json.load(f)
    materials["material_assignation_table"].append([part, material])
    with open(path, "w") as f:
        json.dump(materials, f, indent=1)

# The spheres' results mpi_dem_run.py saves, in node id order.
SPHERE_RESULTS = ("x", "VELOCITY", "ANGULAR_VELOCITY", "DISPLACEMENT", "TOTAL_FORCES")


def WriteBondedPair(folder, steps, period=0.04, speed=20.0, keys=None):
    """Two bonded spheres (R 4 mm, touching, DEM_Dempack of the virtual lab's
    concrete) thrown apart at `speed` each along x (the second also 0.3 m/s
    along y: an oblique return) in a box periodic along x (`period`; y and z
    ±50 mm), centred on x = period / 2: the bond breaks at once, the spheres
    part (16.8 m/s) across the ranks' cut, farther than the ghost layer (8.4
    mm, the longest bond), and meet again across the periodic face, touching
    from about step 2850 (5e-7 s steps; the continuum strategy, the broken
    bond's frictional contact). Deck "pair"."""
    import json

    from tessera.dem.virtual_lab import DEFAULT_MATERIAL
    os.makedirs(folder, exist_ok=True)
    c = period / 2
    lines = ["Begin Properties 1"] + [f"{k} {v}" for k, v in DEFAULT_MATERIAL.items()] + \
        ["End Properties", "Begin Nodes", f"1 {c - 0.004!r} 0.0 0.0", f"2 {c + 0.004!r} 0.0 0.0",
         "End Nodes", "Begin Elements SphericContinuumParticle3D", "1 1 1", "2 1 2", "End Elements"]
    for variable, values in (("RADIUS", (0.004, 0.004)), ("COHESIVE_GROUP", (1, 1)),
                             ("VELOCITY_X", (-speed, speed)), ("VELOCITY_Y", (0.0, 0.3))):
        lines += [f"Begin NodalData {variable}", f"1 0 {values[0]}", f"2 0 {values[1]}",
                  "End NodalData"]
    with open(os.path.join(folder, "pairDEM.mdpa"), "w") as f:
        f.write("\n".join(lines) + "\n")
    deck = {"problem_name": "pair", "Dimension": 3, "GravityX": 0.0, "GravityY": 0.0,
            "GravityZ": 0.0, "RotationOption": True, "PeriodicDomainOption": True,
            "BoundingBoxOption": True, "BoundingBoxMinX": 0.0, "BoundingBoxMaxX": period,
            "BoundingBoxMinY": -0.05, "BoundingBoxMaxY": 0.05, "BoundingBoxMinZ": -0.05,
            "BoundingBoxMaxZ": 0.05, "TranslationalIntegrationScheme": "Symplectic_Euler",
            "SearchTolerance": 0.0, "NeighbourSearchFrequency": 20, "MaxTimeStep": 5e-7,
            "FinalTime": steps * 5e-7, "OutputTimeStep": 1.0, "TimeStepCheck": "off",
            "PoissonEffectOption": False, "ShearStrainParallelToBondOption": False,
            "solver_settings": {"strategy": "continuum_sphere_strategy"}, **(keys or {})}
    with open(os.path.join(folder, "ProjectParametersDEM.json"), "w") as f:
        json.dump(deck, f, indent=1)


def AssertBondsBitwise(expected, result):
    """The same bonds (bond_table of mpi_dem_run.BondTable: spheres' ids,
    state, opened, normal force, failure criterion, sigma, tau) bit for bit,
    and the same directions but for the bonds parked at the end (the
    direction they had when parked; the serial run's follows the spheres,
    never read into a force before the pair is back within the layer)."""
    import numpy as np

    np.testing.assert_array_equal(result["bond_table"], expected["bond_table"])
    kept = ~result["bond_parked"]
    np.testing.assert_array_equal(result["bond_direction"][kept], expected["bond_direction"][kept])


def RunBed(folder, out, ranks=None):
    """Runs the deck in `folder` through mpi_dem_run.py, serially or on
    `ranks` ranks, and returns its saved results (numpy's npz)."""
    import numpy as np
    from tessera.parallel import RunPython

    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mpi_dem_run.py")
    RunPython([script, str(folder), str(out), "MPI" if ranks else "OpenMP"], ranks)
    return np.load(out)


def AssertSpheresBitwise(expected, result, names=SPHERE_RESULTS):
    """The same node ids and, for each name, the same bits at every node."""
    import numpy as np

    np.testing.assert_array_equal(result["ids"], expected["ids"])
    for name in names:
        np.testing.assert_array_equal(result[name], expected[name], err_msg=name)
