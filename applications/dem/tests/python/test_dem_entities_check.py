"""The dem application's registrations and the Check() of its particles and walls.

Particles and walls are data carriers (the DEM strategy does the physics), so
what they must get right is the registry (names, geometries, a class per name so
that written decks keep their names) and Check(): a particle without a usable
radius or material, or a degenerate wall, is rejected with a message naming the
entity, the variable and the value.
"""
import math

import pytest

import tessera

PARTICLES = ("SphericParticle3D", "SphericContinuumParticle3D", "CylinderParticle2D",
             "SphericPartDEMElement3D", "SphericContPartDEMElement3D")
WALLS = {"RigidFace3D2N": "Line3D2", "RigidFace3D3N": "Triangle3D3",
         "RigidFace3D4N": "Quadrilateral3D4", "RigidEdge3D2N": "Line3D2"}

# A valid DEM particle material (dem3d_contact's mat1).
MATERIAL = {"PARTICLE_DENSITY": 4000.0, "YOUNG_MODULUS": 1e6, "POISSON_RATIO": 0.2}


def MakeSpheres(historical=("RADIUS", "VELOCITY")):
    model = tessera.Model()
    model_part = model.CreateModelPart("SpheresPart")
    for name in historical:
        model_part.AddNodalSolutionStepVariable(tessera.GetVariable(name))
    properties = model_part.GetProperties(1)
    for name, value in MATERIAL.items():
        properties.SetValue(tessera.GetVariable(name), value)
    return model, model_part, properties


def AddSphere(model_part, element_id, radius=0.5, name="SphericParticle3D", properties=None):
    node = model_part.CreateNewNode(element_id, float(element_id), 0.0, 0.0)
    if radius is not None:
        node.SetSolutionStepValue(tessera.RADIUS, radius)
    props = model_part.GetProperties(1) if properties is None else properties
    return model_part.CreateNewElement(name, element_id, [element_id], props)


def CheckError(entity, model_part):
    with pytest.raises(tessera.Error) as error:
        entity.Check(model_part.ProcessInfo)
    return str(error.value)


# ------------------------------------------------------------------ registry
def test_dem_registers_its_entity_names_with_their_geometries():
    for name in PARTICLES + ("Cluster3D",):
        assert tessera.Registry.HasElement(name), name
        assert tessera.Registry.ApplicationOf(name) == "dem"
        assert tessera.Registry.ElementGeometryName(name) == "Sphere3D1"
    for name, geometry in WALLS.items():
        assert tessera.Registry.HasCondition(name), name
        assert tessera.Registry.ApplicationOf(name) == "dem"
        assert tessera.Registry.ConditionGeometryName(name) == geometry
    assert "dem" in tessera.Registry.Applications()


def test_dem_variables_are_attributes_with_the_types_the_decks_need():
    kinds = {
        "PARTICLE_DENSITY": "Double", "COHESIVE_GROUP": "Int", "PARTICLE_MATERIAL": "Int",
        "LINEAR_VELOCITY": "Array3", "ROTATION_CENTER": "Array3", "RIGID_BODY_INERTIAS": "Array3",
        # On/off options: decks write 0/1 and, for IS_GHOST, also false.
        "RIGID_BODY_MOTION": "Bool", "FREE_BODY_MOTION": "Bool", "FIXED_MESH_OPTION": "Bool",
        "IS_GHOST": "Bool", "IS_STICKY": "Bool", "COMPUTE_WEAR": "Bool", "IS_UNBREAKABLE": "Bool",
        "TOP": "Int", "BOTTOM": "Int", "FORCE_INTEGRATION_GROUP": "Int",
        "INLET_NUMBER_OF_PARTICLES": "Double", "PROBABILITY_DISTRIBUTION": "String",
        "DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME": "String", "CLUSTER_FILE_NAME": "String",
        "DEM_PRESSURE": "Double", "CONTACT_FORCES": "Array3", "TOTAL_FORCES": "Array3",
        "DEM_STRESS_TENSOR": "Matrix",
    }
    for name, kind in kinds.items():
        variable = getattr(tessera.dem, name)
        assert variable is getattr(tessera, name)
        assert variable.Kind().name == kind, name
    assert tessera.dem.CONTACT_FORCES_Z.GetSourceVariable() == tessera.CONTACT_FORCES
    assert tessera.LINEAR_VELOCITY_Y.ComponentIndex() == 1


# ------------------------------------------------------------------ spheres
@pytest.mark.parametrize("name", PARTICLES)
def test_a_complete_particle_passes_check(name):
    _, model_part, _ = MakeSpheres()
    element = AddSphere(model_part, 3, radius=0.25, name=name)
    assert element.Check(model_part.ProcessInfo) == 0
    assert element.Info() == f"{name} element 3"


@pytest.mark.parametrize("radius", [0.0, -0.1, math.nan])
def test_a_sphere_with_a_radius_that_is_not_positive_is_rejected(radius):
    _, model_part, _ = MakeSpheres()
    element = AddSphere(model_part, 7, radius=radius)
    message = CheckError(element, model_part)
    assert "SphericParticle3D element 7" in message
    assert "RADIUS must be > 0" in message and f"got {radius:g}" in message
    assert "node 7" in message


def test_a_sphere_without_any_radius_is_rejected():
    _, model_part, _ = MakeSpheres(historical=("VELOCITY",))
    element = AddSphere(model_part, 4, radius=None)
    message = CheckError(element, model_part)
    assert "SphericParticle3D element 4: no RADIUS on node 4" in message


def test_the_radius_may_be_element_data_or_a_non_historical_nodal_value():
    _, model_part, _ = MakeSpheres(historical=("VELOCITY",))
    element = AddSphere(model_part, 1, radius=None)
    element.SetValue(tessera.RADIUS, 0.3)
    assert element.Check(model_part.ProcessInfo) == 0
    other = AddSphere(model_part, 2, radius=None)
    model_part.GetNode(2).SetValue(tessera.RADIUS, 0.2)
    assert other.Check(model_part.ProcessInfo) == 0
    # A negative radius in the element data is reported with where it came from.
    element.SetValue(tessera.RADIUS, -0.3)
    message = CheckError(element, model_part)
    assert "RADIUS must be > 0, got -0.3" in message and "element data" in message


def test_a_declared_but_unset_historical_radius_does_not_hide_a_nodal_value():
    # A stage declares RADIUS historical; a generator set the radius on the node.
    _, model_part, _ = MakeSpheres()
    element = AddSphere(model_part, 1, radius=None)
    model_part.GetNode(1).SetValue(tessera.RADIUS, 0.2)
    assert element.Check(model_part.ProcessInfo) == 0


def test_a_sphere_without_particle_density_is_rejected_naming_it():
    model = tessera.Model()
    model_part = model.CreateModelPart("SpheresPart")
    model_part.AddNodalSolutionStepVariable(tessera.RADIUS)
    properties = model_part.GetProperties(5)
    properties.SetValue(tessera.YOUNG_MODULUS, 1e6)
    properties.SetValue(tessera.POISSON_RATIO, 0.2)
    element = AddSphere(model_part, 12, properties=properties)
    message = CheckError(element, model_part)
    assert "SphericParticle3D element 12" in message
    assert "properties 5 have no PARTICLE_DENSITY" in message


@pytest.mark.parametrize("name,value,expected", [
    ("PARTICLE_DENSITY", 0.0, "PARTICLE_DENSITY must be > 0, got 0"),
    ("PARTICLE_DENSITY", -2500.0, "PARTICLE_DENSITY must be > 0, got -2500"),
    ("YOUNG_MODULUS", 0.0, "YOUNG_MODULUS must be > 0, got 0"),
    ("POISSON_RATIO", -0.1, "POISSON_RATIO must be in [0, 0.5], got -0.1"),
    ("POISSON_RATIO", 0.6, "POISSON_RATIO must be in [0, 0.5], got 0.6"),
])
def test_a_bad_material_value_is_rejected_naming_variable_and_value(name, value, expected):
    _, model_part, properties = MakeSpheres()
    properties.SetValue(tessera.GetVariable(name), value)
    element = AddSphere(model_part, 9, name="SphericContinuumParticle3D")
    message = CheckError(element, model_part)
    assert message.startswith("SphericContinuumParticle3D element 9: ")
    assert expected in message and "(properties 1)" in message


@pytest.mark.parametrize("name", ["YOUNG_MODULUS", "POISSON_RATIO"])
def test_a_material_missing_a_constant_is_rejected(name):
    _, model_part, properties = MakeSpheres()
    fresh = tessera.Properties(2)
    for other, value in MATERIAL.items():
        if other != name:
            fresh.SetValue(tessera.GetVariable(other), value)
    element = AddSphere(model_part, 1, properties=fresh)
    assert f"properties 2 have no {name}" in CheckError(element, model_part)


def test_poisson_ratio_one_half_is_admitted():
    # dem3d_clusters' materials use nu = 0.5; the Hertz-Mindlin stiffnesses stay finite.
    _, model_part, properties = MakeSpheres()
    properties.SetValue(tessera.POISSON_RATIO, 0.5)
    assert AddSphere(model_part, 1).Check(model_part.ProcessInfo) == 0


def test_a_particle_without_properties_is_rejected():
    _, model_part, _ = MakeSpheres()
    element = AddSphere(model_part, 6)
    element.SetProperties(None)
    assert "SphericParticle3D element 6 has no properties" in CheckError(element, model_part)


# ------------------------------------------------------------------ clusters
def MakeCluster(length=0.028, file_name="demobj_3.clu"):
    model = tessera.Model()
    model_part = model.CreateModelPart("ClusterPart")
    model_part.AddNodalSolutionStepVariable(tessera.CHARACTERISTIC_LENGTH)
    node = model_part.CreateNewNode(100, 0.31, 0.0285, 0.0)
    if length is not None:
        node.SetSolutionStepValue(tessera.CHARACTERISTIC_LENGTH, length)
    properties = model_part.GetProperties(1)
    for name, value in MATERIAL.items():
        properties.SetValue(tessera.GetVariable(name), value)
    if file_name is not None:
        properties.SetValue(tessera.CLUSTER_FILE_NAME, file_name)
    return model_part, model_part.CreateNewElement("Cluster3D", 110, [100], properties)


def test_a_complete_cluster_passes_check():
    model_part, cluster = MakeCluster()
    assert cluster.Check(model_part.ProcessInfo) == 0


def test_a_cluster_needs_a_positive_characteristic_length_and_a_cluster_file():
    model_part, cluster = MakeCluster(length=0.0)
    assert "Cluster3D element 110: CHARACTERISTIC_LENGTH must be > 0, got 0" in CheckError(
        cluster, model_part)
    model_part, cluster = MakeCluster(file_name=None)
    assert "Cluster3D element 110: properties 1 have no CLUSTER_FILE_NAME" in CheckError(
        cluster, model_part)


# ------------------------------------------------------------------ walls
def MakeWall(name, points, condition_id=7):
    model = tessera.Model()
    model_part = model.CreateModelPart("RigidFacePart")
    for i, xyz in enumerate(points, start=1):
        model_part.CreateNewNode(i, *xyz)
    condition = model_part.CreateNewCondition(name, condition_id, list(range(1, len(points) + 1)),
                                              model_part.GetProperties(0))
    return model_part, condition


GOOD = {
    "RigidFace3D2N": [(0, 0, 0), (1, 0, 0)],
    "RigidEdge3D2N": [(0, 0, 0), (0, 0, 2)],
    "RigidFace3D3N": [(-0.01, -0.01, 0), (0.01, -0.01, 0), (-0.01, 0.01, 0)],
    "RigidFace3D4N": [(-0.003, 0, 0.003), (0.008, 0, 0.003), (0.008, 0, -0.003), (-0.003, 0, -0.003)],
}
DEGENERATE = {
    "RigidFace3D2N": [(1, 2, 3), (1, 2, 3)],
    "RigidEdge3D2N": [(0, 0, 0), (0, 0, 0)],
    "RigidFace3D3N": [(0, 0, 0), (1, 1, 1), (2, 2, 2)],  # collinear
    "RigidFace3D4N": [(0, 0, 0), (1, 1, 0), (1, 0, 0), (0, 1, 0)],  # crossed (bow tie)
}


@pytest.mark.parametrize("name", sorted(WALLS))
def test_a_usable_wall_passes_check(name):
    model_part, condition = MakeWall(name, GOOD[name])
    assert condition.Check(model_part.ProcessInfo) == 0
    assert condition.Info() == f"{name} condition 7"


@pytest.mark.parametrize("name", sorted(WALLS))
def test_a_degenerate_wall_is_rejected_naming_its_nodes(name):
    model_part, condition = MakeWall(name, DEGENERATE[name])
    message = CheckError(condition, model_part)
    assert message.startswith(f"{name} condition 7 is degenerate")
    assert ("length" if WALLS[name] == "Line3D2" else "area") in message
    assert "nodes 1 at" in message


def test_a_nearly_flat_triangle_is_judged_relative_to_its_size():
    # A sliver 1e-9 high on a 1e3 base is a real face; the same shape scaled
    # down by 1e6 still is: the test is relative to the longest edge.
    for scale in (1.0, 1e-6):
        points = [(0, 0, 0), (1e3 * scale, 0, 0), (5e2 * scale, 1e-3 * scale, 0)]
        model_part, condition = MakeWall("RigidFace3D3N", points)
        assert condition.Check(model_part.ProcessInfo) == 0


# ------------------------------------------------------------------ write and read back
def test_every_dem_name_survives_writing_and_reading_an_mdpa(tmp_path):
    """Each registered name has its own class, so the writer finds it again."""
    model = tessera.Model()
    spheres = model.CreateModelPart("SpheresPart")
    spheres.AddNodalSolutionStepVariable(tessera.RADIUS)
    properties = spheres.GetProperties(1)
    for name, value in MATERIAL.items():
        properties.SetValue(tessera.GetVariable(name), value)
    for i, name in enumerate(PARTICLES + ("Cluster3D",), start=1):
        spheres.CreateNewNode(i, float(i), 0.0, 0.0).SetSolutionStepValue(tessera.RADIUS, 0.1)
        spheres.CreateNewElement(name, i, [i], properties)
    walls = model.CreateModelPart("RigidFacePart")
    node_id = 1
    for i, name in enumerate(sorted(WALLS), start=1):
        ids = []
        for xyz in GOOD[name]:
            walls.CreateNewNode(node_id, *xyz)
            ids.append(node_id)
            node_id += 1
        walls.CreateNewCondition(name, i, ids, walls.GetProperties(0))

    for model_part in (spheres, walls):
        path = str(tmp_path / model_part.Name)
        tessera.ModelPartIO(path, tessera.IO.WRITE).WriteModelPart(model_part)
        again = tessera.Model().CreateModelPart(model_part.Name)
        again.AddNodalSolutionStepVariable(tessera.RADIUS)
        tessera.ModelPartIO(path).ReadModelPart(again)
        written = sorted(e.Info() for e in list(model_part.Elements) + list(model_part.Conditions))
        read = sorted(e.Info() for e in list(again.Elements) + list(again.Conditions))
        assert read == written and len(read) in (6, 4)
