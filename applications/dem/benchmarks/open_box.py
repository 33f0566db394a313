"""The walls the DEM benchmarks share: an open box of five RigidFace3D4N
quadrilaterals (floor and four sides) over [x0, x1] x [y0, y1] x [0, top];
and the materials of the settling benchmarks poured into it."""
import tessera


def SettlingMaterials(spheres, walls):
    """Grains (ρ 2500, E 1e7, ν 0.25; Hertz between them) and steel walls
    (E 2e11, ν 0.3; linear against the grains), e 0.5, μ 0.4: the grain and
    wall Properties."""
    grain = spheres.GetProperties(1)
    for variable, value in ((tessera.PARTICLE_DENSITY, 2500.0), (tessera.YOUNG_MODULUS, 1e7),
                            (tessera.POISSON_RATIO, 0.25)):
        grain.SetValue(variable, value)
    wall = walls.GetProperties(2)
    wall.SetValue(tessera.YOUNG_MODULUS, 2e11)
    wall.SetValue(tessera.POISSON_RATIO, 0.3)
    for owner, other, law in ((grain, grain, "DEM_D_Hertz_viscous_Coulomb"),
                              (grain, wall, "DEM_D_Linear_viscous_Coulomb"),
                              (wall, grain, "DEM_D_Linear_viscous_Coulomb")):
        relation = tessera.Properties(other.Id)
        relation.SetValue(tessera.COEFFICIENT_OF_RESTITUTION, 0.5)
        relation.SetValue(tessera.STATIC_FRICTION, 0.4)
        relation.SetValue(tessera.DYNAMIC_FRICTION, 0.4)
        relation.SetValue(tessera.DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME, law)
        owner.AddSubProperties(relation)
    return grain, wall


def AddOpenBox(walls, properties, x0, x1, y0, y1, top):
    quads = [[(x0, y0, 0), (x1, y0, 0), (x1, y1, 0), (x0, y1, 0)],
             [(x0, y0, 0), (x0, y1, 0), (x0, y1, top), (x0, y0, top)],
             [(x1, y0, 0), (x1, y0, top), (x1, y1, top), (x1, y1, 0)],
             [(x0, y0, 0), (x0, y0, top), (x1, y0, top), (x1, y0, 0)],
             [(x0, y1, 0), (x1, y1, 0), (x1, y1, top), (x0, y1, top)]]
    node_id = 1
    for k, quad in enumerate(quads, start=1):
        ids = []
        for xyz in quad:
            walls.CreateNewNode(node_id, *xyz)
            ids.append(node_id)
            node_id += 1
        walls.CreateNewCondition("RigidFace3D4N", k, ids, properties)
