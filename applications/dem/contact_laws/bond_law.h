// The KDEM bond between two bonded spheres (Kratos' DEM_KDEM; thesis §5.2,
// eqs. 5.11-5.21, with two corrections: the dashpots are c = 2 ξ sqrt(m* k) of
// eq. 2.19, as the printed c_n of §5.2 is not dimensionally consistent, and the
// friction term of the shear strength takes the compressive normal force).
//
// A bond is a short elastic bar between the centres of two spheres of one
// cohesive group, made where they touch (or nearly) at the start:
//   rest length L = the initial centre distance, cross-section A = π ((R_i + R_j) / 2)²
//   (weighted for spheres with many bonds: PolyhedronAreaRatio),
//   k_n = E A / L, k_t = G A / L (E, ν: harmonic means of the two materials,
//   G = E / (2 (1 + ν))) -- or, with BondStiffness::kKratos, the stiffness of
//   the Kratos DEM_KDEM whose test references Tessera reproduces (the
//   linear contact law's: k_n = 1.432 π E* (0.31225 R*), k_t = 4 G* k_n / E*,
//   E*, G*, R* the Hertz combinations) --, dashpots c = 2 ξ sqrt(m* k) with ξ the damping ratio
//   that the pair's contact law takes from its restitution (Kratos' DAMPING_GAMMA:
//   for a linear law the clamped spring-dashpot's map, for Hertz the Hertz map).
// Normal force k_n (L - d), in compression and in tension; the shear spring is
// incremental (F_t += k_t Δs_t at the contact point); with
// ROTATIONAL_MOMENT_COEFFICIENT c_r > 0 bending and twisting springs
// c_r E I / L and c_r G J / L (I = π r⁴ / 4, J = 2 I, A = π r²) resist the
// relative rotation, incrementally as well.
// Failure, as Kratos' KDEM (stresses in Pa):
//   shear: |F_t| / A > τ_0 + μ_i max(F_n / A, 0) with τ_0 = CONTACT_TAU_ZERO and
//   μ_i = CONTACT_INTERNAL_FRICC (compression positive: friction strengthens
//   a compressed bond only);
//   tension: |F_n| > σ_t A with the tensile strength of that Mohr-Coulomb
//   envelope, σ_t = 2 τ_0 cos φ / (1 + sin φ), φ = atan μ_i (Kratos' current
//   KDEM; its older versions and the thesis give σ_t separately, as
//   CONTACT_SIGMA_MIN in MPa, which this law does not read).
// A broken bond (IS_UNBREAKABLE false) keeps its pair: the spheres push each
// other with k_n where they come closer than L (from the plastic offset the
// bond broke with: BrokenNormal), and the shear spring slides at
// μ F_n (μ the relation's STATIC_FRICTION); dashpots act only in compression
// then, and the rotational springs are gone. (BrokenBonds "kratos" keeps the
// shear force as Kratos' DEM_Dempack does instead; see BrokenBonds.)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {
class Properties;
}

namespace tessera::dem {

class MaterialTable;

// The bond's normal and tangential springs (BondStiffness in ProjectParametersDEM).
enum class BondStiffness {
  kThesis,  // the bar: k_n = E A / L, k_t = G A / L (thesis 5.15)
  kKratos,  // Kratos' DEM_KDEM: k_n = 1.432 π E* (0.31225 R*), k_t = 4 G* k_n / E*
};
BondStiffness BondStiffnessFromName(const std::string& name, const std::string& where);
const char* BondStiffnessName(BondStiffness stiffness);

// Kratos' failure ids (mIniNeighbourFailureId).
enum class BondState : std::uint8_t {
  kIntact = 0,
  kShearFailure = 2,
  kTensionFailure = 4,
};

// How the bonds' sections are corrected (BondAreaCorrection in ProjectParametersDEM).
enum class BondAreaCorrection {
  kKratos,  // Kratos: the law's section, weighted for spheres with six bonds or more
  kVpac,    // thesis §5.3: A = π R_i R_j, α_i = ratio(n_c) 4π R̃_i² / Σ_j A (5.35-5.36)
  kGlobal,  // thesis (5.5-5.6): the law's section times α = 40 P / N_c
  kNone,    // the law's section as it is
};
BondAreaCorrection BondAreaCorrectionFromName(const std::string& name, const std::string& where);
const char* BondAreaCorrectionName(BondAreaCorrection correction);

// Where a bond's shear force acts on its spheres (BondLeverArms in ProjectParametersDEM).
enum class BondLeverArms {
  // The contact point divides the line of centres as the radii do: the
  // slip and the torques take the arms d R_i / (R_i + R_j) and d R_j / (R_i +
  // R_j), which add up to d (the pair's angular momentum is kept).
  kCentres,
  // Kratos' SphericContinuumParticle: the slip takes the arms R_i - s_i δ
  // (δ = R_i + R_j - d, the spheres' overlap, negative across a gap), the
  // torques R_i - s_i δ_b (δ_b = L - d, the bond's shortening), s_i = E_j /
  // (E_i + E_j). Across a gap g the torque arms add up to about R_i + R_j, not
  // d: the torques miss g times the shear force (Kratos' DEM_Dempack and
  // DEM_KDEM bonds as its code has them).
  kKratos,
};
BondLeverArms BondLeverArmsFromName(const std::string& name, const std::string& where);
const char* BondLeverArmsName(BondLeverArms arms);

// What a broken bond carries (BrokenBonds in ProjectParametersDEM).
enum class BrokenBonds {
  // The model: a frictional contact with the bond's stiffness (the
  // spheres push with k_n where closer than L, from the plastic offset the
  // bond broke with where its law has one (DEM_Dempack's compressive
  // branches: BrokenNormal), the shear spring slides at
  // μ max(F_n, 0)) until the crack opens: once the spheres have parted
  // beyond both L and touch (d > max(L, R_i + R_j)) the pair touches where
  // the spheres do, k_n (R_i + R_j - d), as unbonded spheres (the rest
  // length across an initial gap, up to β (R_i + R_j), is the cement's,
  // which is gone; Kratos likewise drops a parted pair from the initial
  // neighbours and meets it again as a plain contact).
  kFrictional,
  // Kratos' DEM_Dempack: the normal branch runs first and may break the bond;
  // a bond broken in tension keeps the shear force it had, turned with the
  // pair every step, with no increment and no friction limit, while the
  // spheres stay neighbours in Kratos' search (gap d - R_i - R_j at most
  // twice the search tolerance; beyond, the force is dropped for good); a
  // bond broken in shear carries no shear force from the step it breaks.
  // The normal force is the frictional model's (k_n in compression).
  kKratos,
};
BrokenBonds BrokenBondsFromName(const std::string& name, const std::string& where);
const char* BrokenBondsName(BrokenBonds broken);

// DEM_Dempack's force past the strength, in tension and in shear (BondDamage
// in ProjectParametersDEM; bond_laws/dempack_bond.h).
enum class BondDamage {
  // Kratos' DEM_Dempack: the damaged strength, (1 - D) ℱ at the largest
  // displacement reached: linear softening from ℱ at u^l to 0 at u^f.
  kKratos,
  // The thesis' (5.23-5.24) as printed: F = (1 - d) k u, d = (u - u^l) /
  // (u^f - u^l), so F = k u (u^f - u) / (u^f - u^l) on a monotonic path: it
  // still rises past ℱ where u^f > 2 u^l (to k u^f² / (4 (u^f - u^l)) at
  // u^f / 2: 1.5625 ℱ for u^f = 5 u^l), as Kratos' where u^f <= 2 u^l.
  kThesis,
};
BondDamage BondDamageFromName(const std::string& name, const std::string& where);
const char* BondDamageName(BondDamage damage);

// Bond parameters of one pair of particle materials.
struct BondParameters {
  bool defined = false;  // the pair's relation names a continuum law
  std::uint8_t law = 0;  // its position in BondLaws (bond_laws.h)
  double young = 0.0;    // harmonic mean of the materials' E
  double shear = 0.0;    // E / (2 (1 + ν)), ν the harmonic mean of their ν
  BondStiffness stiffness = BondStiffness::kThesis;
  BondDamage damage = BondDamage::kKratos;  // DEM_Dempack's force past the strength
  // The Hertz combinations E* = 1 / Σ (1 - ν²) / E and G* = 1 / Σ (2 - ν) / G
  // (BondStiffness::kKratos).
  double effective_young = 0.0, effective_shear = 0.0;
  double damping_ratio = 0.0;
  double tension_strength = 0.0;   // σ_t, Pa (from τ_0 and μ_i)
  double shear_strength = 0.0;     // τ_0, Pa
  double internal_friction = 0.0;  // μ_i
  double friction = 0.0;           // μ of a broken bond
  double rotational_moment_coefficient = 0.0;
  bool unbreakable = false;
  // Calibration factors of the springs (thesis 5.37): k_n = a E A / L, k_t = b G A / L
  // (BOND_NORMAL_STIFFNESS_FACTOR, BOND_TANGENTIAL_STIFFNESS_FACTOR; 1 by default).
  double normal_factor = 1.0, tangential_factor = 1.0;
  // β of the bond criterion |d / (R_i + R_j) - 1| <= β (thesis 5.2;
  // BOND_RANGE_BETA); negative where not given (then the search tolerance decides).
  double bond_range = -1.0;
  // DEM_Dempack (bond_laws/dempack_bond.h): u^f = (1 + damage_factor) u^l in
  // tension (DAMAGE_FACTOR), (1 + shear_energy_coef) u^l in shear
  // (SHEAR_ENERGY_COEF); the compressive branches' limits LCS_i (Pa) and
  // YRC_i = E_0 / E_i.
  double damage_factor = 0.0, shear_energy_coef = 0.0;
  double slope_limit[3] = {0.0, 0.0, 0.0};
  double slope_fraction[3] = {1.0, 1.0, 1.0};
  // E_b / (E_a + E_b) for the pair (a, b): the share of an overlap that the
  // sphere of material a takes (BondLeverArms::kKratos).
  double overlap_share = 0.5;
};

// Per pair of particle materials: the bond law of their relation
// (DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME in the sub-properties of the pair, or in
// legacy decks on the particle materials). Pairs whose relation names no
// continuum law get none (bonding them is an error of CreateBonds); a law other
// than DEM_KDEM is an error naming the pair.
class BondTable {
 public:
  // `contacts`: the contact laws' table of the same materials (the bonds'
  // damping ratios are those of the pairs' contact laws).
  void Build(const std::vector<const Properties*>& materials, const std::vector<bool>& is_wall,
             const MaterialTable& contacts, BondStiffness stiffness = BondStiffness::kThesis,
             BondDamage damage = BondDamage::kKratos);
  const BondParameters& Pair(int a, int b) const { return pairs_[Index(a, b)]; }
  // The pair's position in the table (a * materials + b), and its parameters by it.
  std::size_t Index(int a, int b) const {
    return static_cast<std::size_t>(a) * n_ + static_cast<std::size_t>(b);
  }
  const BondParameters& Parameters(std::size_t index) const { return pairs_[index]; }
  std::size_t size() const { return n_; }
  // "particle materials 1 and 2", for messages.
  std::string DescribePair(int a, int b) const;

 private:
  std::size_t n_ = 0;
  std::vector<BondParameters> pairs_;
  std::vector<std::size_t> ids_;
};

// The bond's section before weighting: Kratos' KDEM takes the circle of the
// mean radius, π ((R_i + R_j) / 2)².
double BondArea(double radius_i, double radius_j);

// Contact area weighting (thesis §5.3, VPAC; Kratos' ContactAreaWeighting,
// applied to spheres with six bonds or more): the sphere's bond sections are
// scaled by α = ratio(n) × 4π R_eff² / Σ A so that together they cover the
// polyhedron of n faces circumscribing the sphere. ratio(n) is the surface of
// the regular polyhedron of n faces over its inscribed sphere's (thesis
// Table 5.1: 4 tetrahedron 6√3/π, 6 cube 6/π, 8 octahedron 3√3/π, 12
// dodecahedron, 20 icosahedron), linear in n in between, and Kratos' 1.15 above 20.
double PolyhedronAreaRatio(int faces);
// Kratos' factor for a sphere on the specimen's skin (SKIN_SPHERE) with n >= 6
// bonds: 1.40727 (ratio(11)) × 4π R_eff² / Σ A × n / 11.
inline constexpr int kMinimumBondsForAreaWeighting = 6;

// The constants of one bond, fixed when it is made.
struct BondConstants {
  double rest_length = 0.0, area = 0.0;
  // R_i / (R_i + R_j): the contact point divides the line of centres so.
  double first_share = 0.5;
  // E_j / (E_i + E_j): the share of an overlap the first sphere takes
  // (BondLeverArms::kKratos).
  double overlap_share = 0.5;
  double normal_stiffness = 0.0, tangential_stiffness = 0.0;
  double bending_stiffness = 0.0, twisting_stiffness = 0.0;
  double normal_damping = 0.0, tangential_damping = 0.0;
};
// The stiffnesses of a bond of section `area`, masses, rest length and radii.
// Section A, masses, rest length L and radii of the two spheres.
BondConstants MakeBondConstants(const BondParameters& law, double area, double mass_i,
                                double mass_j, double rest_length, double radius_i,
                                double radius_j);

}  // namespace tessera::dem
