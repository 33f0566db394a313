// MembraneElement3D3N / 3D4N: the total-Lagrangian prestressed membrane
// (formulas in the header).
#include "elements/membrane_element.h"

#include <cmath>

#include "kernel/geometries/geometry_type.h"
#include "structural_variables.h"

namespace tessera::structural {
namespace {
// The law input/output of one thread (per node count), kept between calls.
template <int TNodes>
ConstitutiveLaw::Parameters& MembraneLawParameters() {
  static thread_local ConstitutiveLaw::Parameters parameters;
  return parameters;
}
}  // namespace

template <int TNodes>
double MembraneElement<TNodes>::Thickness() const {
  return this->GetProperties().GetValue(THICKNESS);
}

template <int TNodes>
Eigen::Vector3d MembraneElement<TNodes>::Prestress() const {
  const Properties& p = this->GetProperties();
  if (!p.Has(PRESTRESS_VECTOR)) return Eigen::Vector3d::Zero();
  const Vector s = p.GetValue(PRESTRESS_VECTOR);
  return Eigen::Vector3d(s[0], s[1], s[2]);
}

template <int TNodes>
void MembraneElement<TNodes>::Initialize(const ProcessInfo&) {
  if (!this->HasProperties()) TESSERA_ERROR(Info(), ": has no properties");
  const Properties& properties = this->GetProperties();
  const Geometry& g = this->GetGeometry();
  const GeometryType& type = g.Type();
  int order = type.DefaultIntegrationOrder();
  if (properties.Has(INTEGRATION_ORDER) && properties.GetValue(INTEGRATION_ORDER) > 0)
    order = properties.GetValue(INTEGRATION_ORDER);
  const auto& points = type.IntegrationPoints(order);
  const Positions X = this->ReferencePositions();
  Matrix dN_dxi;
  gauss_points_.resize(points.size());
  for (std::size_t p = 0; p < points.size(); ++p) {
    GaussPoint& gp = gauss_points_[p];
    type.ShapeFunctionsValues(points[p].local, gp.N.data());
    type.ShapeFunctionsLocalGradients(points[p].local, dN_dxi);
    const Gradients dN = dN_dxi.topLeftCorner<TNodes, 2>();
    const Eigen::Matrix<double, 3, 2> G = X * dN;  // covariant base vectors
    const Eigen::Vector3d normal = G.col(0).cross(G.col(1));
    const double area_density = normal.norm();
    if (!(area_density > 0.0))
      TESSERA_ERROR(Info(), ": degenerate reference surface at Gauss point ", p);
    const Eigen::Vector3d e1 = G.col(0).normalized();
    const Eigen::Vector3d e2 = (normal / area_density).cross(e1);
    Eigen::Matrix2d dY_dxi;  // rows: Y components, columns: xi directions
    dY_dxi.row(0) = e1.transpose() * G;
    dY_dxi.row(1) = e2.transpose() * G;
    gp.dN_dY = dN * dY_dxi.inverse();
    gp.weight = points[p].weight * area_density;
  }
  const ConstitutiveLaw::Pointer& prototype = this->PropertiesLaw();
  laws_.resize(points.size());
  Vector N(TNodes);
  for (std::size_t p = 0; p < points.size(); ++p) {
    laws_[p] = prototype->Clone();
    N = gauss_points_[p].N;
    laws_[p]->InitializeMaterial(properties, g, N);
  }
  initialized_for_ = &properties;
}

template <int TNodes>
template <class Fn>
void MembraneElement<TNodes>::ForEachMaterialPoint(const ProcessInfo& info, bool tangent, Fn&& fn) {
  if (laws_.empty() || initialized_for_ != &this->GetProperties()) Initialize(info);
  const Positions x = this->CurrentPositions();
  const Eigen::Vector3d prestress = Prestress();
  ConstitutiveLaw::Parameters& cl = MembraneLawParameters<TNodes>();
  cl.properties = &this->GetProperties();
  cl.process_info = &info;
  cl.geometry = &this->GetGeometry();
  cl.use_element_provided_strain = true;
  cl.compute_stress = true;
  cl.compute_constitutive_tensor = tangent;
  cl.number_of_nodes = TNodes;
  cl.dimension = 2;  // dN/dY: the membrane's reference plane
  for (std::size_t p = 0; p < gauss_points_.size(); ++p) {
    const GaussPoint& gp = gauss_points_[p];
    const Eigen::Matrix<double, 3, 2> F = x * gp.dN_dY;
    const Eigen::Matrix2d C = F.transpose() * F;
    const Eigen::Vector3d E(0.5 * (C(0, 0) - 1.0), 0.5 * (C(1, 1) - 1.0), C(0, 1));
    // In-plane stretch: F in an orthonormal basis Q of the current tangent plane.
    const Eigen::Vector3d q1 = F.col(0).normalized();
    const Eigen::Vector3d q2 = (F.col(1) - q1.dot(F.col(1)) * q1).normalized();
    Eigen::Matrix2d F_plane;
    F_plane << q1.dot(F.col(0)), q1.dot(F.col(1)), 0.0, q2.dot(F.col(1));
    const double det_f = F_plane.determinant();
    if (!(det_f > 0.0) || !std::isfinite(det_f))
      TESSERA_ERROR(Info(), ": the membrane is collapsed at Gauss point ", p,
                    " (in-plane det F = ", det_f, ")");
    BMatrix B;
    for (int a = 0; a < TNodes; ++a)
      for (int i = 0; i < 3; ++i) {
        const int c = 3 * a + i;
        B(0, c) = F(i, 0) * gp.dN_dY(a, 0);
        B(1, c) = F(i, 1) * gp.dN_dY(a, 1);
        B(2, c) = F(i, 0) * gp.dN_dY(a, 1) + F(i, 1) * gp.dN_dY(a, 0);
      }
    cl.shape_functions = gp.N.data();
    cl.shape_functions_derivatives = gp.dN_dY.data();
    cl.strain_vector = E;
    cl.deformation_gradient = F_plane;
    cl.determinant_f = det_f;
    laws_[p]->CalculateMaterialResponse(cl, ConstitutiveLaw::StressMeasure::PK2);
    if (cl.stress_vector.size() != 3 ||
        (tangent && (cl.constitutive_matrix.rows() != 3 || cl.constitutive_matrix.cols() != 3)))
      TESSERA_ERROR(Info(), ": law ", laws_[p]->Info(), " returned ", cl.stress_vector.size(),
                    " stress components; a membrane needs a 2D plane-stress law");
    const Eigen::Vector3d S = Eigen::Vector3d(cl.stress_vector) + prestress;
    Eigen::Matrix3d D = Eigen::Matrix3d::Zero();
    if (tangent) D = cl.constitutive_matrix;
    fn(p, gp, E, B, S, D);
  }
}

template <int TNodes>
void MembraneElement<TNodes>::CalculateAll(Matrix* lhs, Vector* rhs, const ProcessInfo& info) {
  const Properties& properties = this->GetProperties();
  const double thickness = Thickness();
  const double density = properties.Has(DENSITY) ? properties.GetValue(DENSITY) : 0.0;
  Eigen::Vector3d g_properties = Eigen::Vector3d::Zero();
  if (properties.Has(VOLUME_ACCELERATION)) {
    const Array3 g = properties.GetValue(VOLUME_ACCELERATION);
    g_properties = Eigen::Vector3d(g[0], g[1], g[2]);
  }
  Positions g_nodes = Positions::Zero();
  const Geometry& geometry = this->GetGeometry();
  NodalDatabase& db = *geometry.Database();
  const bool nodal_gravity = db.HasHistoricalVariable(VOLUME_ACCELERATION);
  if (nodal_gravity) {
    auto& column = db.HistoricalColumn(VOLUME_ACCELERATION);
    for (int a = 0; a < TNodes; ++a)
      for (int i = 0; i < 3; ++i) g_nodes(i, a) = column[geometry.NodeIndex(a)][i];
  }
  const bool body_force = density != 0.0 && (properties.Has(VOLUME_ACCELERATION) || nodal_gravity);

  LocalMatrix K = LocalMatrix::Zero();
  LocalVector r = LocalVector::Zero();
  ForEachMaterialPoint(info, lhs != nullptr,
                       [&](std::size_t, const GaussPoint& gp, const Eigen::Vector3d&,
                           const BMatrix& B, const Eigen::Vector3d& S, const Eigen::Matrix3d& D) {
                         const double w = gp.weight * thickness;
                         if (lhs) {
                           K.noalias() += (w * B.transpose()) * (D * B);
                           Eigen::Matrix2d S_tensor;
                           S_tensor << S[0], S[2], S[2], S[1];
                           const Eigen::Matrix<double, TNodes, TNodes> G =
                               w * gp.dN_dY * S_tensor * gp.dN_dY.transpose();
                           for (int a = 0; a < TNodes; ++a)
                             for (int b = 0; b < TNodes; ++b)
                               for (int i = 0; i < 3; ++i) K(3 * a + i, 3 * b + i) += G(a, b);
                         }
                         if (rhs) {
                           r.noalias() -= w * (B.transpose() * S);
                           if (body_force) {
                             const Eigen::Vector3d b =
                                 density * w * (g_properties + g_nodes * gp.N);
                             for (int a = 0; a < TNodes; ++a)
                               r.template segment<3>(3 * a) += gp.N[a] * b;
                           }
                         }
                       });
  if (lhs) *lhs = K;
  if (rhs) *rhs = r;
}

template <int TNodes>
void MembraneElement<TNodes>::CalculateLocalSystem(Matrix& lhs, Vector& rhs,
                                                   const ProcessInfo& info) {
  CalculateAll(&lhs, &rhs, info);
}
template <int TNodes>
void MembraneElement<TNodes>::CalculateLeftHandSide(Matrix& lhs, const ProcessInfo& info) {
  CalculateAll(&lhs, nullptr, info);
}
template <int TNodes>
void MembraneElement<TNodes>::CalculateRightHandSide(Vector& rhs, const ProcessInfo& info) {
  CalculateAll(nullptr, &rhs, info);
}

template <int TNodes>
void MembraneElement<TNodes>::CalculateMassMatrix(Matrix& mass, const ProcessInfo& info) {
  if (laws_.empty() || initialized_for_ != &this->GetProperties()) Initialize(info);
  const Properties& properties = this->GetProperties();
  const double rho = (properties.Has(DENSITY) ? properties.GetValue(DENSITY) : 0.0) * Thickness();
  Eigen::Matrix<double, TNodes, TNodes> m = Eigen::Matrix<double, TNodes, TNodes>::Zero();
  for (const GaussPoint& gp : gauss_points_)
    m.noalias() += (rho * gp.weight) * gp.N * gp.N.transpose();
  this->ExpandMass(m, info, mass);
}

template <int TNodes>
void MembraneElement<TNodes>::CalculateLumpedMassVector(Vector& mass, const ProcessInfo&) const {
  const Properties& properties = this->GetProperties();
  const double rho = (properties.Has(DENSITY) ? properties.GetValue(DENSITY) : 0.0) * Thickness();
  if (gauss_points_.empty()) TESSERA_ERROR(Info(), ": CalculateLumpedMassVector before Initialize");
  mass.setZero(3 * TNodes);
  for (const GaussPoint& gp : gauss_points_)
    for (int a = 0; a < TNodes; ++a)
      for (int i = 0; i < 3; ++i) mass[a * 3 + i] += rho * gp.weight * gp.N[a];
}

template <int TNodes>
void MembraneElement<TNodes>::CalculateOnIntegrationPoints(const Variable<Vector>& variable,
                                                           std::vector<Vector>& out,
                                                           const ProcessInfo& info) {
  out.clear();
  const auto result = this->ResultOf(variable);
  if (result == Base::VectorResult::None) return;
  const bool strain = result == Base::VectorResult::Strain;
  ForEachMaterialPoint(
      info, false,
      [&](std::size_t, const GaussPoint&, const Eigen::Vector3d& E, const BMatrix&,
          const Eigen::Vector3d& S, const Eigen::Matrix3d&) { out.emplace_back(strain ? E : S); });
}

template <int TNodes>
template <class Fn>
void MembraneElement<TNodes>::ForEachStrainEnergyDensity(const ProcessInfo& info, Fn&& fn) {
  const Eigen::Vector3d prestress = Prestress();
  // ForEachMaterialPoint leaves the point's strain in the thread's law input.
  ForEachMaterialPoint(info, false,
                       [&](std::size_t p, const GaussPoint& gp, const Eigen::Vector3d& E,
                           const BMatrix&, const Eigen::Vector3d&, const Eigen::Matrix3d&) {
                         double w = 0.0;
                         laws_[p]->CalculateValue(MembraneLawParameters<TNodes>(), STRAIN_ENERGY,
                                                  w);
                         fn(p, gp, w + prestress.dot(E));  // E: engineering shear
                       });
}

template <int TNodes>
void MembraneElement<TNodes>::CalculateOnIntegrationPoints(const Variable<double>& variable,
                                                           std::vector<double>& out,
                                                           const ProcessInfo& info) {
  out.clear();
  if (&variable != &STRAIN_ENERGY) return;
  ForEachStrainEnergyDensity(info,
                             [&](std::size_t, const GaussPoint&, double w) { out.push_back(w); });
}

template <int TNodes>
double MembraneElement<TNodes>::CalculateStrainEnergy(const ProcessInfo& info) {
  double energy = 0.0;
  ForEachStrainEnergyDensity(
      info, [&](std::size_t, const GaussPoint& gp, double w) { energy += gp.weight * w; });
  return Thickness() * energy;
}

template <int TNodes>
int MembraneElement<TNodes>::Check(const ProcessInfo& info) const {
  Element::Check(info);
  this->CheckDisplacementDofs();
  const Properties& properties = this->GetProperties();
  const ConstitutiveLaw::Pointer& law = this->PropertiesLaw();
  if (law->WorkingSpaceDimension() != 2 || law->GetStrainSize() != 3 ||
      law->Info().find("PlaneStrain") != std::string::npos)
    TESSERA_ERROR(Info(), ": constitutive law ", law->Info(),
                  " is not a 2D plane-stress law (a membrane needs one, e.g. "
                  "LinearElasticPlaneStress2DLaw)");
  law->Check(properties, this->GetGeometry(), info);
  if (!properties.Has(THICKNESS) || !(properties.GetValue(THICKNESS) > 0.0))
    TESSERA_ERROR(Info(), ": properties ", properties.Id(), " need a positive THICKNESS");
  if (properties.Has(PRESTRESS_VECTOR)) {
    const Vector s = properties.GetValue(PRESTRESS_VECTOR);
    if (s.size() != 3)
      TESSERA_ERROR(Info(), ": properties ", properties.Id(),
                    ": PRESTRESS_VECTOR needs 3 components (S11, S22, S12), got ", s.size());
    if (s[0] != s[1] || s[2] != 0.0)
      TESSERA_ERROR(Info(), ": properties ", properties.Id(), ": PRESTRESS_VECTOR [", s[0], ", ",
                    s[1], ", ", s[2],
                    "] is anisotropic; only an isotropic prestress (S11 = S22, S12 = 0) is "
                    "supported yet (the prestress axes / projection settings are not)");
  }
  const auto X = this->GetGeometry().InitialPoints();
  if (!(this->GetGeometry().Type().DomainSize({X.data(), X.size()}) > 0.0))
    TESSERA_ERROR(Info(), ": zero reference area (a degenerate element)");
  return 0;
}

template class MembraneElement<3>;
template class MembraneElement<4>;

}  // namespace tessera::structural
