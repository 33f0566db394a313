// VariableRegistry: every Variable and Flag by name and by dense id.
//
// Variables register themselves when constructed (at static initialisation of
// the library that defines them), so the registry is a function-local static
// that exists before the first registration.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "kernel/core/error.h"
#include "kernel/core/flags.h"
#include "kernel/core/variable.h"

namespace tessera {

class VariableRegistry {
 public:
  static VariableRegistry& Instance();

  // Returns the dense id given to the variable. Registering a second variable
  // with a name already taken is an error (two applications defining the same
  // name would silently share or shadow data otherwise).
  std::uint32_t Register(const VariableBase* variable);
  void RegisterFlag(const Flag* flag);

  const VariableBase* Find(std::string_view name) const;
  const Flag* FindFlag(std::string_view name) const;
  // Throws an Error naming the unknown variable and the closest known names.
  const VariableBase& Get(std::string_view name) const;
  template <class T>
  const Variable<T>& Get(std::string_view name) const {
    const VariableBase& v = Get(name);
    if (v.Kind() != KindOf<T>())
      TESSERA_ERROR("variable ", name, " holds ", ValueKindName(v.Kind()), ", not ",
                    ValueKindName(KindOf<T>()));
    return static_cast<const Variable<T>&>(v);
  }
  const VariableBase& ById(std::uint32_t id) const { return *by_id_.at(id); }
  std::size_t Size() const { return by_id_.size(); }
  std::vector<std::string> Names() const;
  std::vector<std::string> FlagNames() const;
  // Up to three registered names closest to `name` (edit distance), for messages.
  std::string Suggestions(std::string_view name) const;

 private:
  VariableRegistry() = default;
  std::vector<const VariableBase*> by_id_;
  std::unordered_map<std::string, const VariableBase*> by_name_;
  std::unordered_map<std::string, const Flag*> flags_;
};

}  // namespace tessera
