// Entity: what elements and conditions share — an id, a geometry, properties,
// flags, data — and Kratos' virtual finite-element API.
//
// The virtual API is called once per element per stage of a step (assembly,
// step hooks), where the element's own work dwarfs the call. Hot per-contact or
// per-particle loops do not go through it: applications keep such data in
// arrays and run over them directly.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kernel/core/data_value_container.h"
#include "kernel/model/geometry.h"
#include "kernel/model/process_info.h"
#include "kernel/model/properties.h"

namespace tessera {

// A degree of freedom of a node: (node position, variable).
struct DofReference {
  IndexType node;
  const VariableBase* variable;
};

class Entity {
 public:
  Entity(IdType id, Geometry geometry, Properties::Pointer properties)
      : id_(id), geometry_(std::move(geometry)), properties_(std::move(properties)) {}
  virtual ~Entity() = default;

  IdType Id() const { return id_; }
  void SetId(IdType id) { id_ = id; }
  Geometry& GetGeometry() { return geometry_; }
  const Geometry& GetGeometry() const { return geometry_; }
  bool HasProperties() const { return properties_ != nullptr; }
  Properties& GetProperties() const;
  const Properties::Pointer& GetPropertiesPointer() const { return properties_; }
  void SetProperties(Properties::Pointer properties) { properties_ = std::move(properties); }

  DataValueContainer& Data() { return data_; }
  const DataValueContainer& Data() const { return data_; }
  template <class T>
  T GetValue(const Variable<T>& variable) const {
    return data_.GetValue(variable);
  }
  template <class T>
  void SetValue(const Variable<T>& variable, const T& value) {
    data_.SetValue(variable, value);
  }
  bool Has(const VariableBase& variable) const { return data_.Has(variable); }

  // Flags; ACTIVE is true unless set false (Kratos' convention).
  bool Is(const Flag& flag) const;
  void Set(const Flag& flag, bool value = true);
  FlagWord Flags() const { return flags_; }
  FlagWord DefinedFlags() const { return flags_defined_; }
  // Both words at once (a checkpoint restoring what Flags()/DefinedFlags() gave).
  void SetFlagWords(FlagWord flags, FlagWord defined) {
    flags_ = flags;
    flags_defined_ = defined;
  }

  // ---- step hooks
  virtual void Initialize(const ProcessInfo&) {}
  virtual void InitializeSolutionStep(const ProcessInfo&) {}
  virtual void InitializeNonLinearIteration(const ProcessInfo&) {}
  virtual void FinalizeNonLinearIteration(const ProcessInfo&) {}
  virtual void FinalizeSolutionStep(const ProcessInfo&) {}

  // ---- degrees of freedom
  virtual void EquationIdVector(std::vector<IdType>& ids, const ProcessInfo&) const { ids.clear(); }
  virtual void GetDofList(std::vector<DofReference>& dofs, const ProcessInfo&) const {
    dofs.clear();
  }
  virtual void GetValuesVector(Vector& values, int /*step*/ = 0) const { values.resize(0); }
  virtual void GetFirstDerivativesVector(Vector& values, int /*step*/ = 0) const {
    values.resize(0);
  }
  virtual void GetSecondDerivativesVector(Vector& values, int /*step*/ = 0) const {
    values.resize(0);
  }

  // ---- local systems (sizes follow EquationIdVector; a base entity contributes nothing)
  virtual void CalculateLocalSystem(Matrix& lhs, Vector& rhs, const ProcessInfo& info);
  virtual void CalculateLeftHandSide(Matrix& lhs, const ProcessInfo& info);
  virtual void CalculateRightHandSide(Vector& rhs, const ProcessInfo& info);
  virtual void CalculateMassMatrix(Matrix& mass, const ProcessInfo&) { mass.resize(0, 0); }
  virtual void CalculateDampingMatrix(Matrix& damping, const ProcessInfo&) { damping.resize(0, 0); }
  virtual void CalculateLumpedMassVector(Vector& mass, const ProcessInfo&) const { mass.resize(0); }
  // Explicit schemes: add this entity's forces to its nodes' data.
  virtual void AddExplicitContribution(const ProcessInfo&) {}

  // ---- results at integration points (empty when the entity has none of them)
  virtual void CalculateOnIntegrationPoints(const Variable<double>&, std::vector<double>& out,
                                            const ProcessInfo&) {
    out.clear();
  }
  virtual void CalculateOnIntegrationPoints(const Variable<Array3>&, std::vector<Array3>& out,
                                            const ProcessInfo&) {
    out.clear();
  }
  virtual void CalculateOnIntegrationPoints(const Variable<Vector>&, std::vector<Vector>& out,
                                            const ProcessInfo&) {
    out.clear();
  }
  virtual void CalculateOnIntegrationPoints(const Variable<Matrix>&, std::vector<Matrix>& out,
                                            const ProcessInfo&) {
    out.clear();
  }

  // Verifies the entity can be computed (geometry, properties, nodal data);
  // throws a tessera::Error naming what is missing. Returns 0 when fine.
  virtual int Check(const ProcessInfo& info) const;
  virtual std::string Info() const;

  // ---- checkpoint: the state that is neither nodal data nor the data
  // container (the internal variables of the laws at the integration points),
  // as doubles. SaveState appends; LoadState consumes from the front of
  // `state` what SaveState wrote (advancing the span), after building what a
  // first step would build. Stateless entities write nothing.
  virtual void SaveState(std::vector<double>& /*out*/) const {}
  virtual void LoadState(std::span<const double>& /*state*/, const ProcessInfo&) {}

 private:
  IdType id_;
  Geometry geometry_;
  Properties::Pointer properties_;
  DataValueContainer data_;
  FlagWord flags_ = 0;
  FlagWord flags_defined_ = 0;
};

}  // namespace tessera
