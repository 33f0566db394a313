// The table of geometry type instances by .mdpa name.
#include "kernel/geometries/geometry_types.h"

#include <array>

#include "kernel/core/error.h"
#include "kernel/geometries/hexahedron8.h"
#include "kernel/geometries/line2.h"
#include "kernel/geometries/point.h"
#include "kernel/geometries/quadrilateral4.h"
#include "kernel/geometries/sphere.h"
#include "kernel/geometries/tetrahedron4.h"
#include "kernel/geometries/triangle3.h"

namespace tessera {

namespace {

// Function-local statics: built on first use (thread-safe, and free of the
// static initialisation order problem for callers in other translation units),
// living until exit, so the references handed out stay valid.
const std::array<const GeometryType*, 11>& Table() {
  static const Point1 point2(2), point3(3);
  static const Line2 line2(2), line3(3);
  static const Triangle3 triangle2(2), triangle3(3);
  static const Quadrilateral4 quadrilateral2(2), quadrilateral3(3);
  static const Tetrahedron4 tetrahedron;
  static const Hexahedron8 hexahedron;
  static const Sphere3D1 sphere;
  static const std::array<const GeometryType*, 11> table{
      &point2,         &point3,         &line2,       &line3,      &triangle2, &triangle3,
      &quadrilateral2, &quadrilateral3, &tetrahedron, &hexahedron, &sphere};
  return table;
}

}  // namespace

const GeometryType* FindGeometryType(std::string_view name) {
  for (const GeometryType* type : Table())
    if (type->Name() == name) return type;
  return nullptr;
}

const GeometryType& GetGeometryType(std::string_view name) {
  if (const GeometryType* type = FindGeometryType(name)) return *type;
  std::string known;
  for (const GeometryType* type : Table()) {
    if (!known.empty()) known += ", ";
    known += type->Name();
  }
  TESSERA_ERROR("Unknown geometry type '", name, "'; known types are: ", known);
}

std::vector<std::string> GeometryTypeNames() {
  std::vector<std::string> names;
  for (const GeometryType* type : Table()) names.emplace_back(type->Name());
  return names;
}

}  // namespace tessera
