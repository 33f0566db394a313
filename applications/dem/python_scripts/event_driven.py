"""Event-driven hard spheres (thesis 003's mode; docs/user_guide.md, "Smooth or non-smooth"):
free flight under gravity between impacts, located exactly
(tessera._dem.PairTimeOfImpact, PlaneTimeOfImpact), each impact resolved by
the concurrent-impact solver (tessera._dem.SolveConcurrentImpact) over the
contacts that touch and approach at that instant, clusters as connected
components.

`mode`: "simultaneous" resolves every touching, approaching contact of the
instant together (the 003 model); "sequential" resolves one binary impact at
a time, the most approaching first (the event-driven binary practice 003
discusses), repeating until no touching contact approaches.

A sphere whose impact speed on a plane falls below `rest_speed` after an
impact is put at rest on it (the Zeno limit: infinitely many bounces in a
finite time t_inf, which no event list reaches); it then stays there while
gravity presses it on the plane.
"""
import math

import numpy as np

from tessera import _dem


class EventDrivenSpheres:
    def __init__(self, bodies, material, gravity=(0.0, 0.0, 0.0), planes=(), mode="simultaneous",
                 contact_tolerance=1e-12, rest_speed=1e-6):
        if mode not in ("simultaneous", "sequential"):
            raise ValueError(f"mode '{mode}': expected \"simultaneous\" or \"sequential\"")
        self.bodies = list(bodies)
        self.material = material
        self.gravity = np.asarray(gravity, dtype=float)
        self.planes = [(np.asarray(p, float), np.asarray(n, float) / np.linalg.norm(n))
                       for p, n in planes]
        self.mode = mode
        self.tolerance = contact_tolerance
        self.rest_speed = rest_speed
        self.resting = set()  # (body, plane) pairs at rest
        self.time = 0.0
        self.impacts = []  # (time, result of the solver)

    def _Fly(self, dt):
        g = self.gravity
        for k, b in enumerate(self.bodies):
            a = g.copy()
            for (body, plane) in self.resting:
                if body == k:
                    n = self.planes[plane][1]
                    a = a - min(np.dot(a, n), 0.0) * n
            x, v = np.asarray(b.position), np.asarray(b.velocity)
            b.position = list(x + v * dt + 0.5 * a * dt * dt)
            b.velocity = list(v + a * dt)

    def _NextEvent(self):
        t = math.inf
        for i in range(len(self.bodies)):
            bi = self.bodies[i]
            for j in range(i + 1, len(self.bodies)):
                bj = self.bodies[j]
                t = min(t, _dem.PairTimeOfImpact(bi.position, bi.velocity, bi.radius, bj.position,
                                                 bj.velocity, bj.radius))
            for p, (point, n) in enumerate(self.planes):
                if (i, p) in self.resting:
                    continue
                t = min(t, _dem.PlaneTimeOfImpact(bi.position, bi.velocity, bi.radius,
                                                  list(self.gravity), list(point), list(n)))
        return t

    def _Approaching(self):
        """Touching contacts that approach: (i, j, normal) with j = -1 a plane."""
        out = []
        for i, bi in enumerate(self.bodies):
            xi, vi = np.asarray(bi.position), np.asarray(bi.velocity)
            for j in range(i + 1, len(self.bodies)):
                bj = self.bodies[j]
                d = xi - np.asarray(bj.position)
                dist = np.linalg.norm(d)
                if dist - bi.radius - bj.radius <= self.tolerance * (bi.radius + bj.radius):
                    n = d / dist
                    out.append((-np.dot(vi - np.asarray(bj.velocity), n), i, j, [0.0] * 3))
            for p, (point, n) in enumerate(self.planes):
                if (i, p) in self.resting:
                    continue
                if np.dot(xi - point, n) - bi.radius <= self.tolerance * bi.radius:
                    out.append((-np.dot(vi, n), i, -1, list(n), p))
        return [c for c in out if c[0] > 0.0]

    def _Resolve(self):
        for _ in range(100000):
            approaching = self._Approaching()
            if not approaching:
                return
            if self.mode == "sequential":
                approaching = [max(approaching, key=lambda c: c[0])]
            contacts = [_dem.ImpactContact(c[1], c[2], c[3]) for c in approaching]
            # All touching pairs of the instant join the cluster (resting ones too).
            if self.mode == "simultaneous":
                seen = {(c.i, c.j) for c in contacts}
                for c in _dem.TouchingPairs(self.bodies, self.tolerance * 2.0 * self.bodies[0].radius):
                    if (c.i, c.j) not in seen:
                        contacts.append(c)
            result = _dem.SolveConcurrentImpact(self.bodies, contacts, self.material)
            self.impacts.append((self.time, result))
            for b, v, w in zip(self.bodies, result["velocity"], result["angular_velocity"]):
                b.velocity, b.angular_velocity = list(v), list(w)
            for c in approaching:
                if c[2] == -1:
                    n = np.asarray(c[3])
                    vn = np.dot(self.bodies[c[1]].velocity, n)
                    if abs(vn) < self.rest_speed:
                        v = np.asarray(self.bodies[c[1]].velocity)
                        self.bodies[c[1]].velocity = list(v - vn * n)
                        self.resting.add((c[1], c[4]))
        raise RuntimeError("event-driven impacts did not settle at one instant")

    def Advance(self, until):
        """Runs to time `until`; returns the number of impacts."""
        count = len(self.impacts)
        self._Resolve()
        while self.time < until:
            dt = min(self._NextEvent(), until - self.time)
            self._Fly(dt)
            self.time += dt
            self._Resolve()
        return len(self.impacts) - count
