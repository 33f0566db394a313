"""The kernel's data model from Python: Kratos-style API and numpy views.

The view tests are the point of the column store: writing through
`NodalArray` must change what `node.GetSolutionStepValue` returns, and the
reverse, with no copy in between.
"""
import numpy as np
import pytest

import tessera


@pytest.fixture
def plate():
    model = tessera.Model()
    mp = model.CreateModelPart("Main", buffer_size=2)
    for var in (tessera.DISPLACEMENT, tessera.TEMPERATURE, tessera.PARTITION_INDEX):
        mp.AddNodalSolutionStepVariable(var)
    for i in range(1, 7):
        mp.CreateNewNode(i, float(i), 2.0 * i, 0.0)
    return model, mp


def test_historical_view_writes_through_both_ways(plate):
    _, mp = plate
    u = mp.NodalArray(tessera.DISPLACEMENT)
    assert u.shape == (6, 3) and u.dtype == np.float64
    u[2, 1] = 4.5
    assert mp.GetNode(3).GetSolutionStepValue(tessera.DISPLACEMENT)[1] == 4.5
    assert mp.GetNode(3).GetSolutionStepValue(tessera.DISPLACEMENT_Y) == 4.5
    mp.GetNode(5).SetSolutionStepValue(tessera.DISPLACEMENT_Z, -1.25)
    assert u[4, 2] == -1.25  # the same memory, no copy


def test_component_view_is_strided_into_the_vector_column(plate):
    _, mp = plate
    uy = mp.NodalArray(tessera.DISPLACEMENT_Y)
    assert uy.shape == (6,)
    uy[:] = np.arange(6)
    np.testing.assert_array_equal(mp.NodalArray(tessera.DISPLACEMENT)[:, 1], np.arange(6))
    assert mp.GetNode(6).GetSolutionStepValue(tessera.DISPLACEMENT_Y) == 5.0


def test_scalar_int_and_nonhistorical_views(plate):
    _, mp = plate
    T = mp.NodalArray(tessera.TEMPERATURE)
    T += 273.15
    assert mp.GetNode(1).GetSolutionStepValue(tessera.TEMPERATURE) == pytest.approx(273.15)
    part = mp.NodalArray(tessera.PARTITION_INDEX)
    assert part.dtype == np.dtype(np.intc)
    part[3] = 7
    assert mp.GetNode(4).GetSolutionStepValue(tessera.PARTITION_INDEX) == 7
    area = mp.NodalValueArray(tessera.NODAL_AREA)  # non-historical: created on demand
    area[0] = 0.5
    assert mp.GetNode(1).GetValue(tessera.NODAL_AREA) == 0.5


def test_previous_step_views_and_buffer(plate):
    _, mp = plate
    mp.NodalArray(tessera.TEMPERATURE)[:] = 10.0
    mp.CloneTimeStep(0.5)
    mp.NodalArray(tessera.TEMPERATURE)[:] = 20.0
    np.testing.assert_array_equal(mp.NodalArray(tessera.TEMPERATURE, 1), np.full(6, 10.0))
    assert mp.GetNode(2).GetSolutionStepValue(tessera.TEMPERATURE, 1) == 10.0
    assert mp.ProcessInfo[tessera.TIME] == 0.5
    assert mp.ProcessInfo[tessera.DELTA_TIME] == 0.5
    with pytest.raises(tessera.Error, match="buffer"):
        mp.NodalArray(tessera.TEMPERATURE, 2)


def test_coordinates_view_moves_nodes(plate):
    _, mp = plate
    x = mp.NodalCoordinates()
    x[:, 2] += 1.0
    assert mp.GetNode(1).Z == 1.0
    assert mp.GetNode(1).Z0 == 0.0  # the initial configuration is separate
    np.testing.assert_array_equal(mp.NodeIds(), np.arange(1, 7))


def test_sub_model_part_rows_through_node_indices(plate):
    _, mp = plate
    sub = mp.CreateSubModelPart("Edge")
    sub.AddNodes([2, 5])
    with pytest.raises(tessera.Error, match="sub model part"):
        sub.NodalArray(tessera.TEMPERATURE)
    mp.NodalArray(tessera.TEMPERATURE)[sub.NodeIndices()] = 99.0
    assert [n.GetSolutionStepValue(tessera.TEMPERATURE) for n in sub.Nodes] == [99.0, 99.0]
    assert mp.GetNode(1).GetSolutionStepValue(tessera.TEMPERATURE) == 0.0


def test_kratos_style_model_api(plate):
    model, mp = plate
    inlet = mp.CreateSubModelPart("Inlets").CreateSubModelPart("Inlet1")
    inlet.AddNodes([1, 3])
    assert model.GetModelPart("Main.Inlets.Inlet1").NumberOfNodes() == 2
    assert mp.GetSubModelPart("Inlets").NumberOfNodes() == 2  # children belong to parents
    assert model.HasModelPart("Main.Inlets") and not model.HasModelPart("Main.Outlet")
    props = mp.GetProperties(1)
    props.SetValue(tessera.YOUNG_MODULUS, 2.1e11)
    props[tessera.POISSON_RATIO] = 0.3
    element = mp.CreateNewElement("Element2D3N", 1, [1, 2, 3], props)
    assert element.Properties.GetValue(tessera.YOUNG_MODULUS) == 2.1e11
    assert [n.Id for n in element.GetGeometry()] == [1, 2, 3]
    assert element.GetGeometry().DomainSize() == pytest.approx(0.0)  # collinear nodes
    mp.SetValue(tessera.AMBIENT_TEMPERATURE, 250.0)
    assert mp[tessera.AMBIENT_TEMPERATURE] == 250.0
    mp.ProcessInfo[tessera.STEP] = 3
    assert mp.ProcessInfo.GetValue(tessera.STEP) == 3
    assert tessera.GetVariable("VELOCITY_X").IsComponent()


def test_dofs_and_flags(plate):
    _, mp = plate
    node = mp.GetNode(2)
    node.AddDof(tessera.DISPLACEMENT_X, tessera.REACTION_X)
    node.GetDof(tessera.DISPLACEMENT_X).EquationId = 12
    assert node.GetDof(tessera.DISPLACEMENT_X).EquationId == 12
    node.Fix(tessera.DISPLACEMENT_X)
    assert node.IsFixed(tessera.DISPLACEMENT_X)
    with pytest.raises(tessera.Error, match="no degree of freedom DISPLACEMENT_Y"):
        node.GetDof(tessera.DISPLACEMENT_Y)
    node.Set(tessera.BOUNDARY)
    assert node.Is(tessera.BOUNDARY) and not mp.GetNode(1).Is(tessera.BOUNDARY)


def test_removal_from_all_levels(plate):
    _, mp = plate
    sub = mp.CreateSubModelPart("Sub")
    sub.AddNodes([1, 2, 3])
    mp.NodalArray(tessera.TEMPERATURE)[:] = np.arange(1, 7)
    mp.GetNode(2).Set(tessera.TO_ERASE)
    mp.RemoveNodesFromAllLevels(tessera.TO_ERASE)
    assert mp.NumberOfNodes() == 5 and sub.NumberOfNodes() == 2
    assert not mp.HasNode(2)
    assert mp.GetNode(3).GetSolutionStepValue(tessera.TEMPERATURE) == 3.0  # data moved with it


def test_a_node_an_element_uses_cannot_be_removed(plate):
    _, mp = plate
    props = mp.CreateNewProperties(1)
    mp.CreateNewElement("Element2D3N", 7, [1, 2, 3], props)
    mp.GetNode(2).Set(tessera.TO_ERASE)
    with pytest.raises(tessera.Error, match=r"cannot remove node 2: .*7.* still uses it"):
        mp.RemoveNodesFromAllLevels(tessera.TO_ERASE)
    assert mp.HasNode(2)


def test_errors_are_tessera_errors_with_helpful_text(plate):
    _, mp = plate
    with pytest.raises(tessera.Error, match="not a historical"):
        mp.GetNode(1).GetSolutionStepValue(tessera.PRESSURE)
    with pytest.raises(tessera.Error, match="did you mean DISPLACEMENT"):
        tessera.GetVariable("DISPLACEMNT")
    with pytest.raises(tessera.Error, match="no node 42"):
        mp.GetNode(42)
    with pytest.raises(tessera.Error, match="holds a 3-vector"):
        mp.GetNode(1).SetSolutionStepValue(tessera.DISPLACEMENT, "up")
    assert issubclass(tessera.Error, RuntimeError)
