// How a contact list keeps its histories when its pairs change: a search's
// new list matched against the old one (both sorted by pair) and the histories
// carried over column by column, in place where they can be; and a list
// renumbered by a reordering of the rows (the spatial sort). Internal to the
// strategy (contact_lists.cpp, spatial_sort.cpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <tuple>
#include <type_traits>
#include <vector>

namespace tessera::dem {

// Marks an entry of a new contact list that has no entry in the old one.
constexpr std::uint32_t kFreshContact = std::numeric_limits<std::uint32_t>::max();

// Whether the sources of the kept entries (not kFreshContact) increase with
// c, as those of a new contact list matched to the old one (both sorted by
// pair).
inline bool SourcesIncrease(const std::vector<std::uint32_t>& source) {
  std::uint32_t next = 0;  // the least source the next kept entry may have
  for (const std::uint32_t s : source) {
    if (s == kFreshContact) continue;
    if (s < next) return false;
    next = s + 1;
  }
  return true;
}

// column[c] <- column[source[c]] for each of `columns`, or a
// value-initialised (zero) entry where source[c] is kFreshContact.
//
// With `in_place` (SourcesIncrease(source)) the columns are rewritten in
// place, without a second copy: with the fresh pages of new columns, page
// faults took up to a quarter of the mixer's search time. Entry c reads
// position s = source[c] and writes position c, in two passes over the
// columns together:
// 1. ascending, the entries with s > c: what this pass wrote before lies
//    below c < s;
// 2. descending, the entries with s < c: pass 1 did not write at s (the
//    entry there would have a source > s, yet below source[c] = s), and this
//    pass wrote only above c; and the fresh entries, zeroed on the way.
// An entry a pass overwrites has been read already: its reader has a source
// above its position (then in pass 1, before it) or below (pass 2, before
// it). Entries with s = c stay where they are.
template <class... T>
void GatherColumns(const std::vector<std::uint32_t>& source, bool in_place,
                   std::vector<T>&... columns) {
  const std::size_t m = source.size();
  if (!in_place) {  // any permutation: through a second column each
    auto gather = [&](auto& column) {
      std::remove_reference_t<decltype(column)> next(m);
      for (std::size_t c = 0; c < m; ++c)
        if (source[c] != kFreshContact) next[c] = column[source[c]];
      column.swap(next);
    };
    (gather(columns), ...);
    return;
  }
  (columns.resize(std::max(columns.size(), m)), ...);
  const std::uint32_t* const from = source.data();
  for (std::size_t c = 0; c < m; ++c)
    if (from[c] != kFreshContact && from[c] > c) ((columns[c] = columns[from[c]]), ...);
  for (std::size_t c = m; c-- > 0;) {
    if (from[c] < c)  // (kFreshContact is never < c)
      ((columns[c] = columns[from[c]]), ...);
    else if (from[c] == kFreshContact)
      ((columns[c] = T{}), ...);
  }
  (columns.resize(m), ...);
}

// The histories (tangential spring, previous stiffness and normal force,
// sliding and active state, and the side table of the laws that keep more,
// where the list keeps one) of a list whose pairs were just replaced: entry c
// takes those of old entry source[c], or starts fresh (so that a parting
// contact is reset). The `extra` columns (a wall contact's last point, the
// pairs themselves) follow in the same pass. A pair list keeps each history as
// one record (PairHistory), a wall list as columns. The side table's rows
// (ExtraHistoryRow) are empty where no law of the build keeps more than five
// doubles: then it is not even looked at.
template <class Contacts, class... Extra>
void CarryHistories(Contacts& list, const std::vector<std::uint32_t>& source,
                    std::vector<Extra>&... extra) {
  const bool in_place = SourcesIncrease(source);
  auto gather = [&](auto&... side_table) {
    if constexpr (requires { list.history; })
      GatherColumns(source, in_place, list.history, list.state, side_table..., extra...);
    else
      GatherColumns(source, in_place, list.tangential_force, list.tangential_stiffness,
                    list.normal_elastic_force, list.sliding, list.active, side_table..., extra...);
  };
  using Row = typename decltype(list.extra_history)::value_type;
  constexpr std::size_t kWidth = std::tuple_size_v<Row>;
  if constexpr (kWidth > 0) {
    if (list.keeps_extra_history) {
      gather(list.extra_history);
      return;
    }
  }
  gather();
}

// source[c]: the entry of the old sorted list (old_a, old_b) with the pair
// (a[c], b[c]) of the new sorted list, or kFreshContact (a merge of the two).
inline void MatchSortedPairs(const std::vector<std::uint32_t>& old_a,
                             const std::vector<std::uint32_t>& old_b,
                             const std::vector<std::uint32_t>& a,
                             const std::vector<std::uint32_t>& b,
                             std::vector<std::uint32_t>& source) {
  const std::size_t m = a.size(), old_count = old_a.size();
  source.resize(m);
  // A pair as one 64-bit key, first entry high: the lists' order is the keys'
  // order, and one comparison replaces two.
  auto key = [](std::uint32_t first, std::uint32_t second) {
    return std::uint64_t{first} << 32 | second;
  };
  // Past the old list's end: above every key.
  constexpr std::uint64_t kEnd = ~std::uint64_t{0};
  std::size_t old = 0;
  std::uint64_t old_key = old_count > 0 ? key(old_a[0], old_b[0]) : kEnd;
  for (std::size_t c = 0; c < m; ++c) {
    const std::uint64_t new_key = key(a[c], b[c]);
    while (old_key < new_key) {
      ++old;
      old_key = old < old_count ? key(old_a[old], old_b[old]) : kEnd;
    }
    source[c] = old_key == new_key ? static_cast<std::uint32_t>(old) : kFreshContact;
  }
}

// Contacts renumbered by a reordering of the rows: contact c gets the rows
// (a[c], b[c]) and the list is re-sorted by them, carrying the history columns
// and the `extra` ones (what the merge of the next search reads); a and b
// come back sorted, and `order` holds the old position of each contact.
template <class Contacts, class... Extra>
void ResortContacts(Contacts& list, std::vector<std::uint32_t>& a, std::vector<std::uint32_t>& b,
                    std::vector<std::uint32_t>& order, std::vector<Extra>&... extra) {
  const std::size_t m = a.size();
  order.resize(m);
  for (std::size_t c = 0; c < m; ++c) order[c] = static_cast<std::uint32_t>(c);
  std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
    return a[x] < a[y] || (a[x] == a[y] && b[x] < b[y]);
  });
  CarryHistories(list, order, a, b, extra...);
}

}  // namespace tessera::dem
