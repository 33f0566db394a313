"""Every DEM deck of the shared Kratos cases reads with `tessera.dem` imported.

For each `*DEM*.mdpa` of the DEM cases in <repo>/../shared/kratos_cases (the
structural mesh ball_and_box.mdpa of the DEM-FEM example is not a DEM file) the
test reads it with tessera.ModelPartIO into the root model part the DEM stage
uses (dem_analysis_stage.MODEL_PART_FILES), after declaring the historical
variables a DEM stage declares, and checks what the case README states about
it: counts, radii, positions, initial velocities, wall motion data, materials.
Where a README states nothing about a file the values come from the file
itself, and a comment says so. Ids are the file's own: the plain reader keeps
them (the DEM stage's renumbering, docs/file_formats.md §1.9, is not applied
here).

The walls of every deck must pass RigidFace.Check (no degenerate face); the
particles must pass their Check once they have a material: at once for the
legacy decks (material in the mdpa Properties), after the case's materials
file is assigned for the 2020+ decks (whose mdpa Properties are empty).
"""
import glob
import json
import math
import os

import pytest

import tessera

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))))
CASES = os.path.normpath(os.path.join(REPO_ROOT, "..", "shared", "kratos_cases"))
DEM_CASES = sorted(os.path.basename(p) for p in glob.glob(os.path.join(CASES, "dem3d_*"))) + [
    "dem_benchmarks_2019", "demstruct_ball_and_box"]

pytestmark = pytest.mark.skipif(not os.path.isdir(CASES),
                                reason=f"the shared Kratos cases are not at {CASES}")

# File suffix -> root model part of the DEM stage (as its MODEL_PART_FILES); the
# longest suffixes first, since every name ends in DEM*.mdpa.
ROOTS = (("DEM_FEM_boundary.mdpa", "RigidFacePart"), ("DEM_Clusters.mdpa", "ClusterPart"),
         ("DEM_Inlet.mdpa", "DEMInletPart"), ("DEM.mdpa", "SpheresPart"))

REL = 1e-12  # values are compared with what the file writes, to round-off


def RootNameOf(path):
    for suffix, root in ROOTS:
        if path.endswith(suffix):
            return root
    raise AssertionError(f"{path} is not a DEM file name")


def FindDemDecks():
    decks = set()
    for case in DEM_CASES:
        for path in glob.glob(os.path.join(CASES, case, "**", "*DEM*.mdpa"), recursive=True):
            decks.add(os.path.relpath(path, CASES))
    return decks


def ReadDeck(relative_path, model=None):
    """(model, root model part) with the deck read into its DEM root."""
    model = tessera.Model() if model is None else model
    root = RootNameOf(relative_path)
    model_part = model.CreateModelPart(root)
    from tessera.dem.dem_analysis_stage import HISTORICAL  # what the DEM stage declares

    for name in HISTORICAL[root]:
        model_part.AddNodalSolutionStepVariable(tessera.GetVariable(name))
    path = os.path.join(CASES, relative_path)
    tessera.ModelPartIO(path[:-len(".mdpa")]).ReadModelPart(model_part)
    return model, model_part


# ------------------------------------------------------------------ assertion helpers
def Coordinates(model_part, node_id):
    node = model_part.GetNode(node_id)
    return (node.X, node.Y, node.Z)


def AssertCoordinates(model_part, expected):
    for node_id, xyz in expected.items():
        assert Coordinates(model_part, node_id) == pytest.approx(xyz, rel=REL, abs=1e-15), node_id


def AssertNodal(model_part, variable, expected):
    for node_id, value in expected.items():
        got = model_part.GetNode(node_id).GetSolutionStepValue(variable)
        assert got == pytest.approx(value, rel=REL), (variable, node_id)


def AssertData(container, expected):
    """container[VAR] == value for each (name, value); vectors compare entrywise."""
    for name, value in expected.items():
        variable = tessera.GetVariable(name)
        assert container.Has(variable), name
        got = container[variable]
        if isinstance(value, (list, tuple)):
            assert list(got) == pytest.approx(list(value), rel=REL), name
        elif isinstance(value, float):
            assert got == pytest.approx(value, rel=REL), name
        else:
            assert got == value and type(got) is type(value), (name, got)


def ElementTypes(model_part):
    return sorted({e.Info().rsplit(" element ", 1)[0] for e in model_part.Elements})


def ConditionGeometries(model_part):
    counts = {}
    for c in model_part.Conditions:
        key = (c.Info().rsplit(" condition ", 1)[0], c.GetGeometry().Name())
        counts[key] = counts.get(key, 0) + 1
    return counts


def WallArea(model_part):
    return sum(c.GetGeometry().DomainSize() for c in model_part.Conditions)


def AssertCounts(model_part, nodes, elements=0, conditions=0, sub_model_parts=()):
    assert model_part.NumberOfNodes() == nodes
    assert model_part.NumberOfElements() == elements
    assert model_part.NumberOfConditions() == conditions
    assert sorted(model_part.GetSubModelPartNames()) == sorted(sub_model_parts)


def AssertEmpty(model_part):
    AssertCounts(model_part, 0)
    assert model_part.NumberOfProperties() == 0 or all(
        not p.Has(tessera.YOUNG_MODULUS) for p in model_part.Properties)


def AssertSpheres(model_part, radii, element_type="SphericParticle3D"):
    """Exactly these sphere nodes {id: radius}, one element each."""
    AssertCounts(model_part, len(radii), len(radii), 0, model_part.GetSubModelPartNames())
    assert sorted(model_part.NodeIds()) == sorted(radii)
    assert ElementTypes(model_part) == [element_type]
    AssertNodal(model_part, tessera.RADIUS, radii)
    for element in model_part.Elements:
        assert element.GetGeometry().Name() == "Sphere3D1"


ZERO_MOTION = {"LINEAR_VELOCITY": (0.0, 0.0, 0.0), "ANGULAR_VELOCITY": (0.0, 0.0, 0.0),
               "ROTATION_CENTER": (0.0, 0.0, 0.0), "VELOCITY_PERIOD": 0.0,
               "ANGULAR_VELOCITY_PERIOD": 0.0}


# ------------------------------------------------------------------ dem3d_chung_ooi
def Check_chung_ooi_test1(mp):
    # README test1: two spheres radius 0.01 at (0, +-0.01, 0); VELOCITY_Y -10 / +10.
    AssertSpheres(mp, {1: 0.01, 2: 0.01})
    AssertCoordinates(mp, {1: (0.0, 0.01, 0.0), 2: (0.0, -0.01, 0.0)})
    AssertNodal(mp, tessera.VELOCITY_Y, {1: -10.0, 2: 10.0})
    AssertNodal(mp, tessera.VELOCITY_X, {1: 0.0, 2: 0.0})
    assert mp.GetSubModelPart("Parts_Body").NumberOfElements() == 2


def Check_chung_ooi_test2(mp):
    # README test2: one sphere radius 0.1 at (0, 0.1, 0), VELOCITY_Y -0.2.
    AssertSpheres(mp, {1: 0.1})
    AssertCoordinates(mp, {1: (0.0, 0.1, 0.0)})
    AssertNodal(mp, tessera.VELOCITY_Y, {1: -0.2})


def Check_chung_ooi_sphere_3_4(mp):
    # README test3 (test4: "same sphere/wall geometry"): radius 0.0025 at
    # (0, 0.002501, 0), VELOCITY_Y -3.9.
    AssertSpheres(mp, {1: 0.0025})
    AssertCoordinates(mp, {1: (0.0, 0.002501, 0.0)})
    AssertNodal(mp, tessera.VELOCITY_Y, {1: -3.9})


def Check_chung_ooi_wall_3_4(mp):
    # README test3: one RigidFace3D3N in the plane y = 0 with these nodes; wall
    # keys with RIGID_BODY_MOTION 1, FIXED_MESH_OPTION 0, all zero motion.
    AssertCounts(mp, 3, 0, 1, ["1"])
    assert ConditionGeometries(mp) == {("RigidFace3D3N", "Triangle3D3"): 1}
    AssertCoordinates(mp, {2: (-0.0025, 0.0, -0.005), 3: (-0.0025, 0.0, 0.0025),
                           4: (0.005, 0.0, 0.0025)})
    assert WallArea(mp) == pytest.approx(0.5 * 0.0075 * 0.0075, rel=1e-12)
    wall = mp.GetSubModelPart("1")
    AssertData(wall, dict(ZERO_MOTION, RIGID_BODY_MOTION=True, FIXED_MESH_OPTION=False,
                          FREE_BODY_MOTION=False, IS_GHOST=False))
    # From the file: motion window, identifier and the material-test markers.
    AssertData(wall, {"VELOCITY_STOP_TIME": 100.0, "ANGULAR_VELOCITY_STOP_TIME": 100.0,
                      "IDENTIFIER": "floor", "TOP": 0, "BOTTOM": 0, "FORCE_INTEGRATION_GROUP": 0})


# ------------------------------------------------------------------ dem3d_clusters
def Check_clusters_clusters(mp):
    # README: Cluster3D 110, 111 on nodes 100 (0.31, 0.0285, 0) and 101
    # (0.31, 0.0495, 0), CHARACTERISTIC_LENGTH 0.028, ORIENTATION identity.
    AssertCounts(mp, 2, 2, 0, ["Parts_cluster"])
    assert sorted(e.Id for e in mp.Elements) == [110, 111]
    assert ElementTypes(mp) == ["Cluster3D"]
    AssertCoordinates(mp, {100: (0.31, 0.0285, 0.0), 101: (0.31, 0.0495, 0.0)})
    AssertNodal(mp, tessera.CHARACTERISTIC_LENGTH, {100: 0.028, 101: 0.028})
    for node_id in (100, 101):
        q = mp.GetNode(node_id).GetSolutionStepValue(tessera.ORIENTATION)
        assert (q.W, q.X, q.Y, q.Z) == (1.0, 0.0, 0.0, 0.0)


def Check_clusters_walls(mp):
    # README: RigidFace3D3N obstacle (52 triangles, DEM-FEM-Wall_obst) and a
    # RigidFace3D2N line (54 segments, DEM-FEM-Wall_boundaryLine).
    AssertCounts(mp, 92, 0, 106, ["DEM-FEM-Wall_obst", "DEM-FEM-Wall_boundaryLine"])
    assert ConditionGeometries(mp) == {("RigidFace3D3N", "Triangle3D3"): 52,
                                       ("RigidFace3D2N", "Line3D2"): 54}
    obstacle = mp.GetSubModelPart("DEM-FEM-Wall_obst")
    line = mp.GetSubModelPart("DEM-FEM-Wall_boundaryLine")
    assert ConditionGeometries(obstacle) == {("RigidFace3D3N", "Triangle3D3"): 52}
    assert ConditionGeometries(line) == {("RigidFace3D2N", "Line3D2"): 54}
    # From the file: both walls are fixed rigid walls.
    for wall, name in ((obstacle, "obst"), (line, "boundaryLine")):
        AssertData(wall, dict(ZERO_MOTION, RIGID_BODY_MOTION=True, IS_GHOST=False,
                              IDENTIFIER=name, VELOCITY_STOP_TIME=100.0))


# ------------------------------------------------------------------ dem3d_contact
def Check_contact_spheres(mp):
    # README: four spheres, radii 0.2986-0.3568 (exact values from the file),
    # starting just above the floor z = 0.
    radii = {14: 0.326364, 15: 0.327858, 20: 0.35679, 21: 0.298592}
    AssertSpheres(mp, radii)
    assert all(0.2985 <= r <= 0.3568 for r in radii.values())
    assert sorted(e.Id for e in mp.Elements) == [1, 4, 5, 6]
    for node in mp.Nodes:
        assert node.Z - node.GetSolutionStepValue(tessera.RADIUS) > 0.0  # above the floor
    AssertCoordinates(mp, {14: (-0.6207122029, -0.0334263737, 0.40)})


def Check_contact_floor(mp):
    # README: flat floor z = 0 of 18 RigidFace3D3N triangles, 6 x 6 square on a
    # 2 m grid; wall node 9 at (-1,-1,0) and 17 at (-1,1,0); friction tan(30 deg).
    AssertCounts(mp, 16, 0, 18, ["1"])
    assert ConditionGeometries(mp) == {("RigidFace3D3N", "Triangle3D3"): 18}
    for node in mp.Nodes:
        assert node.Z == 0.0 and node.X in (-3.0, -1.0, 1.0, 3.0) and node.Y in (-3.0, -1.0, 1.0, 3.0)
    assert WallArea(mp) == pytest.approx(36.0, rel=1e-12)
    AssertCoordinates(mp, {9: (-1.0, -1.0, 0.0), 17: (-1.0, 1.0, 0.0)})
    AssertData(mp.GetSubModelPart("1"), {"IS_GHOST": False, "IDENTIFIER": "Floor"})
    wall_material = mp.GetProperties(2)
    AssertData(wall_material, {"STATIC_FRICTION": math.tan(math.radians(30.0)),
                               "DYNAMIC_FRICTION": math.tan(math.radians(30.0)),
                               "COMPUTE_WEAR": False, "YOUNG_MODULUS": 1e20})


# ------------------------------------------------------------------ dem3d_glued_particles
def Check_glued_sphere(mp):
    # README: one sphere, node 3 at (-1, 1, 0.4), radius 0.5, SphericParticle3D;
    # a Table 0 TIME VELOCITY (constant 0) to parse.
    AssertSpheres(mp, {3: 0.5})
    assert [e.Id for e in mp.Elements] == [10]  # from the file
    AssertCoordinates(mp, {3: (-1.0, 1.0, 0.4)})
    assert mp.HasTable(0) and mp.GetTable(0).GetValue(0.5) == 0.0


def Check_glued_wall(mp):
    # README: 9 RigidFace3D3N triangles in the plane z = 0; IS_STICKY 1,
    # RIGID_BODY_MOTION 1, ANGULAR_VELOCITY (2, 0, 0) about ROTATION_CENTER
    # (-1, 1, 0), active 0...1000 s, no linear velocity.
    AssertCounts(mp, 9, 0, 9, ["0"])
    assert ConditionGeometries(mp) == {("RigidFace3D3N", "Triangle3D3"): 9}
    assert all(node.Z == 0.0 for node in mp.Nodes)
    AssertData(mp.GetSubModelPart("0"), {
        "IS_STICKY": True, "RIGID_BODY_MOTION": True, "FREE_BODY_MOTION": False,
        "ANGULAR_VELOCITY": (2.0, 0.0, 0.0), "ROTATION_CENTER": (-1.0, 1.0, 0.0),
        "LINEAR_VELOCITY": (0.0, 0.0, 0.0), "ANGULAR_VELOCITY_START_TIME": 0.0,
        "ANGULAR_VELOCITY_STOP_TIME": 1000.0, "IDENTIFIER": "DEM-wall1"})


# ------------------------------------------------------------------ dem3d_kinematic_constraints
def Check_kinematic_spheres(mp):
    # README: 8 spheres radius 0.25, node i at x = 8 - i; Ball k holds sphere k;
    # Parts_Parts_Auto1 holds 1-6; Tables 1-6 linear 0 -> 10 on [0, 1], listed
    # in Ball5's SubModelPartTables.
    AssertSpheres(mp, {i: 0.25 for i in range(1, 9)})
    AssertCoordinates(mp, {i: (8.0 - i, 0.0, 0.0) for i in range(1, 9)})
    for k in range(1, 6):
        ball = mp.GetSubModelPart(f"Ball{k}")
        assert list(ball.NodeIds()) == [k] and [e.Id for e in ball.Elements] == [k]
    assert sorted(mp.GetSubModelPart("Parts_Parts_Auto1").NodeIds()) == [1, 2, 3, 4, 5, 6]
    ball5 = mp.GetSubModelPart("Ball5")
    for table_id in range(1, 7):
        assert ball5.HasTable(table_id)
        assert mp.GetTable(table_id).GetValue(0.25) == pytest.approx(2.5, rel=1e-14)
    assert not mp.GetSubModelPart("Ball4").HasTable(1)
    # From the file: this deck keeps an inline particle material.
    AssertData(mp.GetProperties(1), {"PARTICLE_DENSITY": 2500.0, "PARTICLE_MATERIAL": 1,
                                     "STATIC_FRICTION": 0.009138776996010534,
                                     "DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME":
                                         "DEM_D_Hertz_viscous_Coulomb"})


def Check_kinematic_cubes(mp):
    # README: two cubes of 12 RigidFace3D3N (edge 0.5) centred at (8,0,0) and
    # (9,0,0) with RIGID_BODY_MASS 1, RIGID_BODY_INERTIAS 0.66667, FREE_BODY_MOTION
    # 1; tables 7-12 end at 10, 3, 0.6, 0.75, 4, 9 (t = 1), listed by Cube2;
    # mdpa node 3 at (8.25, 0.25, -0.25), node 15 at (8.75, 0.25, -0.25).
    AssertCounts(mp, 16, 0, 24, ["Cube1", "Cube2"])
    for name, centre in (("Cube1", (8.0, 0.0, 0.0)), ("Cube2", (9.0, 0.0, 0.0))):
        cube = mp.GetSubModelPart(name)
        assert ConditionGeometries(cube) == {("RigidFace3D3N", "Triangle3D3"): 12}
        assert WallArea(cube) == pytest.approx(6 * 0.5 * 0.5, rel=1e-12)
        AssertData(cube, {"RIGID_BODY_MASS": 1.0, "RIGID_BODY_CENTER_OF_MASS": centre,
                          "RIGID_BODY_INERTIAS": (0.66667, 0.66667, 0.66667),
                          "FREE_BODY_MOTION": True, "IDENTIFIER": "Cube"})
    AssertCoordinates(mp, {3: (8.25, 0.25, -0.25), 15: (8.75, 0.25, -0.25)})
    cube2 = mp.GetSubModelPart("Cube2")
    for table_id, end in zip(range(7, 13), (10.0, 3.0, 0.6, 0.75, 4.0, 9.0)):
        assert cube2.HasTable(table_id)
        assert mp.GetTable(table_id).GetValue(1.0) == pytest.approx(end, rel=1e-14)


# ------------------------------------------------------------------ dem_benchmarks_2019
LEGACY_WALL = {"VELOCITY": (0.0, 0.0, 0.0), "ANGULAR_VELOCITY": (0.0, 0.0, 0.0),
               "ROTATION_CENTER": (0.0, 0.0, 0.0), "VELOCITY_STOP_TIME": 1000.0,
               "FIXED_MESH_OPTION": False}


def Check_benchmark1_spheres(mp):
    # README benchmark 1: two spheres r 0.01 at x = 0.025 and 0, E 2e10,
    # nu 0.25, rho 2500, e = 1; the driver sets the velocities (the mdpa
    # VELOCITY_X lines are commented out, so they stay 0). Legacy Mesh blocks
    # become sub model parts "1" and "2".
    AssertSpheres(mp, {1: 0.01, 2: 0.01})
    AssertCoordinates(mp, {1: (0.025, 0.0, 0.0), 2: (0.0, 0.0, 0.0)})
    AssertNodal(mp, tessera.VELOCITY_X, {1: 0.0, 2: 0.0})
    assert list(mp.GetSubModelPart("1").NodeIds()) == [1]
    assert list(mp.GetSubModelPart("2").NodeIds()) == [2]
    AssertData(mp.GetProperties(1), {"PARTICLE_DENSITY": 2500.0, "YOUNG_MODULUS": 2e10,
                                     "POISSON_RATIO": 0.25, "COEFFICIENT_OF_RESTITUTION": 1.0,
                                     "FRICTION": 0.35})


def Check_benchmark2_spheres(mp):
    # README benchmark 2: sphere r 0.1 against a plane; the driver sets
    # VELOCITY_Z = -0.2 (the file writes 0). Centre and material from the file.
    AssertSpheres(mp, {1: 0.1})
    AssertCoordinates(mp, {1: (1.8, 2.12, 0.101)})
    AssertNodal(mp, tessera.VELOCITY_Z, {1: 0.0})
    AssertData(mp.GetProperties(1), {"PARTICLE_DENSITY": 1800.0, "YOUNG_MODULUS": 4e10,
                                     "POISSON_RATIO": 0.35})


def Check_benchmark2_wall(mp):
    # README benchmark 2: a rigid plane. From the file: two triangles of the
    # square [0, 4.24264]^2 at z = 0, legacy Mesh 1 with zero motion,
    # FORCE_INTEGRATION_GROUP 1 and COMPUTE_WEAR written as 1.
    AssertCounts(mp, 4, 0, 2, ["1"])
    assert all(node.Z == 0.0 for node in mp.Nodes)
    assert WallArea(mp) == pytest.approx(4.24264 ** 2, rel=1e-12)
    AssertData(mp.GetSubModelPart("1"), dict(LEGACY_WALL, IDENTIFIER="plane",
                                             FORCE_INTEGRATION_GROUP=1, TOP=0, BOTTOM=0))
    AssertData(mp.GetProperties(0), {"COMPUTE_WEAR": True, "YOUNG_MODULUS": 1e20, "FRICTION": 0.0})


def Check_benchmark3_spheres(mp):
    # README benchmark 3: r 0.0025 at z 0.00255, v_z -3.9 from the mdpa
    # NodalData. From the file: the legacy MeshData repeats it as
    # INITIAL_VELOCITY_Z_VALUE; restitution 0.5 before the driver overrides it.
    AssertSpheres(mp, {1: 0.0025})
    AssertCoordinates(mp, {1: (0.0, 0.0, 0.00255)})
    AssertNodal(mp, tessera.VELOCITY_Z, {1: -3.9})
    AssertData(mp.GetSubModelPart("1"), {"INITIAL_VELOCITY_X_VALUE": 0.0,
                                         "INITIAL_VELOCITY_Z_VALUE": -3.9,
                                         "FORCE_INTEGRATION_GROUP": 1})
    AssertData(mp.GetProperties(1), {"COEFFICIENT_OF_RESTITUTION": 0.5, "YOUNG_MODULUS": 3.8e11})


def Check_benchmark3_wall(mp):
    # README benchmark 3: a plane; from the file: the square [-0.01, 0.01]^2 at z = 0.
    AssertCounts(mp, 4, 0, 2, ["1"])
    assert all(node.Z == 0.0 for node in mp.Nodes)
    assert WallArea(mp) == pytest.approx(4e-4, rel=1e-12)
    AssertData(mp.GetSubModelPart("1"), dict(LEGACY_WALL, IDENTIFIER="plane"))


def Check_benchmark12_sphere(mp):
    # README benchmark 12: sphere r 0.0026, rho 1, E 2.6e7, ROLLING_FRICTION 0.2
    # (also with walls), initial VELOCITY_X 0.15 from the mdpa NodalData.
    AssertSpheres(mp, {1: 0.0026})
    AssertNodal(mp, tessera.VELOCITY_X, {1: 0.15})
    AssertData(mp.GetProperties(1), {"PARTICLE_DENSITY": 1.0, "YOUNG_MODULUS": 2.6e7,
                                     "ROLLING_FRICTION": 0.2, "ROLLING_FRICTION_WITH_WALLS": 0.2})


def Check_benchmark12_wall(mp):
    # README benchmark 12: one RigidFace3D4N quad in y = 0. From the file: it
    # spans x in [-0.003, 0.008], z in [-0.003, 0.003]; sub model part FEM.
    AssertCounts(mp, 4, 0, 1, ["FEM"])
    assert ConditionGeometries(mp) == {("RigidFace3D4N", "Quadrilateral3D4"): 1}
    assert all(node.Y == 0.0 for node in mp.Nodes)
    assert WallArea(mp) == pytest.approx(0.011 * 0.006, rel=1e-12)
    AssertData(mp.GetSubModelPart("FEM"), {"PROPERTIES_ID": 0, "RIGID_BODY_MOTION": False,
                                           "IDENTIFIER": "FEM"})


def Check_benchmark13_sphere(mp):
    # README benchmark 13: sphere r 0.3, rho 100, E 1e5; its node id is 973.
    AssertSpheres(mp, {973: 0.3})
    AssertData(mp.GetProperties(1), {"PARTICLE_DENSITY": 100.0, "YOUNG_MODULUS": 1e5})


def Check_benchmark14_15_sphere(mp):
    # README benchmarks 14-15: same sphere as 13, here with node id 1
    # ("node 1 exists"). Centre from the file.
    AssertSpheres(mp, {1: 0.3})
    AssertCoordinates(mp, {1: (0.0, 1.0, 0.0)})


def MakeSurfaceCheck(nodes, triangles, coordinates, flat_area=None):
    """Benchmarks 13-16: finely triangulated DE/FE surfaces (README); counts and
    sample coordinates come from the file (written zero-padded: 000001, -00.05)."""

    def Check(mp):
        AssertCounts(mp, nodes, 0, triangles, ["FEM"])
        assert ConditionGeometries(mp) == {("RigidFace3D3N", "Triangle3D3"): triangles}
        AssertCoordinates(mp, coordinates)
        if flat_area is not None:
            assert all(node.Y == 0.0 for node in mp.Nodes)
            assert WallArea(mp) == pytest.approx(flat_area, rel=1e-9)
        AssertData(mp.GetSubModelPart("FEM"), {"PROPERTIES_ID": 0, "RIGID_BODY_MOTION": False})

    return Check


def Check_benchmark16_spheres(mp):
    # README benchmark 16: three spheres, nodes 1-3; radii and heights from the file.
    AssertSpheres(mp, {1: 0.3, 2: 0.3, 3: 0.3})
    AssertCoordinates(mp, {1: (-0.8, 1.0, -0.8), 2: (-0.1, 1.0, -0.1), 3: (0.64, 1.0, 0.64)})


def Check_benchmark17_spheres(mp):
    # README benchmark 17: two spheres rolling; radius and VELOCITY_X 5 from the file.
    AssertSpheres(mp, {1: 0.3, 2: 0.3})
    AssertNodal(mp, tessera.VELOCITY_X, {1: 5.0, 2: 5.0})


def Check_benchmark17_walls(mp):
    # README benchmark 17: a fine and a gross triangulation in sub model parts
    # fem_fine and fem_gross. From the file: the "fine" one is a single
    # RigidFace3D4N quad of 5 x 1, the gross one 80 RigidFace3D3N; the sub model
    # parts list nodes only.
    AssertCounts(mp, 59, 0, 81, ["fem_fine", "fem_gross"])
    assert ConditionGeometries(mp) == {("RigidFace3D4N", "Quadrilateral3D4"): 1,
                                       ("RigidFace3D3N", "Triangle3D3"): 80}
    assert mp.GetCondition(2).GetGeometry().DomainSize() == pytest.approx(5.0, rel=1e-12)
    fine, gross = mp.GetSubModelPart("fem_fine"), mp.GetSubModelPart("fem_gross")
    assert fine.NumberOfNodes() == 4 and fine.NumberOfConditions() == 0
    AssertData(fine, {"PROPERTIES_ID": 0, "IDENTIFIER": "fem_fine"})
    AssertData(gross, {"PROPERTIES_ID": 1, "IDENTIFIER": "fem_gross"})


def Check_benchmark27_spheres(mp):
    # README benchmark 27: 52 bonded spheres (SphericContinuumParticle3D,
    # DEM_Dempack, COHESIVE_GROUP). Group value and bond parameters from the file.
    assert mp.NumberOfNodes() == 52 and mp.NumberOfElements() == 52
    assert ElementTypes(mp) == ["SphericContinuumParticle3D"]
    for node in mp.Nodes:
        assert node.GetSolutionStepValue(tessera.COHESIVE_GROUP) == 1
        assert 0.0178 < node.GetSolutionStepValue(tessera.RADIUS) < 0.0323  # file: 0.01783-0.03222
    AssertNodal(mp, tessera.RADIUS, {19: 0.01819375151379729, 55: 0.023782930667615162})
    AssertData(mp.GetProperties(1), {
        "DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME": "DEM_Dempack",
        "DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME": "DEM_D_Linear_viscous_Coulomb",
        "CONTACT_TAU_ZERO": 8e6, "CONTACT_SIGMA_MIN": 5e6, "CONTACT_INTERNAL_FRICC": 1.0,
        "YOUNG_MODULUS_PLASTIC": 35e9, "PLASTIC_YIELD_STRESS": 1000e6, "SLOPE_FRACTION_N1": 1.0})


def Check_benchmark27_plates(mp):
    # README benchmark 27: rigid plates "top" (v_y -0.05) and "bot" (v_y +0.05),
    # legacy Mesh 1 and 2. Heights and TOP marker from the file.
    AssertCounts(mp, 8, 0, 4, ["1", "2"])
    AssertData(mp.GetSubModelPart("1"), {"IDENTIFIER": "top", "VELOCITY": (0.0, -0.05, 0.0),
                                         "RIGID_BODY_MOTION": True, "TOP": 1, "BOTTOM": 0})
    AssertData(mp.GetSubModelPart("2"), {"IDENTIFIER": "bot", "VELOCITY": (0.0, 0.05, 0.0),
                                         "RIGID_BODY_MOTION": True, "TOP": 0})
    assert all(mp.GetNode(i).Y == 0.3 for i in (52, 58, 59, 60))
    assert all(mp.GetNode(i).Y == 0.0 for i in (1, 23, 24, 46))


# ------------------------------------------------------------------ demstruct_ball_and_box
def Check_ball_and_box_inlet(mp):
    # README: one inlet node at (0.5, 0.5, 1.2), sub model part "1": ELEMENT_TYPE
    # SphericParticle3D, VELOCITY (0,0,-1), RADIUS 0.2, STANDARD_DEVIATION 0
    # (normal), MASS_FLOW 0.2, INLET_NUMBER_OF_PARTICLES 50,
    # IMPOSED_MASS_FLOW_OPTION 0, start 0, stop 0.5, MAX_RAND_DEVIATION_ANGLE 1,
    # RANDOM_ORIENTATION 1, PROPERTIES_ID 1; Properties 1: density 1e4, E 1e7,
    # nu 0.2, PARTICLE_FRICTION 0.5, restitution 0.2, ROLLING_FRICTION 0.01.
    AssertCounts(mp, 1, 0, 0, ["1"])
    AssertCoordinates(mp, {1: (0.5, 0.5, 1.2)})
    AssertData(mp.GetSubModelPart("1"), {
        "ELEMENT_TYPE": "SphericParticle3D", "INJECTOR_ELEMENT_TYPE": "SphericParticle3D",
        "VELOCITY": (0.0, 0.0, -1.0), "RADIUS": 0.2, "STANDARD_DEVIATION": 0.0,
        "PROBABILITY_DISTRIBUTION": "normal", "MASS_FLOW": 0.2, "INLET_NUMBER_OF_PARTICLES": 50.0,
        "IMPOSED_MASS_FLOW_OPTION": False, "INLET_START_TIME": 0.0, "INLET_STOP_TIME": 0.5,
        "MAX_RAND_DEVIATION_ANGLE": 1.0, "RANDOM_ORIENTATION": True, "PROPERTIES_ID": 1,
        "CONTAINS_CLUSTERS": False, "RIGID_BODY_MOTION": False, "IDENTIFIER": "Inlet0"})
    q = mp.GetSubModelPart("1")[tessera.ORIENTATION]  # from the file
    assert (q.W, q.X, q.Y, q.Z) == (0.0, 0.0, 0.0, 1.0)
    AssertData(mp.GetProperties(1), {
        "PARTICLE_DENSITY": 1e4, "YOUNG_MODULUS": 1e7, "POISSON_RATIO": 0.2,
        "PARTICLE_FRICTION": 0.5, "COEFFICIENT_OF_RESTITUTION": 0.2, "ROLLING_FRICTION": 0.01,
        "DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME": "DEM_D_Hertz_viscous_Coulomb"})


# Every DEM deck and what it must hold. Empty decks: README of
# dem_benchmarks_2019 ("all clusters files are EMPTY", the shared inlet file is
# an empty model part, benchmark 1 needs no wall) and of demstruct_ball_and_box
# (spheres and walls files hold only an empty ModelPartData, clusters file 0 bytes).
BENCH = "dem_benchmarks_2019/basic_benchmarks/"
BALL = "demstruct_ball_and_box/ball_and_box.gid/"
CHECKS = {
    "dem3d_chung_ooi/test1_data/test1DEM.mdpa": Check_chung_ooi_test1,
    "dem3d_chung_ooi/test2_data/test2DEM.mdpa": Check_chung_ooi_test2,
    "dem3d_chung_ooi/test3_data/test3DEM.mdpa": Check_chung_ooi_sphere_3_4,
    "dem3d_chung_ooi/test3_data/test3DEM_FEM_boundary.mdpa": Check_chung_ooi_wall_3_4,
    "dem3d_chung_ooi/test4_data/test4DEM.mdpa": Check_chung_ooi_sphere_3_4,
    "dem3d_chung_ooi/test4_data/test4DEM_FEM_boundary.mdpa": Check_chung_ooi_wall_3_4,
    "dem3d_clusters/dempartDEM_Clusters.mdpa": Check_clusters_clusters,
    "dem3d_clusters/dempartDEM_FEM_boundary.mdpa": Check_clusters_walls,
    "dem3d_contact/DEM3D_contactDEM.mdpa": Check_contact_spheres,
    "dem3d_contact/DEM3D_contactDEM_FEM_boundary.mdpa": Check_contact_floor,
    "dem3d_glued_particles/sticky_wall_testDEM.mdpa": Check_glued_sphere,
    "dem3d_glued_particles/sticky_wall_testDEM_FEM_boundary.mdpa": Check_glued_wall,
    "dem3d_kinematic_constraints/processesDEM.mdpa": Check_kinematic_spheres,
    "dem3d_kinematic_constraints/processesDEM_FEM_boundary.mdpa": Check_kinematic_cubes,
    BENCH + "benchmark1DEM.mdpa": Check_benchmark1_spheres,
    BENCH + "benchmark1DEM_FEM_boundary.mdpa": AssertEmpty,
    BENCH + "benchmark2DEM.mdpa": Check_benchmark2_spheres,
    BENCH + "benchmark2DEM_FEM_boundary.mdpa": Check_benchmark2_wall,
    BENCH + "benchmark3DEM.mdpa": Check_benchmark3_spheres,
    BENCH + "benchmark3DEM_FEM_boundary.mdpa": Check_benchmark3_wall,
    BENCH + "benchmark12DEM.mdpa": Check_benchmark12_sphere,
    BENCH + "benchmark12DEM_FEM_boundary.mdpa": Check_benchmark12_wall,
    BENCH + "benchmark13DEM.mdpa": Check_benchmark13_sphere,
    BENCH + "benchmark13DEM_FEM_boundary.mdpa": MakeSurfaceCheck(
        1881, 3600, {1: (1.0, 0.0, -1.0), 2: (0.95, 0.0, -1.0)}, flat_area=4.0),
    BENCH + "benchmark14DEM.mdpa": Check_benchmark14_15_sphere,
    BENCH + "benchmark14DEM_FEM_boundary.mdpa": MakeSurfaceCheck(
        2619, 5044, {4: (0.0, 0.0, -1e-6), 5: (0.0, 0.0, -0.05)}),
    BENCH + "benchmark15DEM.mdpa": Check_benchmark14_15_sphere,
    BENCH + "benchmark15DEM_FEM_boundary.mdpa": MakeSurfaceCheck(
        2655, 5148, {4: (0.0, 0.0, 0.0), 5: (-0.0285714, -0.0285714, 0.0285714)}),
    BENCH + "benchmark16DEM.mdpa": Check_benchmark16_spheres,
    BENCH + "benchmark16DEM_FEM_boundary.mdpa": MakeSurfaceCheck(
        # A grid with holes: its area (2.96 of the 2 x 2 square) from the file.
        1464, 2613, {7: (-0.9, 0.0, -0.8), 8: (-0.8, 0.0, -0.9)}, flat_area=2.96),
    BENCH + "benchmark17DEM.mdpa": Check_benchmark17_spheres,
    BENCH + "benchmark17DEM_FEM_boundary.mdpa": Check_benchmark17_walls,
    BENCH + "benchmark27DEM.mdpa": Check_benchmark27_spheres,
    BENCH + "benchmark27DEM_FEM_boundary.mdpa": Check_benchmark27_plates,
    BENCH + "benchmarkDEM_Inlet.mdpa": AssertEmpty,
    BALL + "ball_and_boxDEM.mdpa": AssertEmpty,
    BALL + "ball_and_boxDEM_FEM_boundary.mdpa": AssertEmpty,
    BALL + "ball_and_boxDEM_Clusters.mdpa": AssertEmpty,
    BALL + "ball_and_boxDEM_Inlet.mdpa": Check_ball_and_box_inlet,
}
for _n in (1, 2, 3, 12, 13, 14, 15, 16, 17, 27):
    CHECKS[BENCH + f"benchmark{_n}DEM_Clusters.mdpa"] = AssertEmpty


def test_every_dem_deck_has_its_checks():
    """A DEM deck added to the shared cases (or one removed) must show up here."""
    assert FindDemDecks() == set(CHECKS)


@pytest.mark.parametrize("relative_path", sorted(CHECKS))
def test_dem_deck_reads_and_holds_what_its_readme_states(relative_path):
    _, model_part = ReadDeck(relative_path)
    CHECKS[relative_path](model_part)
    # Every wall is a usable face (no degenerate triangle, quad or segment).
    for condition in model_part.Conditions:
        assert condition.Check(model_part.ProcessInfo) == 0


# ------------------------------------------------------------------ particles and their materials
def LegacyMaterialInMdpa(model_part):
    return all(e.GetProperties().Has(tessera.PARTICLE_DENSITY) for e in model_part.Elements)


@pytest.mark.parametrize("relative_path", sorted(
    p for p in CHECKS if p.startswith(BENCH) and p.endswith(("DEM.mdpa", "Clusters.mdpa"))))
def test_legacy_particles_pass_check_with_their_mdpa_material(relative_path):
    """Pre-2020 decks carry the particle material in the mdpa Properties."""
    _, model_part = ReadDeck(relative_path)
    assert LegacyMaterialInMdpa(model_part)
    for element in model_part.Elements:
        assert element.Check(model_part.ProcessInfo) == 0


def AssignMaterials(model, materials_path):
    """MaterialsDEM.json (docs/file_formats.md §4), the part this test needs:
    each material becomes a Properties (id = material_id) holding its
    Variables, given to every element and condition of the model parts of the
    assignation table."""
    with open(materials_path) as f:
        materials = json.load(f)
    by_key = {}
    for material in materials["materials"]:
        properties = tessera.Properties(material["material_id"])
        for name, value in material["Variables"].items():
            properties.SetValue(tessera.GetVariable(name), value)
        by_key[material["material_name"]] = by_key[material["material_id"]] = properties
    for path, key in materials["material_assignation_table"]:
        if not model.HasModelPart(path.split(".")[0]):
            continue
        target = model.GetModelPart(path)
        for entity in list(target.Elements) + list(target.Conditions):
            entity.SetProperties(by_key[key])


# 2020+ decks: the spheres/clusters deck, the walls deck (if any) and the
# materials file the case's ProjectParameters names.
MATERIAL_CASES = {
    "chung_ooi_test1": (["dem3d_chung_ooi/test1_data/test1DEM.mdpa"],
                        "dem3d_chung_ooi/test1_data/Materials1.json"),
    "chung_ooi_test2": (["dem3d_chung_ooi/test2_data/test2DEM.mdpa"],
                        "dem3d_chung_ooi/test2_data/Materials2.json"),
    "chung_ooi_test3": (["dem3d_chung_ooi/test3_data/test3DEM.mdpa",
                         "dem3d_chung_ooi/test3_data/test3DEM_FEM_boundary.mdpa"],
                        "dem3d_chung_ooi/test3_data/Materials31.json"),
    "chung_ooi_test4": (["dem3d_chung_ooi/test4_data/test4DEM.mdpa",
                         "dem3d_chung_ooi/test4_data/test4DEM_FEM_boundary.mdpa"],
                        "dem3d_chung_ooi/test4_data/Materials4.json"),
    "clusters": (["dem3d_clusters/dempartDEM_Clusters.mdpa",
                  "dem3d_clusters/dempartDEM_FEM_boundary.mdpa"],
                 "dem3d_clusters/MaterialsDEM2.json"),
    "contact": (["dem3d_contact/DEM3D_contactDEM.mdpa",
                 "dem3d_contact/DEM3D_contactDEM_FEM_boundary.mdpa"],
                "dem3d_contact/MaterialsDEM.json"),
    "glued": (["dem3d_glued_particles/sticky_wall_testDEM.mdpa",
               "dem3d_glued_particles/sticky_wall_testDEM_FEM_boundary.mdpa"],
              "dem3d_glued_particles/MaterialsDEM.json"),
    "kinematic": (["dem3d_kinematic_constraints/processesDEM.mdpa",
                   "dem3d_kinematic_constraints/processesDEM_FEM_boundary.mdpa"],
                  "dem3d_kinematic_constraints/MaterialsDEM.json"),
}


@pytest.mark.parametrize("case", sorted(MATERIAL_CASES))
def test_particles_pass_check_once_the_materials_file_is_assigned(case):
    decks, materials = MATERIAL_CASES[case]
    model = tessera.Model()
    particle_parts = []
    for deck in decks:
        _, model_part = ReadDeck(deck, model)
        if model_part.NumberOfElements():
            particle_parts.append(model_part)
    assert particle_parts
    for model_part in particle_parts:
        element = next(iter(model_part.Elements))
        if not LegacyMaterialInMdpa(model_part):
            # The mdpa Properties are empty: the material is missing, and Check says which.
            with pytest.raises(tessera.Error, match=rf"element {element.Id}\b.*PARTICLE_DENSITY"):
                element.Check(model_part.ProcessInfo)
    AssignMaterials(model, os.path.join(CASES, materials))
    for model_part in particle_parts:
        for element in model_part.Elements:
            assert element.Check(model_part.ProcessInfo) == 0
            assert element.GetProperties().Has(tessera.POISSON_RATIO)


def MaterialsFiles():
    files = set()
    for case in DEM_CASES:
        for pattern in ("Materials*.json", "MaterialsDEM*.json"):
            for path in glob.glob(os.path.join(CASES, case, "**", pattern), recursive=True):
                files.add(os.path.relpath(path, CASES))
    return sorted(files)


def test_materials_files_are_found():
    # 16 materials files in the DEM cases (chung_ooi 1, 2, 31-36, 4; clusters,
    # contact, continuum_bond, glued, kinematic, restitution x2).
    assert len(MaterialsFiles()) == 16


@pytest.mark.parametrize("relative_path", MaterialsFiles())
def test_every_materials_variable_is_registered_with_a_type_that_takes_its_value(relative_path):
    """Materials and relation Variables are copied by name (docs/file_formats.md §4): each
    name must be a registered variable whose type accepts the JSON value."""
    with open(os.path.join(CASES, relative_path)) as f:
        materials = json.load(f)
    blocks = materials["materials"] + materials.get("material_relations", [])
    assert blocks
    for block in blocks:
        properties = tessera.Properties(1)
        for name, value in block["Variables"].items():
            assert tessera.HasVariable(name), f"{relative_path}: {name} is not registered"
            variable = tessera.GetVariable(name)
            properties.SetValue(variable, value)
            got = properties.GetValue(variable)
            if isinstance(value, float):
                assert got == pytest.approx(value, rel=1e-15), name
            else:
                assert got == value, name
