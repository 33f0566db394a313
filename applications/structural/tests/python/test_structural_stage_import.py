"""The structural stage is importable from the package, as the DEM stage is
(tessera.dem.DEMAnalysisStage), and from its module; both names are one class."""
import tessera.structural
from tessera.structural import StructuralMechanicsAnalysis
from tessera.structural.structural_mechanics_analysis import StructuralMechanicsAnalysis as FromModule

from tessera.analysis_stage import AnalysisStage


def test_the_stage_from_the_package_is_the_stage_from_its_module():
    assert StructuralMechanicsAnalysis is FromModule
    assert tessera.structural.StructuralMechanicsAnalysis is FromModule
    assert issubclass(StructuralMechanicsAnalysis, AnalysisStage)
