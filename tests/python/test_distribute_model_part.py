"""tessera.DistributeModelPart (kernel/parallel/distribute_model_part.h): what
each rank of a distributed run keeps of a mesh, looked at serially by asking
for every piece of the same partition in turn: the pieces' elements and
conditions are the whole mesh exactly once, every kept node is used, the
shared-node lists of two ranks are the same list, and a node's owner holds
it."""
import pytest

import tessera

from structured_meshes import GridId, MakeHexCube


def cube_with_skin(model, n):
    """The hex cube of structured_meshes.py with SurfaceCondition3D4N on its
    z = 0 face and a PointCondition3D1N on every node of the x = 1 face."""
    mp = MakeHexCube(model, n)
    props = mp.GetProperties(1)
    c = 1
    for j in range(n):
        for i in range(n):
            mp.CreateNewCondition("SurfaceCondition3D4N", c, [
                GridId(i, j, 0, n), GridId(i, j + 1, 0, n), GridId(i + 1, j + 1, 0, n),
                GridId(i + 1, j, 0, n)], props)
            c += 1
    for k in range(n + 1):
        for j in range(n + 1):
            mp.CreateNewCondition("PointCondition3D1N", c, [GridId(n, j, k, n)], props)
            c += 1
    sub = mp.CreateSubModelPart("Bottom")
    sub.AddConditions(list(range(1, n * n + 1)))
    return mp


def piece(parts, rank, n=4):
    model = tessera.Model()
    mp = cube_with_skin(model, n)
    local = tessera.DistributeModelPart(mp, parts, rank)
    return mp, local


@pytest.mark.parametrize("parts", [2, 3])
def test_pieces_cover_the_mesh_once_and_agree_on_shared_nodes(parts):
    n = 4
    pieces = [piece(parts, r, n) for r in range(parts)]
    elements, conditions, owned = [], [], []
    for mp, local in pieces:
        elements += [e.Id for e in mp.Elements]
        conditions += [c.Id for c in mp.Conditions]
        owned += list(local.owned_nodes)
        used = {node.Id for e in mp.Elements for node in e.GetGeometry()}
        assert set(int(i) for i in mp.NodeIds()) == used  # no node without an element here
        assert set(local.owned_nodes) <= used
        # a condition's nodes are all held by the rank that computes it
        for c in mp.Conditions:
            assert {node.Id for node in c.GetGeometry()} <= used
        # the sub model part lost what the root lost
        assert set(c.Id for c in mp.GetSubModelPart("Bottom").Conditions) <= set(c.Id for c in mp.Conditions)
    assert sorted(elements) == list(range(1, n ** 3 + 1))
    assert sorted(conditions) == list(range(1, n * n + (n + 1) ** 2 + 1))
    assert sorted(owned) == sorted(GridId(i, j, k, n) for i in range(n + 1) for j in range(n + 1)
                                   for k in range(n + 1))
    shared_any = False
    for rank, (mp, local) in enumerate(pieces):
        assert list(local.neighbours) == sorted(local.neighbours) and rank not in local.neighbours
        for q, ids in zip(local.neighbours, local.shared_nodes):
            other = pieces[q][1]
            assert list(ids) == sorted(ids)
            assert list(other.shared_nodes[list(other.neighbours).index(rank)]) == list(ids)
            held_here = set(int(i) for i in mp.NodeIds())
            held_there = set(int(i) for i in pieces[q][0].NodeIds())
            assert set(ids) == held_here & held_there
            shared_any = shared_any or bool(ids)
    assert shared_any


def test_bad_rank_is_an_error_naming_the_model_part():
    model = tessera.Model()
    mp = cube_with_skin(model, 2)
    with pytest.raises(tessera.Error, match="Cube.*rank 2"):
        tessera.DistributeModelPart(mp, 2, 2)
