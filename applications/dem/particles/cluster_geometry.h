// ClusterGeometry: the reference shape of a rigid sphere cluster, read from a
// Kratos .clu file (the file a cluster material names in CLUSTER_FILE_NAME).
//
// The format (Kratos DEMApplication, custom_clusters/*.clu), line based, with
// `//` comments and LF or CRLF line endings:
//   Name                               the next line is the cluster's name
//   Begin centers_and_radii            one sphere per line: x y z radius
//   ...                                (centre relative to the cluster centre)
//   End centers_and_radii
//   Particle_center_and_diameter       next line: x y z diameter of the
//                                      enclosing sphere (for the mesher; read
//                                      and checked, not used, as in Kratos)
//   Size                               next line: the reference size the
//                                      CHARACTERISTIC_LENGTH of a cluster node
//                                      is compared with (scale = L / Size)
//   Volume                             next line: volume at that size
//   Inertia per unit mass              the next three numbers (one or several
//                                      lines): principal moments of inertia
//                                      divided by the mass, about the body
//                                      axes x, y, z of the sphere centres
// Name and Particle_center_and_diameter are optional; the sphere block, Size,
// Volume and Inertia per unit mass are required.
#pragma once

#include <string>
#include <vector>

#include "kernel/core/array3.h"

namespace tessera::dem {

struct ClusterGeometry {
  std::string file;  // as given (for messages)
  std::string name;
  std::vector<Array3> centres;  // body frame, at the reference size
  std::vector<double> radii;
  double size = 0.0;
  double volume = 0.0;
  Array3 inertia_per_unit_mass{};  // principal, body frame
  bool has_enclosing_sphere = false;
  Array3 enclosing_centre{};
  double enclosing_diameter = 0.0;
};

// Reads and checks `path` (relative paths from the working directory). Errors
// (tessera::Error) name the file, the line and what was expected: a missing or
// unreadable file, a malformed or non-positive number, a missing block, a
// sphere line without four numbers, an unterminated sphere block.
ClusterGeometry ReadClusterFile(const std::string& path);

}  // namespace tessera::dem
