"""System monitors for stage scripts: linear momentum, angular momentum and
kinetic energy of the spheres, from the rows of either DEM strategy
(stage.GetStrategy(): ExplicitSolverStrategy or MoreauJeanStrategy).

    from tessera.dem import monitors
    strategy = stage.GetStrategy()
    p = monitors.LinearMomentum(strategy)               # sum m v (kg m/s)
    l = monitors.AngularMomentum(strategy, (0, 0, 0))   # sum x x m v + I w
    e = monitors.KineticEnergy(strategy)                # 1/2 m v^2 + 1/2 I w^2 (J)

Rigid clusters count once, as the bodies they are (mass M, centre, V, world
angular momentum L, kinetic energy ½ M V² + ½ ω·L), not through their member
rows (which carry the cluster's mass for the contact laws). `Monitor` records
the three over a run.
"""
import numpy as np


def _Rows(strategy):
    """The free spheres' rows (mass, position, velocity, inertia, angular
    velocity) and the strategy's clusters."""
    rows = strategy.Particles
    free = np.asarray(rows.cluster) == 0
    columns = {name: np.asarray(getattr(rows, name))[free]
               for name in ("mass", "position", "velocity", "inertia", "angular_velocity")}
    return columns, strategy.Clusters()


def LinearMomentum(strategy):
    rows, clusters = _Rows(strategy)
    p = (rows["mass"][:, None] * rows["velocity"]).sum(axis=0)
    for c in clusters:
        p = p + c["mass"] * np.asarray(c["velocity"])
    return p


def AngularMomentum(strategy, origin=(0.0, 0.0, 0.0)):
    rows, clusters = _Rows(strategy)
    origin = np.asarray(origin, dtype=float)
    r = rows["position"] - origin
    spin = rows["inertia"][:, None] * rows["angular_velocity"]
    total = (np.cross(r, rows["mass"][:, None] * rows["velocity"]) + spin).sum(axis=0)
    for c in clusters:
        total = total + np.cross(np.asarray(c["centre"]) - origin,
                                 c["mass"] * np.asarray(c["velocity"]))
        total = total + np.asarray(c["angular_momentum"])
    return total


def KineticEnergy(strategy):
    rows, clusters = _Rows(strategy)
    v, w = rows["velocity"], rows["angular_velocity"]
    energy = float(0.5 * (rows["mass"] * (v * v).sum(axis=1)).sum()
                   + 0.5 * (rows["inertia"] * (w * w).sum(axis=1)).sum())
    for c in clusters:
        V = np.asarray(c["velocity"])
        energy += 0.5 * c["mass"] * float(V @ V) + 0.5 * float(
            np.asarray(c["angular_velocity"]) @ np.asarray(c["angular_momentum"]))
    return energy


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
