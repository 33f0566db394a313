"""The impact set-ups of thesis 003 §5 (digest seed002_003_nonsmooth.md §B7):
equal steel spheres, d = 50 mm, e_n = e_t = 0.9, mu_s = mu_d = 0.15, built
as tessera._dem.ImpactBody lists for the concurrent-impact solver."""
import math

import numpy as np

RADIUS = 0.025
DENSITY = 7850.0
MASS = DENSITY * 4.0 / 3.0 * math.pi * RADIUS ** 3  # 0.5137812986 kg
INERTIA = 0.4 * MASS * RADIUS ** 2
S = 2.0 * RADIUS
H_TETRA = S * math.sqrt(2.0 / 3.0)


def Dem():
    from tessera import _dem
    return _dem


def Material(friction=0.15, restitution=0.9):
    return Dem().ImpactMaterial(restitution, restitution, friction, friction)


def Body(position, velocity=(0.0, 0.0, 0.0), angular_velocity=(0.0, 0.0, 0.0)):
    return Dem().ImpactBody(list(map(float, position)), list(map(float, velocity)),
                            list(map(float, angular_velocity)), RADIUS, MASS, INERTIA)


def Direction(theta_degrees, cyclic=0):
    t = math.radians(theta_degrees)
    d = np.array([math.cos(t), math.sin(t), 0.0])
    return np.roll(d, cyclic)  # X->Y, Y->Z, Z->X once per shift


def Binary(case):
    """Cases 1-4: theta = 45, 30, 15, 0 deg in XOY; 5, 6: case 1 rotated cyclically."""
    theta = {1: 45.0, 2: 30.0, 3: 15.0, 4: 0.0, 5: 45.0, 6: 45.0}[case]
    d = Direction(theta, {5: 1, 6: 2}.get(case, 0))
    return [Body((0.0, 0.0, 0.0), (1.0, 1.0, 1.0)), Body(S * d, (-1.0, -1.0, -1.0))]


def TernaryStack(case):
    theta = {1: 45.0, 2: 30.0, 3: 15.0, 4: 0.0, 7: 0.0, 8: 0.0}[case]
    d = Direction(theta)
    v3 = {7: (-1.0, 1.0, -1.0), 8: (-1.0, 1.0, 1.0)}.get(case, (-1.0, -1.0, -1.0))
    return [Body(-S * d, (1.0, 1.0, 1.0)), Body((0.0, 0.0, 0.0)), Body(S * d, v3)]


def TernaryPlanar(case):
    v1 = (1.0, 0.0, 0.0) if case == 9 else (1.0, 0.0, 10.0)
    r3 = math.sqrt(3.0) * RADIUS
    return [Body((0.0, 0.0, 0.0), v1), Body((r3, RADIUS, 0.0)), Body((r3, -RADIUS, 0.0))]


def QuaternaryStack(case):
    d = Direction({1: 45.0, 2: 30.0, 3: 15.0, 4: 0.0}[case])
    return [Body(-1.5 * S * d, (1.0, 1.0, 1.0)), Body(-0.5 * S * d), Body(0.5 * S * d),
            Body(1.5 * S * d, (-1.0, -1.0, -1.0))]


def QuaternaryPlanar(case):
    v1 = (1.0, 0.0, 0.0) if case == 5 else (1.0, 0.0, 10.0)
    r3 = math.sqrt(3.0) * RADIUS
    return [Body((-S, 0.0, 0.0), v1), Body((0.0, 0.0, 0.0)), Body((r3, RADIUS, 0.0)),
            Body((r3, -RADIUS, 0.0))]


def Triangle(z, rotation_degrees=0.0):
    rho = S / math.sqrt(3.0)
    return [(rho * math.cos(math.radians(a + rotation_degrees)),
             rho * math.sin(math.radians(a + rotation_degrees)), z) for a in (0.0, 120.0, 240.0)]


TETRA_VELOCITIES = {7: (0.0, 0.0, -1.0), 8: (0.1, 0.0, -1.0),
                    9: (-0.1 * math.cos(math.radians(60)), -0.1 * math.sin(math.radians(60)), -1.0),
                    10: (-0.1 * math.cos(math.radians(60)), 0.1 * math.sin(math.radians(60)), -1.0)}


def Tetrahedron(case):
    return [Body((0.0, 0.0, H_TETRA), TETRA_VELOCITIES[case])] + [Body(p) for p in Triangle(0.0)]


def Quintenary(velocity=(0.0, 0.0, -1.0)):
    return ([Body((0.0, 0.0, H_TETRA + S), velocity), Body((0.0, 0.0, H_TETRA))]
            + [Body(p) for p in Triangle(0.0)])


def Hexenary():
    return Quintenary() + [Body((0.0, 0.0, -H_TETRA))]


def Heptenary(velocity=(1.0, 0.0, 0.0)):
    r3 = math.sqrt(3.0) * RADIUS
    return ([Body((-S, 0.0, 0.0), velocity), Body((0.0, 0.0, 0.0)), Body((r3, RADIUS, 0.0)),
             Body((r3, -RADIUS, 0.0))]
            + [Body((2.0 * r3, y, 0.0)) for y in (2.0 * RADIUS, 0.0, -2.0 * RADIUS)])


def Octenary(rotation_degrees=0.0):
    return ([Body((0.0, 0.0, H_TETRA), (0.0, 0.0, -1.0))] + [Body(p) for p in Triangle(0.0)]
            + [Body((0.0, 0.0, -H_TETRA))]
            + [Body(p) for p in Triangle(-2.0 * H_TETRA, rotation_degrees)])


def Solve(bodies, material=None, contacts=None):
    dem = Dem()
    if contacts is None:
        contacts = dem.TouchingPairs(bodies, 1e-9)
    return dem.SolveConcurrentImpact(bodies, contacts, material or Material()), contacts


def KineticEnergy(bodies):
    return sum(0.5 * MASS * np.dot(b.velocity, b.velocity)
               + 0.5 * INERTIA * np.dot(b.angular_velocity, b.angular_velocity) for b in bodies)
