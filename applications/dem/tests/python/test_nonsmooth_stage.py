"""moreau_jean_strategy chosen in a DEM project folder: "solver_settings":
{"strategy": "moreau_jean_strategy", "moreau_jean_settings": {...}}; its keys
checked (errors name the key); the monitors of tessera.dem.monitors read the
run; its energies (EnergyCalculationOption) balance. A sphere dropped from 0.2 m onto the floor (e = 0.5): it first lands at
sqrt(2 h/g) = 0.2019 s (within one step) and leaves at e sqrt(2 g h), within
g dt."""
import json
import math

import numpy as np
import pytest

import tessera

SPHERES = """Begin Properties 1
End Properties
Begin Nodes
  1 0.0 0.0 0.25
  2 0.2 0.0 0.05
End Nodes
Begin Elements SphericParticle3D
  1 1 1
  2 1 2
End Elements
Begin NodalData RADIUS
  1 0 0.05
  2 0 0.05
End NodalData
Begin NodalData VELOCITY_X
  2 0 1.0
End NodalData
"""

WALLS = """Begin Properties 2
End Properties
Begin Nodes
  1 -1.0 -1.0 0.0
  2  1.0 -1.0 0.0
  3  1.0  1.0 0.0
  4 -1.0  1.0 0.0
End Nodes
Begin Conditions RigidFace3D4N
  1 2 1 2 3 4
End Conditions
"""

RELATION = {"COEFFICIENT_OF_RESTITUTION": 0.5, "STATIC_FRICTION": 0.3, "DYNAMIC_FRICTION": 0.3,
            "DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME": "DEM_D_Hertz_viscous_Coulomb"}
MATERIALS = {
    "materials": [
        {"material_name": "grain", "material_id": 1,
         "Variables": {"PARTICLE_DENSITY": 2500.0, "YOUNG_MODULUS": 1e7, "POISSON_RATIO": 0.25}},
        {"material_name": "floor", "material_id": 2,
         "Variables": {"YOUNG_MODULUS": 1e9, "POISSON_RATIO": 0.25}}],
    "material_relations": [
        {"material_names_list": ["grain", "floor"], "material_ids_list": [1, 2],
         "Variables": RELATION},
        {"material_names_list": ["grain", "grain"], "material_ids_list": [1, 1],
         "Variables": RELATION}],
    "material_assignation_table": [["SpheresPart", "grain"], ["RigidFacePart", 2]],
}


def Deck(folder, solver_settings, **keys):
    (folder / "dropDEM.mdpa").write_text(SPHERES)
    (folder / "dropDEM_FEM_boundary.mdpa").write_text(WALLS)
    (folder / "MaterialsDEM.json").write_text(json.dumps(MATERIALS))
    parameters = {"problem_name": "drop", "MaxTimeStep": 1e-3, "FinalTime": 0.4,
                  "dem_inlet_option": False, "GravityZ": -9.81, "solver_settings": solver_settings}
    parameters.update(keys)
    (folder / "ProjectParametersDEM.json").write_text(json.dumps(parameters, indent=1))
    return tessera.Parameters.FromFile(str(folder / "ProjectParametersDEM.json"))


def test_a_folder_runs_the_moreau_jean_strategy(tmp_path, monkeypatch):
    import tessera.dem
    from tessera.dem import monitors
    monkeypatch.chdir(tmp_path)
    parameters = Deck(tmp_path, {"strategy": "moreau_jean_strategy",
                                 "moreau_jean_settings": {"theta": 0.5, "sweep_order": "symmetric",
                                                          "tolerance": 1e-12}})
    model = tessera.Model()
    velocities = []

    class Stage(tessera.dem.DEMAnalysisStage):
        def FinalizeSolutionStep(self):
            super().FinalizeSolutionStep()
            node = self.model.GetModelPart("SpheresPart").GetNode(1)
            velocities.append((self.time, node.GetSolutionStepValue(tessera.VELOCITY_Z)))

    stage = Stage(model, parameters)
    stage.Run()
    strategy = stage.GetStrategy()
    assert type(strategy).__name__ == "MoreauJeanStrategy"
    assert strategy.LastStep()["converged"]
    t = np.array([a for a, _ in velocities])
    v = np.array([b for _, b in velocities])
    first = np.argmax(v > 0.0)
    landing = math.sqrt(2.0 * 0.2 / 9.81)
    assert abs(t[first] - landing) <= 1e-3 + 1e-12
    assert v[first] == pytest.approx(0.5 * math.sqrt(2.0 * 9.81 * 0.2), abs=9.81e-3)
    # The monitors read the strategy's rows; the strategy's own sums agree.
    np.testing.assert_allclose(monitors.LinearMomentum(strategy), strategy.LinearMomentum(),
                               rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(monitors.AngularMomentum(strategy, (0.1, 0.0, 0.0)),
                               strategy.AngularMomentum([0.1, 0.0, 0.0]), rtol=1e-12, atol=1e-15)
    assert monitors.KineticEnergy(strategy) == pytest.approx(strategy.KineticEnergy(), rel=1e-12)
    # The rolling sphere stays on the floor: no penetration beyond round-off.
    node = model.GetModelPart("SpheresPart").GetNode(2)
    assert node.Z == pytest.approx(0.05, abs=1e-12)


@pytest.mark.parametrize("dt", [1e-3, 1e-4])
def test_the_energies_balance_and_the_impulses_dissipate_the_analytic_losses(tmp_path, monkeypatch,
                                                                              dt):
    # EnergyCalculationOption under moreau_jean_strategy (theta 1/2), to
    # 0.3 s: sphere 1 falls 0.2 m onto the floor and bounces once (e 0.5),
    # sphere 2 slides at v0 = 1 m/s (mu 0.3) until it rolls.
    # - kinetic + gravitational + dissipated is constant: with theta = 1/2
    #   the energy change of a step is exactly the impulses' work P . 1/2
    #   (U+ + U-) (moreau_jean_strategy.h), so to rounding (1e-12);
    # - friction dissipates m v0^2 / 7 (the sliding sphere rolls at 5/7 v0:
    #   1/2 m v0^2 - 1/2 (m + I / R^2) (5/7 v0)^2), exactly: the impulses end
    #   the slip at the rolling speed (1e-12);
    # - the impact dissipates 1/2 m v^2 (1 - e^2), v = sqrt(2 g H), to the
    #   step's resolution: the step that meets the floor starts up to one
    #   step's fall g dt from v, so within 2 g dt / v (1.0 % and 0.1 %).
    import tessera.dem
    monkeypatch.chdir(tmp_path)
    parameters = Deck(tmp_path, {"strategy": "moreau_jean_strategy",
                                 "moreau_jean_settings": {"theta": 0.5, "tolerance": 1e-12}},
                      EnergyCalculationOption=True, MaxTimeStep=dt, FinalTime=0.3)
    energies = []

    class Stage(tessera.dem.DEMAnalysisStage):
        def FinalizeSolutionStep(self):
            super().FinalizeSolutionStep()
            energies.append(self.GetEnergies())

    Stage(tessera.Model(), parameters).Run()
    first, last = energies[0], energies[-1]
    assert last["elastic_normal"] == last["elastic_tangential"] == 0.0
    drift = max(abs(e["total"] - first["total"]) for e in energies)
    assert drift <= 1e-12 * abs(first["total"])
    mass = 2500.0 * 4.0 / 3.0 * math.pi * 0.05 ** 3
    assert last["dissipated_friction"] == pytest.approx(mass * 1.0 ** 2 / 7.0, rel=1e-12)
    g, height, e = 9.81, 0.2, 0.5
    v = math.sqrt(2.0 * g * height)
    assert last["dissipated_damping"] == pytest.approx(0.5 * mass * v ** 2 * (1.0 - e ** 2),
                                                       rel=2.0 * g * dt / v)


@pytest.mark.parametrize("settings,message", [
    ({"strategy": "moreau_jean_strategy", "moreau_jean_settings": {"thetta": 0.5}},
     "unknown key 'thetta' in solver_settings.moreau_jean_settings; did you mean theta?"),
    ({"strategy": "moreau_jean_strategy", "moreau_jean_settings": {"theta": 2.0}},
     r"moreau_jean_settings.theta is 2.0; expected in \[0, 1\]"),
    ({"strategy": "moreau_jean_strategy", "moreau_jean_settings": {"sweep_order": 3}},
     "moreau_jean_settings.sweep_order must be a string"),
    ({"strategy": "sphere_strategy", "moreau_jean_settings": {"theta": 0.5}},
     "moreau_jean_settings is read by \"moreau_jean_strategy\" only"),
    ({"strategy": "moreau_jean_strategy", "moreau_jean_settings": {"sweeps_per_exchange": 0}},
     r"moreau_jean_settings.sweeps_per_exchange is 0(\.0)?; expected an integer >= 1"),
])
def test_moreau_jean_settings_errors_name_the_key(tmp_path, settings, message):
    import tessera.dem
    with pytest.raises(tessera.Error, match=message):
        tessera.dem.DEMAnalysisStage(tessera.Model(), Deck(tmp_path, settings))
