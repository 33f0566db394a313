// Bonds of the continuum strategy: creation, renumbering, the time-step
// estimate and the bonds' energies and stresses (their forces: bond_forces.cpp).
#include "applications/dem/particles/continuum_bonds.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <numeric>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "applications/dem/contact_laws/bond_laws.h"
#include "applications/dem/particles/stress_moment.h"
#include "applications/dem/utilities/neighbour_search.h"
#include "kernel/core/error.h"

namespace tessera::dem {
namespace {

constexpr std::uint32_t kRemoved = std::numeric_limits<std::uint32_t>::max();

template <class T>
void Permute(std::vector<T>& column, const std::vector<std::uint32_t>& order) {
  std::vector<T> sorted(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) sorted[k] = column[order[k]];
  column.swap(sorted);
}

// Permute for a column of `slots` slots of `size` bonds, slot by slot.
void PermuteSlots(std::vector<double>& column, std::size_t slots, std::size_t size,
                  const std::vector<std::uint32_t>& order) {
  std::vector<double> sorted(order.size() * slots);
  for (std::size_t k = 0; k < slots; ++k)
    for (std::size_t q = 0; q < order.size(); ++q)
      sorted[k * order.size() + q] = column[k * size + order[q]];
  column.swap(sorted);
}

}  // namespace

void ContinuumBonds::GetLawState(std::size_t b, double* out) const {
  for (std::size_t k = 0; k < state_stride; ++k) out[k] = LawState(b, k);
}

void ContinuumBonds::SetLawState(std::size_t b, const double* in) {
  for (std::size_t k = 0; k < state_stride; ++k) LawState(b, k) = in[k];
}

std::size_t ContinuumBonds::NumberIntact() const {
  return static_cast<std::size_t>(
      std::count(state.begin(), state.end(), static_cast<std::uint8_t>(BondState::kIntact)));
}

std::vector<double> ContinuumBonds::BrokenShare(std::size_t rows) const {
  std::vector<double> bonds(rows, 0.0), broken(rows, 0.0);
  for (std::size_t b = 0; b < size(); ++b) {
    const double is_broken = state[b] != static_cast<std::uint8_t>(BondState::kIntact);
    for (const std::uint32_t row : {first[b], second[b]}) {
      bonds[row] += 1.0;
      broken[row] += is_broken;
    }
  }
  for (std::size_t i = 0; i < rows; ++i) broken[i] = bonds[i] > 0.0 ? broken[i] / bonds[i] : 1.0;
  return broken;
}

void ContinuumBonds::Renumber(const std::vector<std::uint32_t>& new_index) {
  std::vector<std::uint32_t> kept;
  kept.reserve(size());
  for (std::size_t b = 0; b < size(); ++b) {
    const std::uint32_t i = new_index[first[b]], j = new_index[second[b]];
    if (i == kRemoved || j == kRemoved) continue;
    first[b] = i, second[b] = j;
    if (i > j) {
      std::swap(first[b], second[b]);
      shear_force[b] = -shear_force[b];
      moment[b] = -moment[b];
      direction[b] = -direction[b];
      constants[b].first_share = 1.0 - constants[b].first_share;
      constants[b].overlap_share = 1.0 - constants[b].overlap_share;
    }
    kept.push_back(static_cast<std::uint32_t>(b));
  }
  std::stable_sort(kept.begin(), kept.end(), [&](std::uint32_t a, std::uint32_t b) {
    return first[a] != first[b] ? first[a] < first[b] : second[a] < second[b];
  });
  PermuteSlots(law_state, state_stride, size(), kept);  // by the old size: before `first`
  Permute(first, kept), Permute(second, kept), Permute(constants, kept), Permute(law, kept);
  Permute(state, kept), Permute(opened, kept), Permute(normal_force, kept);
  Permute(shear_force, kept), Permute(moment, kept), Permute(direction, kept);
  Permute(failure_criterion, kept);
  row_start.clear();  // AddBondForces indexes the new numbering
}

void ContinuumBonds::DropBondedPairs(std::vector<std::uint32_t>& candidate_first,
                                     std::vector<std::uint32_t>& candidate_second) const {
  std::size_t out = 0, b = 0;
  for (std::size_t c = 0; c < candidate_first.size(); ++c) {
    const std::uint32_t i = candidate_first[c], j = candidate_second[c];
    while (b < size() && (first[b] < i || (first[b] == i && second[b] < j))) ++b;
    if (b < size() && first[b] == i && second[b] == j) continue;
    candidate_first[out] = i, candidate_second[out] = j, ++out;
  }
  candidate_first.resize(out);
  candidate_second.resize(out);
}

BondEnergy ContinuumBonds::ElasticEnergy(const std::uint8_t* counted) const {
  BondEnergy energy;
  for (std::size_t b = 0; b < size(); ++b) {
    if (counted && !counted[first[b]]) continue;
    const BondConstants& c = constants[b];
    const bool intact = state[b] == static_cast<std::uint8_t>(BondState::kIntact);
    if (!intact && normal_force[b] <= 0.0) continue;
    energy.normal += 0.5 * normal_force[b] * normal_force[b] / c.normal_stiffness;
    energy.tangential += 0.5 * Dot(shear_force[b], shear_force[b]) / c.tangential_stiffness;
    if (!intact) continue;
    const double twist = Dot(moment[b], direction[b]);
    const Array3 bend = moment[b] - twist * direction[b];
    if (c.bending_stiffness > 0.0) energy.tangential += 0.5 * Dot(bend, bend) / c.bending_stiffness;
    if (c.twisting_stiffness > 0.0) energy.tangential += 0.5 * twist * twist / c.twisting_stiffness;
  }
  return energy;
}

double ContinuumBonds::CriticalTimeStep(const ParticleStorage& p,
                                        double virtual_mass_coefficient) const {
  const double c = virtual_mass_coefficient;
  std::vector<double> stiffness(p.size(), 0.0), damping(p.size(), 0.0);
  for (std::size_t b = 0; b < size(); ++b) {
    const std::uint32_t i = first[b], j = second[b];
    const BondConstants& k = constants[b];
    const double arm_i = k.rest_length * k.first_share;
    const double arm_j = k.rest_length - arm_i;
    // 1/sqrt(mass), arm/sqrt(inertia), 1/sqrt(inertia) of both spheres (masses m/c).
    const double si = std::sqrt(c / p.mass[i]), sj = std::sqrt(c / p.mass[j]);
    const double qi = std::sqrt(c / p.inertia[i]), qj = std::sqrt(c / p.inertia[j]);
    const double ri = arm_i * qi, rj = arm_j * qj;
    const double shear_row = si + sj + ri + rj;
    for (const auto& [row, s, r, q] : {std::tuple{i, si, ri, qi}, std::tuple{j, sj, rj, qj}}) {
      stiffness[row] +=
          std::max({k.normal_stiffness * s * (si + sj), k.tangential_stiffness * s * shear_row,
                    k.tangential_stiffness * r * shear_row + k.bending_stiffness * q * (qi + qj),
                    k.twisting_stiffness * q * (qi + qj)});
      damping[row] +=
          std::max({k.normal_damping * s * (si + sj), k.tangential_damping * s * shear_row,
                    k.tangential_damping * r * shear_row});
    }
  }
  double step = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!(stiffness[i] > 0.0)) continue;
    const double zeta = 0.5 * damping[i];
    step = std::min(step, 2.0 / (std::sqrt(stiffness[i] + zeta * zeta) + zeta));
  }
  return step;
}

void CreateBonds(const ParticleStorage& rows, const std::vector<int>& cohesive_group,
                 const std::vector<std::uint8_t>& skin, const BondTable& table, double largest_gap,
                 const PeriodicBox& periodic, ContinuumBonds& bonds, const BondAreaSettings& area) {
  if (!(largest_gap >= 0.0))
    TESSERA_ERROR(
        "bonds: the search tolerance (the largest gap between spheres that are "
        "bonded) must be >= 0, got ",
        largest_gap);
  bonds = ContinuumBonds{};
  bool any_group = false;
  for (int group : cohesive_group) any_group = any_group || group != 0;
  // (A piece's global counts are collective: every rank goes on to them.)
  if (!any_group && !area.global_counts) return;
  // Kratos bonds the pairs its first search finds, each sphere's search radius
  // R + SearchTolerance: gaps up to twice the tolerance. A sliver more than the
  // gap catches spheres exactly at that distance; a bond range β reaches
  // β (R_i + R_j).
  largest_gap *= 2.0;
  double largest = 0.0, largest_range = 0.0;
  for (double r : rows.radius) largest = std::max(largest, r);
  for (std::size_t a = 0; a < table.size(); ++a)
    for (std::size_t b = 0; b < table.size(); ++b)
      if (table.Pair(a, b).defined)
        largest_range = std::max(largest_range, table.Pair(a, b).bond_range);
  const double reach = std::max(largest_gap, 2.0 * largest_range * largest) + 1e-9 * largest;
  NeighbourSearch search;
  if (periodic.active) search.SetPeriodicBox(periodic);
  std::vector<std::uint32_t> first, second;
  search.FindParticlePairs(rows.position.Values(), rows.radius, reach, first, second);
  for (std::size_t c = 0; c < first.size(); ++c) {
    const std::uint32_t i = first[c], j = second[c];
    const int group = cohesive_group[i];
    if (group == 0 || group != cohesive_group[j]) continue;
    if (rows.cluster[i] != 0 || rows.cluster[j] != 0) continue;  // clusters are rigid already
    Array3 d = rows.position[j] - rows.position[i];
    if (periodic.active) d = periodic.Nearest(d);
    const double distance = Norm(d);
    const int a = rows.material[i], b = rows.material[j];
    const BondParameters& law = table.Pair(a, b);
    const double contact = rows.radius[i] + rows.radius[j];
    if (law.defined && law.bond_range >= 0.0) {
      if (std::abs(distance / contact - 1.0) > law.bond_range) continue;
    } else if (distance > contact + largest_gap) {
      continue;
    }
    if (!law.defined)
      TESSERA_ERROR("spheres (elements ", rows.element_id[i], " and ", rows.element_id[j],
                    ") share COHESIVE_GROUP ", group, " and touch, but the relation of ",
                    table.DescribePair(a, b),
                    " names no DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME (expected one of ",
                    BondLawNames(), ")");
    if (!(distance > 0.0))
      TESSERA_ERROR("spheres (elements ", rows.element_id[i], " and ", rows.element_id[j],
                    ") have the same centre; they cannot be bonded");
    bonds.first.push_back(i);
    bonds.second.push_back(j);
    bonds.constants.push_back(BondConstants{.rest_length = distance});
    bonds.law.push_back(static_cast<std::uint32_t>(table.Index(a, b)));
    bonds.direction.push_back((1.0 / distance) * d);
  }
  const std::size_t m = bonds.first.size();

  // The law's section of each bond (or, for VPAC, π R_i R_j: thesis 5.33).
  std::vector<double> base(m);
  for (std::size_t b = 0; b < m; ++b) {
    const std::uint32_t i = bonds.first[b], j = bonds.second[b];
    const double ri = rows.radius[i], rj = rows.radius[j];
    const BondParameters& law = table.Pair(rows.material[i], rows.material[j]);
    base[b] =
        area.correction == BondAreaCorrection::kVpac
            ? std::numbers::pi * ri * rj
            : BondLaws::Visit(static_cast<ContactLaw>(law.law),
                              [&]<class L>(std::type_identity<L>) { return L::BaseArea(ri, rj); });
  }
  // Each sphere's weight of its bond sections (bond_law.h, PolyhedronAreaRatio):
  // R_eff, the mean over its bonds of (d + R_i - R_j) / 2 (where the bond's
  // section lies between the centres), and the sum of its unweighted sections.
  const std::size_t n = rows.size();
  std::vector<int> count(n, 0);
  std::vector<double> radius_sum(n, 0.0), area_sum(n, 0.0);
  for (std::size_t b = 0; b < m; ++b) {
    const std::uint32_t i = bonds.first[b], j = bonds.second[b];
    const double length = bonds.constants[b].rest_length;
    for (const auto& [self, other] : {std::pair{i, j}, std::pair{j, i}}) {
      ++count[self];
      radius_sum[self] += 0.5 * (length + rows.radius[self] - rows.radius[other]);
      area_sum[self] += base[b];
    }
  }
  std::vector<double> weight(n, 1.0);
  if (area.correction == BondAreaCorrection::kKratos ||
      area.correction == BondAreaCorrection::kVpac) {
    const bool kratos = area.correction == BondAreaCorrection::kKratos;
    // VPAC on spheres with four bonds or more (Table 5.1 starts at the
    // tetrahedron), skin spheres excepted: the thesis leaves the boundary's
    // correction open (§5.3 step 8), and a sphere on the skin misses the
    // neighbours that the polyhedron's faces stand for.
    const int fewest = kratos ? kMinimumBondsForAreaWeighting : 4;
    for (std::size_t i = 0; i < n; ++i) {
      if (count[i] < fewest) continue;
      const bool on_skin = !skin.empty() && skin[i];
      if (!kratos && on_skin) continue;
      // Kratos: R_eff, where the bonds' sections lie; VPAC: the sphere's
      // radius (thesis §5.3 step 3, the tangent packing's R̃ = R_i).
      const double effective_radius = kratos ? radius_sum[i] / count[i] : rows.radius[i];
      const double sphere_area = 4.0 * std::numbers::pi * effective_radius * effective_radius;
      if (kratos)
        weight[i] = on_skin ? PolyhedronAreaRatio(11) * sphere_area / area_sum[i] * count[i] / 11.0
                            : PolyhedronAreaRatio(count[i]) * sphere_area / area_sum[i];
      else
        weight[i] = VpacAreaRatio(count[i]) * sphere_area / area_sum[i];
    }
  } else if (area.correction == BondAreaCorrection::kGlobal) {
    // α = 40 P / N_c (thesis 5.6), N_c the mean bonds per bonded sphere.
    std::int64_t total = static_cast<std::int64_t>(m), bonded = 0;
    for (std::size_t i = 0; i < n; ++i) bonded += count[i] > 0;
    if (area.global_counts) {
      const std::array<std::int64_t, 2> counts = area.global_counts(rows, bonds.first, count);
      total = counts[0], bonded = counts[1];
    }
    if (total > 0 && !(area.porosity > 0.0 && area.porosity < 1.0))
      TESSERA_ERROR(
          "bonds: the global area correction (thesis 5.6) needs the specimen's "
          "porosity P in (0, 1) (BondAreaPorosity), got ",
          area.porosity);
    if (m > 0) {
      const double coordination = 2.0 * static_cast<double>(total) / static_cast<double>(bonded);
      std::fill(weight.begin(), weight.end(), 40.0 * area.porosity / coordination);
    }
  }
  // A bond's section is the mean of its two spheres' weighted sections (thesis
  // §5.3 step 6; Kratos lets each sphere use its own, so that the two forces
  // of one bond differ where the weights do).
  std::size_t stride = 0;
  for (std::size_t b = 0; b < m; ++b) {
    const std::uint32_t i = bonds.first[b], j = bonds.second[b];
    const BondParameters& law = table.Pair(rows.material[i], rows.material[j]);
    // Kratos weights the sections of the laws that read the spheres' initial
    // areas (DEM_KDEM); its DEM_Dempack takes π min(R)² as it is.
    const bool weighted =
        area.correction != BondAreaCorrection::kKratos ||
        BondLaws::Visit(static_cast<ContactLaw>(law.law),
                        []<class L>(std::type_identity<L>) { return L::kKratosAreaWeighting; });
    const double section = weighted ? 0.5 * (weight[i] + weight[j]) * base[b] : base[b];
    bonds.constants[b] =
        MakeBondConstants(law, section, rows.mass[i], rows.mass[j], bonds.constants[b].rest_length,
                          rows.radius[i], rows.radius[j]);
    bonds.constants[b].first_share = rows.radius[i] / (rows.radius[i] + rows.radius[j]);
    bonds.constants[b].overlap_share = law.overlap_share;
    stride = std::max(
        stride, BondLaws::Visit(static_cast<ContactLaw>(law.law),
                                [&]<class L>(std::type_identity<L>) { return L::kStateSize; }));
  }
  bonds.state_stride = stride;
  bonds.law_state.assign(m * stride, 0.0);
  for (std::size_t b = 0; b < m; ++b) {
    const BondParameters& law = table.Parameters(bonds.law[b]);
    BondLaws::Visit(static_cast<ContactLaw>(law.law), [&]<class L>(std::type_identity<L>) {
      if constexpr (L::kStateSize > 0) {
        double initial[kMaxBondStateSize] = {};
        L::InitializeState(initial);
        bonds.SetLawState(b, initial);
      }
    });
  }
  bonds.failure_criterion.assign(m, 0.0);
  bonds.state.assign(m, static_cast<std::uint8_t>(BondState::kIntact));
  bonds.opened.assign(m, 0);
  bonds.normal_force.assign(m, 0.0);
  bonds.shear_force.assign(m, Array3{});
  bonds.moment.assign(m, Array3{});
  bonds.row_start.clear();  // AddBondForces indexes the new bonds
}

void ContinuumBonds::Index(std::size_t rows) {
  // The list is sorted by first sphere: row i's bonds as the first sphere are
  // the range [first_start[i], first_start[i + 1]).
  first_start.assign(rows + 1, 0);
  row_start.assign(rows + 1, 0);
  for (std::size_t b = 0; b < size(); ++b) ++first_start[first[b] + 1], ++row_start[second[b] + 1];
  for (std::size_t i = 0; i < rows; ++i) {
    first_start[i + 1] += first_start[i];
    row_start[i + 1] += row_start[i];
  }
  row_bonds.resize(row_start[rows]);
  std::vector<std::uint32_t> cursor(row_start.begin(), row_start.end() - 1);
  for (std::size_t b = 0; b < size(); ++b)
    row_bonds[cursor[second[b]]++] = static_cast<std::uint32_t>(b);
  uniform_law = size() > 0 ? static_cast<std::int64_t>(law[0]) : -1;
  for (std::size_t b = 1; b < size() && uniform_law >= 0; ++b)
    if (law[b] != law[0]) uniform_law = -1;
  // The distinct constants, keyed by their bits (so that the table gives
  // every bond exactly its own: -0 and 0 differ, as any NaN from a number).
  using Bits = std::array<std::uint64_t, sizeof(BondConstants) / sizeof(std::uint64_t)>;
  struct Hash {
    std::size_t operator()(const Bits& bits) const {
      std::uint64_t h = 1469598103934665603ull;
      for (const std::uint64_t word : bits) h = (h ^ word) * 1099511628211ull + (h >> 29);
      return static_cast<std::size_t>(h);
    }
  };
  std::unordered_map<Bits, std::uint32_t, Hash> position;
  constant_table.clear();
  constant_index.resize(size());
  for (std::size_t b = 0; b < size(); ++b) {
    Bits bits;
    std::memcpy(bits.data(), &constants[b], sizeof(BondConstants));
    const auto [it, added] =
        position.try_emplace(bits, static_cast<std::uint32_t>(constant_table.size()));
    if (added) constant_table.push_back(constants[b]);
    constant_index[b] = it->second;
  }
}

}  // namespace tessera::dem

namespace tessera::dem {

double VpacAreaRatio(int faces) { return PolyhedronAreaRatio(std::clamp(faces, 4, 20)); }

std::vector<double> ContinuumBonds::RowFailureCriterion(std::size_t rows) const {
  std::vector<double> sum(rows, 0.0), count(rows, 0.0);
  for (std::size_t b = 0; b < size(); ++b) {
    const double value = b < failure_criterion.size() ? failure_criterion[b] : 0.0;
    for (const std::uint32_t row : {first[b], second[b]}) sum[row] += value, count[row] += 1.0;
  }
  for (std::size_t i = 0; i < rows; ++i) sum[i] = count[i] > 0.0 ? sum[i] / count[i] : 0.0;
  return sum;
}

void ContinuumBonds::AddStressMoments(std::vector<double>& stress) const {
  if (force.size() != size() || length.size() != size()) return;  // not evaluated yet
  for (std::size_t b = 0; b < size(); ++b) {
    // The evaluation's distance divided as the radii divide it (the pass's own
    // arms under BondLeverArms kCentres): the two arms meet at one point of
    // the line of centres, so a bond's moments cancel the x ⊗ F of its two
    // forces, strained or parted (to round-off).
    const Array3& n = direction[b];
    const double arm_i = length[b] * constants[b].first_share, arm_j = length[b] - arm_i;
    // Sphere i: r = arm_i n, F = force; sphere j: r = -arm_j n, F = -force.
    for (const auto& [row, arm] : {std::pair{first[b], arm_i}, std::pair{second[b], arm_j}})
      AddStressMoment(stress.data() + kStressMomentSize * std::size_t{row}, arm, n, force[b]);
  }
}

}  // namespace tessera::dem
