// A test process' own scratch directory under the system's temporary folder,
// named after a prefix and the process id, removed with what it holds when
// the process ends (ctest runs each test in a process of its own, so tests
// running at the same time never share one).
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace tessera::test {

class ScratchDirectory {
 public:
  explicit ScratchDirectory(const std::string& prefix)
      : path_(std::filesystem::temp_directory_path() /
              (prefix + "_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace tessera::test
