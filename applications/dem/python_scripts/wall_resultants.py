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
    force, moment = np.zeros(3), np.zeros(3)
    for node in wall_part.Nodes:
        f = np.asarray(node.GetSolutionStepValue(tessera.CONTACT_FORCES), dtype=float)
        force += f
        moment += np.cross(np.array([node.X, node.Y, node.Z]) - center, f)
    return force, moment
