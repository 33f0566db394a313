// DistributedDem::SaveState / LoadState (distributed_dem.h): a rank's share of
// a distributed run in its own checkpoint file (docs/file_formats.md,
// "Checkpoints of distributed runs"). The strategy's rows are saved by
// dem_checkpoint.cpp as in a serial run; what is saved here is what ties them
// to the other ranks: each row's key, owner and element id, the bisection's
// boxes, the ghost layer, the ghost lists as they were built at the last
// search (rebuilt from the present positions they would differ from the other
// ranks' lists, which were decided by the positions of that search), the bond
// counts per key, the parked bonds' records (distributed_bonds.cpp), the counters and the run's
// vote on having rigid clusters (a rank's clusters are the strategy's columns and its ClusterPart,
// saved as in a serial run). Every value is written as its bytes, so a continued run goes on
// bitwise as the uninterrupted one.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "applications/dem/parallel/distributed_dem.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "kernel/core/error.h"
#include "kernel/io/checkpoint_file.h"
#include "kernel/parallel/communicator.h"

namespace tessera::dem {
namespace {

std::string Join(const std::string& group, const std::string& name) { return group + "/" + name; }

template <class T>
void PutVector(CheckpointWriter& w, const std::string& name, const std::vector<T>& values) {
  static_assert(std::is_trivially_copyable_v<T>, "saved as its bytes");
  w.WriteBytes(name, values.data(), values.size() * sizeof(T));
}

template <class T>
void PutValue(CheckpointWriter& w, const std::string& name, const T& value) {
  static_assert(std::is_trivially_copyable_v<T>, "saved as its bytes");
  w.WriteBytes(name, &value, sizeof(T));
}

std::vector<std::uint8_t> Bytes(const CheckpointReader& r, const std::string& name) {
  if (!r.Has(name))
    TESSERA_ERROR("checkpoint ", r.Path(), " has no ", name,
                  ": it holds no distributed DEM state (written by a serial run, or by another "
                  "deck?)");
  return r.ReadBytes(name);
}

template <class T>
void TakeVector(const CheckpointReader& r, const std::string& name, std::vector<T>& values) {
  const std::vector<std::uint8_t> bytes = Bytes(r, name);
  if (bytes.size() % sizeof(T) != 0)
    TESSERA_ERROR("checkpoint ", r.Path(), ": ", name, " holds ", bytes.size(),
                  " bytes, not a whole number of ", sizeof(T), "-byte entries (damaged file?)");
  values.resize(bytes.size() / sizeof(T));
  if (!bytes.empty()) std::memcpy(static_cast<void*>(values.data()), bytes.data(), bytes.size());
}

template <class T>
void TakeValue(const CheckpointReader& r, const std::string& name, T& value) {
  const std::vector<std::uint8_t> bytes = Bytes(r, name);
  TESSERA_CHECK(bytes.size() == sizeof(T), "checkpoint ", r.Path(), ": ", name, " holds ",
                bytes.size(), " bytes where ", sizeof(T), " were expected (damaged file?)");
  std::memcpy(static_cast<void*>(&value), bytes.data(), sizeof(T));
}

// A list of lists as its lengths and its values end to end.
void PutNested(CheckpointWriter& w, const std::string& name,
               const std::vector<std::vector<std::uint32_t>>& lists) {
  std::vector<std::uint64_t> lengths;
  std::vector<std::uint32_t> flat;
  for (const auto& list : lists) {
    lengths.push_back(list.size());
    flat.insert(flat.end(), list.begin(), list.end());
  }
  PutVector(w, name + "/Lengths", lengths);
  PutVector(w, name + "/Values", flat);
}

void TakeNested(const CheckpointReader& r, const std::string& name,
                std::vector<std::vector<std::uint32_t>>& lists) {
  std::vector<std::uint64_t> lengths;
  std::vector<std::uint32_t> flat;
  TakeVector(r, name + "/Lengths", lengths);
  TakeVector(r, name + "/Values", flat);
  lists.assign(lengths.size(), {});
  std::size_t at = 0;
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    TESSERA_CHECK(at + lengths[k] <= flat.size(), "checkpoint ", r.Path(), ": ", name,
                  " is shorter than its lengths say (damaged file)");
    lists[k].assign(flat.begin() + static_cast<std::ptrdiff_t>(at),
                    flat.begin() + static_cast<std::ptrdiff_t>(at + lengths[k]));
    at += lengths[k];
  }
}

}  // namespace

void CheckSavedRank(const CheckpointReader& reader, std::int64_t saved_ranks,
                    std::int64_t saved_rank, int ranks, int rank) {
  if (saved_ranks != ranks)
    TESSERA_ERROR("checkpoint ", reader.Path(), " was written by a run on ", saved_ranks,
                  " ranks; this run has ", ranks,
                  " ranks (a distributed run continues on as many ranks as it was saved from)");
  if (saved_rank != rank)
    TESSERA_ERROR("checkpoint ", reader.Path(), " holds rank ", saved_rank,
                  "'s part; this is rank ", rank);
}

void DistributedDem::SaveState(CheckpointWriter& writer, const std::string& group) const {
  const auto name = [&group](const char* n) { return Join(group, n); };
  PutValue(writer, name("rank"), static_cast<std::int64_t>(rank_));
  PutValue(writer, name("ranks"), static_cast<std::int64_t>(size_));
  PutValue(writer, name("layer"), layer_);
  PutVector(writer, name("boxes"), boxes_);
  PutVector(writer, name("row_key"), row_key_);
  PutVector(writer, name("row_owner"), row_owner_);
  PutVector(writer, name("row_element"), row_element_);
  PutVector(writer, name("neighbours"), neighbours_);
  PutNested(writer, name("send_rows"), send_rows_);
  PutNested(writer, name("receive_rows"), receive_rows_);
  // The bond counts in key order (the map's own order is not stable).
  std::vector<std::int64_t> bond_keys;
  std::vector<std::uint32_t> bond_counts;
  for (const auto& [key, count] : bond_count_) bond_keys.push_back(key);
  std::sort(bond_keys.begin(), bond_keys.end());
  for (const std::int64_t key : bond_keys) bond_counts.push_back(bond_count_.at(key));
  PutVector(writer, name("bond_count/keys"), bond_keys);
  PutVector(writer, name("bond_count/counts"), bond_counts);
  // The parked bonds' records end to end (distributed_bonds.cpp), in key-pair order.
  std::vector<double> parked;
  for (const auto& [keys, record] : parked_)
    parked.insert(parked.end(), record.begin(), record.end());
  PutValue(writer, name("parked_bonds/width"), static_cast<std::uint64_t>(BondRecordDoubles()));
  PutVector(writer, name("parked_bonds/records"), parked);
  PutValue(writer, name("parkings"), parkings_);
  PutValue(writer, name("next_key"), next_key_);
  PutValue(writer, name("last_balance_step"), last_balance_step_);
  PutValue(writer, name("rebalances"), rebalances_);
  PutValue(writer, name("migrations"), migrations_);
  PutValue(writer, name("bond_doubles"), bond_doubles_);
  PutValue(writer, name("ghost_doubles"), ghost_doubles_);
  PutValue(writer, name("refreshes"), refreshes_);
  PutValue(writer, name("migration_doubles"), migration_doubles_);
  // The run's vote on having clusters at the last search (a rank's clusters
  // are the strategy's rows and columns, and its ClusterPart, of the file).
  PutValue(writer, name("clusters_on_any_rank"),
           static_cast<std::uint8_t>(s_.clusters_on_any_rank_ ? 1 : 0));
}

void DistributedDem::LoadState(const CheckpointReader& reader, const std::string& group) {
  const auto name = [&group](const char* n) { return Join(group, n); };
  std::int64_t rank = -1, ranks = -1;
  TakeValue(reader, name("ranks"), ranks);
  TakeValue(reader, name("rank"), rank);
  CheckSavedRank(reader, ranks, rank, size_, rank_);
  TakeValue(reader, name("layer"), layer_);
  TakeVector(reader, name("boxes"), boxes_);
  TESSERA_CHECK(boxes_.size() == static_cast<std::size_t>(size_), "checkpoint ", reader.Path(),
                ": ", name("boxes"), " holds ", boxes_.size(), " boxes for ", size_, " ranks");
  FindNeighbourBoxes();
  UpdateWallRegion();  // the saved boxes bound the skin faces searched
  TakeVector(reader, name("row_key"), row_key_);
  TakeVector(reader, name("row_owner"), row_owner_);
  TakeVector(reader, name("row_element"), row_element_);
  TakeVector(reader, name("neighbours"), neighbours_);
  TakeNested(reader, name("send_rows"), send_rows_);
  TakeNested(reader, name("receive_rows"), receive_rows_);
  std::vector<std::int64_t> bond_keys;
  std::vector<std::uint32_t> bond_counts;
  TakeVector(reader, name("bond_count/keys"), bond_keys);
  TakeVector(reader, name("bond_count/counts"), bond_counts);
  TESSERA_CHECK(bond_keys.size() == bond_counts.size(), "checkpoint ", reader.Path(), ": ",
                name("bond_count"), " keys and counts disagree in length (damaged file)");
  bond_count_.clear();
  for (std::size_t k = 0; k < bond_keys.size(); ++k) bond_count_[bond_keys[k]] = bond_counts[k];
  parked_.clear(), parkings_ = 0;
  // (Files written before bonds were parked lack them: none parked then.)
  if (reader.Has(name("parked_bonds/records"))) {
    std::uint64_t width = 0;
    std::vector<double> parked;
    TakeValue(reader, name("parked_bonds/width"), width);
    TakeVector(reader, name("parked_bonds/records"), parked);
    TESSERA_CHECK(width == BondRecordDoubles() && parked.size() % width == 0, "checkpoint ",
                  reader.Path(), ": ", name("parked_bonds"), " holds records of ", width,
                  " doubles (", parked.size(), " in all) where this run's are of ",
                  BondRecordDoubles(), " (another bond law?)");
    for (std::size_t at = 0; at < parked.size(); at += width)
      parked_.emplace(
          std::make_pair(static_cast<std::int64_t>(parked[at]),
                         static_cast<std::int64_t>(parked[at + 1])),
          std::vector<double>(parked.begin() + static_cast<std::ptrdiff_t>(at),
                              parked.begin() + static_cast<std::ptrdiff_t>(at + width)));
    TakeValue(reader, name("parkings"), parkings_);
  }
  TakeValue(reader, name("next_key"), next_key_);
  TakeValue(reader, name("last_balance_step"), last_balance_step_);
  TakeValue(reader, name("rebalances"), rebalances_);
  TakeValue(reader, name("migrations"), migrations_);
  TakeValue(reader, name("bond_doubles"), bond_doubles_);
  TakeValue(reader, name("ghost_doubles"), ghost_doubles_);
  TakeValue(reader, name("refreshes"), refreshes_);
  TakeValue(reader, name("migration_doubles"), migration_doubles_);
  // (Files of runs without clusters written before it was saved lack it.)
  std::uint8_t clusters_on_any_rank = clusters_in_run_ ? 1 : 0;
  if (reader.Has(name("clusters_on_any_rank")))
    TakeValue(reader, name("clusters_on_any_rank"), clusters_on_any_rank);
  s_.clusters_on_any_rank_ = clusters_on_any_rank != 0;
  arrived_.clear(), arrived_pairs_.clear(), arrived_walls_.clear();

  // The strategy's rows (loaded before) are the saved ones, row for row.
  const ParticleStorage& p = s_.particles_;
  const std::size_t n = p.size();
  if (row_key_.size() != n || row_owner_.size() != n || row_element_.size() != n ||
      !std::equal(row_element_.begin(), row_element_.end(), p.element_id.begin()))
    TESSERA_ERROR("checkpoint ", reader.Path(), ": ", group, " describes ", row_element_.size(),
                  " rows that are not the strategy's ", n,
                  " (load the strategy's state of the same file first)");
  TESSERA_CHECK(
      send_rows_.size() == neighbours_.size() && receive_rows_.size() == neighbours_.size(),
      "checkpoint ", reader.Path(), ": ", group, " ghost lists disagree in length");
  for (const auto* lists : {&send_rows_, &receive_rows_})
    for (const auto& list : *lists)
      for (const std::uint32_t row : list)
        TESSERA_CHECK(row < n, "checkpoint ", reader.Path(), ": ", group, " ghost list names row ",
                      row, " of ", n, " (damaged file)");
  FollowRows();
  s_.counted_rows_ = &row_owned_;
}

}  // namespace tessera::dem
