// ContinuumBonds: the bonds of the continuum strategy (Kratos'
// continuum_sphere_strategy), as rows of arrays, and their forces.
//
// Bonds are made once, when the strategy starts: every pair of spheres of the
// same non-zero COHESIVE_GROUP whose materials' relation names a continuum law
// (contact_laws/bond_laws.h) and whose centre distance d is close enough gets
// a bond with d as its rest length (the initial gap δ_0 = d - R_i - R_j is
// thus stored): where the relation gives BOND_RANGE_BETA β, when
// |d / (R_i + R_j) - 1| <= β (thesis 5.2, §5.1.4); otherwise when the gap is
// at most twice the search tolerance (Kratos makes its bonds from the first
// search's neighbours, each sphere searching with R + SearchTolerance, and
// two spheres are neighbours where their search spheres meet). Spheres of
// different groups, or of group 0, only touch (the discontinuum laws). A
// bonded pair stays bonded for the whole run, broken or not: the search
// leaves it out of the contact candidates (DropBondedPairs) and the bond law
// gives its force, as Kratos keeps a continuum particle's initial neighbours
// under their continuum law; a broken bond is a frictional contact (at its
// rest length until the crack opens, then where the spheres touch), or
// carries what Kratos' DEM_Dempack leaves it (BrokenBonds, bond_law.h).
//
// The bonds are evaluated row by row of their first sphere (the list is
// sorted by it), in parallel over blocks of rows: each row adds its bonds as
// the first sphere at once and leaves what the second spheres take in slots;
// then every row adds those of its bonds as the second sphere (bond_forces.cpp).
// Each row sums
// in a fixed order (its bonds as the first sphere, then as the second, each
// in list order) into its contact, elastic and torque columns: the same sums
// in the same order for any number of threads.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "applications/dem/contact_laws/bond_law.h"
#include "applications/dem/particles/particle_storage.h"
#include "applications/dem/utilities/periodic_box.h"
#include "kernel/core/array3.h"

namespace tessera::dem {

struct BondEnergy {
  double normal = 0.0, tangential = 0.0;
};

struct ContinuumBonds {
  // The pair (first < second), sorted; and the constants of each bond.
  std::vector<std::uint32_t> first, second;
  std::vector<BondConstants> constants;
  std::vector<std::uint32_t> law;  // the material pair's BondTable::Index
  // ---- history
  std::vector<std::uint8_t> state;  // BondState
  // 1 once a broken bond's crack has opened (BrokenBonds "frictional": its
  // spheres parted beyond both the rest length and touch); from then on the
  // pair touches where the spheres do, not at the bond's rest length.
  std::vector<std::uint8_t> opened;
  // Each bond's law state (bond_laws.h: kStateSize doubles of its law), in
  // state_stride slots (the largest state of the laws in use), slot by slot:
  // slot k of bond b at law_state[k * size() + b]. The bond pass loads a slot
  // of four bonds at once and touches only the slots the law reads (an
  // elastic DEM_Dempack bond: none of its damage slots).
  std::size_t state_stride = 0;
  std::vector<double> law_state;
  double& LawState(std::size_t b, std::size_t k) { return law_state[k * size() + b]; }
  double LawState(std::size_t b, std::size_t k) const { return law_state[k * size() + b]; }
  // Bond b's state copied out (state_stride values) and back.
  void GetLawState(std::size_t b, double* out) const;
  void SetLawState(std::size_t b, const double* in);
  // Failure Criterion State of the last evaluation (thesis 5.44; 1 when broken).
  std::vector<double> failure_criterion;
  // Elastic forces and moment on the first sphere: the normal force (compression
  // positive, along the line of centres), the shear spring and the rotational
  // springs' moment (zero, and neither read nor written, for a bond without
  // those springs); and the line of centres they refer to (first to second).
  std::vector<double> normal_force;
  std::vector<Array3> shear_force, moment, direction;
  // ---- what the last evaluation gives each bond's second sphere (AddBondForces
  // sums them per row): the force and its elastic part (where the rows sum
  // elastic forces) on the first sphere (the second takes minus), the torque
  // on the second -- for the bonds whose part did not wait in a thread's ring
  // in cache (bond_forces.cpp, SecondSlots); the powers where asked.
  std::vector<Array3> force, elastic, torque_second;
  std::vector<double> damping_power, friction_power;
  // Every bond's force kept in `force` (no ring), and its centres' distance
  // of the evaluation in `length`: where they are read after the pass
  // (AddStressMoments, for DEM_STRESS_TENSOR; set by the strategy). `length`
  // is empty otherwise.
  bool keep_force = false;
  std::vector<double> length;
  // Built by Index: per row, the range of its bonds as the first sphere
  // (first_start, rows + 1), and its bonds as the second sphere in list order
  // (CSR: row_start, row_bonds); the law of every bond, or -1 where they differ.
  std::vector<std::uint32_t> first_start, row_start, row_bonds;
  std::int64_t uniform_law = -1;
  // Also built by Index, from `constants` (which stays the record): the
  // distinct constants of the bonds (bitwise) and each bond's position among
  // them. The four-lane pass reads the 4-byte position instead of the 80-byte
  // constants: bonds of one material pair between equal spheres share theirs.
  std::vector<BondConstants> constant_table;
  std::vector<std::uint32_t> constant_index;
  // Where the shear force acts (bond_law.h; set by the strategy).
  BondLeverArms lever_arms = BondLeverArms::kCentres;
  // What a broken bond carries (bond_law.h, BrokenBonds; set by the
  // strategy), and for "kratos" the largest gap d - R_i - R_j at which a bond
  // broken in tension keeps its shear force (twice the search tolerance: the
  // spheres are neighbours in Kratos' search). "kratos" runs bond by bond.
  BrokenBonds broken_bonds = BrokenBonds::kFrictional;
  double broken_reach = 0.0;

  std::size_t size() const { return first.size(); }
  bool empty() const { return first.empty(); }
  std::size_t NumberIntact() const;
  // Stresses of the last evaluation, from the forces: F_n / A (compression
  // positive) and |F_t| / A.
  double Sigma(std::size_t b) const { return normal_force[b] / constants[b].area; }
  double Tau(std::size_t b) const { return Norm(shear_force[b]) / constants[b].area; }
  // Per row of `rows` rows: the share of its bonds that broke; 1 for a row
  // without bonds (Kratos' DAMAGE_RATIO).
  std::vector<double> BrokenShare(std::size_t rows) const;
  // first_start, row_start / row_bonds, uniform_law and the constant table for
  // `rows` particle rows.
  void Index(std::size_t rows);
  // Rows renumbered by new_index (old row -> new row; std::uint32_t max for a
  // removed row, whose bonds go). A pair whose spheres change places turns its
  // forces, moment and direction around; the list is sorted again.
  void Renumber(const std::vector<std::uint32_t>& new_index);
  // Removes the candidate pairs (sorted, i < j) that are bonds.
  void DropBondedPairs(std::vector<std::uint32_t>& candidate_first,
                       std::vector<std::uint32_t>& candidate_second) const;
  // A safe time step for the bonded spheres (masses and inertias of `rows`
  // over the virtual mass coefficient): a sphere held by several bonds
  // vibrates faster than one bond does, so this bounds, per sphere, the
  // mass-normalised stiffness K and damping C by Gershgorin's theorem (the sum
  // over its bonds of the largest row sum each adds: axial; shear with the
  // spheres' turn; bending; twisting) and takes 2 / (sqrt(K + ζ²) + ζ),
  // ζ = C / 2: the stable step of a damped mode (ω, ζ), 2/ω (sqrt(1 + ξ²) - ξ),
  // decreases in both. For one bond between equal spheres the axial term is
  // exact (2 k_n / m), the shear term 17 % above the exact 3.5 k_t / m*.
  // Infinity without bonds.
  double CriticalTimeStep(const ParticleStorage& rows, double virtual_mass_coefficient) const;
  // Spring energy of the bonds that carry load: normal, and shear plus rotational.
  // With `counted` (a distributed run: per row, 1 where the rank owns it),
  // only the bonds whose first sphere is counted.
  BondEnergy ElasticEnergy(const std::uint8_t* counted = nullptr) const;
  // Per row: the mean Failure Criterion State of its bonds (0 without bonds).
  std::vector<double> RowFailureCriterion(std::size_t rows) const;
  // Per row, the bonds' part of the particle stress tensor (1 / V_i) Σ sym(r ⊗ F)
  // (r from the centre to the contact point, which divides the line of centres
  // of the evaluation as the radii do, F the bond's force on the sphere),
  // summed into `stress` (the six entries of stress_moment.h per row), before
  // the division by the volume. Reads `force` and `length`: with keep_force
  // only.
  void AddStressMoments(std::vector<double>& stress) const;
};

// How the sections are corrected (bond_law.h, BondAreaCorrection) and, for
// the global correction, the specimen's porosity P.
struct BondAreaSettings {
  BondAreaCorrection correction = BondAreaCorrection::kKratos;
  double porosity = -1.0;
  // The global correction's counts of the whole specimen, bonds and bonded
  // spheres, from these rows' bonds and bonds per row (a distributed start
  // from pieces: each counted once over the ranks); null: the rows' own.
  std::function<std::array<std::int64_t, 2>(const ParticleStorage& rows,
                                            const std::vector<std::uint32_t>& first,
                                            const std::vector<int>& bonds_per_row)>
      global_counts;
};

// Makes the bonds of `rows` (see the file comment): `cohesive_group` per row,
// `skin` per row (SKIN_SPHERE; empty: no sphere is on the skin), `largest_gap`
// (>= 0) the search tolerance (gaps up to twice it are bonded). Sections: the
// law's (BaseArea), corrected as `area` says; Kratos' weighting (the default)
// applies to spheres with six bonds or more (bond_law.h, PolyhedronAreaRatio)
// and to the laws that Kratos weights (kKratosAreaWeighting: DEM_KDEM, not
// DEM_Dempack). Two spheres to be bonded
// whose materials have no continuum law are an error naming them.
void CreateBonds(const ParticleStorage& rows, const std::vector<int>& cohesive_group,
                 const std::vector<std::uint8_t>& skin, const BondTable& table, double largest_gap,
                 const PeriodicBox& periodic, ContinuumBonds& bonds,
                 const BondAreaSettings& area = {});

// Thesis Table 5.1: the surface of the regular polyhedron of n faces over its
// inscribed sphere's, linear in n between the Platonic solids (4, 6, 8, 12,
// 20) and held at the end values outside [4, 20] (VPAC).
double VpacAreaRatio(int faces);

// What one evaluation of the bonds dissipates (W), for the energy bookkeeping.
struct BondPower {
  double damping = 0.0, friction = 0.0;
};

// Adds the bond forces to the rows' contact_force, elastic_force (where the
// rows hold it) and torque (KDEM, bond_law.h) and updates the histories. The relative displacement
// of the step is taken from the rows' delta_displacement and delta_rotation, or, with
// `velocity_step`, as the relative velocity times dt (Velocity Verlet). The
// dissipated powers only with `powers` (zero otherwise). With `lanes`, four
// intact bonds at a time on vector lanes where the processor has AVX2
// (bond_forces.cpp; bitwise the same results as one at a time).
BondPower AddBondForces(ContinuumBonds& bonds, const BondTable& table, ParticleStorage& rows,
                        const PeriodicBox& periodic, double dt, bool velocity_step,
                        bool powers = true, bool lanes = true);

}  // namespace tessera::dem
