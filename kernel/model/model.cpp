// Model: the registry of root model parts.
#include "kernel/model/model.h"

#include <functional>

#include "kernel/core/error.h"

namespace tessera {

ModelPart& Model::CreateModelPart(const std::string& name, int buffer_size) {
  const auto dot = name.find('.');
  const std::string root_name = name.substr(0, dot);
  auto it = roots_.find(root_name);
  if (dot == std::string::npos) {
    if (it != roots_.end()) TESSERA_ERROR("model part ", name, " already exists");
    it = roots_.emplace(root_name, std::make_unique<ModelPart>(root_name, buffer_size, this)).first;
    return *it->second;
  }
  if (it == roots_.end())
    it = roots_.emplace(root_name, std::make_unique<ModelPart>(root_name, buffer_size, this)).first;
  const std::string rest = name.substr(dot + 1);
  if (it->second->HasSubModelPart(rest)) TESSERA_ERROR("model part ", name, " already exists");
  return it->second->CreateSubModelPart(rest);
}

ModelPart& Model::GetModelPart(const std::string& path) {
  const auto dot = path.find('.');
  auto it = roots_.find(path.substr(0, dot));
  if (it == roots_.end()) {
    std::string names;
    for (const auto& [n, p] : roots_) names += (names.empty() ? "" : ", ") + n;
    TESSERA_ERROR("the model has no model part '", path.substr(0, dot),
                  "' (it has: ", names.empty() ? "none" : names, ")");
  }
  return dot == std::string::npos ? *it->second : it->second->GetSubModelPart(path.substr(dot + 1));
}

bool Model::HasModelPart(const std::string& path) const {
  const auto dot = path.find('.');
  auto it = roots_.find(path.substr(0, dot));
  if (it == roots_.end()) return false;
  return dot == std::string::npos || it->second->HasSubModelPart(path.substr(dot + 1));
}

void Model::DeleteModelPart(const std::string& name) {
  const auto dot = name.rfind('.');
  if (dot != std::string::npos) {
    GetModelPart(name.substr(0, dot)).RemoveSubModelPart(name.substr(dot + 1));
    return;
  }
  if (!roots_.erase(name)) TESSERA_ERROR("the model has no model part ", name);
}

std::vector<std::string> Model::GetModelPartNames() const {
  std::vector<std::string> names;
  std::function<void(ModelPart&)> visit = [&](ModelPart& part) {
    names.push_back(part.FullName());
    for (ModelPart* child : part.SubModelParts()) visit(*child);
  };
  for (const auto& [name, root] : roots_) visit(*root);
  return names;
}

}  // namespace tessera
