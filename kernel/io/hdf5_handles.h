// What the kernel's HDF5 writers and readers (Hdf5Output, the checkpoint
// file) share over the HDF5 C API: an owning identifier, the silencing of
// HDF5's own printing of its error stack, and the informative message of a
// failure. Private to kernel/io (it includes hdf5.h).
#pragma once

#include <hdf5.h>

#include <string>

namespace tessera::hdf5 {

// The innermost description of the HDF5 error stack ("unable to open file: ...
// Permission denied"), the informative one; clears the stack.
inline std::string LastErrorMessage() {
  std::string message;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_DOWNWARD,
      [](unsigned, const H5E_error2_t* error, void* data) -> herr_t {
        if (error->desc && *error->desc) *static_cast<std::string*>(data) = error->desc;
        return 0;
      },
      &message);
  H5Eclear2(H5E_DEFAULT);
  return message.empty() ? "HDF5 gave no reason" : message;
}

// Silences HDF5's printing of its error stack while alive: every failure
// becomes a Tessera error naming the file instead.
class QuietErrors {
 public:
  QuietErrors() {
    H5Eget_auto2(H5E_DEFAULT, &function_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, function_, data_); }
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;

 private:
  H5E_auto2_t function_ = nullptr;
  void* data_ = nullptr;
};

// An HDF5 identifier closed with `close` (H5Fclose, H5Dclose, ...) when it
// goes out of scope; a negative id is a failed open and is not closed.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

}  // namespace tessera::hdf5
