// RowColumn: one column of the particle rows (ParticleStorage) that either owns
// its values or shares the storage of a nodal database column.
//
// The DEM strategy keeps its particles as rows while the model part keeps the
// same quantities on the nodes (VELOCITY, TOTAL_FORCES, ...) for scripts,
// processes and output. Where row i is node i and the database holds nothing
// else (the layout the strategy's spatial sort gives a spheres model part of
// its own), a row column can be the nodal column: one array instead of two,
// and nothing to copy between them at each step. A shared column points to the
// database's std::vector object, which lives as long as the variable is
// declared, so that the database may reallocate or compact its storage; it
// resizes, compacts and reorders the column with its nodes, so the rows'
// whole-row operations leave shared columns alone (particle_storage.h).
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace tessera::dem {

template <class T>
class RowColumn {
 public:
  RowColumn() = default;
  // A copy owns its values (it is no longer the rows of any database).
  RowColumn(const RowColumn& other) : own_(other.Values()) {}
  RowColumn(RowColumn&& other) noexcept
      : own_(std::move(other.own_)), values_(other.Shared() ? other.values_ : &own_) {
    other.values_ = &other.own_;
  }
  RowColumn& operator=(const RowColumn& other) {
    if (this != &other) {
      std::vector<T> copy(other.Values());
      own_.swap(copy);
      values_ = &own_;
    }
    return *this;
  }
  RowColumn& operator=(RowColumn&& other) noexcept {
    if (this != &other) {
      own_ = std::move(other.own_);
      values_ = other.Shared() ? other.values_ : &own_;
      other.values_ = &other.own_;
    }
    return *this;
  }

  // ---- the vector's reading and element interface
  T& operator[](std::size_t i) { return (*values_)[i]; }
  const T& operator[](std::size_t i) const { return (*values_)[i]; }
  T& at(std::size_t i) { return values_->at(i); }
  T* data() { return values_->data(); }
  const T* data() const { return values_->data(); }
  std::size_t size() const { return values_->size(); }
  bool empty() const { return values_->empty(); }
  auto begin() { return values_->begin(); }
  auto end() { return values_->end(); }
  auto begin() const { return values_->cbegin(); }
  auto end() const { return values_->cend(); }
  std::vector<T>& Values() { return *values_; }
  const std::vector<T>& Values() const { return *values_; }
  operator std::vector<T>&() { return *values_; }
  operator const std::vector<T>&() const { return *values_; }

  // ---- ownership
  bool Shared() const { return values_ != &own_; }
  // The vector of an owned column (whole-row operations); null when shared.
  std::vector<T>* Owned() { return Shared() ? nullptr : &own_; }
  const std::vector<T>* Owned() const { return Shared() ? nullptr : &own_; }
  // Shares `storage`, whose first `rows` entries are then these rows. An owned
  // column's values go there first (the rows are what counts) and its vector
  // is released; a column shared with other storage only moves over (the
  // database's current storage is what counts: a new solution step whose
  // values a process may have set already).
  void Share(std::vector<T>& storage, std::size_t rows) {
    if (values_ == &storage) return;
    if (!Shared()) {
      const std::size_t n = std::min({rows, own_.size(), storage.size()});
      std::copy(own_.begin(), own_.begin() + static_cast<std::ptrdiff_t>(n), storage.begin());
      std::vector<T>().swap(own_);
    }
    values_ = &storage;
  }
  // Owns the values of the first `rows` entries again (a shared column).
  void Own(std::size_t rows) {
    if (!Shared()) return;
    const std::size_t n = std::min(rows, values_->size());
    own_.assign(values_->begin(), values_->begin() + static_cast<std::ptrdiff_t>(n));
    own_.resize(rows);
    values_ = &own_;
  }

 private:
  std::vector<T> own_;
  std::vector<T>* values_ = &own_;
};

}  // namespace tessera::dem
