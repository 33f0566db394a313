// Text for the XML files the writers produce (.vtu/.pvd, .xdmf): numbers that
// read back as the same double, and escaped attribute values.
#pragma once

#include <charconv>
#include <string>

namespace tessera::xml {

// Shortest text that reads back as the same double (the times in .pvd and .xdmf).
inline std::string ExactDouble(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

// `text` with &, <, > and " escaped, for an attribute value.
inline std::string Escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace tessera::xml
