// Sphere3D1: the one-node geometry of spherical (DEM) particles, Kratos'
// Sphere3D1. The radius is element data, not geometry, so the geometry is that
// of its centre point; the static helpers give the measures of a ball of radius r.
#pragma once

#include "kernel/geometries/point.h"

namespace tessera {

class Sphere3D1 : public Point1 {
 public:
  Sphere3D1() : Point1(3) {}

  std::string_view Name() const override { return "Sphere3D1"; }
  GeometryFamily Family() const override { return GeometryFamily::Sphere; }

  // Throws: the volume needs the radius, which lives in the element; use
  // SphereVolume(radius). Returning 0 like a point would silently zero masses.
  double DomainSize(std::span<const Array3> points) const override;

  static double SphereVolume(double radius);            // 4/3 pi r^3
  static double SphereSurfaceArea(double radius);       // 4 pi r^2
  static double SphereCrossSectionArea(double radius);  // pi r^2, the projected (drag) area
  static double SphereRadiusFromVolume(double volume);  // inverse of SphereVolume
  // 2/5 m r^2: moment of inertia of a solid ball about any axis through its centre.
  static double SphereMomentOfInertia(double mass, double radius);
};

}  // namespace tessera
