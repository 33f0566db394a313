"""ImplicitMechanicalSolver (Kratos' structural_mechanics_implicit_dynamic_solver):
"solver_type": "Dynamic" with "time_integration_method": "implicit".

Each time step solves M a + D v + f_int(u) = f_ext at t_n+1 with the kernel's
Bossak scheme (ResidualBasedBossakDisplacementScheme):

* "scheme_type": "bossak" (default), with "damp_factor_m" = alpha_m (default
  -0.3, in [-1/3, 0]) and "newmark_beta" (default 0.25);
* "scheme_type": "newmark": alpha_m = 0 (trapezoidal rule for beta = 1/4).

Rayleigh damping D = alpha M + beta K: "rayleigh_alpha"/"rayleigh_beta" go to
the process info (RAYLEIGH_ALPHA/BETA), which material properties of the same
names override. VELOCITY and ACCELERATION become solution-step variables; the
motion starts from the initial values in the model part (zero acceleration
unless set). Other Kratos scheme types are errors naming the key."""
import tessera
from tessera import _structural

from .structural_mechanics_solver import DynamicMechanicalSolver, _Key

IMPLICIT_DEFAULTS = """{
    "time_integration_method": "implicit",
    "scheme_type": "bossak",
    "damp_factor_m": -0.3,
    "newmark_beta": 0.25,
    "rayleigh_alpha": 0.0,
    "rayleigh_beta": 0.0
}"""

KRATOS_IMPLICIT_SCHEMES = ("bossak", "newmark", "pseudo_static", "bdf1", "bdf2", "bdf3", "bdf4", "bdf5",
                           "relaxation")


class ImplicitMechanicalSolver(DynamicMechanicalSolver):
    # Distributed with PETSc (DistributedBuilderAndSolver) under "parallel_type": "MPI".
    SUPPORTS_MPI = True
    DYNAMIC_DEFAULTS = IMPLICIT_DEFAULTS

    def __init__(self, model, settings):
        super().__init__(model, settings)
        s = self.settings
        scheme = s["scheme_type"].GetString()
        if scheme not in ("bossak", "newmark"):
            known = "a Kratos scheme this build does not provide yet" if scheme in KRATOS_IMPLICIT_SCHEMES \
                else "not a Kratos implicit scheme"
            raise tessera.Error(f"{_Key(s, 'scheme_type')} is '{scheme}' ({known}); expected \"bossak\" "
                                "or \"newmark\"")
        for key in ("rayleigh_alpha", "rayleigh_beta"):
            if s[key].GetDouble() < 0.0:
                raise tessera.Error(f"{_Key(s, key)} is {s[key].GetDouble()}; Rayleigh coefficients must "
                                    "be non-negative")

    def Initialize(self):
        info = self.GetComputingModelPart().ProcessInfo
        info[tessera.RAYLEIGH_ALPHA] = self.settings["rayleigh_alpha"].GetDouble()
        info[tessera.RAYLEIGH_BETA] = self.settings["rayleigh_beta"].GetDouble()
        super().Initialize()

    def _CreateScheme(self):
        s = self.settings
        beta = s["newmark_beta"].GetDouble()
        try:
            if s["scheme_type"].GetString() == "newmark":
                return _structural.ResidualBasedNewmarkDisplacementScheme(beta)
            return _structural.ResidualBasedBossakDisplacementScheme(s["damp_factor_m"].GetDouble(), beta)
        except tessera.Error as error:
            raise tessera.Error(f"{_Key(s, 'scheme_type')}: {error}") from None


def CreateSolver(model, custom_settings):
    return ImplicitMechanicalSolver(model, custom_settings)
