"""The exact local Signorini-Coulomb solver (applications/dem/nonsmooth/
local_coulomb_solver.h) on random contact problems: U = b + W P with W
symmetric positive definite. The law holds exactly where De Saxce's
natural-map residual |P - proj_K(P - (U + mu |U_T| n)/W_NN)| vanishes:
checked to 1e-10 of |b| (the slip direction is a bisection root to 1e-15
rad), with the open, stick and slip cases each met; for an isotropic
diagonal W (spheres) the general path and the explicit one agree."""
import numpy as np
import pytest


def Dem():
    from tessera import _dem
    return _dem


def RandomSpd(rng, anisotropy):
    a = rng.normal(size=(3, 3))
    w = np.eye(3) + anisotropy * (a @ a.T) / 3.0
    return w


@pytest.mark.parametrize("anisotropy", [0.0, 0.3, 1.0])
def test_random_local_problems_satisfy_the_law(anisotropy):
    dem = Dem()
    rng = np.random.default_rng(5)
    seen = set()
    for _ in range(300):
        w = RandomSpd(rng, anisotropy)
        b = rng.normal(size=3)
        mu = rng.uniform(0.0, 1.0)
        p, status = dem.SolveLocalCoulomb(list(w.flatten()), list(b), mu)
        seen.add(status)
        p = np.asarray(p)
        assert p[0] >= 0.0
        assert np.hypot(p[1], p[2]) <= mu * p[0] * (1.0 + 1e-12) + 1e-15
        residual = dem.LocalLawResidual(list(w.flatten()), list(b), mu, list(p))
        assert residual <= 1e-10 * np.linalg.norm(b)
    assert seen == {0, 1, 2}  # open, stick and slip all met


def test_general_path_equals_the_explicit_one_for_spheres():
    dem = Dem()
    rng = np.random.default_rng(9)
    for _ in range(100):
        w = np.diag([2.0, 5.0, 5.0])
        b = rng.normal(size=3)
        mu = rng.uniform(0.05, 0.8)
        explicit, _ = dem.SolveLocalCoulomb(list(w.flatten()), list(b), mu)
        # The same W, tilted by round-off-free off-diagonal terms of 1e-9:
        # the general path.
        tilted = w.copy()
        tilted[1, 2] = tilted[2, 1] = 1e-9
        general, _ = dem.SolveLocalCoulomb(list(tilted.flatten()), list(b), mu)
        np.testing.assert_allclose(general, explicit, atol=1e-8)
