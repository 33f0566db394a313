"""Writes the meshes of the bonded beam example: a beam of bonded spheres on
two supports, struck at midspan by a steel ball (continuum strategy, KDEM).

    /usr/bin/python3 examples/bonded_beam.gid/generate_bonded_beam.py [--out DIR]

The beam is a simple cubic packing of touching spheres (R 5 mm, spacing
10 mm), 40 along x, 4 along y and 4 along z: 640 spheres in sub model part
Beam, COHESIVE_GROUP 1, so the continuum strategy bonds every pair of
neighbours (1,584 bonds). Its bottom row of spheres rests on two supports,
10 mm from each end: RigidFace3D4N quads (RigidFacePart.Supports) at
z = -5 mm, 40 mm along x under the beam's ends. The ball (sub model part Ball,
COHESIVE_GROUP 0: it is not bonded) of radius 15 mm starts 5 mm above the
beam's top at midspan moving down at 4 m/s.

Deterministic: writes bonded_beamDEM.mdpa and bonded_beamDEM_FEM_boundary.mdpa.
"""
import argparse
import os

RADIUS = 0.005
SPACING = 2 * RADIUS
COUNT = (40, 4, 4)
BALL_RADIUS = 0.015
BALL_SPEED = 4.0


def BeamCentres():
    nx, ny, nz = COUNT
    return [(SPACING * i, SPACING * j, SPACING * k)
            for k in range(nz) for j in range(ny) for i in range(nx)]


def WriteSpheres(path):
    centres = BeamCentres()
    length, width, height = ((n - 1) * SPACING for n in COUNT)
    ball = (0.5 * length, 0.5 * width, height + RADIUS + 0.005 + BALL_RADIUS)
    ball_id = len(centres) + 1
    with open(path, "w") as f:
        f.write("Begin ModelPartData\nEnd ModelPartData\n\n"
                "Begin Properties 0\nEnd Properties\n\nBegin Nodes\n")
        for k, (x, y, z) in enumerate(centres, start=1):
            f.write(f"{k} {x!r} {y!r} {z!r}\n")
        f.write(f"{ball_id} {ball[0]!r} {ball[1]!r} {ball[2]!r}\nEnd Nodes\n\n")
        f.write("Begin Elements SphericContinuumParticle3D\n")
        for k in range(1, ball_id):
            f.write(f"{k} 0 {k}\n")
        f.write("End Elements\n\nBegin Elements SphericParticle3D\n"
                f"{ball_id} 0 {ball_id}\nEnd Elements\n\n")
        f.write("Begin NodalData RADIUS\n")
        for k in range(1, ball_id):
            f.write(f"{k} 0 {RADIUS!r}\n")
        f.write(f"{ball_id} 0 {BALL_RADIUS!r}\nEnd NodalData\n\n")
        f.write("Begin NodalData COHESIVE_GROUP\n")
        for k in range(1, ball_id):
            f.write(f"{k} 0 1\n")
        f.write(f"{ball_id} 0 0\nEnd NodalData\n\n")
        f.write(f"Begin NodalData VELOCITY_Z\n{ball_id} 0 {-BALL_SPEED!r}\nEnd NodalData\n\n")
        f.write("Begin SubModelPart Beam\n  Begin SubModelPartNodes\n")
        for k in range(1, ball_id):
            f.write(f"    {k}\n")
        f.write("  End SubModelPartNodes\n  Begin SubModelPartElements\n")
        for k in range(1, ball_id):
            f.write(f"    {k}\n")
        f.write("  End SubModelPartElements\nEnd SubModelPart\n\n")
        f.write(f"Begin SubModelPart Ball\n  Begin SubModelPartNodes\n    {ball_id}\n"
                f"  End SubModelPartNodes\n  Begin SubModelPartElements\n    {ball_id}\n"
                "  End SubModelPartElements\nEnd SubModelPart\n")


def WriteSupports(path):
    length, width, _ = ((n - 1) * SPACING for n in COUNT)
    z = -RADIUS
    y0, y1 = -SPACING, width + SPACING
    quads = [(-SPACING, 3 * SPACING), (length - 3 * SPACING, length + SPACING)]
    with open(path, "w") as f:
        f.write("Begin ModelPartData\nEnd ModelPartData\n\n"
                "Begin Properties 0\nEnd Properties\n\nBegin Nodes\n")
        node = 0
        for x0, x1 in quads:
            for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1)):
                node += 1
                f.write(f"{node} {x!r} {y!r} {z!r}\n")
        f.write("End Nodes\n\nBegin Conditions RigidFace3D4N\n")
        f.write("1 0 1 2 3 4\n2 0 5 6 7 8\nEnd Conditions\n\n")
        f.write("Begin SubModelPart Supports\n  Begin SubModelPartNodes\n")
        for k in range(1, node + 1):
            f.write(f"    {k}\n")
        f.write("  End SubModelPartNodes\n  Begin SubModelPartConditions\n    1\n    2\n"
                "  End SubModelPartConditions\nEnd SubModelPart\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    args = parser.parse_args()
    WriteSpheres(os.path.join(args.out, "bonded_beamDEM.mdpa"))
    WriteSupports(os.path.join(args.out, "bonded_beamDEM_FEM_boundary.mdpa"))


if __name__ == "__main__":
    main()
