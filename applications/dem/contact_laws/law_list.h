// A list of contact law types (contact_laws.h names the laws of this build):
// the name table, the dispatch from a pair's ContactLaw id to its law type
// and the loops over every law are written once, over the list. A law's id is
// its position in the list, so a law is added by its header and one entry in
// the list, and nothing else branches on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "kernel/core/error.h"

namespace tessera::dem {

// A pair's contact law: its position in the list of laws (ContactLaws).
enum class ContactLaw : std::uint8_t {};

// The error of an id outside a list of `laws` laws: out of line and cold, so
// that the contact loops that dispatch carry a call rather than its message.
[[noreturn, gnu::cold, gnu::noinline]] inline void ThrowUnknownContactLaw(ContactLaw law,
                                                                          std::size_t laws) {
  TESSERA_ERROR("contact law id ", static_cast<int>(law), " is none of the ", laws,
                " laws of this build");
}

template <class... Laws>
struct LawList {
  static constexpr std::size_t size = sizeof...(Laws);
  static_assert(size < 256, "ContactLaw ids are one byte");

  // The id of law L in this list (a compile error where L is not in it).
  template <class L>
  static constexpr ContactLaw Id() {
    constexpr bool found[] = {std::is_same_v<L, Laws>...};
    std::size_t index = 0;
    while (index < size && !found[index]) ++index;
    if (index == size) throw "the law is not in the list";  // not a constant: compile error
    return static_cast<ContactLaw>(index);
  }

  // The id of the law named `name` (L::kName); -1 where no law has that name.
  static constexpr int IndexOfName(std::string_view name) {
    int index = -1, k = 0;
    ((index = index < 0 && name == Laws::kName ? k : index, ++k), ...);
    return index;
  }

  // Whether no two laws share a name (IndexOfName finds each law itself).
  static constexpr bool NamesAreUnique() {
    int k = 0;
    return ((IndexOfName(Laws::kName) == k++) && ...);
  }

  // f(std::type_identity<L>{}) for every law L, in list order.
  template <class F>
  static constexpr void ForEach(F&& f) {
    (f(std::type_identity<Laws>{}), ...);
  }

  // f(std::type_identity<L>{}) for the law with id `law`; an id outside the
  // list (a corrupt pair table) is an error naming it, never another law.
  template <class F>
  [[gnu::always_inline]] static decltype(auto) Visit(ContactLaw law, F&& f) {
    return VisitFrom<0, Laws...>(law, f);
  }

  // The list with `More` appended (a test's or a plugin's own laws).
  template <class... More>
  using With = LawList<Laws..., More...>;

 private:
  template <std::size_t kIndex, class First, class... Rest, class F>
  [[gnu::always_inline]] static decltype(auto) VisitFrom(ContactLaw law, F& f) {
    if constexpr (sizeof...(Rest) == 0) {
      if (static_cast<std::size_t>(law) != kIndex) ThrowUnknownContactLaw(law, size);
      return f(std::type_identity<First>{});
    } else {
      if (static_cast<std::size_t>(law) == kIndex) return f(std::type_identity<First>{});
      return VisitFrom<kIndex + 1, Rest...>(law, f);
    }
  }
};

}  // namespace tessera::dem
