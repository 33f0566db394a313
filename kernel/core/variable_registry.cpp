// Implementation of the variable and flag registry.
#include "kernel/core/variable_registry.h"

#include <algorithm>

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

std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string VariableRegistry::Suggestions(std::string_view name) const {
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& [known, v] : by_name_) scored.emplace_back(EditDistance(name, known), known);
  for (const auto& [known, f] : flags_) scored.emplace_back(EditDistance(name, known), known);
  std::sort(scored.begin(), scored.end());
  std::string out;
  for (std::size_t i = 0; i < scored.size() && i < 3; ++i) {
    if (scored[i].first > std::max<std::size_t>(3, name.size() / 3)) break;
    out += (i == 0 ? "; did you mean " : " or ") + scored[i].second;
  }
  return out.empty() ? out : out + "?";
}

}  // namespace tessera
