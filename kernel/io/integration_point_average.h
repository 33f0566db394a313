// The average over an element's integration points of one result
// (CalculateOnIntegrationPoints), which the VTK and GiD writers output as the
// element's value.
#pragma once

#include <string_view>

#include "kernel/core/value.h"
#include "kernel/model/entity.h"

namespace tessera {

// The variable's zero when the entity has no integration point values. Errors
// (a kind without integration point values, values of different sizes) begin
// with `setting`, the output setting that asked for the variable.
Value IntegrationPointAverage(Entity& entity, const VariableBase& variable, const ProcessInfo& info,
                              std::string_view setting);

}  // namespace tessera
