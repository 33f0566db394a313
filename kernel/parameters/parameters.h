// tessera::Parameters: the JSON settings object of the kernel (Kratos' Parameters).
//
// A Parameters is a handle to one value inside a shared JSON document: copying a
// handle or taking params["a"]["b"] never copies JSON, and a change made through
// any handle is seen through all of them, as in Kratos. Clone() makes a new,
// independent document.
//
// Each handle knows where its document came from (the file given to FromFile, or
// "<string>") and its key path from the root ("solver_settings.time_stepping",
// "processes[2].Parameters"), and every error message names both, so that a typo
// in a 300-line ProjectParameters.json is reported with its file and key.
//
// Handles locate their value by key path, not by pointer, so a handle stays valid
// while keys are added to or removed from its parents; a handle whose value was
// removed reports that instead of reading freed memory. Not thread-safe: a
// document must not be changed while another thread reads it.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <iterator>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

#include "kernel/core/types.h"

namespace tessera {

class Parameters {
 public:
  // ---- construction -------------------------------------------------------------
  // Parses a JSON string (comments allowed; for duplicate keys the last one wins).
  explicit Parameters(const std::string& json = "{}");
  // Reads and parses a JSON file; errors name the file, and the line and column of
  // a syntax error.
  static Parameters FromFile(const std::string& path);
  // Parses a JSON string whose errors should name `origin` instead of "<string>".
  static Parameters FromString(const std::string& json, const std::string& origin);

  // Copies are handles to the same value (shallow); see Clone().
  Parameters(const Parameters&) = default;
  Parameters(Parameters&&) noexcept = default;
  Parameters& operator=(const Parameters&) = default;
  Parameters& operator=(Parameters&&) noexcept = default;
  ~Parameters() = default;

  // A deep copy of this value as the root of a new document (errors in the copy
  // still name the original origin and key path).
  Parameters Clone() const;

  // ---- where this value lives -------------------------------------------------------
  const std::string& Origin() const;  // file path or "<string>"
  std::string Path() const;           // "a.b[2].c"; empty for the root

  // ---- navigation ---------------------------------------------------------------------
  bool Has(const std::string& key) const;  // false for anything but an object
  // Missing keys are errors that list the keys that exist. Constness is shallow, as
  // in Kratos: a handle taken from a const Parameters can be copied and changed.
  // (No const char* overload: it would make params[0] ambiguous.)
  Parameters operator[](const std::string& key);
  const Parameters operator[](const std::string& key) const;
  Parameters operator[](std::size_t index);
  const Parameters operator[](std::size_t index) const;
  Parameters GetValue(const std::string& key) { return (*this)[key]; }
  const Parameters GetValue(const std::string& key) const { return (*this)[key]; }
  Parameters GetArrayItem(std::size_t index) { return (*this)[index]; }
  const Parameters GetArrayItem(std::size_t index) const { return (*this)[index]; }

  std::size_t size() const;               // number of keys of an object or items of an array
  std::vector<std::string> keys() const;  // an object's keys, in document order

  // ---- type queries ---------------------------------------------------------------------
  bool IsNull() const;
  bool IsNumber() const;  // int or double
  bool IsDouble() const;  // a number written with a fraction or exponent: 1.0, 1e3
  bool IsInt() const;     // a number written without one: 1, -4
  bool IsBool() const;
  bool IsString() const;
  bool IsArray() const;
  bool IsVector() const;        // array of numbers (the empty array included)
  bool IsMatrix() const;        // array of equal-length arrays of numbers, or []
  bool IsStringArray() const;   // array of strings (the empty array included)
  bool IsSubParameter() const;  // object

  // ---- getters: of this value, or of its key `key` ------------------------------------------
  // A type mismatch is an error naming the key path, the expected and the actual type.
  double GetDouble() const;  // an int is fine
  int GetInt() const;        // a double only if it is integral and fits
  bool GetBool() const;
  std::string GetString() const;
  Vector GetVector() const;
  Matrix GetMatrix() const;
  std::vector<std::string> GetStringArray() const;
  double GetDouble(const std::string& key) const { return (*this)[key].GetDouble(); }
  int GetInt(const std::string& key) const { return (*this)[key].GetInt(); }
  bool GetBool(const std::string& key) const { return (*this)[key].GetBool(); }
  std::string GetString(const std::string& key) const { return (*this)[key].GetString(); }
  Vector GetVector(const std::string& key) const { return (*this)[key].GetVector(); }
  Matrix GetMatrix(const std::string& key) const { return (*this)[key].GetMatrix(); }
  std::vector<std::string> GetStringArray(const std::string& key) const {
    return (*this)[key].GetStringArray();
  }

  // ---- setters: replace this value, or the value of an existing key ------------------------
  // The keyed forms require the key to exist (a typo is an error, not a new key);
  // use the Add functions to create keys. Setting may change the value's type.
  void SetDouble(double value);
  void SetInt(int value);
  void SetBool(bool value);
  void SetString(const std::string& value);
  void SetVector(const Vector& value);
  void SetMatrix(const Matrix& value);
  void SetStringArray(const std::vector<std::string>& value);
  void SetValue(const Parameters& value);  // deep copy of `value`
  void SetBool(const char*) = delete;      // SetBool("key") would set this value to true
  void SetBool(const std::string&, const char*) = delete;  // SetBool("key", "false") too
  void SetDouble(const std::string& key, double value) { Existing(key).SetDouble(value); }
  void SetInt(const std::string& key, int value) { Existing(key).SetInt(value); }
  void SetBool(const std::string& key, bool value) { Existing(key).SetBool(value); }
  void SetString(const std::string& key, const std::string& value) {
    Existing(key).SetString(value);
  }
  void SetVector(const std::string& key, const Vector& value) { Existing(key).SetVector(value); }
  void SetMatrix(const std::string& key, const Matrix& value) { Existing(key).SetMatrix(value); }
  void SetStringArray(const std::string& key, const std::vector<std::string>& value) {
    Existing(key).SetStringArray(value);
  }
  void SetValue(const std::string& key, const Parameters& value) { Existing(key).SetValue(value); }
  void SetArrayItem(std::size_t index, const Parameters& value) { (*this)[index].SetValue(value); }

  // ---- adding and removing keys of an object ---------------------------------------------
  // As in Kratos, adding a key that exists overwrites its value, except that
  // AddEmptyValue and AddEmptyArray keep an existing value; both return a handle.
  Parameters AddEmptyValue(const std::string& key);                // null
  Parameters AddEmptyArray(const std::string& key);                // []
  void AddValue(const std::string& key, const Parameters& value);  // deep copy
  void AddDouble(const std::string& key, double value);
  void AddInt(const std::string& key, int value);
  void AddBool(const std::string& key, bool value);
  void AddBool(const std::string&, const char*) = delete;  // a string literal is not a bool
  void AddString(const std::string& key, const std::string& value);
  void AddVector(const std::string& key, const Vector& value);
  void AddMatrix(const std::string& key, const Matrix& value);
  void AddStringArray(const std::string& key, const std::vector<std::string>& value);
  bool RemoveValue(const std::string& key);  // false if there was no such key

  // ---- appending to an array ----------------------------------------------------------------
  void Append(double value);
  void Append(int value);
  void Append(bool value);
  void Append(const std::string& value);
  void Append(const char* value) { Append(std::string(value)); }  // not Append(bool)
  void Append(const Vector& value);
  void Append(const Matrix& value);
  void Append(const Parameters& value);  // deep copy

  // ---- output and comparison ------------------------------------------------------------------
  std::string WriteJsonString() const;        // compact
  std::string PrettyPrintJsonString() const;  // indented by 4
  // Same keys (in any order) and equal values; ints and doubles compare by value.
  bool IsEquivalentTo(const Parameters& other) const;
  // Same keys (in any order), recursively, and values of the same type (int and
  // double counting as one type).
  bool HasSameKeysAndTypeOfValuesAs(const Parameters& other) const;

  // ---- validation against defaults ---------------------------------------------------------
  // Every key present must exist in `defaults` (else "unknown key 'X' in <path> of
  // <origin>; allowed keys: ...; did you mean 'Y'?") and have the type of its default
  // (int and double are interchangeable; a null default accepts anything). Nothing
  // is changed if validation fails. The Recursively variants descend into objects
  // present in both; the others treat a sub-object as one value.
  void ValidateAndAssignDefaults(const Parameters& defaults);
  void RecursivelyValidateAndAssignDefaults(const Parameters& defaults);
  void ValidateDefaults(const Parameters& defaults) const;
  void RecursivelyValidateDefaults(const Parameters& defaults) const;
  // Copies the keys of `defaults` that are missing here; validates nothing.
  void AddMissingParameters(const Parameters& defaults);
  void RecursivelyAddMissingParameters(const Parameters& defaults);

  // ---- iteration over an object's (key, value) pairs ----------------------------------------
  // for (const auto& [key, value] : params) ...; the pairs are produced on the fly,
  // so bind them by value or const reference.
  class const_iterator;
  using iterator = const_iterator;
  // Errors unless this value is an object.
  const_iterator begin() const;
  const_iterator end() const;

 private:
  struct Document;
  struct PathStep {
    std::string key;
    std::size_t index = 0;
    bool is_index = false;
  };

  Parameters(std::shared_ptr<Document> document, std::vector<PathStep> path);
  static Parameters Parse(const std::string& json, const std::string& origin);

  nlohmann::ordered_json& Node() const;  // resolves the path; errors if it is gone
  Parameters Child(const std::string& key) const;
  Parameters Child(std::size_t index) const;
  Parameters Existing(const std::string& key) const;  // for the keyed setters
  nlohmann::ordered_json& ObjectNode(const char* operation) const;
  nlohmann::ordered_json& ArrayNode(const char* operation) const;
  std::string Subject() const;  // "key 'a.b'" or "the root value", for messages
  std::string Where() const;    // "'a.b'" or "the root object", for messages
  [[noreturn]] void TypeError(const char* expected) const;
  void Validate(const Parameters& defaults, bool recursive) const;
  void AddMissing(const Parameters& defaults, bool recursive);

  std::shared_ptr<Document> document_;
  std::vector<PathStep> path_;
};

// Visits an object's keys by position and looks each one up when dereferenced, so
// it never dangles, but keys added or removed during a loop shift what it visits.
class Parameters::const_iterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = std::pair<std::string, Parameters>;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = value_type;

  const_iterator() = default;
  value_type operator*() const;
  const_iterator& operator++() {
    ++index_;
    return *this;
  }
  const_iterator operator++(int) {
    const_iterator old = *this;
    ++index_;
    return old;
  }
  bool operator==(const const_iterator& other) const { return index_ == other.index_; }

 private:
  friend class Parameters;
  const_iterator(Parameters owner, std::size_t index) : owner_(std::move(owner)), index_(index) {}
  Parameters owner_;  // a handle, so the iterator outlives the expression it came from
  std::size_t index_ = 0;
};

// Writes PrettyPrintJsonString().
std::ostream& operator<<(std::ostream& os, const Parameters& parameters);

}  // namespace tessera
