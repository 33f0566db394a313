// IntegrationValuesExtrapolationToNodesProcess (Kratos' name and settings):
// stores the nodal extrapolation of integration point results (see
// integration_point_extrapolation.h) in the nodes, so that the output writers
// show them as nodal results (GiD: "nodal_nonhistorical_results"; VTK:
// "nodal_data_value_variables"). Kratos computes them at the end of each step.
//
//   {"model_part_name": "Structure", "echo_level": 0, "area_average": true,
//    "average_variable": "NODAL_AREA", "list_of_variables": ["CAUCHY_STRESS_VECTOR"],
//    "extrapolate_non_historical": true}
//
// average_variable receives the sum of the weights at each node (Kratos uses
// it as the accumulator); extrapolate_non_historical false writes the current
// step of the historical variables, which the model part must store.
#pragma once

#include <string>
#include <vector>

#include "kernel/model/model.h"
#include "kernel/parameters/parameters.h"
#include "kernel/processes/process.h"

namespace tessera {

class IntegrationValuesExtrapolationToNodesProcess final : public Process {
 public:
  IntegrationValuesExtrapolationToNodesProcess(Model& model, Parameters settings);
  static Parameters GetDefaultParameters();

  void ExecuteFinalizeSolutionStep() override { Execute(); }
  void Execute() override;
  std::string Info() const override { return "IntegrationValuesExtrapolationToNodesProcess"; }

 private:
  ModelPart& model_part_;
  std::vector<const VariableBase*> variables_;
  const VariableBase* average_variable_ = nullptr;
  bool area_average_ = true;
  bool non_historical_ = true;
};

}  // namespace tessera
