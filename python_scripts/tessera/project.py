"""Project folders (GiD/Kratos style: .mdpa meshes, a parameters JSON,
materials): finding the parameters file, choosing the analysis stage it asks
for, re-rooting output, and running the stage with the folder as working
directory, since Kratos decks name their files relative to it.

Which parameters file: --parameters if given, else ProjectParameters.json,
else ProjectParametersDEM.json, else the single *Parameters*.json of the
folder (several are an error listing them).

A folder with a Kratos CoSimulation deck of a DEM and a structure (a JSON
whose solver_settings.type is "coupled_solvers....", found among the
folder's files or named by --parameters) runs as tessera.coupling's
CoSimulationStage. A folder with both ProjectParameters.json and
ProjectParametersDEM.json (and no --parameters) is a coupled DE-FE project: tessera.coupling's
DemStructuresCouplingAnalysis runs the two decks together, with the options
of ProjectParametersCoupling.json when the folder has one; --set applies to
the structural deck, or to the DEM deck with the prefix "DEM:" (--set
DEM:FinalTime=0.1).

Which stage (SelectStage): the "analysis_stage" key if present (Kratos module
names are mapped to Tessera's, "tessera.<module>" is used as is); else a DEM
project (ProjectParametersDEM.json, or Kratos' flat DEM keys MaxTimeStep /
FinalTime) runs tessera.dem.DEMAnalysisStage; else solver_settings.solver_type
says: "kinematic" runs tessera.kinematic_analysis, Static/Dynamic/... run the
structural application.
"""
import contextlib
import glob
import importlib
import inspect
import json
import os
import sys

from . import _tessera

# Kratos' stage modules -> (Tessera module, class, application label)
KRATOS_STAGES = {
    "KratosMultiphysics.StructuralMechanicsApplication.structural_mechanics_analysis": (
        "tessera.structural.structural_mechanics_analysis", "StructuralMechanicsAnalysis", "structural"),
    "KratosMultiphysics.DEMApplication.DEM_analysis_stage": ("tessera.dem", "DEMAnalysisStage", "dem"),
}
DEM_STAGE = ("tessera.dem", "DEMAnalysisStage", "dem")
STRUCTURAL_STAGE = KRATOS_STAGES[
    "KratosMultiphysics.StructuralMechanicsApplication.structural_mechanics_analysis"]
KINEMATIC_STAGE = ("tessera.kinematic_analysis", "KinematicAnalysis", None)
STRUCTURAL_SOLVER_TYPES = {"static", "dynamic", "formfinding", "eigen_value", "harmonic_analysis",
                           "prebuckling", "adjoint_static"}
DEM_FLAT_KEYS = ("MaxTimeStep", "FinalTime")
PREFERRED_FILES = ("ProjectParameters.json", "ProjectParametersDEM.json")
COUPLED_FILES = ("ProjectParameters.json", "ProjectParametersDEM.json")
COUPLING_OPTIONS_FILE = "ProjectParametersCoupling.json"


def FindCoSimulationDeck(folder, parameters_file=None):
    """The Kratos CoSimulation deck of `folder` (a JSON whose
    solver_settings.type is "coupled_solvers...."): `parameters_file` if it
    is one, else the single such file among the folder's *.json; None if
    there is none."""
    def is_cosimulation(path):
        try:
            with open(path) as f:
                data = json.load(f)
        except (OSError, ValueError):
            return False
        solver = data.get("solver_settings") if isinstance(data, dict) else None
        kind = solver.get("type") if isinstance(solver, dict) else None
        return isinstance(kind, str) and kind.startswith("coupled_solvers.")

    if parameters_file:
        path = FindParametersFile(folder, parameters_file)
        return path if is_cosimulation(path) else None
    found = sorted(p for p in glob.glob(os.path.join(folder, "*.json")) if is_cosimulation(p))
    if len(found) > 1:
        raise _tessera.Error(f"several CoSimulation decks in {folder}: "
                             f"{', '.join(os.path.basename(p) for p in found)}; choose one with --parameters")
    return found[0] if found else None


def IsCoupledFolder(folder):
    """Whether `folder` holds a structural and a DEM deck side by side."""
    return all(os.path.isfile(os.path.join(folder, name)) for name in COUPLED_FILES)


def FindParametersFile(folder, parameters=None):
    """The parameters file to run in `folder` (a path joined to `folder`)."""
    if parameters:
        # --parameters is relative to the folder when it exists there, else to
        # where the command was typed
        for candidate in (os.path.join(folder, parameters), parameters):
            if os.path.isfile(candidate):
                return candidate
        raise _tessera.Error(f"parameters file '{parameters}' not found (looked in {folder} and in the "
                             "current directory)")
    for name in PREFERRED_FILES:
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            return path
    candidates = sorted(os.path.basename(p) for p in glob.glob(os.path.join(folder, "*.json"))
                        if "parameters" in os.path.basename(p).lower())
    if len(candidates) == 1:
        return os.path.join(folder, candidates[0])
    if not candidates:
        raise _tessera.Error(f"no parameters file in {folder}: expected ProjectParameters.json, "
                             "ProjectParametersDEM.json or one *Parameters*.json")
    raise _tessera.Error(f"several parameters files in {folder}: {', '.join(candidates)}; choose one "
                         f"with --parameters, e.g. --parameters {candidates[0]}")


def ReadParameters(path):
    parameters = _tessera.Parameters.FromFile(path)
    if not parameters.IsSubParameter():
        raise _tessera.Error(f"{path}: the parameters file must hold a JSON object {{...}}")
    return parameters


def ApplySettings(parameters, settings):
    """Applies command-line settings "KEY=VALUE" to the parameters read from
    the file, in order. KEY is a key of the file's top-level object, or a
    dotted path through nested objects (solver_settings.strategy); a missing
    last key is added, so that a stage's optional key can be set without
    editing the deck. VALUE is JSON (0.1, true, "text", [1, 2], {...}); text
    that is no JSON value is a string (HertzDampingMap=thornton_fit), unless the
    file holds a number, bool, array or object there."""
    for setting in settings:
        key, equals, text = setting.partition("=")
        if not equals or not key:
            raise _tessera.Error(f"--set '{setting}': expected KEY=VALUE, e.g. --set FinalTime=0.1")
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        path = key.split(".")
        parent = parameters
        for depth, name in enumerate(path[:-1]):
            if not parent.Has(name) or not parent[name].IsSubParameter():
                where = ".".join(path[:depth + 1])
                raise _tessera.Error(f"--set {key}: '{where}' is not an object of "
                                     f"{parameters.Origin()}")
            parent = parent[name]
        name = path[-1]
        if parsed is None and text != "null":
            if parent.Has(name) and not parent[name].IsString():
                raise _tessera.Error(f"--set {key}={text}: not a JSON value, and {key} in "
                                     f"{parameters.Origin()} is not a string")
            parsed = text
        value = _tessera.Parameters(json.dumps({"value": parsed}))["value"]
        if parent.Has(name):
            parent.SetValue(name, value)
        else:
            parent.AddValue(name, value)


def SelectStage(parameters, file_name=""):
    """(module, class name, application or None) of the stage to run."""
    if parameters.Has("analysis_stage"):
        setting = parameters["analysis_stage"]
        if not setting.IsString():
            raise _tessera.Error(f"{parameters.Origin()}: key 'analysis_stage' must be a module name string")
        name = setting.GetString()
        if name in KRATOS_STAGES:
            return KRATOS_STAGES[name]
        if name.startswith("tessera."):
            return name, None, None
        known = ", ".join(sorted(KRATOS_STAGES))
        raise _tessera.Error(f"{parameters.Origin()}: key 'analysis_stage' is '{name}'; expected "
                             f"tessera.<module> or one of {known}")
    if os.path.basename(file_name) == "ProjectParametersDEM.json" or any(
            parameters.Has(key) for key in DEM_FLAT_KEYS):
        return DEM_STAGE
    if parameters.Has("solver_settings") and parameters["solver_settings"].Has("solver_type"):
        solver_type = parameters["solver_settings"]["solver_type"]
        value = solver_type.GetString() if solver_type.IsString() else ""
        if value == "kinematic":
            return KINEMATIC_STAGE
        if value.lower() in STRUCTURAL_SOLVER_TYPES:
            return STRUCTURAL_STAGE
        raise _tessera.Error(f"{parameters.Origin()}: key 'solver_settings.solver_type' is '{value}': "
                             "no Tessera stage runs it; set \"analysis_stage\" to name the stage")
    raise _tessera.Error(f"{parameters.Origin()}: cannot tell which analysis this is: give "
                         "\"analysis_stage\" (e.g. \"tessera.kinematic_analysis\"), "
                         "solver_settings.solver_type, or DEM keys")


APPLICATIONS = ("dem", "structural", "coupling")


def _ImportApplicationModule(module_name, application, origin):
    parts = module_name.split(".")
    if application is None and len(parts) > 1 and parts[1] in APPLICATIONS:
        application = parts[1]
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        missing = error.name or ""
        if application and (module_name == missing or module_name.startswith(missing + ".")) \
                and missing.startswith("tessera."):
            raise _tessera.Error(
                f"{origin} needs the {application} application ({missing}), which this build of "
                f"Tessera does not include; build Tessera with applications/{application} to run it") from None
        if module_name == missing or module_name.startswith(missing + "."):
            raise _tessera.Error(f"{origin}: analysis stage module '{module_name}' does not exist") from None
        raise


def LoadStageClass(parameters, file_name=""):
    """The AnalysisStage subclass that runs `parameters`."""
    from .analysis_stage import AnalysisStage

    module_name, class_name, application = SelectStage(parameters, file_name)
    origin = parameters.Origin()
    module = _ImportApplicationModule(module_name, application, origin)
    if class_name is None:
        stages = [obj for _, obj in inspect.getmembers(module, inspect.isclass)
                  if issubclass(obj, AnalysisStage) and obj.__module__ == module.__name__]
        if len(stages) != 1:
            found = ", ".join(s.__name__ for s in stages) or "none"
            raise _tessera.Error(f"{origin}: analysis_stage module {module_name} must define exactly one "
                                 f"AnalysisStage subclass (found: {found})")
        return stages[0]
    if not hasattr(module, class_name):
        owner = f"the {application} application ({module_name})" if application else module_name
        raise _tessera.Error(f"{origin}: {owner} of this build has no {class_name} yet, so it cannot "
                             "run this project")
    return getattr(module, class_name)


# Output processes and the setting that says where they write (relative to the
# working directory), with its default.
_OUTPUT_LOCATIONS = {
    "vtk_output_process": ("output_path", "VTK_Output"),
    "gid_output_process": ("output_path", ""),
    "hdf5_output_process": ("output_path", "hdf5_output"),
    "json_output_process": ("output_file_name", None),
}


def RedirectOutput(parameters, directory):
    """Makes every output process of `parameters` write under `directory`
    (absolute) instead of the project folder: relative output paths are
    re-rooted there. Returns how many processes were redirected."""
    directory = os.path.abspath(directory)
    count = 0
    for section in ("processes", "output_processes"):
        if not parameters.Has(section) or not parameters[section].IsSubParameter():
            continue
        for list_name in parameters[section].keys():
            entries = parameters[section][list_name]
            if list_name.startswith("_") or not entries.IsArray():
                continue
            for i in range(entries.size()):
                entry = entries[i]
                if not entry.IsSubParameter() or not entry.Has("python_module") \
                        or not entry.Has("Parameters"):
                    continue
                module = entry["python_module"].GetString().rpartition(".")[2]
                if module not in _OUTPUT_LOCATIONS:
                    continue
                key, default = _OUTPUT_LOCATIONS[module]
                settings = entry["Parameters"]
                if settings.Has(key):
                    current = settings[key].GetString()
                    if not os.path.isabs(current):
                        settings.SetString(key, os.path.join(directory, current))
                        count += 1
                elif default is not None:
                    settings.AddString(key, os.path.join(directory, default))
                    count += 1
    return count


@contextlib.contextmanager
def WorkingDirectory(folder):
    """Runs with `folder` as working directory and first on sys.path, so that
    relative file names and process modules written beside the deck resolve
    as they do when Kratos runs a script from the folder."""
    previous = os.getcwd()
    absolute = os.path.abspath(folder)
    os.chdir(absolute)
    sys.path.insert(0, absolute)
    try:
        yield
    finally:
        os.chdir(previous)
        if absolute in sys.path:
            sys.path.remove(absolute)


class Project:
    """A project folder ready to run: Project(folder).Run(reporter)."""

    def __init__(self, folder, parameters_file=None, output_dir=None, settings=()):
        if not os.path.exists(folder):
            raise _tessera.Error(f"project folder '{folder}' does not exist")
        if not os.path.isdir(folder):
            raise _tessera.Error(f"'{folder}' is not a folder (tessera run takes a project folder)")
        self.folder = folder
        cosimulation = FindCoSimulationDeck(folder, parameters_file)
        self.cosimulation = cosimulation is not None
        self.coupled = self.cosimulation or (not parameters_file and IsCoupledFolder(folder))
        self.dem_parameters = None
        if self.cosimulation:
            if settings:
                raise _tessera.Error(f"--set is not available for a CoSimulation deck ({cosimulation}); edit "
                                     "the decks it names")
            self.parameters_file = cosimulation
            self.parameters = ReadParameters(cosimulation)
            self.stage_class = _ImportApplicationModule(
                "tessera.coupling", "coupling", f"{cosimulation} (a CoSimulation deck)").CoSimulationStage
        elif self.coupled:
            self.parameters_file = os.path.join(folder, COUPLED_FILES[0])
            self.parameters = ReadParameters(self.parameters_file)
            self.dem_parameters = ReadParameters(os.path.join(folder, COUPLED_FILES[1]))
            dem_settings = [s[len("DEM:"):] for s in settings if s.startswith("DEM:")]
            ApplySettings(self.parameters, [s for s in settings if not s.startswith("DEM:")])
            ApplySettings(self.dem_parameters, dem_settings)
            module = _ImportApplicationModule("tessera.coupling", "coupling",
                                              f"{folder} (a coupled DE-FE project)")
            self.stage_class = module.DemStructuresCouplingAnalysis
        else:
            self.parameters_file = FindParametersFile(folder, parameters_file)
            self.parameters = ReadParameters(self.parameters_file)
            ApplySettings(self.parameters, settings)
            self.stage_class = LoadStageClass(self.parameters, self.parameters_file)
        self.output_dir = os.path.abspath(output_dir) if output_dir else None
        if output_dir:
            os.makedirs(output_dir, exist_ok=True)
            RedirectOutput(self.parameters, output_dir)
        self.model = None
        self.stage = None

    def CreateStage(self, reporter=None):
        """Builds the model and the stage (inside the working directory)."""
        self.model = _tessera.Model()
        if self.cosimulation:
            print(f"tessera: coupled DE-FE analysis of the CoSimulation deck "
                  f"{os.path.basename(self.parameters_file)}", flush=True)
            self.stage = self.stage_class(self.model, self.parameters)
        elif self.coupled:
            options = COUPLING_OPTIONS_FILE if os.path.isfile(COUPLING_OPTIONS_FILE) else None
            print(f"tessera: coupled DE-FE analysis of {COUPLED_FILES[0]} (structure) and "
                  f"{COUPLED_FILES[1]} (particles)"
                  + (f", options from {COUPLING_OPTIONS_FILE}" if options else ""), flush=True)
            self.stage = self.stage_class(self.model, self.parameters, self.dem_parameters, options)
        else:
            self.stage = self.stage_class(self.model, self.parameters)
        # Stages that place their own output (the DEM stage's post files and
        # graphs) rather than through output processes take the directory here.
        if self.output_dir and hasattr(self.stage, "SetOutputDirectory"):
            self.stage.SetOutputDirectory(self.output_dir)
        if reporter is not None and hasattr(self.stage, "SetProgressReporter"):
            self.stage.SetProgressReporter(reporter)
        return self.stage

    def Run(self, reporter=None, restart=None):
        """Runs the stage; `restart`: a checkpoint to continue from."""
        restart = os.path.abspath(restart) if restart else None
        with WorkingDirectory(self.folder):
            stage = self.CreateStage(reporter)
            if restart:
                stage.RestartFrom(restart)
            stage.Initialize()
            stage.RunSolutionLoop()
            stage.Finalize()
        return stage
