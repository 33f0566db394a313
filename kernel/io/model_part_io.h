// ModelPartIO: Kratos' facade over the .mdpa reader and writer —
// ModelPartIO(path, flags).ReadModelPart(model_part) / WriteModelPart(model_part).
#pragma once

#include <string>

#include "kernel/io/mdpa_reader.h"

namespace tessera {

class ModelPart;

class ModelPartIO {
 public:
  // Kratos' IO flags (tessera.IO.READ | tessera.IO.MESH_ONLY in Python).
  static constexpr int READ = 1;
  static constexpr int WRITE = 2;
  static constexpr int MESH_ONLY = 4;
  // Accepted for Kratos scripts; Tessera keeps no IO timer, so it changes nothing.
  static constexpr int SKIP_TIMER = 8;

  // `path` may name the file with or without its ".mdpa" suffix (Kratos passes
  // it without). `flags`: READ and/or WRITE, plus MESH_ONLY (which sets
  // options.mesh_only); any other bit is an error.
  explicit ModelPartIO(std::string path, int flags = READ, MdpaReadOptions options = {});

  // Reads the file into model_part; needs READ. A missing file is an error
  // naming the path(s) tried.
  void ReadModelPart(ModelPart& model_part) const;
  // Writes model_part (and its sub model parts) to the file, replacing it;
  // needs WRITE.
  void WriteModelPart(ModelPart& model_part) const;

  const std::string& Path() const { return path_; }
  int Flags() const { return flags_; }
  const MdpaReadOptions& Options() const { return options_; }
  // The file a read opens: path if it ends in ".mdpa", else path + ".mdpa";
  // the bare path is tried when only it exists.
  std::string ReadPath() const;
  // ReadPath, checked as ReadModelPart checks it (READ given, the file a
  // regular file): the errors name the path(s) tried.
  std::string CheckedReadPath() const;
  // The file a write creates: path if it ends in ".mdpa", else path + ".mdpa".
  std::string WritePath() const;

 private:
  std::string path_;
  int flags_;
  MdpaReadOptions options_;
};

}  // namespace tessera
