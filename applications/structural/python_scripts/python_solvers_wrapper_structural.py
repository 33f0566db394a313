"""CreateSolver(model, solver_settings): the structural solver that
solver_settings.solver_type names (Kratos' python_solvers_wrapper_structural).
This build provides "Static"/"static" and "Dynamic"/"dynamic" with
"time_integration_method": "implicit" or "explicit"; the other Kratos types are named in the
error so that a deck asking for them fails clearly."""
import tessera

KRATOS_SOLVER_TYPES = ("Static", "Dynamic", "formfinding", "eigen_value", "harmonic_analysis",
                       "prebuckling", "adjoint_static")


def CreateSolver(model, solver_settings):
    if not solver_settings.Has("solver_type"):
        raise tessera.Error(f"{solver_settings.Origin()}: solver_settings need \"solver_type\" (\"Static\")")
    solver_type = solver_settings["solver_type"].GetString()
    if solver_type.lower() == "static":
        from .structural_mechanics_static_solver import StaticMechanicalSolver
        return StaticMechanicalSolver(model, solver_settings)
    path = solver_settings.Path()
    if solver_type.lower() == "dynamic":
        method = (solver_settings["time_integration_method"].GetString()
                  if solver_settings.Has("time_integration_method") else "implicit")
        if method == "implicit":
            from .structural_mechanics_implicit_dynamic_solver import ImplicitMechanicalSolver
            return ImplicitMechanicalSolver(model, solver_settings)
        if method == "explicit":
            from .structural_mechanics_explicit_dynamic_solver import ExplicitMechanicalSolver
            return ExplicitMechanicalSolver(model, solver_settings)
        raise tessera.Error(f"{solver_settings.Origin()}: key '{path + '.' if path else ''}"
                            f"time_integration_method' is '{method}'; expected \"implicit\" or \"explicit\"")
    where = f"{solver_settings.Origin()}: key '{path + '.' if path else ''}solver_type'"
    if solver_type in KRATOS_SOLVER_TYPES or solver_type.lower() in (t.lower() for t in KRATOS_SOLVER_TYPES):
        raise tessera.Error(f"{where} is '{solver_type}': this build of the structural application "
                            "solves \"Static\" and \"Dynamic\" problems only")
    raise tessera.Error(f"{where} is '{solver_type}'; structural solver types: {', '.join(KRATOS_SOLVER_TYPES)}")
