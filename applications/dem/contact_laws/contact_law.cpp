// Law names, the restitution <-> damping map and the material pair table.
#include "applications/dem/contact_laws/contact_law.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numbers>
#include <utility>

#include "applications/dem/contact_laws/contact_laws.h"
#include "applications/dem/dem_variables.h"
#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/model/properties.h"

namespace tessera::dem {
namespace {

constexpr const char* kHertz2DName = "DEM_D_Hertz_viscous_Coulomb2D";

// Dimensionless normal force of law L (before clamping) at overlap x, rate v,
// while in contact. The dashpot acts from the first touch (x = 0, v = 1): a
// force of 0 there would cost the map an error of the order of the step.
template <class L>
double DimensionlessForce(double xi, double x, double v) {
  x = std::max(x, 0.0);
  return L::ImpactForce(xi, x, v);
}

template <class L>
double Acceleration(double xi, double x, double v) {
  return -std::max(0.0, DimensionlessForce<L>(xi, x, v));
}

template <class L>
double RestitutionOfLaw(double xi) {
  if (!(xi > 0.0)) return 1.0;
  // Impact at unit speed from x = 0. The rebound speed is the speed at which
  // either the overlap closes again or the clamped force vanishes for good (from
  // then on nothing acts until the spheres part). Step and horizon are far
  // beyond what either law needs: the undamped contact lasts π (linear) and
  // 3.218 (Hertz) time units and damping only shortens the loaded phase.
  const double h = 2e-4;
  const int max_steps = static_cast<int>(200.0 / h);
  double x = 0.0, v = 1.0;
  for (int step = 0; step < max_steps; ++step) {
    // Classical RK4 on (x, v).
    const double k1x = v, k1v = Acceleration<L>(xi, x, v);
    const double k2x = v + 0.5 * h * k1v, k2v = Acceleration<L>(xi, x + 0.5 * h * k1x, k2x);
    const double k3x = v + 0.5 * h * k2v, k3v = Acceleration<L>(xi, x + 0.5 * h * k2x, k3x);
    const double k4x = v + h * k3v, k4v = Acceleration<L>(xi, x + h * k3x, k4x);
    const double x_new = x + h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x);
    const double v_new = v + h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
    if (v_new < 0.0) {
      const double f_old = DimensionlessForce<L>(xi, x, v);
      const double f_new = DimensionlessForce<L>(xi, x_new, v_new);
      if (x_new <= 0.0) {
        // Closed again while loaded: interpolate the speed at x = 0.
        const double s = x / (x - x_new);
        return -(v + s * (v_new - v));
      }
      if (f_new <= 0.0) {
        // The force vanished inside this step: the speed where it crossed zero.
        const double s = f_old > 0.0 ? f_old / (f_old - f_new) : 0.0;
        return -(v + s * (v_new - v));
      }
    }
    x = x_new;
    v = v_new;
  }
  return 0.0;  // still creeping after 200 time units: no rebound worth the name
}

}  // namespace

ContactLaw ContactLawFromName(const std::string& name, const std::string& where) {
  if (const int index = ContactLaws::IndexOfName(name); index >= 0)
    return static_cast<ContactLaw>(index);
  if (name == kHertz2DName)
    TESSERA_ERROR(where, ": ", kHertz2DName, " is not supported yet; 2D discs use ",
                  LinearViscousCoulomb2D::kName);
  std::string known;
  for (const std::string& entry : ContactLawNames()) known += (known.empty() ? "" : ", ") + entry;
  TESSERA_ERROR(where, ": unknown DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME '", name,
                "'; this build provides ", known);
}

std::vector<std::string> ContactLawNames() {
  std::vector<std::string> names;
  ContactLaws::ForEach([&]<class L>(std::type_identity<L>) { names.emplace_back(L::kName); });
  return names;
}

const char* ContactLawName(ContactLaw law) {
  return ContactLaws::Visit(law, []<class L>(std::type_identity<L>) { return L::kName; });
}

double RestitutionForDampingRatio(ContactLaw law, double xi) {
  return ContactLaws::Visit(
      law, [xi]<class L>(std::type_identity<L>) { return RestitutionOfLaw<L>(xi); });
}

double DampingRatioForRestitution(ContactLaw law, double restitution) {
  if (!(restitution >= 0.0 && restitution <= 1.0))
    TESSERA_ERROR("COEFFICIENT_OF_RESTITUTION must be in [0, 1], got ", restitution);
  if (restitution == 1.0) return 0.0;
  const double target = std::max(restitution, kMinimumRestitution);
  // Materials share restitutions: remember what was solved.
  static std::mutex mutex;
  static std::map<std::pair<int, double>, double> solved;
  const std::lock_guard lock(mutex);
  const auto key = std::make_pair(static_cast<int>(law), target);
  if (const auto it = solved.find(key); it != solved.end()) return it->second;

  // e(ξ) decreases from 1 at ξ = 0; bracket, then bisect.
  double lo = 0.0, hi = 1.0;
  while (RestitutionForDampingRatio(law, hi) > target) {
    lo = hi;
    hi *= 2.0;
    if (hi > 1e6) TESSERA_ERROR("no damping ratio gives restitution ", target);
  }
  for (int iteration = 0; iteration < 100 && hi - lo > 1e-13 * hi; ++iteration) {
    const double mid = 0.5 * (lo + hi);
    if (RestitutionForDampingRatio(law, mid) > target)
      lo = mid;
    else
      hi = mid;
  }
  const double xi = 0.5 * (lo + hi);
  solved[key] = xi;
  return xi;
}

double ThorntonDampingRatio(double restitution) {
  if (!(restitution >= 0.0 && restitution <= 1.0))
    TESSERA_ERROR("COEFFICIENT_OF_RESTITUTION must be in [0, 1], got ", restitution);
  if (restitution > 0.999) return 0.0;
  const double e = std::max(restitution, 0.001);
  // h_1 .. h_10 of the fit, evaluated by Horner's rule from h_10.
  constexpr double h[10] = {-6.918798, -16.41105, 146.8049,  -796.4559, 2928.711,
                            -7206.864, 11494.29,  -11342.18, 6276.757,  -1489.915};
  double alpha = 0.0;
  for (int k = 9; k >= 0; --k) alpha = e * (h[k] + alpha);
  return std::sqrt(1.0 / (1.0 - (1.0 + e) * (1.0 + e) * std::exp(alpha)) - 1.0);
}

HertzDampingMap HertzDampingMapFromName(const std::string& name, const std::string& where) {
  if (name == "exact") return HertzDampingMap::kExact;
  if (name == "thornton_fit") return HertzDampingMap::kThorntonFit;
  TESSERA_ERROR(where, ": unknown Hertz damping map '", name,
                "'; expected \"exact\" (the rebound is the restitution) or \"thornton_fit\" "
                "(Kratos' fit, to reproduce its numbers)");
}

const char* HertzDampingMapName(HertzDampingMap map) {
  return map == HertzDampingMap::kThorntonFit ? "thornton_fit" : "exact";
}

LinearStiffness LinearStiffnessFromName(const std::string& name, const std::string& where) {
  if (name == "thesis") return LinearStiffness::kThesis;
  if (name == "kratos") return LinearStiffness::kKratos;
  TESSERA_ERROR(where, ": unknown linear contact stiffness '", name,
                "'; expected \"thesis\" (k_n = 2 E* R) or \"kratos\" (Kratos' "
                "DEM_D_Linear_viscous_Coulomb, to reproduce its numbers)");
}

const char* LinearStiffnessName(LinearStiffness stiffness) {
  return stiffness == LinearStiffness::kKratos ? "kratos" : "thesis";
}

double LinearStiffnessFactor(LinearStiffness stiffness, bool against_wall) {
  if (stiffness == LinearStiffness::kThesis) return 1.0;
  // k_n = β π a E*, a = R sqrt(α (2 - α)) for the sagitta ratio α = 0.05
  // (Kratos writes sqrt(0.0975) rounded, 0.31225); β = 1.432 between spheres.
  constexpr double kChordRatio = 0.31225;
  const double beta = against_wall ? 1.0 : 1.432;
  return 0.5 * beta * std::numbers::pi * kChordRatio;
}

// ---------------------------------------------------------------- material table

namespace {

MaterialConstants ReadConstants(const Properties& p) {
  MaterialConstants c;
  c.young = p.GetValue(YOUNG_MODULUS);
  c.poisson = p.GetValue(POISSON_RATIO);
  c.shear = c.young / (2.0 * (1.0 + c.poisson));
  return c;
}

std::string Describe(const Properties& p, bool is_wall) {
  return std::string(is_wall ? "wall material " : "particle material ") + std::to_string(p.Id());
}

// The relation values of a pair. `relation` is the sub-properties of the pair
// (MaterialsDEM.json); without one (legacy decks) the values sit on the particle
// materials: restitution, law and frictions are averaged over the particle
// materials of the pair, and a wall's own FRICTION/STATIC_FRICTION, where given,
// is the friction against that wall.
struct RelationReader {
  std::vector<const Properties*> sources;  // where each value is looked up, averaged
  std::vector<const Properties*> friction_sources;
  std::string where;
  bool is_relation = false;  // sources = {the pair's material relation}
};

// The rolling resistance of a pair: the model named by the relation (or, in
// legacy decks, by the particle materials; none named means the constant-torque
// model, the only one older Kratos versions had) and ROLLING_FRICTION. Against
// a wall a material relation's ROLLING_FRICTION holds too, as Kratos' rolling
// models read it (its DEM3D_contact_models test, whose relation gives 0.01 and
// ROLLING_FRICTION_WITH_WALLS 0.02, is reproduced with 0.01); only legacy decks'
// particle materials give ROLLING_FRICTION_WITH_WALLS for walls.
void ReadRollingFriction(const RelationReader& reader, bool against_wall, PairParameters& pair) {
  std::string name;
  for (const Properties* p : reader.sources) {
    if (!p->Has(DEM_ROLLING_FRICTION_MODEL_NAME)) continue;
    const std::string model = p->GetValue(DEM_ROLLING_FRICTION_MODEL_NAME);
    if (!name.empty() && model != name)
      TESSERA_ERROR(reader.where, ": the materials name different rolling friction models (", name,
                    ", ", model, "); give the pair a material relation");
    name = model;
  }
  pair.rolling_model = name.empty() ? kRollingModelId<ConstantTorqueRolling>
                                    : RollingFrictionModelFromName(name, reader.where);
  const double plain = AverageOverProperties(reader.sources, ROLLING_FRICTION, nullptr, 0.0);
  const bool with_walls = against_wall && !reader.is_relation;
  pair.rolling_friction =
      with_walls
          ? AverageOverProperties(reader.sources, ROLLING_FRICTION_WITH_WALLS, nullptr, plain)
          : plain;
  if (!(pair.rolling_friction >= 0.0) || !std::isfinite(pair.rolling_friction))
    TESSERA_ERROR(reader.where, ": ROLLING_FRICTION",
                  with_walls ? " (ROLLING_FRICTION_WITH_WALLS where given)" : "",
                  " must be >= 0, got ", pair.rolling_friction);
  if (pair.rolling_friction == 0.0) pair.rolling_model = RollingFrictionModel::kNone;
}

}  // namespace

double AverageOverProperties(const std::vector<const Properties*>& from,
                             const Variable<double>& variable, const Variable<double>* fallback,
                             double default_value) {
  double sum = 0.0;
  int count = 0;
  for (const Properties* p : from) {
    if (p->Has(variable)) {
      sum += p->GetValue(variable);
      ++count;
    } else if (fallback && p->Has(*fallback)) {
      sum += p->GetValue(*fallback);
      ++count;
    }
  }
  return count ? sum / count : default_value;
}

const Properties* FindMaterialRelation(const Properties& a, const Properties& b) {
  if (a.HasSubProperties(b.Id())) return a.GetSubProperties(b.Id()).get();
  if (b.HasSubProperties(a.Id())) return b.GetSubProperties(a.Id()).get();
  return nullptr;
}

void MaterialTable::Build(const std::vector<const Properties*>& materials,
                          const std::vector<bool>& is_wall, bool rolling_friction,
                          HertzDampingMap hertz_damping, LinearStiffness linear_stiffness) {
  n_ = materials.size();
  constants_.clear();
  ids_.clear();
  for (const Properties* p : materials) {
    constants_.push_back(ReadConstants(*p));
    ids_.push_back(p->Id());
  }
  pairs_.assign(n_ * n_, PairParameters{});
  wall_pairs_.assign(n_ * n_, PairParameters{});
  missing_.assign(n_ * n_, std::string());
  for (std::size_t a = 0; a < n_; ++a) {
    for (std::size_t b = a; b < n_; ++b) {
      if (is_wall[a] && is_wall[b]) continue;  // walls do not touch each other
      const Properties& pa = *materials[a];
      const Properties& pb = *materials[b];
      const std::string where =
          "contact between " + Describe(pa, is_wall[a]) + " and " + Describe(pb, is_wall[b]);
      RelationReader reader;
      reader.where = where;
      const Properties* relation = FindMaterialRelation(pa, pb);
      if (relation) {
        reader.sources = {relation};
        reader.friction_sources = {relation};
        reader.is_relation = true;
      } else {
        for (std::size_t k : {a, b})
          if (!is_wall[k]) reader.sources.push_back(materials[k]);
        if (b == a) reader.sources.resize(1);
        reader.friction_sources = reader.sources;
        for (std::size_t k : {a, b})
          if (is_wall[k] && (materials[k]->Has(FRICTION) || materials[k]->Has(STATIC_FRICTION)))
            reader.friction_sources = {materials[k]};
      }

      PairParameters pair;
      // The law: every source must name the same one.
      std::string law_name;
      for (const Properties* p : reader.sources) {
        if (!p->Has(DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME)) continue;
        const std::string name = p->GetValue(DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME);
        if (!law_name.empty() && name != law_name)
          TESSERA_ERROR(where, ": the materials name different contact laws (", law_name, ", ",
                        name, "); give the pair a material relation");
        law_name = name;
      }
      const double e =
          AverageOverProperties(reader.sources, COEFFICIENT_OF_RESTITUTION, nullptr, -1.0);
      if (law_name.empty() && e < 0.0) {
        // No relation at all: fine as long as these two never touch (the
        // strategy reports a contact of such a pair).
        missing_[a * n_ + b] = missing_[b * n_ + a] =
            where +
            ": no material relation (DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME, "
            "COEFFICIENT_OF_RESTITUTION, frictions) for this pair in the materials file";
        continue;
      }
      if (law_name.empty())
        TESSERA_ERROR(where,
                      ": no DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME (give it in the material "
                      "relation of the pair in the materials file, or in the particle material)");
      pair.law = ContactLawFromName(law_name, where);

      if (e < 0.0) TESSERA_ERROR(where, ": no COEFFICIENT_OF_RESTITUTION in the material relation");
      if (!(e <= 1.0))
        TESSERA_ERROR(where, ": COEFFICIENT_OF_RESTITUTION must be in [0, 1], got ", e);
      pair.restitution = e;
      pair.damping_ratio = ContactLaws::Visit(pair.law, [&]<class L>(std::type_identity<L>) {
        return L::DampingRatio(e, hertz_damping,
                               [&] { return DampingRatioForRestitution(pair.law, e); });
      });
      // Legacy decks give one FRICTION for both coefficients.
      pair.static_friction =
          AverageOverProperties(reader.friction_sources, STATIC_FRICTION, &FRICTION, 0.0);
      pair.dynamic_friction = AverageOverProperties(reader.friction_sources, DYNAMIC_FRICTION,
                                                    &FRICTION, pair.static_friction);
      if (pair.static_friction < 0.0 || pair.dynamic_friction < 0.0)
        TESSERA_ERROR(where, ": friction coefficients must be >= 0, got static ",
                      pair.static_friction, " and dynamic ", pair.dynamic_friction);
      const double decay =
          AverageOverProperties(reader.friction_sources, FRICTION_DECAY, nullptr, -1.0);
      if (decay < 0.0 && decay != -1.0)
        TESSERA_ERROR(where, ": FRICTION_DECAY must be >= 0 (s/m), got ", decay);
      // Equal frictions need no blend (and keep the switch's arithmetic).
      if (decay >= 0.0 && pair.static_friction != pair.dynamic_friction)
        pair.friction_decay = decay;
      // (A law's own check of the relation names the pair here.)
      try {
        ContactLaws::Visit(pair.law,
                           [&]<class L>(std::type_identity<L>) { L::FinishRelation(pair); });
      } catch (const Error& error) {
        TESSERA_ERROR(where, ": ", error.what());
      }

      const MaterialConstants& ca = constants_[a];
      const MaterialConstants& cb = constants_[b];
      for (const auto* c : {&ca, &cb})
        if (!(c->young > 0.0) || !(c->poisson >= 0.0 && c->poisson <= 0.5))
          TESSERA_ERROR(where, ": YOUNG_MODULUS must be > 0 and POISSON_RATIO in [0, 0.5] (got ",
                        c->young, ", ", c->poisson, ")");
      pair.effective_young = 1.0 / ((1.0 - ca.poisson * ca.poisson) / ca.young +
                                    (1.0 - cb.poisson * cb.poisson) / cb.young);
      pair.effective_shear = 1.0 / ((2.0 - ca.poisson) / ca.shear + (2.0 - cb.poisson) / cb.shear);
      pair.defined = true;
      // What differs between a contact of two spheres and one against a wall.
      // `sphere`: the material of the sphere of the contact (of the first,
      // between two spheres).
      const auto finish = [&](PairParameters p, bool against_wall,
                              const MaterialConstants& sphere) {
        if (rolling_friction) ReadRollingFriction(reader, against_wall, p);
        const bool two_spheres = !is_wall[a] && !is_wall[b] && !against_wall;
        ContactLaws::Visit(p.law, [&]<class L>(std::type_identity<L>) {
          L::FinishMaterials(p, {ca, cb, sphere, against_wall, two_spheres, linear_stiffness});
        });
        return p;
      };
      pairs_[a * n_ + b] = pairs_[b * n_ + a] =
          finish(pair, is_wall[a] || is_wall[b], is_wall[a] ? cb : ca);
      // WallPair(a, b): a sphere of material a against a face of material b.
      wall_pairs_[a * n_ + b] = finish(pair, true, ca);
      wall_pairs_[b * n_ + a] = finish(pair, true, cb);
    }
  }
}

std::string MaterialTable::DescribeMissingPair(int a, int b) const {
  const std::string& message = missing_[static_cast<std::size_t>(a) * n_ + b];
  return message.empty() ? "no contact parameters between materials " + std::to_string(ids_[a]) +
                               " and " + std::to_string(ids_[b])
                         : message;
}

}  // namespace tessera::dem
