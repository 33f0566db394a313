// PetscSolverSettings: the "linear_solver_settings" of "solver_type": "petsc",
// validated: a Krylov method and a preconditioner of PETSc by name, the
// relative residual tolerance (Kratos' meaning: ||b - Ax|| / ||b||, the
// unpreconditioned residual) and the iteration limit. Every key has a
// default; an unknown key or value is an error naming it and the choices.
#pragma once

#include <string>

#include "kernel/parameters/parameters.h"

namespace tessera {

struct PetscSolverSettings {
  std::string ksp_type = "cg";   // cg | gmres | bcgs | preonly
  std::string pc_type = "gamg";  // gamg | hypre | jacobi | bjacobi | ilu | icc | lu | none
  std::string factor_package =
      "";  // lu: "" (PETSc's choice; MUMPS when distributed) | mumps | superlu_dist | petsc
  double tolerance = 1e-9;
  int max_iteration = 1000;
  int gmres_restart = 30;
  // Further PETSc options ("-pc_gamg_threshold 0.02 ..."), for tuning; given
  // to this solver only (its own options prefix).
  std::string options = "";
  int echo_level = 0;  // 1: iterations and residual of every solve
  // GAMG: the rigid-body modes of the displacement dofs (from the nodes'
  // positions) as its near null space, which elasticity's coarse levels need.
  bool rigid_body_modes = true;
  // GAMG: graph edges weaker than this (relative, PCGAMGSetThreshold) are
  // dropped before aggregation; 0 (PETSc's default) drops only zeros. 0.01:
  // 22 CG iterations instead of 33 on the 519,183-dof Hex8 cantilever, the
  // multigrid setup's time not clearly changed on a loaded host
  // (docs/performance.md). A "-pc_gamg_threshold" in `options` overrides it.
  double gamg_threshold = 0.0;
};

// The settings of a "linear_solver_settings" object whose solver_type is
// "petsc" (the object itself is not modified).
PetscSolverSettings ReadPetscSolverSettings(const Parameters& settings);

// The defaults, as the JSON object the user guide documents.
const char* PetscSolverDefaults();

}  // namespace tessera
