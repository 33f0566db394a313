// Names of the rolling resistance models (see rolling_friction.h).
#include "applications/dem/contact_laws/rolling_friction.h"

#include "kernel/core/error.h"

namespace tessera::dem {

RollingFrictionModel RollingFrictionModelFromName(const std::string& name,
                                                  const std::string& where) {
  const RollingFrictionModel model = RollingFrictionModels::IdOfName(name);
  if (model == RollingFrictionModel::kNone)
    TESSERA_ERROR(where, ": unknown or unsupported DEM_ROLLING_FRICTION_MODEL_NAME '", name,
                  "'; this build provides ", RollingFrictionModels::Names());
  return model;
}

const char* RollingFrictionModelName(RollingFrictionModel model) {
  if (model == RollingFrictionModel::kNone) return "none";
  return RollingFrictionModels::Visit(
      model, []<class M>(std::type_identity<M>) -> const char* { return M::kName; });
}

}  // namespace tessera::dem
