"""tessera.coupling: particles loading and deforming FE structures (DE-FE).

Importing it registers the coupling variables (DEM_NODAL_FORCE,
DEM_SURFACE_LOAD) and the DemContactLoadCondition2D1N/3D1N, which then are
attributes of this module and of `tessera`. The stage is
DemStructuresCouplingAnalysis(model, structural_parameters, dem_parameters
[, coupling_parameters]); `tessera run FOLDER` picks it for a folder with both
ProjectParameters.json and ProjectParametersDEM.json.
CircleTriangleIntersection(centre, radius, v1, v2, v3) and
CircleQuadrilateralIntersection(centre, radius, v1, v2, v3, v4) give the
area and centroid of a sphere's circle on a face (thesis App. C);
CircleQuadrilateralAreaShare the quadrilateral's area and weights as the
Area Distributed Method computes them (closed forms where they apply).
"""
import tessera
from tessera import _coupling  # noqa: F401  (registers the application)

tessera.export_registered_names(globals())
tessera.export_registered_names()

from .coupling_parameters import CouplingOptions, ReadCouplingOptions  # noqa: E402,F401
from .cosimulation_deck import CoSimulationStage, IsCoSimulationDeck  # noqa: E402,F401
from .dem_structures_coupling_analysis import DemStructuresCouplingAnalysis  # noqa: E402,F401
from .skin_walls import FindSkinFaces, SkinWalls  # noqa: E402,F401
# Sphere-face intersection areas and centroids (thesis App. C, for the ADM).
from tessera._coupling import (  # noqa: E402,F401
    CircleQuadrilateralAreaShare,
    CircleQuadrilateralIntersection,
    CircleTriangleIntersection,
)
