"""Kratos CoSimulation decks of a DEM and a structure, run as one coupled
stage: Kratos' `dem_fem_cable_net` test, for example, couples its DEM
(`solver_wrappers.kratos.dem_wrapper`) and structural
(`solver_wrappers.kratos.structural_mechanics_wrapper`) solvers with a weak
Gauss-Seidel loop: the DEM wall nodes' CONTACT_FORCES become the structure's
nodal loads, and the structure's DISPLACEMENT and VELOCITY move the DEM walls
(`move_mesh_model_part`), mapped node to node. That is what
DemStructuresCouplingAnalysis does with the option "wall_model_parts", so the
deck runs through it:

* the solvers' "input_file" (+ ".json") are the two decks; the DEM's
  "move_mesh_model_part" (one sub model part of RigidFacePart) are its walls
  that follow the structure; "problem_data.end_time" ends the run;
* Kratos runs such a test from the folder above the case, so its paths start
  with the DEM's "working_directory" (e.g. "dem_fem_cable_net/..."); here the
  case folder is the working directory, and every path of the decks that
  starts with that prefix is taken relative to it;
* the DEM runs with Kratos' wall slider ("WallSlider": "kratos", unless
  its deck says otherwise): the spring keeps its elastic part when the
  dashpot fills part of the Coulomb cap;
* the step is the CoSimulation's sequence on one common Δt (the coupled
  stage's "explicit_dem_first": the DEM step with the walls where the
  structure's last step left them, the contact forces to the structure, the
  structure's step, the walls moved to its new state).

A deck asking for something else (another coupled solver type, other
solvers, other data) is an error naming the key.
"""
import os

import tessera

from .dem_structures_coupling_analysis import DemStructuresCouplingAnalysis

SUPPORTED_COUPLED_SOLVERS = ("coupled_solvers.gauss_seidel_weak",)
DEM_WRAPPER = "solver_wrappers.kratos.dem_wrapper"
STRUCTURE_WRAPPER = "solver_wrappers.kratos.structural_mechanics_wrapper"


def IsCoSimulationDeck(parameters):
    """Whether `parameters` (tessera.Parameters) is a CoSimulation deck."""
    return (parameters.Has("solver_settings") and parameters["solver_settings"].IsSubParameter()
            and parameters["solver_settings"].Has("type") and parameters["solver_settings"]["type"].IsString()
            and parameters["solver_settings"]["type"].GetString().startswith("coupled_solvers."))


def _Key(parameters, path):
    return f"{parameters.Origin()}: key '{path}'"


def _StripPrefix(value, prefix):
    return value[len(prefix) + 1:] if prefix and value.startswith(prefix + "/") else value


def _RewritePaths(parameters, prefix):
    """Every string of `parameters` (nested) that starts with prefix/ loses it."""
    if not prefix:
        return
    if parameters.IsSubParameter():
        for key in list(parameters.keys()):
            item = parameters[key]
            if item.IsString():
                parameters[key].SetString(_StripPrefix(item.GetString(), prefix))
            elif item.IsSubParameter() or item.IsArray():
                _RewritePaths(item, prefix)
    elif parameters.IsArray():
        for i in range(parameters.size()):
            item = parameters[i]
            if item.IsString():
                item.SetString(_StripPrefix(item.GetString(), prefix))
            elif item.IsSubParameter() or item.IsArray():
                _RewritePaths(item, prefix)


def _TakeParallelType(parameters, structure_deck):
    """The driver's problem_data.parallel_type is the run's, as Kratos'
    CoSimulation gives its solvers the driver's communicator: "MPI" there
    distributes the structure (and with it the DEM) whatever the solvers'
    decks say."""
    problem = parameters["problem_data"] if parameters.Has("problem_data") else None
    if problem is None or not problem.Has("parallel_type"):
        return
    if not problem["parallel_type"].IsString():
        raise tessera.Error(f"{_Key(parameters, 'problem_data.parallel_type')} must be a string (\"OpenMP\" "
                            "or \"MPI\")")
    value = problem["parallel_type"].GetString()
    if not structure_deck.Has("problem_data"):
        structure_deck.AddValue("problem_data", tessera.Parameters("{}"))
    target = structure_deck["problem_data"]
    if target.Has("parallel_type"):
        target["parallel_type"].SetString(value)
    else:
        target.AddString("parallel_type", value)


def CoSimulationStage(model, parameters):
    """The coupled stage of the CoSimulation deck `parameters`, to run with the
    case folder as working directory."""
    settings = parameters["solver_settings"]
    kind = settings["type"].GetString()
    if kind not in SUPPORTED_COUPLED_SOLVERS:
        raise tessera.Error(f"{_Key(parameters, 'solver_settings.type')} is '{kind}'; Tessera runs a DEM and "
                            f"a structure coupled by {', '.join(SUPPORTED_COUPLED_SOLVERS)}")
    if not settings.Has("solvers"):
        raise tessera.Error(f"{_Key(parameters, 'solver_settings')} has no \"solvers\"")
    dem = structure = None
    for name in settings["solvers"].keys():
        solver = settings["solvers"][name]
        solver_type = solver["type"].GetString() if solver.Has("type") else ""
        if solver_type == DEM_WRAPPER:
            dem = (name, solver)
        elif solver_type == STRUCTURE_WRAPPER:
            structure = (name, solver)
        else:
            raise tessera.Error(f"{_Key(parameters, f'solver_settings.solvers.{name}.type')} is "
                                f"'{solver_type}'; the coupled stage runs {DEM_WRAPPER} with "
                                f"{STRUCTURE_WRAPPER}")
    if dem is None or structure is None:
        raise tessera.Error(f"{_Key(parameters, 'solver_settings.solvers')}: needs one {DEM_WRAPPER} and one "
                            f"{STRUCTURE_WRAPPER}")
    dem_wrapper = dem[1]["solver_wrapper_settings"]
    working_directory = dem_wrapper["working_directory"].GetString() \
        if dem_wrapper.Has("working_directory") else ""
    walls = dem_wrapper["move_mesh_model_part"].GetStringArray() \
        if dem_wrapper.Has("move_mesh_model_part") else []
    if not walls:
        raise tessera.Error(f"{_Key(parameters, f'solver_settings.solvers.{dem[0]}.solver_wrapper_settings')}"
                            " needs \"move_mesh_model_part\": the DEM walls that follow the structure")

    def deck(entry):
        name, solver = entry
        path = _StripPrefix(solver["solver_wrapper_settings"]["input_file"].GetString(), working_directory)
        path = path if path.endswith(".json") else path + ".json"
        if not os.path.isfile(path):
            raise tessera.Error(f"{_Key(parameters, f'solver_settings.solvers.{name}.solver_wrapper_settings.input_file')}"
                                f": '{path}' not found in {os.getcwd()}")
        read = tessera.Parameters.FromFile(path)
        _RewritePaths(read, working_directory)
        return read

    dem_deck = deck(dem)
    # Kratos' DEM: its wall contacts split the Coulomb cap (DEM "WallSlider").
    if not dem_deck.Has("WallSlider"):
        dem_deck.AddString("WallSlider", "kratos")
    structure_deck = deck(structure)
    _TakeParallelType(parameters, structure_deck)
    stage = DemStructuresCouplingAnalysis(model, structure_deck, dem_deck,
                                          {"wall_model_parts": walls, "time_integration": "explicit_dem_first"})
    problem = parameters["problem_data"] if parameters.Has("problem_data") else None
    if problem is not None and problem.Has("end_time"):
        stage.end_time = problem["end_time"].GetDouble()
    if problem is not None and problem.Has("start_time") and problem["start_time"].GetDouble() != stage.time:
        raise tessera.Error(f"{_Key(parameters, 'problem_data.start_time')} is "
                            f"{problem['start_time'].GetDouble():g}; the structural deck starts at {stage.time:g}")
    return stage
