// DistributedDem's bonds (distributed_dem.h, "Bonds"): a rank holds the bonds
// both of whose spheres are its rows; they travel with their spheres at each
// search; a broken bond whose partner sphere is on no row of the rank of an
// owned sphere is parked there by the spheres' keys, and returns to the rows'
// bonds when both spheres are rows again.
//
// A bond record (a migration message's, and a parked bond's): the keys of its
// spheres (first < second), law, state, opened, the constants, failure
// criterion, normal force, shear force, moment, direction, the spheres'
// element ids, then the law's state (state_stride doubles).
//
// Why a parked bond gives the serial run's forces (zero) and comes back with its serial state: it
// is parked at a search where its spheres lie farther apart than the ghost layer (the partner is
// outside the layer of the box holding the owned sphere), and the layer is wider than every
// distance at which a broken bond carries load: 1.05 (2 R_max + SearchTolerance) > R_i + R_j
// (touch, once opened), 1.05 L_max > L (the rest length: "frictional" opens the crack there), and
// with "kratos" (Start widens the layer) 1.05 (2 R_max + 3 SearchTolerance) > R_i + R_j + twice the
// tolerance (its shear force is kept within that gap) and 1.05 (L_max + SearchTolerance) (it pushes
// within L). Beyond that the serial run's every evaluation writes the same: opened (frictional), no
// normal force, shear force or moment, failure criterion 1, the law's state untouched; only the
// direction follows the spheres; its force and torque terms are zeros, which leave every sum they
// would join as it is (a sum from +0 is never -0). So the parked record is set to that state
// (FarState) and, the pair coming back within the layer at a later search, its first evaluation is
// still unloaded: it writes the direction without reading the stale one into any force. (The
// condition: between two searches a pair approaches by less than the layer's margin over the load's
// reach, at least 0.1 R_max + 1.05 SearchTolerance, as the contacts' search assumes of its
// tolerance.)
#include <algorithm>
#include <numeric>
#include <set>

#include "applications/dem/parallel/distributed_dem.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "kernel/core/error.h"
#include "kernel/parallel/communicator.h"

namespace tessera::dem {
namespace {

constexpr std::size_t kConstantDoubles = sizeof(BondConstants) / sizeof(double);
static_assert(sizeof(BondConstants) % sizeof(double) == 0, "BondConstants holds doubles only");
// Offsets in a bond record.
constexpr std::size_t kKeyFirst = 0, kKeySecond = 1, kLaw = 2, kState = 3, kOpened = 4;
constexpr std::size_t kConstants = 5;
constexpr std::size_t kFailure = kConstants + kConstantDoubles, kNormal = kFailure + 1;
constexpr std::size_t kShear = kNormal + 1, kMoment = kShear + 3, kDirection = kMoment + 3;
constexpr std::size_t kElementFirst = kDirection + 3, kElementSecond = kElementFirst + 1;
constexpr std::size_t kBondHead = kElementSecond + 1;

void Put3(std::vector<double>& out, const Array3& a) { out.insert(out.end(), {a[0], a[1], a[2]}); }
Array3 Get3(const double* in) { return Array3{in[0], in[1], in[2]}; }

// Bond b of `bonds` as a record, appended to `out`.
void PutRecord(std::vector<double>& out, const ContinuumBonds& bonds, std::size_t b,
               std::int64_t key_first, std::int64_t key_second, IdType element_first,
               IdType element_second) {
  out.insert(out.end(), {static_cast<double>(key_first), static_cast<double>(key_second),
                         static_cast<double>(bonds.law[b]), static_cast<double>(bonds.state[b]),
                         static_cast<double>(bonds.opened[b])});
  const auto* constants = reinterpret_cast<const double*>(&bonds.constants[b]);
  out.insert(out.end(), constants, constants + kConstantDoubles);
  out.insert(out.end(), {bonds.failure_criterion.size() > b ? bonds.failure_criterion[b] : 0.0,
                         bonds.normal_force[b]});
  Put3(out, bonds.shear_force[b]), Put3(out, bonds.moment[b]), Put3(out, bonds.direction[b]);
  out.insert(out.end(), {static_cast<double>(element_first), static_cast<double>(element_second)});
  for (std::size_t k = 0; k < bonds.state_stride; ++k) out.push_back(bonds.LawState(b, k));
}

BondConstants ConstantsOf(const double* record) {
  BondConstants c;
  std::copy_n(record + kConstants, kConstantDoubles, reinterpret_cast<double*>(&c));
  return c;
}

// The state the serial run's evaluations write while the spheres of this
// broken bond lie farther apart than any load reaches (see the file comment).
void FarState(double* record, BrokenBonds broken) {
  if (broken == BrokenBonds::kFrictional) record[kOpened] = 1.0;
  record[kFailure] = 1.0;
  record[kNormal] = 0.0;
  std::fill_n(record + kShear, 3, 0.0);
  const BondConstants c = ConstantsOf(record);
  if (c.bending_stiffness > 0.0 || c.twisting_stiffness > 0.0)
    std::fill_n(record + kMoment, 3, 0.0);
}

// Appends a record to the bonds (rows i < j), its law state to `added_state`
// (law_state is slot by slot: the caller lays the new slots out).
void AppendRecord(ContinuumBonds& bonds, const double* h, std::uint32_t i, std::uint32_t j,
                  std::vector<double>& added_state) {
  bonds.first.push_back(i), bonds.second.push_back(j);
  bonds.law.push_back(static_cast<std::uint32_t>(h[kLaw]));
  bonds.state.push_back(static_cast<std::uint8_t>(h[kState]));
  bonds.opened.push_back(static_cast<std::uint8_t>(h[kOpened]));
  bonds.constants.push_back(ConstantsOf(h));
  bonds.failure_criterion.resize(bonds.first.size() - 1);
  bonds.failure_criterion.push_back(h[kFailure]);
  bonds.normal_force.push_back(h[kNormal]);
  bonds.shear_force.push_back(Get3(h + kShear));
  bonds.moment.push_back(Get3(h + kMoment));
  bonds.direction.push_back(Get3(h + kDirection));
  added_state.insert(added_state.end(), h + kBondHead, h + kBondHead + bonds.state_stride);
}

}  // namespace

std::size_t DistributedDem::BondRecordDoubles() const { return kBondHead + s_.bonds_.state_stride; }

void DistributedDem::Park(std::vector<double> record) {
  const auto key = std::make_pair(static_cast<std::int64_t>(record[kKeyFirst]),
                                  static_cast<std::int64_t>(record[kKeySecond]));
  if (static_cast<std::uint8_t>(record[kState]) == static_cast<std::uint8_t>(BondState::kIntact))
    TESSERA_ERROR("\"parallel_type\": \"MPI\": the intact bond of elements ",
                  static_cast<IdType>(record[kElementFirst]), " and ",
                  static_cast<IdType>(record[kElementSecond]), " spans more than the ghost layer (",
                  layer_, " m) on rank ", rank_,
                  ": only a broken bond's spheres may part that far");
  FarState(record.data(), s_.bonds_.broken_bonds);
  parked_.emplace(key, std::move(record));
  ++parkings_;
}

std::vector<std::vector<double>> DistributedDem::PackBonds() const {
  const ContinuumBonds& bonds = s_.bonds_;
  const ParticleStorage& p = s_.particles_;
  const std::size_t n = p.size();
  // Each row's bonds (as the first or second sphere), as offsets into one array.
  std::vector<std::uint32_t> start(n + 1, 0), of(2 * bonds.size());
  for (std::size_t b = 0; b < bonds.size(); ++b)
    ++start[bonds.first[b] + 1], ++start[bonds.second[b] + 1];
  for (std::size_t i = 0; i < n; ++i) start[i + 1] += start[i];
  {
    std::vector<std::uint32_t> cursor(start.begin(), start.end() - 1);
    for (std::size_t b = 0; b < bonds.size(); ++b) {
      of[cursor[bonds.first[b]]++] = static_cast<std::uint32_t>(b);
      of[cursor[bonds.second[b]]++] = static_cast<std::uint32_t>(b);
    }
  }
  // The parked bonds of each owned row (its key's), in key-pair order.
  std::vector<std::vector<const std::vector<double>*>> parked_of(parked_.empty() ? 0 : n);
  for (const auto& [keys, record] : parked_) {
    std::int64_t row = RowOfKey(keys.first);
    if (row < 0 || !OwnedRow(static_cast<std::size_t>(row))) row = RowOfKey(keys.second);
    if (row >= 0) parked_of[static_cast<std::size_t>(row)].push_back(&record);
  }
  std::vector<std::vector<double>> out(size_);
  std::vector<int> holders;
  for (std::size_t i = 0; i < n; ++i) {
    const bool has_parked = !parked_of.empty() && !parked_of[i].empty();
    if (!OwnedRow(i) || (start[i] == start[i + 1] && !has_parked)) continue;
    // Where Migrate sends the row: its owner and the ranks whose layer holds it.
    const int owner = RcbOwner(boxes_, p.position[i]);
    GhostTargets(p.position[i], owner, holders);
    holders.push_back(owner);
    for (int r : holders) {
      if (r == rank_) continue;
      std::vector<double>& h = out[r];
      for (std::uint32_t k = start[i]; k < start[i + 1]; ++k) {
        const std::uint32_t b = of[k];
        PutRecord(h, bonds, b, KeyOfRow(bonds.first[b]), KeyOfRow(bonds.second[b]),
                  row_element_[bonds.first[b]], row_element_[bonds.second[b]]);
      }
      if (has_parked)
        for (const std::vector<double>* record : parked_of[i])
          h.insert(h.end(), record->begin(), record->end());
    }
  }
  return out;
}

void DistributedDem::ParkDepartingBonds(const std::vector<std::uint8_t>& keep,
                                        const std::vector<int>& next_owner) {
  // Before the departed rows go (Migrate): a bond one of whose spheres this
  // rank owns after the search while the other leaves its rows.
  const ContinuumBonds& bonds = s_.bonds_;
  for (std::size_t b = 0; b < bonds.size(); ++b) {
    const std::uint32_t i = bonds.first[b], j = bonds.second[b];
    if (keep[i] && keep[j]) continue;
    const bool owns_i = keep[i] && next_owner[i] == rank_;
    const bool owns_j = keep[j] && next_owner[j] == rank_;
    if (!owns_i && !owns_j) continue;
    std::vector<double> record;
    PutRecord(record, bonds, b, KeyOfRow(i), KeyOfRow(j), row_element_[i], row_element_[j]);
    Park(std::move(record));
  }
}

void DistributedDem::InstallBonds(std::vector<std::vector<double>> out) {
  const std::vector<std::vector<double>> send = ToPartners(out, "bonds");
  for (const std::vector<double>& message : send)
    bond_doubles_ += static_cast<std::int64_t>(message.size());
  const std::vector<std::vector<double>> in = comm_->Exchange(partners_, send);
  ContinuumBonds& bonds = s_.bonds_;
  const std::size_t stride = bonds.state_stride, width = kBondHead + stride;
  const std::size_t rows = s_.particles_.size();
  std::set<std::pair<std::uint32_t, std::uint32_t>> present;
  for (std::size_t b = 0; b < bonds.size(); ++b) present.insert({bonds.first[b], bonds.second[b]});
  // The new bonds' law states, bond by bond (law_state is slot by slot).
  const std::size_t before = bonds.size();
  std::vector<double> added_state;
  // A record whose two spheres are rows here joins the rows' bonds (where
  // not there yet); one whose only sphere here is owned here is parked.
  const auto take = [&](const double* h) {
    const std::int64_t a = RowOfKey(static_cast<std::int64_t>(h[kKeyFirst]));
    const std::int64_t b = RowOfKey(static_cast<std::int64_t>(h[kKeySecond]));
    if (a >= 0 && b >= 0) {
      const auto i = static_cast<std::uint32_t>(a), j = static_cast<std::uint32_t>(b);
      if (present.insert({i, j}).second) AppendRecord(bonds, h, i, j, added_state);
      return true;
    }
    const std::int64_t mine = a >= 0 ? a : b;
    if (mine >= 0 && OwnedRow(static_cast<std::size_t>(mine))) {
      const auto key = std::make_pair(static_cast<std::int64_t>(h[kKeyFirst]),
                                      static_cast<std::int64_t>(h[kKeySecond]));
      if (parked_.find(key) == parked_.end()) Park(std::vector<double>(h, h + width));
    }
    return false;
  };
  for (const std::vector<double>& message : in) {
    if (message.size() % width != 0)
      TESSERA_ERROR("DistributedDem: rank ", rank_, " got a bond message of ", message.size(),
                    " doubles, not a multiple of ", width);
    for (const double* h = message.data(); h < message.data() + message.size(); h += width) take(h);
  }
  // This rank's parked bonds: back to the rows' bonds where both spheres are
  // rows again; dropped where this rank owns neither sphere any more (its
  // sphere's new owner got it with the sphere, PackBonds).
  for (auto it = parked_.begin(); it != parked_.end();) {
    const std::vector<double>& record = it->second;
    bool keep = false;
    if (!take(record.data())) {
      const std::int64_t a = RowOfKey(it->first.first), b = RowOfKey(it->first.second);
      keep = (a >= 0 && OwnedRow(static_cast<std::size_t>(a))) ||
             (b >= 0 && OwnedRow(static_cast<std::size_t>(b)));
    }
    it = keep ? std::next(it) : parked_.erase(it);
  }
  if (bonds.size() > before) {
    const std::size_t after = bonds.size();
    std::vector<double> slots(after * stride);
    for (std::size_t k = 0; k < stride; ++k) {
      std::copy_n(bonds.law_state.begin() + k * before, before, slots.begin() + k * after);
      for (std::size_t q = 0; q < after - before; ++q)
        slots[k * after + before + q] = added_state[q * stride + k];
    }
    bonds.law_state.swap(slots);
    // Sorted by (first, second) again (Renumber with every row in place).
    std::vector<std::uint32_t> same(rows);
    std::iota(same.begin(), same.end(), 0u);
    bonds.Renumber(same);
  }
  // The last evaluation's per-bond scratch (rewritten by the next) follows
  // the count: the strategy skips the bond pass, which sizes it, while it
  // holds no bond, and a checkpoint's columns must be one entry per bond.
  for (auto* column : {&bonds.force, &bonds.elastic, &bonds.torque_second})
    if (!column->empty()) column->resize(bonds.size());
  for (auto* column : {&bonds.damping_power, &bonds.friction_power})
    if (!column->empty()) column->resize(bonds.size());
  CheckOwnedBonds();
}

void DistributedDem::GatherBondCounts() {
  // At the start from pieces, before the rows are dropped: an owned row's
  // bonds are all on this rank (spheres_piece.h), (key, count) pairs to all.
  const ContinuumBonds& bonds = s_.bonds_;
  std::vector<std::uint32_t> count(s_.particles_.size(), 0);
  for (std::size_t b = 0; b < bonds.size(); ++b) ++count[bonds.first[b]], ++count[bonds.second[b]];
  std::vector<std::int64_t> owned;
  for (std::size_t i = 0; i < count.size(); ++i)
    if (count[i] > 0 && row_owner_[i] == rank_) owned.insert(owned.end(), {row_key_[i], count[i]});
  const std::vector<std::vector<std::int64_t>> parts = comm_->Gather(owned, 0);
  std::vector<std::int64_t> all;
  for (const std::vector<std::int64_t>& part : parts)
    all.insert(all.end(), part.begin(), part.end());
  comm_->Broadcast(all, 0);
  bond_count_.clear();
  bond_count_.reserve(all.size() / 2);
  for (std::size_t k = 0; k + 1 < all.size(); k += 2)
    bond_count_[all[k]] = static_cast<std::uint32_t>(all[k + 1]);
}

void DistributedDem::CheckOwnedBonds() const {
  // Every owned sphere holds all its bonds, as rows' bonds or parked.
  const ContinuumBonds& bonds = s_.bonds_;
  const std::size_t rows = s_.particles_.size();
  std::vector<std::uint32_t> count(rows, 0);
  for (std::size_t b = 0; b < bonds.size(); ++b) ++count[bonds.first[b]], ++count[bonds.second[b]];
  for (const auto& [keys, record] : parked_)
    for (const std::int64_t key : {keys.first, keys.second})
      if (const std::int64_t row = RowOfKey(key); row >= 0) ++count[row];
  for (std::size_t i = 0; i < rows; ++i) {
    if (!OwnedRow(i)) continue;
    const auto it = bond_count_.find(KeyOfRow(i));
    const std::uint32_t expected = it == bond_count_.end() ? 0 : it->second;
    if (count[i] != expected)
      TESSERA_ERROR("DistributedDem: bonded sphere (element ", s_.particles_.element_id[i],
                    ") holds ", count[i], " of its ", expected, " bonds on rank ", rank_,
                    " (rows' bonds and parked ones): a bond was lost in a migration");
  }
}

std::int64_t DistributedDem::NumberOfCountedParkedBonds() const {
  // Each parked bond counts on the owner of its first sphere.
  std::int64_t count = 0;
  for (const auto& [keys, record] : parked_)
    if (const std::int64_t row = RowOfKey(keys.first);
        row >= 0 && OwnedRow(static_cast<std::size_t>(row)))
      ++count;
  return count;
}

std::int64_t DistributedDem::GlobalBondParkings() const { return comm_->SumAll(parkings_); }

DistributedDem::ParkedBondColumns DistributedDem::ParkedBonds() const {
  ParkedBondColumns out;
  for (const auto& [keys, record] : parked_) {
    const std::int64_t row = RowOfKey(keys.first);
    out.first_key.push_back(keys.first), out.second_key.push_back(keys.second);
    out.first_element.push_back(static_cast<IdType>(record[kElementFirst]));
    out.second_element.push_back(static_cast<IdType>(record[kElementSecond]));
    out.first_owned.push_back(row >= 0 && OwnedRow(static_cast<std::size_t>(row)) ? 1 : 0);
    out.state.push_back(static_cast<std::uint8_t>(record[kState]));
    out.opened.push_back(static_cast<std::uint8_t>(record[kOpened]));
    const BondConstants c = ConstantsOf(record.data());
    out.normal_force.push_back(record[kNormal]);
    out.failure_criterion.push_back(record[kFailure]);
    out.sigma.push_back(record[kNormal] / c.area);
    out.tau.push_back(Norm(Get3(record.data() + kShear)) / c.area);
    out.rest_length.push_back(c.rest_length);
    out.area.push_back(c.area);
    out.shear_force.push_back(Get3(record.data() + kShear));
    out.moment.push_back(Get3(record.data() + kMoment));
    out.direction.push_back(Get3(record.data() + kDirection));
  }
  return out;
}

}  // namespace tessera::dem
