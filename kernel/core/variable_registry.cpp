// Implementation of the variable and flag registry.
#include "kernel/core/variable_registry.h"

#include <algorithm>

#include "kernel/core/suggestions.h"

namespace tessera {

const char* ValueKindName(ValueKind kind) {
  switch (kind) {
    case ValueKind::Double:
      return "double";
    case ValueKind::Int:
      return "int";
    case ValueKind::Bool:
      return "bool";
    case ValueKind::Array3:
      return "3-vector";
    case ValueKind::Vector:
      return "vector";
    case ValueKind::Matrix:
      return "matrix";
    case ValueKind::String:
      return "string";
    case ValueKind::Quaternion:
      return "quaternion";
  }
  return "?";
}

VariableBase::VariableBase(std::string name, ValueKind kind, const VariableBase* source,
                           int component)
    : name_(std::move(name)), kind_(kind), source_(source), component_(component) {
  id_ = VariableRegistry::Instance().Register(this);
}

Flag::Flag(std::string name, int bit) : name_(std::move(name)), mask_(FlagWord{1} << bit) {
  VariableRegistry::Instance().RegisterFlag(this);
}

VariableRegistry& VariableRegistry::Instance() {
  static VariableRegistry registry;
  return registry;
}

std::uint32_t VariableRegistry::Register(const VariableBase* variable) {
  if (by_name_.count(variable->Name()) || flags_.count(variable->Name()))
    TESSERA_ERROR("variable ", variable->Name(),
                  " is defined twice (two libraries define a variable of that name)");
  by_name_.emplace(variable->Name(), variable);
  by_id_.push_back(variable);
  return static_cast<std::uint32_t>(by_id_.size() - 1);
}

void VariableRegistry::RegisterFlag(const Flag* flag) {
  if (by_name_.count(flag->Name()) || flags_.count(flag->Name()))
    TESSERA_ERROR("flag ", flag->Name(), " is defined twice");
  flags_.emplace(flag->Name(), flag);
}

const VariableBase* VariableRegistry::Find(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : it->second;
}

const Flag* VariableRegistry::FindFlag(std::string_view name) const {
  auto it = flags_.find(std::string(name));
  return it == flags_.end() ? nullptr : it->second;
}

const VariableBase& VariableRegistry::Get(std::string_view name) const {
  if (const VariableBase* v = Find(name)) return *v;
  TESSERA_ERROR("unknown variable '", name, "'", Suggestions(name),
                " (variables of an application are known once it is imported)");
}

std::vector<std::string> VariableRegistry::Names() const {
  std::vector<std::string> names;
  names.reserve(by_id_.size());
  for (const VariableBase* v : by_id_) names.push_back(v->Name());
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> VariableRegistry::FlagNames() const {
  std::vector<std::string> names;
  for (const auto& [name, flag] : flags_) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

std::string VariableRegistry::Suggestions(std::string_view name) const {
  std::vector<std::string> known = Names();
  const std::vector<std::string> flags = FlagNames();
  known.insert(known.end(), flags.begin(), flags.end());
  return DidYouMean(name, known);
}

}  // namespace tessera
