// Checks of the DEM rigid walls (their contact physics is the DEM strategy's).
#include "applications/dem/conditions/rigid_face.h"

#include <algorithm>
#include <sstream>

#include "kernel/core/error.h"
#include "kernel/model/node.h"

namespace tessera::dem {
namespace {

// Faces whose measure is below this fraction of the longest edge (to the power
// of the face's dimension) are degenerate: collinear or coincident nodes up to
// round-off of coordinates written with ~12 significant digits.
constexpr double kRelativeTolerance = 1e-12;

double LongestEdge(const Geometry::Points& p) {
  double longest = 0.0;
  for (std::size_t i = 0; i < p.size(); ++i)
    longest = std::max(longest, Norm(p[(i + 1) % p.size()] - p[i]));
  return longest;
}

}  // namespace

std::string RigidFace::TypeName() const {
  return "RigidFace3D" + std::to_string(GetGeometry().size()) + "N";
}

std::string RigidFace::Info() const { return TypeName() + " condition " + std::to_string(Id()); }

double RigidFace::Measure() const {
  const Geometry::Points p = GetGeometry().CurrentPoints();
  switch (p.size()) {
    case 2:
      return Norm(p[1] - p[0]);
    case 3:
      return 0.5 * Norm(Cross(p[1] - p[0], p[2] - p[0]));
    // Half the cross product of the diagonals: the area of a planar quadrilateral,
    // and the norm of the vector area of a warped one.
    case 4:
      return 0.5 * Norm(Cross(p[2] - p[0], p[3] - p[1]));
    default:
      return 0.0;
  }
}

int RigidFace::Check(const ProcessInfo& info) const {
  Condition::Check(info);
  const Geometry& geometry = GetGeometry();
  const std::size_t n = geometry.size();
  if (n < 2 || n > 4) TESSERA_ERROR(Info(), " has ", n, " nodes; a DEM rigid face has 2, 3 or 4");
  const Geometry::Points p = geometry.CurrentPoints();
  const double longest = LongestEdge(p);
  const double measure = Measure();
  const double scale = n == 2 ? longest : longest * longest;
  if (!(measure > kRelativeTolerance * scale) || !(longest > 0.0)) {
    std::ostringstream nodes;
    for (std::size_t i = 0; i < n; ++i)
      nodes << (i ? ", " : "") << geometry[i].Id() << " at " << p[i];
    TESSERA_ERROR(Info(), " is degenerate: its ", n == 2 ? "length" : "area", " is ", measure,
                  " (nodes ", nodes.str(), ")");
  }
  return 0;
}

}  // namespace tessera::dem
