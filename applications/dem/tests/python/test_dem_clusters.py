"""Rigid sphere clusters (Cluster3D): .clu files, rigid-body motion, bounding
box, and Kratos' cluster deck (applications/dem/particles/rigid_clusters.h).

Sources and tolerances:
- .clu parsing: the numbers of ../shared/kratos_cases/dem3d_clusters/README.md
  (64 spheres of radius 0.002165, Size 0.0290787, Volume 6.48e-7, inertia per
  unit mass (2.69995e-05, 3.33019e-05, 6.00319e-05)) and linecluster3D.clu
  (10 spheres, CRLF) read exactly.
- Scaling (Kratos' Cluster3D): s = CHARACTERISTIC_LENGTH / Size, radii and
  centres times s, M = ρ V s³, I = M (I/m) s²; placement x = X + R(q) s c with
  R(q) the quaternion matrix of thesis eq. 2.80 (to 1e-15 relative).
- Free fall: Velocity Verlet is exact for a constant force, so the centre
  follows x0 + v0 t + g t²/2 to round-off (1e-12 m over 2000 steps) while the
  cluster spins, and the members keep their mutual distances (1e-12 m); the
  energies count the cluster once, kinetic + potential constant (1e-10).
- Torque-free rotation (Euler's equations, thesis 2.88-2.90): a spin about a
  principal axis stays there (1e-12) and the orientation is the rotation by ω t
  about it (1e-8; RK-4's phase error, measured 7e-10); for a generic spin the world angular momentum is conserved
  to round-off (1e-12 relative), the kinetic energy to 1e-10 relative (measured
  9e-12), and the body-frame ω matches a reference solution of Euler's
  equations (RK-4 with 10 sub-steps per step, numpy) to 1e-8 |ω0| (measured
  9.5e-10 at dt = 1e-3 s over 3 s); halving dt divides that error by ~16.
- A two-sphere cluster ("dumbbell") dropped tilted on a plane comes to rest
  lying on both spheres: the wall carries M g (statics, 1e-9), and each sphere
  is indented by the Hertz static δ = (3 F / (4 E* √R))^(2/3) with F = M g / 2
  (Hertz, thesis A.17; 1e-9 relative, measured 3e-12).
- Kratos' test_clusters_2 (dem3d_clusters, README "What the Kratos test
  checks"): the deck runs unchanged; 128 sphere nodes/elements and 2 clusters
  while time < 4.4e-6, 64 and 1 from the step at 4.5e-6 on; both regimes seen.
"""
import math
import os
import shutil

import numpy as np
import pytest

import tessera

from cluster_test_models import CLUSTER_VARIABLES, ClusterModel, WriteClu
from dem_test_utilities import (Material, ParallelThreads, Relate, Settings, SpheresPart,
                                SquarePlate)

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
CASES = os.path.normpath(os.path.join(REPO_ROOT, "..", "shared", "kratos_cases"))
CLUSTER_CASE = os.path.join(CASES, "dem3d_clusters")
needs_case = pytest.mark.skipif(not os.path.isdir(CLUSTER_CASE),
                                reason="../shared/kratos_cases/dem3d_clusters not present")

def Dem():
    from tessera import _dem
    return _dem


def QuaternionMatrix(w, x, y, z):
    """Thesis eq. 2.80 (q0 = w)."""
    return np.array([[1 - 2 * (y * y + z * z), 2 * x * y - 2 * w * z, 2 * w * y + 2 * x * z],
                     [2 * x * y + 2 * w * z, 1 - 2 * (x * x + z * z), 2 * y * z - 2 * w * x],
                     [2 * x * z - 2 * w * y, 2 * w * x + 2 * y * z, 1 - 2 * (x * x + y * y)]])


def Strategy(spheres, clusters, walls, settings):
    strategy = Dem().ExplicitSolverStrategy(
        spheres, walls if walls.NumberOfConditions() > 0 else None, settings)
    strategy.SetClusterModelPart(clusters)
    strategy.Initialize()
    return strategy


def Members(strategy, k=0):
    c = strategy.Clusters()[k]
    rows = slice(c["first_row"], c["first_row"] + c["row_count"])
    return strategy.Particles.position[rows]


def Distances(points):
    return np.linalg.norm(points[:, None, :] - points[None, :, :], axis=-1)


# ------------------------------------------------------------------ .clu files
@needs_case
def test_demobj_3_clu_is_read_with_the_readme_numbers():
    g = Dem().ReadClusterFile(os.path.join(CLUSTER_CASE, "demobj_3.clu"))
    assert g["name"] == "result_cluster"
    assert len(g["radii"]) == 64 and np.all(g["radii"] == 0.002165)
    assert g["size"] == 0.0290787 and g["volume"] == 6.48e-07
    np.testing.assert_array_equal(g["inertia_per_unit_mass"], [2.69995e-05, 3.33019e-05, 6.00319e-05])
    np.testing.assert_array_equal(g["centres"][0], [-0.00880819, -0.0076838, 0.000250237])
    centre, diameter = g["enclosing_sphere"]
    assert diameter == 0.0290787 and centre[1] == 0.00099946


@needs_case
def test_linecluster3d_clu_with_crlf_line_endings_is_read():
    path = os.path.join(CLUSTER_CASE, "linecluster3D.clu")
    assert b"\r\n" in open(path, "rb").read()
    g = Dem().ReadClusterFile(path)
    assert g["name"] == "linecluster3D"
    np.testing.assert_array_equal(g["centres"][:, 0], [-0.45, -0.35, -0.25, -0.15, -0.05, 0.05,
                                                       0.15, 0.25, 0.35, 0.45])
    assert np.all(g["radii"] == 0.1) and g["size"] == 1.1 and g["volume"] == 0.0345575
    np.testing.assert_array_equal(g["inertia_per_unit_mass"], [0.005, 0.01, 0.01])


GOOD = ["Name", "c", "Begin centers_and_radii", "0 0 0 1", "End centers_and_radii", "Size", "2",
        "Volume", "4.19", "Inertia per unit mass", "0.4", "0.4", "0.4"]


@pytest.mark.parametrize("lines,expected", [
    (GOOD[:3] + ["0 0 0x 1"] + GOOD[4:], r"bad\.clu:4: malformed number '0x' in centers_and_radii"),
    (GOOD[:3] + ["0 0 1"] + GOOD[4:], r"bad\.clu:4: a centers_and_radii line needs 4 numbers"),
    (GOOD[:4] + GOOD[5:], r"bad\.clu:3: 'Begin centers_and_radii' has no 'End centers_and_radii' "
                          r"\(found 'Size' at line 5\)"),
    (GOOD[:5] + GOOD[7:], r"bad\.clu: no 'Size' block"),
    (GOOD[:2] + GOOD[5:], r"bad\.clu: no 'Begin centers_and_radii' block"),
    (GOOD[:6] + ["-2"] + GOOD[7:], r"bad\.clu:6: Size must be > 0, got -2"),
    (GOOD[:-1], r"bad\.clu:10: 'Inertia per unit mass' must be followed by 3 numbers"),
    (GOOD[:8] + ["4.19 1"] + GOOD[9:], r"bad\.clu:9: 'Volume' takes 1 number, got 2"),
    (GOOD + ["Colour", "red"], r"bad\.clu:14: unexpected 'Colour'"),
])
def test_malformed_clu_files_are_errors_naming_file_and_line(tmp_path, lines, expected):
    path = tmp_path / "bad.clu"
    path.write_text("\r\n".join(lines) + "\r\n")
    with pytest.raises(tessera.Error, match=expected):
        Dem().ReadClusterFile(str(path))


def test_a_missing_clu_file_is_an_error_naming_it(tmp_path):
    with pytest.raises(tessera.Error, match=r"cluster file '.*nowhere\.clu' \(CLUSTER_FILE_NAME\) "
                                            "cannot be opened"):
        Dem().ReadClusterFile(str(tmp_path / "nowhere.clu"))


# ------------------------------------------------------------------ set-up
@needs_case
def test_cluster_spheres_are_scaled_rotated_and_placed_as_kratos_does(tmp_path):
    clu = os.path.join(CLUSTER_CASE, "demobj_3.clu")
    g = Dem().ReadClusterFile(clu)
    half = math.sqrt(0.5)
    q = (half, 0.0, half * 0.6, half * 0.8)  # 90° about (0, 0.6, 0.8)
    model, spheres, clusters, walls, _ = ClusterModel(clu, [(0.31, 0.0285, 0.0)], 0.028,
                                                      density=61604.65876, orientation=q)
    strategy = Strategy(spheres, clusters, walls, Settings(1e-6))
    s = 0.028 / 0.0290787
    assert spheres.NumberOfElements() == 64 and spheres.NumberOfNodes() == 64
    c = strategy.Clusters()[0]
    assert c["mass"] == pytest.approx(61604.65876 * 6.48e-7 * s ** 3, rel=1e-14)
    np.testing.assert_allclose(c["inertia"], c["mass"] * s ** 2 * g["inertia_per_unit_mass"],
                               rtol=1e-14)
    expected = np.array([0.31, 0.0285, 0.0]) + (QuaternionMatrix(*q) @ (s * g["centres"]).T).T
    np.testing.assert_allclose(Members(strategy), expected, rtol=0, atol=1e-15)
    np.testing.assert_allclose(strategy.Particles.radius, s * 0.002165, rtol=1e-15)
    assert set(strategy.Particles.cluster) == {1}
    # Members of one cluster overlap but are never a contact.
    assert strategy.NumberOfParticlePairCandidates() == 0


# ------------------------------------------------------------------ free fall
def test_a_free_falling_spinning_cluster_follows_the_parabola_and_stays_rigid(tmp_path):
    clu = WriteClu(tmp_path / "tri.clu", [(0.02, 0.0, 0.0, 0.01), (-0.01, 0.015, 0.0, 0.008),
                                          (-0.01, -0.01, 0.012, 0.006)],
                   size=0.05, volume=8e-6, inertia=(1.1e-4, 1.7e-4, 2.3e-4))
    x0, v0, g = np.array([0.1, -0.2, 1.0]), np.array([0.3, -0.2, 1.5]), np.array([0.0, 0.0, -9.81])
    model, spheres, clusters, walls, _ = ClusterModel(clu, [tuple(x0)], 0.04, velocity=tuple(v0),
                                                      angular_velocity=(3.0, -5.0, 7.0))
    strategy = Strategy(spheres, clusters, walls, Settings(1e-4, gravity=tuple(g)))
    before = Distances(Members(strategy))
    energy0 = strategy.GetEnergies()
    time = 0.0
    for _ in range(2000):
        time += 1e-4
        strategy.SolveSolutionStep(time)
    c = strategy.Clusters()[0]
    # Energies count the cluster once (not its members): kinetic + potential constant.
    energy = strategy.GetEnergies()
    assert energy["total"] == pytest.approx(energy0["total"], rel=1e-10)
    assert energy["kinetic_translational"] == pytest.approx(
        0.5 * c["mass"] * np.dot(c["velocity"], c["velocity"]), rel=1e-14)
    np.testing.assert_allclose(c["centre"], x0 + v0 * time + 0.5 * g * time ** 2, rtol=0, atol=1e-12)
    np.testing.assert_allclose(c["velocity"], v0 + g * time, rtol=0, atol=1e-12)
    np.testing.assert_allclose(Distances(Members(strategy)), before, rtol=0, atol=1e-12)
    # Members move rigidly: v_i = V + ω × r_i.
    arms = Members(strategy) - c["centre"]
    rows = slice(c["first_row"], c["first_row"] + c["row_count"])
    np.testing.assert_allclose(strategy.Particles.velocity[rows],
                               c["velocity"] + np.cross(c["angular_velocity"], arms), atol=1e-12)
    # The cluster node carries the results.
    strategy.WriteToNodes()
    node = clusters.GetNode(1000)
    np.testing.assert_allclose(node.GetSolutionStepValue(tessera.DISPLACEMENT), c["centre"] - x0,
                               atol=1e-12)
    np.testing.assert_allclose(node.GetSolutionStepValue(tessera.VELOCITY), c["velocity"], atol=0)
    np.testing.assert_allclose(node.GetSolutionStepValue(tessera.ANGULAR_VELOCITY),
                               c["angular_velocity"], atol=0)
    q = node.GetSolutionStepValue(tessera.ORIENTATION)
    assert (q.W, q.X, q.Y, q.Z) == c["orientation"]
    assert math.isclose(math.hypot(q.W, q.X, q.Y, q.Z), 1.0, rel_tol=1e-14)


# ------------------------------------------------------------------ torque-free rotation
def SpinningCluster(tmp_path, omega, steps, dt):
    clu = WriteClu(tmp_path / "asym.clu", [(0.02, 0.0, 0.0, 0.01), (-0.01, 0.015, 0.0, 0.008),
                                           (-0.01, -0.01, 0.012, 0.006)],
                   size=0.05, volume=8e-6, inertia=(1.1e-4, 1.7e-4, 2.3e-4))
    model, spheres, clusters, walls, _ = ClusterModel(clu, [(0.0, 0.0, 0.0)], 0.05,
                                                      angular_velocity=omega)
    strategy = Strategy(spheres, clusters, walls, Settings(dt))
    first = strategy.Clusters()[0]
    energy0 = strategy.KineticEnergy()
    time = 0.0
    for _ in range(steps):
        time += dt
        strategy.SolveSolutionStep(time)
    return first, strategy.Clusters()[0], energy0, strategy.KineticEnergy()


def test_a_spin_about_a_principal_axis_stays_there(tmp_path):
    omega, dt, steps = 20.0, 1e-3, 1000
    _, c, _, _ = SpinningCluster(tmp_path, (0.0, 0.0, omega), steps, dt)
    np.testing.assert_allclose(c["angular_velocity"], [0.0, 0.0, omega], rtol=0, atol=1e-12 * omega)
    angle = omega * steps * dt
    expected = (math.cos(angle / 2), 0.0, 0.0, math.sin(angle / 2))
    # RK-4's phase error for a steady turn of 20 rad: measured 7e-10.
    np.testing.assert_allclose(c["orientation"], expected, rtol=0, atol=1e-8)


def EulerReference(inertia, omega_body, time, steps):
    """Euler's equations I ω̇ = -ω × I ω in the body frame, RK-4 (numpy)."""
    inertia = np.asarray(inertia)
    w = np.asarray(omega_body, dtype=float)
    h = time / steps

    def f(w):
        return -np.cross(w, inertia * w) / inertia
    for _ in range(steps):
        k1 = f(w)
        k2 = f(w + 0.5 * h * k1)
        k3 = f(w + 0.5 * h * k2)
        k4 = f(w + h * k3)
        w = w + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return w


def test_a_generic_torque_free_spin_conserves_momentum_and_energy_and_follows_euler(tmp_path):
    omega0, dt, steps = np.array([4.0, 9.0, -6.0]), 1e-3, 3000
    first, c, energy0, energy = SpinningCluster(tmp_path, tuple(omega0), steps, dt)
    # World angular momentum: exactly constant without torque (round-off).
    np.testing.assert_allclose(c["angular_momentum"], first["angular_momentum"], rtol=1e-12)
    assert energy == pytest.approx(energy0, rel=1e-10)
    R = QuaternionMatrix(*c["orientation"])
    omega_body = R.T @ c["angular_velocity"]
    reference = EulerReference(c["inertia"], omega0, steps * dt, 10 * steps)
    np.testing.assert_allclose(omega_body, reference, rtol=0, atol=1e-8 * np.linalg.norm(omega0))


def test_the_torque_free_rotation_converges_at_fourth_order(tmp_path):
    # Halving dt divides the body-frame ω error by 2^4 = 16 (measured 15.4;
    # accepted above 12) against the Euler-equation reference.
    omega0, total, errors = np.array([4.0, 9.0, -6.0]), 1.5, []
    for dt in (2e-3, 1e-3):
        steps = int(round(total / dt))
        _, c, _, _ = SpinningCluster(tmp_path, tuple(omega0), steps, dt)
        omega_body = QuaternionMatrix(*c["orientation"]).T @ c["angular_velocity"]
        reference = EulerReference(c["inertia"], omega0, steps * dt, 10 * steps)
        errors.append(np.linalg.norm(omega_body - reference))
    assert errors[0] / errors[1] > 12.0


# ------------------------------------------------------------------ impact on a plane
def test_a_dumbbell_dropped_on_a_plane_comes_to_rest_on_both_spheres(tmp_path):
    r, half = 0.01, 0.015
    clu = WriteClu(tmp_path / "dumbbell.clu", [(-half, 0.0, 0.0, r), (half, 0.0, 0.0, r)],
                   size=1.0, volume=2 * 4 / 3 * math.pi * r ** 3,
                   inertia=(0.4 * r * r, 0.4 * r * r + half * half, 0.4 * r * r + half * half))
    tilt = math.radians(15.0)  # about y: one sphere lands first
    q = (math.cos(tilt / 2), 0.0, math.sin(tilt / 2), 0.0)
    model, spheres, clusters, walls, grain = ClusterModel(clu, [(0.0, 0.0, 0.03)], 1.0, orientation=q)
    plate = Material(walls, 2, young=1e9)
    Relate(grain, plate, restitution=0.5, static_friction=0.3)
    SquarePlate(walls, plate, half=0.2)
    dt = 1e-5
    strategy = Strategy(spheres, clusters, walls, Settings(dt, gravity=(0.0, 0.0, -9.81)))
    time = 0.0
    for _ in range(60000):  # 0.6 s
        time += dt
        strategy.SolveSolutionStep(time)
    c = strategy.Clusters()[0]
    weight = c["mass"] * 9.81
    assert np.linalg.norm(c["velocity"]) < 1e-9 and np.linalg.norm(c["angular_velocity"]) < 1e-9
    assert strategy.NumberOfWallContacts() == 2
    # Statics: the wall carries M g; by symmetry each sphere half of it.
    contact = strategy.Particles.contact_force
    np.testing.assert_allclose(contact.sum(axis=0), [0.0, 0.0, weight], rtol=0, atol=1e-9 * weight)
    # Hertz static indentation of each sphere (thesis A.17, with E* of the pair).
    pair = strategy.PairParameters(0, 1)
    delta = (3 * (weight / 2) / (4 * pair["effective_young"] * math.sqrt(r))) ** (2 / 3)
    heights = Members(strategy)[:, 2]
    np.testing.assert_allclose(r - heights, [delta, delta], rtol=1e-9)  # measured 3e-12


# ------------------------------------------------------------------ threads
def DumbbellBed(folder, adjust_settings=lambda settings: None):
    """600 touching dumbbells (above ParallelRows' serial limit of 512 rows and
    clusters), numbered x slowest, falling onto a plate: (model, strategy),
    the strategy initialised (adjust_settings(settings) first)."""
    r, half = 0.01, 0.012
    clu = WriteClu(folder / "dumbbell.clu", [(-half, 0.0, 0.0, r), (half, 0.0, 0.0, r)],
                   size=1.0, volume=2 * 4 / 3 * math.pi * r ** 3,
                   inertia=(0.4 * r * r, 0.4 * r * r + half * half, 0.4 * r * r + half * half))
    centres = [(0.045 * i, 0.0195 * j, 0.00995 + 0.0195 * k) for i in range(10) for j in range(10)
               for k in range(6)]
    model, spheres, clusters, walls, grain = ClusterModel(
        clu, centres, 1.0, orientation=(math.cos(0.1), 0.0, 0.0, math.sin(0.1)))
    plate = Material(walls, 2, young=1e9)
    Relate(grain, plate, restitution=0.5, static_friction=0.3)
    Relate(grain, grain, restitution=0.5, static_friction=0.3)
    SquarePlate(walls, plate, half=1.0)
    settings = Settings(1e-5, gravity=(0.0, 0.0, -9.81), search_frequency=10, tolerance=1e-3)
    adjust_settings(settings)
    return model, Strategy(spheres, clusters, walls, settings)


def test_one_and_two_threads_give_bitwise_the_same_cluster_run(tmp_path):
    def run(threads):
        with ParallelThreads(threads):
            model, strategy = DumbbellBed(tmp_path)
            time = 0.0
            for _ in range(100):
                time += 1e-5
                strategy.SolveSolutionStep(time)
            assert strategy.NumberOfParticleContacts() > 0 and strategy.NumberOfWallContacts() > 0
            return ([tuple(c["centre"]) for c in strategy.Clusters()],
                    [tuple(c["angular_velocity"]) for c in strategy.Clusters()],
                    [tuple(x) for x in strategy.Particles.position])
    assert run(1) == run(2)


# ------------------------------------------------------------------ bounding box
def test_the_bounding_box_deletes_at_kratos_cadence_and_judges_clusters_by_their_centre(tmp_path):
    # Kratos' DEM strategy destroys particles outside the box in its search
    # operations, at the steps with (step + 1) % NeighbourSearchFrequency == 0
    # (dem3d_clusters README: with frequency 10, from the step at 4.5e-6 = step 9).
    # A free sphere outside the box goes at step 9; a cluster whose centre is
    # inside stays although one of its spheres sticks out; one whose centre is
    # outside goes with all its spheres.
    clu = WriteClu(tmp_path / "pair.clu", [(-0.3, 0.0, 0.0, 0.1), (0.3, 0.0, 0.0, 0.1)],
                   size=1.0, volume=0.01, inertia=(0.01, 0.05, 0.05))
    model, spheres, clusters, walls, grain = ClusterModel(clu, [(0.8, 0.0, 0.0), (1.5, 3.0, 0.0)], 1.0)
    node = spheres.CreateNewNode(1, 0.0, 2.5, 0.0)
    node.SetSolutionStepValue(tessera.RADIUS, 0.1)
    spheres.CreateNewElement("SphericParticle3D", 1, [1], grain)
    settings = Settings(1e-3, search_frequency=10)
    settings.bounding_box = True
    settings.bounding_box_min = [-2.0, -2.0, -2.0]
    settings.bounding_box_max = [1.0, 2.0, 2.0]  # member at x = 1.1 of cluster 1 sticks out
    settings.bounding_box_start_time = 0.5e-3  # active after the start, as in the deck
    strategy = Strategy(spheres, clusters, walls, settings)
    counts = []
    time = 0.0
    for _ in range(12):
        time += 1e-3
        strategy.SolveSolutionStep(time)
        counts.append((spheres.NumberOfElements(), clusters.NumberOfElements()))
    assert counts[:8] == [(5, 2)] * 8
    assert counts[8:] == [(2, 1)] * 4
    assert [c["element_id"] for c in strategy.Clusters()] == [2000]
    assert list(strategy.Particles.cluster) == [1, 1]
    assert list(strategy.Particles.element_id) == [c for c in
                                                    sorted(e.Id for e in spheres.Elements)]


# ------------------------------------------------------------------ Kratos' deck
class CountingStage:
    """DEMAnalysisStage recording, after every step, the counts Kratos'
    test_clusters_2 checks."""

    def __new__(cls, model, parameters):
        from tessera.dem import DEMAnalysisStage

        class Stage(DEMAnalysisStage):
            counts = []

            def FinalizeSolutionStep(self):
                super().FinalizeSolutionStep()
                spheres = self.model.GetModelPart("SpheresPart")
                clusters = self.model.GetModelPart("ClusterPart")
                self.counts.append((self.time, spheres.NumberOfNodes(), spheres.NumberOfElements(),
                                    clusters.NumberOfNodes(), clusters.NumberOfElements()))
        stage = Stage(model, parameters)
        stage.counts = []
        return stage


@needs_case
def test_kratos_cluster_deck_runs_unchanged_and_deletes_the_cluster_outside_the_box(in_copy):
    in_copy("dem3d_clusters")
    parameters = tessera.Parameters.FromFile("ProjectParametersDEM2.json")
    model = tessera.Model()
    stage = CountingStage(model, parameters)
    stage.Run()
    # Kratos' checks: BoundingBoxOption and its time limits [1e-6, 1000] (1e-12).
    p = stage.DEM_parameters
    assert p["BoundingBoxOption"].GetBool()
    assert p["BoundingBoxStartTime"].GetDouble() == pytest.approx(1e-6, abs=1e-12)
    assert p["BoundingBoxStopTime"].GetDouble() == pytest.approx(1000.0, abs=1e-12)
    assert len(stage.counts) == 12
    regimes = set()
    for time, sphere_nodes, sphere_elements, cluster_nodes, cluster_elements in stage.counts:
        if time < 4.4e-6:
            assert (sphere_nodes, sphere_elements, cluster_nodes, cluster_elements) == \
                (128, 128, 2, 2), time
            regimes.add("both")
        else:
            assert (sphere_nodes, sphere_elements, cluster_nodes, cluster_elements) == \
                (64, 64, 1, 1), time
            regimes.add("one")
    assert regimes == {"both", "one"}
    # The remaining cluster node carries the rigid-body results.
    clusters = model.GetModelPart("ClusterPart")
    (node,) = list(clusters.Nodes)
    c = stage.GetStrategy().Clusters()[0]
    np.testing.assert_array_equal(node.GetSolutionStepValue(tessera.VELOCITY), c["velocity"])
    np.testing.assert_array_equal(node.GetSolutionStepValue(tessera.ANGULAR_VELOCITY),
                                  c["angular_velocity"])
    np.testing.assert_allclose(node.GetSolutionStepValue(tessera.DISPLACEMENT),
                               np.array([node.X, node.Y, node.Z]) - [node.X0, node.Y0, node.Z0],
                               atol=1e-15)
    q = node.GetSolutionStepValue(tessera.ORIENTATION)
    assert math.isclose(math.hypot(q.W, q.X, q.Y, q.Z), 1.0, rel_tol=1e-14)
    assert node.GetSolutionStepValue(tessera.VELOCITY)[1] < 0.0  # falling (gravity -y)
    # The RigidFace3D2N line is a wall of the run (54 segments) with the obstacle.
    assert stage.GetStrategy().NumberOfFaces() == 52 + 54


@needs_case
def test_tessera_run_runs_the_kratos_cluster_deck(tmp_path):
    target = tmp_path / "dem3d_clusters"
    shutil.copytree(CLUSTER_CASE, target)
    from tessera.project import Project
    stage = Project(str(target)).Run()
    assert stage.GetStrategy().StepCount() == 12
    assert stage.model.GetModelPart("SpheresPart").NumberOfElements() == 64
    assert stage.model.GetModelPart("ClusterPart").NumberOfElements() == 1


# ------------------------------------------------------------------ bad input
@needs_case
@pytest.mark.parametrize("edit,expected", [
    (lambda m: m.replace('"demobj_3.clu"', '"missing.clu"'),
     r"Cluster3D element \d+ \(CLUSTER_FILE_NAME of properties \d+\): cluster file 'missing\.clu'"),
    (lambda m: m.replace('"demobj_3.clu"', '""'),
     r"Cluster3D element \d+: properties \d+ have no CLUSTER_FILE_NAME"),
])
def test_a_bad_cluster_file_name_in_the_deck_is_an_error_naming_it(in_copy, edit, expected):
    folder = in_copy("dem3d_clusters")
    materials = folder / "MaterialsDEM2.json"
    materials.write_text(edit(materials.read_text()))
    from tessera.dem import DEMAnalysisStage
    stage = DEMAnalysisStage(tessera.Model(), tessera.Parameters.FromFile("ProjectParametersDEM2.json"))
    with pytest.raises(tessera.Error, match=expected):
        stage.Initialize()


@needs_case
def test_a_cluster_without_characteristic_length_is_an_error_naming_the_node(in_copy):
    folder = in_copy("dem3d_clusters")
    deck = folder / "dempartDEM_Clusters.mdpa"
    deck.write_text(deck.read_text().replace("101 0 0.028", "101 0 0.0"))
    from tessera.dem import DEMAnalysisStage
    stage = DEMAnalysisStage(tessera.Model(), tessera.Parameters.FromFile("ProjectParametersDEM2.json"))
    with pytest.raises(tessera.Error, match=r"Cluster3D element \d+: CHARACTERISTIC_LENGTH must be "
                                            r"> 0, got 0"):
        stage.Initialize()


def test_a_malformed_clu_file_in_a_run_names_the_cluster_file_and_line(tmp_path):
    path = tmp_path / "broken.clu"
    path.write_text("Begin centers_and_radii\n0 0 0 1\nEnd centers_and_radii\nSize\nabc\n")
    model, spheres, clusters, walls, _ = ClusterModel(str(path), [(0.0, 0.0, 0.0)], 1.0)
    strategy = Dem().ExplicitSolverStrategy(spheres, None, Settings(1e-5))
    strategy.SetClusterModelPart(clusters)
    with pytest.raises(tessera.Error, match=r"Cluster3D element 2000 .*broken\.clu:5: malformed "
                                            r"number 'abc' in Size"):
        strategy.Initialize()
