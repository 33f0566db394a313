// The skin of a model part's elements as a sub model part of conditions
// (Kratos' SkinDetectionProcess).
#include "kernel/processes/skin_detection_process.h"

#include <algorithm>
#include <iostream>

#include "kernel/core/error.h"
#include "kernel/core/flags.h"
#include "kernel/geometries/geometry_type.h"
#include "kernel/registry/registry.h"
#include "kernel/utilities/skin_detection.h"

namespace tessera {
namespace {

constexpr const char* kName = "SkinDetectionProcess";

// The kernel's generic conditions, which Kratos' default "Condition" stands for
// (Kratos composes Condition3D3N, ...; Tessera registers Kratos' current names).
std::string GenericConditionName(const GeometryType& face_type) {
  const std::string_view name = face_type.Name();
  if (name == "Line2D2") return "LineCondition2D2N";
  if (name == "Line3D2") return "LineCondition3D2N";
  if (name == "Triangle3D3") return "SurfaceCondition3D3N";
  if (name == "Quadrilateral3D4") return "SurfaceCondition3D4N";
  return "";
}

}  // namespace

Parameters SkinDetectionProcess::GetDefaultParameters() {
  return Parameters(R"({
    "name_auxiliar_model_part": "SkinModelPart",
    "name_auxiliar_condition": "Condition",
    "list_model_parts_to_assign_conditions": [],
    "echo_level": 0
  })");
}

Parameters SkinDetectionProcess::GetProcessListDefaultParameters() {
  Parameters defaults(R"({
    "help": "Detects the skin of a model part's elements and makes it a sub model part of conditions",
    "model_part_name": "",
    "computing_model_part_name": "",
    "recursive_detection": false
  })");
  defaults.AddMissingParameters(GetDefaultParameters());
  return defaults;
}

SkinDetectionProcess::Setup SkinDetectionProcess::FromProcessList(Model& model,
                                                                  Parameters settings) {
  settings.ValidateAndAssignDefaults(GetProcessListDefaultParameters());
  const std::string name = settings.GetString("model_part_name");
  if (name.empty())
    TESSERA_ERROR(kName,
                  ": setting 'model_part_name' is empty; name the model part whose "
                  "elements' skin is wanted");
  if (settings.GetBool("recursive_detection"))
    TESSERA_ERROR(kName, " (", name,
                  "): setting 'recursive_detection' true is not supported; the skin is "
                  "detected once, at ExecuteInitialize");
  Setup setup{&model.GetModelPart(name), Parameters(), nullptr};
  const std::string computing = settings.GetString("computing_model_part_name");
  if (!computing.empty()) {
    if (!model.HasModelPart(computing))
      TESSERA_ERROR(kName, " (", name,
                    "): setting 'computing_model_part_name': there is no model part '", computing,
                    "'");
    setup.computing_model_part = &model.GetModelPart(computing);
    if (&setup.computing_model_part->GetRootModelPart() != &setup.model_part->GetRootModelPart())
      TESSERA_ERROR(kName, " (", name, "): setting 'computing_model_part_name': ", computing,
                    " is not in the root model part of ", name);
  }
  for (const std::string& key : GetDefaultParameters().keys())
    setup.settings.AddValue(key, settings[key]);
  return setup;
}

SkinDetectionProcess::SkinDetectionProcess(Model& model, Parameters settings)
    : SkinDetectionProcess(FromProcessList(model, std::move(settings))) {}

SkinDetectionProcess::SkinDetectionProcess(Setup setup)
    : SkinDetectionProcess(*setup.model_part, std::move(setup.settings)) {
  computing_model_part_ = setup.computing_model_part;
}

SkinDetectionProcess::SkinDetectionProcess(ModelPart& model_part, Parameters settings)
    : model_part_(model_part) {
  settings.ValidateAndAssignDefaults(GetDefaultParameters());
  skin_name_ = settings.GetString("name_auxiliar_model_part");
  condition_name_ = settings.GetString("name_auxiliar_condition");
  assign_to_ = settings.GetStringArray("list_model_parts_to_assign_conditions");
  echo_level_ = settings.GetInt("echo_level");
  if (skin_name_.empty()) TESSERA_ERROR(Info(), ": setting 'name_auxiliar_model_part' is empty");
  if (condition_name_.empty())
    TESSERA_ERROR(Info(), ": setting 'name_auxiliar_condition' is empty");
}

std::string SkinDetectionProcess::Info() const {
  return std::string(kName) + " (" + model_part_.FullName() + ")";
}

std::string SkinDetectionProcess::ConditionName(const GeometryType& face_type) const {
  std::string name;
  if (condition_name_ == "Condition") {
    name = GenericConditionName(face_type);
  } else {
    const int nodes = face_type.PointsNumber();
    const int dimension = nodes == 2 ? face_type.WorkingSpaceDimension() : 3;
    name = condition_name_ + std::to_string(dimension) + "D" + std::to_string(nodes) + "N";
  }
  const Registry& registry = Registry::Instance();
  if (name.empty() || !registry.HasCondition(name))
    TESSERA_ERROR(Info(), ": setting 'name_auxiliar_condition' is '", condition_name_,
                  "', which gives the condition name '", name, "' for ", face_type.Name(),
                  " faces; no such condition is registered (an application's conditions exist "
                  "once it is imported)");
  const GeometryType& type = registry.ConditionGeometry(name);
  if (type.PointsNumber() != face_type.PointsNumber() ||
      type.LocalDimension() != face_type.LocalDimension())
    TESSERA_ERROR(Info(), ": setting 'name_auxiliar_condition': condition '", name,
                  "' has the geometry ", type.Name(), ", the skin faces are ", face_type.Name());
  return name;
}

void SkinDetectionProcess::ExecuteInitialize() {
  if (!executed_) Execute();
}

void SkinDetectionProcess::Execute() {
  ModelPart& root = model_part_.GetRootModelPart();
  // Resolved before anything is created, so that a wrong setting changes nothing.
  std::vector<ModelPart*> assign_to;
  for (const std::string& name : assign_to_) {
    if (!root.HasSubModelPart(name))
      TESSERA_ERROR(Info(), ": setting 'list_model_parts_to_assign_conditions': ", root.Name(),
                    " has no sub model part '", name, "'");
    assign_to.push_back(&root.GetSubModelPart(name));
  }
  if (model_part_.HasSubModelPart(skin_name_) &&
      model_part_.GetSubModelPart(skin_name_).NumberOfConditions() > 0)
    TESSERA_ERROR(Info(), ": setting 'name_auxiliar_model_part': ", model_part_.FullName(), ".",
                  skin_name_,
                  " exists and holds conditions already (was the skin detected before?)");

  const std::vector<SkinFace> faces = FindSkinFaces(model_part_);
  std::vector<std::pair<const GeometryType*, std::string>> names;  // the few face types
  auto name_of = [&](const GeometryType* type) -> const std::string& {
    for (const auto& [t, name] : names)
      if (t == type) return name;
    names.emplace_back(type, ConditionName(*type));
    return names.back().second;
  };
  for (const SkinFace& face : faces) name_of(face.geometry);

  IdType next_id = 1;
  for (const Condition& condition : root.Conditions())
    next_id = std::max(next_id, condition.Id() + 1);

  ModelPart& skin = model_part_.HasSubModelPart(skin_name_)
                        ? model_part_.GetSubModelPart(skin_name_)
                        : model_part_.CreateSubModelPart(skin_name_);
  const ProcessInfo& info = model_part_.GetProcessInfo();
  ModelPart::IndexSet nodes;
  nodes.reserve(faces.size() * SkinFace::kMaxNodes);
  for (const SkinFace& face : faces) {
    Condition& condition =
        skin.CreateNewCondition(name_of(face.geometry), next_id++, face.NodeIds(),
                                root.GetElement(face.parent_id).GetPropertiesPointer());
    condition.Set(INTERFACE);
    condition.Initialize(info);
    const auto& indices = condition.GetGeometry().NodeIndicesList();
    nodes.insert(nodes.end(), indices.begin(), indices.end());
  }
  // The skin part held no conditions before: its conditions are the new ones.
  const ModelPart::IndexSet created = skin.ConditionIndices();
  skin.AddNodesByIndex(nodes);
  for (IndexType node : skin.NodeIndices()) Node(&skin.Nodal(), node).Set(INTERFACE);

  // Each listed part gets the conditions whose nodes it all holds.
  for (ModelPart* part : assign_to) {
    const ModelPart::IndexSet& held = part->NodeIndices();
    ModelPart::IndexSet conditions;
    auto all_conditions = skin.Conditions();
    for (std::size_t i = 0; i < all_conditions.size(); ++i) {
      const auto& indices = all_conditions[i].GetGeometry().NodeIndicesList();
      if (std::all_of(indices.begin(), indices.end(), [&](IndexType node) {
            return std::binary_search(held.begin(), held.end(), node);
          }))
        conditions.push_back(created[i]);
    }
    part->AddConditionsByIndex(std::move(conditions));
  }
  if (computing_model_part_ != nullptr) computing_model_part_->AddConditionsByIndex(created);
  executed_ = true;

  if (echo_level_ > 0)
    std::cout << Info() << ": " << faces.size() << " skin faces, " << skin.NumberOfNodes()
              << " nodes, in " << skin.FullName() << "\n";
}

}  // namespace tessera
