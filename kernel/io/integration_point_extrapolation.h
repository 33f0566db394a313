// Nodal values of integration point results (stresses, strains): each element
// extrapolates its integration point values to its nodes, and every node takes
// the weighted average over the elements around it. Used by the VTK writer
// ("gauss_point_variables_extrapolated_to_nodes") and by
// IntegrationValuesExtrapolationToNodesProcess (Kratos' names), whose nodal
// values GiD and VTK then write as ordinary nodal results.
//
// Extrapolation, per element: with N(p, a) = N_a(xi_p) the shape functions at
// the m integration points and g_p the values there, the nodal values are
// v = N^+ g, N^+ the Moore–Penrose pseudo-inverse. For m = n (Quadrilateral4
// and Hexahedron8 with 2x2(x2) Gauss points) that is N^-1: a field in the
// element's interpolation space (bilinear/trilinear, so any linear field) is
// recovered exactly at the nodes. For one point it is the constant value; for
// m > n the least-squares fit. The rule is identified by its number of points
// (the lowest order of the geometry with that many points, the default first),
// since entities report values, not the rule that produced them.
//
// Averaging: v_node = sum_e w_e v_e,node / sum_e w_e, with w_e the element's
// reference length/area/volume (area_average) or 1. A constant field is thus
// reproduced exactly at every node, a linear one on meshes of elements that
// recover it element-wise.
#pragma once

#include <string_view>
#include <vector>

#include "kernel/core/value.h"
#include "kernel/model/model_part.h"

namespace tessera {

struct NodalExtrapolation {
  // Indexed by the node's row in the nodal database; nodes of no element hold
  // the variable's zero (of the size the others have) and weight 0.
  std::vector<Value> values;
  std::vector<double> weights;
};

// Extrapolates `variable` (double, Array3, Vector or Matrix) from the
// integration points of the model part's elements to their nodes. Errors begin
// with `setting` (the output or process setting that asked for it).
NodalExtrapolation ExtrapolateIntegrationValuesToNodes(ModelPart& model_part,
                                                       const VariableBase& variable,
                                                       bool area_average, std::string_view setting);

}  // namespace tessera
