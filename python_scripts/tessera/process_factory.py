"""KratosProcessFactory: builds the processes listed in a ProjectParameters.json
("processes" and "output_processes" lists) from their Kratos description

    {"python_module": "assign_vector_variable_process",
     "kratos_module": "KratosMultiphysics",
     "process_name": "AssignVectorVariableProcess",      (optional)
     "Parameters": {...}}

by importing the Tessera module that provides it and calling its
`Factory(settings, model)`, as Kratos does. Kratos module names map to Tessera
packages (KRATOS_MODULES); "tessera.<package>" names are used as they are;
without "kratos_module" the python_module is looked for in Tessera, then
imported by its own name (a user's process module beside the deck); the
legacy {"python_module": "process_factory", "process_name": ...} form and
processes registered in C++ (tessera.CreateRegisteredProcess) are understood
too. Every failure is a tessera.Error naming the file, the key path of the
entry (processes.constraints_process_list[2]), the module and what exists.
"""
import importlib
import importlib.util
import pkgutil

from . import _tessera

# Kratos module -> (Tessera package, packages searched inside it, application label)
KRATOS_MODULES = {
    "KratosMultiphysics": ("tessera", ("tessera.processes", "tessera.output"), "the kernel"),
    "KratosMultiphysics.DEMApplication": ("tessera.dem", ("tessera.dem.processes", "tessera.dem"),
                                          "the dem application"),
    "KratosMultiphysics.StructuralMechanicsApplication": (
        "tessera.structural", ("tessera.structural.processes", "tessera.structural"),
        "the structural application"),
    "KratosMultiphysics.DemStructuresCouplingApplication": ("tessera.coupling", (
        "tessera.coupling.processes", "tessera.coupling"), "the coupling application"),
}

# The legacy "process_factory" names of Kratos' C++ processes, by Tessera module.
LEGACY_PROCESSES = {
    "ApplyConstantVectorValueProcess": "tessera.processes.apply_constant_vector_value_process",
}

ITEM_DEFAULTS = """{
    "python_module": "",
    "kratos_module": "",
    "process_name": "",
    "help": null,
    "check": null,
    "Parameters": {}
}"""


def _Where(settings):
    path = settings.Path()
    return f"{settings.Origin()}: {path}" if path else settings.Origin()


def _PackageExists(name):
    """True if the package imports; False if it (or a parent) is absent. An
    error raised while importing a package that exists is not swallowed."""
    try:
        importlib.import_module(name)
        return True
    except ModuleNotFoundError as error:
        if error.name and (name == error.name or name.startswith(error.name + ".")):
            return False
        raise


def _ModuleExists(name):
    package, _, _ = name.rpartition(".")
    if package and not _PackageExists(package):
        return False
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def _ModulesIn(package_name):
    """Names of the process-like modules in a package (for error messages)."""
    try:
        package = importlib.import_module(package_name)
    except ImportError:
        return []
    if not hasattr(package, "__path__"):
        return []
    return sorted(m.name for m in pkgutil.iter_modules(package.__path__)
                  if not m.name.startswith("_") and m.name.endswith("_process"))


class KratosProcessFactory:
    def __init__(self, model):
        self.model = model

    def ConstructListOfProcesses(self, process_list):
        """The processes of a Parameters array, in order."""
        if not process_list.IsArray():
            raise _tessera.Error(f"{_Where(process_list)}: expected a list of processes "
                                 '[{"python_module": ..., "kratos_module": ..., "Parameters": {...}}]')
        return [self.ConstructProcess(process_list[i]) for i in range(process_list.size())]

    def ConstructProcess(self, item):
        if not item.IsSubParameter():
            raise _tessera.Error(f"{_Where(item)}: expected a process description "
                                 '{"python_module": ..., "kratos_module": ..., "Parameters": {...}}')
        item.ValidateAndAssignDefaults(_tessera.Parameters(ITEM_DEFAULTS))
        python_module = item["python_module"].GetString()
        kratos_module = item["kratos_module"].GetString()
        process_name = item["process_name"].GetString()

        if python_module in ("", "process_factory"):
            return self._ConstructByName(item, process_name)
        try:
            module_name = self._ResolveModule(item, python_module, kratos_module)
        except _tessera.Error:
            # a Kratos C++ process that Tessera implements in C++ under its Kratos name
            if process_name and _tessera.Registry.HasProcess(process_name):
                return _tessera.CreateRegisteredProcess(process_name, self.model, item["Parameters"])
            raise
        module = importlib.import_module(module_name)
        if not hasattr(module, "Factory"):
            raise _tessera.Error(f"{_Where(item)}: module {module_name} has no Factory(settings, model) "
                                 "function, so it cannot build a process")
        return module.Factory(item, self.model)

    # ---- name resolution
    def _ResolveModule(self, item, python_module, kratos_module):
        if python_module.startswith("tessera."):
            candidates = [python_module]
        elif not kratos_module:
            # As Kratos without "kratos_module": the module is imported by its own
            # name (a user's process beside the deck); Tessera's come first.
            candidates = [f"{p}.{python_module}" for p in KRATOS_MODULES["KratosMultiphysics"][1]]
            candidates.append(python_module)
        else:
            package, searched, application = self._Packages(item, kratos_module)
            if not _PackageExists(package):
                raise _tessera.Error(
                    f"{_Where(item)}: python_module '{python_module}' of {kratos_module} is provided "
                    f"by {application} ({package}), which this build of Tessera does not include "
                    "(build it, or remove the process from the parameters)")
            candidates = [f"{p}.{python_module}" for p in searched]
        for candidate in candidates:
            if _ModuleExists(candidate):
                return candidate
        searched_packages = sorted({c.rpartition(".")[0] for c in candidates} - {""})
        existing = sorted({m for p in searched_packages for m in _ModulesIn(p)})
        raise _tessera.Error(
            f"{_Where(item)}: unknown python_module '{python_module}' (kratos_module "
            f"'{kratos_module}'): no module {' or '.join(candidates)}; modules that exist: "
            f"{', '.join(existing) if existing else '(none)'}")

    def _Packages(self, item, kratos_module):
        if kratos_module in KRATOS_MODULES:
            return KRATOS_MODULES[kratos_module]
        if kratos_module == "tessera" or kratos_module.startswith("tessera."):
            return kratos_module, (f"{kratos_module}.processes", kratos_module), kratos_module
        if kratos_module.startswith("KratosMultiphysics."):
            application = kratos_module.split(".", 1)[1]
            known = ", ".join(sorted(KRATOS_MODULES))
            raise _tessera.Error(f"{_Where(item)}: kratos_module '{kratos_module}': Tessera has no "
                                 f"counterpart of Kratos' {application} (known: {known})")
        raise _tessera.Error(f"{_Where(item)}: unknown kratos_module '{kratos_module}'; expected "
                             f"one of {', '.join(sorted(KRATOS_MODULES))} or a tessera.<package> name")

    def _ConstructByName(self, item, process_name):
        """The legacy process_factory form, or a process registered in C++."""
        if not process_name:
            raise _tessera.Error(f"{_Where(item)}: give a python_module (or a process_name of a "
                                 "registered process)")
        if process_name in LEGACY_PROCESSES:
            module = importlib.import_module(LEGACY_PROCESSES[process_name])
            return module.Factory(item, self.model)
        if _tessera.Registry.HasProcess(process_name):
            return _tessera.CreateRegisteredProcess(process_name, self.model, item["Parameters"])
        known = sorted(set(LEGACY_PROCESSES) | set(_tessera.Registry.ProcessNames()))
        raise _tessera.Error(f"{_Where(item)}: unknown process_name '{process_name}'; known: "
                             f"{', '.join(known) if known else '(none)'}")
