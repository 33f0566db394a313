"""Rigid clusters (Cluster3D) under moreau_jean_strategy: a cluster is one
body of the contact problem, its mass and world inertia tensor in the
Delassus blocks, its contacts on its member spheres
(applications/dem/nonsmooth/moreau_jean_strategy.h).

Sources and tolerances:
- A dumbbell (two spheres of radius r at ±a on the body x axis) tilted by φ
  about y falls at v0 onto a frictionless plane and strikes it with its lower
  sphere: the rigid-body impact with Newton's law U_N+ = -e U_N- at the
  contact point c (arm ρ = c - X) gives, from impulse–momentum,
    P = (1 + e) v0 / (1/M + (ρ × n)ᵀ J (ρ × n)),  J = R diag(1/I) Rᵀ,
    V+ = V- + P n / M,  ω+ = J (ρ × n) P
  (computed in the test from the .clu numbers). The Moreau–Jean step solves
  that same law at the impact step: equal to 1e-12 (round-off of the
  NLGS's single contact). Momentum M V+ and kinetic energy ½ M V+² +
  ½ ω+·I ω+ from the strategy and from tessera.dem.monitors count the
  cluster once (1e-12).
- The same dumbbell dropped tilted by 0.2 rad from 5 mm onto a frictional
  plane (e = 0, μ = 0.5, h = 1e-3 s) comes to rest on both spheres: for 200
  steps after 0.6 s its velocity and spin stay zero (1e-12 m/s and rad/s;
  measured 1e-18), its centre does not move (1e-12 m) and the plane carries
  its weight: the members' mean contact forces sum to M g (1e-9 relative),
  the cluster's net force is zero.
  It rests overlapping the plane a little, as a sphere does: a contact is
  activated when its gap at the step's end would close (predicted gap), and
  the next detection, a further (1 - θ) h of travel on, finds it overlapping
  by up to (1 - θ) h |U_N| (θ = 1/2); the law then holds that overlap
  (e = 0), without drift. Measured 2.5e-5 and 1.4e-6 m (h = 1e-3 s;
  0.25 % of r), asserted below 3e-5 m; a sphere dropped the same way rests
  overlapped by 7e-6 to 8e-5 m depending on the phase of its last step
  (test_a_resting_cluster_overlaps_the_plane_no_more_than_a_resting_sphere).
"""
import math
import os

import numpy as np
import pytest

import tessera

from cluster_test_models import ClusterModel, WriteClu
from dem_test_utilities import Material, Relate, Settings, SquarePlate
from nonsmooth_models import MoreauJean

RADIUS, ARM, DENSITY = 0.01, 0.02, 2000.0
VOLUME = 2 * 4.0 / 3.0 * math.pi * RADIUS**3
# Inertia per unit mass of two solid spheres at ±ARM on x (parallel axes).
INERTIA_PER_MASS = (0.4 * RADIUS**2, ARM**2 + 0.4 * RADIUS**2, ARM**2 + 0.4 * RADIUS**2)
SIZE = 2 * (ARM + RADIUS)


def Dumbbell(tmp_path, tilt, height_gap, velocity, restitution, friction, gravity, dt):
    """The dumbbell tilted by `tilt` about y (its +x sphere lowest), that sphere
    `height_gap` above a plane at z = 0; returns (strategy, clusters part)."""
    from tessera import _dem
    clu = WriteClu(tmp_path / "dumbbell.clu",
                   [(ARM, 0.0, 0.0, RADIUS), (-ARM, 0.0, 0.0, RADIUS)], SIZE, VOLUME,
                   INERTIA_PER_MASS)
    centre_z = RADIUS + ARM * math.sin(tilt) + height_gap
    orientation = (math.cos(tilt / 2), 0.0, math.sin(tilt / 2), 0.0)  # R_y(tilt)
    model, spheres, clusters, walls, material = ClusterModel(
        clu, [(0.0, 0.0, centre_z)], SIZE, density=DENSITY, orientation=orientation,
        velocity=velocity)
    wall = Material(walls, 2)
    Relate(material, wall, restitution=restitution, static_friction=friction)
    SquarePlate(walls, wall, half=1.0, z=0.0, first_id=1)
    strategy = _dem.MoreauJeanStrategy(spheres, walls, Settings(dt, gravity=gravity),
                                       MoreauJean(tolerance=1e-12))
    strategy.SetClusterModelPart(clusters)
    strategy.Initialize()
    return strategy, clusters


def test_a_tilted_dumbbell_striking_a_plane_gets_the_rigid_body_impact(tmp_path):
    tilt, v0, e, dt = 0.3, 1.0, 0.6, 1e-4
    strategy, _ = Dumbbell(tmp_path, tilt, 0.5 * v0 * dt, (0.0, 0.0, -v0), e, 0.0,
                           (0.0, 0.0, 0.0), dt)
    [cluster] = strategy.Clusters()
    mass = cluster["mass"]
    assert mass == pytest.approx(DENSITY * VOLUME, rel=1e-14)
    # The closed form, before the step (orientation R_y(tilt), at rest in spin).
    c, s = math.cos(tilt), math.sin(tilt)
    rotation = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    inverse_inertia = rotation @ np.diag(1 / np.array(cluster["inertia"])) @ rotation.T
    centre = np.array(cluster["centre"])
    lower = centre + rotation @ np.array([ARM, 0.0, 0.0])
    arm = lower - np.array([0.0, 0.0, RADIUS]) - centre
    normal = np.array([0.0, 0.0, 1.0])
    lever = np.cross(arm, normal)
    impulse = (1 + e) * v0 / (1 / mass + lever @ inverse_inertia @ lever)
    velocity = np.array([0.0, 0.0, -v0]) + impulse * normal / mass
    spin = inverse_inertia @ lever * impulse
    # Steps until the impact (the first step it is predicted, here the first).
    for step in range(1, 4):
        strategy.SolveSolutionStep(step * dt)
        if strategy.LastStep()["contacts"] > 0:
            break
    assert strategy.LastStep()["contacts"] == 1
    [contact] = strategy.ContactImpulses()
    assert contact["j"] == -1 and contact["body_i"] == len(strategy.Particles)
    [cluster] = strategy.Clusters()
    np.testing.assert_allclose(contact["impulse"], impulse * normal, rtol=0, atol=1e-12 * impulse)
    np.testing.assert_allclose(cluster["velocity"], velocity, rtol=0, atol=1e-12 * v0)
    np.testing.assert_allclose(cluster["angular_velocity"], spin, rtol=0,
                               atol=1e-12 * np.linalg.norm(spin))
    # The struck point leaves at e v0 (Newton's law at the contact).
    point_velocity = velocity + np.cross(spin, arm)
    assert point_velocity[2] == pytest.approx(e * v0, rel=1e-12)
    # The strategy's sums and tessera.dem.monitors count the cluster once:
    # M V and ½ M V² + ½ ω·I ω of the closed form.
    from tessera.dem import monitors
    energy = 0.5 * mass * velocity @ velocity + 0.5 * spin @ np.linalg.solve(inverse_inertia, spin)
    for total in (strategy.LinearMomentum(), monitors.LinearMomentum(strategy)):
        np.testing.assert_allclose(total, mass * velocity, rtol=0, atol=1e-12 * mass * v0)
    for total in (strategy.KineticEnergy(), monitors.KineticEnergy(strategy)):
        assert total == pytest.approx(energy, rel=1e-12)
    np.testing.assert_allclose(monitors.AngularMomentum(strategy, (0.1, 0.0, 0.0)),
                               strategy.AngularMomentum((0.1, 0.0, 0.0)), rtol=1e-12)
    # The members move with their cluster (rigid placement).
    rows = strategy.Particles
    first = cluster["first_row"]
    members = rows.position[first:first + 2]
    assert np.linalg.norm(members[0] - members[1]) == pytest.approx(2 * ARM, rel=1e-13)
    for k in range(2):
        r = members[k] - np.array(cluster["centre"])
        np.testing.assert_allclose(rows.velocity[first + k],
                                   np.array(cluster["velocity"]) + np.cross(spin, r), atol=1e-12)


def test_a_dumbbell_dropped_on_a_plane_comes_to_rest_carried_by_its_weight(tmp_path):
    g, dt = 9.81, 1e-3
    strategy, clusters = Dumbbell(tmp_path, 0.2, 0.005, (0.0, 0.0, 0.0), 0.0, 0.5,
                                  (0.0, 0.0, -g), dt)
    time = 0.0
    for _ in range(600):
        time += dt
        strategy.SolveSolutionStep(time)
    [cluster] = strategy.Clusters()
    assert strategy.LastStep()["contacts"] == 2  # lying on both spheres
    start = np.array(cluster["centre"])
    for _ in range(200):
        time += dt
        strategy.SolveSolutionStep(time)
        [cluster] = strategy.Clusters()
        np.testing.assert_allclose(cluster["velocity"], 0.0, atol=1e-12)
        np.testing.assert_allclose(cluster["angular_velocity"], 0.0, atol=1e-12)
    np.testing.assert_allclose(cluster["centre"], start, rtol=0, atol=1e-12)
    # Lying on both spheres: each touches z = 0, overlapping it by what the
    # rocking left (see the module docstring; measured 2.5e-5 and 1.4e-6 m).
    first = cluster["first_row"]
    heights = strategy.Particles.position[first:first + 2, 2] - RADIUS
    assert np.all(heights <= 0.0) and np.all(heights > -3e-5)
    weight = cluster["mass"] * g
    carried = strategy.Particles.contact_force[first:first + 2].sum(axis=0)
    np.testing.assert_allclose(carried, [0.0, 0.0, weight], rtol=0, atol=1e-9 * weight)
    np.testing.assert_allclose(cluster["force"], 0.0, atol=1e-9 * weight)
    # The cluster node reports it too.
    strategy.WriteToNodes()
    node = clusters.GetNode(1000)
    assert node.Z == cluster["centre"][2]
    assert node.GetSolutionStepValue(tessera.TOTAL_FORCES_Z) == pytest.approx(0.0, abs=1e-9 * weight)


CLUSTER_CASE = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "..",
                                             "..", "shared", "kratos_cases", "dem3d_clusters"))


@pytest.mark.skipif(not os.path.isdir(CLUSTER_CASE),
                    reason="../shared/kratos_cases/dem3d_clusters not present")
def test_the_kratos_cluster_deck_runs_under_moreau_jean_through_the_stage(in_copy):
    # Kratos' test_clusters_2 deck (two Cluster3D of 64 spheres, walls,
    # gravity -9.81 y, 12 steps of 5e-7 s) with "strategy":
    # "moreau_jean_strategy": the stage hands the clusters to the strategy.
    # Its bounding box (from 1e-6 s) deletes the cluster whose centre lies
    # outside, as the smooth strategy does with this deck
    # (test_dem_clusters.py); the first step, before the box starts, has both.
    # No contact pushes in these 6 µs (max impulse 0), so the clusters fall
    # freely: V = g t (rel 1e-12), and their nodes hold the strategy's values.
    import json

    import tessera.dem
    in_copy("dem3d_clusters")
    deck = json.load(open("ProjectParametersDEM2.json"))
    deck["solver_settings"]["strategy"] = "moreau_jean_strategy"
    model = tessera.Model()
    counts = []

    class Stage(tessera.dem.DEMAnalysisStage):
        def FinalizeSolutionStep(self):
            super().FinalizeSolutionStep()
            counts.append((self.time, self.model.GetModelPart("SpheresPart").NumberOfNodes(),
                           self.model.GetModelPart("ClusterPart").NumberOfElements()))

    stage = Stage(model, tessera.Parameters(json.dumps(deck)))
    stage.Run()
    assert len(counts) == 12
    assert counts[0][1:] == (128, 2) and counts[0][0] < 1e-6
    assert all(c[1:] == (64, 1) for c in counts if c[0] > 1.01e-6)
    strategy = stage.GetStrategy()
    clusters = strategy.Clusters()
    assert len(clusters) == 1 and len(strategy.Particles) == 64
    assert strategy.LastStep()["max_impulse"] == 0.0
    # (Clusters() is in the cluster model part's order.)
    for c, node in zip(clusters, model.GetModelPart("ClusterPart").Nodes):
        np.testing.assert_allclose(c["velocity"], [0.0, -9.81 * 6e-6, 0.0], rtol=1e-12, atol=0)
        np.testing.assert_array_equal(node.GetSolutionStepValue(tessera.VELOCITY), c["velocity"])
        np.testing.assert_array_equal([node.X, node.Y, node.Z], c["centre"])


def test_a_resting_cluster_overlaps_the_plane_no_more_than_a_resting_sphere(tmp_path):
    """The dumbbell's resting overlap (above) is the activation's overshoot,
    not a drift of clusters: with e = 0 a body landing at U_N rests overlapped
    by at most (1 - θ) h |U_N| (the travel from the step's end to the next
    detection, θ = 1/2), a sphere as a cluster. Dropped 5 mm (U_N =
    sqrt(2 g 0.005) + g h = 0.323 m/s, bound 1.6e-4 m): spheres from four
    heights (phases of the last step) and the dumbbell all rest within the
    bound, and neither sinks further over 200 steps at rest (1e-15 m)."""
    from nonsmooth_models import Scene, Strategy
    g, h = 9.81, 1e-3
    bound = 0.5 * h * (math.sqrt(2.0 * g * 0.0053) + g * h)

    def settle(strategy, rows):
        time = 0.0
        for _ in range(600):
            time += h
            strategy.SolveSolutionStep(time)
        resting = strategy.Particles.position[rows, 2].copy()
        for _ in range(200):
            time += h
            strategy.SolveSolutionStep(time)
        np.testing.assert_allclose(strategy.Particles.position[rows, 2], resting, rtol=0, atol=1e-15)
        return resting - RADIUS

    sphere_overlaps = []
    for drop in (0.0047, 0.005, 0.0051, 0.0053):
        _, spheres, walls = Scene([((0.0, 0.0, RADIUS + drop), RADIUS, (0.0, 0.0, 0.0))], floor=0.0,
                                  restitution=0.0, friction=0.5, density=DENSITY)
        strategy = Strategy(spheres, walls, h, gravity=(0.0, 0.0, -g), tolerance=1e-12)
        sphere_overlaps.append(-settle(strategy, [0])[0])
    strategy, _ = Dumbbell(tmp_path, 0.2, 0.005, (0.0, 0.0, 0.0), 0.0, 0.5, (0.0, 0.0, -g), h)
    first = strategy.Clusters()[0]["first_row"]
    cluster_overlap = -settle(strategy, [first, first + 1]).min()
    assert all(0.0 <= o <= bound for o in sphere_overlaps)
    assert 0.0 <= cluster_overlap <= bound
    # The cluster's overlap lies within the spheres' range.
    assert cluster_overlap <= max(sphere_overlaps)
