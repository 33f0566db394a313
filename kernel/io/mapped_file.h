// MappedFile: a file's whole content as read-only text, mapped from the page
// cache rather than copied into the process.
//
// The readers parse a file as one string_view (the .mdpa grammar looks
// ahead across lines). Mapped, its pages are the page cache's: shared by the
// ranks of a distributed run on one machine that each read the same file,
// and given back under memory pressure, where a copy would be each rank's
// own anonymous memory. The file must not shrink while it is mapped (a page
// past its new end would fault).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tessera {

class MappedFile {
 public:
  // Maps the regular file at `path`; an error names the path and the cause.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::string_view Text() const { return {data_, size_}; }

 private:
  const char* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace tessera
