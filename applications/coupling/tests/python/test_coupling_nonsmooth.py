"""The coupled DE-FE run with the Moreau-Jean strategy on the DEM side: the
skin's FE nodes in the Delassus operator through the faces' shape functions,
the impulses on spheres and nodes (dem_structures_coupling_analysis.py,
_SolveNonsmoothStep). Checks: one e = 1 impact on a single free FE node
against the two-body closed form, the total momentum through an impact on a
free elastic block, and the support reaction of a clamped plate carrying a
sphere at rest."""
import json

import numpy as np
import pytest

import tessera

from coupled_decks import block_mesh, dem_files, structure_files, top_faces


def _nonsmooth(folder, settings=None):
    """Switches the DEM deck of `folder` to moreau_jean_strategy."""
    path = folder / "ProjectParametersDEM.json"
    deck = json.loads(path.read_text())
    deck["solver_settings"]["strategy"] = "moreau_jean_strategy"
    deck["solver_settings"]["moreau_jean_settings"] = settings or {}
    path.write_text(json.dumps(deck))


def _stage(folder, coupling):
    import tessera.coupling
    model = tessera.Model()
    stage = tessera.coupling.DemStructuresCouplingAnalysis(
        model, tessera.Parameters.FromFile(str(folder / "ProjectParameters.json")),
        tessera.Parameters.FromFile(str(folder / "ProjectParametersDEM.json")), coupling)
    return model, stage


def _step(stage):
    stage.AdvanceInTime()
    stage.InitializeSolutionStep()
    stage.SolveSolutionStep()
    stage.FinalizeSolutionStep()


def _carried_velocity(stage):
    """The structure's nodal velocity over the next step, v_n+3/2 = v_n+1 +
    dt/2 a_n+1 (what the contact law and the momentum balance see)."""
    structure = stage.structure
    return (structure.NodalArray(tessera.VELOCITY)
            + 0.5 * stage.delta_time * structure.NodalArray(tessera.ACCELERATION))


def test_an_elastic_impact_on_a_single_free_fe_node_is_the_two_body_impact(project):
    """A tetrahedron (edge 0.2 m) with three nodes clamped and its apex free;
    its three faces at the apex are the skin. A sphere (R 0.05 m, 1 m/s)
    falls on the apex along z: a vertex contact (weight 1 on the apex), so
    W = 1/m_s + 1/m_node, and with e = 1 the step of the impact gives the
    closed form of two bodies, v_s+ = (m_s - m_n)/(m_s + m_n) v0 and
    v_n+ = 2 m_s/(m_s + m_n) v0 (to 1e-12: one exact local solve); the
    node's full-step velocity shows half of v_n+ (the central-difference
    mean of v_n+1/2 = 0 and v_n+3/2), its DEM_NODAL_FORCE is -P/dt."""
    L, R, v0, dt = 0.2, 0.05, 1.0, 1e-4
    nodes = {1: (0.0, 0.0, 0.0), 2: (L, 0.0, 0.0), 3: (0.0, L, 0.0), 4: (0.0, 0.0, L)}
    density = 1000.0
    structure_files(project, "tet", nodes, [[1, 2, 3, 4]], "SmallDisplacementElement3D4N", young=1e6,
                    poisson=0.3, density=density, fixed_nodes=[1, 2, 3], end_time=0.01, time_step=dt,
                    skin_faces=[[1, 2, 4], [2, 3, 4], [3, 1, 4]])
    sphere_density = 300.0  # m_s = 0.157 kg against m_node = 0.333 kg: the sphere rebounds
    dem_files(project, "tet", [(0.0, 0.0, L + R + 0.5 * dt * v0 + 1e-7, R, (0.0, 0.0, -v0))],
              density=sphere_density, young=1e7, poisson=0.3, restitution=1.0, end_time=0.01,
              time_step=dt, wall_material=(1e6, 0.3))
    _nonsmooth(project)
    model, stage = _stage(project, {"echo_level": 0, "skin_model_parts": ["Skin"]})
    stage.Initialize()
    m_node = density * L ** 3 / 6.0 / 4.0
    apex = stage.structure.GetNode(4)
    apex_row = list(stage.structure.NodeIds()).index(4)
    assert stage.NodalMasses()[apex_row] == pytest.approx(m_node, rel=1e-12)
    m_s = sphere_density * 4.0 / 3.0 * np.pi * R ** 3
    strategy = stage.GetDEMStage().GetStrategy()
    for _ in range(5):
        _step(stage)
        if strategy.LastStep()["contacts"] > 0:
            break
    assert strategy.LastStep()["contacts"] == 1
    sphere_v = np.asarray(strategy.Particles.velocity)[0]
    node_v = _carried_velocity(stage)[apex_row]
    expected_sphere = (m_s - m_node) / (m_s + m_node) * (-v0)
    expected_node = 2.0 * m_s / (m_s + m_node) * (-v0)
    assert sphere_v[2] == pytest.approx(expected_sphere, rel=1e-12)
    assert node_v[2] == pytest.approx(expected_node, rel=1e-12)
    assert abs(sphere_v[0]) + abs(sphere_v[1]) + abs(node_v[0]) + abs(node_v[1]) < 1e-15
    assert apex.GetSolutionStepValue(tessera.VELOCITY)[2] == pytest.approx(0.5 * expected_node, rel=1e-12)
    impulse = m_s * (sphere_v[2] + v0)  # on the sphere; the node takes minus it
    assert apex.GetSolutionStepValue(tessera.DEM_NODAL_FORCE)[2] == pytest.approx(-impulse / dt, rel=1e-12)
    # Kinetic energy of the two bodies kept (e = 1), with the node's carried velocity.
    assert 0.5 * m_s * sphere_v[2] ** 2 + 0.5 * m_node * node_v[2] ** 2 == \
        pytest.approx(0.5 * m_s * v0 ** 2, rel=1e-12)


@pytest.mark.parametrize("tetrahedra", [False, True])
def test_a_sphere_striking_a_free_elastic_block_conserves_momentum(project, tetrahedra):
    """The smooth coupling's momentum test (test_coupling_invariants.py) under
    Moreau-Jean: a sphere (R 0.1 m, 8.4 kg, 1 m/s, e = 0.5) hits a free
    0.4 m elastic block off-centre, no gravity. The impulses on the sphere
    and on the skin nodes (through the shape functions) are equal and
    opposite, so sum m v over the sphere (v+) and the nodes (their velocity
    over the next step, v_n+3/2) stays at its start to round-off (1e-9
    relative, the issue's tolerance) at every step; the sphere rebounds."""
    cells = (2, 2, 2)
    nodes, elements = block_mesh((-0.2, -0.2, -0.4), (0.4, 0.4, 0.4), cells, tetrahedra)
    element = "SmallDisplacementElement3D4N" if tetrahedra else "SmallDisplacementElement3D8N"
    structure_files(project, "block", nodes, elements, element, young=1e7, poisson=0.3, density=1000.0,
                    end_time=0.03, time_step=1e-4, skin_faces=top_faces(cells, tetrahedra))
    dem_files(project, "block", [(0.03, -0.05, 0.1005, 0.1, (0.0, 0.0, -1.0))], density=2000.0,
              young=1e7, poisson=0.3, restitution=0.5, end_time=0.03, time_step=1e-4)
    _nonsmooth(project)
    model, stage = _stage(project, {"echo_level": 0, "skin_model_parts": ["Skin"]})
    stage.Initialize()
    strategy = stage.GetDEMStage().GetStrategy()
    masses = stage.NodalMasses()

    def momentum():
        sphere = np.asarray(strategy.Particles.mass)[:, None] * np.asarray(strategy.Particles.velocity)
        return sphere.sum(axis=0) + (masses[:, None] * _carried_velocity(stage)).sum(axis=0)

    p0 = momentum()
    assert p0[2] == pytest.approx(-2000.0 * 4.0 / 3.0 * np.pi * 0.1 ** 3, rel=1e-12)
    worst, impacts = 0.0, 0
    while stage.KeepAdvancingSolutionLoop():
        _step(stage)
        impacts += strategy.LastStep()["contacts"] > 0
        worst = max(worst, np.max(np.abs(momentum() - p0)) / np.linalg.norm(p0))
    assert impacts > 0
    assert worst < 1e-9
    assert np.asarray(strategy.Particles.velocity)[0][2] > 0.0  # rebounded
    assert (masses[:, None] * _carried_velocity(stage)).sum(axis=0)[2] < 0.5 * p0[2]


def test_a_sphere_resting_on_a_clamped_plate_loads_its_supports_with_its_weight(project):
    """A sphere (R 0.1 m) on an elastic slab clamped at its base, gravity on
    both, e = 0 (Rayleigh mass damping 60/s on the slab, common step 2e-4 s):
    after 0.6 s the vertical support reactions equal the weight of slab and
    sphere within 1e-6 (the slab's vibration from the landing decays as
    e^(-alpha t / 2) = e^-18 = 1.5e-8 of its start; measured 9e-11), the mean
    contact force on the skin is the sphere's weight within 1e-6 (measured
    1.3e-8) and the sphere does not overlap the slab (the law holds the gap
    at velocity level; measured 0)."""
    g = 9.81
    nodes, elements = block_mesh((-0.5, -0.5, -0.1), (1.0, 1.0, 0.1), (4, 4, 1))
    base = [i for i, x in nodes.items() if x[2] == -0.1]
    structure_files(project, "plate", nodes, elements, "SmallDisplacementElement3D8N", young=1e8,
                    poisson=0.3, density=1000.0, fixed_nodes=base, end_time=0.6, time_step=2e-4,
                    gravity=(0.0, 0.0, -g), skin_faces=top_faces((4, 4, 1)))
    parameters = json.load(open(project / "ProjectParameters.json"))
    parameters["solver_settings"]["rayleigh_alpha"] = 60.0
    json.dump(parameters, open(project / "ProjectParameters.json", "w"))
    dem_files(project, "plate", [(0.1, 0.15, 0.1, 0.1, (0.0, 0.0, 0.0))], density=2000.0, young=1e7,
              poisson=0.3, restitution=0.0, friction=0.3, end_time=0.6, time_step=2e-4,
              gravity=(0.0, 0.0, -g))
    _nonsmooth(project)
    model, stage = _stage(project, {"echo_level": 0, "skin_model_parts": ["Skin"]})
    stage.Run()
    structure = model.GetModelPart("Structure")
    reaction = sum(structure.GetNode(i).GetSolutionStepValue(tessera.REACTION_Z) for i in base)
    sphere_mass = 2000.0 * 4.0 / 3.0 * np.pi * 0.1 ** 3
    plate_mass = 1000.0 * 1.0 * 1.0 * 0.1
    assert reaction == pytest.approx((sphere_mass + plate_mass) * g, rel=1e-6)
    on_structure = stage.skin.TotalForceOnStructure()
    assert on_structure[2] == pytest.approx(-sphere_mass * g, rel=1e-6)
    strategy = stage.GetDEMStage().GetStrategy()
    assert strategy.LastStep()["max_penetration"] < 1e-9


def test_moreau_jean_couples_only_with_the_explicit_common_step(project):
    """Only the explicit common step puts the structure's nodes in the contact
    problem: Kratos' order (DEM first) is refused at set-up, naming the file
    and the key."""
    nodes, elements = block_mesh((-0.2, -0.2, -0.4), (0.4, 0.4, 0.4), (1, 1, 1))
    structure_files(project, "block", nodes, elements, "SmallDisplacementElement3D8N", young=1e7,
                    poisson=0.3, density=1000.0, end_time=1e-3, time_step=1e-4,
                    skin_faces=top_faces((1, 1, 1)))
    dem_files(project, "block", [(0.0, 0.0, 0.11, 0.1, (0.0, 0.0, -1.0))], density=2000.0,
              young=1e7, poisson=0.3, end_time=1e-3, time_step=1e-4)
    _nonsmooth(project)
    with pytest.raises(tessera.Error, match=r"ProjectParametersDEM.json.*\"moreau_jean_strategy\".*"
                                            r"explicit_dem_first"):
        _stage(project, {"echo_level": 0, "skin_model_parts": ["Skin"],
                         "time_integration": "explicit_dem_first"})


def test_spheres_resting_on_a_clamped_plate_write_a_surface_load_that_carries_their_weight(project):
    """Three spheres (R 0.1 m) at rest on the slab of the test above (clamped
    base, gravity, e = 0, Rayleigh mass damping 60/s, 0.6 s): each skin
    node's DEM_SURFACE_LOAD is its DEM_NODAL_FORCE (the impulse over the
    step) over its share of the skin area, as the smooth path defines it
    (every face gives its vertices a quarter of its area). The test computes
    those areas itself from the FE nodes' deformed coordinates and the skin's
    quadrilaterals: sum DEM_SURFACE_LOAD x area = minus the spheres' weight
    within 1e-6 (the landing's vibration decays to e^-18 = 1.5e-8 of its
    start, as above), its horizontal part below 1e-5 of it, the areas sum to the plate's 1 m^2 within 1e-5 (the
    slab's lateral strain under its load; measured 8e-7) and the traction of a
    node is its force over its area to 1e-12."""
    g = 9.81
    cells = (4, 4, 1)
    nodes, elements = block_mesh((-0.5, -0.5, -0.1), (1.0, 1.0, 0.1), cells)
    base = [i for i, x in nodes.items() if x[2] == -0.1]
    faces = top_faces(cells)
    structure_files(project, "plate", nodes, elements, "SmallDisplacementElement3D8N", young=1e8,
                    poisson=0.3, density=1000.0, fixed_nodes=base, end_time=0.6, time_step=2e-4,
                    gravity=(0.0, 0.0, -g), skin_faces=faces)
    parameters = json.load(open(project / "ProjectParameters.json"))
    parameters["solver_settings"]["rayleigh_alpha"] = 60.0
    json.dump(parameters, open(project / "ProjectParameters.json", "w"))
    spheres = [(0.1, 0.15, 0.1, 0.1, (0.0, 0.0, 0.0)), (-0.3, -0.2, 0.1, 0.1, (0.0, 0.0, 0.0)),
               (0.25, -0.3, 0.1, 0.1, (0.0, 0.0, 0.0))]
    dem_files(project, "plate", spheres, density=2000.0, young=1e7, poisson=0.3, restitution=0.0,
              friction=0.3, end_time=0.6, time_step=2e-4, gravity=(0.0, 0.0, -g))
    _nonsmooth(project)
    model, stage = _stage(project, {"echo_level": 0, "skin_model_parts": ["Skin"]})
    stage.Run()
    structure = model.GetModelPart("Structure")
    x = {}
    for node_id in {i for face in faces for i in face}:
        u = structure.GetNode(node_id).GetSolutionStepValue(tessera.DISPLACEMENT)
        x[node_id] = np.asarray(nodes[node_id], dtype=float) + np.asarray(u)  # deformed position
    area = {i: 0.0 for i in x}
    for face in faces:
        v = [x[i] for i in face]
        share = 0.25 * 0.5 * np.linalg.norm(np.cross(v[2] - v[0], v[3] - v[1]))
        for i in face:
            area[i] += share
    assert sum(area.values()) == pytest.approx(1.0, rel=1e-5)
    total = np.zeros(3)
    for node_id, a in area.items():
        node = structure.GetNode(node_id)
        load = np.asarray(node.GetSolutionStepValue(tessera.DEM_SURFACE_LOAD))
        force = np.asarray(node.GetSolutionStepValue(tessera.DEM_NODAL_FORCE))
        assert np.allclose(load * a, force, rtol=1e-12, atol=1e-12 * np.abs(force).max(initial=1.0))
        total += load * a
    weight = 3 * 2000.0 * 4.0 / 3.0 * np.pi * 0.1 ** 3 * g
    assert np.count_nonzero(total) > 0
    assert total[2] == pytest.approx(-weight, rel=1e-6)
    # Horizontally only what keeps the spheres rolling on the slab's dent
    # (slopes of order 1e-5): measured 2.9e-6 of the weight.
    assert abs(total[0]) + abs(total[1]) < 1e-5 * weight


def test_the_coupled_energy_balance_holds_for_elastic_impacts_on_a_clamped_plate(project):
    """Two spheres (R 0.1 m, 8.4 kg, 1 and 0.5 m/s down) fall on an elastic
    slab (E 1e7 Pa, clamped base, no damping), gravity on both, e = 1, no
    friction, common step 5e-5 s, 0.3 s (bounces on a plate that vibrates
    with a third of the energy): E_T = the structure's kinetic, strain and
    gravity terms + the spheres' kinetic and gravity terms + what the
    impulses took (coupled_energy.py) stays within 1 % of the largest term
    (measured 0.49 %; 1.7 % at 1e-4 s: the explicit structure's
    time-discretisation error, falling as about h^2), and the impulses took
    less than 0.5 % of it (Newton's law on the start velocities; measured
    0.25 %)."""
    g, dt = 9.81, 5e-5
    nodes, elements = block_mesh((-0.5, -0.5, -0.1), (1.0, 1.0, 0.1), (4, 4, 1))
    base = [i for i, x in nodes.items() if x[2] == -0.1]
    structure_files(project, "plate", nodes, elements, "SmallDisplacementElement3D8N", young=1e7,
                    poisson=0.3, density=1000.0, fixed_nodes=base, end_time=0.3, time_step=dt,
                    gravity=(0.0, 0.0, -g), skin_faces=top_faces((4, 4, 1)))
    spheres = [(0.1, 0.15, 0.15, 0.1, (0.0, 0.0, -1.0)), (-0.2, -0.1, 0.2, 0.1, (0.1, 0.0, -0.5))]
    dem_files(project, "plate", spheres, density=2000.0, young=1e7, poisson=0.3, restitution=1.0,
              friction=0.0, end_time=0.3, time_step=dt, gravity=(0.0, 0.0, -g))
    _nonsmooth(project)
    model, stage = _stage(project, {"echo_level": 0, "skin_model_parts": ["Skin"], "energy_output": True,
                                    "energy_samples": 300})
    stage.Initialize()
    strategy = stage.GetDEMStage().GetStrategy()
    impacts = 0
    while stage.KeepAdvancingSolutionLoop():
        _step(stage)
        stage.OutputSolutionStep()
        impacts += strategy.LastStep()["contacts"] > 0
    rows = np.asarray(stage.energy.rows)
    scale = np.max(np.abs(rows[:, 1:-1]))
    assert impacts > 0
    assert np.max(rows[:, 1]) > 0.2 * scale  # the plate is set vibrating
    assert stage.energy.Drift() < 1e-2
    assert np.max(np.abs(rows[:, 8])) < 5e-3 * scale
    stage.Finalize()
