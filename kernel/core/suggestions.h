// "Did you mean ...?": the closest known names to a mistyped one, for error
// messages about variables, entities, laws, processes and settings keys.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tessera {

// Optimal string alignment distance: Levenshtein plus adjacent transpositions,
// the commonest typing slip ("tiem_step").
std::size_t EditDistance(std::string_view a, std::string_view b);

// Up to `count` candidates closest to `name`, closest first, within an edit
// distance of max(3, |name| / 3) (farther ones would be noise).
std::vector<std::string> ClosestNames(std::string_view name,
                                      const std::vector<std::string>& candidates,
                                      std::size_t count = 3);

// "; did you mean A or B?" for the ClosestNames, or "" when none is close.
std::string DidYouMean(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace tessera
