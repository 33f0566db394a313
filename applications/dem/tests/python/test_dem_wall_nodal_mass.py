"""Walls whose nodes carry a NODAL_MASS (the skin of a deformable structure,
set by the DE-FE coupling): a contact's dashpots are sized with the reduced
mass of the sphere and the wall point, m* = m_s m_w / (m_s + m_w), with
1/m_w = sum N_k^2 / M_k (rigid_face_storage.h, ContactDampingMass).

Checked here where the wall cannot move (a DEM run alone): the sphere then
bounces as a sphere of its own mass on a dashpot sized for m*, i.e. with the
damping ratio xi sqrt(m*/m_s) of the linear law, whose rebound is the law's
restitution map at that ratio (RestitutionForDampingRatio). A wall without
masses keeps the sphere's mass: the same bits as before the masses existed.
"""
import math

import numpy as np
import pytest

import tessera
from dem_test_utilities import Material, Relate, Run, Settings, Sphere, SpheresPart, SquarePlate

RADIUS = 0.005
DENSITY = 2500.0
YOUNG = 1e7  # linear law: about 49 steps of DT per contact
DT = 1e-5
LAW = "DEM_D_Linear_viscous_Coulomb"
SPEED = 0.5


def Dem():
    from tessera import _dem
    return _dem


def Rebound(restitution, node_mass=None):
    """A sphere shot at the centre of a square plate (one RigidFace3D4N, the
    bilinear weights 1/4 there, so m_w = 4 M for nodal masses M); returns
    -v_out / v_in and the sphere's mass."""
    model = tessera.Model()
    spheres = SpheresPart(model)
    walls = model.CreateModelPart("RigidFacePart")
    grain = Material(spheres, 1, density=DENSITY, young=YOUNG, poisson=0.25)
    wall = Material(walls, 2, young=YOUNG, poisson=0.25)
    for a, b in ((grain, grain), (grain, wall)):
        Relate(a, b, restitution=restitution, law=LAW)
    Sphere(spheres, 1, (0.0, 0.0, RADIUS + 1e-5), RADIUS, grain, velocity=(0.0, 0.0, -SPEED))
    SquarePlate(walls, wall, half=0.05)
    if node_mass is not None:
        for node in walls.Nodes:
            node.SetValue(tessera.NODAL_MASS, node_mass)
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, Settings(DT))
    strategy.Initialize()
    Run(strategy, 300, DT)
    mass = float(np.asarray(strategy.Particles.mass)[0])
    return np.asarray(strategy.Particles.velocity)[0][2] / SPEED, mass


def test_a_wall_with_nodal_masses_damps_with_the_reduced_mass():
    """Restitution 0.5. Rigid plate: the rebound is the map's 0.5 up to the
    time step's error (about 1 %). Nodal masses M = m_s / 4 (so m_w = m_s,
    m* = m_s / 2): xi / sqrt(2), whose rebound by the map is 0.6005.
    Measured 0.50598 and 0.60602: both 0.006 above the map, the time step's
    error (49 steps per contact); tolerance 0.015."""
    rigid, sphere_mass = Rebound(0.5)
    assert rigid == pytest.approx(0.5, abs=0.015)
    light, _ = Rebound(0.5, node_mass=sphere_mass / 4.0)
    xi = Dem().DampingRatioForRestitution(LAW, 0.5)
    expected = Dem().RestitutionForDampingRatio(LAW, xi / math.sqrt(2.0))
    assert expected == pytest.approx(0.6005, abs=1e-4)
    print(f"rigid {rigid:.5f}, light {light:.5f} (map {expected:.5f})")
    assert light == pytest.approx(expected, abs=0.015)
    # Heavy nodes: the wall point is nearly rigid.
    heavy, _ = Rebound(0.5, node_mass=1e6 * sphere_mass)
    assert heavy == pytest.approx(rigid, rel=1e-5)


def test_zero_or_missing_nodal_masses_leave_the_wall_rigid():
    """A NODAL_MASS of 0 (the coupling's mark of a node held in every
    direction) or none at all: the dashpots keep the sphere's mass, bit for
    bit."""
    rigid, _ = Rebound(0.5)
    held, _ = Rebound(0.5, node_mass=0.0)
    assert held == rigid
