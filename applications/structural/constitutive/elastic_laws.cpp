// Elastic laws: Hooke / St. Venant-Kirchhoff and compressible Neo-Hookean.
//
// Neo-Hookean, derived from W(C) = lambda/2 (ln J)^2 - mu ln J + mu/2 (tr C - 3)
// with J^2 = det C, d(ln J)/dC = C^-1 / 2 and d(tr C)/dC = I:
//   S = 2 dW/dC = mu (I - C^-1) + lambda ln J C^-1,
//   CC = 2 dS/dC = lambda C^-1 (x) C^-1 + (mu - lambda ln J) (C^-1_ik C^-1_jl + C^-1_il C^-1_jk),
// using dC^-1_ij/dC_kl = -(C^-1_ik C^-1_lj + C^-1_il C^-1_kj) / 2. At C = I this is
// Hooke's lambda d_ij d_kl + mu (d_ik d_jl + d_il d_jk). Plane strain keeps
// C_33 = 1, so the in-plane block of C^-1 is the inverse of the in-plane C and
// the same formulas hold with 2 x 2 tensors.
// With engineering shear strains the Voigt tangent is D(IJ) = CC_ijkl with
// I = (ij), J = (kl): S_ij = CC_ijkl E_kl sums (k,l) and (l,k), which the factor
// 2 of gamma_kl = 2 E_kl accounts for.
#include "constitutive/elastic_laws.h"

#include <Eigen/Dense>
#include <cmath>

#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/registry/registry.h"

namespace tessera::structural {
namespace {

// Voigt index -> tensor indices.
template <int TDim>
constexpr int kVoigtSize = TDim == 3 ? 6 : 3;
constexpr int kVoigt3[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {1, 2}, {0, 2}};
constexpr int kVoigt2[3][2] = {{0, 0}, {1, 1}, {0, 1}};
template <int TDim>
constexpr int VoigtRow(int I, int k) {
  if constexpr (TDim == 3)
    return kVoigt3[I][k];
  else
    return kVoigt2[I][k];
}

template <int TDim>
using Tensor = Eigen::Matrix<double, TDim, TDim>;
template <int TDim>
using VoigtVector = Eigen::Matrix<double, kVoigtSize<TDim>, 1>;
template <int TDim>
using VoigtMatrix = Eigen::Matrix<double, kVoigtSize<TDim>, kVoigtSize<TDim>>;

// Strain Voigt vector (engineering shears) -> symmetric tensor.
template <int TDim>
Tensor<TDim> StrainTensor(const VoigtVector<TDim>& e) {
  Tensor<TDim> t;
  for (int I = 0; I < kVoigtSize<TDim>; ++I) {
    const int i = VoigtRow<TDim>(I, 0), j = VoigtRow<TDim>(I, 1);
    const double v = i == j ? e[I] : 0.5 * e[I];
    t(i, j) = v;
    t(j, i) = v;
  }
  return t;
}
template <int TDim>
VoigtVector<TDim> StrainVoigt(const Tensor<TDim>& t) {
  VoigtVector<TDim> e;
  for (int I = 0; I < kVoigtSize<TDim>; ++I) {
    const int i = VoigtRow<TDim>(I, 0), j = VoigtRow<TDim>(I, 1);
    e[I] = i == j ? t(i, i) : t(i, j) + t(j, i);
  }
  return e;
}
template <int TDim>
VoigtVector<TDim> StressVoigt(const Tensor<TDim>& t) {
  VoigtVector<TDim> s;
  for (int I = 0; I < kVoigtSize<TDim>; ++I) s[I] = t(VoigtRow<TDim>(I, 0), VoigtRow<TDim>(I, 1));
  return s;
}

template <int TDim>
VoigtMatrix<TDim> HookeMatrix(const IsotropicConstants& c, PlaneHypothesis plane) {
  VoigtMatrix<TDim> D = VoigtMatrix<TDim>::Zero();
  if (plane == PlaneHypothesis::PlaneStress) {
    const double f = c.young / (1.0 - c.poisson * c.poisson);
    D(0, 0) = D(1, 1) = f;
    D(0, 1) = D(1, 0) = f * c.poisson;
    D(2, 2) = f * 0.5 * (1.0 - c.poisson);
    return D;
  }
  constexpr int normal = TDim;  // the first TDim Voigt entries are normal
  for (int i = 0; i < normal; ++i)
    for (int j = 0; j < normal; ++j) D(i, j) = c.lambda + (i == j ? 2.0 * c.mu : 0.0);
  for (int I = normal; I < kVoigtSize<TDim>; ++I) D(I, I) = c.mu;
  return D;
}

}  // namespace

IsotropicConstants ReadIsotropicConstants(const Properties& properties, const std::string& law) {
  if (!properties.Has(YOUNG_MODULUS))
    TESSERA_ERROR(law, ": properties ", properties.Id(), " have no YOUNG_MODULUS");
  if (!properties.Has(POISSON_RATIO))
    TESSERA_ERROR(law, ": properties ", properties.Id(), " have no POISSON_RATIO");
  IsotropicConstants c{};
  c.young = properties.GetValue(YOUNG_MODULUS);
  c.poisson = properties.GetValue(POISSON_RATIO);
  if (!(c.young > 0.0))
    TESSERA_ERROR(law, ": properties ", properties.Id(), ": YOUNG_MODULUS must be positive, got ",
                  c.young);
  if (!(c.poisson > -1.0 && c.poisson < 0.5))
    TESSERA_ERROR(law, ": properties ", properties.Id(),
                  ": POISSON_RATIO must lie in (-1, 0.5), got ", c.poisson);
  c.mu = c.young / (2.0 * (1.0 + c.poisson));
  c.lambda = c.young * c.poisson / ((1.0 + c.poisson) * (1.0 - 2.0 * c.poisson));
  return c;
}

ElasticLaw::ElasticLaw(std::string name, ElasticModel model, int dimension, PlaneHypothesis plane)
    : name_(std::move(name)), model_(model), dimension_(dimension), plane_(plane) {}

void ElasticLaw::CalculateMaterialResponse(Parameters& values, StressMeasure measure) {
  if (dimension_ == 3)
    Respond<3>(values, measure);
  else
    Respond<2>(values, measure);
}

template <int TDim>
Eigen::Matrix<double, TDim == 3 ? 6 : 3, 1> ElasticLaw::Strain(Parameters& values) const {
  constexpr int n = kVoigtSize<TDim>;
  if (values.use_element_provided_strain) {
    if (values.strain_vector.size() != n)
      TESSERA_ERROR(name_, ": the element provided ", values.strain_vector.size(),
                    " strain components, the law needs ", n);
    return values.strain_vector;
  }
  if (values.deformation_gradient.rows() < TDim || values.deformation_gradient.cols() < TDim)
    TESSERA_ERROR(name_, ": needs a ", TDim, " x ", TDim, " deformation gradient");
  const Tensor<TDim> F = values.deformation_gradient.topLeftCorner<TDim, TDim>();
  const VoigtVector<TDim> strain =
      StrainVoigt<TDim>(0.5 * (F.transpose() * F - Tensor<TDim>::Identity()));
  values.strain_vector = strain;
  return strain;
}

double& ElasticLaw::CalculateValue(Parameters& values, const Variable<double>& variable,
                                   double& value) {
  if (&variable != &STRAIN_ENERGY) return ConstitutiveLaw::CalculateValue(values, variable, value);
  value = dimension_ == 3 ? StrainEnergy<3>(values) : StrainEnergy<2>(values);
  return value;
}

template <int TDim>
double ElasticLaw::StrainEnergy(Parameters& values) const {
  if (!values.properties) TESSERA_ERROR(name_, ": called without properties");
  const IsotropicConstants c = ReadIsotropicConstants(*values.properties, name_);
  const VoigtVector<TDim> strain = Strain<TDim>(values);
  if (model_ != ElasticModel::NeoHookean)  // 1/2 S . E with S = D E
    return 0.5 * strain.dot(HookeMatrix<TDim>(c, plane_) * strain);
  // Neo-Hookean, exactly the W whose derivative Respond evaluates.
  const Tensor<TDim> C = Tensor<TDim>::Identity() + 2.0 * StrainTensor<TDim>(strain);
  const double det_c = C.determinant();
  if (!(det_c > 0.0)) TESSERA_ERROR(name_, ": det C = ", det_c, " <= 0 (the element is inverted)");
  const double ln_j = 0.5 * std::log(det_c);
  const double trace_c = C.trace() + (TDim == 2 ? 1.0 : 0.0);  // plane strain: C_zz = 1
  return 0.5 * c.lambda * ln_j * ln_j - c.mu * ln_j + 0.5 * c.mu * (trace_c - 3.0);
}

template <int TDim>
void ElasticLaw::Respond(Parameters& values, StressMeasure measure) const {
  constexpr int n = kVoigtSize<TDim>;
  if (!values.properties) TESSERA_ERROR(name_, ": called without properties");
  const IsotropicConstants c = ReadIsotropicConstants(*values.properties, name_);

  const VoigtVector<TDim> strain = Strain<TDim>(values);

  VoigtVector<TDim> stress;
  VoigtMatrix<TDim> D;
  if (model_ == ElasticModel::NeoHookean) {
    const Tensor<TDim> C = Tensor<TDim>::Identity() + 2.0 * StrainTensor<TDim>(strain);
    const double det_c = C.determinant();
    if (!(det_c > 0.0))
      TESSERA_ERROR(name_, ": det C = ", det_c, " <= 0 (the element is inverted)");
    const double ln_j = 0.5 * std::log(det_c);
    const Tensor<TDim> Ci = C.inverse();
    stress = StressVoigt<TDim>(c.mu * (Tensor<TDim>::Identity() - Ci) + c.lambda * ln_j * Ci);
    const double a = c.mu - c.lambda * ln_j;
    // the tangent only when asked: the explicit internal force needs S alone
    for (int I = 0; I < (values.compute_constitutive_tensor ? n : 0); ++I) {
      const int i = VoigtRow<TDim>(I, 0), j = VoigtRow<TDim>(I, 1);
      for (int J = 0; J < n; ++J) {
        const int k = VoigtRow<TDim>(J, 0), l = VoigtRow<TDim>(J, 1);
        D(I, J) = c.lambda * Ci(i, j) * Ci(k, l) + a * (Ci(i, k) * Ci(j, l) + Ci(i, l) * Ci(j, k));
      }
    }
  } else {
    D = HookeMatrix<TDim>(c, plane_);
    stress = D * strain;
  }

  if (values.compute_stress) {
    if (measure == StressMeasure::Cauchy && model_ != ElasticModel::Linear &&
        values.deformation_gradient.rows() >= TDim && values.deformation_gradient.cols() >= TDim) {
      // sigma = F S F^T / J: the finite-strain laws answer in the measure asked.
      const Tensor<TDim> F = values.deformation_gradient.topLeftCorner<TDim, TDim>();
      Tensor<TDim> S_tensor;
      for (int I = 0; I < n; ++I) {
        const int i = VoigtRow<TDim>(I, 0), j = VoigtRow<TDim>(I, 1);
        S_tensor(i, j) = S_tensor(j, i) = stress[I];
      }
      stress = StressVoigt<TDim>(F * S_tensor * F.transpose() / F.determinant());
    }
    values.stress_vector = stress;
  }
  if (values.compute_constitutive_tensor) values.constitutive_matrix = D;
}

int ElasticLaw::Check(const Properties& properties, const Geometry&, const ProcessInfo&) const {
  ReadIsotropicConstants(properties, name_);
  return 0;
}

void RegisterElasticLaws() {
  Registry& r = Registry::Instance();
  using M = ElasticModel;
  using P = PlaneHypothesis;
  auto add = [&](const char* name, M model, int dim, P plane) {
    r.RegisterConstitutiveLaw(name, std::make_shared<ElasticLaw>(name, model, dim, plane));
  };
  add("LinearElastic3DLaw", M::Linear, 3, P::None);
  add("LinearElasticPlaneStrain2DLaw", M::Linear, 2, P::PlaneStrain);
  add("LinearElasticPlaneStress2DLaw", M::Linear, 2, P::PlaneStress);
  add("KirchhoffSaintVenant3DLaw", M::SaintVenantKirchhoff, 3, P::None);
  add("KirchhoffSaintVenantPlaneStrain2DLaw", M::SaintVenantKirchhoff, 2, P::PlaneStrain);
  add("HyperElastic3DLaw", M::NeoHookean, 3, P::None);
  add("HyperElasticPlaneStrain2DLaw", M::NeoHookean, 2, P::PlaneStrain);
}

}  // namespace tessera::structural
