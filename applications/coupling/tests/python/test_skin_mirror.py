"""tessera._coupling.SkinMirror (applications/coupling/skin/skin_mirror.h):
the coupled step's transfers between the FE skin nodes and their mirrors in
the DEM walls. Copies and one division per node: exact values are expected."""
import numpy as np
import pytest

import tessera
import tessera.coupling  # noqa: F401  (DEM_NODAL_FORCE, DEM_SURFACE_LOAD)
import tessera.dem  # noqa: F401  (CONTACT_FORCES, DEM_NODAL_AREA)
from tessera import _coupling


def _parts():
    model = tessera.Model()
    structure = model.CreateModelPart("Structure")
    for v in (tessera.DISPLACEMENT, tessera.VELOCITY, tessera.DEM_NODAL_FORCE, tessera.DEM_SURFACE_LOAD):
        structure.AddNodalSolutionStepVariable(v)
    walls = model.CreateModelPart("RigidFacePart")
    for v in (tessera.DISPLACEMENT, tessera.VELOCITY, tessera.CONTACT_FORCES, tessera.DEM_NODAL_AREA):
        walls.AddNodalSolutionStepVariable(v)
    for i in range(4):
        structure.CreateNewNode(i + 1, float(i), 0.0, 0.0)
    for i in range(3):
        walls.CreateNewNode(i + 1, 0.0, 0.0, 0.0)
    return model, structure, walls


def test_the_mirrors_follow_the_structure_and_bring_its_loads_back():
    model, structure, walls = _parts()
    fe_rows, wall_rows = [3, 1, 0], [0, 2, 1]  # skin node k: structure row fe_rows[k], mirror wall_rows[k]
    mirror = _coupling.SkinMirror(structure, walls, fe_rows, wall_rows)
    rng = np.random.default_rng(7)
    u, v = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    structure.NodalArray(tessera.DISPLACEMENT)[:] = u
    structure.NodalArray(tessera.VELOCITY)[:] = v
    mirror.MoveWalls()
    x0 = structure.NodalInitialCoordinates()
    for f, w in zip(fe_rows, wall_rows):
        assert np.array_equal(walls.NodalCoordinates()[w], x0[f] + u[f])
        assert np.array_equal(walls.NodalArray(tessera.DISPLACEMENT)[w], u[f])
        assert np.array_equal(walls.NodalArray(tessera.VELOCITY)[w], v[f])
    force = rng.normal(size=(3, 3))
    walls.NodalArray(tessera.CONTACT_FORCES)[:] = force
    walls.NodalArray(tessera.DEM_NODAL_AREA)[:] = [0.5, 0.0, 2.0]
    mirror.TakeLoads()
    for f, w in zip(fe_rows, wall_rows):
        area = [0.5, 0.0, 2.0][w]
        assert np.array_equal(structure.NodalArray(tessera.DEM_NODAL_FORCE)[f], force[w])
        expected = force[w] / area if area > 0.0 else np.zeros(3)
        assert np.array_equal(structure.NodalArray(tessera.DEM_SURFACE_LOAD)[f], expected)
    assert np.array_equal(structure.NodalArray(tessera.DEM_NODAL_FORCE)[2], np.zeros(3))  # not skin


def test_bad_rows_and_missing_variables_are_errors_naming_the_part():
    model, structure, walls = _parts()
    with pytest.raises(tessera.Error, match=r"wall row 3 \(skin node 1\) is outside RigidFacePart's 3 nodes"):
        _coupling.SkinMirror(structure, walls, [0, 1], [0, 3])
    with pytest.raises(tessera.Error, match="2 structure rows against 1 wall rows"):
        _coupling.SkinMirror(structure, walls, [0, 1], [0])
    bare = model.CreateModelPart("Bare")
    bare.AddNodalSolutionStepVariable(tessera.DISPLACEMENT)
    bare.CreateNewNode(1, 0.0, 0.0, 0.0)
    with pytest.raises(tessera.Error, match="Bare has no historical VELOCITY"):
        _coupling.SkinMirror(bare, walls, [0], [0])
