"""GiD post files of the DEM stage ("post_gid_option"): the files written for
a tiny run are read back by a small reader of GiD's ASCII post format (the
subset kernel/io/gid_output.h writes) and compared with the model part.

The writer prints the shortest decimal that reads back as the same double, so
the values read back must equal the model part's bit for bit (tolerance 0).
"""
import os

import pytest

import tessera

from test_dem_analysis_stage import SmallDeck, Stage


# ------------------------------------------------------------------ a small GiD ASCII reader
def ReadMesh(path):
    """{block name: (element type, {element id: (node ids, radius or None)})}
    and {node id: (x, y, z)} of a .post.msh file."""
    blocks, coordinates, name, section = {}, {}, None, None
    with open(path) as stream:
        for line in stream:
            words = line.split()
            if not words:
                continue
            if words[0] == "MESH":
                name = line.split('"')[1]
                kind = words[words.index("ElemType") + 1]
                nnode = int(words[words.index("Nnode") + 1])
                blocks[name] = (kind, {})
            elif words[0] in ("Coordinates", "Elements"):
                section = words[0]
            elif words[0] == "End":
                section = None
            elif section == "Coordinates":
                coordinates[int(words[0])] = tuple(float(w) for w in words[1:4])
            elif section == "Elements":
                kind, elements = blocks[name]
                nodes = tuple(int(w) for w in words[1:1 + nnode])
                radius = float(words[1 + nnode]) if kind == "Sphere" else None
                elements[int(words[0])] = (nodes, radius)
    return blocks, coordinates


def ReadResults(path):
    """{(variable, label): {node id: tuple of values}} of a .post.res file."""
    results, key, values = {}, None, None
    with open(path) as stream:
        assert stream.readline().startswith("GiD Post Results File 1.0")
        for line in stream:
            words = line.split()
            if not words:
                continue
            if words[0] == "Result":
                assert words[5] == "OnNodes", line
                key = (line.split('"')[1], float(words[3]))
            elif words[0] == "Values":
                values = {}
            elif words[0] == "End" and words[1] == "Values":
                results[key] = values
                values = None
            elif values is not None:
                values[int(words[0])] = tuple(float(w) for w in words[1:])
    return results


class RecordingStage:
    """Runs a stage and keeps the nodal values of every step, by time."""

    VARIABLES = ("VELOCITY", "ANGULAR_VELOCITY", "TOTAL_FORCES", "DISPLACEMENT", "RADIUS")

    def __init__(self, parameters):
        self.model, self.stage = Stage(parameters)
        self.snapshots = {}
        stage, snapshots, model = self.stage, self.snapshots, self.model
        original = stage.OutputSolutionStep

        def output_and_record():
            original()
            spheres = model.GetModelPart("SpheresPart")
            snapshots[spheres.ProcessInfo[tessera.TIME]] = {
                name: {node.Id: _Value(node, name) for node in spheres.Nodes}
                for name in RecordingStage.VARIABLES}
        stage.OutputSolutionStep = output_and_record
        stage.Run()


def _Value(node, name):
    value = node.GetSolutionStepValue(tessera.GetVariable(name))
    return (value,) if isinstance(value, float) else tuple(value)


def test_gid_files_hold_the_selected_nodal_results_at_the_output_times(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = RecordingStage(SmallDeck(tmp_path, post_gid_option=True, OutputFileType="Ascii",
                                   Multifile="single_file", OutputTimeStep=0.005,
                                   PostVelocity=True, PostAngularVelocity=True,
                                   PostTotalForces=True, PostDisplacement=False))
    folder = tmp_path / "small_Post_Files"
    blocks, coordinates = ReadMesh(folder / "small_DEM.post.msh")
    # Spheres: GiD Sphere elements "id node radius material" with the mdpa
    # element ids (renumbered 1, 2) and RADIUS 0.05.
    kind, elements = blocks["small_DEM_Sphere"]
    assert kind == "Sphere" and elements == {1: ((1,), 0.05), 2: ((2,), 0.05)}
    assert coordinates[2] == (0.3, 0.0, 0.05)

    results = ReadResults(folder / "small_DEM.post.res")
    variables = {name for name, _ in results}
    # PostDisplacement false, PostRadius false (default): not written.
    assert variables == {"VELOCITY", "ANGULAR_VELOCITY", "TOTAL_FORCES"}
    times = sorted({time for _, time in results})
    # Every OutputTimeStep of simulated time over 0.02 s: 4 outputs (the
    # schedule writes at the first step reaching each output time).
    assert len(times) == 4
    for (name, time), values in results.items():
        recorded = run.snapshots[time][name]
        assert values == recorded, (name, time)
    # The ball launched at 4 m/s is really moving in the written results.
    assert results[("VELOCITY", times[0])][2][0] > 3.0

    walls, wall_coordinates = ReadMesh(folder / "small_DEM_FEM_boundary.post.msh")
    kind, faces = walls["small_DEM_FEM_boundary_Quadrilateral_conditions"]
    assert kind == "Quadrilateral" and len(faces) == 1 and len(wall_coordinates) == 4
    wall_results = ReadResults(folder / "small_DEM_FEM_boundary.post.res")
    assert {name for name, _ in wall_results} == {"VELOCITY"}  # walls take the wall variables only


def test_post_radius_and_multiple_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = RecordingStage(SmallDeck(tmp_path, post_gid_option=True, OutputFileType="Ascii",
                                   Multifile="multiple_files", OutputTimeStep=0.01,
                                   PostVelocity=False, PostDisplacement=True, PostRadius=True))
    files = sorted(os.listdir(tmp_path / "small_Post_Files"))
    spheres = [f for f in files if f.startswith("small_DEM_") and "FEM" not in f and f.endswith(".res")]
    assert len(spheres) == 2  # one pair per output time (0.01, 0.02)
    for name in spheres:
        results = ReadResults(tmp_path / "small_Post_Files" / name)
        assert {variable for variable, _ in results} == {"DISPLACEMENT", "RADIUS"}
        for (variable, time), values in results.items():
            assert values == run.snapshots[time][variable]


def test_binary_mode_is_written_as_ascii_with_a_warning(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _, stage = Stage(SmallDeck(tmp_path, post_gid_option=True, FinalTime=0.002,
                               OutputTimeStep=0.001))  # Kratos' default "Binary"
    with pytest.warns(UserWarning, match="GiD binary post files are not written"):
        stage.Run()
    assert (tmp_path / "small_Post_Files").is_dir()
    assert any(f.endswith(".post.res") for f in os.listdir(tmp_path / "small_Post_Files"))


@pytest.mark.parametrize("key,value", [("OutputFileType", "Hdf5"), ("Multifile", "many"),
                                       ("GiDPostMode", "GiD_PostHDF5"),
                                       ("GiDMultiFileFlag", "Multiples")])
def test_unknown_gid_modes_are_errors_naming_the_key(key, value):
    with pytest.raises(tessera.Error, match=f"'{key}' is '{value}'; expected one of"):
        Stage(f'{{"{key}": "{value}"}}')


def test_without_post_gid_option_no_gid_file_is_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _, stage = Stage(SmallDeck(tmp_path, FinalTime=0.002, OutputTimeStep=0.001))
    stage.Run()
    assert not (tmp_path / "small_Post_Files").exists()
