"""Tests of the output processes (tessera.output): VTK and GiD files appear at
the steps the schedule chooses, and hold the model's values."""
import json
import os
import xml.etree.ElementTree as ET

import pytest

import tessera
from tessera.output import gid_output_process, vtk_output_process


def make_model():
    """Two unit hexahedra side by side and a triangle condition on the bottom;
    TEMPERATURE and DISPLACEMENT historical."""
    model = tessera.Model()
    mp = model.CreateModelPart("Main")
    mp.AddNodalSolutionStepVariable(tessera.TEMPERATURE)
    mp.AddNodalSolutionStepVariable(tessera.DISPLACEMENT)
    coordinates = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1),
                   (1, 1, 1), (0, 1, 1), (2, 0, 0), (2, 1, 0), (2, 0, 1), (2, 1, 1)]
    nodes = [mp.CreateNewNode(i + 1, float(x), float(y), float(z))
             for i, (x, y, z) in enumerate(coordinates)]
    properties = mp.GetProperties(0)
    mp.CreateNewElement("Element3D8N", 1, [1, 2, 3, 4, 5, 6, 7, 8], properties)
    mp.CreateNewElement("Element3D8N", 2, [2, 9, 10, 3, 6, 11, 12, 7], properties)
    mp.CreateNewCondition("SurfaceCondition3D3N", 1, [1, 2, 3], properties)
    return model, mp, nodes


def run(process, mp, nodes, times):
    """The analysis stage's loop: the process hooks in their order, one
    solution step per time; TEMPERATURE = 100 * step + node id."""
    process.ExecuteInitialize()
    assert process.Check() == 0
    process.ExecuteBeforeSolutionLoop()
    written = []
    for step, time in enumerate(times, start=1):
        mp.CloneTimeStep(time)
        mp.ProcessInfo[tessera.STEP] = step
        for node in nodes:
            node.SetSolutionStepValue(tessera.TEMPERATURE, 100.0 * step + node.Id)
            node.SetSolutionStepValue(tessera.DISPLACEMENT, [0.5 * step, 0.0, -1.0 * node.Id])
        process.ExecuteInitializeSolutionStep()
        process.ExecuteFinalizeSolutionStep()
        if process.IsOutputStep():
            process.ExecuteBeforeOutputStep()
            process.PrintOutput()
            process.ExecuteAfterOutputStep()
            written.append(step)
    process.ExecuteFinalize()
    return written


def vtk_settings(path, **parameters):
    parameters = {"model_part_name": "Main", "output_path": str(path),
                  "nodal_solution_step_data_variables": ["TEMPERATURE", "DISPLACEMENT"],
                  **parameters}
    return tessera.Parameters(json.dumps({"python_module": "vtk_output_process",
                                          "kratos_module": "KratosMultiphysics",
                                          "Parameters": parameters}))


def point_array(path, name):
    """The values of a PointData array of an ascii .vtu file."""
    piece = ET.parse(path).getroot().find("UnstructuredGrid/Piece")
    for array in piece.find("PointData"):
        if array.get("Name") == name:
            return [float(v) for v in array.text.split()]
    raise KeyError(name)


def test_vtk_process_writes_every_second_step(tmp_path):
    model, mp, nodes = make_model()
    process = vtk_output_process.Factory(
        vtk_settings(tmp_path / "vtk", output_control_type="step", output_interval=2), model)
    assert isinstance(process, tessera.Process)
    written = run(process, mp, nodes, [0.1 * s for s in range(1, 6)])
    assert written == [2, 4]
    assert sorted(os.listdir(tmp_path / "vtk")) == ["Main.pvd", "Main_2.vtu", "Main_4.vtu"]

    root = ET.parse(tmp_path / "vtk" / "Main_4.vtu").getroot()
    piece = root.find("UnstructuredGrid/Piece")
    assert piece.get("NumberOfPoints") == "12"
    assert piece.get("NumberOfCells") == "2"
    temperature = point_array(tmp_path / "vtk" / "Main_4.vtu", "TEMPERATURE")
    assert temperature == pytest.approx([400.0 + i for i in range(1, 13)])
    displacement = point_array(tmp_path / "vtk" / "Main_4.vtu", "DISPLACEMENT")
    assert displacement[:6] == pytest.approx([2.0, 0.0, -1.0, 2.0, 0.0, -2.0])

    collection = ET.parse(tmp_path / "vtk" / "Main.pvd").getroot().find("Collection")
    entries = [(float(d.get("timestep")), d.get("file")) for d in collection]
    assert entries == [(pytest.approx(0.2), "Main_2.vtu"), (pytest.approx(0.4), "Main_4.vtu")]


def test_vtk_process_time_control(tmp_path):
    model, mp, nodes = make_model()
    process = vtk_output_process.Factory(
        vtk_settings(tmp_path, output_control_type="time", output_interval=0.25,
                     file_format="binary"), model)
    # Steps of 0.1: the outputs at 0.25, 0.5, 0.75 fall on the first step past them.
    written = run(process, mp, nodes, [0.1 * s for s in range(1, 11)])
    assert written == [3, 5, 8, 10]
    for step in written:
        assert (tmp_path / f"Main_{step}.vtu").exists()


def test_vtk_process_rejects_unknown_setting(tmp_path):
    model, _, _ = make_model()
    with pytest.raises(RuntimeError, match="nodal_results"):
        vtk_output_process.Factory(vtk_settings(tmp_path, nodal_results=["TEMPERATURE"]), model)
    with pytest.raises(Exception, match="output_control_type"):
        vtk_output_process.Factory(vtk_settings(tmp_path, output_control_type="iteration"), model)


def test_vtk_output_directly(tmp_path):
    model, mp, _ = make_model()
    defaults = tessera.VtkOutput.GetDefaultParameters()
    assert defaults.Has("gauss_point_variables_in_elements")
    output = tessera.VtkOutput(mp, tessera.Parameters(json.dumps(
        {"output_path": str(tmp_path), "entity_type": "condition"})))
    output.PrintOutput()
    piece = ET.parse(tmp_path / "Main_0.vtu").getroot().find("UnstructuredGrid/Piece")
    assert piece.get("NumberOfCells") == "1"
    assert piece.find("Cells/DataArray[@Name='types']").text.split() == ["5"]


def gid_settings(path, **results):
    results = {"gidpost_flags": {"GiDPostMode": "GiD_PostAscii", "MultiFileFlag": "SingleFile"},
               "file_label": "step", "output_control_type": "step", "output_interval": 1,
               "nodal_results": ["TEMPERATURE", "DISPLACEMENT"], **results}
    return tessera.Parameters(json.dumps({
        "python_module": "gid_output_process", "kratos_module": "KratosMultiphysics",
        "process_name": "GiDOutputProcess",
        "Parameters": {"model_part_name": "Main", "output_name": str(path / "gid" / "case"),
                       "postprocess_parameters": {"result_file_configuration": results,
                                                  "point_data_configuration": []}}}))


def test_gid_process_writes_mesh_and_results(tmp_path):
    model, mp, nodes = make_model()
    process = gid_output_process.Factory(gid_settings(tmp_path, output_interval=2), model)
    assert isinstance(process, tessera.Process)
    assert run(process, mp, nodes, [0.1 * s for s in range(1, 5)]) == [2, 4]

    msh = (tmp_path / "gid" / "case.post.msh").read_text()
    assert msh.startswith('MESH "case_Hexahedra" dimension 3 ElemType Hexahedra Nnode 8\n')
    assert 'MESH "case_Triangle_conditions" dimension 3 ElemType Triangle Nnode 3' in msh
    res = (tmp_path / "gid" / "case.post.res").read_text()
    assert res.startswith("GiD Post Results File 1.0\n")
    assert res.count('Result "TEMPERATURE" "Kratos"') == 2
    lines = res.splitlines()
    start = lines.index('Result "TEMPERATURE" "Kratos" 4 Scalar OnNodes')
    assert lines[start + 1] == "Values"
    assert [float(v) for v in lines[start + 2].split()] == [1, 401]
    start = lines.index('Result "DISPLACEMENT" "Kratos" 2 Vector OnNodes')
    assert lines[start + 1] == 'ComponentNames "X", "Y", "Z"'
    assert [float(v) for v in lines[start + 4].split()] == [2, 1, 0, -2]


def test_gid_process_multiple_files_by_time(tmp_path):
    model, mp, nodes = make_model()
    settings = gid_settings(tmp_path, file_label="time",
                            gidpost_flags={"MultiFileFlag": "MultipleFiles"})
    process = gid_output_process.Factory(settings, model)
    run(process, mp, nodes, [0.5, 1.0])
    names = sorted(os.listdir(tmp_path / "gid"))
    assert names == ["case_0.5.post.msh", "case_0.5.post.res", "case_1.post.msh",
                     "case_1.post.res"]


def test_gid_process_rejects_unsupported_settings(tmp_path):
    model, _, _ = make_model()
    with pytest.raises(Exception, match="skin_output"):
        gid_output_process.Factory(gid_settings(tmp_path, skin_output=True), model)
    with pytest.raises(RuntimeError, match="nodal_result"):
        gid_output_process.Factory(gid_settings(tmp_path, nodal_result=["TEMPERATURE"]), model)
