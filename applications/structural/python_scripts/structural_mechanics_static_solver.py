"""StaticMechanicalSolver (Kratos' structural_mechanics_static_solver): the
quasi-static structural solver, "solver_type": "Static" (older files:
"static"). Each time step is one load level solved to equilibrium with the
incremental-update static scheme (no inertia); time only drives the loads and
the processes' intervals."""
from tessera import _structural

from .structural_mechanics_solver import MechanicalSolver


class StaticMechanicalSolver(MechanicalSolver):
    # Distributed with PETSc (DistributedBuilderAndSolver) under "parallel_type": "MPI".
    SUPPORTS_MPI = True
    def _CreateScheme(self):
        return _structural.ResidualBasedIncrementalUpdateStaticScheme()


def CreateSolver(model, custom_settings):
    return StaticMechanicalSolver(model, custom_settings)
