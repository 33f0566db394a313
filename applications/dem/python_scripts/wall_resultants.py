"""Total force and moment that the particles exert on a wall sub model part.

The DEM strategy writes each wall contact's force on the wall to the face's
nodes (CONTACT_FORCES) with the shape-function weights of the contact point;
the weights reproduce the contact point (sum N_k x_k = Pc), so summing the
nodal forces and their moments gives exactly the resultant force and the
moment of the contact forces. Call strategy.WriteToNodes() first.
"""
import numpy as np

import tessera


def WallForceAndMoment(wall_part, center=None):
    """(force, moment) on `wall_part`; the moment is about `center`, by default
    the part's ROTATION_CENTER (SubModelPartData) or the origin. A node shared
    with another wall part counts in both."""
    if center is None:
        center = wall_part.GetValue(tessera.ROTATION_CENTER) if wall_part.Has(
            tessera.ROTATION_CENTER) else (0.0, 0.0, 0.0)
    center = np.asarray(center, dtype=float)
    # The part's rows of the root's columns (NodeIndices: the order of
    # wall_part.Nodes), summed row by row in that order: a lab's servo reads
    # this every step, where a loop over the nodes cost more than the step
    # of a 1,500-sphere specimen.
    root = wall_part.GetRootModelPart()
    rows = wall_part.NodeIndices()
    f = np.asarray(root.NodalArray(tessera.CONTACT_FORCES), dtype=float)[rows]
    x = np.asarray(root.NodalCoordinates(), dtype=float)[rows]
    force, moment = np.zeros(3), np.zeros(3)
    for k in range(len(rows)):
        force += f[k]
    # r × f, component by component as np.cross forms it (the same bits,
    # without its per-call overhead).
    r = x - center
    arms = r[:, [1, 2, 0]] * f[:, [2, 0, 1]] - r[:, [2, 0, 1]] * f[:, [1, 2, 0]]
    for k in range(len(rows)):
        moment += arms[k]
    return force, moment
