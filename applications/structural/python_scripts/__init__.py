"""tessera.structural: solid mechanics.

Importing it registers the structural elements (SmallDisplacementElement2D3N
... TotalLagrangianElement3D8N), load conditions (PointLoadCondition2D1N/3D1N,
LineLoadCondition2D2N, SurfaceLoadCondition3D3N/3D4N), elastic laws
(LinearElastic3DLaw, LinearElasticPlaneStrain2DLaw, ..., HyperElastic3DLaw)
and the structural variables (CAUCHY_STRESS_VECTOR, VON_MISES_STRESS, ...),
which then are attributes of this module and of `tessera`. The module also
gives the implicit solving stack (ResidualBasedNewtonRaphsonStrategy, ...) and
ReadMaterials; the stage, StructuralMechanicsAnalysis, is importable from this
package (tessera.structural.StructuralMechanicsAnalysis, as
tessera.dem.DEMAnalysisStage is) and from its module,
tessera.structural.structural_mechanics_analysis.
"""
import tessera
from tessera import _structural  # noqa: F401  (registers the application)
from tessera._structural import *  # noqa: F401,F403

tessera.export_registered_names(globals())
tessera.export_registered_names()

from .structural_mechanics_analysis import StructuralMechanicsAnalysis  # noqa: E402,F401
