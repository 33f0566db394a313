"""ProjectParametersCoupling.json: the coupling's own options, all optional.

    {
        "time_integration": "auto",
        "transfer_method": "area_distributed",
        "skin_model_parts": [],
        "wall_model_parts": [],
        "split_quadrilaterals": false,
        "fe_time_step_fraction": 0.9,
        "overlap_structure_and_dem": "auto",
        "echo_level": 1
    }

* "time_integration": "explicit" (the structure by central differences and
  the DEM on one common time step, thesis §4.4), "implicit_with_dem_substeps"
  (an implicit structure, Newmark or Bossak, on its own large step; the DEM
  takes whole sub-steps in between, Kratos' DEM-structures scheme), or "auto"
  (the one the structural solver's time_integration_method asks for).
  "explicit_dem_first" is Kratos' CoSimulation sequence on one common step
  (the DEM step with the walls where the structure's last step left them,
  then the structure's step with its contact forces): what CoSimulation
  decks ask for; the forces lag the structure by one step.
* "transfer_method": how the DEM contact forces reach the FE nodes:
  "area_distributed" (the Area Distributed Method, thesis §4.3.3 and App.
  B: each contact's normal force scaled by its faces' share of the sphere's
  intersection area, and spread over those faces by area, at their
  intersection centroids) or "direct_interpolation" (each contact force on
  its own face, shape functions at the contact point, thesis 4.57). ADM
  applies to the skin's faces only (DemSettings.area_distributed_walls); the
  deck's own rigid walls keep its "WallForceTransfer" (direct by default).
* "skin_model_parts": names of sub model parts of the structure whose
  conditions (triangles, quadrilaterals; 2D: lines) are the faces the spheres
  touch; empty: the skin of the structure's elements is found automatically.
* "wall_model_parts": a sub model part of the DEM's RigidFacePart whose
  walls (read from <name>DEM_FEM_boundary.mdpa) lie on the structure's
  nodes and follow them, instead of walls made from the skin (Kratos'
  CoSimulation decks, e.g. cable nets with RigidFace3D2N line walls); the
  walls keep the DEM deck's materials.
* "split_quadrilaterals": the skin's quadrilaterals become two triangular
  walls each (along the shorter diagonal) instead of one quadrilateral wall
  (skin_walls._WallFaces says why one may want either).
* "adm_force": under the Area Distributed Method, "thesis" (the masters'
  normal forces scaled by A_m/A_T, B.1, spread at the faces' intersection
  centroids, B.2) or "energy_gradient" (the normal forces on the sphere and
  on the faces' vertices as the gradients of one stored energy,
  Σ_e (A_e/A_T) U(δ_e), exact derivatives: DemSettings.adm_energy_gradient;
  V4.4's energy within 1 %).
* "overlap_structure_and_dem": on two or more threads, the explicit
  schemes' structure assembles its internal forces on some of the threads
  while the DEM steps on the others (step_overlap.py; bitwise the
  sequential step): true always, false never (the two one after the other
  on all threads), "auto" where a probe of both every 250 steps finds it
  faster.
* "fe_time_step_fraction": α of Δt ≤ α min_e l_e / c_e, the structure's share
  of the common step (thesis 4.70: α in [0.8, 0.98]).
* "energy_output": the coupled energy balance (coupled_energy.py) written to
  "<name>_coupled_energy.dat" and plotted to "<name>_coupled_energy.png" at
  the end (explicit runs; the DEM's EnergyCalculationOption is switched on);
  "energy_samples": about how many rows over the run.
* "echo_level": 0 silent; 1 prints the time step and the skin's material.
"""
import json
import os

import tessera

DEFAULTS = {
    "time_integration": "auto",
    "transfer_method": "area_distributed",
    "skin_model_parts": [],
    "wall_model_parts": [],
    "split_quadrilaterals": False,
    "adm_force": "thesis",
    "fe_time_step_fraction": 0.9,
    "overlap_structure_and_dem": "auto",
    "energy_output": True,
    "energy_samples": 200,
    "echo_level": 1,
}

FILE_NAME = "ProjectParametersCoupling.json"


def _Check(options, origin):
    unknown = sorted(set(options) - set(DEFAULTS))
    if unknown:
        raise tessera.Error(f"{origin}: unknown key(s) {', '.join(unknown)}; allowed: "
                            f"{', '.join(sorted(DEFAULTS))}")
    integration = options["time_integration"]
    if integration not in ("auto", "explicit", "explicit_dem_first", "implicit_with_dem_substeps"):
        raise tessera.Error(f"{origin}: key 'time_integration' is '{integration}'; expected \"auto\", "
                            "\"explicit\", \"explicit_dem_first\" or \"implicit_with_dem_substeps\"")
    method = options["transfer_method"]
    if method not in ("area_distributed", "direct_interpolation"):
        raise tessera.Error(f"{origin}: key 'transfer_method' is '{method}'; expected "
                            "\"area_distributed\" or \"direct_interpolation\"")
    for key in ("skin_model_parts", "wall_model_parts"):
        parts = options[key]
        if not (isinstance(parts, list) and all(isinstance(p, str) for p in parts)):
            raise tessera.Error(f"{origin}: key '{key}' must be a list of model part names")
    if options["skin_model_parts"] and options["wall_model_parts"]:
        raise tessera.Error(f"{origin}: keys 'skin_model_parts' and 'wall_model_parts' exclude each other "
                            "(walls made from the structure's faces, or the DEM deck's own walls)")
    fraction = options["fe_time_step_fraction"]
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0.0 < fraction <= 1.0:
        raise tessera.Error(f"{origin}: key 'fe_time_step_fraction' is {fraction!r}; expected a number "
                            "in (0, 1]")
    if options["adm_force"] not in ("thesis", "energy_gradient"):
        raise tessera.Error(f"{origin}: key 'adm_force' is '{options['adm_force']}'; "
                            "expected \"thesis\" or \"energy_gradient\"")
    if not isinstance(options["split_quadrilaterals"], bool):
        raise tessera.Error(f"{origin}: key 'split_quadrilaterals' must be true or false")
    if not isinstance(options["energy_output"], bool):
        raise tessera.Error(f"{origin}: key 'energy_output' must be true or false")
    overlap = options["overlap_structure_and_dem"]
    if not (overlap is True or overlap is False or overlap == "auto"):
        raise tessera.Error(f"{origin}: key 'overlap_structure_and_dem' is {overlap!r}; expected true, "
                            "false or \"auto\"")
    samples = options["energy_samples"]
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise tessera.Error(f"{origin}: key 'energy_samples' is {samples!r}; expected a positive integer")
    if options["echo_level"] not in (0, 1, 2):
        raise tessera.Error(f"{origin}: key 'echo_level' must be 0, 1 or 2")


def CouplingOptions(parameters=None, origin="coupling parameters"):
    """The options with their defaults: `parameters` is a dict, a
    tessera.Parameters, a path to a JSON file, or None (all defaults)."""
    options = dict(DEFAULTS)
    given = {}
    if isinstance(parameters, str):
        origin = parameters
        try:
            with open(parameters) as f:
                given = json.load(f)
        except json.JSONDecodeError as error:
            raise tessera.Error(f"{parameters}:{error.lineno}: not valid JSON ({error.msg})") from None
    elif isinstance(parameters, tessera.Parameters):
        origin = parameters.Origin() or origin
        given = json.loads(parameters.WriteJsonString())
    elif isinstance(parameters, dict):
        given = parameters
    elif parameters is not None:
        raise TypeError("the coupling parameters must be a dict, tessera.Parameters or a file name")
    if not isinstance(given, dict):
        raise tessera.Error(f"{origin}: expected a JSON object")
    options.update(given)
    _Check(options, origin)
    options["skin_model_parts"] = list(options["skin_model_parts"])
    options["wall_model_parts"] = list(options["wall_model_parts"])
    return options


def ReadCouplingOptions(folder="."):
    """The options of ProjectParametersCoupling.json in `folder`, or the defaults."""
    path = os.path.join(folder, FILE_NAME)
    return CouplingOptions(path if os.path.isfile(path) else None)
