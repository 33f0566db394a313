// The `dem` application: discrete elements (spheres, bonded spheres, clusters)
// and the rigid walls they hit. Its variables are in dem_variables.h.
#pragma once

namespace tessera::dem {

// Registers the entity names DEM decks use (SphericParticle3D, Cluster3D,
// RigidFace3D3N, ...) with Tessera's registry under the application "dem".
// Idempotent: a second call does nothing.
void RegisterDemApplication();

}  // namespace tessera::dem
