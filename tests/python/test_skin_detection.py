"""Tests of skin detection from Python: tessera.FindSkinFaces (numpy output,
outward normals, areas) on meshes built here, tessera.SkinDetectionProcess
(sub model part, fresh condition ids, properties, assignment to listed model
parts, errors naming the setting) and its process-list module
skin_detection_process."""
import json

import numpy as np
import pytest

import tessera
from structured_meshes import GridId, MakeHexCube, MakeTetCube
from tessera.process_factory import KratosProcessFactory


def FaceGeometry(mp, skin):
    """(n, m, 3) coordinates of each face's nodes (rows of padded faces repeat
    the last node, which changes neither area nor normal below)."""
    ids = skin["node_ids"]
    counts = skin["nodes_number"]
    full = np.where(ids >= 0, ids, ids[np.arange(len(ids)), counts - 1][:, None])
    node_ids = mp.NodeIds()
    coordinates = mp.NodalCoordinates()
    position = {int(node_id): row for row, node_id in enumerate(node_ids)}
    return np.array([[coordinates[position[int(i)]] for i in face] for face in full])


def AreaVectors(x):
    """Right-hand-rule area vectors of triangles (n, 3, 3) or planar quads (n, 4, 3)."""
    if x.shape[1] == 3:
        return 0.5 * np.cross(x[:, 1] - x[:, 0], x[:, 2] - x[:, 0])
    return 0.5 * np.cross(x[:, 2] - x[:, 0], x[:, 3] - x[:, 1])


def CheckUnitCubeSkin(mp, skin):
    x = FaceGeometry(mp, skin)
    area = AreaVectors(x)
    assert np.linalg.norm(area, axis=1).sum() == pytest.approx(6.0, abs=1e-12)
    centres = x.mean(axis=1)
    # The outward direction of the side each face lies on.
    on_side = (np.abs(centres) < 1e-12) | (np.abs(centres - 1.0) < 1e-12)
    assert np.all(on_side.sum(axis=1) == 1), "a face is not on a side of the cube"
    outward = np.where(on_side, np.sign(centres - 0.5), 0.0)
    unit = area / np.linalg.norm(area, axis=1)[:, None]
    np.testing.assert_allclose(unit, outward, atol=1e-12)
    # Every skin node on the boundary.
    points = x.reshape(-1, 3)
    assert np.all(np.any((np.abs(points) < 1e-12) | (np.abs(points - 1.0) < 1e-12), axis=1))


@pytest.mark.parametrize("n", [1, 2, 3])
def test_hexahedral_cube_skin(n):
    mp = MakeHexCube(tessera.Model(), n)
    skin = tessera.FindSkinFaces(mp)
    assert skin["node_ids"].shape == (6 * n * n, 4)
    assert skin["node_ids"].dtype == np.int64
    assert np.all(skin["nodes_number"] == 4)
    assert set(skin["geometries"]) == {"Quadrilateral3D4"}
    assert np.all((skin["local_faces"] >= 0) & (skin["local_faces"] < 6))
    order = np.lexsort((skin["local_faces"], skin["parent_ids"]))
    assert np.array_equal(order, np.arange(len(order))), "not ordered by parent then face"
    CheckUnitCubeSkin(mp, skin)


@pytest.mark.parametrize("n", [1, 2])
def test_tetrahedral_cube_skin(n):
    mp = MakeTetCube(tessera.Model(), n)
    skin = tessera.FindSkinFaces(mp)
    assert skin["node_ids"].shape == (12 * n * n, 3)
    assert set(skin["geometries"]) == {"Triangle3D3"}
    CheckUnitCubeSkin(mp, skin)


@pytest.mark.parametrize("element", ["Element2D3N", "Element2D4N"])
def test_square_boundary_edges(element):
    n = 4
    model = tessera.Model()
    mp = model.CreateModelPart("Square")
    for j in range(n + 1):
        for i in range(n + 1):
            mp.CreateNewNode(GridId(i, j, 0, n), i / n, j / n, 0.0)
    props = mp.GetProperties(1)
    element_id = 1
    for j in range(n):
        for i in range(n):
            a, b, c, d = (GridId(i, j, 0, n), GridId(i + 1, j, 0, n), GridId(i + 1, j + 1, 0, n),
                          GridId(i, j + 1, 0, n))
            cells = [[a, b, c, d]] if element == "Element2D4N" else [[a, b, c], [a, c, d]]
            for cell in cells:
                mp.CreateNewElement(element, element_id, cell, props)
                element_id += 1
    skin = tessera.FindSkinFaces(mp)
    assert skin["node_ids"].shape == (4 * n, 2)
    assert set(skin["geometries"]) == {"Line2D2"}
    x = FaceGeometry(mp, skin)
    tangent = x[:, 1] - x[:, 0]
    assert np.linalg.norm(tangent, axis=1).sum() == pytest.approx(4.0, abs=1e-12)
    normal = np.stack([tangent[:, 1], -tangent[:, 0]], axis=1)  # tangent turned by -90 degrees
    centres = x.mean(axis=1)[:, :2]
    on_side = (np.abs(centres) < 1e-12) | (np.abs(centres - 1.0) < 1e-12)
    outward = np.where(on_side, np.sign(centres - 0.5), 0.0)
    np.testing.assert_allclose(normal / np.linalg.norm(normal, axis=1)[:, None], outward, atol=1e-12)


def test_membranes_are_their_own_skin():
    model = tessera.Model()
    mp = model.CreateModelPart("Membrane")
    for node_id, xyz in enumerate([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 1)], start=1):
        mp.CreateNewNode(node_id, *xyz)
    mp.CreateNewElement("Element3D3N", 5, [1, 2, 3], mp.GetProperties(0))
    mp.CreateNewElement("Element3D3N", 4, [1, 3, 4], mp.GetProperties(0))
    skin = tessera.FindSkinFaces(mp)
    assert skin["parent_ids"].tolist() == [4, 5]
    assert skin["node_ids"].tolist() == [[1, 3, 4], [1, 2, 3]]
    assert skin["local_faces"].tolist() == [-1, -1]
    assert skin["geometries"] == ["Triangle3D3", "Triangle3D3"]


def test_internal_face_is_not_skin():
    model = tessera.Model()
    mp = model.CreateModelPart("Pair")
    for node_id, xyz in enumerate([(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1)], start=1):
        mp.CreateNewNode(node_id, *xyz)
    mp.CreateNewElement("Element3D4N", 1, [1, 2, 3, 4], mp.GetProperties(0))
    mp.CreateNewElement("Element3D4N", 2, [2, 5, 3, 4], mp.GetProperties(0))
    skin = tessera.FindSkinFaces(mp)
    assert len(skin["parent_ids"]) == 6
    assert {2, 3, 4} not in [set(face) for face in skin["node_ids"].tolist()]


def test_empty_model_part():
    skin = tessera.FindSkinFaces(tessera.Model().CreateModelPart("Empty"))
    assert skin["node_ids"].shape == (0, 0)
    assert skin["geometries"] == []


# ---------------------------------------------------------------- the process
def test_process_creates_skin_model_part_with_fresh_ids():
    n = 2
    model = tessera.Model()
    mp = MakeHexCube(model, n)
    # An existing condition: the new ids start above it.
    mp.CreateNewCondition("PointCondition3D1N", 100, [1], mp.GetProperties(0))
    bottom = mp.CreateSubModelPart("Bottom")
    bottom.AddNodes([GridId(i, j, 0, n) for i in range(n + 1) for j in range(n + 1)])
    process = tessera.SkinDetectionProcess(mp, tessera.Parameters(json.dumps({
        "list_model_parts_to_assign_conditions": ["Bottom"]})))
    process.Execute()
    skin = mp.GetSubModelPart("SkinModelPart")
    assert skin.NumberOfConditions() == 6 * n * n
    ids = sorted(condition.Id for condition in skin.Conditions)
    assert ids == list(range(101, 101 + 6 * n * n))
    assert mp.NumberOfConditions() == 6 * n * n + 1
    assert skin.NumberOfNodes() == (n + 1) ** 3 - (n - 1) ** 3
    for condition in skin.Conditions:
        assert condition.GetGeometry().Name() == "Quadrilateral3D4"
        assert condition.Properties.Id == 1  # the parent element's
        assert condition.Is(tessera.INTERFACE)
    # The conditions' node order is the outward one FindSkinFaces gives.
    faces = tessera.FindSkinFaces(mp)
    by_nodes = [[node.Id for node in condition.GetGeometry()] for condition in skin.Conditions]
    assert sorted(by_nodes) == sorted(faces["node_ids"].tolist())
    # Bottom holds the nodes of the z = 0 side only: its n^2 faces.
    assert bottom.NumberOfConditions() == n * n
    for condition in bottom.Conditions:
        assert all(node.Z == 0.0 for node in condition.GetGeometry())
    # A second detection into the same sub model part would duplicate it.
    with pytest.raises(tessera.Error, match="SkinModelPart"):
        process.Execute()


def test_process_kratos_names_and_settings():
    model = tessera.Model()
    mp = MakeHexCube(model, 1)
    assert tessera.SkinDetectionProcess3D is tessera.SkinDetectionProcess
    tessera.SkinDetectionProcess3D(mp, tessera.Parameters(
        '{"name_auxiliar_model_part": "Walls", "name_auxiliar_condition": "SurfaceCondition"}')).Execute()
    assert mp.GetSubModelPart("Walls").NumberOfConditions() == 6


def test_process_bad_settings_name_the_key():
    model = tessera.Model()
    mp = MakeHexCube(model, 1)
    with pytest.raises(tessera.Error, match="name_auxiliar_modelpart"):
        tessera.SkinDetectionProcess(mp, tessera.Parameters('{"name_auxiliar_modelpart": "Skin"}'))
    with pytest.raises(tessera.Error, match="name_auxiliar_condition.*NoSuchCondition3D4N"):
        tessera.SkinDetectionProcess(mp, tessera.Parameters(
            '{"name_auxiliar_condition": "NoSuchCondition"}')).Execute()
    with pytest.raises(tessera.Error, match="list_model_parts_to_assign_conditions.*Nowhere"):
        tessera.SkinDetectionProcess(mp, tessera.Parameters(
            '{"list_model_parts_to_assign_conditions": ["Nowhere"]}')).Execute()
    # Nothing was created by the failed runs.
    assert mp.NumberOfConditions() == 0


def Build(model, parameters):
    document = tessera.Parameters(json.dumps({"processes": {"list": [{
        "python_module": "skin_detection_process", "kratos_module": "KratosMultiphysics",
        "Parameters": parameters}]}}))
    return KratosProcessFactory(model).ConstructListOfProcesses(document["processes"]["list"])


def test_process_list_entry():
    model = tessera.Model()
    mp = MakeHexCube(model, 2, name="Structure")
    computing = mp.CreateSubModelPart("computing_domain")
    (process,) = Build(model, {"model_part_name": "Structure",
                               "computing_model_part_name": "Structure.computing_domain"})
    process.ExecuteInitialize()
    process.ExecuteInitialize()  # once only
    assert mp.GetSubModelPart("SkinModelPart").NumberOfConditions() == 24
    assert computing.NumberOfConditions() == 24
    with pytest.raises(tessera.Error, match="name_auxiliar_modelpart"):
        Build(model, {"model_part_name": "Structure", "name_auxiliar_modelpart": "X"})
    with pytest.raises(tessera.Error, match="recursive_detection"):
        Build(model, {"model_part_name": "Structure", "recursive_detection": True})
