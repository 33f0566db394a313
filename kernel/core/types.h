// Index, vector and matrix types shared by the whole kernel.
#pragma once

#include <Eigen/Core>
#include <cstdint>

#include "kernel/core/array3.h"

namespace tessera {

using IndexType = std::uint32_t;  // position of an entity in its root container
using IdType = std::int64_t;      // user-visible id as written in .mdpa files
using Vector = Eigen::VectorXd;
using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

}  // namespace tessera
