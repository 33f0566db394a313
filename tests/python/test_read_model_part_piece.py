"""tessera.ReadModelPartPiece (kernel/parallel/distribute_model_part.h): a
rank of a distributed run reads only its piece of a .mdpa file (the file's
connectivity first, the METIS partition, then the entities it keeps). Checked
serially, piece by piece, against what the whole file read and
DistributeModelPart leave: the same nodes (ids, order, coordinates, nodal
data, fixity, flags), elements and conditions (ids, order, connectivity,
properties, elemental and conditional data), sub model parts (nested, with
their lists and data), geometries and LocalMesh, exactly. Errors in the file
keep their file:line; constraints are refused by name."""
import pytest

import tessera

N = 4  # hexahedra per side of the unit cube


def GridId(i, j, k):
    return 1 + i + (N + 1) * (j + (N + 1) * k)


def CubeDeck():
    """The unit cube of N^3 Element3D8N (ids from the last down) with every
    block a structural deck uses: two properties, face and point conditions, nodal data (a fixed
    component, a vector, a flag), elemental and conditional data, nested sub
    model parts with data, a node of no element (id 1000) and a geometry."""
    lines = ["Begin ModelPartData", "  DENSITY 2.5", "End ModelPartData",
             "Begin Properties 1", "  YOUNG_MODULUS 1e9", "End Properties",
             "Begin Properties 2", "End Properties", "Begin Nodes"]
    for k in range(N + 1):
        for j in range(N + 1):
            for i in range(N + 1):
                lines.append(f"  {GridId(i, j, k)} {i / N} {j / N} {k / N}")
    # An empty block of tetrahedra (whose faces, 3 nodes, would change the
    # dual graph were they counted), then the hexahedra listed from the last
    # id down (both reads keep the file's order).
    lines += ["  1000 2.0 2.0 2.0", "End Nodes", "Begin Elements Element3D4N", "End Elements",
              "Begin Elements Element3D8N"]
    corners = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
    hexahedra = []
    e = 1
    for k in range(N):
        for j in range(N):
            for i in range(N):
                nodes = " ".join(str(GridId(i + a, j + b, k + c)) for a, b, c in corners)
                hexahedra.append(f"  {e} {1 + (i % 2)} {nodes}")
                e += 1
    lines += hexahedra[::-1]
    lines += ["End Elements", "Begin Conditions SurfaceCondition3D4N"]
    c = 1
    for j in range(N):
        for i in range(N):
            lines.append(f"  {c} 1 {GridId(i, j, 0)} {GridId(i, j + 1, 0)} {GridId(i + 1, j + 1, 0)} "
                         f"{GridId(i + 1, j, 0)}")
            c += 1
    lines.append("End Conditions")
    lines.append("Begin Conditions PointCondition3D1N")
    point_conditions = []
    for k in range(N + 1):
        lines.append(f"  {c} 1 {GridId(N, N, k)}")
        point_conditions.append(c)
        c += 1
    lines.append("End Conditions")
    lines += ["Begin Geometries Line3D2", f"  1 {GridId(0, 0, 0)} {GridId(N, N, N)}", "End Geometries"]
    lines.append("Begin NodalData DISPLACEMENT_Z")
    lines += [f"  {GridId(i, j, 0)} 1 0.0" for j in range(N + 1) for i in range(N + 1)]
    lines += ["End NodalData", "Begin NodalData VELOCITY"]
    lines += [f"  {GridId(i, i, i)} 0 [3] ({i}, {2 * i}, 0.5)" for i in range(N + 1)]
    lines += ["End NodalData", "Begin NodalData SLIP"]
    lines.append("  " + " ".join(str(GridId(N, j, k)) for k in range(N + 1) for j in range(N + 1)))
    lines += ["End NodalData", "Begin ElementalData TEMPERATURE"]
    lines += [f"  {e} {0.5 * e}" for e in range(1, N ** 3 + 1, 3)]
    lines += ["End ElementalData", "Begin ConditionalData PRESSURE"]
    lines += [f"  {c} {-1.0 * c}" for c in range(1, N * N + 1)]
    lines += ["End ConditionalData",
              "Begin SubModelPart Support", "  Begin SubModelPartData", "    TEMPERATURE 7.0",
              "  End SubModelPartData", "  Begin SubModelPartNodes"]
    lines += [f"    {GridId(i, j, 0)}" for j in range(N + 1) for i in range(N + 1)]
    lines += ["    1000", "  End SubModelPartNodes", "  Begin SubModelPartConditions"]
    lines += [f"    {c}" for c in range(1, N * N + 1)]
    lines += ["  End SubModelPartConditions", "  Begin SubModelPart Corner",
              "    Begin SubModelPartNodes", f"      {GridId(0, 0, 0)} {GridId(N, 0, 0)}",
              "    End SubModelPartNodes", "  End SubModelPart", "End SubModelPart",
              "Begin SubModelPart Solid", "  Begin SubModelPartElements"]
    lines += [f"    {e}" for e in range(1, N ** 3 + 1)]
    lines += ["  End SubModelPartElements", "  Begin SubModelPartConditions"]
    lines += [f"    {c}" for c in point_conditions]
    lines += ["  End SubModelPartConditions", "End SubModelPart"]
    return "\n".join(lines) + "\n"


def Snapshot(mp):
    """Everything of the model part the two reads must agree on, in order."""
    def Entities(entities):
        return [(x.Id, x.Properties.Id, [n.Id for n in x.GetGeometry()],
                 x.GetValue(tessera.TEMPERATURE) if x.Has(tessera.TEMPERATURE) else None,
                 x.GetValue(tessera.PRESSURE) if x.Has(tessera.PRESSURE) else None)
                for x in entities]

    def Part(part):
        return {"nodes": [int(i) for i in part.NodeIds()],
                "elements": [e.Id for e in part.Elements],
                "conditions": [c.Id for c in part.Conditions],
                "temperature": part[tessera.TEMPERATURE] if part.Has(tessera.TEMPERATURE) else None,
                "subs": {name: Part(part.GetSubModelPart(name))
                         for name in sorted(part.GetSubModelPartNames())}}
    nodes = [(n.Id, n.X, n.Y, n.Z, n.GetSolutionStepValue(tessera.DISPLACEMENT_Z),
              n.IsFixed(tessera.DISPLACEMENT_Z), list(n.GetSolutionStepValue(tessera.VELOCITY)),
              n.Is(tessera.SLIP)) for n in mp.Nodes]
    return {"nodes": nodes, "elements": Entities(mp.Elements),
            "conditions": Entities(mp.Conditions), "part": Part(mp),
            "density": mp[tessera.DENSITY], "geometries": mp.NumberOfGeometries(),
            "properties": sorted(p.Id for p in mp.Properties)}


def Local(local):
    return (local.rank, list(local.neighbours), [list(s) for s in local.shared_nodes],
            list(local.owned_nodes), list(local.element_positions), list(local.condition_positions))


def EmptyRoot(model):
    mp = model.CreateModelPart("Cube")
    mp.AddNodalSolutionStepVariable(tessera.DISPLACEMENT)
    mp.AddNodalSolutionStepVariable(tessera.VELOCITY)
    return mp


@pytest.mark.parametrize("parts", [2, 3])
def test_each_piece_read_alone_is_the_piece_of_the_whole_read(tmp_path, parts):
    path = tmp_path / "cube.mdpa"
    path.write_text(CubeDeck())
    io = tessera.ModelPartIO(str(tmp_path / "cube"))  # the suffix is found as in a whole read
    elements = set()
    once = EmptyRoot(tessera.Model())
    io.ReadModelPart(once)
    element_ids = [e.Id for e in once.Elements]
    condition_ids = [c.Id for c in once.Conditions]
    for rank in range(parts):
        whole = EmptyRoot(tessera.Model())
        io.ReadModelPart(whole)
        expected_local = tessera.DistributeModelPart(whole, parts, rank)
        alone = EmptyRoot(tessera.Model())
        local = tessera.ReadModelPartPiece(io, alone, parts, rank)
        assert Snapshot(alone) == Snapshot(whole)
        assert Local(local) == Local(expected_local)
        # The positions name the kept entities' places in the whole read.
        assert [element_ids[p] for p in local.element_positions] == [e.Id for e in alone.Elements]
        assert [condition_ids[p] for p in local.condition_positions] == [c.Id for c in alone.Conditions]
        assert 0 < alone.NumberOfElements() < N ** 3
        elements |= {e.Id for e in alone.Elements}
        assert (1000 in [int(i) for i in alone.NodeIds()]) == (rank == 0)
    assert elements == set(range(1, N ** 3 + 1))


def test_a_bad_file_read_in_pieces_names_its_line(tmp_path):
    text = CubeDeck().replace(f"  2 2 {GridId(1, 0, 0)}", f"  2 2 {GridId(1, 0, 0) + 5000}", 1)
    (tmp_path / "bad.mdpa").write_text(text)
    line = 1 + text.split("\n").index(next(s for s in text.split("\n") if s.startswith("  2 2 ")))
    with pytest.raises(tessera.Error, match=rf"bad.mdpa:{line}: element 2 refers to node \d+, "
                       "which is not defined"):
        tessera.ReadModelPartPiece(tessera.ModelPartIO(str(tmp_path / "bad.mdpa")),
                                   EmptyRoot(tessera.Model()), 2, 1)
    with pytest.raises(tessera.Error, match="neither '.*missing.mdpa' nor"):
        tessera.ReadModelPartPiece(tessera.ModelPartIO(str(tmp_path / "missing")),
                                   EmptyRoot(tessera.Model()), 2, 0)


def test_constraints_and_a_filled_model_part_are_refused(tmp_path):
    text = CubeDeck() + ("Begin Constraints LinearMasterSlaveConstraint DISPLACEMENT_X\n"
                         f"  1 0.0 [1](1.0) {GridId(0, 0, 0)} {GridId(1, 0, 0)}\n"
                         "End Constraints\n")
    (tmp_path / "tied.mdpa").write_text(text)
    io = tessera.ModelPartIO(str(tmp_path / "tied.mdpa"))
    with pytest.raises(tessera.Error, match="master-slave constraints are not distributed yet"):
        tessera.ReadModelPartPiece(io, EmptyRoot(tessera.Model()), 2, 0)
    (tmp_path / "cube.mdpa").write_text(CubeDeck())
    filled = EmptyRoot(tessera.Model())
    filled.CreateNewNode(1, 0.0, 0.0, 0.0)
    with pytest.raises(tessera.Error, match="model part 'Cube': the model part must be an empty root"):
        tessera.ReadModelPartPiece(tessera.ModelPartIO(str(tmp_path / "cube.mdpa")), filled, 2, 0)
