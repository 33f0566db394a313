// MasterSlaveConstraint: u_slave = sum_i w_i u_master_i + constant on one
// variable, as the .mdpa `Constraints LinearMasterSlaveConstraint VAR` block
// defines it.
#pragma once

#include <vector>

#include "kernel/core/variable.h"

namespace tessera {

struct MasterSlaveConstraint {
  IdType id = 0;
  std::string type = "LinearMasterSlaveConstraint";
  const VariableBase* variable = nullptr;
  IndexType slave = 0;             // node position
  std::vector<IndexType> masters;  // node positions
  std::vector<double> weights;     // one per master
  double constant = 0.0;
};

}  // namespace tessera
