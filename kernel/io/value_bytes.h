// ByteSink / ByteSource: values, strings and data value containers as a flat
// byte string, for checkpoint state that is not a column of one type (a
// ProcessInfo, an entity's data, a Vector-valued nodal column). Numbers are
// copied as their bytes, so what is read back is bitwise what was written;
// variables travel by name and are looked up in the registry on reading.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "kernel/core/data_value_container.h"
#include "kernel/core/error.h"
#include "kernel/core/value.h"

namespace tessera {

class ByteSink {
 public:
  template <class T>
  void Put(const T& item) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const std::uint8_t*>(&item);
    bytes_.insert(bytes_.end(), p, p + sizeof(T));
  }
  void PutString(const std::string& text);
  void PutValue(const Value& value);
  void PutContainer(const DataValueContainer& data);
  std::vector<std::uint8_t>& Bytes() { return bytes_; }

 private:
  std::vector<std::uint8_t> bytes_;
};

class ByteSource {
 public:
  // `what` names the data in errors (the checkpoint dataset).
  ByteSource(const std::vector<std::uint8_t>& bytes, std::string what)
      : bytes_(bytes), what_(std::move(what)) {}
  template <class T>
  T Get() {
    static_assert(std::is_trivially_copyable_v<T>);
    Need(sizeof(T));
    T item;
    std::memcpy(&item, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return item;
  }
  std::string GetString();
  Value GetValue();
  // Replaces `data` by what was written (variables by name; an unknown name is
  // an error naming it).
  void GetContainer(DataValueContainer& data);
  bool AtEnd() const { return pos_ == bytes_.size(); }
  void ExpectEnd() const;

 private:
  void Need(std::size_t n) const;
  const std::vector<std::uint8_t>& bytes_;
  std::string what_;
  std::size_t pos_ = 0;
};

}  // namespace tessera
