"""TrussElement3D2N (with TrussConstitutiveLaw) and the membrane elements
(MembraneElement3D3N/3D4N, PreStressMembraneElement3D3N/3D4N):

* the Kratos deck sm_membrane_truss_pointload, run unchanged, and converged
  tighter against Kratos' stored value;
* a bar stretched to 1.3 times its length vs the closed form P = A S l / L;
* the membrane large-strain patch test (homogeneous deformation exact);
* tangents against central finite differences of the residual;
* clear errors for unsupported input."""
import json
import os

import numpy as np
import pytest

import tessera
import tessera.structural as structural
from tessera.project import Project

from structural_meshes import add_dofs, new_model_part, set_material, strategy
from test_structural_tangent import finite_difference_tangent, set_displacement

DECK = "membrane_test/Membrane_Q4_Truss_PointLoad_test_parameters.json"
KRATOS_NODE4 = -0.037499751604797626  # Membrane_Q4_Truss_PointLoad_test_results.json


def run_deck(folder, tighten=False):
    if tighten:
        path = os.path.join(folder, DECK)
        with open(path) as f:
            parameters = json.load(f)
        settings = parameters["solver_settings"]
        settings["residual_relative_tolerance"] = 1e-12
        settings["residual_absolute_tolerance"] = 1e-12
        with open(path, "w") as f:
            json.dump(parameters, f)
    project = Project(folder, DECK)
    stage = project.Run()
    part = project.model.GetModelPart("Structure")
    return {n.Id: n.GetSolutionStepValue(tessera.DISPLACEMENT_Z) for n in part.Nodes}, stage


def test_membrane_truss_point_load_deck_unchanged(case_copy):
    w, stage = run_deck(case_copy("sm_membrane_truss_pointload"))
    # The deck's own check (from_json_check_result_process, abs_tol 1e-3) ran in
    # the stage. With the deck's residual criterion (relative 1e-4) Newton stops
    # after one iteration, at the linearisation about the prestressed state:
    # the membrane's own strain (w/10)^2/2 ~ 7e-6 changes the stress 100 by
    # ~7e-4, i.e. the answer by ~7e-6 relative, so 2e-5 relative to Kratos.
    assert w[4] == pytest.approx(KRATOS_NODE4, rel=2e-5)
    for node in (1, 5, 6, 9):
        assert w[node] == 0.0
    for node in (2, 3, 7, 8):  # held by the cables (Kratos: -5.95e-9)
        assert w[node] == pytest.approx(-5.95e-9, rel=1e-2)


def test_membrane_truss_point_load_converged_matches_kratos(case_copy):
    # Converged to 1e-12: the nonlinear solution, which Kratos' stored value is,
    # to ~1e-12 (round-off of the solve); 1e-9 relative leaves room.
    w, _ = run_deck(case_copy("sm_membrane_truss_pointload"), tighten=True)
    assert w[4] == pytest.approx(KRATOS_NODE4, rel=1e-9)
    assert w[2] == pytest.approx(-5.95238916e-9, rel=1e-6)


def truss_model(direction, length, area, young, prestress=0.0):
    model = tessera.Model()
    mp = new_model_part(model)
    e = np.asarray(direction, float) / np.linalg.norm(direction)
    mp.CreateNewNode(1, 0.2, -0.1, 0.3)
    x2 = np.array([0.2, -0.1, 0.3]) + length * e
    mp.CreateNewNode(2, *x2)
    properties = mp.GetProperties(1)
    properties[tessera.YOUNG_MODULUS] = young
    properties[tessera.CROSS_AREA] = area
    if prestress:
        properties[structural.TRUSS_PRESTRESS_PK2] = prestress
    structural.SetConstitutiveLaw(properties, "TrussConstitutiveLaw")
    element = mp.CreateNewElement("TrussElement3D2N", 1, [1, 2], properties)
    condition = mp.CreateNewCondition("PointLoadCondition3D1N", 1, [2], mp.GetProperties(0))
    add_dofs(mp)
    return model, mp, element, condition, e


@pytest.mark.parametrize("prestress", (0.0, 40.0))
def test_truss_large_stretch_closed_form(prestress):
    """Bar of length L pulled along its (skew) axis to l = 1.3 L: E = (1.3^2 - 1)/2,
    S = E_mod E + S0, axial force P = A S l / L. Applying P must give
    u = 0.3 L along the axis; Newton converges to round-off (1e-10 relative)."""
    L, A, E_mod, stretch = 2.5, 0.07, 1000.0, 1.3
    model, mp, element, condition, e = truss_model([1.0, 2.0, -0.5], L, A, E_mod, prestress)
    S = E_mod * 0.5 * (stretch ** 2 - 1.0) + prestress
    P = A * S * stretch
    condition.SetValue(tessera.POINT_LOAD, list(P * e))
    for component in (tessera.DISPLACEMENT_X, tessera.DISPLACEMENT_Y, tessera.DISPLACEMENT_Z):
        mp.GetNode(1).Fix(component)
    s = strategy(mp, nonlinear=True)
    assert s.Solve()
    u = np.array(mp.GetNode(2).GetSolutionStepValue(tessera.DISPLACEMENT))
    assert u == pytest.approx((stretch - 1.0) * L * e, rel=1e-10, abs=1e-12)
    assert element.CalculateOnIntegrationPoints(structural.PK2_STRESS_VECTOR, mp.ProcessInfo)[0][0] == \
        pytest.approx(S, rel=1e-10)
    force = element.CalculateOnIntegrationPoints(tessera.FORCE, mp.ProcessInfo)[0]
    assert force[0] == pytest.approx(P, rel=1e-10)


def test_truss_tangent_and_mass():
    model, mp, element, _, _ = truss_model([0.3, 1.0, 0.2], 1.7, 0.05, 2000.0, prestress=15.0)
    mp.GetProperties(1)[tessera.DENSITY] = 3.0
    rng = np.random.default_rng(3)
    for node in mp.Nodes:
        set_displacement(mp, node, 0.2 * rng.uniform(-1, 1, 3))
    K, _ = element.CalculateLocalSystem(mp.ProcessInfo)
    K_fd = finite_difference_tangent(mp, element, 3, 1e-6)
    # central differences, step 1e-6: truncation ~1e-12, rounding ~1e-10 relative
    assert np.abs(np.array(K) - K_fd).max() < 1e-6 * np.abs(K_fd).max()
    M = np.array(element.CalculateMassMatrix(mp.ProcessInfo))
    assert M.sum() == pytest.approx(3 * 3.0 * 0.05 * 1.7, rel=1e-14)  # 3 directions x rho A L


MEMBRANE_NODES = {
    3: [(0.0, 0.0, 0.0), (1.2, 0.1, 0.3), (0.2, 0.9, -0.2)],
    4: [(0.0, 0.0, 0.0), (1.1, 0.1, 0.2), (1.3, 1.2, 0.1), (-0.1, 0.9, -0.1)],
}


def membrane_model(nodes, name, prestress=None, law="LinearElasticPlaneStress2DLaw"):
    model = tessera.Model()
    mp = new_model_part(model)
    for i, x in enumerate(nodes):
        mp.CreateNewNode(i + 1, *x)
    properties = mp.GetProperties(1)
    set_material(properties, law, thickness=0.1, density=7.0)
    if prestress is not None:
        properties[structural.PRESTRESS_VECTOR] = prestress
    element = mp.CreateNewElement(name, 1, list(range(1, len(nodes) + 1)), properties)
    add_dofs(mp)
    return model, mp, element


@pytest.mark.parametrize("nodes", (3, 4))
def test_membrane_tangent_matches_finite_differences(nodes):
    model, mp, element = membrane_model(MEMBRANE_NODES[nodes], f"MembraneElement3D{nodes}N", [50.0, 50.0, 0.0])
    element.Initialize(mp.ProcessInfo)
    rng = np.random.default_rng(11)
    for node in mp.Nodes:
        set_displacement(mp, node, 0.15 * rng.uniform(-1, 1, 3))
    K, _ = element.CalculateLocalSystem(mp.ProcessInfo)
    K_fd = finite_difference_tangent(mp, element, 3, 1e-6)
    # tolerance as test_structural_tangent: 1e-6 of max|K|
    assert np.abs(np.array(K) - K_fd).max() < 1e-6 * np.abs(K_fd).max()
    assert np.abs(np.array(K) - np.array(K).T).max() < 1e-10 * np.abs(K_fd).max()  # hyperelastic: symmetric


def rotation(axis, angle):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k


@pytest.mark.parametrize("name,quads", [("MembraneElement3D4N", True), ("PreStressMembraneElement3D3N", False)])
def test_membrane_large_strain_patch(name, quads):
    """A distorted 3x3-node patch in the plane z = 0; boundary nodes moved by the
    homogeneous map x = R (X + G X) (in-plane stretch/shear G up to 20 %, then a
    rigid rotation out of the plane). The interior node must follow the same map,
    and every Gauss point carry S = D E + S0 with E = (C - I)/2 of the map:
    exact for bilinear/linear elements up to Newton's tolerance (1e-10)."""
    model = tessera.Model()
    mp = new_model_part(model)
    coords = {}
    for j in range(3):
        for i in range(3):
            x, y = float(i), float(j)
            if (i, j) == (1, 1):
                x, y = 1.13, 0.91
            coords[3 * j + i + 1] = (x, y, 0.0)
            mp.CreateNewNode(3 * j + i + 1, x, y, 0.0)
    properties = mp.GetProperties(1)
    set_material(properties, "LinearElasticPlaneStress2DLaw", young=1000.0, poisson=0.3, thickness=0.1)
    properties[structural.PRESTRESS_VECTOR] = [20.0, 20.0, 0.0]
    eid = 1
    for j in range(2):
        for i in range(2):
            a = 3 * j + i + 1
            quad = [a, a + 1, a + 4, a + 3]
            if quads:
                mp.CreateNewElement(name, eid, quad, properties)
                eid += 1
            else:
                for tri in ([quad[0], quad[1], quad[2]], [quad[0], quad[2], quad[3]]):
                    mp.CreateNewElement(name, eid, tri, properties)
                    eid += 1
    add_dofs(mp)
    G = np.array([[0.2, 0.1, 0.0], [-0.05, 0.15, 0.0], [0.0, 0.0, 0.0]])
    R = rotation([1.0, 0.4, 0.2], 0.6)
    F = R @ (np.eye(3) + G)
    for node_id, X in coords.items():
        if node_id == 5:
            continue
        node = mp.GetNode(node_id)
        u = F @ np.array(X) - np.array(X)
        set_displacement(mp, node, u)
        for component in (tessera.DISPLACEMENT_X, tessera.DISPLACEMENT_Y, tessera.DISPLACEMENT_Z):
            node.Fix(component)
    s = strategy(mp, nonlinear=True)
    assert s.Solve()
    X5 = np.array(coords[5])
    assert np.array(mp.GetNode(5).GetSolutionStepValue(tessera.DISPLACEMENT)) == pytest.approx(
        F @ X5 - X5, abs=1e-10)
    # Strain and stress of the map, compared by their invariants (trace and
    # determinant): each Gauss point's local basis (e1 along dX/dxi) is rotated
    # in the plane with the element's distortion.
    C = (F.T @ F)[:2, :2]
    E = 0.5 * (C - np.eye(2))
    E_voigt = np.array([E[0, 0], E[1, 1], 2 * E[0, 1]])
    D = 1000.0 / (1 - 0.09) * np.array([[1, 0.3, 0], [0.3, 1, 0], [0, 0, 0.35]])
    S = D @ E_voigt + np.array([20.0, 20.0, 0.0])

    def invariants(v, shear_factor):
        t = np.array([[v[0], shear_factor * v[2]], [shear_factor * v[2], v[1]]])
        return np.array([np.trace(t), np.linalg.det(t)])

    points = 0
    for element in mp.Elements:
        info = mp.ProcessInfo
        strains = element.CalculateOnIntegrationPoints(structural.GREEN_LAGRANGE_STRAIN_VECTOR, info)
        stresses = element.CalculateOnIntegrationPoints(structural.PK2_STRESS_VECTOR, info)
        for e, stress in zip(strains, stresses):
            assert invariants(e, 0.5) == pytest.approx(invariants(E_voigt, 0.5), rel=1e-9)
            assert invariants(stress, 1.0) == pytest.approx(invariants(S, 1.0), rel=1e-9)
            points += 1
    assert points == (16 if quads else 8)


def test_membrane_prestress_equilibrium_needs_edge_forces():
    """A flat square membrane with isotropic prestress S0 and thickness t, no load:
    the reaction on each fixed edge is the prestress resultant S0 t per unit edge
    length, pulling inward (REACTION = the support's force on the structure)."""
    model, mp, element = membrane_model([(0, 0, 0), (2, 0, 0), (2, 2, 0), (0, 2, 0)],
                                        "MembraneElement3D4N", [30.0, 30.0, 0.0])
    element.Initialize(mp.ProcessInfo)
    rhs = np.array(element.CalculateRightHandSide(mp.ProcessInfo)).reshape(4, 3)
    # RHS = -f_int: node 1 at (0, 0) is pulled towards the centre with S0 t per
    # unit length over half of each adjacent edge: 30 * 0.1 * 1 = 3 per direction.
    assert rhs[0] == pytest.approx([3.0, 3.0, 0.0], rel=1e-13)
    assert rhs[2] == pytest.approx([-3.0, -3.0, 0.0], rel=1e-13)


def test_membrane_and_truss_reject_unsupported_input():
    model, mp, element = membrane_model(MEMBRANE_NODES[4], "MembraneElement3D4N", [10.0, 20.0, 0.0])
    with pytest.raises(RuntimeError, match="anisotropic"):
        element.Check(mp.ProcessInfo)
    model, mp, element = membrane_model(MEMBRANE_NODES[3], "MembraneElement3D3N",
                                        law="LinearElasticPlaneStrain2DLaw")
    with pytest.raises(RuntimeError, match="plane-stress"):
        element.Check(mp.ProcessInfo)
    model, mp, element, _, _ = truss_model([1, 0, 0], 1.0, 0.1, 100.0)
    mp.GetProperties(1)[tessera.CROSS_AREA] = -1.0
    with pytest.raises(RuntimeError, match="CROSS_AREA"):
        element.Check(mp.ProcessInfo)
    structural.SetConstitutiveLaw(mp.GetProperties(1), "LinearElastic3DLaw")
    with pytest.raises(RuntimeError, match="one-dimensional"):
        element.Check(mp.ProcessInfo)


@pytest.mark.parametrize("name, nodes", (("TrussElement3D2N", [1, 2]),
                                         ("SmallDisplacementElement2D3N", [1, 2, 3]),
                                         ("MembraneElement3D3N", [1, 2, 3])))
def test_an_element_whose_properties_have_no_law_names_both(name, nodes):
    # The same check (elements/properties_law.h) for every structural element.
    model = tessera.Model()
    mp = new_model_part(model)
    for node_id, xyz in ((1, (0, 0, 0)), (2, (1, 0, 0)), (3, (0, 1, 0))):
        mp.CreateNewNode(node_id, *xyz)
    properties = mp.GetProperties(7)
    properties[tessera.YOUNG_MODULUS] = 100.0
    properties[tessera.CROSS_AREA] = 0.1
    properties[tessera.THICKNESS] = 0.1
    element = mp.CreateNewElement(name, 3, nodes, properties)
    add_dofs(mp)
    with pytest.raises(RuntimeError, match=f"{name} #3: properties 7 have no constitutive law"):
        element.Check(mp.ProcessInfo)


@pytest.mark.parametrize("nodes", sorted(MEMBRANE_NODES))
def test_membrane_lumped_mass_is_the_row_sum_of_its_consistent_mass(nodes):
    """Explicit dynamics (a DE-FE membrane) needs the membrane's lumped mass:
    rho t int N_a dA0 per node and direction, the row sums of its consistent
    mass (1e-12), summing to rho t A0 per direction."""
    model, mp, element = membrane_model(MEMBRANE_NODES[nodes], f"MembraneElement3D{nodes}N")
    element.Initialize(mp.ProcessInfo)
    lumped = np.asarray(element.CalculateLumpedMassVector(mp.ProcessInfo))
    consistent = np.asarray(element.CalculateMassMatrix(mp.ProcessInfo))
    assert lumped == pytest.approx(consistent.sum(axis=1), rel=1e-12)
    assert lumped.sum() == pytest.approx(consistent.sum(), rel=1e-12)
