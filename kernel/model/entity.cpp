// Default behaviour of the entity API.
#include "kernel/model/entity.h"

#include "kernel/core/error.h"
#include "kernel/geometries/geometry_type.h"

namespace tessera {

Properties& Entity::GetProperties() const {
  if (!properties_) TESSERA_ERROR(Info(), " has no properties");
  return *properties_;
}

bool Entity::Is(const Flag& flag) const {
  if (&flag == &ACTIVE && !(flags_defined_ & flag.Mask())) return true;
  return (flags_ & flag.Mask()) != 0;
}

void Entity::Set(const Flag& flag, bool value) {
  flags_defined_ |= flag.Mask();
  flags_ = value ? (flags_ | flag.Mask()) : (flags_ & ~flag.Mask());
}

void Entity::CalculateLocalSystem(Matrix& lhs, Vector& rhs, const ProcessInfo& info) {
  CalculateLeftHandSide(lhs, info);
  CalculateRightHandSide(rhs, info);
}

void Entity::CalculateLeftHandSide(Matrix& lhs, const ProcessInfo&) { lhs.resize(0, 0); }
void Entity::CalculateRightHandSide(Vector& rhs, const ProcessInfo&) { rhs.resize(0); }

int Entity::Check(const ProcessInfo&) const {
  if (id_ <= 0) TESSERA_ERROR(Info(), ": ids must be positive");
  if (geometry_.TypePointer() &&
      static_cast<int>(geometry_.size()) != geometry_.Type().PointsNumber())
    TESSERA_ERROR(Info(), " has ", geometry_.size(), " nodes, its geometry ",
                  geometry_.Type().Name(), " needs ", geometry_.Type().PointsNumber());
  return 0;
}

std::string Entity::Info() const { return "entity " + std::to_string(id_); }

}  // namespace tessera
