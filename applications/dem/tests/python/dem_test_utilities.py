"""Builders shared by the DEM tests: materials with their contact relation,
spheres and wall faces created in code, and a strategy around them."""
import contextlib
import json
import os
import shutil

import numpy as np
import tessera


@contextlib.contextmanager
def ParallelThreads(threads):
    """Runs the block with `threads` OpenMP threads, then restores the count."""
    previous = tessera.GetParallelThreads()
    tessera.SetParallelThreads(threads)
    try:
        yield
    finally:
        tessera.SetParallelThreads(previous)


def Material(model_part, properties_id, density=None, young=1e7, poisson=0.25):
    """Properties `properties_id` of `model_part` with a DEM material."""
    properties = model_part.GetProperties(properties_id)
    if density is not None:
        properties.SetValue(tessera.PARTICLE_DENSITY, density)
    properties.SetValue(tessera.YOUNG_MODULUS, young)
    properties.SetValue(tessera.POISSON_RATIO, poisson)
    return properties


def Relate(a, b, restitution=1.0, static_friction=0.0, dynamic_friction=None,
           law="DEM_D_Hertz_viscous_Coulomb", rolling_friction=None, rolling_model=None,
           friction_decay=None):
    """The material relation of a and b, stored as Kratos' materials assignation
    does: sub-properties b inside a and a inside b. `rolling_friction` and
    `rolling_model` set ROLLING_FRICTION and DEM_ROLLING_FRICTION_MODEL_NAME."""
    for owner, other in ((a, b), (b, a)):
        relation = tessera.Properties(other.Id)
        relation.SetValue(tessera.COEFFICIENT_OF_RESTITUTION, restitution)
        relation.SetValue(tessera.STATIC_FRICTION, static_friction)
        relation.SetValue(tessera.DYNAMIC_FRICTION,
                          static_friction if dynamic_friction is None else dynamic_friction)
        relation.SetValue(tessera.DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME, law)
        if rolling_friction is not None:
            relation.SetValue(tessera.ROLLING_FRICTION, rolling_friction)
        if rolling_model is not None:
            relation.SetValue(tessera.DEM_ROLLING_FRICTION_MODEL_NAME, rolling_model)
        if friction_decay is not None:
            relation.SetValue(tessera.FRICTION_DECAY, friction_decay)
        owner.AddSubProperties(relation)


def Sphere(model_part, node_id, position, radius, properties, velocity=(0.0, 0.0, 0.0),
           angular_velocity=(0.0, 0.0, 0.0)):
    node = model_part.CreateNewNode(node_id, *position)
    node.SetSolutionStepValue(tessera.RADIUS, radius)
    node.SetSolutionStepValue(tessera.VELOCITY, list(velocity))
    node.SetSolutionStepValue(tessera.ANGULAR_VELOCITY, list(angular_velocity))
    return model_part.CreateNewElement("SphericParticle3D", node_id, [node_id], properties)


def SphereAndWalls(centre, radius, velocity=(0.0, 0.0, 0.0)):
    """A model with one sphere (E 1e7, ρ 2000) of `radius` at `centre` and an
    empty RigidFacePart whose material (E 1e9) relates to the sphere's (e 0.5,
    μ 0.3): the spheres' and walls' model parts and the wall material."""
    model = tessera.Model()
    spheres = SpheresPart(model)
    walls = model.CreateModelPart("RigidFacePart")
    grain = Material(spheres, 1, density=2000.0, young=1e7, poisson=0.25)
    wall = Material(walls, 2, young=1e9, poisson=0.25)
    Relate(grain, wall, restitution=0.5, static_friction=0.3)
    Sphere(spheres, 1, centre, radius, grain, velocity=velocity)
    return spheres, walls, wall


def SpheresPart(model, name="SpheresPart", elastic_forces=False):
    """A spheres model part with the strategy's variables (ELASTIC_FORCES, which
    the strategy sums only where declared, with `elastic_forces`)."""
    from tessera import _dem
    model_part = model.CreateModelPart(name)
    _dem.DeclareParticleVariables(model_part, elastic_forces=elastic_forces)
    return model_part


def SphereUnderMoment(moment, radius=0.01, density=2000.0):
    """One free sphere at the origin (a Hertz relation with itself) carrying the
    constant EXTERNAL_APPLIED_MOMENT `moment`; returns (model, spheres)."""
    model = tessera.Model()
    spheres = SpheresPart(model)
    spheres.AddNodalSolutionStepVariable(tessera.EXTERNAL_APPLIED_MOMENT)
    grain = Material(spheres, 1, density=density)
    Relate(grain, grain)
    Sphere(spheres, 1, (0.0, 0.0, 0.0), radius, grain)
    spheres.GetNode(1).SetSolutionStepValue(tessera.EXTERNAL_APPLIED_MOMENT, list(moment))
    return model, spheres


def Face(model_part, condition_id, points, properties, first_node_id=None):
    """A RigidFace3D3N or 3D4N through `points` (new nodes)."""
    start = first_node_id if first_node_id is not None else model_part.NumberOfNodes() + 1
    ids = []
    for k, xyz in enumerate(points):
        model_part.CreateNewNode(start + k, *xyz)
        ids.append(start + k)
    name = "RigidFace3D3N" if len(points) == 3 else "RigidFace3D4N"
    return model_part.CreateNewCondition(name, condition_id, ids, properties)


def SquarePlate(walls, properties, name="plate", half=1.0, z=0.0, centre=(0.0, 0.0), first_id=1,
                **data):
    """A square RigidFace3D4N at height z, |x - cx|, |y - cy| <= half, alone in
    the wall sub model part `name` of `walls`, with SubModelPartData `data`
    (variable names). Nodes and the condition are numbered from first_id."""
    ids = list(range(first_id, first_id + 4))
    cx, cy = centre
    for node_id, (x, y) in zip(ids, [(-half, -half), (half, -half), (half, half), (-half, half)]):
        walls.CreateNewNode(node_id, cx + x, cy + y, z)
    walls.CreateNewCondition("RigidFace3D4N", first_id, ids, properties)
    plate = walls.CreateSubModelPart(name)
    plate.AddNodes(ids)
    plate.AddConditions([first_id])
    for key, value in data.items():
        plate.SetValue(getattr(tessera, key), value)
    return plate


def Settings(dt, scheme="Velocity_Verlet", gravity=(0.0, 0.0, 0.0), search_frequency=1,
             tolerance=0.0, rolling_friction=False):
    from tessera import _dem
    settings = _dem.DemSettings()
    settings.rolling_friction = rolling_friction
    settings.delta_time = dt
    settings.translational_scheme = scheme
    settings.gravity = list(gravity)
    settings.search_frequency = search_frequency
    settings.search_tolerance = tolerance
    settings.wall_search_tolerance = tolerance
    return settings


def Run(strategy, steps, dt, on_step=None, start_time=0.0):
    time = start_time
    for _ in range(steps):
        time += dt
        strategy.SolveSolutionStep(time)
        if on_step is not None:
            on_step(time)
    return time


def WallSubModelPart(name, data, nodes=(1, 2, 3, 4), conditions=(1,)):
    """mdpa text of a wall sub model part with SubModelPartData lines `data`
    ("KEY value" strings), for decks written by tests."""
    lines = [f"Begin SubModelPart {name}", "  Begin SubModelPartData"]
    lines += [f"    {line}" for line in data]
    lines += ["  End SubModelPartData", "  Begin SubModelPartNodes"]
    lines += [f"    {n}" for n in nodes]
    lines += ["  End SubModelPartNodes", "  Begin SubModelPartConditions"]
    lines += [f"    {c}" for c in conditions]
    lines += ["  End SubModelPartConditions", "End SubModelPart", ""]
    return "\n" + "\n".join(lines)


def Pile(count, seed=3, spacing=None, friction=0.4, restitution=0.3, speed=1.0, rolling=None,
         friction_decay=None):
    """`count` spheres of radii 4-6 mm above a floor of four triangles and a
    quadrilateral, with random velocities: at random places, overlapping some
    (spacing None), or on a jittered lattice of that spacing without overlaps.
    `rolling`: (ROLLING_FRICTION, model name) of both relations; `friction_decay`:
    FRICTION_DECAY of both."""
    rolling_relation = {} if rolling is None else {"rolling_friction": rolling[0],
                                                   "rolling_model": rolling[1]}
    rng = np.random.default_rng(seed)
    model = tessera.Model()
    spheres = SpheresPart(model)
    walls = model.CreateModelPart("RigidFacePart")
    grain = Material(spheres, 1, density=2600.0, young=5e7, poisson=0.25)
    wall = Material(walls, 2, young=2e11, poisson=0.3)
    Relate(grain, grain, restitution=restitution, static_friction=friction,
           dynamic_friction=0.8 * friction, friction_decay=friction_decay, **rolling_relation)
    Relate(grain, wall, restitution=restitution, static_friction=friction,
           law="DEM_D_Linear_viscous_Coulomb", friction_decay=friction_decay, **rolling_relation)
    radii = rng.uniform(0.004, 0.006, size=count)
    if spacing is None:
        positions = rng.uniform([-0.075, -0.075, 0.0], [0.075, 0.075, 0.15], size=(count, 3))
    else:
        side = int(np.ceil(np.sqrt(count / 6)))
        cells = [(a, b, c) for c in range(1000) for b in range(side) for a in range(side)][:count]
        jitter = rng.uniform(-0.2, 0.2, size=(count, 3)) * (spacing - 0.012)
        positions = (np.array(cells) + 0.5) * spacing - [side * spacing / 2, side * spacing / 2, 0] + jitter
    velocities = rng.normal(0.0, speed, size=(count, 3))
    for i in range(count):
        Sphere(spheres, i + 1, positions[i], radii[i], grain, velocity=velocities[i])
    h = 0.15
    Face(walls, 1, [(-h, -h, 0), (0, -h, 0), (0, 0, 0)], wall)
    Face(walls, 2, [(-h, -h, 0), (0, 0, 0), (-h, 0, 0)], wall)
    Face(walls, 3, [(0, -h, 0), (h, -h, 0), (h, 0, 0)], wall)
    Face(walls, 4, [(0, -h, 0), (h, 0, 0), (0, 0, 0)], wall)
    Face(walls, 5, [(-h, 0, 0), (h, 0, 0), (h, h, 0), (-h, h, 0)], wall)
    return model, spheres, walls


def DeckStage(folder, monkeypatch, **overrides):
    """(model, DEMAnalysisStage) of the deck in `folder`, which becomes the
    working directory; `overrides` (key -> bool or str) are set in its
    ProjectParametersDEM.json before the stage reads it."""
    import tessera.dem
    monkeypatch.chdir(folder)
    with open("ProjectParametersDEM.json") as f:
        parameters = tessera.Parameters(f.read())
    for key, value in overrides.items():
        kind = "String" if isinstance(value, str) else "Bool"
        if parameters.Has(key):
            getattr(parameters[key], "Set" + kind)(value)
        else:
            getattr(parameters, "Add" + kind)(key, value)
    model = tessera.Model()
    return model, tessera.dem.DEMAnalysisStage(model, parameters)



def RunKratosDeck(deck, tmp_path, on_step=None, materials=None, **keys):
    """Runs the DEM deck folder `deck` from a copy in tmp_path, with the
    materials file `materials` and the top-level parameters `keys` set in its
    ProjectParametersDEM.json where given; `on_step(stage)` is called after
    every step. Returns the model."""
    import tessera.dem
    case = tmp_path / "case"
    shutil.copytree(deck, case)
    if materials is not None or keys:
        with open(case / "ProjectParametersDEM.json") as f:
            parameters = json.load(f)
        if materials is not None:
            parameters["solver_settings"]["material_import_settings"]["materials_filename"] = \
                materials
        parameters.update(keys)
        with open(case / "ProjectParametersDEM.json", "w") as f:
            json.dump(parameters, f)

    class Stage(tessera.dem.DEMAnalysisStage):
        def FinalizeSolutionStep(self):
            super().FinalizeSolutionStep()
            if on_step is not None:
                on_step(self)

    model = tessera.Model()
    cwd = os.getcwd()
    os.chdir(case)
    try:
        Stage(model, tessera.Parameters.FromFile("ProjectParametersDEM.json")).Run()
    finally:
        os.chdir(cwd)
    return model
