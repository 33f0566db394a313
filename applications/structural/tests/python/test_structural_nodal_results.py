"""Gauss point results (stresses, strains) extrapolated to the nodes and
averaged there: IntegrationValuesExtrapolationToNodesProcess (stored in the
nodes, written by GiD as nodal_nonhistorical_results) and VtkOutput's
gauss_point_variables_extrapolated_to_nodes (Kratos' names).

Exactness, the reason for the tolerances: each element extrapolates with the
inverse of its shape functions at the Gauss points, so a field in its
interpolation space is recovered at its nodes, and the element-size-weighted
average of equal values is that value. Hence a constant stress (a homogeneous
deformation, every element type) and a linear strain (u = (xy, yz, zx) on
rectangular Quadrilateral4 / Hexahedron8 cells, whose bilinear/trilinear
interpolation holds it) come out exact up to rounding: 1e-10 relative.
"""
import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import tessera
import tessera.structural as structural
from tessera.processes import integration_values_extrapolation_to_nodes_process as extrapolation

from structural_meshes import add_dofs, distorted_grid, new_model_part, set_material

A = 1e-3 * np.array([[1.0, 0.4, -0.3], [-0.2, -0.7, 0.5], [0.6, 0.1, 0.9]])


def hooke_3d(young=1000.0, nu=0.3):
    lam = young * nu / ((1 + nu) * (1 - 2 * nu))
    mu = young / (2 * (1 + nu))
    D = np.zeros((6, 6))
    D[:3, :3] = lam
    D[np.arange(3), np.arange(3)] += 2 * mu
    D[np.arange(3, 6), np.arange(3, 6)] = mu
    return D


def deformed_mesh(geometry, displacement, distortion=0.22):
    """A grid of SmallDisplacementElement<geometry> with the nodal displacement
    displacement(X) imposed everywhere (no solve needed for the results)."""
    dim = int(geometry[0])
    model = tessera.Model()
    mp = new_model_part(model)
    law = "LinearElasticPlaneStrain2DLaw" if dim == 2 else "LinearElastic3DLaw"
    set_material(mp.GetProperties(1), law, thickness=1.0 if dim == 2 else None)
    distorted_grid(mp, f"SmallDisplacementElement{geometry}", distortion=distortion)
    add_dofs(mp)
    for node in mp.Nodes:
        u = np.zeros(3)
        u[:dim] = displacement(np.array(node.GetInitialPosition()))[:dim]
        node.SetSolutionStepValue(tessera.DISPLACEMENT, u)
    return model, mp


def extrapolate(model, variables, **settings):
    parameters = {"model_part_name": "Structure", "list_of_variables": variables, **settings}
    process = extrapolation.Factory(tessera.Parameters(json.dumps({"Parameters": parameters})), model)
    assert isinstance(process, tessera.Process)
    process.ExecuteFinalizeSolutionStep()


def voigt(E, dim):
    if dim == 2:
        return np.array([E[0, 0], E[1, 1], 2 * E[0, 1]])
    return np.array([E[0, 0], E[1, 1], E[2, 2], 2 * E[0, 1], 2 * E[1, 2], 2 * E[0, 2]])


@pytest.mark.parametrize("geometry", ("2D3N", "2D4N", "3D4N", "3D8N"))
def test_constant_stress_is_exact_at_every_node(geometry):
    dim = int(geometry[0])
    model, mp = deformed_mesh(geometry, lambda X: A @ X)
    extrapolate(model, ["CAUCHY_STRESS_VECTOR", "STRAIN_VECTOR"])
    strain = voigt(0.5 * (A + A.T)[:dim, :dim], dim)
    expected = np.array(next(iter(mp.Elements)).CalculateOnIntegrationPoints(structural.CAUCHY_STRESS_VECTOR,
                                                                       mp.ProcessInfo)[0])
    if dim == 3:  # independent check of the stress itself
        assert expected == pytest.approx(hooke_3d() @ strain, rel=1e-12)
    for node in mp.Nodes:
        assert np.array(node.GetValue(structural.STRAIN_VECTOR)) == pytest.approx(strain, rel=1e-10, abs=1e-15)
        assert np.array(node.GetValue(structural.CAUCHY_STRESS_VECTOR)) == pytest.approx(
            expected, rel=1e-10, abs=1e-12)
        assert node.GetValue(tessera.NODAL_AREA) > 0.0  # the weights (Kratos' average_variable)


SCALE = 1e-3  # of the linear field, to keep the small-displacement elements uninverted


def linear_field(X):
    x, y, z = X
    return SCALE * np.array([x * y, y * z, z * x])


@pytest.mark.parametrize("geometry", ("2D4N", "3D8N"))
def test_linear_strain_is_exact_at_every_node_of_rectangular_cells(geometry):
    """u = c (xy, yz, zx): eps = c (y, z, x, x, y, z) in 3D, c (y, 0, x) in 2D."""
    dim = int(geometry[0])
    model, mp = deformed_mesh(geometry, linear_field, distortion=0.0)
    extrapolate(model, ["STRAIN_VECTOR"])
    for node in mp.Nodes:
        x, y, z = node.GetInitialPosition()
        exact = SCALE * (np.array([y, z, x, x, y, z]) if dim == 3 else np.array([y, 0.0, x]))
        assert np.array(node.GetValue(structural.STRAIN_VECTOR)) == pytest.approx(exact, rel=1e-10, abs=1e-15)


def test_linear_strain_is_not_exact_with_constant_strain_triangles():
    """Control: Triangle3 has one Gauss point, so the nodal values are averages
    of element constants and a linear field is only approximated (which the
    exact tests above would not notice if extrapolation did nothing)."""
    model, mp = deformed_mesh("2D3N", linear_field, distortion=0.0)
    extrapolate(model, ["STRAIN_VECTOR"])
    worst = max(abs(node.GetValue(structural.STRAIN_VECTOR)[0] - SCALE * node.GetInitialPosition()[1])
                for node in mp.Nodes)
    assert worst > 0.1 * SCALE


def test_vtk_writes_extrapolated_point_data(tmp_path):
    model, mp = deformed_mesh("3D8N", linear_field, distortion=0.0)
    output = tessera.VtkOutput(mp, tessera.Parameters(json.dumps({
        "output_path": str(tmp_path), "output_precision": 15,
        "gauss_point_variables_extrapolated_to_nodes": ["STRAIN_VECTOR"]})))
    output.PrintOutput()
    piece = ET.parse(tmp_path / "Structure_0.vtu").getroot().find("UnstructuredGrid/Piece")
    array = piece.find("PointData/DataArray[@Name='STRAIN_VECTOR']")
    assert array.get("NumberOfComponents") == "6"
    values = np.array([float(v) for v in array.text.split()]).reshape(-1, 6)
    points = np.array([float(v) for v in piece.find("Points/DataArray").text.split()]).reshape(-1, 3)
    exact = SCALE * np.stack([points[:, 1], points[:, 2], points[:, 0], points[:, 0], points[:, 1],
                              points[:, 2]], axis=1)
    assert np.abs(values - exact).max() < 1e-10 * np.abs(exact).max()


def test_gid_writes_the_process_results_as_nodal_results(tmp_path):
    from tessera.output import gid_output_process
    model, mp = deformed_mesh("3D8N", lambda X: A @ X)
    extrapolate(model, ["CAUCHY_STRESS_VECTOR"])
    results = {"gidpost_flags": {"GiDPostMode": "GiD_PostAscii", "MultiFileFlag": "SingleFile"},
               "nodal_nonhistorical_results": ["CAUCHY_STRESS_VECTOR"]}
    process = gid_output_process.Factory(tessera.Parameters(json.dumps({"Parameters": {
        "model_part_name": "Structure", "output_name": str(tmp_path / "case"),
        "postprocess_parameters": {"result_file_configuration": results}}})), model)
    process.ExecuteInitialize()
    process.ExecuteBeforeSolutionLoop()
    process.PrintOutput()
    process.ExecuteFinalize()
    lines = (tmp_path / "case.post.res").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('Result "CAUCHY_STRESS_VECTOR"'))
    assert "OnNodes" in lines[start]
    values_at = lines.index("Values", start)
    expected = hooke_3d() @ voigt(0.5 * (A + A.T), 3)
    rows = 0
    for line in lines[values_at + 1:]:
        if line == "End Values":
            break
        numbers = [float(v) for v in line.split()]
        assert np.array(numbers[1:]) == pytest.approx(expected, rel=1e-6)  # GiD text precision
        rows += 1
    assert rows == mp.NumberOfNodes()


def test_bad_settings_are_named():
    model, _ = deformed_mesh("2D4N", lambda X: A @ X)
    with pytest.raises(Exception, match="list_of_variables.*CAUCHY_STRES"):
        extrapolate(model, ["CAUCHY_STRES"])
    with pytest.raises(Exception, match="extrapolate_non_historical"):
        extrapolate(model, ["CAUCHY_STRESS_VECTOR"], extrapolate_non_historical=False)
    with pytest.raises(Exception, match="average_variable"):
        extrapolate(model, ["CAUCHY_STRESS_VECTOR"], average_variable="DISPLACEMENT")
    with pytest.raises(Exception, match="unknown_key|unknown"):
        extrapolate(model, ["CAUCHY_STRESS_VECTOR"], unknown_key=1)
