"""System monitors for stage scripts: linear momentum, angular momentum and
kinetic energy of the spheres, from the rows of either DEM strategy
(stage.GetStrategy(): ExplicitSolverStrategy or MoreauJeanStrategy).

    from tessera.dem import monitors
    strategy = stage.GetStrategy()
    p = monitors.LinearMomentum(strategy)               # sum m v (kg m/s)
    l = monitors.AngularMomentum(strategy, (0, 0, 0))   # sum x x m v + I w
    e = monitors.KineticEnergy(strategy)                # 1/2 m v^2 + 1/2 I w^2 (J)

Rows of rigid-cluster members count as the spheres they are (each with its
own mass and inertia); `Monitor` records the three over a run.
"""
import numpy as np


def _Rows(strategy):
    return strategy.Particles


def LinearMomentum(strategy):
    rows = _Rows(strategy)
    return (np.asarray(rows.mass)[:, None] * np.asarray(rows.velocity)).sum(axis=0)


def AngularMomentum(strategy, origin=(0.0, 0.0, 0.0)):
    rows = _Rows(strategy)
    m = np.asarray(rows.mass)[:, None]
    r = np.asarray(rows.position) - np.asarray(origin, dtype=float)
    spin = np.asarray(rows.inertia)[:, None] * np.asarray(rows.angular_velocity)
    return (np.cross(r, m * np.asarray(rows.velocity)) + spin).sum(axis=0)


def KineticEnergy(strategy):
    rows = _Rows(strategy)
    v = np.asarray(rows.velocity)
    w = np.asarray(rows.angular_velocity)
    return float(0.5 * (np.asarray(rows.mass) * (v * v).sum(axis=1)).sum()
                 + 0.5 * (np.asarray(rows.inertia) * (w * w).sum(axis=1)).sum())


class Monitor:
    """Records time, linear and angular momentum (about `origin`) and kinetic
    energy each time it is called (e.g. from a stage's FinalizeSolutionStep)."""

    def __init__(self, strategy, origin=(0.0, 0.0, 0.0)):
        self.strategy = strategy
        self.origin = origin
        self.time, self.linear, self.angular, self.kinetic = [], [], [], []

    def __call__(self, time):
        self.time.append(time)
        self.linear.append(LinearMomentum(self.strategy))
        self.angular.append(AngularMomentum(self.strategy, self.origin))
        self.kinetic.append(KineticEnergy(self.strategy))

    def KineticEnergyNeverIncreases(self, relative_tolerance=1e-12):
        k = np.asarray(self.kinetic)
        return bool(np.all(np.diff(k) <= relative_tolerance * np.maximum(k[:-1], 1e-300)))
