// DisplacementElement3D: what the structural line and surface elements in 3D
// space (truss, membrane) share: the dofs DISPLACEMENT_X/Y/Z per node (ordered
// node by node), the nodal value vectors, and the reference and current nodal
// positions X_a and x_a = X_a + u_a. The current positions are built from the
// displacements, not from the moved mesh, so the element is the same whether
// or not the solver moves the mesh.
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "elements/properties_law.h"
#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/model/constitutive_law.h"
#include "kernel/model/element.h"
#include "structural_variables.h"

namespace tessera::structural {

template <int TNodes>
class DisplacementElement3D : public Element {
 public:
  static constexpr int kNodes = TNodes;
  static constexpr int kDofs = 3 * TNodes;
  using Positions = Eigen::Matrix<double, 3, TNodes>;  // column a: node a
  using LocalMatrix = Eigen::Matrix<double, kDofs, kDofs>;
  using LocalVector = Eigen::Matrix<double, kDofs, 1>;

  using Element::Element;

  void EquationIdVector(std::vector<IdType>& ids, const ProcessInfo&) const override {
    const Geometry& g = GetGeometry();
    NodalDatabase& db = *g.Database();
    ids.resize(kDofs);
    for (int a = 0; a < TNodes; ++a)
      for (int i = 0; i < 3; ++i) ids[3 * a + i] = db.EquationId(*Component(i), g.NodeIndex(a));
  }
  void GetDofList(std::vector<DofReference>& dofs, const ProcessInfo&) const override {
    const Geometry& g = GetGeometry();
    dofs.resize(kDofs);
    for (int a = 0; a < TNodes; ++a)
      for (int i = 0; i < 3; ++i) dofs[3 * a + i] = {g.NodeIndex(a), Component(i)};
  }
  void GetValuesVector(Vector& values, int step = 0) const override {
    Gather(DISPLACEMENT, step, values);
  }
  void GetFirstDerivativesVector(Vector& values, int step = 0) const override {
    Gather(VELOCITY, step, values);
  }
  void GetSecondDerivativesVector(Vector& values, int step = 0) const override {
    Gather(ACCELERATION, step, values);
  }

 protected:
  static const Variable<double>* Component(int i) {
    static constexpr const Variable<double>* components[3] = {&DISPLACEMENT_X, &DISPLACEMENT_Y,
                                                              &DISPLACEMENT_Z};
    return components[i];
  }

  Positions ReferencePositions() const {
    const auto X = GetGeometry().InitialPoints();
    Positions P;
    for (int a = 0; a < TNodes; ++a)
      for (int i = 0; i < 3; ++i) P(i, a) = X[a][i];
    return P;
  }
  Positions CurrentPositions() const {
    const Geometry& g = GetGeometry();
    auto& column = g.Database()->HistoricalColumn(DISPLACEMENT);
    Positions P = ReferencePositions();
    for (int a = 0; a < TNodes; ++a)
      for (int i = 0; i < 3; ++i) P(i, a) += column[g.NodeIndex(a)][i];
    return P;
  }

  // The properties' law (the prototype each element clones).
  const ConstitutiveLaw::Pointer& PropertiesLaw() const { return structural::PropertiesLaw(*this); }

  // Which Gauss-point result a vector variable asks for: the Green-Lagrange
  // strain (also STRAIN_VECTOR), the PK2 stress (also STRESS_VECTOR), or none.
  enum class VectorResult { None, Strain, Stress };
  static VectorResult ResultOf(const Variable<Vector>& variable) {
    if (&variable == &GREEN_LAGRANGE_STRAIN_VECTOR || &variable == &STRAIN_VECTOR)
      return VectorResult::Strain;
    if (&variable == &PK2_STRESS_VECTOR || &variable == &STRESS_VECTOR) return VectorResult::Stress;
    return VectorResult::None;
  }

  // The checks every such element needs: properties, DISPLACEMENT stored, dofs.
  void CheckDisplacementDofs() const {
    if (!HasProperties()) TESSERA_ERROR(Info(), ": has no properties");
    const Geometry& g = GetGeometry();
    const NodalDatabase& db = *g.Database();
    if (!db.HasHistoricalVariable(DISPLACEMENT))
      TESSERA_ERROR(Info(), ": DISPLACEMENT must be a solution-step variable of the model part");
    for (int a = 0; a < TNodes; ++a)
      for (int i = 0; i < 3; ++i)
        if (!db.HasDof(*Component(i), g.NodeIndex(a)))
          TESSERA_ERROR(Info(), ": node ", db.Id(g.NodeIndex(a)), " has no degree of freedom ",
                        Component(i)->Name());
  }

  // Mass matrix from the nodal-mass matrix m (TNodes x TNodes, consistent),
  // lumped by row sums when the process info's COMPUTE_LUMPED_MASS_MATRIX is set.
  static void ExpandMass(const Eigen::Matrix<double, TNodes, TNodes>& m, const ProcessInfo& info,
                         Matrix& mass) {
    const bool lumped =
        info.Has(COMPUTE_LUMPED_MASS_MATRIX) && info.GetValue(COMPUTE_LUMPED_MASS_MATRIX);
    mass.setZero(kDofs, kDofs);
    for (int a = 0; a < TNodes; ++a)
      for (int b = 0; b < TNodes; ++b) {
        const double value = lumped ? (a == b ? m.row(a).sum() : 0.0) : m(a, b);
        for (int i = 0; i < 3; ++i) mass(3 * a + i, 3 * b + i) = value;
      }
  }

 private:
  void Gather(const Variable<Array3>& variable, int step, Vector& values) const {
    const Geometry& g = GetGeometry();
    values.setZero(kDofs);
    NodalDatabase& db = *g.Database();
    if (!db.HasHistoricalVariable(variable)) return;
    auto& column = db.HistoricalColumn(variable, step);
    for (int a = 0; a < TNodes; ++a)
      for (int i = 0; i < 3; ++i) values[3 * a + i] = column[g.NodeIndex(a)][i];
  }
};

}  // namespace tessera::structural
