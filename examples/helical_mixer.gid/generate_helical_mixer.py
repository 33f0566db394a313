"""Writes the meshes of the helical mixer example (thesis §6.2.2, Figs 6.11-6.13).

    /usr/bin/python3 examples/helical_mixer.gid/generate_helical_mixer.py [--out DIR]
    /usr/bin/python3 examples/helical_mixer.gid/generate_helical_mixer.py --lattice [--spheres 29559]

The thesis shows the mixer only in a figure, so the geometry is ours: a
horizontal drum (axis x, gravity -y) of radius 0.15 m and length 0.40 m, fixed,
made of RigidFace3D4N quadrilaterals (a 48-sided prism shell and two end
annuli), and a rotating blade made of RigidFace3D3N triangles: a shaft of
radius 25 mm (a 24-sided prism) carrying a single helical flight (a helicoid
from the shaft to radius 0.135 m, pitch 0.2 m, 1.9 turns). The blade's sub model
part turns at 3 rev/s (6π rad/s) about the drum axis through RIGID_BODY_MOTION
(the thesis' Table 6.1 prints a zero rotation velocity, an erratum; §3.2.2 says
0.5 s is 1.5 turns).

Filling, by default: an inlet (helical_mixerDEM_Inlet.mdpa, sub model part
Inlet_Fill) of 432 injection points, 24 along the axis by 18 on an arc of
radius 0.1425 m over the top of the drum (between the flight's tips and the
shell; 10 mm apart on the arc, so a sphere never overlaps a neighbour's
point), injects 49,265 spheres/s straight down at 2 m/s (deviation up to 5°),
R 3.5 mm (normal, σ 40.4 µm, bounded to ±2 %: the spread of the lattice's
uniform ±2 %), from 0 s to 0.600025 s. The inlet injects floor(n t + 1e-6)
spheres by each step's end t, and the last step it injects in ends at 0.6 s
(the stop time lies half a step later, clear of round-off): 49,265 × 0.6 =
29,559 spheres, the thesis' count. The spheres file is then empty (nodes,
elements: none), and the blade starts turning at 0.75 s
(ANGULAR_VELOCITY_START_TIME), once the bed has settled.

With --lattice, the former fill: the spheres (R 3.5 mm with a ±2 % uniform
jitter, seeded) sit on a simple cubic lattice of spacing 7.3 mm, so no two
touch (7.3 mm > 2 × 3.57 mm). Every lattice point closer than its radius +
0.5 mm to a face of the drum, the shaft or the flight (exact point-triangle
distances to the mesh) is dropped; the lowest `--spheres` of the rest (by
height, then x, then z) fill the lower part of the drum; the blade turns from
the start; no inlet file is written (an old one in --out is removed, since a
present inlet file would also inject).

Deterministic: the same arguments write the same files byte for byte.
Writes helical_mixerDEM.mdpa, helical_mixerDEM_FEM_boundary.mdpa and (inlet
fill) helical_mixerDEM_Inlet.mdpa.
"""
import argparse
import math
import os

import numpy as np

# Geometry (m) and motion.
DRUM_RADIUS = 0.15
DRUM_LENGTH = 0.40
DRUM_SIDES = 48  # shell facets around the axis
DRUM_RINGS = 25  # shell facets along the axis
ANNULUS_RINGS = 4  # quadrilaterals across each end annulus
SHAFT_RADIUS = 0.025
SHAFT_SIDES = 24
SHAFT_RINGS = 9
FLIGHT_RADIUS = 0.135
FLIGHT_PITCH = 0.20
FLIGHT_CLEARANCE = 0.01  # between the flight's ends and the end walls
FLIGHT_SEGMENTS_PER_TURN = 36
FLIGHT_RADIAL_SEGMENTS = 3
ANGULAR_VELOCITY = 6.0 * math.pi  # rad/s about +x: 3 rev/s

# Spheres.
SPHERE_RADIUS = 0.0035
RADIUS_JITTER = 0.02  # relative, uniform
LATTICE_SPACING = 0.0073
WALL_CLEARANCE = 0.0005
SEED = 2012
THESIS_SPHERES = 29559

# Inlet fill (the default): points on an arc of the drum's upper region, above
# the flight's tips, injecting THESIS_SPHERES spheres over 0.6 s; the blade
# starts turning once the bed has settled.
INLET_NAME = "Inlet_Fill"
INLET_POINTS_ALONG = 24  # along the axis
INLET_POINTS_AROUND = 18  # around the upper arc
INLET_ARC_RADIUS = 0.1425  # between the flight's tips (0.135) and the drum (0.1497 inscribed)
INLET_ARC_SPACING = 0.01  # m between neighbours on the arc (> a diameter, 7.14 mm)
INLET_END_CLEARANCE = 0.01  # from the end walls to the outermost points
INLET_SPEED = 2.0  # m/s, straight down (plus a deviation of up to INLET_DEVIATION_DEGREES)
INLET_DEVIATION_DEGREES = 5.0
INLET_RATE = 49265.0  # spheres/s: 49,265 x 0.6 s = 29,559
INLET_DURATION = 0.6  # s; the last injecting step ends at 0.6 s
TIME_STEP = 5e-5  # s, the deck's MaxTimeStep
BLADE_START_TIME = 0.75  # s: the blade waits for the bed to settle


def DrumQuads():
    """(points, quads) of the fixed drum: shell, then the annuli at x = -L/2 and +L/2."""
    points, index = [], {}

    def point(x, r, k):
        key = (round(x, 12), round(r, 12), k % DRUM_SIDES)
        if key not in index:
            phi = 2.0 * math.pi * (k % DRUM_SIDES) / DRUM_SIDES
            index[key] = len(points)
            points.append((x, r * math.cos(phi), r * math.sin(phi)))
        return index[key]

    half = 0.5 * DRUM_LENGTH
    quads = []
    for i in range(DRUM_RINGS):
        x0 = -half + DRUM_LENGTH * i / DRUM_RINGS
        x1 = -half + DRUM_LENGTH * (i + 1) / DRUM_RINGS
        for k in range(DRUM_SIDES):
            quads.append((point(x0, DRUM_RADIUS, k), point(x0, DRUM_RADIUS, k + 1),
                          point(x1, DRUM_RADIUS, k + 1), point(x1, DRUM_RADIUS, k)))
    for x in (-half, half):
        for j in range(ANNULUS_RINGS):
            r0 = SHAFT_RADIUS + (DRUM_RADIUS - SHAFT_RADIUS) * j / ANNULUS_RINGS
            r1 = SHAFT_RADIUS + (DRUM_RADIUS - SHAFT_RADIUS) * (j + 1) / ANNULUS_RINGS
            for k in range(DRUM_SIDES):
                quads.append((point(x, r0, k), point(x, r0, k + 1), point(x, r1, k + 1),
                              point(x, r1, k)))
    return np.array(points), np.array(quads)


def BladeTriangles():
    """(points, triangles) of the rotating blade: the shaft, then the flight."""
    points, triangles = [], []
    half = 0.5 * DRUM_LENGTH
    # Shaft: a prism through the end walls (its ends lie in them).
    base = len(points)
    for i in range(SHAFT_RINGS + 1):
        x = -half + DRUM_LENGTH * i / SHAFT_RINGS
        for k in range(SHAFT_SIDES):
            phi = 2.0 * math.pi * k / SHAFT_SIDES
            points.append((x, SHAFT_RADIUS * math.cos(phi), SHAFT_RADIUS * math.sin(phi)))
    for i in range(SHAFT_RINGS):
        for k in range(SHAFT_SIDES):
            a = base + i * SHAFT_SIDES + k
            b = base + i * SHAFT_SIDES + (k + 1) % SHAFT_SIDES
            triangles += [(a, b, b + SHAFT_SIDES), (a, b + SHAFT_SIDES, a + SHAFT_SIDES)]
    # Flight: the helicoid x = x0 + p θ / 2π at radius r in [shaft, flight], angle θ.
    length = DRUM_LENGTH - 2.0 * FLIGHT_CLEARANCE
    turns = length / FLIGHT_PITCH
    segments = int(round(turns * FLIGHT_SEGMENTS_PER_TURN))
    base = len(points)
    for s in range(segments + 1):
        theta = 2.0 * math.pi * turns * s / segments
        x = -half + FLIGHT_CLEARANCE + length * s / segments
        for j in range(FLIGHT_RADIAL_SEGMENTS + 1):
            r = SHAFT_RADIUS + (FLIGHT_RADIUS - SHAFT_RADIUS) * j / FLIGHT_RADIAL_SEGMENTS
            points.append((x, r * math.cos(theta), r * math.sin(theta)))
    row = FLIGHT_RADIAL_SEGMENTS + 1
    for s in range(segments):
        for j in range(FLIGHT_RADIAL_SEGMENTS):
            a = base + s * row + j
            triangles += [(a, a + 1, a + row + 1), (a, a + row + 1, a + row)]
    return np.array(points), np.array(triangles)


def PointTriangleDistances(p, a, b, c):
    """Distances from points p (n, 3) to triangles (a, b, c) (m, 3 each): (n, m)."""
    p = p[:, None, :]
    normal = np.cross(b - a, c - a)
    normal /= np.linalg.norm(normal, axis=1)[:, None]
    height = np.einsum("nmk,mk->nm", p - a, normal)
    projected = p - height[..., None] * normal
    inside = np.ones(height.shape, dtype=bool)
    for u, v in ((a, b), (b, c), (c, a)):
        inside &= np.einsum("nmk,mk->nm", np.cross(v - u, projected - u), normal) >= 0.0
    nearest_edge = np.full(height.shape, np.inf)
    for u, v in ((a, b), (b, c), (c, a)):
        e = v - u
        t = np.clip(np.einsum("nmk,mk->nm", p - u, e) / np.einsum("mk,mk->m", e, e), 0.0, 1.0)
        nearest_edge = np.minimum(nearest_edge, np.linalg.norm(p - u - t[..., None] * e, axis=2))
    return np.where(inside, np.abs(height), nearest_edge)


def DistanceToMesh(centres, points, triangles, reach):
    """Per centre, the distance to the nearest triangle, or `reach` when none is nearer."""
    a, b, c = (points[triangles[:, k]] for k in range(3))
    low = np.minimum(np.minimum(a, b), c) - reach
    high = np.maximum(np.maximum(a, b), c) + reach
    cell = 0.02
    origin = centres.min(axis=0)
    keys = np.floor((centres - origin) / cell).astype(int)
    result = np.full(len(centres), reach)
    order = np.lexsort(keys.T[::-1])
    unique, start = np.unique(keys[order], axis=0, return_index=True)
    bounds = list(start) + [len(order)]
    for u, key in enumerate(unique):
        members = order[bounds[u]:bounds[u + 1]]
        box_low = origin + key * cell
        near = np.all((low <= box_low + cell) & (high >= box_low), axis=1)
        if not near.any():
            continue
        d = PointTriangleDistances(centres[members], a[near], b[near], c[near])
        result[members] = np.minimum(reach, d.min(axis=1))
    return result


def Spheres(count, blade_points, blade_triangles):
    """(centres, radii) of `count` spheres on the lattice, clear of every wall."""
    rng = np.random.default_rng(SEED)
    half = 0.5 * DRUM_LENGTH
    steps = int(2 * DRUM_RADIUS / LATTICE_SPACING) + 2
    axis = (np.arange(steps) - (steps - 1) / 2.0) * LATTICE_SPACING
    along = (np.arange(int(DRUM_LENGTH / LATTICE_SPACING) + 2)
             - (int(DRUM_LENGTH / LATTICE_SPACING) + 1) / 2.0) * LATTICE_SPACING
    x, y, z = np.meshgrid(along, axis, axis, indexing="ij")
    centres = np.stack([x.ravel(), y.ravel(), z.ravel()], axis=1)
    radii = SPHERE_RADIUS * (1.0 + rng.uniform(-RADIUS_JITTER, RADIUS_JITTER, len(centres)))
    need = radii + WALL_CLEARANCE
    r = np.hypot(centres[:, 1], centres[:, 2])
    # Conservative bounds for the prisms: the shell's facets are at least
    # R cos(π/48) from the axis, the shaft's within its circumradius.
    inner_shell = DRUM_RADIUS * math.cos(math.pi / DRUM_SIDES)
    keep = (r + need <= inner_shell) & (r - need >= SHAFT_RADIUS) & \
           (np.abs(centres[:, 0]) + need <= half)
    centres, radii, need = centres[keep], radii[keep], need[keep]
    clear = DistanceToMesh(centres, blade_points, blade_triangles, 2.0 * SPHERE_RADIUS) >= need
    centres, radii = centres[clear], radii[clear]
    if len(centres) < count:
        raise SystemExit(f"only {len(centres)} lattice sites are clear of the walls; ask for fewer "
                         "spheres")
    # Lowest first (gravity is -y); ties by x then z, on lattice indices (exact).
    index = np.round(centres / LATTICE_SPACING * 2).astype(np.int64)
    chosen = np.lexsort((index[:, 2], index[:, 0], index[:, 1]))[:count]
    chosen.sort()
    return centres[chosen], radii[chosen]


def InletPoints(blade_points, blade_triangles):
    """The inlet's injection points, (INLET_POINTS_ALONG x INLET_POINTS_AROUND, 3),
    along the axis first; checked clear of the drum, the shaft and the flight by
    the largest radius plus WALL_CLEARANCE."""
    half = 0.5 * DRUM_LENGTH
    largest = SPHERE_RADIUS * (1.0 + RADIUS_JITTER)
    span = DRUM_LENGTH - 2.0 * INLET_END_CLEARANCE
    xs = -half + INLET_END_CLEARANCE + span * np.arange(INLET_POINTS_ALONG) / (INLET_POINTS_ALONG - 1)
    step = INLET_ARC_SPACING / INLET_ARC_RADIUS  # radians between neighbours on the arc
    angles = (np.arange(INLET_POINTS_AROUND) - (INLET_POINTS_AROUND - 1) / 2.0) * step
    points = np.array([(x, INLET_ARC_RADIUS * math.cos(a), INLET_ARC_RADIUS * math.sin(a))
                       for a in angles for x in xs])
    need = largest + WALL_CLEARANCE
    inner_shell = DRUM_RADIUS * math.cos(math.pi / DRUM_SIDES)
    r = np.hypot(points[:, 1], points[:, 2])
    if not (np.all(r + need <= inner_shell) and np.all(np.abs(points[:, 0]) + need <= half)):
        raise SystemExit("an inlet point is closer to the drum than the largest radius + clearance")
    if not np.all(DistanceToMesh(points, blade_points, blade_triangles, 2.0 * need) >= need):
        raise SystemExit("an inlet point is closer to the blade than the largest radius + clearance")
    return points


def Vector(v):
    return f"[3] ({v[0]!r}, {v[1]!r}, {v[2]!r})"


def WriteSpheres(path, centres, radii, nodal_vectors=(), comment=None, exact=False):
    """The spheres .mdpa: nodes, SphericParticle3D elements, RADIUS and the
    `nodal_vectors` ((name, values) pairs, e.g. VELOCITY) as NodalData, one
    sub model part. Numbers to 9 digits, or `exact` (repr: reads back bitwise,
    for the benchmark's fill cache)."""
    n = len(centres)
    if comment is None:
        what = "spheres" if n else "no spheres (the inlet of helical_mixerDEM_Inlet.mdpa fills the drum)"
        comment = f"Helical mixer (thesis §6.2.2): {what}. Written by generate_helical_mixer.py."
    coordinate, radius_format = ("{!r}", "{!r}") if exact else ("{:.9f}", "{:.9e}")
    lines = [f"// {comment}", "Begin ModelPartData", "End ModelPartData", "",
             "Begin Properties 1", "End Properties", "", "Begin Nodes"]
    lines += [f"{i + 1} " + " ".join(coordinate.format(v) for v in xyz)
              for i, xyz in enumerate(np.asarray(centres).tolist())]
    lines += ["End Nodes", "", "Begin Elements SphericParticle3D"]
    lines += [f"{i + 1} 1 {i + 1}" for i in range(n)]
    lines += ["End Elements", "", "Begin NodalData RADIUS"]
    lines += [f"{i + 1} 0 " + radius_format.format(r) for i, r in enumerate(np.asarray(radii).tolist())]
    for name, values in nodal_vectors:
        lines += ["End NodalData", "", f"Begin NodalData {name}"]
        lines += [f"{i + 1} 0 [3]({a!r},{b!r},{c!r})"
                  for i, (a, b, c) in enumerate(np.asarray(values).tolist())]
    lines += ["End NodalData", "", "Begin SubModelPart Parts_Granular // Group Granular",
              "  Begin SubModelPartNodes"]
    lines += [f"    {i + 1}" for i in range(n)]
    lines += ["  End SubModelPartNodes", "  Begin SubModelPartElements"]
    lines += [f"    {i + 1}" for i in range(n)]
    lines += ["  End SubModelPartElements", "End SubModelPart", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


def WriteInlet(path, points):
    n = len(points)
    deviation = SPHERE_RADIUS * RADIUS_JITTER / math.sqrt(3.0)  # that of the uniform ±2 %
    lines = ["// Helical mixer (thesis §6.2.2): the inlet that fills the drum. Written by "
             "generate_helical_mixer.py.",
             "Begin ModelPartData", "End ModelPartData", "",
             "Begin Properties 1", "End Properties", "", "Begin Nodes"]
    lines += [f"{i + 1} {x!r} {y!r} {z!r}" for i, (x, y, z) in enumerate(points)]
    lines += ["End Nodes", "",
              f"Begin SubModelPart {INLET_NAME} // Group Fill",
              "  Begin SubModelPartData",
              f"    IDENTIFIER {INLET_NAME}",
              "    INJECTOR_ELEMENT_TYPE SphericParticle3D",
              "    ELEMENT_TYPE SphericParticle3D",
              "    CONTAINS_CLUSTERS 0",
              "    RIGID_BODY_MOTION 0",
              f"    VELOCITY {Vector((0.0, -INLET_SPEED, 0.0))}",
              f"    MAX_RAND_DEVIATION_ANGLE {INLET_DEVIATION_DEGREES!r}",
              f"    INLET_NUMBER_OF_PARTICLES {INLET_RATE!r}",
              "    IMPOSED_MASS_FLOW_OPTION 0",
              "    INLET_START_TIME 0.0",
              f"    INLET_STOP_TIME {InletStopTime()!r}",
              f"    RADIUS {SPHERE_RADIUS!r}",
              "    PROBABILITY_DISTRIBUTION normal",
              f"    STANDARD_DEVIATION {deviation:.6e}",
              f"    MINIMUM_RADIUS {SPHERE_RADIUS * (1.0 - RADIUS_JITTER):.9e}",
              f"    MAXIMUM_RADIUS {SPHERE_RADIUS * (1.0 + RADIUS_JITTER):.9e}",
              "    DENSE_INLET 0",
              "  End SubModelPartData",
              "  Begin SubModelPartNodes"]
    lines += [f"    {i + 1}" for i in range(n)]
    lines += ["  End SubModelPartNodes", "End SubModelPart", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


def InletStopTime():
    """Half a step after the last injecting step's end (INLET_DURATION)."""
    return round(INLET_DURATION + 0.5 * TIME_STEP, 12)


def WallPart(name, node_ids, condition_ids, angular_velocity, start_time=0.0):
    moving = angular_velocity != 0.0
    data = [f"Begin SubModelPart {name} // DEM-FEM-Wall. Group name: {name}",
            "  Begin SubModelPartData",
            "    LINEAR_VELOCITY [3] (0.0, 0.0, 0.0)",
            "    VELOCITY_PERIOD 0.0",
            f"    ANGULAR_VELOCITY {Vector((angular_velocity, 0.0, 0.0))}",
            "    ROTATION_CENTER [3] (0.0, 0.0, 0.0)",
            "    ANGULAR_VELOCITY_PERIOD 0.0",
            "    VELOCITY_START_TIME 0.0",
            "    VELOCITY_STOP_TIME 1000.0",
            f"    ANGULAR_VELOCITY_START_TIME {start_time!r}",
            "    ANGULAR_VELOCITY_STOP_TIME 1000.0",
            "    FIXED_MESH_OPTION 0",
            f"    RIGID_BODY_MOTION {1 if moving else 0}",
            "    FREE_BODY_MOTION 0",
            "    IS_GHOST 0",
            f"    IDENTIFIER {name}",
            "    FORCE_INTEGRATION_GROUP 0",
            "  End SubModelPartData",
            "  Begin SubModelPartNodes"]
    data += [f"    {i}" for i in node_ids]
    data += ["  End SubModelPartNodes", "  Begin SubModelPartConditions"]
    data += [f"    {i}" for i in condition_ids]
    data += ["  End SubModelPartConditions", "End SubModelPart", ""]
    return data


def WriteWalls(path, drum, blade, blade_start_time):
    (drum_points, quads), (blade_points, triangles) = drum, blade
    lines = ["// Helical mixer (thesis §6.2.2): drum (fixed) and blade (turning). Written by "
             "generate_helical_mixer.py.",
             "Begin ModelPartData", "End ModelPartData", "",
             "Begin Properties 2", "End Properties", "", "Begin Nodes"]
    lines += [f"{i + 1} {x!r} {y!r} {z!r}" for i, (x, y, z) in enumerate(drum_points)]
    offset = len(drum_points)
    lines += [f"{offset + i + 1} {x!r} {y!r} {z!r}" for i, (x, y, z) in enumerate(blade_points)]
    lines += ["End Nodes", "", "Begin Conditions RigidFace3D4N // Drum"]
    lines += [f"{c + 1} 2 " + " ".join(str(v + 1) for v in quad) for c, quad in enumerate(quads)]
    lines += ["End Conditions", "", "Begin Conditions RigidFace3D3N // Blade"]
    first = len(quads)
    lines += [f"{first + c + 1} 2 " + " ".join(str(offset + v + 1) for v in tri)
              for c, tri in enumerate(triangles)]
    lines += ["End Conditions", ""]
    lines += WallPart("Drum", range(1, offset + 1), range(1, first + 1), 0.0)
    lines += WallPart("Blade", range(offset + 1, offset + len(blade_points) + 1),
                      range(first + 1, first + len(triangles) + 1), ANGULAR_VELOCITY,
                      blade_start_time)
    with open(path, "w") as f:
        f.write("\n".join(lines))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lattice", action="store_true",
                        help="start the spheres on a lattice (the former fill) instead of the inlet")
    parser.add_argument("--spheres", type=int, default=THESIS_SPHERES,
                        help="with --lattice: how many spheres")
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)),
                        help="folder to write the mdpa files in (default: beside this script)")
    args = parser.parse_args()
    if args.spheres != THESIS_SPHERES and not args.lattice:
        parser.error("--spheres needs --lattice (the inlet injects the thesis' 29,559)")
    drum = DrumQuads()
    blade = BladeTriangles()
    os.makedirs(args.out, exist_ok=True)
    spheres_path = os.path.join(args.out, "helical_mixerDEM.mdpa")
    inlet_path = os.path.join(args.out, "helical_mixerDEM_Inlet.mdpa")
    walls_path = os.path.join(args.out, "helical_mixerDEM_FEM_boundary.mdpa")
    if args.lattice:
        centres, radii = Spheres(args.spheres, *blade)
        WriteSpheres(spheres_path, centres, radii)
        WriteWalls(walls_path, drum, blade, 0.0)
        if os.path.exists(inlet_path):
            os.remove(inlet_path)
            print(f"removed {inlet_path} (the lattice deck has no inlet)")
        fill = (centres[:, 1].max() + DRUM_RADIUS) / (2.0 * DRUM_RADIUS)
        print(f"{len(centres)} spheres on a lattice (fill to {100 * fill:.0f} % of the drum height), "
              f"{len(drum[1])} drum quadrilaterals, {len(blade[1])} blade triangles")
        return
    points = InletPoints(*blade)
    WriteSpheres(spheres_path, np.zeros((0, 3)), np.zeros(0))
    WriteWalls(walls_path, drum, blade, BLADE_START_TIME)
    WriteInlet(inlet_path, points)
    count = math.floor(INLET_RATE * INLET_DURATION + 1e-6)
    print(f"inlet of {len(points)} points, {INLET_RATE:.0f} spheres/s from 0 to "
          f"{InletStopTime()} s: {count} spheres; {len(drum[1])} drum quadrilaterals, "
          f"{len(blade[1])} blade triangles turning from {BLADE_START_TIME} s")


if __name__ == "__main__":
    main()
