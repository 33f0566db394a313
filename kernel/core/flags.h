// Flag: a named boolean state bit of nodes, elements and conditions
// (BOUNDARY, ACTIVE, ...). A set of flags is one 64-bit word per entity.
#pragma once

#include <cstdint>
#include <string>

namespace tessera {

using FlagWord = std::uint64_t;

class Flag {
 public:
  // Defines flag number `bit` (0..63) and registers it by name.
  Flag(std::string name, int bit);
  Flag(const Flag&) = delete;
  Flag& operator=(const Flag&) = delete;

  const std::string& Name() const { return name_; }
  FlagWord Mask() const { return mask_; }

 private:
  std::string name_;
  FlagWord mask_;
};

// The kernel's flags; applications may define more with unused bits (32..63 are
// left to applications).
extern const Flag BOUNDARY, ACTIVE, INLET, OUTLET, SLIP, INTERFACE, VISITED, SELECTED, TO_ERASE,
    RIGID, STRUCTURE, FLUID, CONTACT, MASTER, SLAVE, FREE_SURFACE, PERIODIC, ISOLATED, MARKER;

}  // namespace tessera
