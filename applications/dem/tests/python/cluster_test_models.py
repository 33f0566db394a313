"""Builders of rigid-cluster (Cluster3D) models shared by the DEM tests: a
.clu file written from numbers, and a model with one cluster per centre."""
import tessera

from dem_test_utilities import Material, SpheresPart

CLUSTER_VARIABLES = ("VELOCITY", "ANGULAR_VELOCITY", "DISPLACEMENT", "ORIENTATION",
                     "CHARACTERISTIC_LENGTH", "TOTAL_FORCES", "PARTICLE_MOMENT")


def WriteClu(path, spheres, size, volume, inertia, name="test_cluster"):
    """A .clu file at `path` (a pathlib.Path): spheres (x, y, z, r), Size,
    Volume and inertia per unit mass; returns the path as a string."""
    lines = ["// written by cluster_test_models.py", "Name", name, "", "Begin centers_and_radii"]
    lines += [" ".join(repr(v) for v in sphere) for sphere in spheres]
    lines += ["End centers_and_radii", "", "Size", repr(size), "", "Volume", repr(volume), "",
              "Inertia per unit mass"] + [repr(v) for v in inertia]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def ClusterModel(clu_file, centres, length, density=2000.0, orientation=(1.0, 0.0, 0.0, 0.0),
                 velocity=(0.0, 0.0, 0.0), angular_velocity=(0.0, 0.0, 0.0), young=1e7):
    """A model with SpheresPart, ClusterPart (one Cluster3D per centre) and
    RigidFacePart; returns (model, spheres, clusters, walls, material)."""
    model = tessera.Model()
    spheres = SpheresPart(model)
    clusters = model.CreateModelPart("ClusterPart")
    for name in CLUSTER_VARIABLES:
        clusters.AddNodalSolutionStepVariable(tessera.GetVariable(name))
    walls = model.CreateModelPart("RigidFacePart")
    material = Material(clusters, 1, density=density, young=young)
    material.SetValue(tessera.CLUSTER_FILE_NAME, clu_file)
    for k, centre in enumerate(centres):
        node = clusters.CreateNewNode(1000 + k, *centre)
        node.SetSolutionStepValue(tessera.CHARACTERISTIC_LENGTH, length)
        node.SetSolutionStepValue(tessera.ORIENTATION, list(orientation))
        node.SetSolutionStepValue(tessera.VELOCITY, list(velocity))
        node.SetSolutionStepValue(tessera.ANGULAR_VELOCITY, list(angular_velocity))
        clusters.CreateNewElement("Cluster3D", 2000 + k, [1000 + k], material)
    return model, spheres, clusters, walls, material
