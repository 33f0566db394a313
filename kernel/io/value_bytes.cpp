// ByteSink / ByteSource: the tagged encoding of values and containers.
#include "kernel/io/value_bytes.h"

#include "kernel/core/variable_registry.h"

namespace tessera {

void ByteSink::PutString(const std::string& text) {
  Put<std::uint64_t>(text.size());
  bytes_.insert(bytes_.end(), text.begin(), text.end());
}

void ByteSink::PutValue(const Value& value) {
  Put<std::uint8_t>(static_cast<std::uint8_t>(value.index()));
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          PutString(v);
        } else if constexpr (std::is_same_v<T, Vector>) {
          Put<std::uint64_t>(v.size());
          for (Eigen::Index i = 0; i < v.size(); ++i) Put<double>(v[i]);
        } else if constexpr (std::is_same_v<T, Matrix>) {
          Put<std::uint64_t>(v.rows());
          Put<std::uint64_t>(v.cols());
          for (Eigen::Index i = 0; i < v.rows(); ++i)
            for (Eigen::Index j = 0; j < v.cols(); ++j) Put<double>(v(i, j));
        } else {
          Put<T>(v);
        }
      },
      value);
}

void ByteSink::PutContainer(const DataValueContainer& data) {
  Put<std::uint64_t>(data.Entries().size());
  const VariableRegistry& registry = VariableRegistry::Instance();
  for (const auto& [id, value] : data.Entries()) {
    PutString(registry.ById(id).Name());
    PutValue(value);
  }
}

void ByteSource::Need(std::size_t n) const {
  if (pos_ + n > bytes_.size())
    TESSERA_ERROR("checkpoint: ", what_, " ends early (", bytes_.size(),
                  " bytes; damaged or written by another layout)");
}

void ByteSource::ExpectEnd() const {
  if (!AtEnd())
    TESSERA_ERROR("checkpoint: ", what_, " has ", bytes_.size() - pos_,
                  " bytes more than its reader expects (written by another layout?)");
}

std::string ByteSource::GetString() {
  const auto n = Get<std::uint64_t>();
  Need(n);
  std::string text(reinterpret_cast<const char*>(bytes_.data() + pos_), n);
  pos_ += n;
  return text;
}

Value ByteSource::GetValue() {
  const auto kind = static_cast<ValueKind>(Get<std::uint8_t>());
  switch (kind) {
    case ValueKind::Double:
      return Get<double>();
    case ValueKind::Int:
      return Get<int>();
    case ValueKind::Bool:
      return Get<bool>();
    case ValueKind::Array3:
      return Get<Array3>();
    case ValueKind::Quaternion:
      return Get<Quaternion>();
    case ValueKind::String:
      return GetString();
    case ValueKind::Vector: {
      Vector v(static_cast<Eigen::Index>(Get<std::uint64_t>()));
      for (Eigen::Index i = 0; i < v.size(); ++i) v[i] = Get<double>();
      return v;
    }
    case ValueKind::Matrix: {
      const auto rows = static_cast<Eigen::Index>(Get<std::uint64_t>());
      const auto cols = static_cast<Eigen::Index>(Get<std::uint64_t>());
      Matrix m(rows, cols);
      for (Eigen::Index i = 0; i < rows; ++i)
        for (Eigen::Index j = 0; j < cols; ++j) m(i, j) = Get<double>();
      return m;
    }
  }
  TESSERA_ERROR("checkpoint: ", what_, " holds an unknown value kind ", static_cast<int>(kind));
}

void ByteSource::GetContainer(DataValueContainer& data) {
  data.Clear();
  const auto n = Get<std::uint64_t>();
  const VariableRegistry& registry = VariableRegistry::Instance();
  for (std::uint64_t k = 0; k < n; ++k) {
    const std::string name = GetString();
    const VariableBase* variable = registry.Find(name);
    if (!variable)
      TESSERA_ERROR("checkpoint: ", what_, " holds variable ", name,
                    ", which is not registered (import the application that defines it)");
    data.SetValue(*variable, GetValue());
  }
}

}  // namespace tessera
