// Names of the rolling resistance models (see rolling_friction.h).
#include "applications/dem/contact_laws/rolling_friction.h"

#include "kernel/core/error.h"

namespace tessera::dem {
namespace {
constexpr const char* kConstantTorqueName = "DEMRollingFrictionModelConstantTorque";
constexpr const char* kViscousTorqueName = "DEMRollingFrictionModelViscousTorque";
}  // namespace

RollingFrictionModel RollingFrictionModelFromName(const std::string& name,
                                                  const std::string& where) {
  if (name == kConstantTorqueName) return RollingFrictionModel::kConstantTorque;
  if (name == kViscousTorqueName) return RollingFrictionModel::kViscousTorque;
  TESSERA_ERROR(where, ": unknown or unsupported DEM_ROLLING_FRICTION_MODEL_NAME '", name,
                "'; this build provides ", kConstantTorqueName, " and ", kViscousTorqueName);
}

const char* RollingFrictionModelName(RollingFrictionModel model) {
  switch (model) {
    case RollingFrictionModel::kConstantTorque:
      return kConstantTorqueName;
    case RollingFrictionModel::kViscousTorque:
      return kViscousTorqueName;
    case RollingFrictionModel::kNone:
      break;
  }
  return "none";
}

}  // namespace tessera::dem
