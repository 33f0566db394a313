// The geometry types by their Kratos .mdpa names (Triangle2D3, Hexahedra3D8,
// ...): one static, immutable instance per name, shared by every element.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kernel/geometries/geometry_type.h"

namespace tessera {

// Throws tessera::Error naming the unknown name and listing the known ones.
const GeometryType& GetGeometryType(std::string_view name);
// nullptr if the name is unknown.
const GeometryType* FindGeometryType(std::string_view name);
// The known names, in the order of the table (points, lines, surfaces, solids, sphere).
std::vector<std::string> GeometryTypeNames();

}  // namespace tessera
