// The KDEM bond parameters per material pair and the constants of one bond.
#include "applications/dem/contact_laws/bond_law.h"

#include <cmath>
#include <iterator>
#include <numbers>

#include "applications/dem/contact_laws/bond_laws.h"
#include "applications/dem/contact_laws/contact_law.h"
#include "applications/dem/dem_variables.h"
#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/model/properties.h"

namespace tessera::dem {
namespace {

double HarmonicMean(double a, double b) { return a + b != 0.0 ? 2.0 * a * b / (a + b) : 0.0; }

}  // namespace

BondStiffness BondStiffnessFromName(const std::string& name, const std::string& where) {
  if (name == "thesis") return BondStiffness::kThesis;
  if (name == "kratos") return BondStiffness::kKratos;
  TESSERA_ERROR(where, ": unknown bond stiffness '", name,
                "'; expected \"thesis\" (k_n = E A / L) or \"kratos\" (Kratos' DEM_KDEM)");
}

BondAreaCorrection BondAreaCorrectionFromName(const std::string& name, const std::string& where) {
  if (name == "kratos") return BondAreaCorrection::kKratos;
  if (name == "vpac") return BondAreaCorrection::kVpac;
  if (name == "global") return BondAreaCorrection::kGlobal;
  if (name == "none") return BondAreaCorrection::kNone;
  TESSERA_ERROR(where, ": unknown bond area correction '", name,
                "'; expected \"kratos\" (Kratos' weighting of spheres with six bonds or more), "
                "\"vpac\" (thesis §5.3), \"global\" (α = 40 P / N_c) or \"none\"");
}

const char* BondAreaCorrectionName(BondAreaCorrection correction) {
  switch (correction) {
    case BondAreaCorrection::kVpac:
      return "vpac";
    case BondAreaCorrection::kGlobal:
      return "global";
    case BondAreaCorrection::kNone:
      return "none";
    default:
      return "kratos";
  }
}

BondLeverArms BondLeverArmsFromName(const std::string& name, const std::string& where) {
  if (name == "centres") return BondLeverArms::kCentres;
  if (name == "kratos") return BondLeverArms::kKratos;
  TESSERA_ERROR(where, ": unknown bond lever arms '", name,
                "'; expected \"centres\" (the contact point on the line of centres) or "
                "\"kratos\" (Kratos' continuum particle)");
}

const char* BondLeverArmsName(BondLeverArms arms) {
  return arms == BondLeverArms::kKratos ? "kratos" : "centres";
}

BrokenBonds BrokenBondsFromName(const std::string& name, const std::string& where) {
  if (name == "frictional") return BrokenBonds::kFrictional;
  if (name == "kratos") return BrokenBonds::kKratos;
  TESSERA_ERROR(where, ": unknown broken bonds '", name,
                "'; expected \"frictional\" (a frictional contact with the bond's stiffness) or "
                "\"kratos\" (Kratos' DEM_Dempack: the shear force kept after a tension failure)");
}

const char* BrokenBondsName(BrokenBonds broken) {
  return broken == BrokenBonds::kKratos ? "kratos" : "frictional";
}

BondDamage BondDamageFromName(const std::string& name, const std::string& where) {
  if (name == "kratos") return BondDamage::kKratos;
  if (name == "thesis") return BondDamage::kThesis;
  TESSERA_ERROR(where, ": unknown bond damage '", name,
                "'; expected \"kratos\" (Kratos' DEM_Dempack: (1 - D) ℱ past the strength) or "
                "\"thesis\" (the thesis' (5.23-5.24) as printed: (1 - d) k u)");
}

const char* BondDamageName(BondDamage damage) {
  return damage == BondDamage::kThesis ? "thesis" : "kratos";
}

const char* BondStiffnessName(BondStiffness stiffness) {
  return stiffness == BondStiffness::kKratos ? "kratos" : "thesis";
}

void BondTable::Build(const std::vector<const Properties*>& materials,
                      const std::vector<bool>& is_wall, const MaterialTable& contacts,
                      BondStiffness stiffness, BondDamage damage) {
  n_ = materials.size();
  pairs_.assign(n_ * n_, BondParameters{});
  ids_.clear();
  for (const Properties* p : materials) ids_.push_back(p->Id());
  for (std::size_t a = 0; a < n_; ++a) {
    for (std::size_t b = a; b < n_; ++b) {
      if (is_wall[a] || is_wall[b]) continue;  // bonds join spheres only
      const Properties& pa = *materials[a];
      const Properties& pb = *materials[b];
      const std::string where =
          "bond between " + DescribePair(static_cast<int>(a), static_cast<int>(b));
      std::vector<const Properties*> sources;
      if (const Properties* relation = FindMaterialRelation(pa, pb))
        sources = {relation};
      else
        sources =
            a == b ? std::vector<const Properties*>{&pa} : std::vector<const Properties*>{&pa, &pb};
      std::string law;
      for (const Properties* p : sources) {
        if (!p->Has(DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME)) continue;
        const std::string name = p->GetValue(DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME);
        if (!law.empty() && name != law)
          TESSERA_ERROR(where, ": the materials name different continuum laws (", law, ", ", name,
                        "); give the pair a material relation");
        law = name;
      }
      if (law.empty()) continue;
      if (BondLaws::IndexOfName(law) < 0)
        TESSERA_ERROR(where, ": DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME '", law,
                      "' is not supported; this build provides ", BondLawNames());

      BondParameters bond;
      bond.defined = true;
      const double ea = pa.GetValue(YOUNG_MODULUS), eb = pb.GetValue(YOUNG_MODULUS);
      const double nua = pa.GetValue(POISSON_RATIO), nub = pb.GetValue(POISSON_RATIO);
      if (!(ea > 0.0 && eb > 0.0) || !(nua >= 0.0 && nua <= 0.5) || !(nub >= 0.0 && nub <= 0.5))
        TESSERA_ERROR(where, ": YOUNG_MODULUS must be > 0 and POISSON_RATIO in [0, 0.5] (got ", ea,
                      ", ", nua, " and ", eb, ", ", nub, ")");
      bond.young = HarmonicMean(ea, eb);
      bond.shear = bond.young / (2.0 * (1.0 + HarmonicMean(nua, nub)));
      bond.stiffness = stiffness;
      bond.damage = damage;
      bond.effective_young = 1.0 / ((1.0 - nua * nua) / ea + (1.0 - nub * nub) / eb);
      const double ga = 0.5 * ea / (1.0 + nua), gb = 0.5 * eb / (1.0 + nub);
      bond.effective_shear = 1.0 / ((2.0 - nua) / ga + (2.0 - nub) / gb);
      // Kratos damps the bond with the pair's DAMPING_GAMMA, the damping ratio
      // its contact law takes from the restitution (linear laws: the
      // clamped spring-dashpot's map; Hertz: the Hertz map).
      const PairParameters& contact = contacts.Pair(static_cast<int>(a), static_cast<int>(b));
      if (!contact.defined)
        TESSERA_ERROR(
            where,
            ": the pair needs its contact law too (DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME, "
            "COEFFICIENT_OF_RESTITUTION): the bond takes its damping from it");
      bond.damping_ratio = contact.damping_ratio;
      bond.shear_strength = AverageOverProperties(sources, CONTACT_TAU_ZERO, nullptr, 0.0);
      bond.internal_friction = AverageOverProperties(sources, CONTACT_INTERNAL_FRICC, nullptr, 0.0);
      bond.rotational_moment_coefficient =
          AverageOverProperties(sources, ROTATIONAL_MOMENT_COEFFICIENT, nullptr, 0.0);
      // Legacy decks give one FRICTION (as the contact table reads it).
      bond.friction = AverageOverProperties(sources, STATIC_FRICTION, &FRICTION, 0.0);
      for (const auto& [name, value] :
           {std::pair<const char*, double>{"CONTACT_TAU_ZERO", bond.shear_strength},
            {"CONTACT_INTERNAL_FRICC", bond.internal_friction},
            {"ROTATIONAL_MOMENT_COEFFICIENT", bond.rotational_moment_coefficient},
            {"STATIC_FRICTION", bond.friction}})
        if (!(value >= 0.0) || !std::isfinite(value))
          TESSERA_ERROR(where, ": ", name, " must be >= 0, got ", value);
      for (const Properties* p : sources)
        if (p->Has(IS_UNBREAKABLE) && p->GetValue(IS_UNBREAKABLE)) bond.unbreakable = true;
      ReadBondLaw(law, sources, bond, where);
      bond.overlap_share = eb / (ea + eb);
      pairs_[a * n_ + b] = bond;
      bond.overlap_share = ea / (ea + eb);
      pairs_[b * n_ + a] = bond;
    }
  }
}

std::string BondTable::DescribePair(int a, int b) const {
  return "particle materials " + std::to_string(ids_[a]) + " and " + std::to_string(ids_[b]);
}

double BondArea(double radius_i, double radius_j) {
  const double mean_radius = 0.5 * (radius_i + radius_j);
  return std::numbers::pi * mean_radius * mean_radius;
}

double PolyhedronAreaRatio(int faces) {
  using std::numbers::pi;
  const double root3 = std::sqrt(3.0), root5 = std::sqrt(5.0);
  // Surface / (4π r²) of the regular polyhedra circumscribing a sphere of radius r.
  struct Point {
    int faces;
    double ratio;
  };
  const Point table[] = {
      {4, 6.0 * root3 / pi},
      {6, 6.0 / pi},
      {8, 3.0 * root3 / pi},
      {12, 150.0 / (25.0 + 11.0 * root5) * std::sqrt((5.0 + 2.0 * root5) / 5.0) / pi},
      {20, 30.0 * root3 / (7.0 + 3.0 * root5) / pi},
  };
  if (faces > 20) return 1.15;
  if (faces <= 4) return table[0].ratio;
  for (std::size_t k = 1; k < std::size(table); ++k)
    if (faces <= table[k].faces) {
      const Point& a = table[k - 1];
      const Point& b = table[k];
      return a.ratio + (b.ratio - a.ratio) * (faces - a.faces) / (b.faces - a.faces);
    }
  return table[4].ratio;
}

BondConstants MakeBondConstants(const BondParameters& law, double area, double mass_i,
                                double mass_j, double rest_length, double radius_i,
                                double radius_j) {
  BondConstants c;
  c.rest_length = rest_length;
  c.area = area;
  if (law.stiffness == BondStiffness::kKratos) {
    // The linear contact law's stiffness (contact_law.h, LinearStiffness::kKratos)
    // at the pair's equivalent radius; the section still sets the strengths
    // and the bending and twisting springs.
    const double pair_radius = radius_i * radius_j / (radius_i + radius_j);
    c.normal_stiffness = 1.432 * std::numbers::pi * law.effective_young * (0.31225 * pair_radius);
    c.tangential_stiffness = 4.0 * law.effective_shear * c.normal_stiffness / law.effective_young;
  } else {
    c.normal_stiffness = law.normal_factor * law.young * c.area / rest_length;
    c.tangential_stiffness = law.tangential_factor * law.shear * c.area / rest_length;
  }
  // Second moment of the circular section: π r⁴ / 4 = A² / (4 π); polar: twice that.
  const double second_moment = c.area * c.area / (4.0 * std::numbers::pi);
  c.bending_stiffness = law.rotational_moment_coefficient * law.young * second_moment / rest_length;
  c.twisting_stiffness =
      law.rotational_moment_coefficient * law.shear * 2.0 * second_moment / rest_length;
  const double reduced_mass = mass_i * mass_j / (mass_i + mass_j);
  c.normal_damping = 2.0 * law.damping_ratio * std::sqrt(reduced_mass * c.normal_stiffness);
  const bool shear_dashpot =
      BondLaws::Visit(static_cast<ContactLaw>(law.law),
                      []<class L>(std::type_identity<L>) { return L::kShearDashpot; });
  c.tangential_damping =
      shear_dashpot ? 2.0 * law.damping_ratio * std::sqrt(reduced_mass * c.tangential_stiffness)
                    : 0.0;
  return c;
}

}  // namespace tessera::dem
