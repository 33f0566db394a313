"""Plane-stress validation cases shared by the tests and the refinement study in
applications/structural/benchmarks/: Cook's membrane and the Timoshenko–Goodier
cantilever, meshed with SmallDisplacementElement2D4N on structured grids of a
quadrilateral domain, loaded by LineLoadCondition2D2N and solved linearly."""
import numpy as np

import tessera

from structural_meshes import add_dofs, new_model_part, set_material, strategy

# Cook's membrane (Cook 1974; the reference 23.96 of Zienkiewicz & Taylor, The
# Finite Element Method vol. 1, for plane stress): a tapered panel clamped on
# x = 0 and sheared by a total force 1 uniform on x = 48; E = 1, nu = 1/3,
# thickness 1. The reference 23.96 is the vertical displacement of the middle
# of the loaded edge, (48, 52), as Zienkiewicz & Taylor and Simo & Rifai
# (IJNME 29 (1990) 1595) measure it (the corner (48, 60) converges to ~25.1).
COOK_CORNERS = ((0.0, 0.0), (48.0, 44.0), (48.0, 60.0), (0.0, 44.0))
COOK_REFERENCE_TIP_DISPLACEMENT = 23.96


def quadrilateral_grid(mp, corners, nx, ny, element_name="SmallDisplacementElement2D4N"):
    """An nx x ny grid of the quadrilateral `corners` (counter-clockwise, the
    first edge along xi) through the bilinear map. Returns node_id[i][j]."""
    c = np.array(corners)
    ids = np.zeros((nx + 1, ny + 1), dtype=int)
    node_id = 0
    for i in range(nx + 1):
        for j in range(ny + 1):
            xi, eta = i / nx, j / ny
            x = ((1 - xi) * (1 - eta) * c[0] + xi * (1 - eta) * c[1] + xi * eta * c[2]
                 + (1 - xi) * eta * c[3])
            node_id += 1
            ids[i, j] = node_id
            mp.CreateNewNode(node_id, x[0], x[1], 0.0)
    properties = mp.GetProperties(1)
    element_id = 0
    for i in range(nx):
        for j in range(ny):
            element_id += 1
            nodes = [ids[i, j], ids[i + 1, j], ids[i + 1, j + 1], ids[i, j + 1]]
            mp.CreateNewElement(element_name, element_id, [int(n) for n in nodes], properties)
    return ids


def add_line_conditions(mp, node_ids):
    """LineLoadCondition2D2N along consecutive nodes; the outward normal does
    not matter for LINE_LOAD (a force per unit length in a fixed direction)."""
    first = mp.NumberOfConditions() + 1
    for k in range(len(node_ids) - 1):
        mp.CreateNewCondition("LineLoadCondition2D2N", first + k,
                              [int(node_ids[k]), int(node_ids[k + 1])], mp.GetProperties(1))


def plane_stress_model(young, poisson):
    model = tessera.Model()
    mp = new_model_part(model)
    set_material(mp.GetProperties(1), "LinearElasticPlaneStress2DLaw", young=young, poisson=poisson,
                 thickness=1.0)
    return model, mp


def solve_linear(mp):
    add_dofs(mp)
    for node in mp.Nodes:
        node.Fix(tessera.DISPLACEMENT_Z)
    s = strategy(mp, nonlinear=False, move_mesh=False)
    assert s.Solve()


def cook_tip_displacement(n):
    """Vertical displacement of (48, 52), the middle of Cook's loaded edge, on
    an n x n mesh (n even)."""
    assert n % 2 == 0
    model, mp = plane_stress_model(1.0, 1.0 / 3.0)
    ids = quadrilateral_grid(mp, COOK_CORNERS, n, n)
    for j in range(n + 1):  # clamped edge x = 0 (i = 0)
        node = mp.GetNode(int(ids[0, j]))
        node.Fix(tessera.DISPLACEMENT_X)
        node.Fix(tessera.DISPLACEMENT_Y)
    add_line_conditions(mp, ids[n, :])
    for condition in mp.Conditions:  # total shear force 1 over the edge of length 16
        condition.SetValue(tessera.LINE_LOAD, [0.0, 1.0 / 16.0, 0.0])
    solve_linear(mp)
    return mp.GetNode(int(ids[n, n // 2])).GetSolutionStepValue(tessera.DISPLACEMENT)[1]


class TimoshenkoGoodierCantilever:
    """The plane-stress elasticity solution of a cantilever 0 <= x <= L,
    |y| <= D/2, unit thickness, with a parabolic end shear of resultant P at
    x = L (Timoshenko & Goodier, Theory of Elasticity, 3rd ed., §21; in the form
    of Augarde & Deeks, Finite Elem. Anal. Des. 44 (2008) 595):
      u_x = -P y / (6 E I) [(6 L - 3 x) x + (2 + nu)(y^2 - D^2/4)]
      u_y =  P / (6 E I) [3 nu y^2 (L - x) + (4 + 5 nu) D^2 x / 4 + (3 L - x) x^2]
      sigma_xy = P / (2 I) (D^2/4 - y^2),  I = D^3 / 12.
    With u prescribed at x = 0 and the traction on x = L, the finite-element
    solution converges to it; the tip deflection
      u_y(L, 0) = P L^3 / (3 E I) + (4 + 5 nu) P D^2 L / (24 E I)
    is Euler–Bernoulli's P L^3 / (3 E I) plus the shear deflection."""

    def __init__(self, length=10.0, depth=2.0, young=1000.0, poisson=0.3, load=1.0):
        self.L, self.D, self.E, self.nu, self.P = length, depth, young, poisson, load
        self.I = depth**3 / 12.0

    def displacement(self, x, y):
        L, D, E, nu, P, I = self.L, self.D, self.E, self.nu, self.P, self.I
        ux = -P * y / (6 * E * I) * ((6 * L - 3 * x) * x + (2 + nu) * (y * y - D * D / 4))
        uy = P / (6 * E * I) * (3 * nu * y * y * (L - x) + (4 + 5 * nu) * D * D * x / 4
                                + (3 * L - x) * x * x)
        return ux, uy

    def shear_traction(self, y):
        return self.P / (2 * self.I) * (self.D**2 / 4 - y * y)

    def tip_deflection(self):
        return self.displacement(self.L, 0.0)[1]

    def euler_bernoulli_tip_deflection(self):
        return self.P * self.L**3 / (3 * self.E * self.I)

    def fe_tip_deflection(self, nx, ny):
        """u_y at (L, 0) on an nx x ny mesh (ny even, so a node lies at y = 0)."""
        assert ny % 2 == 0
        model, mp = plane_stress_model(self.E, self.nu)
        h = self.D / 2
        ids = quadrilateral_grid(mp, ((0.0, -h), (self.L, -h), (self.L, h), (0.0, h)), nx, ny)
        for j in range(ny + 1):  # the exact displacement on x = 0
            node = mp.GetNode(int(ids[0, j]))
            ux, uy = self.displacement(0.0, node.Y)
            node.SetSolutionStepValue(tessera.DISPLACEMENT, [ux, uy, 0.0])
            node.Fix(tessera.DISPLACEMENT_X)
            node.Fix(tessera.DISPLACEMENT_Y)
        # the parabolic traction on x = L, nodal values interpolated linearly
        add_line_conditions(mp, ids[nx, :])
        for j in range(ny + 1):
            node = mp.GetNode(int(ids[nx, j]))
            node.SetValue(tessera.LINE_LOAD, [0.0, self.shear_traction(node.Y), 0.0])
        solve_linear(mp)
        return mp.GetNode(int(ids[nx, ny // 2])).GetSolutionStepValue(tessera.DISPLACEMENT)[1]
