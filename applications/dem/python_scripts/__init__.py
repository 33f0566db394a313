"""tessera.dem: discrete elements (spheres, bonded spheres, clusters) and rigid walls.

Importing it registers the DEM element and condition names that decks use
(SphericParticle3D, SphericContinuumParticle3D, Cluster3D, RigidFace3D3N, ...)
and the DEM variables (PARTICLE_DENSITY, COHESIVE_GROUP, LINEAR_VELOCITY,
DEM_PRESSURE, ...), which then are attributes of this module and of `tessera`.
The physics (search, contact laws, integration) belongs to the DEM strategy.
"""
import tessera
from tessera import _dem  # noqa: F401  (registers the application)

tessera.export_registered_names(globals())
tessera.export_registered_names()
