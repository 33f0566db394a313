"""Structured test meshes of the unit cube built in a model part: n³
hexahedra, or each cell cut into six tetrahedra (shared by the kernel's
skin-detection and mesh-partition tests)."""
import numpy as np

def GridId(i, j, k, n):
    return 1 + i + (n + 1) * (j + (n + 1) * k)


def MakeHexCube(model, n, name="Cube"):
    """The unit cube as n^3 Hexahedra3D8 (properties 1), element ids from 1."""
    mp = model.CreateModelPart(name)
    for k in range(n + 1):
        for j in range(n + 1):
            for i in range(n + 1):
                mp.CreateNewNode(GridId(i, j, k, n), i / n, j / n, k / n)
    props = mp.GetProperties(1)
    element_id = 1
    for k in range(n):
        for j in range(n):
            for i in range(n):
                corners = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
                nodes = [GridId(i + a, j + b, k + c, n) for a, b, c in corners]
                mp.CreateNewElement("Element3D8N", element_id, nodes, props)
                element_id += 1
    return mp


def MakeTetCube(model, n, name="Cube"):
    """The unit cube with each cell cut into six positively oriented tetrahedra
    around its main diagonal (conforming between cells)."""
    mp = model.CreateModelPart(name)
    coords = {}
    for k in range(n + 1):
        for j in range(n + 1):
            for i in range(n + 1):
                coords[GridId(i, j, k, n)] = np.array([i / n, j / n, k / n])
                mp.CreateNewNode(GridId(i, j, k, n), i / n, j / n, k / n)
    props = mp.GetProperties(1)
    element_id = 1
    for k in range(n):
        for j in range(n):
            for i in range(n):
                for perm in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
                    v = [i, j, k]
                    tet = [GridId(*v, n)]
                    for axis in perm:
                        v[axis] += 1
                        tet.append(GridId(*v, n))
                    x = [coords[t] for t in tet]
                    if np.dot(np.cross(x[1] - x[0], x[2] - x[0]), x[3] - x[0]) < 0:
                        tet[1], tet[2] = tet[2], tet[1]
                    mp.CreateNewElement("Element3D4N", element_id, tet, props)
                    element_id += 1
    return mp
