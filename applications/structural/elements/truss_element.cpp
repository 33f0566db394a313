// TrussElement3D2N: the geometrically exact bar (formulas in the header).
#include "elements/truss_element.h"

#include <cmath>

#include "structural_variables.h"

namespace tessera::structural {
namespace {
// The law input/output of one thread, kept between calls (sizes stay).
ConstitutiveLaw::Parameters& TrussLawParameters() {
  static thread_local ConstitutiveLaw::Parameters parameters;
  return parameters;
}
}  // namespace

void TrussElement3D2N::Initialize(const ProcessInfo&) {
  const Properties& properties = GetProperties();
  law_ = PropertiesLaw()->Clone();
  Vector N(2);
  N << 0.5, 0.5;
  law_->InitializeMaterial(properties, GetGeometry(), N);
  initialized_for_ = &properties;
}

TrussElement3D2N::State TrussElement3D2N::Evaluate(const ProcessInfo& info, bool tangent) {
  if (!law_ || initialized_for_ != &GetProperties()) Initialize(info);
  const Properties& properties = GetProperties();
  const Positions X = ReferencePositions();
  const Positions x = CurrentPositions();
  State s;
  s.d = x.col(1) - x.col(0);
  s.length0 = (X.col(1) - X.col(0)).norm();
  if (!(s.length0 > 0.0)) TESSERA_ERROR(Info(), ": zero reference length");
  s.strain = 0.5 * (s.d.squaredNorm() - s.length0 * s.length0) / (s.length0 * s.length0);

  ConstitutiveLaw::Parameters& cl = TrussLawParameters();
  cl.properties = &properties;
  cl.process_info = &info;
  cl.geometry = &GetGeometry();
  cl.use_element_provided_strain = true;
  cl.compute_stress = true;
  cl.compute_constitutive_tensor = tangent;
  cl.strain_vector.resize(1);
  cl.strain_vector[0] = s.strain;
  cl.deformation_gradient.resize(1, 1);
  cl.deformation_gradient(0, 0) = std::sqrt(1.0 + 2.0 * s.strain);  // axial stretch l / L
  cl.determinant_f = cl.deformation_gradient(0, 0);
  law_->CalculateMaterialResponse(cl, ConstitutiveLaw::StressMeasure::PK2);
  if (cl.stress_vector.size() != 1 || (tangent && cl.constitutive_matrix.size() != 1))
    TESSERA_ERROR(Info(), ": law ", law_->Info(), " returned ", cl.stress_vector.size(),
                  " stress components; a truss needs a one-dimensional law (TrussConstitutiveLaw)");
  const double prestress =
      properties.Has(TRUSS_PRESTRESS_PK2) ? properties.GetValue(TRUSS_PRESTRESS_PK2) : 0.0;
  s.stress = cl.stress_vector[0] + prestress;
  s.tangent = tangent ? cl.constitutive_matrix(0, 0) : 0.0;
  s.slack = TensionOnly() && s.stress < 0.0;
  if (s.slack) s.stress = s.tangent = 0.0;
  return s;
}

void TrussElement3D2N::CalculateAll(Matrix* lhs, Vector* rhs, const ProcessInfo& info) {
  const State s = Evaluate(info, lhs != nullptr);
  const double area = GetProperties().GetValue(CROSS_AREA);
  const double L = s.length0;
  if (lhs) {
    const Eigen::Matrix3d k = (area * s.tangent / (L * L * L)) * s.d * s.d.transpose() +
                              (area * s.stress / L) * Eigen::Matrix3d::Identity();
    lhs->resize(6, 6);
    lhs->topLeftCorner<3, 3>() = k;
    lhs->bottomRightCorner<3, 3>() = k;
    lhs->topRightCorner<3, 3>() = -k;
    lhs->bottomLeftCorner<3, 3>() = -k;
  }
  if (rhs) {
    const Eigen::Vector3d f = (area * s.stress / L) * s.d;  // internal force on node 2
    rhs->resize(6);
    rhs->head<3>() = f;
    rhs->tail<3>() = -f;
    // Body force, half to each node.
    const Properties& properties = GetProperties();
    Eigen::Vector3d g = Eigen::Vector3d::Zero();
    if (properties.Has(VOLUME_ACCELERATION)) {
      const Array3 a = properties.GetValue(VOLUME_ACCELERATION);
      g += Eigen::Vector3d(a[0], a[1], a[2]);
    }
    const Geometry& geometry = GetGeometry();
    NodalDatabase& db = *geometry.Database();
    if (db.HasHistoricalVariable(VOLUME_ACCELERATION)) {
      auto& column = db.HistoricalColumn(VOLUME_ACCELERATION);
      for (int a = 0; a < 2; ++a)
        for (int i = 0; i < 3; ++i) g[i] += 0.5 * column[geometry.NodeIndex(a)][i];
    }
    const double m = MassPerNode();
    if (m != 0.0) {
      rhs->head<3>() += m * g;
      rhs->tail<3>() += m * g;
    }
  }
}

void TrussElement3D2N::CalculateLocalSystem(Matrix& lhs, Vector& rhs, const ProcessInfo& info) {
  CalculateAll(&lhs, &rhs, info);
}
void TrussElement3D2N::CalculateLeftHandSide(Matrix& lhs, const ProcessInfo& info) {
  CalculateAll(&lhs, nullptr, info);
}
void TrussElement3D2N::CalculateRightHandSide(Vector& rhs, const ProcessInfo& info) {
  CalculateAll(nullptr, &rhs, info);
}

double TrussElement3D2N::MassPerNode() const {
  const Properties& p = GetProperties();
  const double rho = p.Has(DENSITY) ? p.GetValue(DENSITY) : 0.0;
  const Positions X = ReferencePositions();
  return 0.5 * rho * p.GetValue(CROSS_AREA) * (X.col(1) - X.col(0)).norm();
}

void TrussElement3D2N::CalculateMassMatrix(Matrix& mass, const ProcessInfo& info) {
  const double m = MassPerNode();  // consistent: rho A L / 6 [[2, 1], [1, 2]]
  Eigen::Matrix2d nodal;
  nodal << 2.0 * m / 3.0, m / 3.0, m / 3.0, 2.0 * m / 3.0;
  ExpandMass(nodal, info, mass);
}

void TrussElement3D2N::CalculateLumpedMassVector(Vector& mass, const ProcessInfo&) const {
  mass.setConstant(6, MassPerNode());
}

void TrussElement3D2N::CalculateOnIntegrationPoints(const Variable<Vector>& variable,
                                                    std::vector<Vector>& out,
                                                    const ProcessInfo& info) {
  out.clear();
  const VectorResult result = ResultOf(variable);
  if (result == VectorResult::None) return;
  const State s = Evaluate(info, false);
  out.emplace_back(Vector::Constant(1, result == VectorResult::Strain ? s.strain : s.stress));
}

void TrussElement3D2N::CalculateOnIntegrationPoints(const Variable<Array3>& variable,
                                                    std::vector<Array3>& out,
                                                    const ProcessInfo& info) {
  out.clear();
  if (&variable != &FORCE) return;
  const State s = Evaluate(info, false);
  // Axial force: the current-configuration force A S l / L, in the bar's local
  // x direction (Kratos' FORCE = [N, 0, 0]).
  const double l = s.d.norm();
  out.push_back({GetProperties().GetValue(CROSS_AREA) * s.stress * l / s.length0, 0.0, 0.0});
}

double TrussElement3D2N::StrainEnergyDensity(const ProcessInfo& info) {
  const State s = Evaluate(info, false);  // leaves the strain in the thread's law input
  if (s.slack) return 0.0;                 // a slack cable stores nothing
  double w = 0.0;
  law_->CalculateValue(TrussLawParameters(), STRAIN_ENERGY, w);
  const Properties& properties = GetProperties();
  if (properties.Has(TRUSS_PRESTRESS_PK2)) w += properties.GetValue(TRUSS_PRESTRESS_PK2) * s.strain;
  return w;
}

double TrussElement3D2N::CalculateStrainEnergy(const ProcessInfo& info) {
  const double w = StrainEnergyDensity(info);
  const Positions X = ReferencePositions();
  return GetProperties().GetValue(CROSS_AREA) * (X.col(1) - X.col(0)).norm() * w;
}

void TrussElement3D2N::CalculateOnIntegrationPoints(const Variable<double>& variable,
                                                    std::vector<double>& out,
                                                    const ProcessInfo& info) {
  out.clear();
  if (&variable == &STRAIN_ENERGY) out.push_back(StrainEnergyDensity(info));
}

int TrussElement3D2N::Check(const ProcessInfo& info) const {
  Element::Check(info);
  CheckDisplacementDofs();
  const Properties& properties = GetProperties();
  const ConstitutiveLaw::Pointer& law = PropertiesLaw();
  if (law->GetStrainSize() != 1)
    TESSERA_ERROR(Info(), ": constitutive law ", law->Info(), " has ", law->GetStrainSize(),
                  " strain components; a truss needs a one-dimensional law (TrussConstitutiveLaw)");
  law->Check(properties, GetGeometry(), info);
  if (!properties.Has(CROSS_AREA) || !(properties.GetValue(CROSS_AREA) > 0.0))
    TESSERA_ERROR(Info(), ": properties ", properties.Id(), " need a positive CROSS_AREA");
  const Positions X = ReferencePositions();
  if (!((X.col(1) - X.col(0)).norm() > 0.0))
    TESSERA_ERROR(Info(), ": the two nodes coincide (zero reference length)");
  return 0;
}

}  // namespace tessera::structural
