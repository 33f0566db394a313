// Model: owns the root model parts by name and resolves dotted paths
// ("Structure.Parts_Solid") to any model part.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernel/model/model_part.h"

namespace tessera {

class Model {
 public:
  Model() = default;
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  // "A" creates a root; "A.B.C" creates A if needed and the sub model parts below it.
  ModelPart& CreateModelPart(const std::string& name, int buffer_size = 1);
  ModelPart& GetModelPart(const std::string& path);
  bool HasModelPart(const std::string& path) const;
  void DeleteModelPart(const std::string& name);
  std::vector<std::string> GetModelPartNames() const;  // full paths of every model part
  void Reset() { roots_.clear(); }

 private:
  std::map<std::string, std::unique_ptr<ModelPart>> roots_;
};

}  // namespace tessera
