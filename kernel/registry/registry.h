// Registry: what can be named in input files — elements, conditions,
// constitutive laws and C++ processes — by name, and the applications that
// registered them.
//
// An application registers its components when its Python module is imported
// (or when a C++ program calls its Register function). The kernel's own generic
// entities (Element2D3N, LineCondition2D2N, ...) are registered on first use.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernel/model/constitutive_law.h"
#include "kernel/model/element.h"
#include "kernel/processes/process.h"

namespace tessera {

class Model;
class Parameters;

class Registry {
 public:
  using ProcessFactory = std::function<std::unique_ptr<Process>(Model&, Parameters)>;

  static Registry& Instance();

  // The application registering components from now on (names it in listings).
  void BeginApplication(const std::string& name);
  bool HasApplication(const std::string& name) const;
  const std::vector<std::string>& Applications() const { return applications_; }

  // `geometry` is an .mdpa geometry name (Triangle3D3, Hexahedra3D8, ...). A
  // missing prototype registers the plain kernel entity.
  void RegisterElement(const std::string& name, const std::string& geometry,
                       std::unique_ptr<Element> prototype = nullptr);
  void RegisterCondition(const std::string& name, const std::string& geometry,
                         std::unique_ptr<Condition> prototype = nullptr);
  void RegisterConstitutiveLaw(const std::string& name, ConstitutiveLaw::Pointer prototype);
  void RegisterProcess(const std::string& name, ProcessFactory factory);

  bool HasElement(const std::string& name) const { return elements_.count(name) > 0; }
  bool HasCondition(const std::string& name) const { return conditions_.count(name) > 0; }
  bool HasConstitutiveLaw(const std::string& name) const { return laws_.count(name) > 0; }
  bool HasProcess(const std::string& name) const { return processes_.count(name) > 0; }

  // The geometry type registered with an element/condition name (error if unknown).
  const GeometryType& ElementGeometry(const std::string& name) const;
  const GeometryType& ConditionGeometry(const std::string& name) const;
  // The prototype registered with a name, nullptr if unknown (the .mdpa writer
  // matches an entity's class and geometry against these to recover its name).
  const Element* ElementPrototype(const std::string& name) const;
  const Condition* ConditionPrototype(const std::string& name) const;

  // New entities; errors name the unknown name (with suggestions) or the wrong node count.
  Element::Pointer CreateElement(const std::string& name, IdType id, NodalDatabase* database,
                                 Geometry::NodeIndices nodes, Properties::Pointer properties) const;
  Condition::Pointer CreateCondition(const std::string& name, IdType id, NodalDatabase* database,
                                     Geometry::NodeIndices nodes,
                                     Properties::Pointer properties) const;
  ConstitutiveLaw::Pointer CreateConstitutiveLaw(const std::string& name) const;
  std::unique_ptr<Process> CreateProcess(const std::string& name, Model& model,
                                         Parameters parameters) const;

  std::vector<std::string> ElementNames() const;
  std::vector<std::string> ConditionNames() const;
  std::vector<std::string> ConstitutiveLawNames() const;
  std::vector<std::string> ProcessNames() const;
  // The application that registered a component name ("" if unknown).
  std::string ApplicationOf(const std::string& name) const;

 private:
  template <class T>
  struct Prototype {
    std::unique_ptr<T> object;
    const GeometryType* geometry = nullptr;
    std::string application;
  };
  Registry() = default;

  std::string current_application_ = "kernel";
  std::vector<std::string> applications_{"kernel"};
  std::map<std::string, Prototype<Element>> elements_;
  std::map<std::string, Prototype<Condition>> conditions_;
  std::map<std::string, std::pair<ConstitutiveLaw::Pointer, std::string>> laws_;
  std::map<std::string, std::pair<ProcessFactory, std::string>> processes_;
};

// Registers the kernel's generic entities (called once by Registry::Instance()).
void RegisterKernelComponents(Registry& registry);

}  // namespace tessera
