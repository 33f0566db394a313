// Sphere3D1: the particle geometry and the measures of a ball.
#include "kernel/geometries/sphere.h"

#include <cmath>
#include <numbers>

#include "kernel/core/error.h"

namespace tessera {

double Sphere3D1::DomainSize(std::span<const Array3> points) const {
  CheckPoints(points);
  TESSERA_ERROR(
      "Sphere3D1: the domain size of a sphere depends on its radius, which is element "
      "data; use Sphere3D1::SphereVolume(radius)");
}

double Sphere3D1::SphereVolume(double radius) {
  return 4.0 / 3.0 * std::numbers::pi * radius * radius * radius;
}

double Sphere3D1::SphereSurfaceArea(double radius) {
  return 4.0 * std::numbers::pi * radius * radius;
}

double Sphere3D1::SphereCrossSectionArea(double radius) {
  return std::numbers::pi * radius * radius;
}

double Sphere3D1::SphereRadiusFromVolume(double volume) {
  TESSERA_CHECK(volume >= 0.0, "SphereRadiusFromVolume: negative volume ", volume);
  return std::cbrt(3.0 * volume / (4.0 * std::numbers::pi));
}

double Sphere3D1::SphereMomentOfInertia(double mass, double radius) {
  return 0.4 * mass * radius * radius;
}

}  // namespace tessera
