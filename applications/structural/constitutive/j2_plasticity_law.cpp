// SmallStrainJ2PlasticityLaw: radial return with isotropic (linear plus
// exponential-saturation) hardening; formulas in the header.
#include "constitutive/j2_plasticity_law.h"

#include <cmath>

#include "constitutive/elastic_laws.h"
#include "constitutive/isotropic_hardening.h"
#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/registry/registry.h"
#include "structural_variables.h"

namespace tessera::structural {

void SmallStrainJ2PlasticityLaw::InitializeMaterial(const Properties&, const Geometry&,
                                                    const Vector&) {
  plastic_strain_.setZero();
  alpha_ = 0.0;
}
void SmallStrainJ2PlasticityLaw::ResetMaterial(const Properties& p, const Geometry& g,
                                               const Vector& N) {
  InitializeMaterial(p, g, N);
}

int SmallStrainJ2PlasticityLaw::Check(const Properties& properties, const Geometry&,
                                      const ProcessInfo&) const {
  ReadIsotropicConstants(properties, name_);
  ReadIsotropicHardening(properties, name_);
  return 0;
}

SmallStrainJ2PlasticityLaw::Voigt6 SmallStrainJ2PlasticityLaw::Strain3D(
    const Parameters& values) const {
  if (!values.use_element_provided_strain)
    TESSERA_ERROR(name_, ": needs the element's strain (use_element_provided_strain)");
  const Vector& e = values.strain_vector;
  if (e.size() != GetStrainSize())
    TESSERA_ERROR(name_, ": expected ", GetStrainSize(), " strain components, got ", e.size());
  Voigt6 strain = Voigt6::Zero();
  if (dimension_ == 3) {
    strain = e;
  } else {  // plane: gamma_yz = gamma_xz = 0; eps_zz = 0 (plane strain) or the
            // elastic estimate, the start of the sigma_zz = 0 iteration (plane stress)
    strain[0] = e[0];
    strain[1] = e[1];
    strain[3] = e[2];
    if (plane_ == Plane::Stress) {
      const double nu = ReadIsotropicConstants(*values.properties, name_).poisson;
      strain[2] = -nu / (1.0 - nu) * (e[0] + e[1]);
    }
  }
  return strain;
}

SmallStrainJ2PlasticityLaw::Result SmallStrainJ2PlasticityLaw::ReturnMapping(
    const Properties& properties, const Voigt6& strain) const {
  const IsotropicConstants c = ReadIsotropicConstants(properties, name_);
  const IsotropicHardening hardening = ReadIsotropicHardening(properties, name_);
  const double bulk = c.lambda + 2.0 * c.mu / 3.0;

  // Elastic trial state; tensor components (engineering shears halved).
  Voigt6 eps_e = strain;
  eps_e.tail<3>() *= 0.5;
  eps_e -= plastic_strain_;
  const double volumetric = eps_e[0] + eps_e[1] + eps_e[2];
  Voigt6 dev = eps_e;
  for (int i = 0; i < 3; ++i) dev[i] -= volumetric / 3.0;
  const Voigt6 s_trial = 2.0 * c.mu * dev;
  // |s| of a symmetric tensor: the shear components count twice.
  const double q_trial =
      std::sqrt(s_trial.head<3>().squaredNorm() + 2.0 * s_trial.tail<3>().squaredNorm());

  Matrix6 identity_dev = Matrix6::Zero();  // I_sym - 1/3 1 x 1 in the Voigt mapping
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) identity_dev(i, j) = (i == j ? 1.0 : 0.0) - 1.0 / 3.0;
    identity_dev(3 + i, 3 + i) = 0.5;
  }
  Voigt6 one = Voigt6::Zero();
  one.head<3>().setOnes();

  Result r;
  r.plastic = plastic_strain_;
  r.alpha = alpha_;
  const double sqrt23 = std::sqrt(2.0 / 3.0);
  const double f_trial = q_trial - sqrt23 * hardening.k(alpha_);
  // Relative tolerance: a trial state on the yield surface to round-off is elastic.
  if (f_trial <= 1e-12 * hardening.y0) {
    r.stress = s_trial + bulk * volumetric * one;
    r.tangent = bulk * one * one.transpose() + 2.0 * c.mu * identity_dev;
    return r;
  }
  // Newton on the consistency condition g(dgamma) = 0 (g is concave-decreasing
  // for nonnegative hardening, so Newton from 0 converges monotonically).
  double dgamma = 0.0;
  double alpha = alpha_;
  for (int it = 0;; ++it) {
    alpha = alpha_ + sqrt23 * dgamma;
    const double g = q_trial - 2.0 * c.mu * dgamma - sqrt23 * hardening.k(alpha);
    const double dg = -2.0 * c.mu - (2.0 / 3.0) * hardening.dk(alpha);
    if (std::abs(g) <= 1e-13 * hardening.y0) break;
    if (it == 50) TESSERA_ERROR(name_, ": the radial return did not converge (residual ", g, ")");
    dgamma -= g / dg;
  }
  const Voigt6 n = s_trial / q_trial;
  r.stress = s_trial - 2.0 * c.mu * dgamma * n + bulk * volumetric * one;
  r.plastic = plastic_strain_ + dgamma * n;
  r.alpha = alpha;
  const double theta = 1.0 - 2.0 * c.mu * dgamma / q_trial;
  const double theta_bar = 1.0 / (1.0 + hardening.dk(alpha) / (3.0 * c.mu)) - (1.0 - theta);
  r.tangent = bulk * one * one.transpose() + 2.0 * c.mu * theta * identity_dev -
              2.0 * c.mu * theta_bar * n * n.transpose();
  return r;
}

SmallStrainJ2PlasticityLaw::Result SmallStrainJ2PlasticityLaw::Solve(const Parameters& values,
                                                                     Voigt6& strain) const {
  strain = Strain3D(values);
  Result r = ReturnMapping(*values.properties, strain);
  if (plane_ == Plane::Stress) {
    // sigma_zz(eps_zz) = 0 by Newton with the algorithmic dsigma_zz/deps_zz
    // (positive: the bulk and shear parts dominate the plastic softening).
    const double tolerance = 1e-13 * values.properties->GetValue(YIELD_STRESS);
    for (int it = 0; std::abs(r.stress[2]) > tolerance; ++it) {
      if (it == 50)
        TESSERA_ERROR(name_, ": the plane-stress condition sigma_zz = 0 did not converge (",
                      r.stress[2], ")");
      strain[2] -= r.stress[2] / r.tangent(2, 2);
      r = ReturnMapping(*values.properties, strain);
    }
  }
  return r;
}

double& SmallStrainJ2PlasticityLaw::CalculateValue(Parameters& values,
                                                   const Variable<double>& variable,
                                                   double& value) {
  if (&variable != &STRAIN_ENERGY) return ConstitutiveLaw::CalculateValue(values, variable, value);
  if (!values.properties) TESSERA_ERROR(name_, ": called without properties");
  Voigt6 strain;
  const Result r = Solve(values, strain);
  Voigt6 elastic = strain;  // tensor components
  elastic.tail<3>() *= 0.5;
  elastic -= r.plastic;
  // 1/2 sigma : eps_e; the shear components count twice
  value = 0.5 * (r.stress.head<3>().dot(elastic.head<3>()) +
                 2.0 * r.stress.tail<3>().dot(elastic.tail<3>()));
  return value;
}

void SmallStrainJ2PlasticityLaw::Respond(Parameters& values, bool commit) {
  Voigt6 strain;
  Result r = Solve(values, strain);
  if (plane_ == Plane::Stress) {
    const Matrix6 D = r.tangent;
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) r.tangent(i, j) = D(i, j) - D(i, 2) * D(2, j) / D(2, 2);
  }
  if (commit) {
    plastic_strain_ = r.plastic;
    alpha_ = r.alpha;
  }
  if (dimension_ == 3) {
    if (values.compute_stress) values.stress_vector = r.stress;
    if (values.compute_constitutive_tensor) values.constitutive_matrix = r.tangent;
    return;
  }
  constexpr int plane[3] = {0, 1, 3};  // xx, yy, xy of the 3D Voigt vector
  if (values.compute_stress) {
    values.stress_vector.resize(3);
    for (int i = 0; i < 3; ++i) values.stress_vector[i] = r.stress[plane[i]];
  }
  if (values.compute_constitutive_tensor) {
    values.constitutive_matrix.resize(3, 3);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) values.constitutive_matrix(i, j) = r.tangent(plane[i], plane[j]);
  }
}

void SmallStrainJ2PlasticityLaw::CalculateMaterialResponse(Parameters& values,
                                                           StressMeasure measure) {
  if (measure == StressMeasure::PK1)
    TESSERA_ERROR(name_, ": the PK1 stress is not provided (small strain: ask for PK2 or Cauchy)");
  Respond(values, false);  // small strain: every stress measure is the same
}

void SmallStrainJ2PlasticityLaw::FinalizeMaterialResponse(Parameters& values, StressMeasure) {
  Respond(values, true);
}

Matrix SmallStrainJ2PlasticityLaw::PlasticStrainTensor() const {
  const Voigt6& e = plastic_strain_;
  Matrix t(3, 3);
  t << e[0], e[3], e[5], e[3], e[1], e[4], e[5], e[4], e[2];
  return t;
}

void RegisterJ2PlasticityLaws() {
  Registry& r = Registry::Instance();
  using Plane = SmallStrainJ2PlasticityLaw::Plane;
  const auto add = [&](const char* name, int dimension, Plane plane) {
    r.RegisterConstitutiveLaw(name,
                              std::make_shared<SmallStrainJ2PlasticityLaw>(name, dimension, plane));
  };
  add("SmallStrainJ2Plasticity3DLaw", 3, Plane::None);
  add("SmallStrainJ2PlasticityPlaneStrain2DLaw", 2, Plane::Strain);
  add("SmallStrainJ2PlasticityPlaneStress2DLaw", 2, Plane::Stress);
}

}  // namespace tessera::structural
