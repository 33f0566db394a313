"""StructuralMechanicsAnalysis: the stage of Kratos' structural decks
(KratosMultiphysics.StructuralMechanicsApplication.structural_mechanics_analysis),
which `tessera run` picks for "solver_type": "Static" and friends.

    {"problem_data": {"problem_name": ..., "start_time": 0.0, "end_time": 1.0, ...},
     "solver_settings": {"solver_type": "Static", "model_part_name": "Structure",
                         "domain_size": 2, "analysis_type": "non_linear", ...},
     "processes": {"constraints_process_list": [...], "loads_process_list": [...], ...},
     "output_processes": {...}}

The solver comes from python_solvers_wrapper_structural.CreateSolver; the time
loop, processes and output are AnalysisStage's (Kratos' semantics).
"""
import tessera

from tessera.analysis_stage import AnalysisStage

from . import python_solvers_wrapper_structural


class StructuralMechanicsAnalysis(AnalysisStage):
    def _CreateSolver(self):
        if not self.project_parameters.Has("solver_settings"):
            raise tessera.Error(f"{self.project_parameters.Origin()}: the project parameters need "
                                "\"solver_settings\"")
        return python_solvers_wrapper_structural.CreateSolver(self.model,
                                                               self.project_parameters["solver_settings"])

    def _GetSimulationName(self):
        name = self.project_parameters["problem_data"]["problem_name"].GetString()
        return name or "Structural Analysis"

    def _GetOrderOfProcessesInitialization(self):
        # Kratos builds constraints before loads, so loads see the final fixity.
        return ["constraints_process_list", "loads_process_list"]

    def _GetAllowedTopLevelKeys(self):
        return {"analysis_stage", "problem_data", "solver_settings", "processes", "output_processes",
                "modelers", "restart_options"}

    # ---- a distributed checkpoint continued on another number of ranks
    # (resized_checkpoint.py): the rank files merged into the whole
    # structure's state, of which each rank loads the piece it holds after
    # partitioning the deck's mesh as a fresh start does.
    def _ResizedCheckpoint(self, path, written, rank, ranks):
        from . import resized_checkpoint
        return resized_checkpoint.ResizedCheckpointForRank(path, written, rank, ranks)

    def LoadCheckpoint(self, path):
        if self._resized_from is None:
            return super().LoadCheckpoint(path)
        from . import resized_checkpoint
        resized_checkpoint.LoadPiece(self, path, super().LoadCheckpoint)


def CreateAnalysisStage(model, project_parameters):
    return StructuralMechanicsAnalysis(model, project_parameters)
