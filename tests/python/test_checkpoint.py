"""The checkpoint container and the model part checkpoint (kernel/io/
checkpoint_file.*, kernel/io/model_part_checkpoint.*): a model part saved and
loaded into a freshly built copy is bitwise the saved one (every value kind,
buffers, dofs, ProcessInfo steps, entity data and flags, sub model parts, a
permuted node layout); the writer replaces a file only on Commit; truncated,
foreign and other-version files and checkpoints of another mesh are refused
with errors naming the file and the reason."""
import os

import numpy as np
import pytest

import tessera
from tessera.checkpoint import DifferingDatasets

h5py = pytest.importorskip("h5py", reason="python3-h5py is not installed (apt install python3-h5py)")


def make_model(seed, node_order=range(6)):
    """The same mesh for every seed; values that depend on the seed; the
    nodes created (laid out) in node_order."""
    model = tessera.Model()
    mp = model.CreateModelPart("Main", 3)
    for variable in (tessera.TEMPERATURE, tessera.DISPLACEMENT, tessera.REACTION,
                     tessera.INITIAL_STRAIN_VECTOR):
        mp.AddNodalSolutionStepVariable(variable)
    coordinates = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (2, 0, 0), (2, 1, 0)]
    nodes = [mp.CreateNewNode(i + 1, *coordinates[i]) for i in node_order]
    mp.CreateNewElement("Element2D3N", 1, [1, 2, 3], mp.GetProperties(1))
    mp.CreateNewElement("Element2D3N", 2, [1, 3, 4], mp.GetProperties(1))
    mp.CreateNewElement("Element2D4N", 3, [2, 5, 6, 3], mp.GetProperties(2))
    mp.CreateNewCondition("LineCondition2D2N", 1, [1, 2], mp.GetProperties(1))
    right = mp.CreateSubModelPart("Right")
    right.AddNodes([5, 6])
    right.AddElements([3])
    right.CreateSubModelPart("Top").AddNodes([6])
    for node in nodes:
        node.AddDof(tessera.DISPLACEMENT_X, tessera.REACTION_X)
        node.AddDof(tessera.DISPLACEMENT_Y, tessera.REACTION_Y)
    rng = np.random.default_rng(seed)
    for step in range(3):
        mp.CloneTimeStep(0.1 * (step + 1) + rng.random() * 1e-3)
        mp.ProcessInfo[tessera.STEP] = step + 1
        for node in nodes:
            node.SetSolutionStepValue(tessera.TEMPERATURE, rng.random())
            node.SetSolutionStepValue(tessera.DISPLACEMENT, rng.random(3))
            node.SetSolutionStepValue(tessera.INITIAL_STRAIN_VECTOR, rng.random(2 + node.Id % 3))
    for node in nodes[::2]:
        node.SetValue(tessera.PRESSURE, rng.random())
        node.Fix(tessera.DISPLACEMENT_Y)
        node.X += rng.random()
    for element in mp.Elements:
        element.SetValue(tessera.STRESS_VECTOR, rng.random(6))
        element.Set(tessera.ACTIVE, bool(rng.random() > 0.5))
    mp.GetProperties(2)[tessera.DENSITY] = rng.random()
    right.SetValue(tessera.TEMPERATURE, rng.random())
    mp.ProcessInfo[tessera.DOMAIN_SIZE] = 2
    return model, mp


def save(mp, path):
    writer = tessera.CheckpointWriter(str(path))
    tessera.SaveModelPart(mp, writer, "/ModelParts/Main")
    writer.Commit()
    return str(path)


def test_a_loaded_model_part_is_bitwise_the_saved_one(tmp_path):
    _, saved = make_model(1)
    _, loaded = make_model(2)
    first = save(saved, tmp_path / "a.h5")
    assert DifferingDatasets(first, save(loaded, tmp_path / "other.h5")) != []
    tessera.LoadModelPart(loaded, tessera.CheckpointReader(first), "/ModelParts/Main")
    assert DifferingDatasets(first, save(loaded, tmp_path / "b.h5")) == []
    for variable in (tessera.DISPLACEMENT, tessera.TEMPERATURE):
        for step in range(3):
            assert np.array_equal(
                [n.GetSolutionStepValue(variable, step) for n in saved.Nodes],
                [n.GetSolutionStepValue(variable, step) for n in loaded.Nodes])
    assert [n.X for n in loaded.Nodes] == [n.X for n in saved.Nodes]
    assert [n.IsFixed(tessera.DISPLACEMENT_Y) for n in loaded.Nodes] == \
        [n.IsFixed(tessera.DISPLACEMENT_Y) for n in saved.Nodes]
    assert loaded.ProcessInfo[tessera.TIME] == saved.ProcessInfo[tessera.TIME]
    assert loaded.GetSubModelPart("Right").GetValue(tessera.TEMPERATURE) == \
        saved.GetSubModelPart("Right").GetValue(tessera.TEMPERATURE)


def test_a_permuted_node_layout_is_restored(tmp_path):
    _, saved = make_model(1, node_order=[5, 3, 1, 0, 2, 4])
    assert [n.Id for n in saved.Nodes] == [6, 4, 2, 1, 3, 5]
    first = save(saved, tmp_path / "a.h5")
    _, loaded = make_model(3)
    tessera.LoadModelPart(loaded, tessera.CheckpointReader(first), "/ModelParts/Main")
    assert [n.Id for n in loaded.Nodes] == [n.Id for n in saved.Nodes]
    assert DifferingDatasets(first, save(loaded, tmp_path / "b.h5")) == []


def test_another_mesh_is_refused(tmp_path):
    _, saved = make_model(1)
    path = save(saved, tmp_path / "a.h5")
    model = tessera.Model()
    other = model.CreateModelPart("Main", 3)
    other.CreateNewNode(1, 0.0, 0.0, 0.0)
    with pytest.raises(tessera.Error, match="does not belong to this deck.*1 nodes where the checkpoint has 6"):
        tessera.LoadModelPart(other, tessera.CheckpointReader(path), "/ModelParts/Main")


def test_the_writer_replaces_a_file_only_on_commit(tmp_path):
    _, mp = make_model(1)
    path = save(mp, tmp_path / "c.h5")
    before = open(path, "rb").read()
    writer = tessera.CheckpointWriter(path)
    writer.Write("/x", np.arange(3.0))
    del writer  # never committed: a crash during the write
    assert open(path, "rb").read() == before
    assert os.listdir(tmp_path) == ["c.h5"]  # the temporary file is gone


def test_truncated_and_foreign_files_are_refused(tmp_path):
    _, mp = make_model(1)
    path = save(mp, tmp_path / "c.h5")
    data = open(path, "rb").read()
    for size in (len(data) // 2, 100, 0):
        cut = tmp_path / f"cut{size}.h5"
        cut.write_bytes(data[:size])
        with pytest.raises(tessera.Error, match=f"checkpoint .*cut{size}.h5.*(truncated|damaged)"):
            reader = tessera.CheckpointReader(str(cut))
            tessera.LoadModelPart(mp, reader, "/ModelParts/Main")
    text = tmp_path / "notes.h5"
    text.write_text("not a checkpoint\n")
    with pytest.raises(tessera.Error, match="notes.h5 is not a readable HDF5 file"):
        tessera.CheckpointReader(str(text))
    with h5py.File(tmp_path / "results.h5", "w") as f:
        f["x"] = np.arange(3)
    with pytest.raises(tessera.Error, match="results.h5 is an HDF5 file but not a Tessera checkpoint"):
        tessera.CheckpointReader(str(tmp_path / "results.h5"))
    with pytest.raises(tessera.Error, match="missing.h5 does not exist"):
        tessera.CheckpointReader(str(tmp_path / "missing.h5"))


def test_another_layout_version_is_refused(tmp_path):
    _, mp = make_model(1)
    path = save(mp, tmp_path / "c.h5")
    with h5py.File(path, "r+") as f:
        assert f.attrs["layout_version"] == tessera.CHECKPOINT_LAYOUT_VERSION
        f.attrs["layout_version"] = np.int64(tessera.CHECKPOINT_LAYOUT_VERSION + 1)
    with pytest.raises(tessera.Error, match=f"layout version {tessera.CHECKPOINT_LAYOUT_VERSION + 1}; "
                                            f"this build reads only version {tessera.CHECKPOINT_LAYOUT_VERSION}"):
        tessera.CheckpointReader(path)


def test_arrays_and_attributes_round_trip(tmp_path):
    writer = tessera.CheckpointWriter(str(tmp_path / "x.h5"))
    values = np.array([0.1, np.pi, -1e-300, np.nextafter(1.0, 2.0)])
    writer.Write("/a/doubles", values)
    writer.Write("/a/ints", np.array([-5, 2**40], dtype=np.int64))
    writer.WriteString("/b/text", "héllo")
    writer.SetAttribute("time", 0.3)
    with pytest.raises(tessera.Error, match="written twice"):
        writer.Write("/a/doubles", values)
    writer.Commit()
    reader = tessera.CheckpointReader(str(tmp_path / "x.h5"))
    assert np.array_equal(reader.ReadDoubles("/a/doubles"), values)
    assert list(reader.ReadInt64("/a/ints")) == [-5, 2**40]
    assert reader.ReadString("/b/text") == "héllo"
    assert reader.DoubleAttribute("time") == 0.3
    assert reader.ListDatasets("/") == ["/a/doubles", "/a/ints", "/b/text"]
    with pytest.raises(tessera.Error, match="x.h5 has no dataset /a/missing"):
        reader.ReadDoubles("/a/missing")
    with pytest.raises(tessera.Error, match="/a/ints is not of type float64"):
        reader.ReadDoubles("/a/ints")
