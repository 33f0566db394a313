"""Builders for the Moreau-Jean tests: spheres and floors in model parts
(dem_test_utilities' builders) and a MoreauJeanStrategy around them."""
import tessera

from dem_test_utilities import Material, Relate, Settings, Sphere, SpheresPart, SquarePlate


def MoreauJean(**keys):
    from tessera import _dem
    s = _dem.MoreauJeanSettings()
    for key, value in keys.items():
        setattr(s, key, value)
    return s


def Scene(spheres_data, restitution=0.9, friction=0.15, density=7850.0, floor=None):
    """(model, spheres, walls or None): spheres_data = [(position, radius,
    velocity[, angular_velocity])], one grain material related to itself and
    to a floor (a square plate at z = floor) if given."""
    model = tessera.Model()
    spheres = SpheresPart(model)
    grain = Material(spheres, 1, density=density)
    Relate(grain, grain, restitution=restitution, static_friction=friction)
    walls = None
    if floor is not None:
        walls = model.CreateModelPart("RigidFacePart")
        wall = Material(walls, 2)
        Relate(grain, wall, restitution=restitution, static_friction=friction)
        SquarePlate(walls, wall, half=10.0, z=floor)
    for k, data in enumerate(spheres_data, start=1):
        position, radius, velocity = data[:3]
        angular = data[3] if len(data) > 3 else (0.0, 0.0, 0.0)
        Sphere(spheres, k, position, radius, grain, velocity=velocity, angular_velocity=angular)
    return model, spheres, walls


def Strategy(spheres, walls, dt, gravity=(0.0, 0.0, 0.0), **keys):
    from tessera import _dem
    strategy = _dem.MoreauJeanStrategy(spheres, walls, Settings(dt, gravity=gravity),
                                       MoreauJean(**keys))
    strategy.Initialize()
    return strategy
