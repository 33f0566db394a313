// tessera::Parameters on nlohmann::ordered_json (so documents keep their key order
// when written back). Everything here exists to give the user an error that names
// the file and key at fault; the JSON work itself is nlohmann's.
#include "kernel/parameters/parameters.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "kernel/core/error.h"
#include "kernel/core/suggestions.h"

namespace tessera {

using Json = nlohmann::ordered_json;

struct Parameters::Document {
  Json root;
  std::string origin;
  // Where `root` was in the document it was cloned from; only shown in messages,
  // so that a cloned solver or process setting still reports its original path.
  std::vector<PathStep> base;
};

namespace {

const char* TypeName(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "bool";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "int";
    case Json::value_t::number_float:
      return "double";
    case Json::value_t::string:
      return "string";
    case Json::value_t::array:
      return "array";
    case Json::value_t::object:
      return "object";
    default:
      return "binary value";  // never produced by parsing text
  }
}

// "a string (\"0.1\")", "an int (3)", "null": the actual value, for messages.
std::string Describe(const Json& value) {
  if (value.is_null()) return "null";
  const std::string type = TypeName(value);
  const bool vowel = type.front() == 'a' || type.front() == 'i' || type.front() == 'o';
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  constexpr std::size_t kMaxShown = 60;
  if (text.size() > kMaxShown) text = text.substr(0, kMaxShown) + "...";
  return (vowel ? "an " : "a ") + type + " (" + text + ")";
}

// The type classes of validation: int and double are one class, a number.
enum class Category { kNull, kBool, kNumber, kString, kArray, kObject, kOther };

Category CategoryOf(const Json& value) {
  if (value.is_null()) return Category::kNull;
  if (value.is_boolean()) return Category::kBool;
  if (value.is_number()) return Category::kNumber;
  if (value.is_string()) return Category::kString;
  if (value.is_array()) return Category::kArray;
  if (value.is_object()) return Category::kObject;
  return Category::kOther;
}

const char* CategoryName(Category category) {
  switch (category) {
    case Category::kNull:
      return "null";
    case Category::kBool:
      return "a bool";
    case Category::kNumber:
      return "a number";
    case Category::kString:
      return "a string";
    case Category::kArray:
      return "an array";
    case Category::kObject:
      return "an object";
    default:
      return "a binary value";
  }
}

std::vector<std::string> KeysOf(const Json& object) {
  std::vector<std::string> keys;
  keys.reserve(object.size());
  for (auto it = object.begin(); it != object.end(); ++it) keys.push_back(it.key());
  return keys;
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

// "; did you mean 'time_stepping'?" for the closest candidate within distance 2,
// or "" (a suggestion for a one-letter key would be noise, hence distance < size).
std::string Suggestion(const std::string& key, const std::vector<std::string>& candidates) {
  constexpr std::size_t kMaxDistance = 2;
  const std::string* best = nullptr;
  std::size_t best_distance = kMaxDistance + 1;
  for (const std::string& candidate : candidates) {
    const std::size_t distance = EditDistance(key, candidate);
    if (distance < best_distance && distance < key.size()) {
      best = &candidate;
      best_distance = distance;
    }
  }
  return best ? "; did you mean '" + *best + "'?" : "";
}

// nlohmann reports the byte offset of the character it stopped at; turn it into a
// line, a column and the offending line with a caret under that column.
[[noreturn]] void ThrowParseError(const std::string& text, const std::string& origin,
                                  const nlohmann::json::parse_error& error) {
  // What nlohmann says after its "[json.exception...] parse error at ...: " prefix.
  std::string what = error.what();
  const std::size_t prefix = what.find(": ", what.find("parse error"));
  if (prefix != std::string::npos) what = what.substr(prefix + 2);

  // parse_error::byte is 1-based and names the last character read, which for a
  // string is its closing quote: point at the opening one instead.
  std::size_t offset = std::min<std::size_t>(error.byte == 0 ? 0 : error.byte - 1, text.size());
  if (what.find("unexpected string literal") != std::string::npos && offset < text.size() &&
      text[offset] == '"' && offset > 0) {
    const std::size_t opening = text.rfind('"', offset - 1);
    if (opening != std::string::npos) offset = opening;
  }
  const std::size_t line =
      1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + offset, '\n'));
  const std::size_t previous_newline =
      offset == 0 ? std::string::npos : text.rfind('\n', offset - 1);
  const std::size_t line_start = previous_newline == std::string::npos ? 0 : previous_newline + 1;
  const std::size_t column = offset - line_start + 1;

  std::ostringstream message;
  message << origin << ": line " << line << ", column " << column << ": invalid JSON: " << what;

  std::size_t line_end = text.find('\n', line_start);
  if (line_end == std::string::npos) line_end = text.size();
  std::string source = text.substr(line_start, line_end - line_start);
  if (!source.empty() && source.back() == '\r') source.pop_back();
  // Minified JSON is one long line: show a window around the column.
  constexpr std::size_t kBefore = 60, kWidth = 100;
  std::size_t caret = column - 1;
  std::string lead;
  if (caret > kBefore) {
    source = source.substr(caret - kBefore);
    caret = kBefore;
    lead = "...";
  }
  if (source.size() > kWidth) source = source.substr(0, kWidth) + "...";
  std::string marker(lead.size(), ' ');
  for (std::size_t i = 0; i < caret; ++i)
    marker += (i < source.size() && source[i] == '\t') ? '\t' : ' ';
  message << "\n    " << lead << source << "\n    " << marker << '^';

  // The two commonest hand-editing slips, which nlohmann reports one token late.
  const bool end_of_input = what.find("unexpected end of input") != std::string::npos;
  if (!end_of_input && (what.find("; expected '}'") != std::string::npos ||
                        what.find("; expected ']'") != std::string::npos)) {
    message << "\n(is a comma missing before it?)";
  } else if (what.find("unexpected '}'; expected string literal") != std::string::npos ||
             what.find("unexpected ']'; expected '[', '{', or a literal") != std::string::npos) {
    message << "\n(is there a trailing comma before it?)";
  }
  // Parameters("ProjectParameters.json") is an easy slip for FromFile.
  if (origin == "<string>" && text.find_first_of("{[") == std::string::npos && text.size() > 5 &&
      text.compare(text.size() - 5, 5, ".json") == 0) {
    message << "\n(this looks like a file name: use Parameters::FromFile(\"" << text << "\"))";
  }
  throw Error(message.str());
}

bool Equivalent(const Json& a, const Json& b) {
  if (a.is_object() && b.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it) {
      const auto other = b.find(it.key());
      if (other == b.end() || !Equivalent(it.value(), *other)) return false;
    }
    return true;
  }
  if (a.is_array() && b.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!Equivalent(a[i], b[i])) return false;
    }
    return true;
  }
  if (a.is_structured() || b.is_structured()) return false;
  return a == b;  // nlohmann compares an int and a double by value
}

bool SameKeysAndTypes(const Json& a, const Json& b) {
  if (a.is_object() && b.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it) {
      const auto other = b.find(it.key());
      if (other == b.end() || !SameKeysAndTypes(it.value(), *other)) return false;
    }
    return true;
  }
  return CategoryOf(a) == CategoryOf(b);
}

void AddMissingJson(Json& node, const Json& defaults, bool recursive) {
  for (auto it = defaults.begin(); it != defaults.end(); ++it) {
    const auto present = node.find(it.key());
    if (present == node.end()) {
      node[it.key()] = it.value();
    } else if (recursive && present->is_object() && it->is_object()) {
      AddMissingJson(*present, it.value(), recursive);
    }
  }
}

Json VectorToJson(const Vector& value) {
  Json array = Json::array();
  for (Eigen::Index i = 0; i < value.size(); ++i) array.push_back(value[i]);
  return array;
}

Json MatrixToJson(const Matrix& value) {
  Json rows = Json::array();
  for (Eigen::Index i = 0; i < value.rows(); ++i) {
    Json row = Json::array();
    for (Eigen::Index j = 0; j < value.cols(); ++j) row.push_back(value(i, j));
    rows.push_back(std::move(row));
  }
  return rows;
}

bool AllNumbers(const Json& array) {
  return std::all_of(array.begin(), array.end(), [](const Json& v) { return v.is_number(); });
}

}  // namespace

// ---- construction ---------------------------------------------------------------------

Parameters::Parameters(std::shared_ptr<Document> document, std::vector<PathStep> path)
    : document_(std::move(document)), path_(std::move(path)) {}

Parameters::Parameters(const std::string& json) : Parameters(Parse(json, "<string>")) {}

Parameters Parameters::FromString(const std::string& json, const std::string& origin) {
  return Parse(json, origin);
}

Parameters Parameters::Parse(const std::string& json, const std::string& origin) {
  auto document = std::make_shared<Document>();
  document->origin = origin;
  try {
    // ignore_comments: Kratos decks carry // and /* */ comments. nlohmann keeps the
    // last of duplicate keys (at the first one's position), as Kratos does.
    document->root = Json::parse(json, nullptr, /*allow_exceptions=*/true,
                                 /*ignore_comments=*/true);
  } catch (const nlohmann::json::parse_error& error) {
    ThrowParseError(json, origin, error);
  } catch (const nlohmann::json::exception& error) {
    TESSERA_ERROR(origin, ": invalid JSON: ", error.what());
  }
  return Parameters(std::move(document), {});
}

Parameters Parameters::FromFile(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) {
    const fs::path cwd = fs::current_path(ec);
    TESSERA_ERROR("cannot read parameters file '", path, "': no such file",
                  fs::path(path).is_relative() ? " (relative to " + cwd.string() + ")" : "");
  }
  if (fs::is_directory(status)) {
    TESSERA_ERROR("cannot read parameters file '", path, "': it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) TESSERA_ERROR("cannot open parameters file '", path, "': ", std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) TESSERA_ERROR("cannot read parameters file '", path, "': read error");
  return Parse(text.str(), path);
}

Parameters Parameters::Clone() const {
  auto document = std::make_shared<Document>();
  document->root = Node();
  document->origin = document_->origin;
  document->base = document_->base;
  document->base.insert(document->base.end(), path_.begin(), path_.end());
  return Parameters(std::move(document), {});
}

// ---- location and messages -----------------------------------------------------------------

const std::string& Parameters::Origin() const { return document_->origin; }

std::string Parameters::Path() const {
  std::string out;
  auto append = [&out](const PathStep& step) {
    if (step.is_index) {
      out += "[" + std::to_string(step.index) + "]";
    } else {
      if (!out.empty()) out += '.';
      out += step.key;
    }
  };
  for (const PathStep& step : document_->base) append(step);
  for (const PathStep& step : path_) append(step);
  return out;
}

std::string Parameters::Subject() const {
  const std::string path = Path();
  if (path.empty()) return "the root value";
  const PathStep& last = path_.empty() ? document_->base.back() : path_.back();
  return (last.is_index ? "item '" : "key '") + path + "'";
}

std::string Parameters::Where() const {
  const std::string path = Path();
  return path.empty() ? "the root object" : "'" + path + "'";
}

void Parameters::TypeError(const char* expected) const {
  TESSERA_ERROR(Origin(), ": ", Subject(), " is ", Describe(Node()), ", expected ", expected);
}

// ---- navigation ------------------------------------------------------------------------------

Json& Parameters::Node() const {
  Json* node = &document_->root;
  for (std::size_t i = 0; i < path_.size(); ++i) {
    const PathStep& step = path_[i];
    Json* next = nullptr;
    if (step.is_index) {
      if (node->is_array() && step.index < node->size()) next = &(*node)[step.index];
    } else if (node->is_object()) {
      const auto it = node->find(step.key);
      if (it != node->end()) next = &*it;
    }
    if (next == nullptr) {
      TESSERA_ERROR(Origin(), ": ", Subject(),
                    " no longer exists: it was removed or replaced after this Parameters handle "
                    "was taken");
    }
    node = next;
  }
  return *node;
}

Json& Parameters::ObjectNode(const char* operation) const {
  Json& node = Node();
  if (!node.is_object()) {
    TESSERA_ERROR(Origin(), ": ", operation, " needs an object, but ", Subject(), " is ",
                  Describe(node));
  }
  return node;
}

Json& Parameters::ArrayNode(const char* operation) const {
  Json& node = Node();
  if (!node.is_array()) {
    TESSERA_ERROR(Origin(), ": ", operation, " needs an array, but ", Subject(), " is ",
                  Describe(node));
  }
  return node;
}

Parameters Parameters::Child(const std::string& key) const {
  const Json& node = Node();
  const std::string path = Path();
  const std::string key_path = path.empty() ? key : path + "." + key;
  if (!node.is_object()) {
    TESSERA_ERROR(Origin(), ": cannot look up key '", key_path, "': ", Subject(), " is ",
                  Describe(node), ", not an object");
  }
  if (node.find(key) == node.end()) {
    const std::vector<std::string> keys = KeysOf(node);
    TESSERA_ERROR(
        Origin(), ": key '", key_path, "' does not exist; ",
        keys.empty() ? Where() + " has no keys" : "the keys of " + Where() + " are: " + Join(keys),
        Suggestion(key, keys));
  }
  std::vector<PathStep> path_steps = path_;
  path_steps.push_back({key, 0, false});
  return Parameters(document_, std::move(path_steps));
}

Parameters Parameters::Child(std::size_t index) const {
  const Json& node = Node();
  if (!node.is_array()) {
    TESSERA_ERROR(Origin(), ": cannot take item [", index, "] of ", Subject(), ": it is ",
                  Describe(node), ", not an array");
  }
  if (index >= node.size()) {
    TESSERA_ERROR(Origin(), ": item [", index, "] of ", Subject(),
                  " is out of range: the array has ", node.size(),
                  node.size() == 1 ? " item" : " items");
  }
  std::vector<PathStep> path_steps = path_;
  path_steps.push_back({std::string(), index, true});
  return Parameters(document_, std::move(path_steps));
}

Parameters Parameters::Existing(const std::string& key) const {
  try {
    return Child(key);
  } catch (const Error& error) {
    if (!Node().is_object()) throw;
    TESSERA_ERROR(error.what(),
                  " (the keyed Set functions change existing keys; use Add... to create one)");
  }
}

bool Parameters::Has(const std::string& key) const {
  const Json& node = Node();
  return node.is_object() && node.find(key) != node.end();
}

Parameters Parameters::operator[](const std::string& key) { return Child(key); }
const Parameters Parameters::operator[](const std::string& key) const { return Child(key); }
Parameters Parameters::operator[](std::size_t index) { return Child(index); }
const Parameters Parameters::operator[](std::size_t index) const { return Child(index); }

std::size_t Parameters::size() const {
  const Json& node = Node();
  if (!node.is_structured()) {
    TESSERA_ERROR(Origin(), ": size() needs an object or an array, but ", Subject(), " is ",
                  Describe(node));
  }
  return node.size();
}

std::vector<std::string> Parameters::keys() const { return KeysOf(ObjectNode("keys()")); }

Parameters::const_iterator Parameters::begin() const {
  ObjectNode("iterating over (key, value) pairs");
  return const_iterator(*this, 0);
}

Parameters::const_iterator Parameters::end() const {
  return const_iterator(*this, ObjectNode("iterating over (key, value) pairs").size());
}

Parameters::const_iterator::value_type Parameters::const_iterator::operator*() const {
  const auto& object =
      owner_.ObjectNode("iterating over (key, value) pairs").get_ref<const Json::object_t&>();
  TESSERA_CHECK(index_ < object.size(), owner_.Origin(), ": iterator over ", owner_.Where(),
                " is past the end (were keys removed during the loop?)");
  const std::string& key = (object.begin() + static_cast<std::ptrdiff_t>(index_))->first;
  return {key, owner_.Child(key)};
}

// ---- type queries ------------------------------------------------------------------------------

bool Parameters::IsNull() const { return Node().is_null(); }
bool Parameters::IsNumber() const { return Node().is_number(); }
bool Parameters::IsDouble() const { return Node().is_number_float(); }
bool Parameters::IsInt() const { return Node().is_number_integer(); }
bool Parameters::IsBool() const { return Node().is_boolean(); }
bool Parameters::IsString() const { return Node().is_string(); }
bool Parameters::IsArray() const { return Node().is_array(); }
bool Parameters::IsSubParameter() const { return Node().is_object(); }

bool Parameters::IsVector() const {
  const Json& node = Node();
  return node.is_array() && AllNumbers(node);
}

bool Parameters::IsMatrix() const {
  const Json& node = Node();
  if (!node.is_array()) return false;
  for (const Json& row : node) {
    if (!row.is_array() || row.size() != node[0].size() || !AllNumbers(row)) return false;
  }
  return true;  // [] is the 0x0 matrix, as SetMatrix writes it
}

bool Parameters::IsStringArray() const {
  const Json& node = Node();
  return node.is_array() &&
         std::all_of(node.begin(), node.end(), [](const Json& v) { return v.is_string(); });
}

// ---- getters -----------------------------------------------------------------------------------

double Parameters::GetDouble() const {
  const Json& node = Node();
  if (!node.is_number()) TypeError("a double (a number)");
  return node.get<double>();
}

int Parameters::GetInt() const {
  const Json& node = Node();
  auto out_of_range = [&] {
    TESSERA_ERROR(Origin(), ": ", Subject(), " is ", Describe(node),
                  ", which does not fit in an int");
  };
  if (node.is_number_unsigned()) {
    const auto value = node.get<std::uint64_t>();
    if (value > static_cast<std::uint64_t>(INT_MAX)) out_of_range();
    return static_cast<int>(value);
  }
  if (node.is_number_integer()) {
    const auto value = node.get<std::int64_t>();
    if (value < INT_MIN || value > INT_MAX) out_of_range();
    return static_cast<int>(value);
  }
  if (node.is_number_float()) {
    // 2.0 is accepted (writers often emit it), 2.5 is not: truncating hides errors.
    const double value = node.get<double>();
    if (!std::isfinite(value) || value != std::trunc(value)) {
      TypeError("an int (a number without a fractional part)");
    }
    if (value < INT_MIN || value > INT_MAX) out_of_range();
    return static_cast<int>(value);
  }
  TypeError("an int");
}

bool Parameters::GetBool() const {
  const Json& node = Node();
  if (!node.is_boolean()) TypeError("a bool (true or false)");
  return node.get<bool>();
}

std::string Parameters::GetString() const {
  const Json& node = Node();
  if (!node.is_string()) TypeError("a string");
  return node.get<std::string>();
}

Vector Parameters::GetVector() const {
  const Json& node = Node();
  if (!node.is_array()) TypeError("a vector (an array of numbers)");
  Vector vector(static_cast<Eigen::Index>(node.size()));
  for (std::size_t i = 0; i < node.size(); ++i) {
    if (!node[i].is_number()) {
      TESSERA_ERROR(Origin(), ": ", Subject(), " is not a vector: item [", i, "] is ",
                    Describe(node[i]), ", expected a number");
    }
    vector[static_cast<Eigen::Index>(i)] = node[i].get<double>();
  }
  return vector;
}

Matrix Parameters::GetMatrix() const {
  const Json& node = Node();
  if (!node.is_array()) TypeError("a matrix (an array of equal-length arrays of numbers)");
  const std::size_t rows = node.size();
  const std::size_t cols = rows == 0 ? 0 : (node[0].is_array() ? node[0].size() : 0);
  Matrix matrix(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
  for (std::size_t i = 0; i < rows; ++i) {
    const Json& row = node[i];
    if (!row.is_array()) {
      TESSERA_ERROR(Origin(), ": ", Subject(), " is not a matrix: row [", i, "] is ", Describe(row),
                    ", expected an array of numbers");
    }
    if (row.size() != cols) {
      TESSERA_ERROR(Origin(), ": ", Subject(), " is not a matrix: row [", i, "] has ", row.size(),
                    " items but row [0] has ", cols);
    }
    for (std::size_t j = 0; j < cols; ++j) {
      if (!row[j].is_number()) {
        TESSERA_ERROR(Origin(), ": ", Subject(), " is not a matrix: item [", i, "][", j, "] is ",
                      Describe(row[j]), ", expected a number");
      }
      matrix(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = row[j].get<double>();
    }
  }
  return matrix;
}

std::vector<std::string> Parameters::GetStringArray() const {
  const Json& node = Node();
  if (!node.is_array()) TypeError("an array of strings");
  std::vector<std::string> strings;
  strings.reserve(node.size());
  for (std::size_t i = 0; i < node.size(); ++i) {
    if (!node[i].is_string()) {
      TESSERA_ERROR(Origin(), ": ", Subject(), " is not an array of strings: item [", i, "] is ",
                    Describe(node[i]));
    }
    strings.push_back(node[i].get<std::string>());
  }
  return strings;
}

// ---- setters
// -------------------------------------------------------------------------------------

void Parameters::SetDouble(double value) { Node() = value; }
void Parameters::SetInt(int value) { Node() = value; }
void Parameters::SetBool(bool value) { Node() = value; }
void Parameters::SetString(const std::string& value) { Node() = value; }
void Parameters::SetVector(const Vector& value) { Node() = VectorToJson(value); }
void Parameters::SetMatrix(const Matrix& value) { Node() = MatrixToJson(value); }
void Parameters::SetStringArray(const std::vector<std::string>& value) { Node() = value; }

void Parameters::SetValue(const Parameters& value) {
  Json copy = value.Node();  // copy first: `value` may be this value's own ancestor
  Node() = std::move(copy);
}

// ---- adding and removing
// -------------------------------------------------------------------------

Parameters Parameters::AddEmptyValue(const std::string& key) {
  Json& node = ObjectNode("AddEmptyValue");
  if (node.find(key) == node.end()) node[key] = nullptr;
  return Child(key);
}

Parameters Parameters::AddEmptyArray(const std::string& key) {
  Json& node = ObjectNode("AddEmptyArray");
  if (node.find(key) == node.end()) node[key] = Json::array();
  return Child(key);
}

void Parameters::AddValue(const std::string& key, const Parameters& value) {
  Json copy = value.Node();
  ObjectNode("AddValue")[key] = std::move(copy);
}

void Parameters::AddDouble(const std::string& key, double value) {
  ObjectNode("AddDouble")[key] = value;
}
void Parameters::AddInt(const std::string& key, int value) { ObjectNode("AddInt")[key] = value; }
void Parameters::AddBool(const std::string& key, bool value) { ObjectNode("AddBool")[key] = value; }
void Parameters::AddString(const std::string& key, const std::string& value) {
  ObjectNode("AddString")[key] = value;
}
void Parameters::AddVector(const std::string& key, const Vector& value) {
  ObjectNode("AddVector")[key] = VectorToJson(value);
}
void Parameters::AddMatrix(const std::string& key, const Matrix& value) {
  ObjectNode("AddMatrix")[key] = MatrixToJson(value);
}
void Parameters::AddStringArray(const std::string& key, const std::vector<std::string>& value) {
  ObjectNode("AddStringArray")[key] = value;
}

bool Parameters::RemoveValue(const std::string& key) {
  return ObjectNode("RemoveValue").erase(key) > 0;
}

// ---- appending
// -------------------------------------------------------------------------------------

void Parameters::Append(double value) { ArrayNode("Append").push_back(value); }
void Parameters::Append(int value) { ArrayNode("Append").push_back(value); }
void Parameters::Append(bool value) { ArrayNode("Append").push_back(value); }
void Parameters::Append(const std::string& value) { ArrayNode("Append").push_back(value); }
void Parameters::Append(const Vector& value) { ArrayNode("Append").push_back(VectorToJson(value)); }
void Parameters::Append(const Matrix& value) { ArrayNode("Append").push_back(MatrixToJson(value)); }
void Parameters::Append(const Parameters& value) {
  Json copy = value.Node();
  ArrayNode("Append").push_back(std::move(copy));
}

// ---- output and comparison
// ---------------------------------------------------------------------------

std::string Parameters::WriteJsonString() const {
  // replace: a string set from C++ with invalid UTF-8 should not make output throw.
  return Node().dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string Parameters::PrettyPrintJsonString() const {
  return Node().dump(4, ' ', false, Json::error_handler_t::replace);
}

bool Parameters::IsEquivalentTo(const Parameters& other) const {
  return Equivalent(Node(), other.Node());
}

bool Parameters::HasSameKeysAndTypeOfValuesAs(const Parameters& other) const {
  return SameKeysAndTypes(Node(), other.Node());
}

std::ostream& operator<<(std::ostream& os, const Parameters& parameters) {
  return os << parameters.PrettyPrintJsonString();
}

// ---- validation
// ----------------------------------------------------------------------------------------

void Parameters::Validate(const Parameters& defaults, bool recursive) const {
  const Json& node = ObjectNode("validation against defaults");
  const Json& default_node = defaults.ObjectNode("validation against defaults (of the defaults)");
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string& key = it.key();
    const auto default_value = default_node.find(key);
    if (default_value == default_node.end()) {
      const std::vector<std::string> allowed = KeysOf(default_node);
      TESSERA_ERROR("unknown key '", key, "' in ", Where(), " of ", Origin(),
                    "; allowed keys: ", allowed.empty() ? "(none)" : Join(allowed),
                    Suggestion(key, allowed));
    }
    const Category expected = CategoryOf(*default_value);
    if (expected != Category::kNull && CategoryOf(it.value()) != expected) {
      Parameters child = Child(key);
      TESSERA_ERROR(Origin(), ": ", child.Subject(), " is ", Describe(it.value()), ", expected ",
                    CategoryName(expected), " like its default, ", Describe(*default_value));
    }
    if (recursive && expected == Category::kObject) {
      Child(key).Validate(defaults.Child(key), recursive);
    }
  }
}

void Parameters::AddMissing(const Parameters& defaults, bool recursive) {
  // Copy first: the defaults may live in this very document.
  const Json default_node = defaults.ObjectNode("adding missing parameters (of the defaults)");
  AddMissingJson(ObjectNode("adding missing parameters"), default_node, recursive);
}

void Parameters::ValidateAndAssignDefaults(const Parameters& defaults) {
  Validate(defaults, false);  // before any change, so a failure leaves the document as it was
  AddMissing(defaults, false);
}

void Parameters::RecursivelyValidateAndAssignDefaults(const Parameters& defaults) {
  Validate(defaults, true);
  AddMissing(defaults, true);
}

void Parameters::ValidateDefaults(const Parameters& defaults) const { Validate(defaults, false); }

void Parameters::RecursivelyValidateDefaults(const Parameters& defaults) const {
  Validate(defaults, true);
}

void Parameters::AddMissingParameters(const Parameters& defaults) { AddMissing(defaults, false); }

void Parameters::RecursivelyAddMissingParameters(const Parameters& defaults) {
  AddMissing(defaults, true);
}

}  // namespace tessera
