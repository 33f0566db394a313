"""Decks for the distributed DEM tests with walls that are bodies of the run
(test_mpi_dem_bodies.py): the bed of mpi_dem_case.py (WriteBed) with

    AddFreeLid(folder, ...)

a square lid over the whole box (one RigidFace3D4N quad at z0), a
FREE_BODY_MOTION wall of mass M and inertias I thrown down onto the bed at
v0 (the sphere loads of every rank move it), and

    MakeFloorSticky(folder, z0, angular_velocity, linear_velocity)

the floor raised to z0 (so that it touches every sphere of the lowest layer,
which is then glued to it) and made sticky (IS_STICKY 1), turning about the
vertical through the box's centre while the whole box slides: the glued
spheres move with the floor across the ranks' boxes, farther than the ghost
layer.
"""
import os

from mpi_dem_case import SPACING, AssignMaterial


def _box(folder):
    """(lx, ly, h) of the bed's walls, read from the xhigh wall's corners."""
    with open(os.path.join(folder, "bedDEM_FEM_boundary.mdpa")) as f:
        text = f.read()
    block = text.split("Begin Nodes", 1)[1].split("End Nodes", 1)[0]
    points = [tuple(float(v) for v in line.split()[1:]) for line in block.strip().splitlines()]
    return max(p[0] for p in points), max(p[1] for p in points), max(p[2] for p in points)


def AddFreeLid(folder, z0=0.140, mass=0.2, inertias=(4e-4, 4e-4, 8e-4), velocity=(0.0, 0.0, -0.5),
               angular_velocity=(0.0, 0.0, 0.0)):
    """The lid: nodes 21-24, condition 6, sub model part "lid" of the
    steel, its centre of mass at the middle of the quad."""
    lx, ly, _ = _box(folder)
    path = os.path.join(folder, "bedDEM_FEM_boundary.mdpa")
    with open(path) as f:
        text = f.read()
    corners = [(0.0, 0.0, z0), (lx, 0.0, z0), (lx, ly, z0), (0.0, ly, z0)]
    nodes = "".join(f"  {21 + k} {x!r} {y!r} {z!r}\n" for k, (x, y, z) in enumerate(corners))
    text = text.replace("End Nodes", nodes + "End Nodes", 1)
    text = text.replace("End Conditions", "  6 2 21 22 23 24\nEnd Conditions", 1)
    data = ["FREE_BODY_MOTION 1", "RIGID_BODY_MOTION 0", f"RIGID_BODY_MASS {mass!r}",
            f"RIGID_BODY_CENTER_OF_MASS [3] ({0.5 * lx!r},{0.5 * ly!r},{z0!r})",
            "RIGID_BODY_INERTIAS [3] ({!r},{!r},{!r})".format(*inertias), "IDENTIFIER lid"]
    data += [f"INITIAL_VELOCITY_{a}_VALUE {v!r}" for a, v in zip("XYZ", velocity)]
    data += [f"INITIAL_ANGULAR_VELOCITY_{a}_VALUE {v!r}" for a, v in zip("XYZ", angular_velocity)]
    text += "\n".join(["Begin SubModelPart lid", "  Begin SubModelPartData"] +
                      [f"    {line}" for line in data] +
                      ["  End SubModelPartData", "  Begin SubModelPartNodes"] +
                      [f"    {21 + k}" for k in range(4)] +
                      ["  End SubModelPartNodes", "  Begin SubModelPartConditions", "    6",
                       "  End SubModelPartConditions", "End SubModelPart", ""])
    with open(path, "w") as f:
        f.write(text)
    AssignMaterial(folder, "RigidFacePart.lid", "steel")


def MakeFloorSticky(folder, z0=0.6 * SPACING - 0.0045, angular_velocity=2.0,
                    linear_velocity=(0.6, 0.3, 0.0)):
    """The floor (nodes 1-4) at z0, IS_STICKY 1, turning at ANGULAR_VELOCITY
    about z through the box's centre (ROTATION_CENTER), and the whole box
    (floor and sides) sliding at LINEAR_VELOCITY (the rotation centre travels
    with it). The lowest layer's centres lie within 0.6 SPACING ± 0.8 mm, so
    at the default z0 each sphere (R 9 or 10 mm) is 3.7-5.3 mm above the
    floor: all glued."""
    lx, ly, _ = _box(folder)
    path = os.path.join(folder, "bedDEM_FEM_boundary.mdpa")
    with open(path) as f:
        lines = f.read().splitlines()
    start = lines.index("Begin Nodes")
    for k in range(1, 5):
        node_id, x, y, _ = lines[start + k].split()
        assert int(node_id) == k
        lines[start + k] = f"  {k} {x} {y} {z0!r}"
    text = "\n".join(lines) + "\n"
    block_start = text.index("Begin SubModelPart floor")
    block_end = text.index("End SubModelPart", block_start)
    block = text[block_start:block_end]
    block = block.replace("    ANGULAR_VELOCITY [3] (0.0,0.0,0.0)",
                          f"    ANGULAR_VELOCITY [3] (0.0,0.0,{angular_velocity!r})\n"
                          f"    ROTATION_CENTER [3] ({0.5 * lx!r},{0.5 * ly!r},{z0!r})\n"
                          "    IS_STICKY 1")
    assert "IS_STICKY 1" in block and "ROTATION_CENTER" in block
    text = text[:block_start] + block + text[block_end:]
    assert text.count("LINEAR_VELOCITY [3] (0.0,0.0,0.0)") == 5
    text = text.replace("LINEAR_VELOCITY [3] (0.0,0.0,0.0)",
                        "LINEAR_VELOCITY [3] ({!r},{!r},{!r})".format(*linear_velocity))
    with open(path, "w") as f:
        f.write(text)
