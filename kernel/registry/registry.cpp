// Registry implementation and the kernel's generic entities.
#include "kernel/registry/registry.h"

#include <algorithm>

#include "kernel/core/suggestions.h"
#include "kernel/core/variable_registry.h"
#include "kernel/geometries/geometry_types.h"
#include "kernel/parameters/parameters.h"
#include "kernel/processes/integration_values_extrapolation_to_nodes_process.h"
#include "kernel/processes/skin_detection_process.h"

namespace tessera {
namespace {

template <class Map>
std::vector<std::string> KeysOf(const Map& map) {
  std::vector<std::string> keys;
  for (const auto& entry : map) keys.push_back(entry.first);
  return keys;
}

template <class Map>
std::string Closest(const Map& map, const std::string& name) {
  return DidYouMean(name, KeysOf(map));
}

template <class T, class Map>
typename T::Pointer CreateEntity(const Map& map, const char* kind, const std::string& name,
                                 IdType id, NodalDatabase* db, Geometry::NodeIndices nodes,
                                 Properties::Pointer properties) {
  auto it = map.find(name);
  if (it == map.end())
    TESSERA_ERROR("unknown ", kind, " '", name, "'", Closest(map, name), " (an application's ",
                  kind, "s are known once it is imported)");
  const GeometryType* type = it->second.geometry;
  if (static_cast<int>(nodes.size()) != type->PointsNumber())
    TESSERA_ERROR(kind, " ", name, " (", type->Name(), ") needs ", type->PointsNumber(),
                  " nodes, got ", nodes.size());
  return it->second.object->Create(id, Geometry(type, db, std::move(nodes)), std::move(properties));
}

}  // namespace

Registry& Registry::Instance() {
  static Registry registry;
  static const bool kernel_registered = [] {
    RegisterKernelComponents(registry);
    return true;
  }();
  (void)kernel_registered;
  return registry;
}

void Registry::BeginApplication(const std::string& name) {
  current_application_ = name;
  if (!HasApplication(name)) applications_.push_back(name);
}

bool Registry::HasApplication(const std::string& name) const {
  return std::find(applications_.begin(), applications_.end(), name) != applications_.end();
}

void Registry::RegisterElement(const std::string& name, const std::string& geometry,
                               std::unique_ptr<Element> prototype) {
  if (elements_.count(name))
    TESSERA_ERROR("element ", name, " is registered twice (by ", elements_[name].application,
                  " and ", current_application_, ")");
  if (!prototype) prototype = std::make_unique<Element>(0, Geometry(), nullptr);
  elements_[name] = {std::move(prototype), &GetGeometryType(geometry), current_application_};
}

void Registry::RegisterCondition(const std::string& name, const std::string& geometry,
                                 std::unique_ptr<Condition> prototype) {
  if (conditions_.count(name))
    TESSERA_ERROR("condition ", name, " is registered twice (by ", conditions_[name].application,
                  " and ", current_application_, ")");
  if (!prototype) prototype = std::make_unique<Condition>(0, Geometry(), nullptr);
  conditions_[name] = {std::move(prototype), &GetGeometryType(geometry), current_application_};
}

void Registry::RegisterConstitutiveLaw(const std::string& name, ConstitutiveLaw::Pointer law) {
  if (laws_.count(name)) TESSERA_ERROR("constitutive law ", name, " is registered twice");
  laws_[name] = {std::move(law), current_application_};
}

void Registry::RegisterProcess(const std::string& name, ProcessFactory factory) {
  if (processes_.count(name)) TESSERA_ERROR("process ", name, " is registered twice");
  processes_[name] = {std::move(factory), current_application_};
}

const GeometryType& Registry::ElementGeometry(const std::string& name) const {
  auto it = elements_.find(name);
  if (it == elements_.end())
    TESSERA_ERROR("unknown element '", name, "'", Closest(elements_, name));
  return *it->second.geometry;
}

const GeometryType& Registry::ConditionGeometry(const std::string& name) const {
  auto it = conditions_.find(name);
  if (it == conditions_.end())
    TESSERA_ERROR("unknown condition '", name, "'", Closest(conditions_, name));
  return *it->second.geometry;
}

const Element* Registry::ElementPrototype(const std::string& name) const {
  auto it = elements_.find(name);
  return it == elements_.end() ? nullptr : it->second.object.get();
}

const Condition* Registry::ConditionPrototype(const std::string& name) const {
  auto it = conditions_.find(name);
  return it == conditions_.end() ? nullptr : it->second.object.get();
}

Element::Pointer Registry::CreateElement(const std::string& name, IdType id, NodalDatabase* db,
                                         Geometry::NodeIndices nodes,
                                         Properties::Pointer properties) const {
  return CreateEntity<Element>(elements_, "element", name, id, db, std::move(nodes),
                               std::move(properties));
}

Condition::Pointer Registry::CreateCondition(const std::string& name, IdType id, NodalDatabase* db,
                                             Geometry::NodeIndices nodes,
                                             Properties::Pointer properties) const {
  return CreateEntity<Condition>(conditions_, "condition", name, id, db, std::move(nodes),
                                 std::move(properties));
}

ConstitutiveLaw::Pointer Registry::CreateConstitutiveLaw(const std::string& name) const {
  auto it = laws_.find(name);
  if (it == laws_.end())
    TESSERA_ERROR("unknown constitutive law '", name, "'", Closest(laws_, name));
  return it->second.first->Clone();
}

std::unique_ptr<Process> Registry::CreateProcess(const std::string& name, Model& model,
                                                 Parameters parameters) const {
  auto it = processes_.find(name);
  if (it == processes_.end())
    TESSERA_ERROR("unknown process '", name, "'", Closest(processes_, name));
  return it->second.first(model, std::move(parameters));
}

std::vector<std::string> Registry::ElementNames() const { return KeysOf(elements_); }
std::vector<std::string> Registry::ConditionNames() const { return KeysOf(conditions_); }
std::vector<std::string> Registry::ConstitutiveLawNames() const { return KeysOf(laws_); }
std::vector<std::string> Registry::ProcessNames() const { return KeysOf(processes_); }

std::string Registry::ApplicationOf(const std::string& name) const {
  if (auto it = elements_.find(name); it != elements_.end()) return it->second.application;
  if (auto it = conditions_.find(name); it != conditions_.end()) return it->second.application;
  if (auto it = laws_.find(name); it != laws_.end()) return it->second.second;
  if (auto it = processes_.find(name); it != processes_.end()) return it->second.second;
  return "";
}

void RegisterKernelComponents(Registry& registry) {
  // Kratos' generic entities: geometry only, no physics. Test decks and
  // geometry-only meshes use them.
  const std::pair<const char*, const char*> elements[] = {
      {"Element2D2N", "Line2D2"},          {"Element2D3N", "Triangle2D3"},
      {"Element2D4N", "Quadrilateral2D4"}, {"Element3D2N", "Line3D2"},
      {"Element3D3N", "Triangle3D3"},      {"Element3D4N", "Tetrahedra3D4"},
      {"Element3D8N", "Hexahedra3D8"},     {"Element3D1N", "Point3D"}};
  for (const auto& [name, geometry] : elements) registry.RegisterElement(name, geometry);
  const std::pair<const char*, const char*> conditions[] = {
      {"PointCondition2D1N", "Point2D"},       {"PointCondition3D1N", "Point3D"},
      {"LineCondition2D2N", "Line2D2"},        {"LineCondition3D2N", "Line3D2"},
      {"SurfaceCondition3D3N", "Triangle3D3"}, {"SurfaceCondition3D4N", "Quadrilateral3D4"}};
  for (const auto& [name, geometry] : conditions) registry.RegisterCondition(name, geometry);
  registry.RegisterProcess("IntegrationValuesExtrapolationToNodesProcess",
                           [](Model& model, Parameters settings) -> std::unique_ptr<Process> {
                             return std::make_unique<IntegrationValuesExtrapolationToNodesProcess>(
                                 model, std::move(settings));
                           });
  registry.RegisterProcess(
      "SkinDetectionProcess", [](Model& model, Parameters settings) -> std::unique_ptr<Process> {
        return std::make_unique<SkinDetectionProcess>(model, std::move(settings));
      });
}

}  // namespace tessera
