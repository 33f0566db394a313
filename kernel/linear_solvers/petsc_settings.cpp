// Reading and checking the "petsc" linear solver settings (no PETSc call: the
// settings are checked the same way in a build without PETSc).
#include "kernel/linear_solvers/petsc_settings.h"

#include <algorithm>
#include <vector>

#include "kernel/core/error.h"

namespace tessera {

namespace {

std::string KeyOf(const Parameters& settings, const char* key) {
  const std::string path = settings.Path();
  return path.empty() ? key : path + "." + key;
}

void CheckChoice(const Parameters& settings, const char* key, const std::string& value,
                 const std::vector<std::string>& choices) {
  if (std::find(choices.begin(), choices.end(), value) != choices.end()) return;
  std::string list;
  for (const std::string& c : choices) list += (list.empty() ? "\"" : ", \"") + c + "\"";
  TESSERA_ERROR(settings.Origin(), ": key '", KeyOf(settings, key), "' is \"", value,
                "\"; expected one of ", list);
}

}  // namespace

const char* PetscSolverDefaults() {
  return R"({
      "solver_type": "petsc", "ksp_type": "cg", "pc_type": "gamg", "factor_package": "",
      "tolerance": 1e-9, "max_iteration": 1000, "gmres_restart": 30, "options": "",
      "echo_level": 0, "rigid_body_modes": true, "gamg_threshold": 0.0
  })";
}

PetscSolverSettings ReadPetscSolverSettings(const Parameters& settings) {
  Parameters copy = settings.Clone();
  copy.ValidateAndAssignDefaults(Parameters(PetscSolverDefaults()));
  PetscSolverSettings s;
  s.ksp_type = copy.GetString("ksp_type");
  s.pc_type = copy.GetString("pc_type");
  s.factor_package = copy.GetString("factor_package");
  s.tolerance = copy.GetDouble("tolerance");
  s.max_iteration = copy.GetInt("max_iteration");
  s.gmres_restart = copy.GetInt("gmres_restart");
  s.options = copy.GetString("options");
  s.echo_level = copy.GetInt("echo_level");
  s.rigid_body_modes = copy.GetBool("rigid_body_modes");
  s.gamg_threshold = copy.GetDouble("gamg_threshold");
  CheckChoice(settings, "ksp_type", s.ksp_type, {"cg", "gmres", "bcgs", "preonly"});
  CheckChoice(settings, "pc_type", s.pc_type,
              {"gamg", "hypre", "jacobi", "bjacobi", "ilu", "icc", "lu", "none"});
  CheckChoice(settings, "factor_package", s.factor_package, {"", "mumps", "superlu_dist", "petsc"});
  TESSERA_CHECK(s.tolerance > 0.0 && s.tolerance < 1.0, settings.Origin(), ": key '",
                KeyOf(settings, "tolerance"), "' is ", s.tolerance,
                "; expected a relative residual in (0, 1)");
  TESSERA_CHECK(s.max_iteration > 0, settings.Origin(), ": key '", KeyOf(settings, "max_iteration"),
                "' is ", s.max_iteration, "; expected a positive number of iterations");
  TESSERA_CHECK(s.gmres_restart > 0, settings.Origin(), ": key '", KeyOf(settings, "gmres_restart"),
                "' is ", s.gmres_restart, "; expected a positive Krylov space dimension");
  TESSERA_CHECK(s.gamg_threshold >= -1.0 && s.gamg_threshold < 1.0, settings.Origin(), ": key '",
                KeyOf(settings, "gamg_threshold"), "' is ", s.gamg_threshold,
                "; expected a relative edge weight in [0, 1) (negative: keep every edge)");
  TESSERA_CHECK(s.ksp_type != "preonly" || s.pc_type == "lu", settings.Origin(), ": key '",
                KeyOf(settings, "ksp_type"),
                "' is \"preonly\" (one application of the preconditioner), which solves only "
                "with \"pc_type\": \"lu\"");
  return s;
}

}  // namespace tessera
