"""A box of rigid clusters for the distributed DEM tests
(test_mpi_dem_clusters.py): the open box of mpi_dem_case.WriteBed (8 x 8
SPACING, quad walls 10 SPACING high), the two lowest layers of its lattice
of spheres as a floor bed (128 spheres), and above them a lattice of
three-sphere clusters (Cluster3D, a triangle of touching spheres of radius
8 mm, triangle.clu) with random orientations, thrown with random velocities
and spins, so that they hit each other, the spheres and the walls and cross
the ranks' boxes.

    WriteClusterBox(folder, n=4, layers=2, steps=1000, speed=1.0, spin=30.0, seed=11,
                    keys=None, spacing=CLUSTER_SPACING)

writes the bed's files (`keys` override the deck's), bedDEM_Clusters.mdpa
(n x n x layers clusters at `spacing`, jittered by 2 mm, velocities up to
`speed` and spins up to `spin` per component), triangle.clu and the
clusters' material (id 3: the grains' constants and contact law with the
grains, the walls and themselves). Returns (spheres, clusters).

    WritePeriodicClusterBox(folder, n=4, layers=3, steps=1000, speed=2.0, ...)

the same floor bed and clusters without walls or gravity in the periodic
box [0, 8 SPACING]² x [0, PERIODIC_HEIGHT] (PeriodicDomainOption, problem
"periodic"): thrown at up to `speed`, clusters leave through the faces,
come back through the opposite ones and touch across them (the top layer
of clusters the floor spheres across z = 0). Returns (spheres, the
clusters' initial centres in element order).

    BondFloor(folder, thrown=False)

makes the box's floor bed a bonded slab at rest (thrown: with the bed's
velocities, up to 1 m/s, so that broken bonds' spheres fly apart farther
than the ghost layer): the continuum strategy, the floor
spheres in COHESIVE_GROUP 1 (without their velocities unless thrown), SearchTolerance 2 mm (the lattice's gaps, up
to 4.6 mm, bond where at most twice that), the grains' relation with the
KDEM bond law (breakable). Cluster members are never bonded (clusters are
rigid already). Returns the deck's problem name.
"""
import json
import math
import os
import random

from mpi_dem_case import BedState, WriteBed, WriteMaterialsAndDeck, _WriteSpheres

NX = 8  # the box: NX x NX SPACING
# Member spheres of radius MEMBER_RADIUS at the corners of an equilateral
# triangle of side 2 MEMBER_RADIUS (touching), centre of mass at the origin.
MEMBER_RADIUS = 0.008
CLUSTER_SPACING = 0.042
PERIODIC_HEIGHT = 0.19


def WriteTriangleClu(path):
    """triangle.clu: three unit-diameter spheres (radius 0.5) at the corners
    of a triangle of side 1 about its centroid, Size 2, so that a cluster of
    CHARACTERISTIC_LENGTH L has members of radius L / 4. Volume 3 (4/3) π
    0.5³; inertia per unit mass about the centroid (principal, the triangle
    in the x-y plane): each sphere's 2/5 r² = 0.1 plus the mean squared
    distance from the axis, 1/6 for x and y, 1/3 for z."""
    h = math.sqrt(3.0) / 2.0
    centres = [(-0.5, -h / 3.0, 0.0), (0.5, -h / 3.0, 0.0), (0.0, 2.0 * h / 3.0, 0.0)]
    lines = ["// three touching spheres in a triangle (mpi_dem_clusters_case.py)", "Name",
             "triangle", "", "Begin centers_and_radii"]
    lines += [f"{x!r} {y!r} {z!r} 0.5" for x, y, z in centres]
    lines += ["End centers_and_radii", "", "Size", "2.0", "", "Volume",
              repr(3.0 * 4.0 / 3.0 * math.pi * 0.125), "", "Inertia per unit mass",
              repr(0.1 + 1.0 / 6.0), repr(0.1 + 1.0 / 6.0), repr(0.1 + 1.0 / 3.0)]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def _RandomUnitQuaternion(rng):
    q = [rng.gauss(0.0, 1.0) for _ in range(4)]
    n = math.sqrt(sum(v * v for v in q))
    return [v / n for v in q]


def _WriteClusters(folder, problem, lx, n, layers, spacing, speed, spin, seed, bottom=0.075):
    """<problem>DEM_Clusters.mdpa (the n x n x layers lattice of clusters at
    `spacing` centred in x and y on [0, lx], from z = `bottom`, jittered by 2 mm,
    random orientations, velocities and spins), triangle.clu and the
    clusters' material in MaterialsDEM.json. Returns the centres."""
    rng = random.Random(seed + 1)
    margin = 0.5 * (lx - (n - 1) * spacing)
    centres = []
    for k in range(layers):
        for j in range(n):
            for i in range(n):
                centres.append((margin + i * spacing + rng.uniform(-0.002, 0.002),
                                margin + j * spacing + rng.uniform(-0.002, 0.002),
                                bottom + k * spacing + rng.uniform(-0.002, 0.002)))
    first_node, first_element = 1001, 2001
    lines = ["Begin ModelPartData", "End ModelPartData", "", "Begin Properties 3", "End Properties", "",
             "Begin Nodes"]
    lines += [f"  {first_node + k} {x!r} {y!r} {z!r}" for k, (x, y, z) in enumerate(centres)]
    lines += ["End Nodes", "", "Begin Elements Cluster3D"]
    lines += [f"  {first_element + k} 3 {first_node + k}" for k in range(len(centres))]
    lines += ["End Elements", "", "Begin NodalData CHARACTERISTIC_LENGTH"]
    lines += [f"  {first_node + k} 0 {4.0 * MEMBER_RADIUS!r}" for k in range(len(centres))]
    lines += ["End NodalData", "", "Begin NodalData ORIENTATION"]
    for k in range(len(centres)):
        q = _RandomUnitQuaternion(rng)
        lines.append(f"  {first_node + k} 0 [4] ({q[0]!r}, {q[1]!r}, {q[2]!r}, {q[3]!r})")
    lines += ["End NodalData", ""]
    for variable, scale in (("VELOCITY", speed), ("ANGULAR_VELOCITY", spin)):
        values = [[rng.uniform(-scale, scale) for _ in range(3)] for _ in centres]
        for axis, component in enumerate("XYZ"):
            lines += [f"Begin NodalData {variable}_{component}"]
            lines += [f"  {first_node + k} 0 {v[axis]!r}" for k, v in enumerate(values)]
            lines += ["End NodalData", ""]
    with open(os.path.join(folder, f"{problem}DEM_Clusters.mdpa"), "w") as f:
        f.write("\n".join(lines))
    WriteTriangleClu(os.path.join(folder, "triangle.clu"))

    # The clusters' material and its relations (the grains' law and constants).
    path = os.path.join(folder, "MaterialsDEM.json")
    with open(path) as f:
        materials = json.load(f)
    grains = materials["materials"][0]
    materials["materials"].append(
        {"material_name": "clusters", "material_id": 3,
         "Variables": {**grains["Variables"], "CLUSTER_FILE_NAME": "triangle.clu"}})
    relation = materials["material_relations"][0]["Variables"]
    for names, ids in ((["clusters", "clusters"], [3, 3]), (["grains", "clusters"], [1, 3]),
                       (["clusters", "steel"], [3, 2])):
        materials["material_relations"].append(
            {"material_names_list": names, "material_ids_list": ids, "Variables": dict(relation)})
    materials["material_assignation_table"].append(["ClusterPart", "clusters"])
    with open(path, "w") as f:
        json.dump(materials, f, indent=1)
    return centres


def WriteClusterBox(folder, n=4, layers=2, steps=1000, speed=1.0, spin=30.0, seed=11, keys=None,
                    spacing=CLUSTER_SPACING):
    nz = 8
    WriteBed(folder, nx=NX, ny=NX, nz=nz, steps=steps, speed=speed, seed=seed, keys=keys)
    # The floor bed: the lattice's two lowest layers (WriteBed's spheres).
    nodes, radii, velocities, (lx, ly, _) = BedState(NX, NX, nz, speed, seed)
    count = 2 * NX * NX
    nodes, radii, velocities = nodes[:count], radii[:count], velocities[:count]
    lines = ["Begin ModelPartData", "End ModelPartData", "", "Begin Properties 1", "End Properties", "",
             "Begin Nodes"]
    lines += [f"  {k + 1} {x!r} {y!r} {z!r}" for k, (x, y, z) in enumerate(nodes)]
    lines += ["End Nodes", "", "Begin Elements SphericParticle3D"]
    lines += [f"  {k + 1} 1 {k + 1}" for k in range(count)]
    lines += ["End Elements", "", "Begin NodalData RADIUS"]
    lines += [f"  {k + 1} 0 {r!r}" for k, r in enumerate(radii)]
    lines += ["End NodalData", ""]
    for component, axis in (("VELOCITY_X", 0), ("VELOCITY_Y", 1), ("VELOCITY_Z", 2)):
        lines += [f"Begin NodalData {component}"]
        lines += [f"  {k + 1} 0 {v[axis]!r}" for k, v in enumerate(velocities)]
        lines += ["End NodalData", ""]
    with open(os.path.join(folder, "bedDEM.mdpa"), "w") as f:
        f.write("\n".join(lines))

    # The clusters: an n x n x layers lattice above the floor bed, jittered,
    # random orientations, velocities up to `speed` per component and spins
    # up to `spin` rad/s per component.
    centres = _WriteClusters(folder, "bed", lx, n, layers, spacing, speed, spin, seed)
    return count, len(centres)


def WritePeriodicClusterBox(folder, n=4, layers=3, steps=1000, speed=2.0, spin=30.0, seed=11,
                            spacing=0.038, keys=None):
    os.makedirs(folder, exist_ok=True)
    nodes, radii, velocities, (lx, ly, _) = BedState(NX, NX, 8, speed, seed)
    count = 2 * NX * NX
    _WriteSpheres(os.path.join(folder, "periodicDEM.mdpa"), nodes[:count], radii[:count],
                  velocities[:count])
    with open(os.path.join(folder, "periodicDEM_FEM_boundary.mdpa"), "w") as f:
        f.write("Begin ModelPartData\nEnd ModelPartData\n")
    box = {"PeriodicDomainOption": True, "BoundingBoxOption": True}
    for axis, high in zip("XYZ", (lx, ly, PERIODIC_HEIGHT)):
        box[f"BoundingBoxMin{axis}"], box[f"BoundingBoxMax{axis}"] = 0.0, high
    box.update(keys or {})
    WriteMaterialsAndDeck(folder, "periodic", "DEM_D_Hertz_viscous_Coulomb", [], steps,
                          dimension=3, gravity=(0.0, 0.0, 0.0), keys=box)
    centres = _WriteClusters(folder, "periodic", lx, n, layers, spacing, speed, spin, seed)
    return count, centres


def BondFloor(folder, problem="bed", thrown=False):
    path = os.path.join(folder, f"{problem}DEM.mdpa")
    with open(path) as f:
        text = f.read()
    ids = [line.split()[0] for line in
           text.split("Begin Nodes")[1].split("End Nodes")[0].strip().splitlines()]
    # At rest (the clusters' impacts break the bonds), or thrown.
    head, velocities = text.split("Begin NodalData VELOCITY_X", 1)
    tail = "Begin NodalData VELOCITY_X" + velocities if thrown else ""
    with open(path, "w") as f:
        f.write(head + "Begin NodalData COHESIVE_GROUP\n" + "".join(f"  {i} 0 1\n" for i in ids)
                + "End NodalData\n" + tail)
    path = os.path.join(folder, "MaterialsDEM.json")
    with open(path) as f:
        materials = json.load(f)
    relation = materials["material_relations"][0]
    assert relation["material_ids_list"] == [1, 1]
    relation["Variables"].update({
        "DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME": "DEM_KDEM", "CONTACT_TAU_ZERO": 2e3,
        "CONTACT_SIGMA_MIN": 1e3, "CONTACT_INTERNAL_FRICC": 0.5,
        "ROTATIONAL_MOMENT_COEFFICIENT": 0.0, "IS_UNBREAKABLE": False})
    with open(path, "w") as f:
        json.dump(materials, f, indent=1)
    path = os.path.join(folder, "ProjectParametersDEM.json")
    with open(path) as f:
        deck = json.load(f)
    deck["solver_settings"]["strategy"] = "continuum_sphere_strategy"
    deck.update({"SearchTolerance": 0.002, "PoissonEffectOption": False,
                 "ShearStrainParallelToBondOption": False})
    with open(path, "w") as f:
        json.dump(deck, f, indent=1)
    return problem
