"""Tests of tessera.ModelPartIO from Python with Kratos' API: reading the
Kratos core reader case (counts, values, fixity, flags, sub model parts; also
MESH_ONLY), writing and reading back, errors naming file:line, and the DEM
stage's renumbering reader."""
import os

import pytest

import tessera

CORE = os.path.join("core_model_part_io_read", "test_model_part_io_read")


@pytest.fixture
def core_path(kratos_cases):
    return os.path.join(kratos_cases, CORE)  # without ".mdpa", as Kratos passes it


def MakeMain(model=None):
    model = tessera.Model() if model is None else model
    model_part = model.CreateModelPart("Main")
    model_part.AddNodalSolutionStepVariable(tessera.DISPLACEMENT)
    model_part.AddNodalSolutionStepVariable(tessera.VISCOSITY)
    model_part.AddNodalSolutionStepVariable(tessera.VELOCITY)
    return model, model_part


def CheckCounts(model_part, mesh_only=False):
    assert model_part.NumberOfSubModelParts() == 2
    assert model_part.NumberOfTables() == (0 if mesh_only else 1)
    assert model_part.NumberOfProperties() == 1
    assert model_part.NumberOfNodes() == 6
    assert model_part.NumberOfGeometries() == 9
    assert model_part.NumberOfElements() == 4
    assert model_part.NumberOfConditions() == 5
    assert model_part.NumberOfMasterSlaveConstraints() == 2

    inlets = model_part.GetSubModelPart("Inlets")
    assert inlets.NumberOfTables() == (0 if mesh_only else 1)
    assert inlets.NumberOfProperties() == 0
    assert inlets.NumberOfNodes() == 3
    assert inlets.NumberOfGeometries() == 0
    assert inlets.NumberOfElements() == 1
    assert inlets.NumberOfConditions() == 3
    assert inlets.NumberOfSubModelParts() == 2
    assert inlets.HasNode(3)  # from its child Inlet1
    assert inlets.HasCondition(1801)  # from its child Inlet2

    inlet1 = model_part.GetSubModelPart("Inlets.Inlet1")
    assert inlet1.NumberOfTables() == 0
    assert inlet1.NumberOfProperties() == 0
    assert inlet1.NumberOfNodes() == 2
    assert inlet1.NumberOfElements() == 0
    assert inlet1.NumberOfConditions() == 2
    inlet2 = inlets.GetSubModelPart("Inlet2")
    assert inlet2.NumberOfNodes() == 0
    assert inlet2.NumberOfElements() == 0
    assert inlet2.NumberOfConditions() == 2

    outlet = model_part.GetSubModelPart("Outlet")
    assert outlet.NumberOfTables() == 0
    assert outlet.NumberOfProperties() == 1
    assert outlet.NumberOfNodes() == 0
    assert outlet.NumberOfElements() == 0
    assert outlet.NumberOfConditions() == 1
    assert outlet.NumberOfSubModelParts() == 0


def test_io_flags():
    assert (tessera.IO.READ, tessera.IO.WRITE, tessera.IO.MESH_ONLY) == (1, 2, 4)
    assert tessera.ModelPartIO("case", tessera.IO.READ | tessera.IO.MESH_ONLY).Flags == 5


def test_read_model_part(core_path):
    model, model_part = MakeMain()
    tessera.ModelPartIO(core_path).ReadModelPart(model_part)
    CheckCounts(model_part)

    assert model_part[tessera.AMBIENT_TEMPERATURE] == pytest.approx(250.0)
    assert list(model_part[tessera.DISPLACEMENT]) == pytest.approx([2.1, 3.2, 4.3])
    assert model_part[tessera.VELOCITY_X] == pytest.approx(3.8)
    assert model_part[tessera.VELOCITY_Y] == pytest.approx(4.9)
    assert model_part[tessera.VELOCITY_Z] == 0.0

    for node_id in (1, 2, 973, 974):
        node = model_part.GetNode(node_id)
        assert node.IsFixed(tessera.DISPLACEMENT_X)
        assert node.IsFixed(tessera.DISPLACEMENT_Y)
        assert node.IsFixed(tessera.DISPLACEMENT_Z)
        assert node.GetSolutionStepValue(tessera.VISCOSITY) == pytest.approx(0.01)
        assert node.Is(tessera.BOUNDARY)
    for node_id in (3, 972):
        node = model_part.GetNode(node_id)
        assert not node.IsFixed(tessera.DISPLACEMENT_X)
        assert not node.IsFixed(tessera.DISPLACEMENT_Y)
        assert not node.IsFixed(tessera.DISPLACEMENT_Z)
        assert node.GetSolutionStepValue(tessera.VISCOSITY) == 0.0
        assert not node.Is(tessera.BOUNDARY)

    expected_x = {1: 0.1, 2: 0.2}
    expected_y = {973: 0.000973, 974: 0.000974}
    for node in model_part.Nodes:
        assert node.GetSolutionStepValue(tessera.DISPLACEMENT_X) == pytest.approx(expected_x.get(node.Id, 0.0))
        assert node.GetSolutionStepValue(tessera.DISPLACEMENT_Y) == pytest.approx(expected_y.get(node.Id, 0.0))
        assert node.GetSolutionStepValue(tessera.DISPLACEMENT_Z) == 0.0
    assert list(model_part.GetNode(1).GetSolutionStepValue(tessera.VELOCITY)) == pytest.approx([1.1, 2.2, 3.3])

    properties = model_part.GetProperties(1)
    assert properties[tessera.IS_RESTARTED] is True
    assert properties[tessera.COMPUTE_DYNAMIC_TANGENT] is False
    assert properties[tessera.COMPUTE_LUMPED_MASS_MATRIX] is False
    assert properties[tessera.DENSITY] == pytest.approx(3.4e-5)
    assert list(properties[tessera.VOLUME_ACCELERATION]) == pytest.approx([0.0, 0.0, 9.8])
    tensor = properties[tessera.LOCAL_INERTIA_TENSOR]
    expected = [[0, 0.27, 0.27], [0.087, 0, 0.27], [0.075, 0.23, 0]]
    for i in range(3):
        for j in range(3):
            assert tensor[i][j] == pytest.approx(expected[i][j])
    assert properties.HasTable(tessera.TEMPERATURE, tessera.VISCOSITY)
    assert properties.GetTable(tessera.TEMPERATURE, tessera.VISCOSITY).GetValue(250.0) == pytest.approx(2.5e-6)
    assert model_part.GetTable(1).GetValue(300.0) == pytest.approx(3e-6)

    inlets = model_part.GetSubModelPart("Inlets")
    assert inlets[tessera.IS_RESTARTED] is True
    assert inlets[tessera.COMPUTE_LUMPED_MASS_MATRIX] is True
    assert inlets[tessera.COMPUTE_DYNAMIC_TANGENT] is False


def test_read_model_part_mesh_only(core_path):
    model, model_part = MakeMain()
    tessera.ModelPartIO(core_path, tessera.IO.READ | tessera.IO.MESH_ONLY).ReadModelPart(model_part)
    CheckCounts(model_part, mesh_only=True)
    assert not model_part.GetProperties(1).Has(tessera.DENSITY)
    assert not model_part.GetNode(1).IsFixed(tessera.DISPLACEMENT_X)
    assert not model_part.GetNode(1).Is(tessera.BOUNDARY)


def test_write_and_read_back(core_path, tmp_path):
    model, model_part = MakeMain()
    tessera.ModelPartIO(core_path).ReadModelPart(model_part)
    written = tmp_path / "written"  # a pathlib.Path, without the suffix
    tessera.ModelPartIO(written, tessera.IO.WRITE).WriteModelPart(model_part)
    assert (tmp_path / "written.mdpa").is_file()

    model2, back = MakeMain()
    tessera.ModelPartIO(str(written) + ".mdpa").ReadModelPart(back)
    CheckCounts(back)
    for node in model_part.Nodes:
        other = back.GetNode(node.Id)
        assert list(other.Coordinates()) == list(node.Coordinates())
        assert other.GetSolutionStepValue(tessera.DISPLACEMENT_X) == node.GetSolutionStepValue(tessera.DISPLACEMENT_X)
        assert other.IsFixed(tessera.DISPLACEMENT_Y) == node.IsFixed(tessera.DISPLACEMENT_Y)
        assert other.Is(tessera.BOUNDARY) == node.Is(tessera.BOUNDARY)
    assert back.GetProperties(1)[tessera.DENSITY] == model_part.GetProperties(1)[tessera.DENSITY]


def test_errors_name_file_and_line(tmp_path):
    bad = tmp_path / "bad.mdpa"
    bad.write_text("Begin Nodes\n1 0 0 0\n2 0.5 x 0\nEnd Nodes\n")
    model = tessera.Model()
    model_part = model.CreateModelPart("Main")
    with pytest.raises(tessera.Error, match=r"bad\.mdpa:3: expected the y coordinate of node 2, got 'x'"):
        tessera.ModelPartIO(bad).ReadModelPart(model_part)

    unknown = tmp_path / "unknown.mdpa"
    unknown.write_text("Begin Nodes\n1 0 0 0\nEnd Nodes\n\nBegin Elements NoSuchParticle3D// GUI\n1 0 1\nEnd Elements\n")
    with pytest.raises(tessera.Error, match=r"unknown\.mdpa:5: unknown element 'NoSuchParticle3D'"):
        tessera.ModelPartIO(unknown).ReadModelPart(tessera.Model().CreateModelPart("Main"))

    with pytest.raises(tessera.Error, match="no_such_case.mdpa"):
        tessera.ModelPartIO(tmp_path / "no_such_case").ReadModelPart(model_part)
    with pytest.raises(tessera.Error, match="IO.WRITE"):
        tessera.ModelPartIO(tmp_path / "x").WriteModelPart(model_part)


DEM_LIKE = """Begin Properties 1
End Properties
Begin Nodes
   14  -0.6207122029  -0.0334263737   0.40
   15   0.0571238433  -0.6138121976   0.42
   20  -0.0204349663   0.6108070372   0.44
   21   0.6079066827   0.0564456333   0.46
End Nodes
Begin Elements Element3D1N// GUI group identifier: Body
        1          1    14
        4          1    21
        5          1    20
        6          1    15
End Elements
Begin NodalData RADIUS // GUI group identifier: Body
         14 0   0.326364
         21 0   0.298592
         20 0    0.35679
         15 0   0.327858
End NodalData
Begin SubModelPart Parts_Body
    Begin SubModelPartNodes
           14
           21
    End SubModelPartNodes
End SubModelPart
"""


def test_renumbering_reader(tmp_path):
    path = tmp_path / "spheresDEM.mdpa"
    path.write_text(DEM_LIKE)
    model = tessera.Model()
    spheres = model.CreateModelPart("SpheresPart")
    spheres.AddNodalSolutionStepVariable(tessera.RADIUS)
    tessera.ReorderConsecutiveFromGivenIdsModelPartIO(str(path)[:-5], 0, 0, 0).ReadModelPart(spheres)
    assert sorted(node.Id for node in spheres.Nodes) == [1, 2, 3, 4]  # were 14, 15, 20, 21
    assert spheres.GetNode(2).GetSolutionStepValue(tessera.RADIUS) == pytest.approx(0.327858)  # node 15
    assert spheres.GetElement(2).GetGeometry()[0].Id == 4  # element 4 on node 21
    assert spheres.GetSubModelPart("Parts_Body").HasNode(4)

    walls = model.CreateModelPart("RigidFacePart")
    tessera.ModelPartIO(path, renumber=True, node_id_offset=5, element_id_offset=4).ReadModelPart(walls)
    assert sorted(node.Id for node in walls.Nodes) == [6, 7, 8, 9]
    assert walls.HasElement(5) and walls.HasElement(8)
