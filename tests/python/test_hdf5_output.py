"""HDF5 results output (tessera.Hdf5Output, hdf5_output_process): h5py reads
back the mesh, the sub model parts and every variable, which must equal the
model part's values bit for bit (tolerance 0); the XDMF descriptor is valid XML
whose every DataItem names an existing dataset of the stated shape; VTK's XDMF
reader opens it where the installed VTK has one, and ParaView's own reader
(pvbatch, Debian's python3-paraview) reads back the same values."""
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import tessera
from tessera.output import hdf5_output_process

h5py = pytest.importorskip("h5py", reason="python3-h5py is not installed "
                                          "(scripts/install_dependencies.sh installs it)")


# ------------------------------------------------------------------ the model
def make_model():
    """Two unit hexahedra side by side, a triangle condition, sub model parts
    (one nested); TEMPERATURE and DISPLACEMENT historical."""
    model = tessera.Model()
    mp = model.CreateModelPart("Main")
    mp.AddNodalSolutionStepVariable(tessera.TEMPERATURE)
    mp.AddNodalSolutionStepVariable(tessera.DISPLACEMENT)
    coordinates = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1),
                   (1, 1, 1), (0, 1, 1), (2, 0, 0), (2, 1, 0), (2, 0, 1), (2, 1, 1)]
    nodes = [mp.CreateNewNode(i + 1, x + 0.1 * i, y / 3.0, z * 0.7)
             for i, (x, y, z) in enumerate(coordinates)]
    mp.CreateNewElement("Element3D8N", 1, [1, 2, 3, 4, 5, 6, 7, 8], mp.GetProperties(0))
    mp.CreateNewElement("Element3D8N", 2, [2, 9, 10, 3, 6, 11, 12, 7], mp.GetProperties(3))
    mp.CreateNewCondition("SurfaceCondition3D3N", 1, [1, 2, 3], mp.GetProperties(0))
    mp.CreateNewCondition("SurfaceCondition3D4N", 2, [9, 10, 12, 11], mp.GetProperties(0))
    right = mp.CreateSubModelPart("Right")
    right.AddNodes([9, 10, 11, 12])
    right.AddElements([2])
    right.AddConditions([2])
    right.CreateSubModelPart("Corner").AddNodes([10])
    mp.CreateSubModelPart("Bottom").AddConditions([1])
    return model, mp, nodes


def set_values(mp, nodes, step):
    """Values that differ per node and step, not round in binary."""
    for node in nodes:
        node.SetSolutionStepValue(tessera.TEMPERATURE, 100.0 * step + node.Id / 7.0)
        node.SetSolutionStepValue(tessera.DISPLACEMENT, [0.5 * step, 1.0 / node.Id, -0.3 * node.Id])
        node.SetValue(tessera.VELOCITY, [step / 3.0, node.Id / 11.0, 0.0])
        node.SetValue(tessera.PRESSURE, step * 0.1 + node.Id)
    for element in mp.Elements:
        element.SetValue(tessera.TEMPERATURE, element.Id / 3.0 + step)
        element.SetValue(tessera.STRESS_VECTOR, [step + element.Id / 7.0 + k for k in range(6)])
    for condition in mp.Conditions:
        condition.SetValue(tessera.PRESSURE, step * 1.1 + condition.Id)


def run(process, mp, nodes, times):
    """The analysis stage's loop over the process hooks; returns the steps written
    and the model's values at each of them."""
    process.ExecuteInitialize()
    process.ExecuteBeforeSolutionLoop()
    snapshots = {}
    for step, time in enumerate(times, start=1):
        mp.CloneTimeStep(time)
        mp.ProcessInfo[tessera.STEP] = step
        set_values(mp, nodes, step)
        process.ExecuteInitializeSolutionStep()
        process.ExecuteFinalizeSolutionStep()
        if process.IsOutputStep():
            process.ExecuteBeforeOutputStep()
            process.PrintOutput()
            process.ExecuteAfterOutputStep()
            snapshots[step] = snapshot(mp, time)
    process.ExecuteFinalize()
    return snapshots


def snapshot(mp, time):
    nodes = list(mp.Nodes)
    return {
        "TIME": time,
        "TEMPERATURE": np.array([n.GetSolutionStepValue(tessera.TEMPERATURE) for n in nodes]),
        "DISPLACEMENT": np.array([n.GetSolutionStepValue(tessera.DISPLACEMENT) for n in nodes]),
        "VELOCITY": np.array([n.GetValue(tessera.VELOCITY) for n in nodes]),
        "PRESSURE": np.array([n.GetValue(tessera.PRESSURE) for n in nodes]),
        "E_TEMPERATURE": np.array([e.GetValue(tessera.TEMPERATURE) for e in mp.Elements]),
        "E_STRESS_VECTOR": np.array([e.GetValue(tessera.STRESS_VECTOR) for e in mp.Elements]),
        "C_PRESSURE": np.array([c.GetValue(tessera.PRESSURE) for c in mp.Conditions]),
    }


def settings(path, **parameters):
    parameters = {"model_part_name": "Main", "output_path": str(path),
                  "nodal_solution_step_data_variables": ["TEMPERATURE", "DISPLACEMENT"],
                  "nodal_data_value_variables": ["VELOCITY", "PRESSURE"],
                  "element_data_value_variables": ["TEMPERATURE", "STRESS_VECTOR"],
                  "condition_data_value_variables": ["PRESSURE"],
                  **parameters}
    return tessera.Parameters(json.dumps({"python_module": "hdf5_output_process",
                                          "kratos_module": "KratosMultiphysics",
                                          "Parameters": parameters}))


def exact(a, b):
    """Bitwise equality of two float arrays (shape and every bit)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    assert a.tobytes() == b.tobytes()


# ------------------------------------------------------------------ mesh and results
def check_mesh(group, mp):
    nodes = list(mp.Nodes)
    exact(group["Nodes/Local/Ids"][()], np.array([n.Id for n in nodes], dtype=np.int64))
    exact(group["Nodes/Local/Coordinates"][()],
          np.array([n.GetInitialPosition() for n in nodes], dtype=np.float64))
    hexa = group["Elements/Hexahedra3D8"]
    exact(hexa["Ids"][()], np.array([1, 2], dtype=np.int64))
    exact(hexa["Connectivities"][()], np.array([[1, 2, 3, 4, 5, 6, 7, 8],
                                                [2, 9, 10, 3, 6, 11, 12, 7]], dtype=np.int64))
    exact(hexa["PropertiesIds"][()], np.array([0, 3], dtype=np.int64))
    assert hexa.attrs["NumberOfNodes"] == 8
    assert set(group["Conditions"]) == {"Triangle3D3", "Quadrilateral3D4"}
    exact(group["Conditions/Quadrilateral3D4/Connectivities"][()],
          np.array([[9, 10, 12, 11]], dtype=np.int64))
    # Sub model parts: Kratos' ids, and index sets into the rows above.
    right = group["SubModelParts/Right"]
    exact(right["Nodes/Ids"][()], np.array([9, 10, 11, 12], dtype=np.int64))
    exact(right["NodeIndices"][()], np.array([8, 9, 10, 11], dtype=np.int64))
    exact(right["Elements/Hexahedra3D8/Ids"][()], np.array([2], dtype=np.int64))
    exact(right["ElementIndices"][()], np.array([1], dtype=np.int64))
    exact(right["Conditions/Quadrilateral3D4/Ids"][()], np.array([2], dtype=np.int64))
    exact(right["ConditionIndices"][()], np.array([1], dtype=np.int64))
    exact(right["Corner/Nodes/Ids"][()], np.array([10], dtype=np.int64))
    exact(right["Corner/NodeIndices"][()], np.array([9], dtype=np.int64))
    exact(group["SubModelParts/Bottom/ConditionIndices"][()], np.array([0], dtype=np.int64))
    assert group["SubModelParts/Bottom/NodeIndices"].shape == (0,)
    # The XDMF's 0-based topology.
    exact(group["Xdmf/Elements/Topology"][()],
          np.array([[0, 1, 2, 3, 4, 5, 6, 7], [1, 8, 9, 2, 5, 10, 11, 6]], dtype=np.int64))


def check_results(group, values, step):
    assert group.attrs["TIME"] == values["TIME"]
    assert group.attrs["STEP"] == step
    exact(group["NodalSolutionStepData/TEMPERATURE"][()], values["TEMPERATURE"])
    exact(group["NodalSolutionStepData/DISPLACEMENT"][()], values["DISPLACEMENT"])
    exact(group["NodalDataValues/VELOCITY"][()], values["VELOCITY"])
    exact(group["NodalDataValues/PRESSURE"][()], values["PRESSURE"])
    exact(group["ElementDataValues/TEMPERATURE"][()], values["E_TEMPERATURE"])
    exact(group["ElementDataValues/STRESS_VECTOR"][()], values["E_STRESS_VECTOR"])
    exact(group["ConditionDataValues/PRESSURE"][()], values["C_PRESSURE"])


def test_single_file_reads_back_bit_for_bit(tmp_path):
    model, mp, nodes = make_model()
    process = hdf5_output_process.Factory(settings(tmp_path / "h5"), model)
    assert isinstance(process, tessera.Process)
    snapshots = run(process, mp, nodes, [0.1 * s for s in range(1, 4)])
    assert sorted(os.listdir(tmp_path / "h5")) == ["Main.h5", "Main.xdmf"]
    with h5py.File(tmp_path / "h5" / "Main.h5", "r") as f:
        assert f.attrs["TesseraHdf5LayoutVersion"] == 1
        assert f["ModelData"].attrs["__model_part_name"] == "Main"
        check_mesh(f["ModelData"], mp)
        assert sorted(f["ResultsData"]) == ["1", "2", "3"]
        for step, values in snapshots.items():
            group = f[f"ResultsData/{step}"]
            assert group.attrs["ModelData"] == "/ModelData"  # the mesh did not change
            assert "ModelData" not in group
            check_results(group, values, step)
        # Chunked, uncompressed by default.
        dataset = f["ResultsData/1/NodalSolutionStepData/DISPLACEMENT"]
        assert dataset.chunks is not None and dataset.compression is None


def test_file_per_step_links_an_unchanged_mesh(tmp_path):
    model, mp, nodes = make_model()
    process = hdf5_output_process.Factory(
        settings(tmp_path, file_mode="file_per_step", output_interval=2), model)
    snapshots = run(process, mp, nodes, [0.25 * s for s in range(1, 6)])
    assert sorted(snapshots) == [2, 4]
    assert sorted(os.listdir(tmp_path)) == ["Main.xdmf", "Main_2.h5", "Main_4.h5"]
    with h5py.File(tmp_path / "Main_4.h5", "r") as f:
        # Kratos' layout: /ResultsData holds the step; /ModelData is a link to
        # the file that holds the (unchanged) mesh, which h5py follows.
        link = f.get("ModelData", getlink=True)
        assert isinstance(link, h5py.ExternalLink) and link.filename == "Main_2.h5"
        check_mesh(f["ModelData"], mp)
        check_results(f["ResultsData"], snapshots[4], 4)
        assert f["ResultsData"].attrs["ModelDataFile"] == "Main_2.h5"
    with h5py.File(tmp_path / "Main_2.h5", "r") as f:
        assert isinstance(f.get("ModelData", getlink=True), h5py.HardLink)
        check_results(f["ResultsData"], snapshots[2], 2)


def test_a_changed_mesh_is_written_again(tmp_path):
    model, mp, nodes = make_model()
    writer = tessera.Hdf5Output(mp, tessera.Parameters(json.dumps(
        {"output_path": str(tmp_path), "nodal_solution_step_data_variables": ["TEMPERATURE"],
         "file_label": "time"})))
    mp.CloneTimeStep(0.5)
    mp.ProcessInfo[tessera.STEP] = 1
    writer.PrintOutput()
    nodes.append(mp.CreateNewNode(13, 5.0, 5.0, 5.0))
    mp.CloneTimeStep(1.0)
    mp.ProcessInfo[tessera.STEP] = 2
    for node in nodes:
        node.SetSolutionStepValue(tessera.TEMPERATURE, node.Id * 0.5)
    writer.PrintOutput()
    with h5py.File(tmp_path / "Main.h5", "r") as f:
        assert sorted(f["ResultsData"]) == ["0.5", "1"]  # labelled by TIME
        assert f["ModelData/Nodes/Local/Ids"].shape == (12,)
        second = f["ResultsData/1"]
        assert second.attrs["ModelData"] == "/ResultsData/1/ModelData"
        exact(second["ModelData/Nodes/Local/Ids"][()], np.arange(1, 14, dtype=np.int64))
        exact(second["NodalSolutionStepData/TEMPERATURE"][()], np.arange(1, 14) * 0.5)


def test_writing_a_step_again_replaces_it(tmp_path):
    model, mp, nodes = make_model()
    writer = tessera.Hdf5Output(mp, tessera.Parameters(json.dumps(
        {"output_path": str(tmp_path), "nodal_solution_step_data_variables": ["TEMPERATURE"]})))
    mp.ProcessInfo[tessera.STEP] = 4
    set_values(mp, nodes, 1)
    writer.PrintOutput()
    set_values(mp, nodes, 2)
    writer.PrintOutput()
    with h5py.File(tmp_path / "Main.h5", "r") as f:
        assert list(f["ResultsData"]) == ["4"]
        exact(f["ResultsData/4/NodalSolutionStepData/TEMPERATURE"][()],
              np.array([200.0 + n.Id / 7.0 for n in nodes]))
    root = ET.parse(tmp_path / "Main.xdmf").getroot()
    assert len(root.findall("Domain/Grid/Grid")) == 1


def test_compression(tmp_path):
    for level, expected in ((True, 4), (9, 9)):
        model, mp, nodes = make_model()
        path = tmp_path / str(level)
        process = hdf5_output_process.Factory(settings(path, compression=level), model)
        snapshots = run(process, mp, nodes, [1.0])
        with h5py.File(path / "Main.h5", "r") as f:
            dataset = f["ResultsData/1/NodalSolutionStepData/DISPLACEMENT"]
            assert dataset.compression == "gzip" and dataset.compression_opts == expected
            assert dataset.shuffle and dataset.chunks is not None
            check_results(f["ResultsData/1"], snapshots[1], 1)
            check_mesh(f["ModelData"], mp)


# ------------------------------------------------------------------ XDMF
def data_items(path):
    """(grid, [(DataItem element, file, dataset path)]) for every time step."""
    root = ET.parse(path).getroot()
    assert root.tag == "Xdmf"
    collection = root.find("Domain/Grid")
    assert collection.get("CollectionType") == "Temporal"
    for grid in collection.findall("Grid"):
        items = []
        for item in grid.iter("DataItem"):
            assert item.get("Format") == "HDF"
            file, dataset = item.text.strip().split(":")
            items.append((item, file, dataset))
        yield grid, items


def check_xdmf(path):
    """Every DataItem names an existing dataset with the stated shape and type;
    returns the grids' times."""
    folder = os.path.dirname(path)
    times = []
    for grid, items in data_items(path):
        times.append(float(grid.find("Time").get("Value")))
        for item, file, dataset in items:
            with h5py.File(os.path.join(folder, file), "r") as f:
                assert dataset in f, (file, dataset)
                data = f[dataset]
                shape = tuple(int(d) for d in item.get("Dimensions").split())
                assert data.shape == shape, (dataset, data.shape, shape)
                kind = "Int" if data.dtype.kind == "i" else "Float"
                assert item.get("NumberType") == kind, dataset
                assert int(item.get("Precision")) == data.dtype.itemsize, dataset
        points = int(grid.find("Geometry/DataItem").get("Dimensions").split()[0])
        topology = grid.find("Topology")
        cells = int(topology.get("NumberOfElements"))
        for attribute in grid.findall("Attribute"):
            rows = int(attribute.find("DataItem").get("Dimensions").split()[0])
            assert rows == (points if attribute.get("Center") == "Node" else cells)
    return times


def test_xdmf_references_existing_datasets(tmp_path):
    for mode in ("single_file", "file_per_step"):
        model, mp, nodes = make_model()
        path = tmp_path / mode
        process = hdf5_output_process.Factory(settings(path, file_mode=mode), model)
        run(process, mp, nodes, [0.1, 0.2])
        assert check_xdmf(str(path / "Main.xdmf")) == [0.1, 0.2]
        grid = next(data_items(path / "Main.xdmf"))[0]
        assert grid.find("Topology").get("TopologyType") == "Hexahedron"
        assert grid.find("Topology").get("NumberOfElements") == "2"
        names = {(a.get("Name"), a.get("Center"), a.get("AttributeType"))
                 for a in grid.findall("Attribute")}
        assert ("DISPLACEMENT", "Node", "Vector") in names
        assert ("TEMPERATURE", "Cell", "Scalar") in names
        assert ("STRESS_VECTOR", "Cell", "Matrix") in names
        # Condition data are not cell data of the element grid.
        assert not any(name == "PRESSURE" and center == "Cell" for name, center, _ in names)


def test_xdmf_of_mixed_cells_and_deformed_coordinates(tmp_path):
    model, mp, nodes = make_model()
    mp.CreateNewElement("Element3D4N", 3, [9, 10, 11, 12], mp.GetProperties(0))
    for node in nodes:
        node.X += 0.25
    process = hdf5_output_process.Factory(settings(tmp_path, write_deformed_configuration=True),
                                          model)
    run(process, mp, nodes, [1.0])
    check_xdmf(str(tmp_path / "Main.xdmf"))
    grid = next(data_items(tmp_path / "Main.xdmf"))[0]
    assert grid.find("Topology").get("TopologyType") == "Mixed"
    assert grid.find("Geometry/DataItem").text.endswith(":/ResultsData/1/NodalCoordinates")
    with h5py.File(tmp_path / "Main.h5", "r") as f:
        # XDMF Mixed: per cell its type code (Hexahedron 9, Tetrahedron 6), then its nodes.
        exact(f["ModelData/Xdmf/Elements/Topology"][()],
              np.array([9, 0, 1, 2, 3, 4, 5, 6, 7, 9, 1, 8, 9, 2, 5, 10, 11, 6,
                        6, 8, 9, 10, 11], dtype=np.int64))
        exact(f["ResultsData/1/NodalCoordinates"][()],
              np.array([[n.X, n.Y, n.Z] for n in mp.Nodes]))
        exact(f["ModelData/Nodes/Local/Coordinates"][()],
              np.array([n.GetInitialPosition() for n in mp.Nodes]))


def test_nodes_with_radius_are_points_with_radius(tmp_path):
    """A node cloud (the DEM spheres' case without elements): Polyvertex cells,
    RADIUS point data from the mesh."""
    model = tessera.Model()
    cloud = model.CreateModelPart("Cloud")
    cloud.AddNodalSolutionStepVariable(tessera.RADIUS)
    for i in range(1, 5):
        cloud.CreateNewNode(i, 0.0, float(i), 0.0).SetSolutionStepValue(tessera.RADIUS, 0.1 * i)
    writer = tessera.Hdf5Output(cloud, tessera.Parameters(json.dumps({"output_path": str(tmp_path)})))
    writer.PrintOutput()
    check_xdmf(str(tmp_path / "Cloud.xdmf"))
    grid = next(data_items(tmp_path / "Cloud.xdmf"))[0]
    topology = grid.find("Topology")
    assert (topology.get("TopologyType"), topology.get("NumberOfElements"),
            topology.get("NodesPerElement")) == ("Polyvertex", "4", "1")
    radius = grid.find("Attribute[@Name='RADIUS']/DataItem")
    assert radius.text.endswith(":/ModelData/Xdmf/RADIUS")
    with h5py.File(tmp_path / "Cloud.h5", "r") as f:
        exact(f["ModelData/Xdmf/RADIUS"][()], np.array([0.1 * i for i in range(1, 5)]))


def test_dem_spheres_are_points_with_radius(tmp_path):
    pytest.importorskip("tessera.dem", reason="the dem application is not built")
    from tessera import _dem
    model = tessera.Model()
    spheres = model.CreateModelPart("SpheresPart")
    _dem.DeclareParticleVariables(spheres, elastic_forces=False)
    properties = spheres.GetProperties(1)
    for i in range(1, 4):
        node = spheres.CreateNewNode(i, 0.3 * i, 0.0, 0.0)
        node.SetSolutionStepValue(tessera.RADIUS, 0.01 * i)
        node.SetSolutionStepValue(tessera.VELOCITY, [i, 0.0, -i / 3.0])
        spheres.CreateNewElement("SphericParticle3D", i, [i], properties)
    writer = tessera.Hdf5Output(spheres, tessera.Parameters(json.dumps(
        {"output_path": str(tmp_path), "nodal_solution_step_data_variables": ["VELOCITY"]})))
    writer.PrintOutput()
    check_xdmf(str(tmp_path / "SpheresPart.xdmf"))
    grid = next(data_items(tmp_path / "SpheresPart.xdmf"))[0]
    assert grid.find("Topology").get("TopologyType") == "Polyvertex"
    assert grid.find("Attribute[@Name='RADIUS']") is not None
    with h5py.File(tmp_path / "SpheresPart.h5", "r") as f:
        assert list(f["ModelData/Elements"]) == ["Sphere3D1"]
        exact(f["ModelData/Xdmf/RADIUS"][()], np.array([0.01, 0.02, 0.03]))
        exact(f["ResultsData/0/NodalSolutionStepData/VELOCITY"][()],
              np.array([[i, 0.0, -i / 3.0] for i in range(1, 4)]))


def _vtk_xdmf_reader():
    try:
        import vtk  # noqa: F401
    except ImportError:
        pytest.skip("python3-vtk9 is not installed: VTK's XDMF reader check is skipped")
    for module, name in (("vtkmodules.vtkIOXdmf2", "vtkXdmfReader"),
                         ("vtkmodules.vtkIOXdmf3", "vtkXdmf3Reader")):
        try:
            return getattr(__import__(module, fromlist=[name]), name)()
        except (ImportError, AttributeError):
            continue
    pytest.skip("the installed VTK has no XDMF reader (Debian's python3-vtk9 is built without "
                "vtkIOXdmf2/vtkIOXdmf3): VTK's XDMF reader check is skipped")


def test_vtk_xdmf_reader_opens_the_series(tmp_path):
    reader = _vtk_xdmf_reader()
    model, mp, nodes = make_model()
    process = hdf5_output_process.Factory(settings(tmp_path), model)
    run(process, mp, nodes, [0.1, 0.2])
    reader.SetFileName(str(tmp_path / "Main.xdmf"))
    reader.UpdateInformation()
    reader.UpdateTimeStep(0.2)
    output = reader.GetOutputDataObject(0)
    if output.IsA("vtkMultiBlockDataSet"):
        output = output.GetBlock(0)
    assert output.GetNumberOfPoints() == 12
    assert output.GetNumberOfCells() == 2
    temperature = output.GetPointData().GetArray("TEMPERATURE")
    assert temperature.GetValue(0) == 200.0 + 1 / 7.0


def paraview_read(xdmf):
    """Every time step of `xdmf` as ParaView's Xdmf3 reader sees it (pvbatch
    runs paraview_xdmf_dump.py); skipped where ParaView is not installed."""
    pvbatch = shutil.which("pvbatch")
    if pvbatch is None:
        pytest.skip("ParaView (Debian's python3-paraview, installed by `make test`) is not "
                    "installed: ParaView's XDMF reader check is skipped")
    script = os.path.join(os.path.dirname(__file__), "paraview_xdmf_dump.py")
    # An absolute path: ParaView's Xdmf3 resolves the .h5 names against the
    # folder of the .xdmf, which a bare file name lacks.
    run = subprocess.run([pvbatch, script, os.path.abspath(xdmf)], capture_output=True, text=True,
                         timeout=300)
    lines = [line for line in run.stdout.splitlines() if line.startswith("JSON")]
    assert run.returncode == 0 and lines, run.stdout[-2000:] + run.stderr[-4000:]
    return json.loads(lines[-1][4:])


def test_paraview_xdmf_reader_reads_the_series(tmp_path):
    """ParaView's own reader: the time series, the cells (VTK_HEXAHEDRON 12),
    the current coordinates and every point and cell array equal the model's
    values bit for bit, for one file per run and one file per step."""
    for mode in ("single_file", "file_per_step"):
        model, mp, nodes = make_model()
        path = tmp_path / mode
        process = hdf5_output_process.Factory(
            settings(path, file_mode=mode, write_deformed_configuration=True), model)
        for node in nodes:
            node.X += 0.125
        snapshots = run(process, mp, nodes, [0.1, 0.2])
        seen = paraview_read(path / "Main.xdmf")
        assert seen["times"] == [0.1, 0.2]
        for (step, values), grid in zip(sorted(snapshots.items()), seen["steps"]):
            assert (grid["points"], grid["cells"], grid["cell_types"]) == (12, 2, [12, 12])
            exact(np.array(grid["coordinates"]), np.array([[n.X, n.Y, n.Z] for n in mp.Nodes]))
            for name in ("TEMPERATURE", "DISPLACEMENT", "VELOCITY", "PRESSURE"):
                exact(np.array(grid["point_data"][name]), values[name])
            exact(np.array(grid["cell_data"]["TEMPERATURE"]), values["E_TEMPERATURE"])
            # STRESS_VECTOR (2 x 6) is an XDMF Matrix: ParaView flattens its rows.
            exact(np.array(grid["cell_data"]["STRESS_VECTOR"]).reshape(2, 6),
                  values["E_STRESS_VECTOR"])


def test_paraview_reads_dem_spheres_as_points_with_radius(tmp_path):
    pytest.importorskip("tessera.dem", reason="the dem application is not built")
    from tessera import _dem
    model = tessera.Model()
    spheres = model.CreateModelPart("SpheresPart")
    _dem.DeclareParticleVariables(spheres, elastic_forces=False)
    for i in range(1, 6):
        node = spheres.CreateNewNode(i, 0.3 * i, 0.1 / i, 0.0)
        node.SetSolutionStepValue(tessera.RADIUS, 0.01 * i)
        node.SetSolutionStepValue(tessera.VELOCITY, [i, 0.0, -i / 3.0])
        spheres.CreateNewElement("SphericParticle3D", i, [i], spheres.GetProperties(1))
    writer = tessera.Hdf5Output(spheres, tessera.Parameters(json.dumps(
        {"output_path": str(tmp_path), "nodal_solution_step_data_variables": ["VELOCITY"]})))
    writer.PrintOutput()
    grid = paraview_read(tmp_path / "SpheresPart.xdmf")["steps"][0]
    # One VTK_POLY_VERTEX (2) of one point per sphere.
    assert (grid["points"], grid["cells"], set(grid["cell_types"])) == (5, 5, {2})
    exact(np.array(grid["point_data"]["RADIUS"]), np.array([0.01 * i for i in range(1, 6)]))
    exact(np.array(grid["point_data"]["VELOCITY"]),
          np.array([[i, 0.0, -i / 3.0] for i in range(1, 6)]))


# ------------------------------------------------------------------ flags
def test_flags_are_int32_datasets_and_xdmf_attributes(tmp_path):
    model, mp, nodes = make_model()
    for node in nodes:
        node.Set(tessera.BOUNDARY, node.Id % 3 == 0)
    mp.GetElement(2).Set(tessera.ACTIVE, True)
    mp.GetElement(1).Set(tessera.ACTIVE, False)
    mp.GetCondition(2).Set(tessera.SLIP, True)
    writer = tessera.Hdf5Output(mp, tessera.Parameters(json.dumps(
        {"output_path": str(tmp_path), "nodal_flags": ["BOUNDARY"], "element_flags": ["ACTIVE"],
         "condition_flags": ["SLIP"]})))
    writer.PrintOutput()
    with h5py.File(tmp_path / "Main.h5", "r") as f:
        results = f["ResultsData/0"]
        exact(results["NodalFlagValues/BOUNDARY"][()],
              np.array([int(i % 3 == 0) for i in range(1, 13)], dtype=np.int32))
        exact(results["ElementFlagValues/ACTIVE"][()], np.array([0, 1], dtype=np.int32))
        exact(results["ConditionFlagValues/SLIP"][()], np.array([0, 1], dtype=np.int32))
    names = {(a.get("Name"), a.get("Center")) for a in
             next(data_items(tmp_path / "Main.xdmf"))[0].findall("Attribute")}
    assert {("BOUNDARY", "Node"), ("ACTIVE", "Cell")} <= names
    check_xdmf(str(tmp_path / "Main.xdmf"))


def test_an_unknown_flag_names_the_key_and_the_known_flags(tmp_path):
    model, mp, nodes = make_model()
    with pytest.raises(tessera.Error, match="'element_flags': unknown flag 'ACTIVATED'; known "
                                            "flags: .*ACTIVE"):
        tessera.Hdf5Output(mp, tessera.Parameters(json.dumps(
            {"output_path": str(tmp_path), "element_flags": ["ACTIVATED"]})))


# ------------------------------------------------------------------ Gauss points
def test_gauss_point_results_are_averaged_per_element(tmp_path):
    structural = pytest.importorskip("tessera.structural",
                                     reason="the structural application is not built")
    model = tessera.Model()
    mp = model.CreateModelPart("Solid", 2)
    mp.AddNodalSolutionStepVariable(tessera.DISPLACEMENT)
    properties = mp.GetProperties(1)
    properties[tessera.YOUNG_MODULUS] = 1000.0
    properties[tessera.POISSON_RATIO] = 0.3
    structural.SetConstitutiveLaw(properties, "LinearElastic3DLaw")
    coordinates = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1),
                   (0, 1, 1)]
    for i, (x, y, z) in enumerate(coordinates):
        node = mp.CreateNewNode(i + 1, float(x), float(y), float(z))
        node.SetSolutionStepValue(tessera.DISPLACEMENT, [1e-3 * x * y, -2e-3 * z * i, 1e-3 * i])
    mp.CreateNewElement("SmallDisplacementElement3D8N", 1, list(range(1, 9)), properties)
    for element in mp.Elements:
        element.Initialize(mp.ProcessInfo)
    writer = tessera.Hdf5Output(mp, tessera.Parameters(json.dumps(
        {"output_path": str(tmp_path), "gauss_point_variables": ["PK2_STRESS_VECTOR"]})))
    writer.PrintOutput()
    element = next(iter(mp.Elements))
    values = np.array(element.CalculateOnIntegrationPoints(structural.PK2_STRESS_VECTOR,
                                                           mp.ProcessInfo))
    # The writer's average: a running sum over the points, then / count.
    total = values[0].copy()
    for row in values[1:]:
        total = total + row
    with h5py.File(tmp_path / "Solid.h5", "r") as f:
        exact(f["ResultsData/0/ElementDataValues/PK2_STRESS_VECTOR"][()],
              (total / len(values))[np.newaxis, :])


# ------------------------------------------------------------------ errors
def test_unknown_setting_and_variable_are_errors(tmp_path):
    model, mp, nodes = make_model()
    with pytest.raises(tessera.Error, match="nodal_solution_step_data_variabels"):
        hdf5_output_process.Factory(settings(tmp_path, nodal_solution_step_data_variabels=[]), model)
    with pytest.raises(tessera.Error,
                       match="HDF5Output setting 'nodal_data_value_variables': .*TEMPERATUR"):
        hdf5_output_process.Factory(settings(tmp_path, nodal_data_value_variables=["TEMPERATUR"]),
                                    model)
    with pytest.raises(tessera.Error, match="'file_mode' is 'one'"):
        hdf5_output_process.Factory(settings(tmp_path, file_mode="one"), model)
    with pytest.raises(tessera.Error, match="'compression' must be"):
        hdf5_output_process.Factory(settings(tmp_path, compression=12), model)


def test_a_variable_that_is_not_historical_names_file_and_variable(tmp_path):
    model, mp, nodes = make_model()
    process = hdf5_output_process.Factory(
        settings(tmp_path, nodal_solution_step_data_variables=["VELOCITY"]), model)
    with pytest.raises(tessera.Error, match=r"Main\.h5: nodal_solution_step_data_variables lists "
                                            r"VELOCITY, which is not a solution-step variable"):
        process.PrintOutput()


def test_unwritable_paths_are_clear_errors(tmp_path):
    model, mp, nodes = make_model()
    (tmp_path / "a_file").write_text("")
    process = hdf5_output_process.Factory(settings(tmp_path / "a_file" / "out"), model)
    with pytest.raises(tessera.Error, match="cannot create the output folder .*a_file"):
        process.PrintOutput()
    (tmp_path / "out" / "Main.h5").mkdir(parents=True)  # a folder where the file should go
    process = hdf5_output_process.Factory(settings(tmp_path / "out"), model)
    with pytest.raises(tessera.Error, match=r"HDF5Output: cannot create .*Main\.h5 for writing"):
        process.PrintOutput()


def test_defaults_list_the_documented_keys():
    defaults = tessera.Hdf5Output.GetDefaultParameters()
    for key in ("model_part_name", "output_control_type", "output_interval", "output_path",
                "file_name", "file_mode", "file_label", "compression",
                "write_deformed_configuration", "write_xdmf",
                "nodal_solution_step_data_variables", "nodal_data_value_variables",
                "element_data_value_variables", "condition_data_value_variables",
                "gauss_point_variables", "nodal_flags", "element_flags", "condition_flags"):
        assert defaults.Has(key), key
