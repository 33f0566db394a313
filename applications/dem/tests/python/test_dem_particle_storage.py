"""Particle rows (applications/dem/particles): filled from a SpheresPart's
SphericParticle3D elements and their nodes, written back to the nodes' historical
values, read again after a script changed the nodes."""
import math

import numpy as np
import pytest

import tessera

from dem_test_utilities import Material, Pile, Settings, Sphere, SpheresPart


def Dem():
    from tessera import _dem
    return _dem


def TwoMaterials():
    model = tessera.Model()
    spheres = SpheresPart(model)
    a = Material(spheres, 1, density=2500.0)
    b = Material(spheres, 2, density=7800.0)
    Sphere(spheres, 4, (1.0, 2.0, 3.0), 0.5, a, velocity=(1.0, -2.0, 0.5),
           angular_velocity=(0.0, 3.0, 0.0))
    Sphere(spheres, 7, (-1.0, 0.0, 0.0), 0.25, b)
    Sphere(spheres, 9, (4.0, 0.0, 0.0), 0.1, a)
    return model, spheres


def test_rows_hold_what_the_model_part_gives_with_mass_and_inertia_of_solid_spheres():
    _, spheres = TwoMaterials()
    rows = Dem().FillParticles(spheres)
    assert len(rows) == 3
    assert list(rows.element_id) == [4, 7, 9]
    np.testing.assert_array_equal(rows.position[0], [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(rows.velocity[0], [1.0, -2.0, 0.5])
    np.testing.assert_array_equal(rows.angular_velocity[0], [0.0, 3.0, 0.0])
    np.testing.assert_array_equal(rows.radius, [0.5, 0.25, 0.1])
    masses = [2500.0 * 4 / 3 * math.pi * 0.5**3, 7800.0 * 4 / 3 * math.pi * 0.25**3,
              2500.0 * 4 / 3 * math.pi * 0.1**3]
    np.testing.assert_allclose(rows.mass, masses, rtol=1e-15)
    np.testing.assert_allclose(rows.inertia, [0.4 * m * r * r for m, r in zip(masses, [0.5, 0.25, 0.1])],
                               rtol=1e-15)
    # Materials are numbered in order of first appearance.
    assert list(rows.material) == [0, 1, 0]
    # Struct of arrays: each quantity is one contiguous array.
    assert rows.position.shape == (3, 3) and rows.position.flags["C_CONTIGUOUS"]


def test_results_are_written_to_the_nodes_and_read_back():
    _, spheres = TwoMaterials()
    dem = Dem()
    rows = dem.FillParticles(spheres)
    rows.SetVelocity(1, [0.0, 0.0, -4.0])
    rows.SetForce(2, [1.0, 2.0, 3.0])
    dem.WriteParticlesToNodes(rows, spheres)
    assert list(spheres.GetNode(7).GetSolutionStepValue(tessera.VELOCITY)) == [0.0, 0.0, -4.0]
    assert list(spheres.GetNode(9).GetSolutionStepValue(tessera.TOTAL_FORCES)) == [1.0, 2.0, 3.0]
    # A script changes a node between steps; the rows see it, and the next
    # write gives its displacement from the initial coordinates.
    spheres.GetNode(4).SetSolutionStepValue(tessera.VELOCITY, [5.0, 0.0, 0.0])
    spheres.GetNode(4).X = 1.5
    dem.ReadParticlesFromNodes(spheres, rows)
    np.testing.assert_array_equal(rows.velocity[0], [5.0, 0.0, 0.0])
    np.testing.assert_array_equal(rows.position[0], [1.5, 2.0, 3.0])
    dem.WriteParticlesToNodes(rows, spheres)
    np.testing.assert_array_equal(rows.displacement[0], [0.5, 0.0, 0.0])
    assert list(spheres.GetNode(4).GetSolutionStepValue(tessera.DISPLACEMENT)) == [0.5, 0.0, 0.0]


@pytest.mark.parametrize("layout", ["nodes after others", "nodes in reverse"])
def test_rows_reach_their_own_nodes_whatever_the_node_layout(layout):
    # The copies between rows and nodes take a block copy where row i's node
    # is node[0] + i (here after two nodes of another sub model part) and go
    # node by node otherwise (nodes created in the reverse order of the
    # elements): both must put each row's values on its own node.
    model = tessera.Model()
    root = SpheresPart(model)
    spheres = root.CreateSubModelPart("Grains")
    grain = Material(spheres, 1, density=2500.0)
    count = 40
    if layout == "nodes after others":
        root.CreateNewNode(1000, 0.0, 0.0, -1.0)
        root.CreateNewNode(1001, 0.0, 0.0, -2.0)
        order = range(1, count + 1)
    else:
        order = range(count, 0, -1)
    for k in order:
        node = spheres.CreateNewNode(k, float(k), 0.0, 0.0)
        node.SetSolutionStepValue(tessera.RADIUS, 0.1)
        node.SetSolutionStepValue(tessera.VELOCITY, [0.0, float(k), 0.0])
    for k in range(1, count + 1):
        spheres.CreateNewElement("SphericParticle3D", k, [k], grain)
    dem = Dem()
    rows = dem.FillParticles(spheres)
    np.testing.assert_array_equal(rows.position[:, 0], np.arange(1, count + 1))
    np.testing.assert_array_equal(rows.velocity[:, 1], np.arange(1, count + 1))
    for k in range(count):
        rows.SetForce(k, [0.0, 0.0, 10.0 * (k + 1)])
    dem.WriteParticlesToNodes(rows, spheres)
    for k in range(1, count + 1):
        node = spheres.GetNode(k)
        assert node.X == float(k)
        assert list(node.GetSolutionStepValue(tessera.TOTAL_FORCES)) == [0.0, 0.0, 10.0 * k]
    if layout == "nodes after others":  # not a sphere's node: untouched
        assert list(root.GetNode(1000).GetSolutionStepValue(tessera.TOTAL_FORCES)) == [0, 0, 0]


def test_fixed_velocity_dofs_are_read_as_fixity_bits():
    _, spheres = TwoMaterials()
    node = spheres.GetNode(7)
    node.AddDof(tessera.VELOCITY_Y)
    node.Fix(tessera.VELOCITY_Y)
    node.AddDof(tessera.ANGULAR_VELOCITY_Z)
    node.Fix(tessera.ANGULAR_VELOCITY_Z)
    rows = Dem().FillParticles(spheres)
    assert list(rows.fixed) == [0, 2 | 32, 0]


def test_an_element_that_is_not_a_sphere_is_rejected_naming_it():
    model, spheres = TwoMaterials()
    spheres.AddNodalSolutionStepVariable(tessera.CHARACTERISTIC_LENGTH)
    node = spheres.CreateNewNode(20, 0.0, 0.0, 0.0)
    node.SetSolutionStepValue(tessera.CHARACTERISTIC_LENGTH, 0.1)
    spheres.CreateNewElement("Cluster3D", 20, [20], spheres.GetProperties(1))
    with pytest.raises(tessera.Error, match="Cluster3D element 20 in SpheresPart is not a 3D "
                                            "spherical particle"):
        Dem().FillParticles(spheres)


def test_a_sphere_failing_its_check_stops_the_fill():
    model, spheres = TwoMaterials()
    spheres.GetNode(9).SetSolutionStepValue(tessera.RADIUS, -1.0)
    with pytest.raises(tessera.Error, match="SphericParticle3D element 9: RADIUS must be > 0"):
        Dem().FillParticles(spheres)


@pytest.mark.parametrize("share", [True, False])
def test_displacements_are_the_moves_from_the_initial_coordinates_at_each_write(share):
    # The steps move the rows without advancing DISPLACEMENT (outside periodic
    # domains): each write sets it to x - x0, on the rows and on the nodes,
    # bitwise; x0 is each node's initial position.
    model, spheres, walls = Pile(300, spacing=0.0125)
    initial = {node.Id: np.array([node.X0, node.Y0, node.Z0]) for node in spheres.Nodes}
    settings = Settings(2e-5, "Symplectic_Euler", (0, 0, -9.81), 5, 0.002)
    settings.share_rows_with_nodes = share
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
    strategy.Initialize()
    for step in range(1, 31):
        strategy.ReadFromNodes()
        strategy.SolveSolutionStep(step * 2e-5)
        strategy.WriteToNodes()
    p = strategy.Particles
    x0 = np.array([initial[int(e)] for e in p.element_id])
    assert np.max(np.abs(np.array(p.position) - x0)) > 1e-4  # they moved
    np.testing.assert_array_equal(p.displacement, np.array(p.position) - x0)
    for node in spheres.Nodes:
        np.testing.assert_array_equal(node.GetSolutionStepValue(tessera.DISPLACEMENT),
                                      np.array([node.X, node.Y, node.Z]) - initial[node.Id])
