// HyperElasticPlasticJ2Law: Simo's finite-strain radial return in the
// reference configuration; the model is in the header, the tangent here.
//
// Algorithmic tangent. With symmetric gradients G_x = dx/dC of the scalars
// (J, T1, T2, ...), S = a C^-1 + phi P gives
//   CC = 2 dS/dC = 2 C^-1 (x) G_a + 2 P (x) G_phi
//                  - a (C^-1_ik C^-1_jl + C^-1_il C^-1_jk),
// using dC^-1_ij/dC_kl = -(C^-1_ik C^-1_jl + C^-1_il C^-1_jk)/2 and
//   G_J = J C^-1 / 2,  G_T1 = P,  G_T2 = 2 P C P,  d(J^-2/3) = -J^-2/3 C^-1 / 3,
//   G_Ibar = J^-2/3 (P - T1/3 C^-1) / 3,
//   G_q = -q C^-1 / 3 + mu J^-2/3 (G_T2 - 2/3 T1 P) / (2 sqrt(T2 - T1^2/3)),
//   G_dgamma = (G_q - 2 mu dgamma G_Ibar) / (2 mubar + 2/3 k')   (from d(return) = 0),
//   G_theta = -2 mu [(dgamma G_Ibar + Ibar G_dgamma) / q - Ibar dgamma G_q / q^2],
//   G_phi = mu (theta d(J^-2/3) + J^-2/3 G_theta),
//   G_a = kappa J^2 C^-1 / 2 - (T1 G_phi + phi P) / 3.
// With engineering shear strains (dE_J = gamma_kl / 2 off the diagonal),
// D(I, J) = CC_ijkl for I = (ij), J = (kl): a gradient term 2 X (x) G gives
// D(I, J) = 2 X_I G_J with tensor components G_J = G_kl. At C = P = I this is
// Hooke's lambda 1 x 1 + 2 mu I, kappa = lambda + 2 mu / 3.
#include "constitutive/hyperelastic_plastic_j2_law.h"

#include <cmath>

#include "constitutive/elastic_laws.h"
#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/registry/registry.h"

namespace tessera::structural {
namespace {

constexpr int kVoigt[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {1, 2}, {0, 2}};

Eigen::Matrix<double, 6, 1> Components(const Eigen::Matrix3d& t) {
  Eigen::Matrix<double, 6, 1> v;
  for (int I = 0; I < 6; ++I) v[I] = t(kVoigt[I][0], kVoigt[I][1]);
  return v;
}

}  // namespace

void HyperElasticPlasticJ2Law::InitializeMaterial(const Properties&, const Geometry&,
                                                  const Vector&) {
  plastic_metric_.setIdentity();
  alpha_ = 0.0;
}
void HyperElasticPlasticJ2Law::ResetMaterial(const Properties& p, const Geometry& g,
                                             const Vector& N) {
  InitializeMaterial(p, g, N);
}

int HyperElasticPlasticJ2Law::Check(const Properties& properties, const Geometry&,
                                    const ProcessInfo&) const {
  ReadIsotropicConstants(properties, name_);
  ReadIsotropicHardening(properties, name_);
  return 0;
}

Matrix HyperElasticPlasticJ2Law::PlasticStrainTensor() const {
  return 0.5 * (Tensor3(plastic_metric_.inverse()) - Tensor3::Identity());
}

HyperElasticPlasticJ2Law::Tensor3 HyperElasticPlasticJ2Law::RightCauchyGreen(
    Parameters& values) const {
  const int n = GetStrainSize();
  Tensor3 C = Tensor3::Identity();
  if (values.use_element_provided_strain) {
    const Vector& e = values.strain_vector;
    if (e.size() != n)
      TESSERA_ERROR(name_, ": the element provided ", e.size(),
                    " strain components, the law needs ", n);
    // C = I + 2 E; the engineering shear gamma_ij = 2 E_ij is C_ij itself.
    if (dimension_ == 3) {
      for (int I = 0; I < 6; ++I) {
        const int i = kVoigt[I][0], j = kVoigt[I][1];
        C(i, j) = C(j, i) = (i == j ? 1.0 + 2.0 * e[I] : e[I]);
      }
    } else {
      C(0, 0) = 1.0 + 2.0 * e[0];
      C(1, 1) = 1.0 + 2.0 * e[1];
      C(0, 1) = C(1, 0) = e[2];
    }
    return C;
  }
  const Matrix& F = values.deformation_gradient;
  if (F.rows() != dimension_ || F.cols() != dimension_)
    TESSERA_ERROR(name_, ": needs a ", dimension_, " x ", dimension_, " deformation gradient, got ",
                  F.rows(), " x ", F.cols());
  C.topLeftCorner(dimension_, dimension_) = F.transpose() * F;
  values.strain_vector.resize(n);
  if (dimension_ == 3) {
    for (int I = 0; I < 6; ++I) {
      const int i = kVoigt[I][0], j = kVoigt[I][1];
      values.strain_vector[I] = i == j ? 0.5 * (C(i, i) - 1.0) : C(i, j);
    }
  } else {
    values.strain_vector << 0.5 * (C(0, 0) - 1.0), 0.5 * (C(1, 1) - 1.0), C(0, 1);
  }
  return C;
}

HyperElasticPlasticJ2Law::Result HyperElasticPlasticJ2Law::ReturnMapping(
    const Properties& properties, const Tensor3& C, bool tangent, bool update) const {
  const IsotropicConstants c = ReadIsotropicConstants(properties, name_);
  const IsotropicHardening hardening = ReadIsotropicHardening(properties, name_);
  const double mu = c.mu;
  const double kappa = c.lambda + 2.0 * mu / 3.0;
  const double sqrt23 = std::sqrt(2.0 / 3.0);

  const double det_c = C.determinant();
  if (!(det_c > 0.0)) TESSERA_ERROR(name_, ": det C = ", det_c, " <= 0 (inverted element)");
  const double J = std::sqrt(det_c);
  const double j23 = std::pow(J, -2.0 / 3.0);
  const Tensor3 Ci = C.inverse();
  const Tensor3& P = plastic_metric_;
  const Tensor3 CP = C * P;
  const double T1 = CP.trace();
  const double T2 = (CP * CP).trace();
  const double Ibar = j23 * T1 / 3.0;
  const double mubar = mu * Ibar;
  const double root = std::sqrt(std::max(T2 - T1 * T1 / 3.0, 0.0));
  const double q = mu * j23 * root;  // |s_trial|

  Result r;
  r.alpha = alpha_;
  double dgamma = 0.0;
  double theta = 1.0;
  // Relative tolerance: a trial state on the yield surface to round-off is elastic.
  const bool plastic = q - sqrt23 * hardening.k(alpha_) > 1e-12 * hardening.y0;
  if (plastic) {
    // g(dgamma) is concave-decreasing for k' >= 0: Newton from 0 is monotone.
    for (int it = 0;; ++it) {
      r.alpha = alpha_ + sqrt23 * dgamma;
      const double g = q - 2.0 * mubar * dgamma - sqrt23 * hardening.k(r.alpha);
      if (std::abs(g) <= 1e-13 * hardening.y0) break;
      if (it == 50) TESSERA_ERROR(name_, ": the radial return did not converge (residual ", g, ")");
      dgamma -= g / (-2.0 * mubar - (2.0 / 3.0) * hardening.dk(r.alpha));
    }
    theta = 1.0 - 2.0 * mubar * dgamma / q;
  }
  const double phi = mu * j23 * theta;
  const double a = 0.5 * kappa * (J * J - 1.0) - phi * T1 / 3.0;
  r.S = a * Ci + phi * P;

  if (tangent) {
    const Tensor3 G_j23 = -j23 / 3.0 * Ci;
    Tensor3 G_theta = Tensor3::Zero();
    if (plastic) {
      const Tensor3 G_ibar = j23 / 3.0 * (P - T1 / 3.0 * Ci);
      const Tensor3 G_t2 = 2.0 * P * C * P;
      const Tensor3 G_q = -q / 3.0 * Ci + mu * j23 * (G_t2 - 2.0 / 3.0 * T1 * P) / (2.0 * root);
      const Tensor3 G_dgamma =
          (G_q - 2.0 * mu * dgamma * G_ibar) / (2.0 * mubar + 2.0 / 3.0 * hardening.dk(r.alpha));
      G_theta =
          -2.0 * mu * ((dgamma * G_ibar + Ibar * G_dgamma) / q - Ibar * dgamma * G_q / (q * q));
    }
    const Tensor3 G_phi = mu * (theta * G_j23 + j23 * G_theta);
    const Tensor3 G_a = 0.5 * kappa * J * J * Ci - (T1 * G_phi + phi * P) / 3.0;
    r.tangent = 2.0 * Components(Ci) * Components(G_a).transpose() +
                2.0 * Components(P) * Components(G_phi).transpose();
    for (int I = 0; I < 6; ++I) {
      const int i = kVoigt[I][0], j = kVoigt[I][1];
      for (int K = 0; K < 6; ++K) {
        const int k = kVoigt[K][0], l = kVoigt[K][1];
        r.tangent(I, K) -= a * (Ci(i, k) * Ci(j, l) + Ci(i, l) * Ci(j, k));
      }
    }
  }

  r.plastic = P;
  if (update && plastic) {
    // P_n+1 = theta (P - T1/3 C^-1) + y C^-1 with det(C P_n+1) = det(M + y 1) = J^2,
    // M = theta (C P - T1/3 1) traceless: y^3 - tr(M^2)/2 y + det M - J^2 = 0.
    // Newton from Simo's y = T1/3 (exact for theta = 1); the root is simple and
    // positive (y^3 dominates), and Newton converges in a few iterations.
    const Tensor3 M = theta * (CP - T1 / 3.0 * Tensor3::Identity());
    const double i2 = -0.5 * (M * M).trace();
    const double det_m = M.determinant();
    double y = T1 / 3.0;
    for (int it = 0;; ++it) {
      const double h = y * y * y + i2 * y + det_m - J * J;
      if (std::abs(h) <= 1e-15 * J * J) break;
      if (it == 50)
        TESSERA_ERROR(name_, ": the update det(Fp) = 1 did not converge (residual ", h, ")");
      y -= h / (3.0 * y * y + i2);
    }
    r.plastic = theta * (P - T1 / 3.0 * Ci) + y * Ci;
    r.plastic = 0.5 * (r.plastic + r.plastic.transpose()).eval();
  }
  return r;
}

void HyperElasticPlasticJ2Law::Respond(Parameters& values, StressMeasure measure, bool commit) {
  if (!values.properties) TESSERA_ERROR(name_, ": called without properties");
  if (measure == StressMeasure::PK1)
    TESSERA_ERROR(name_, ": the PK1 stress is not provided (ask for PK2, Kirchhoff or Cauchy)");
  const Tensor3 C = RightCauchyGreen(values);
  const Result r = ReturnMapping(*values.properties, C, values.compute_constitutive_tensor, commit);
  if (commit) {
    plastic_metric_ = r.plastic;
    alpha_ = r.alpha;
  }
  if (values.compute_stress) {
    Tensor3 stress = r.S;
    if (measure != StressMeasure::PK2) {
      // tau = F S F^T, sigma = tau / J: needs F (plane strain: F_zz = 1).
      const Matrix& f = values.deformation_gradient;
      if (f.rows() != dimension_ || f.cols() != dimension_)
        TESSERA_ERROR(name_, ": the Kirchhoff/Cauchy stress needs the deformation gradient");
      Tensor3 F = Tensor3::Identity();
      F.topLeftCorner(dimension_, dimension_) = f;
      stress = F * r.S * F.transpose();
      if (measure == StressMeasure::Cauchy) stress /= F.determinant();
    }
    const Eigen::Matrix<double, 6, 1> s = Components(stress);
    if (dimension_ == 3) {
      values.stress_vector = s;
    } else {
      values.stress_vector.resize(3);
      values.stress_vector << s[0], s[1], s[3];
    }
  }
  if (values.compute_constitutive_tensor) {
    if (dimension_ == 3) {
      values.constitutive_matrix = r.tangent;
    } else {  // E_zz = gamma_yz = gamma_xz = 0: the in-plane block
      constexpr int plane[3] = {0, 1, 3};
      values.constitutive_matrix.resize(3, 3);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          values.constitutive_matrix(i, j) = r.tangent(plane[i], plane[j]);
    }
  }
}

void HyperElasticPlasticJ2Law::CalculateMaterialResponse(Parameters& values,
                                                         StressMeasure measure) {
  Respond(values, measure, false);
}

double& HyperElasticPlasticJ2Law::CalculateValue(Parameters& values,
                                                 const Variable<double>& variable, double& value) {
  if (&variable != &STRAIN_ENERGY) return ConstitutiveLaw::CalculateValue(values, variable, value);
  if (!values.properties) TESSERA_ERROR(name_, ": called without properties");
  const Tensor3 C = RightCauchyGreen(values);
  const Result r = ReturnMapping(*values.properties, C, /*tangent=*/false, /*update=*/true);
  const IsotropicConstants c = ReadIsotropicConstants(*values.properties, name_);
  const double kappa = c.lambda + 2.0 * c.mu / 3.0;
  const double J = std::sqrt(C.determinant());  // ReturnMapping checked det C > 0
  const double trace_bbe = std::pow(J, -2.0 / 3.0) * (C * r.plastic).trace();
  value = 0.5 * kappa * (0.5 * (J * J - 1.0) - std::log(J)) + 0.5 * c.mu * (trace_bbe - 3.0);
  return value;
}

void HyperElasticPlasticJ2Law::FinalizeMaterialResponse(Parameters& values, StressMeasure measure) {
  Respond(values, measure, true);
}

void RegisterHyperElasticPlasticJ2Laws() {
  Registry& r = Registry::Instance();
  r.RegisterConstitutiveLaw(
      "HyperElasticPlasticJ23DLaw",
      std::make_shared<HyperElasticPlasticJ2Law>("HyperElasticPlasticJ23DLaw", 3));
  r.RegisterConstitutiveLaw(
      "HyperElasticPlasticJ2PlaneStrain2DLaw",
      std::make_shared<HyperElasticPlasticJ2Law>("HyperElasticPlasticJ2PlaneStrain2DLaw", 2));
}

}  // namespace tessera::structural
