"""The tangent of every element and load condition against a central finite
difference of its residual: K = -d(RHS)/du.

Tolerance: relative 1e-6 of max|K| (the brief's). With step h = 1e-6 x the
element size, the central difference errs by O(h^2 |r'''|) ~ 1e-12 relative
(truncation) plus ~ eps |r| / h ~ 1e-10 relative (rounding), so 1e-6 leaves
room while any missing or wrong term (a geometric stiffness, a load
stiffness, a law tangent) shows up at O(1e-2) or more.
"""
import numpy as np
import pytest

import tessera
import tessera.structural as structural

from structural_meshes import add_dofs, new_model_part, set_material

# reference nodes of one distorted element per geometry
NODES = {
    "2D3N": [(0.1, 0.0, 0), (1.2, 0.2, 0), (0.3, 0.9, 0)],
    "2D4N": [(0.0, 0.0, 0), (1.1, 0.1, 0), (1.3, 1.2, 0), (-0.1, 0.9, 0)],
    "3D4N": [(0, 0, 0), (1.1, 0.1, 0.0), (0.2, 0.9, 0.1), (0.1, 0.2, 1.2)],
    "3D8N": [(0, 0, 0), (1.1, 0, 0.1), (1.2, 1.1, 0), (0, 0.9, -0.1),
             (0.1, 0, 1), (1, 0.1, 1.2), (1.1, 1.2, 1.1), (-0.1, 1, 0.9)],
}
LAWS = {2: ("LinearElasticPlaneStrain2DLaw", "LinearElasticPlaneStress2DLaw",
            "KirchhoffSaintVenantPlaneStrain2DLaw", "HyperElasticPlaneStrain2DLaw"),
        3: ("LinearElastic3DLaw", "KirchhoffSaintVenant3DLaw", "HyperElastic3DLaw")}


def finite_difference_tangent(mp, entity, dim, h):
    """-(r(u + h e_j) - r(u - h e_j)) / 2h, moving the current coordinates with
    the displacement (conditions integrate on the current geometry)."""
    info = mp.ProcessInfo
    nodes = list(entity.GetGeometry())
    n = len(nodes) * dim
    K = np.zeros((n, n))
    for a, node in enumerate(nodes):
        for i in range(dim):
            column = []
            for sign in (1.0, -1.0):
                u = np.array(node.GetSolutionStepValue(tessera.DISPLACEMENT))
                u[i] += sign * h
                set_displacement(mp, node, u)
                column.append(np.array(entity.CalculateRightHandSide(info)))
                u[i] -= sign * h
                set_displacement(mp, node, u)
            K[:, a * dim + i] = -(column[0] - column[1]) / (2 * h)
    return K


def set_displacement(mp, node, u):
    node.SetSolutionStepValue(tessera.DISPLACEMENT, u)
    index = list(mp.NodeIds()).index(node.Id)
    mp.NodalCoordinates()[index] = np.array(node.GetInitialPosition()) + u


def one_element(formulation, geometry, law, scale, seed=7):
    dim = int(geometry[0])
    model = tessera.Model()
    mp = new_model_part(model)
    for i, x in enumerate(NODES[geometry]):
        mp.CreateNewNode(i + 1, *x)
    properties = mp.GetProperties(1)
    set_material(properties, law, thickness=0.7 if dim == 2 else None, density=2.0)
    properties[tessera.VOLUME_ACCELERATION] = [0.3, -9.81, 1.0]
    element = mp.CreateNewElement(f"{formulation}Element{geometry}", 1, list(range(1, len(NODES[geometry]) + 1)),
                                  properties)
    add_dofs(mp)
    element.Initialize(mp.ProcessInfo)
    rng = np.random.default_rng(seed)
    for node in mp.Nodes:
        u = scale * rng.uniform(-1, 1, 3)
        if dim == 2:
            u[2] = 0.0
        set_displacement(mp, node, u)
    return model, mp, element, dim


@pytest.mark.parametrize("geometry", ("2D3N", "2D4N", "3D4N", "3D8N"))
@pytest.mark.parametrize("formulation", ("SmallDisplacement", "TotalLagrangian"))
def test_element_tangent_matches_finite_differences(formulation, geometry):
    dim = int(geometry[0])
    for law in LAWS[dim]:
        # 10 % displacements: the nonlinear terms (geometric stiffness, Neo-Hookean
        # tangent) are large enough that leaving one out fails by far
        model, mp, element, dim = one_element(formulation, geometry, law, scale=0.1)
        K, _ = element.CalculateLocalSystem(mp.ProcessInfo)
        K_fd = finite_difference_tangent(mp, element, dim, h=1e-6)
        error = np.abs(np.array(K) - K_fd).max() / np.abs(K_fd).max()
        assert error < 1e-6, (law, error)


def test_geometric_stiffness_is_needed():
    """The test above can fail: without the initial-stress term (the
    small-displacement tangent used on a TL residual) the difference is large."""
    model, mp, element, dim = one_element("TotalLagrangian", "3D8N", "HyperElastic3DLaw", scale=0.1)
    K_fd = finite_difference_tangent(mp, element, dim, h=1e-6)
    model2, mp2, element2, _ = one_element("SmallDisplacement", "3D8N", "HyperElastic3DLaw", scale=0.1)
    K_small, _ = element2.CalculateLocalSystem(mp2.ProcessInfo)
    assert np.abs(np.array(K_small) - K_fd).max() / np.abs(K_fd).max() > 1e-2


def load_condition_model(name, nodes, load_variable, load):
    dim = 2 if "2D" in name else 3
    model = tessera.Model()
    mp = new_model_part(model)
    for i, x in enumerate(nodes):
        mp.CreateNewNode(i + 1, *x)
    condition = mp.CreateNewCondition(name, 1, list(range(1, len(nodes) + 1)), mp.GetProperties(0))
    add_dofs(mp)
    if load_variable is not None:
        condition.SetValue(load_variable, load)
    return model, mp, condition, dim


LOAD_CONDITIONS = [
    ("LineLoadCondition2D2N", [(0.1, 0.2, 0), (1.3, 0.7, 0)], tessera.LINE_LOAD),
    ("SurfaceLoadCondition3D3N", [(0, 0, 0.1), (1.2, 0.1, 0), (0.2, 1.1, 0.3)], tessera.SURFACE_LOAD),
    ("SurfaceLoadCondition3D4N", [(0, 0, 0.1), (1.2, 0.1, 0), (1.1, 1.0, 0.2), (0.1, 1.1, 0.3)],
     tessera.SURFACE_LOAD),
]


def displace_randomly(mp, dim, seed=3):
    rng = np.random.default_rng(seed)
    for node in mp.Nodes:
        u = 0.1 * rng.uniform(-1, 1, 3)
        if dim == 2:
            u[2] = 0.0
        set_displacement(mp, node, u)


@pytest.mark.parametrize("name,nodes,load_variable", LOAD_CONDITIONS)
def test_pressure_load_stiffness_matches_finite_differences(name, nodes, load_variable):
    """Follower pressure: the LHS is the exact derivative of the RHS (tolerance
    1e-6 relative: central differences with h = 1e-6 on O(1) coordinates)."""
    model, mp, condition, dim = load_condition_model(name, nodes, None, None)
    # follower pressure on the condition and on the nodes (Kratos' sign
    # convention: positive face pressure along +n, negative along -n)
    condition.SetValue(tessera.POSITIVE_FACE_PRESSURE, 2.5)
    for i, node in enumerate(mp.Nodes):
        node.SetSolutionStepValue(tessera.NEGATIVE_FACE_PRESSURE, 0.3 * (i + 1))
    displace_randomly(mp, dim)
    K, _ = condition.CalculateLocalSystem(mp.ProcessInfo)
    K_fd = finite_difference_tangent(mp, condition, dim, h=1e-6)
    assert np.abs(K_fd).max() > 0.1  # the loads do depend on the geometry
    assert np.abs(np.array(K) - K_fd).max() / np.abs(K_fd).max() < 1e-6
    # adding a LINE_LOAD / SURFACE_LOAD changes the RHS but not the LHS (Kratos)
    _, rhs_pressure = condition.CalculateLocalSystem(mp.ProcessInfo)
    condition.SetValue(load_variable, [0.4, -1.3, 0.8])
    K_both, rhs_both = condition.CalculateLocalSystem(mp.ProcessInfo)
    assert np.array(K_both) == pytest.approx(np.array(K), abs=1e-14)
    assert np.abs(np.array(rhs_both) - np.array(rhs_pressure)).max() > 0.1


@pytest.mark.parametrize("name,nodes,load_variable", LOAD_CONDITIONS)
def test_line_and_surface_loads_have_no_load_stiffness(name, nodes, load_variable):
    """Kratos' LineLoadCondition / SurfaceLoadCondition: LINE_LOAD and
    SURFACE_LOAD are not follower loads and add nothing to the LHS, although
    their resultant is integrated over the current (moved) line or surface."""
    model, mp, condition, dim = load_condition_model(name, nodes, load_variable, [0.4, -1.3, 0.8])
    rhs_reference = np.array(condition.CalculateRightHandSide(mp.ProcessInfo))
    displace_randomly(mp, dim)
    K, rhs = condition.CalculateLocalSystem(mp.ProcessInfo)
    assert np.abs(np.array(K)).max() == 0.0
    # the RHS does follow the current measure: it changed with the geometry
    assert np.abs(np.array(rhs) - rhs_reference).max() > 1e-3


def test_line_load_resultant_and_pressure_direction():
    """A uniform LINE_LOAD q on a line of length l gives q l / 2 per node; a
    positive PRESSURE pushes against n = (t_y, -t_x) (outward for a
    counter-clockwise boundary), as Kratos' LineLoadCondition2D2N."""
    model, mp, condition, _ = load_condition_model("LineLoadCondition2D2N", [(0, 0, 0), (3, 4, 0)],
                                                   tessera.LINE_LOAD, [1.0, 2.0, 0.0])
    rhs = np.array(condition.CalculateRightHandSide(mp.ProcessInfo))
    assert rhs == pytest.approx([2.5, 5.0, 2.5, 5.0], abs=1e-14)  # length 5
    condition.SetValue(tessera.LINE_LOAD, [0.0, 0.0, 0.0])
    condition.SetValue(tessera.PRESSURE, 2.0)
    rhs = np.array(condition.CalculateRightHandSide(mp.ProcessInfo))
    n = np.array([4.0, -3.0]) / 5.0
    assert rhs == pytest.approx(np.tile(-2.0 * 5.0 / 2 * n, 2), abs=1e-14)


def test_point_load_from_condition_and_node():
    model, mp, condition, _ = load_condition_model("PointLoadCondition3D1N", [(1, 2, 3)], tessera.POINT_LOAD,
                                                   [1.0, 2.0, 3.0])
    mp.AddNodalSolutionStepVariable(tessera.POINT_LOAD)
    mp.GetNode(1).SetSolutionStepValue(tessera.POINT_LOAD, [0.5, 0.0, -1.0])
    assert np.array(condition.CalculateRightHandSide(mp.ProcessInfo)) == pytest.approx([1.5, 2.0, 2.0])


@pytest.mark.parametrize("geometry", ("2D3N", "2D4N", "3D4N", "3D8N"))
def test_mass_and_body_force_totals(geometry):
    """Sum of the consistent mass per direction = rho V (x thickness in 2D); the
    body-force resultant = rho g V. Reference configuration, no displacement."""
    model, mp, element, dim = one_element("TotalLagrangian", geometry, LAWS[int(geometry[0])][0], scale=0.0)
    info = mp.ProcessInfo
    M = np.array(element.CalculateMassMatrix(info))
    volume = element.GetGeometry().DomainSize() * (0.7 if dim == 2 else 1.0)
    # Gauss rules integrate N_a N_b of these affine/bilinear/trilinear cells
    # exactly for the total (sum N_a = 1): rounding only
    assert M[0::dim, 0::dim].sum() == pytest.approx(2.0 * volume, rel=1e-12)
    rhs = np.array(element.CalculateRightHandSide(info))
    g = np.array([0.3, -9.81, 1.0])[:dim]
    assert rhs.reshape(-1, dim).sum(axis=0) == pytest.approx(2.0 * volume * g, rel=1e-12)
    info[tessera.COMPUTE_LUMPED_MASS_MATRIX] = True
    lumped = np.array(element.CalculateMassMatrix(info))
    assert np.count_nonzero(lumped - np.diag(np.diag(lumped))) == 0
    assert np.trace(lumped) == pytest.approx(M.sum(), rel=1e-12)  # row sums keep the total


def test_stateless_law_shared_by_elements_keeps_each_response_its_own():
    """Elastic laws are stateless (ConstitutiveLaw::IsStateless), so the solid
    elements share their properties' law instead of cloning it per Gauss point.
    The response must still come from the calling element alone: the same
    element gives bitwise the same residual before and after another element,
    on other properties with twice the Young's modulus, was evaluated; and that
    element's internal force is exactly twice the first one's (Neo-Hookean S is
    linear in (mu, lambda), both proportional to E, and doubling is exact in
    floating point, so the tolerance is rounding of the assembly only: 1e-14)."""
    model, mp, element, dim = one_element("TotalLagrangian", "3D8N", "HyperElastic3DLaw", scale=0.1)
    info = mp.ProcessInfo
    mp.GetProperties(1)[tessera.VOLUME_ACCELERATION] = [0.0, 0.0, 0.0]  # internal force alone
    stiffer = mp.GetProperties(2)
    set_material(stiffer, "HyperElastic3DLaw", young=2000.0, density=2.0)
    other = mp.CreateNewElement("TotalLagrangianElement3D8N", 2, [node.Id for node in element.GetGeometry()],
                                stiffer)
    other.Initialize(info)
    before = np.array(element.CalculateRightHandSide(info))
    doubled = np.array(other.CalculateRightHandSide(info))
    after = np.array(element.CalculateRightHandSide(info))
    assert np.array_equal(before, after)
    assert np.abs(doubled - 2.0 * before).max() <= 1e-14 * np.abs(before).max()
    assert np.abs(before).max() > 1.0  # 10 % strains on E = 1000: a real force
