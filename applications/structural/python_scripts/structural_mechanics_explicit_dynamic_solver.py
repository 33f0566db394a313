"""ExplicitMechanicalSolver (Kratos' structural_mechanics_explicit_dynamic_solver):
"solver_type": "Dynamic" with "time_integration_method": "explicit".

Central differences with the elements' lumped (row-sum) mass, in the kernel's
ExplicitCentralDifferencesStrategy ("scheme_type": "central_differences", the
only scheme here). Keys, with Kratos' defaults:

* "time_step_prediction_level": 0 uses time_stepping.time_step; 1 replaces it,
  at Initialize, by min("max_delta_time", "fraction_delta_time" x dt_crit)
  (2, Kratos' periodic refresh, is not provided);
* dt_crit = min l_e / c_e over the elements (utilities/critical_time_step.h);
  a time step above it is an error naming time_stepping.time_step;
* "rayleigh_alpha": mass-proportional damping; "rayleigh_beta" must be 0
  (stiffness-proportional damping is not provided for explicit). Where the
  solver gives no rayleigh_alpha, the elements' RAYLEIGH_ALPHA (the
  properties', as Kratos' explicit scheme reads it) is used when all the
  elements that give one give the same; a properties' RAYLEIGH_BETA is
  accepted only where its damping ratio at the highest frequency,
  β ω_max / 2 = β / dt_crit, is below 1e-6 (then it changes nothing a
  central-difference step resolves), else it is an error.

The linear solver, convergence and line-search keys of the deck are accepted
(Kratos' decks carry them) and unused."""
import tessera
from tessera import _structural

from .structural_mechanics_solver import DynamicMechanicalSolver, _Key

EXPLICIT_DEFAULTS = """{
    "time_integration_method": "explicit",
    "scheme_type": "central_differences",
    "time_step_prediction_level": 0,
    "delta_time_refresh": 1000,
    "max_delta_time": 1.0,
    "fraction_delta_time": 0.333333333333333333,
    "rayleigh_alpha": 0.0,
    "rayleigh_beta": 0.0
}"""


class ExplicitMechanicalSolver(DynamicMechanicalSolver):
    DYNAMIC_DEFAULTS = EXPLICIT_DEFAULTS
    # Distributed: each rank integrates its elements; the shared nodes' masses
    # and forces are summed over the ranks (tessera.InterfaceSum).
    SUPPORTS_MPI = True
    IMPLICIT = False

    def __init__(self, model, settings):
        super().__init__(model, settings)
        s = self.settings
        scheme = s["scheme_type"].GetString()
        if scheme != "central_differences":
            raise tessera.Error(f"{_Key(s, 'scheme_type')} is '{scheme}'; this build provides "
                                "\"central_differences\" for explicit dynamics (Kratos' \"multi_stage\" "
                                "is not provided)")
        level = s["time_step_prediction_level"].GetInt()
        if level not in (0, 1):
            raise tessera.Error(f"{_Key(s, 'time_step_prediction_level')} is {level}; expected 0 (given "
                                "time step) or 1 (predicted once); the periodic refresh (2) is not provided")
        if s["rayleigh_beta"].GetDouble() != 0.0:
            raise tessera.Error(f"{_Key(s, 'rayleigh_beta')} is {s['rayleigh_beta'].GetDouble()}; explicit "
                                "central differences here support mass-proportional damping "
                                "(rayleigh_alpha) only; set rayleigh_beta to 0")
        if s["rayleigh_alpha"].GetDouble() < 0.0:
            raise tessera.Error(f"{_Key(s, 'rayleigh_alpha')} must be non-negative")
        fraction = s["fraction_delta_time"].GetDouble()
        if not 0.0 < fraction <= 1.0:
            raise tessera.Error(f"{_Key(s, 'fraction_delta_time')} is {fraction}; expected (0, 1]")
        self.critical_time_step = None

    def Initialize(self):
        s = self.settings
        # Distributed: each rank estimates over its elements; the run takes the least.
        # (METIS may leave a rank without elements: it bounds nothing.)
        mp = self.GetComputingModelPart()
        local = (_structural.EstimateCriticalTimeStep(mp)
                 if mp.NumberOfElements() > 0 or not self.communicator.IsDistributed() else float("inf"))
        self.critical_time_step = self.communicator.MinAll(local)
        if s["time_step_prediction_level"].GetInt() == 1:
            dt = min(s["max_delta_time"].GetDouble(),
                     s["fraction_delta_time"].GetDouble() * self.critical_time_step)
            stepping = s["time_stepping"]
            if stepping.Has("time_step"):
                stepping["time_step"].SetDouble(dt)
            else:
                stepping.AddDouble("time_step", dt)
        dt = self.ComputeDeltaTime()
        if dt > self.critical_time_step:
            raise tessera.Error(f"{_Key(s['time_stepping'], 'time_step')} is {dt:.6g}, above the critical "
                                f"time step {self.critical_time_step:.6g} of explicit central differences "
                                "(min l_e / c_e over the elements); reduce it or set "
                                "time_step_prediction_level to 1")
        super().Initialize()

    def _MassDamping(self):
        """rayleigh_alpha of the solver, else the elements' RAYLEIGH_ALPHA (see
        the module text); checks the properties' RAYLEIGH_BETA."""
        s = self.settings
        alphas, worst_beta = {}, (0.0, None)
        for element in self.GetComputingModelPart().Elements:
            properties = element.GetProperties()
            if properties is None:
                continue
            if properties.Has(tessera.RAYLEIGH_ALPHA):
                alphas.setdefault(properties[tessera.RAYLEIGH_ALPHA], properties.Id)
            if properties.Has(tessera.RAYLEIGH_BETA) and properties[tessera.RAYLEIGH_BETA] > worst_beta[0]:
                worst_beta = (properties[tessera.RAYLEIGH_BETA], properties.Id)
        beta, owner = worst_beta
        if beta > 0.0 and beta / self.critical_time_step >= 1e-6:
            raise tessera.Error(f"properties {owner}: RAYLEIGH_BETA {beta:g} damps the highest frequency of "
                                f"explicit central differences by {beta / self.critical_time_step:.3g} of "
                                "critical; stiffness-proportional damping is not provided for explicit "
                                "dynamics (use RAYLEIGH_ALPHA)")
        alpha = s["rayleigh_alpha"].GetDouble()
        if alpha == 0.0 and alphas:
            if len(alphas) > 1:
                listed = ", ".join(f"{a:g} (properties {i})" for a, i in sorted(alphas.items()))
                raise tessera.Error(f"{_Key(s, 'rayleigh_alpha')}: the elements' properties give different "
                                    f"RAYLEIGH_ALPHA ({listed}); explicit central differences take one "
                                    "mass damping: set rayleigh_alpha in the solver settings")
            alpha = next(iter(alphas))
        if s["rayleigh_alpha"].GetDouble() == 0.0 and self.communicator.IsDistributed():
            # Each rank saw its own elements' RAYLEIGH_ALPHA: all must agree.
            largest = self.communicator.MaxAll(alpha)
            least = self.communicator.MinAll(alpha if alpha > 0.0 else float("inf"))
            if largest > 0.0 and least != largest:
                raise tessera.Error(f"{_Key(s, 'rayleigh_alpha')}: the elements' properties give different "
                                    f"RAYLEIGH_ALPHA ({least:g} and {largest:g}); explicit central "
                                    "differences take one mass damping: set rayleigh_alpha in the "
                                    "solver settings")
            alpha = largest
        return alpha

    def _CreateSolutionStrategy(self):
        s = self.settings
        # The builder assembles the residual and the mass; its linear solver is never used.
        builder = _structural.ResidualBasedEliminationBuilderAndSolver(
            _structural.CreateLinearSolver(tessera.Parameters('{"solver_type": "sparse_lu"}')))
        self.mass_damping = self._MassDamping()  # α of the strategy (read by energy balances)
        strategy = _structural.ExplicitCentralDifferencesStrategy(
            self.GetComputingModelPart(), builder, rayleigh_alpha=self.mass_damping,
            compute_reactions=s["compute_reactions"].GetBool(), move_mesh_flag=s["move_mesh_flag"].GetBool())
        if self.local_mesh is not None:
            strategy.SetInterfaceSum(tessera.InterfaceSum(self.communicator, self.local_mesh.neighbours,
                                                          self.local_mesh.shared_nodes))
        return strategy


def CreateSolver(model, custom_settings):
    return ExplicitMechanicalSolver(model, custom_settings)
