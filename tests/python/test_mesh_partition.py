"""tessera.PartitionMesh (kernel/parallel/mesh_partition.h): METIS splits of a
mesh's elements into parts, node ownership and ghost lists, checked on
structured cubes of hexahedra and tetrahedra and a square of quadrilaterals,
where the best cuts are known planes."""
import numpy as np
import pytest

import tessera
from structured_meshes import MakeHexCube, MakeTetCube

def connectivity(mp):
    return {e.Id: [n.Id for n in e.GetGeometry()] for e in mp.Elements}


def check_partition(mp, p, parts):
    """The invariants every partition keeps, whatever METIS chose."""
    assert p["parts"] == parts
    element_part = dict(zip(p["element_ids"].tolist(), p["element_part"].tolist()))
    assert sorted(element_part) == sorted(e.Id for e in mp.Elements)
    assert set(element_part.values()) == set(range(parts))  # no part empty
    owner = dict(zip(p["node_ids"].tolist(), p["node_owner"].tolist()))
    assert sorted(owner) == sorted(n.Id for n in mp.Nodes)
    parts_of_node = {}
    for e, nodes in connectivity(mp).items():
        for n in nodes:
            parts_of_node.setdefault(n, set()).add(element_part[e])
    for n, seen in parts_of_node.items():
        assert owner[n] == min(seen)
    for part in range(parts):
        used = {n for e, nodes in connectivity(mp).items() if element_part[e] == part for n in nodes}
        ghosts = p["ghost_nodes"][part].tolist()
        assert ghosts == sorted(ghosts)
        assert set(ghosts) == {n for n in used if owner[n] != part}
    return element_part


@pytest.mark.parametrize("parts", [2, 3, 4])
def test_hexahedra_are_split_into_balanced_parts_with_owners_and_ghosts(parts):
    model = tessera.Model()
    mp = MakeHexCube(model, 10)
    p = tessera.PartitionMesh(mp, parts)
    element_part = check_partition(mp, p, parts)
    # Balance: METIS' default load imbalance for k-way partitioning, ufactor
    # 30 (METIS 5.1 manual, METIS_OPTION_UFACTOR): the largest part at most
    # 1.03 times the mean, plus one element of rounding.
    counts = np.bincount(list(element_part.values()), minlength=parts)
    assert counts.max() <= 1.03 * 1000 / parts + 1
    # Quality: two parts of the 10³ cube are best cut by a mid plane of 100
    # faces (a random split cuts about half of the 2,700 interior faces); the
    # heuristic must stay within 1.5 times the plane.
    if parts == 2:
        assert 100 <= p["cut_faces"] <= 150


def test_the_partition_is_the_same_on_every_call():
    model = tessera.Model()
    mp = MakeHexCube(model, 8)
    first, second = tessera.PartitionMesh(mp, 4), tessera.PartitionMesh(mp, 4)
    assert np.array_equal(first["element_part"], second["element_part"])
    assert np.array_equal(first["node_owner"], second["node_owner"])


def test_tetrahedra_are_neighbours_through_their_triangles():
    """Six tetrahedra per cell of a 6³ grid (1,296 elements): a mid plane cuts
    2 × 36 = 72 triangles; faces share three nodes, so the dual graph is the
    face graph and the cut stays near the plane's."""
    model = tessera.Model()
    mp = MakeTetCube(model, 6)
    p = tessera.PartitionMesh(mp, 2)
    check_partition(mp, p, 2)
    assert 72 <= p["cut_faces"] <= 1.5 * 72


def test_one_part_owns_everything():
    model = tessera.Model()
    mp = MakeHexCube(model, 3)
    p = tessera.PartitionMesh(mp, 1)
    assert not p["element_part"].any() and not p["node_owner"].any()
    assert p["ghost_nodes"][0].size == 0 and p["cut_faces"] == 0


def test_a_sub_model_part_is_partitioned_alone():
    model = tessera.Model()
    mp = MakeHexCube(model, 4)
    sub = mp.CreateSubModelPart("Lower")
    lower = [e for e in mp.Elements if e.Id <= 32]
    sub.AddNodes(sorted({n.Id for e in lower for n in e.GetGeometry()}))
    sub.AddElements([e.Id for e in lower])
    p = tessera.PartitionMesh(sub, 2)
    check_partition(sub, p, 2)
    assert sorted(p["element_ids"].tolist()) == list(range(1, 33))


def test_bad_requests_name_the_model_part_and_what_was_expected():
    model = tessera.Model()
    mp = MakeHexCube(model, 2)
    with pytest.raises(Exception, match="Cube.*at least 1, got 0"):
        tessera.PartitionMesh(mp, 0)
    with pytest.raises(Exception, match="Cube.*8 elements cannot make 9 parts"):
        tessera.PartitionMesh(mp, 9)
    sub = mp.CreateSubModelPart("Incomplete")
    sub.AddElements([1])  # its nodes are not in the sub model part
    with pytest.raises(Exception, match="Cube.Incomplete.*element 1 uses node 1, which is not a node"):
        tessera.PartitionMesh(sub, 1)
