// Discontinuum contact laws of the DEM strategy, chosen per material pair by the
// name in the material relation (DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME). Each
// law is one header in laws/ and one entry of the list in contact_laws.h; this
// file holds what they share (the pair table, the restitution map):
//
//   DEM_D_Linear_viscous_Coulomb  linear spring-dashpot + Coulomb slider (LS+D)
//   DEM_D_Hertz_viscous_Coulomb   Hertz-Mindlin with damping (HM+D)
//   DEM_D_Linear_classic          the linear law with PFC's stiffness (Potyondy &
//                                 Cundall 2004, as Kratos' law of that name):
//                                 k_n = π E* ρ with ρ = r_min² / (R_i + R_j)
//                                 between spheres (a bar of the smaller sphere's
//                                 cross-section over the centres' distance) and
//                                 ρ = R_i against a wall; k_t = k_n / (2 (1 + ν))
//                                 (the bar's G/E), ν the harmonic mean of the
//                                 two Poisson ratios; otherwise the linear law
//                                 (damping from restitution, slider)
//   DEM_D_Linear_Simple_Coulomb   Kratos' undamped linear law (Guo & Zhao 2014,
//                                 as Rangel et al. 2024 use it): k_n = E 2 R_eq
//                                 between spheres, E R against a wall (the
//                                 sphere's E alone; E, ν the mean of the two
//                                 spheres' where they differ), k_t = ν k_n, no
//                                 dashpot (the restitution is not read), and a
//                                 slider with μ = tan(STATIC_FRICTION): Kratos
//                                 reads that coefficient as a friction angle
//   DEM_D_Linear_viscous_Coulomb2D the linear law of 2D discs (CylinderParticle2D,
//                                 unit thickness): Kratos' line-contact stiffness
//                                 per unit length k_n = (π/4) E*, independent of
//                                 the radius; k_t = k_n 4G*/E* (for one material
//                                 Kratos' k_n (1-ν)/(1-ν/2)). Forces are per
//                                 metre of thickness, like the disc masses.
//   DEM_D_Linear_Walton_Braun     Walton & Braun's (1986) hysteretic spring
//                                 (laws/linear_walton_braun.h, Tessera's):
//                                 loading k_1 = 2 E* R, unloading k_2 = k_1/e²
//                                 from the largest overlap, so the rebound is
//                                 e; no dashpot; keeps six doubles of history
//
// Formulas are those of the Santasusana thesis (§2.4-§2.5), with its errata
// applied:
//   E* = ((1-nu_i^2)/E_i + (1-nu_j^2)/E_j)^-1, G* = ((2-nu_i)/G_i + (2-nu_j)/G_j)^-1,
//   G = E / (2 (1 + nu))                                                     (2.40)
//   Hertz:  k_n = 2 E* sqrt(R δ), k_t = 8 G* sqrt(R δ), F_ne = 2/3 k_n δ     (2.35, 2.38)
//   linear: k_n = 2 E* R, k_t = 8 G* R, F_ne = k_n δ: the Hertz stiffnesses at δ = R,
//           so k_t / k_n = 4 G*/E* = 2(1-nu)/(2-nu) for one material (2.33), and
//           k_n = 520.83 N/m for the thesis' B2.2 pair (E 1e5, nu 0.2, R 0.01; Table 2.2).
//   c_n = 2 ξ sqrt(m k_n), c_t = 2 ξ sqrt(m k_t)                              (2.19, 2.39)
//   F_n = max(0, F_ne + c_n δ'): no attraction while the spheres separate.
//   Tangential: F_te += k_t Δs (loading); when the normal elastic force drops the
//   old force is first scaled by k_t^{n+1}/k_t^n (erratum of 2.36b); trial =
//   F_te + c_t v_t, capped at μ F_n (2.32, 2.37), μ static while sticking,
//   dynamic once the contact slid in the previous step; with FRICTION_DECAY d
//   (and μ_s != μ_d), Kratos' μ = μ_d + (μ_s - μ_d) exp(-d |v_t|) instead.
// R and m are the pair's equivalent radius and mass (R_eq = R_i R_j/(R_i+R_j);
// against a wall R_eq = R_i and m_eq = m_i, §2.5.3); the wall's own E and nu enter
// E* and G* (a stiff wall gives thesis eq. 2.41).
//
// ξ comes from the relation's COEFFICIENT_OF_RESTITUTION through the exact map
// of the law as written (see DampingRatioForRestitution), so that a binary
// impact rebounds with the restitution asked for. For the Hertz law Kratos uses
// a fitted map instead (ThorntonDampingRatio); HertzDampingMap selects it, to
// reproduce Kratos' numbers.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "applications/dem/contact_laws/law_list.h"
#include "applications/dem/contact_laws/rolling_friction.h"
#include "kernel/core/array3.h"
#include "kernel/core/types.h"
#include "kernel/core/variable.h"

namespace tessera {
class Properties;
}

namespace tessera::dem {

// The id of the law Kratos' decks default to (DEM_D_Hertz_viscous_Coulomb,
// contact_laws.h checks it): that of a pair without relation.
inline constexpr ContactLaw kDefaultContactLaw = static_cast<ContactLaw>(1);

// The law of a Kratos name; an unknown name is an error listing the known ones.
ContactLaw ContactLawFromName(const std::string& name, const std::string& where);
// The names ContactLawFromName accepts.
std::vector<std::string> ContactLawNames();
const char* ContactLawName(ContactLaw law);

// Restitution e of a binary normal impact under `law` with damping ratio ξ,
// from the dimensionless impact equation of the law (velocity-independent for
// both laws): linear x'' = -x - 2ξx', Hertz x'' = -x^{3/2} - sqrt(6) ξ x^{1/4} x',
// with the normal force clamped at zero, integrated with RK4 to 1e-9.
double RestitutionForDampingRatio(ContactLaw law, double damping_ratio);

// The inverse: the damping ratio ξ for which the law rebounds with restitution
// e (bisection on RestitutionForDampingRatio to 1e-12 in e). e = 1 gives 0. With
// the force clamped at zero no finite damping stops the rebound completely, so
// e below kMinimumRestitution is mapped to the ξ of kMinimumRestitution.
inline constexpr double kMinimumRestitution = 1e-4;
double DampingRatioForRestitution(ContactLaw law, double restitution);

// The damping ratio of the Hertz law that Kratos' DEM_D_Hertz_viscous_Coulomb
// takes for restitution e: the fit of Thornton, Cummins & Cleary (2013),
//   ξ = sqrt(1 / (1 - (1+e)^2 exp(α(e))) - 1),  α(e) = Σ_{k=1..10} h_k e^k,
// with e raised to 0.001 below it and ξ = 0 above e = 0.999. Against the exact
// map the rebound is within 0.3 % of e for 0.01 <= e <= 0.95, 1.1 % low at
// e = 0.99 (test_dem_contact_laws.py).
double ThorntonDampingRatio(double restitution);

// Which map turns a Hertz pair's restitution into its damping ratio (the
// linear laws always use their exact map, as Kratos does).
enum class HertzDampingMap {
  kExact,        // DampingRatioForRestitution: the rebound is e
  kThorntonFit,  // ThorntonDampingRatio: Kratos' numbers
};
HertzDampingMap HertzDampingMapFromName(const std::string& name, const std::string& where);
const char* HertzDampingMapName(HertzDampingMap map);

// Which normal stiffness the 3D linear law takes (k_t follows as k_n 4G*/E*).
// The thesis' k_n = 2 E* R (B2.2's 520.83 N/m) is the default. Kratos'
// DEM_D_Linear_viscous_Coulomb instead takes k_n = β π a E* with the radius a
// of a contact circle whose sagitta is 5 % of R, a = R sqrt(0.05 (2 - 0.05)) =
// 0.31225 R, and β = 1.432 between spheres (R = R_eq), β = 1 against walls
// (R = R_i): 1.4048 E* R_eq and 0.9810 E* R_i.
enum class LinearStiffness {
  kThesis,  // 2 E* R
  kKratos,  // Kratos' k_n: 2 E* R times LinearStiffnessFactor
};
LinearStiffness LinearStiffnessFromName(const std::string& name, const std::string& where);
const char* LinearStiffnessName(LinearStiffness stiffness);
// k_n / (2 E* R) of the 3D linear law under `stiffness`, between spheres or
// against a wall.
double LinearStiffnessFactor(LinearStiffness stiffness, bool against_wall);

// The parameters of one material pair (a particle material with a particle or a
// wall material), precomputed once.
struct PairParameters {
  ContactLaw law = kDefaultContactLaw;
  // E* and G* as the law uses them: for a 3D linear pair under Kratos'
  // stiffness (LinearStiffness) both carry LinearStiffnessFactor, so that every
  // k_n = 2 E* R, k_t = 8 G* R (and c_n, c_t, Δt estimates) follows without a
  // factor in the contact loops.
  double effective_young = 0.0;  // E*
  double effective_shear = 0.0;  // G*
  double damping_ratio = 0.0;    // ξ
  double restitution = 1.0;
  double static_friction = 0.0;
  double dynamic_friction = 0.0;
  // FRICTION_DECAY d where the relation gives it and the frictions differ:
  // Kratos' blend mu = mu_d + (mu_s - mu_d) exp(-d |v_t|) with the tangential
  // sliding speed |v_t|. Else -1: mu_s while sticking, mu_d once it slid.
  double friction_decay = -1.0;
  // Rolling resistance (rolling_friction.h); kNone unless RollingFrictionOption.
  RollingFrictionModel rolling_model = RollingFrictionModel::kNone;
  double rolling_friction = 0.0;  // ROLLING_FRICTION (_WITH_WALLS against a wall)
  bool defined = false;           // false: no relation for this pair (contact is an error)
};

// The material relation of two materials as Kratos' materials assignation
// stores it: the sub-properties with id b inside material a, or id a inside
// material b; null when the materials file relates them nowhere.
const Properties* FindMaterialRelation(const Properties& a, const Properties& b);

// The mean of `variable` over the Properties in `from` that give it (or, for
// one that does not, its `fallback` where given and present); default_value
// where none gives either.
double AverageOverProperties(const std::vector<const Properties*>& from,
                             const Variable<double>& variable, const Variable<double>* fallback,
                             double default_value);

// One material's elastic constants, read from its Properties.
struct MaterialConstants {
  double young = 0.0;
  double poisson = 0.0;
  double shear = 0.0;  // E / (2 (1 + nu))
};

// The pair table: materials[a] x materials[b] -> PairParameters. The relation
// of a pair is looked up as Kratos' materials assignation stores it: the
// sub-properties with id b inside material a (or id a inside material b);
// legacy decks without relations carry the relation values on the particle
// material itself (FRICTION for both frictions, COEFFICIENT_OF_RESTITUTION, the
// law name), which are used when no sub-properties exist.
class MaterialTable {
 public:
  // `is_wall[k]`: material k is a wall material (only its E and nu are read).
  // With `rolling_friction` (RollingFrictionOption) the pairs' rolling
  // resistance models and coefficients are read too; Hertz pairs take their
  // damping ratio through `hertz_damping`, 3D linear pairs their normal
  // stiffness through `linear_stiffness`.
  void Build(const std::vector<const Properties*>& materials, const std::vector<bool>& is_wall,
             bool rolling_friction = false, HertzDampingMap hertz_damping = HertzDampingMap::kExact,
             LinearStiffness linear_stiffness = LinearStiffness::kThesis);
  const PairParameters& Pair(int a, int b) const {
    return pairs_[static_cast<std::size_t>(a) * n_ + static_cast<std::size_t>(b)];
  }
  // The parameters of a sphere of material a against a wall face of material
  // b: Pair(a, b) with the against-wall values (ROLLING_FRICTION_WITH_WALLS,
  // the linear law's wall stiffness), also where the spheres and the walls
  // share one material, as Kratos' decks often do.
  const PairParameters& WallPair(int a, int b) const {
    return wall_pairs_[static_cast<std::size_t>(a) * n_ + static_cast<std::size_t>(b)];
  }
  const MaterialConstants& Material(int a) const { return constants_[a]; }
  std::size_t size() const { return n_; }
  // A message naming both materials, for a contact between a pair without a relation.
  std::string DescribeMissingPair(int a, int b) const;

 private:
  std::size_t n_ = 0;
  std::vector<MaterialConstants> constants_;
  std::vector<PairParameters> pairs_;
  std::vector<PairParameters> wall_pairs_;
  std::vector<IdType> ids_;
  std::vector<std::string> missing_;  // why a pair is undefined
};

}  // namespace tessera::dem
