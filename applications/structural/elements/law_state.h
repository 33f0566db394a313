// SaveLawStates / LoadLawStates: an element's checkpoint state, the internal
// variables of its integration points' laws (Entity::SaveState/LoadState).
// Layout: the number of laws saved, then each law's own state in point order.
// An element that has not built its laws yet saves none; loading then keeps
// the freshly built ones.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "kernel/core/error.h"
#include "kernel/model/constitutive_law.h"

namespace tessera::structural {

inline void SaveLawStates(const std::vector<ConstitutiveLaw::Pointer>& laws,
                          std::vector<double>& out) {
  out.push_back(static_cast<double>(laws.size()));
  for (const auto& law : laws) law->SaveState(out);
}

inline void LoadLawStates(std::vector<ConstitutiveLaw::Pointer>& laws,
                          std::span<const double>& state, const std::string& who) {
  TESSERA_CHECK(!state.empty(), who, ": the checkpoint holds no state for it");
  const auto count = static_cast<std::size_t>(state[0]);
  state = state.subspan(1);
  if (count == 0) return;
  TESSERA_CHECK(count == laws.size(), who, ": the checkpoint holds ", count,
                " integration point laws where the element has ", laws.size());
  for (auto& law : laws) law->LoadState(state);
}

}  // namespace tessera::structural
