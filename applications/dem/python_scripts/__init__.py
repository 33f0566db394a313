"""tessera.dem: discrete elements (spheres, bonded spheres, clusters) and rigid walls.

Importing it registers the DEM element and condition names that decks use
(SphericParticle3D, SphericContinuumParticle3D, Cluster3D, RigidFace3D3N, ...)
and the DEM variables (PARTICLE_DENSITY, COHESIVE_GROUP, LINEAR_VELOCITY,
DEM_PRESSURE, ...), which then are attributes of this module and of `tessera`.
The physics (search, contact laws, integration) is the C++ strategy
tessera._dem.ExplicitSolverStrategy, driven by DEMAnalysisStage.
"""
import tessera
from tessera import _dem  # noqa: F401  (registers the application)

tessera.export_registered_names(globals())
tessera.export_registered_names()

from .dem_analysis_stage import DEMAnalysisStage, DEMSolver  # noqa: E402,F401
from .particle_creator_destructor import ParticleCreatorDestructor  # noqa: E402,F401
