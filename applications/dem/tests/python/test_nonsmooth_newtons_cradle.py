"""Newton's cradle, 3 and 5 equal balls, ball 1 at 1 m/s onto the others at
rest and touching: what each contact model predicts (digest
seed002_003_nonsmooth.md §C2.5, §B10.5; the test documents the models, it
does not pick one):
- simultaneous Newton law (thesis 003 cluster solver, or one Moreau-Jean step
  with every contact active): v1 = (1+e)/N - e, the others (1+e)/N:
  N = 3, e = 1: (-1/3, 2/3, 2/3); e = 0.9: (-0.266667, 0.633333, 0.633333);
  N = 5, e = 1: (-0.6, 0.4, ...); e = 0.9: (-0.52, 0.38, ...). 1e-12.
- sequential binary impacts (event-driven, one pair at a time): e = 1:
  (0, ..., 0, 1) exactly; e = 0.9, N = 3: (0.047625, 0.049875, 0.9025) (the
  three binary impacts worked by hand); N = 5: momentum 1, energy below 1/2 m,
  no ball overtaking the next.
- undamped penalty DEM (ExplicitSolverStrategy), result independent of k and
  v: Hooke N = 3 (-0.13026, 0.15023, 0.98003), Hertz N = 3 (-0.07095,
  0.07640, 0.99455); Hooke N = 5 (-0.1323, -0.0753, -0.0310, 0.2962,
  0.9424), Hertz N = 5 (-0.0711, -0.0303, -0.0145, 0.1270, 0.9888). The
  digest prints 4-5 decimals: 1e-4 absolute (the explicit step adds O(dt^2)).
"""
import numpy as np
import pytest

from dem_test_utilities import Material, Relate, Settings, Sphere, SpheresPart
from nonsmooth_models import Scene, Strategy
from nonsmooth_test_cases import Body, Material as ImpactMaterial

import tessera

R = 0.025


def Simultaneous(n, e):
    return [(1.0 + e) / n - e] + [(1.0 + e) / n] * (n - 1)


@pytest.mark.parametrize("n", [3, 5])
@pytest.mark.parametrize("e", [1.0, 0.9])
def test_one_moreau_jean_step_is_the_simultaneous_newton_law(n, e):
    _, spheres, _ = Scene([((2.0 * R * k, 0.0, 0.0), R, (1.0 if k == 0 else 0.0, 0.0, 0.0))
                           for k in range(n)], restitution=e, friction=0.0)
    strategy = Strategy(spheres, None, 1e-4, tolerance=1e-15, max_iterations=100000)
    strategy.SolveSolutionStep(1e-4)
    np.testing.assert_allclose(strategy.Particles.velocity[:, 0], Simultaneous(n, e), atol=1e-12)
    assert strategy.LastStep()["contacts"] == n - 1


@pytest.mark.parametrize("n", [3, 5])
@pytest.mark.parametrize("e", [1.0, 0.9])
def test_cluster_solver_is_the_simultaneous_newton_law(n, e):
    from tessera import _dem
    bodies = [Body((2.0 * R * k, 0.0, 0.0), (1.0 if k == 0 else 0.0, 0.0, 0.0)) for k in range(n)]
    result = _dem.SolveConcurrentImpact(bodies, _dem.TouchingPairs(bodies, 1e-9),
                                        ImpactMaterial(friction=0.0, restitution=e))
    np.testing.assert_allclose(np.asarray(result["velocity"])[:, 0], Simultaneous(n, e), atol=1e-12)


def Sequential(n, e):
    from tessera.dem.event_driven import EventDrivenSpheres
    bodies = [Body((2.0 * R * k, 0.0, 0.0), (1.0 if k == 0 else 0.0, 0.0, 0.0)) for k in range(n)]
    run = EventDrivenSpheres(bodies, ImpactMaterial(friction=0.0, restitution=e), mode="sequential")
    run.Advance(1.0)
    return np.array([b.velocity[0] for b in run.bodies]), run


@pytest.mark.parametrize("n", [3, 5])
def test_sequential_binary_impacts_pass_the_momentum_down_the_line(n):
    v, run = Sequential(n, 1.0)
    np.testing.assert_allclose(v, [0.0] * (n - 1) + [1.0], atol=1e-12)
    assert len(run.impacts) == n - 1
    v, _ = Sequential(n, 0.9)
    if n == 3:
        # By hand, equal masses: 1-2 gives (0.05, 0.95), 2-3 (0.0475, 0.9025),
        # then 1 catches 2: (0.04875 -+ 0.9 * 0.0025/2) = (0.047625, 0.049875).
        np.testing.assert_allclose(v, (0.047625, 0.049875, 0.9025), atol=1e-12)
    assert v.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(np.diff(v) >= -1e-12)  # ordered: no ball overtakes the next
    assert 0.5 * (v ** 2).sum() < 0.5


PENALTY = {("DEM_D_Linear_Simple_Coulomb", 3): (-0.13026, 0.15023, 0.98003),
           ("DEM_D_Hertz_viscous_Coulomb", 3): (-0.07095, 0.07640, 0.99455),
           ("DEM_D_Linear_Simple_Coulomb", 5): (-0.1323, -0.0753, -0.0310, 0.2962, 0.9424),
           ("DEM_D_Hertz_viscous_Coulomb", 5): (-0.0711, -0.0303, -0.0145, 0.1270, 0.9888)}


@pytest.mark.parametrize("law,n", sorted(PENALTY))
def test_undamped_penalty_dem(law, n):
    from tessera import _dem
    model = tessera.Model()
    spheres = SpheresPart(model)
    grain = Material(spheres, 1, density=7850.0, young=1e7)
    Relate(grain, grain, restitution=1.0, law=law)
    for k in range(n):
        Sphere(spheres, k + 1, (2.0 * R * k, 0.0, 0.0), R, grain,
               velocity=(1.0 if k == 0 else 0.0, 0.0, 0.0))
    probe = _dem.ExplicitSolverStrategy(spheres, None, Settings(1e-6))
    probe.Initialize()
    contact_time = probe.EstimateTimeStep(1.0).contact_time
    dt = contact_time / 2000.0
    strategy = _dem.ExplicitSolverStrategy(spheres, None, Settings(dt))
    strategy.Initialize()
    time = 0.0
    for _ in range(int(3 * n * contact_time / dt)):
        time += dt
        strategy.SolveSolutionStep(time)
    v = strategy.Particles.velocity[:, 0]
    np.testing.assert_allclose(v, PENALTY[(law, n)], atol=1e-4)
