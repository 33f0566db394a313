// tessera::Error: the one exception type of the kernel.
//
// Messages are for users: they name the file, line, key or variable at fault and
// what was expected. TESSERA_ERROR(...) streams its arguments into the message.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace tessera {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

namespace detail {
template <class... Args>
std::string Concat(Args&&... args) {
  std::ostringstream os;
  (os << ... << std::forward<Args>(args));
  return os.str();
}
}  // namespace detail

}  // namespace tessera

#define TESSERA_ERROR(...) throw ::tessera::Error(::tessera::detail::Concat(__VA_ARGS__))
#define TESSERA_CHECK(condition, ...)             \
  do {                                            \
    if (!(condition)) TESSERA_ERROR(__VA_ARGS__); \
  } while (false)
