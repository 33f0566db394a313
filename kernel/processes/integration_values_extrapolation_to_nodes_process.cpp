// Nodal values of integration point results stored in the nodes (Kratos'
// IntegrationValuesExtrapolationToNodesProcess).
#include "kernel/processes/integration_values_extrapolation_to_nodes_process.h"

#include "kernel/core/error.h"
#include "kernel/core/variable_registry.h"
#include "kernel/io/integration_point_extrapolation.h"

namespace tessera {
namespace {

constexpr const char* kName = "IntegrationValuesExtrapolationToNodesProcess";

const VariableBase& Resolve(const std::string& name, const char* key) {
  try {
    return VariableRegistry::Instance().Get(name);
  } catch (const Error& e) {
    TESSERA_ERROR(kName, " setting '", key, "': ", e.what());
  }
}

}  // namespace

Parameters IntegrationValuesExtrapolationToNodesProcess::GetDefaultParameters() {
  return Parameters(R"({
    "help": "Extrapolates integration point values to the nodes, area-weighted average",
    "model_part_name": "",
    "echo_level": 0,
    "area_average": true,
    "average_variable": "NODAL_AREA",
    "list_of_variables": [],
    "extrapolate_non_historical": true
  })");
}

IntegrationValuesExtrapolationToNodesProcess::IntegrationValuesExtrapolationToNodesProcess(
    Model& model, Parameters settings)
    : model_part_([&]() -> ModelPart& {
        settings.ValidateAndAssignDefaults(GetDefaultParameters());
        const std::string name = settings.GetString("model_part_name");
        if (name.empty())
          TESSERA_ERROR(kName,
                        ": setting 'model_part_name' is empty; name the model part whose "
                        "elements give the integration point values");
        return model.GetModelPart(name);
      }()) {
  area_average_ = settings.GetBool("area_average");
  non_historical_ = settings.GetBool("extrapolate_non_historical");
  for (const std::string& name : settings.GetStringArray("list_of_variables")) {
    const VariableBase& variable = Resolve(name, "list_of_variables");
    if (!non_historical_ && !model_part_.HasNodalSolutionStepVariable(variable))
      TESSERA_ERROR(kName, ": 'extrapolate_non_historical' is false but ", name,
                    " is not a solution-step variable of ", model_part_.FullName(),
                    " (add it with AddNodalSolutionStepVariable, or extrapolate non-historical)");
    variables_.push_back(&variable);
  }
  const std::string average = settings.GetString("average_variable");
  if (!average.empty()) {
    average_variable_ = &Resolve(average, "average_variable");
    if (average_variable_->Kind() != ValueKind::Double || average_variable_->IsComponent())
      TESSERA_ERROR(kName, " setting 'average_variable': ", average,
                    " is not a double variable (Kratos uses NODAL_AREA)");
  }
}

void IntegrationValuesExtrapolationToNodesProcess::Execute() {
  NodalDatabase& db = model_part_.Nodal();
  const std::string setting = std::string(kName) + " (" + model_part_.FullName() + ")";
  std::vector<double> weights;
  for (const VariableBase* variable : variables_) {
    NodalExtrapolation nodal =
        ExtrapolateIntegrationValuesToNodes(model_part_, *variable, area_average_, setting);
    for (IndexType node : model_part_.NodeIndices()) {
      if (non_historical_)
        db.SetNonHistorical(*variable, node, nodal.values[node]);
      else
        db.SetHistorical(*variable, node, nodal.values[node]);
    }
    weights = std::move(nodal.weights);
  }
  if (average_variable_ != nullptr && !weights.empty())
    for (IndexType node : model_part_.NodeIndices())
      db.SetNonHistorical(*average_variable_, node, weights[node]);
}

}  // namespace tessera
