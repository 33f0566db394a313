// Element and Condition: the two kinds of finite entity a model part holds.
//
// Each registered name maps to a prototype; Create() makes a new entity of the
// prototype's class on the given nodes. A subclass overrides Create() (and the
// calculation API of Entity) — TESSERA_ENTITY_CREATE writes the Create for it.
#pragma once

#include "kernel/model/entity.h"

namespace tessera {

class Element : public Entity {
 public:
  using Entity::Entity;
  using Pointer = std::unique_ptr<Element>;

  // A new element of the same class and geometry type as this prototype.
  virtual Pointer Create(IdType id, Geometry geometry, Properties::Pointer properties) const {
    return std::make_unique<Element>(id, std::move(geometry), std::move(properties));
  }
  std::string Info() const override { return "element " + std::to_string(Id()); }
};

class Condition : public Entity {
 public:
  using Entity::Entity;
  using Pointer = std::unique_ptr<Condition>;

  virtual Pointer Create(IdType id, Geometry geometry, Properties::Pointer properties) const {
    return std::make_unique<Condition>(id, std::move(geometry), std::move(properties));
  }
  std::string Info() const override { return "condition " + std::to_string(Id()); }
};

}  // namespace tessera

// Inside a class derived from Element (or Condition): the Create() that makes
// another object of this class.
#define TESSERA_ELEMENT_CREATE(Class, Base)                                         \
  Base::Pointer Create(::tessera::IdType id, ::tessera::Geometry geometry,          \
                       ::tessera::Properties::Pointer properties) const override {  \
    return std::make_unique<Class>(id, std::move(geometry), std::move(properties)); \
  }
