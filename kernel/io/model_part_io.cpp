// ModelPartIO: path resolution and mode checks around MdpaReader/MdpaWriter.
#include "kernel/io/model_part_io.h"

#include <sys/stat.h>

#include "kernel/core/error.h"
#include "kernel/io/mdpa_writer.h"

namespace tessera {
namespace {

bool HasMdpaSuffix(const std::string& path) {
  return path.size() >= 5 && path.compare(path.size() - 5, 5, ".mdpa") == 0;
}

bool IsRegularFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

ModelPartIO::ModelPartIO(std::string path, int flags, MdpaReadOptions options)
    : path_(std::move(path)), flags_(flags), options_(options) {
  if (path_.empty()) TESSERA_ERROR("ModelPartIO: the file path is empty");
  if (flags & ~(READ | WRITE | MESH_ONLY | SKIP_TIMER))
    TESSERA_ERROR(
        "ModelPartIO('", path_, "'): unknown flags ", flags,
        " (expected a combination of IO.READ=1, IO.WRITE=2, IO.MESH_ONLY=4, IO.SKIP_TIMER=8)");
  if (!(flags & (READ | WRITE)))
    TESSERA_ERROR("ModelPartIO('", path_, "'): flags ", flags,
                  " include neither IO.READ nor IO.WRITE");
  if (flags & MESH_ONLY) options_.mesh_only = true;
}

std::string ModelPartIO::ReadPath() const {
  if (HasMdpaSuffix(path_)) return path_;
  const std::string with_suffix = path_ + ".mdpa";
  if (!IsRegularFile(with_suffix) && IsRegularFile(path_)) return path_;
  return with_suffix;
}

std::string ModelPartIO::WritePath() const {
  return HasMdpaSuffix(path_) ? path_ : path_ + ".mdpa";
}

std::string ModelPartIO::CheckedReadPath() const {
  if (!(flags_ & READ))
    TESSERA_ERROR("ModelPartIO('", path_, "') was opened for writing; pass IO.READ to read");
  const std::string path = ReadPath();
  if (!IsRegularFile(path)) {
    if (HasMdpaSuffix(path_)) TESSERA_ERROR("cannot read model part: no file '", path, "'");
    TESSERA_ERROR("cannot read model part: neither '", path_, ".mdpa' nor '", path_, "' is a file");
  }
  return path;
}

void ModelPartIO::ReadModelPart(ModelPart& model_part) const {
  MdpaReader(options_).ReadFile(CheckedReadPath(), model_part);
}

void ModelPartIO::WriteModelPart(ModelPart& model_part) const {
  if (!(flags_ & WRITE))
    TESSERA_ERROR("ModelPartIO('", path_, "') was opened for reading; pass IO.WRITE to write");
  MdpaWriter().WriteFile(model_part, WritePath());
}

}  // namespace tessera
