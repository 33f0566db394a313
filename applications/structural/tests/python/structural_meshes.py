"""Small meshes and solves for the structural tests: distorted structured grids
of every solid geometry, a model part with the structural variables and dofs,
and the static strategies of tessera.structural."""
import math

import numpy as np

import tessera
import tessera.structural as structural

ELEMENT_NODES = {"2D3N": 3, "2D4N": 4, "3D4N": 4, "3D8N": 8}


def new_model_part(model, name="Structure"):
    mp = model.CreateModelPart(name, 2)
    for variable in (tessera.DISPLACEMENT, tessera.REACTION, tessera.VOLUME_ACCELERATION,
                     tessera.POSITIVE_FACE_PRESSURE, tessera.NEGATIVE_FACE_PRESSURE):
        mp.AddNodalSolutionStepVariable(variable)
    return mp


def add_dofs(mp):
    for node in mp.Nodes:
        node.AddDof(tessera.DISPLACEMENT_X, tessera.REACTION_X)
        node.AddDof(tessera.DISPLACEMENT_Y, tessera.REACTION_Y)
        node.AddDof(tessera.DISPLACEMENT_Z, tessera.REACTION_Z)


def set_material(properties, law, young=1000.0, poisson=0.3, thickness=None, density=None):
    properties[tessera.YOUNG_MODULUS] = young
    properties[tessera.POISSON_RATIO] = poisson
    if thickness is not None:
        properties[tessera.THICKNESS] = thickness
    if density is not None:
        properties[tessera.DENSITY] = density
    structural.SetConstitutiveLaw(properties, law)


def _offset(i, scale):
    """A deterministic pseudo-random offset in [-scale, scale]."""
    return scale * math.sin(12.9898 * i + 78.233) * 0.999


def distorted_grid(mp, element_name, n=3, length=3.0, distortion=0.22, properties=None):
    """An n x n (x n) grid on [0, length]^d whose interior nodes are moved by up to
    `distortion` x cell size; quads/hexes as they are, triangles two per quad
    (alternating diagonals), tetrahedra six per hex (Kuhn: conforming). Returns
    the ids of the boundary nodes."""
    geometry = element_name[-4:]
    dim = int(geometry[0])
    h = length / n
    properties = properties if properties is not None else mp.GetProperties(1)
    ids = {}
    boundary = []
    counter = 0
    ranges = [range(n + 1)] * dim
    for index in np.ndindex(*[n + 1] * dim):
        counter += 1
        on_boundary = any(k in (0, n) for k in index)
        x = [k * h for k in index] + [0.0] * (3 - dim)
        if not on_boundary:
            x = [x[d] + _offset(3 * counter + d, distortion * h) if d < dim else x[d] for d in range(3)]
        else:
            boundary.append(counter)
        ids[index] = counter
        mp.CreateNewNode(counter, *x)
    del ranges
    element_id = 0

    def add(nodes):
        nonlocal element_id
        element_id += 1
        mp.CreateNewElement(element_name, element_id, nodes, properties)

    if dim == 2:
        for i in range(n):
            for j in range(n):
                quad = [ids[(i, j)], ids[(i + 1, j)], ids[(i + 1, j + 1)], ids[(i, j + 1)]]
                if geometry == "2D4N":
                    add(quad)
                elif (i + j) % 2 == 0:
                    add([quad[0], quad[1], quad[2]])
                    add([quad[0], quad[2], quad[3]])
                else:
                    add([quad[0], quad[1], quad[3]])
                    add([quad[1], quad[2], quad[3]])
    else:
        for i in range(n):
            for j in range(n):
                for k in range(n):
                    c = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
                    hexa = [ids[(i + a, j + b, k + d)] for a, b, d in c]
                    if geometry == "3D8N":
                        add(hexa)
                        continue
                    for tet in ((0, 1, 2, 6), (0, 2, 3, 6), (0, 3, 7, 6), (0, 7, 4, 6), (0, 4, 5, 6), (0, 5, 1, 6)):
                        nodes = [hexa[t] for t in tet]
                        points = [np.array(mp.GetNode(v).Coordinates()) for v in nodes]
                        volume = np.linalg.det(np.array([points[1] - points[0], points[2] - points[0],
                                                         points[3] - points[0]]))
                        if volume < 0.0:
                            nodes[1], nodes[2] = nodes[2], nodes[1]
                        add(nodes)
    return boundary


def strategy(mp, nonlinear, solver='{"solver_type": "sparse_lu"}', tolerance=1e-13, move_mesh=True):
    builder = structural.ResidualBasedEliminationBuilderAndSolver(
        structural.CreateLinearSolver(tessera.Parameters(solver)))
    scheme = structural.ResidualBasedIncrementalUpdateStaticScheme()
    if nonlinear:
        s = structural.ResidualBasedNewtonRaphsonStrategy(
            mp, scheme, structural.DisplacementCriteria(tolerance, 1e-30), builder, max_iterations=30,
            move_mesh_flag=move_mesh)
    else:
        s = structural.ResidualBasedLinearStrategy(mp, scheme, builder, move_mesh_flag=move_mesh)
    s.Initialize()
    return s
