// The Moreau-Jean strategy over MPI ranks (distributed_moreau_jean.h).
#include "applications/dem/parallel/distributed_moreau_jean.h"

#include <algorithm>
#include <cstring>

#include "applications/dem/nonsmooth/moreau_jean_strategy.h"
#include "applications/dem/parallel/rank_speeds.h"
#include "kernel/core/error.h"
#include "kernel/io/checkpoint_file.h"
#include "kernel/parallel/communicator.h"

namespace tessera::dem {

DistributedMoreauJean::DistributedMoreauJean(nonsmooth::MoreauJeanStrategy& strategy,
                                             std::shared_ptr<const Communicator> communicator,
                                             DistributedDemSettings settings)
    : s_(strategy), comm_(std::move(communicator)), settings_(std::move(settings)) {
  rank_ = comm_->Rank();
  size_ = comm_->Size();
  if (settings_.balance != "count" && settings_.balance != "contacts" &&
      settings_.balance != "time")
    TESSERA_ERROR(
        "\"parallel_type\": \"MPI\" with moreau_jean_strategy balances the spheres' counts, "
        "their contacts or the sweeps' measured time; key 'mpi_settings.balance' is \"",
        settings_.balance, "\", expected \"count\", \"contacts\" or \"time\"");
  for (int r = 0; r < size_; ++r)
    if (r != rank_) others_.push_back(r);
}

std::vector<double> DistributedMoreauJean::RowLoads() const {
  if (!BalancesContacts()) return std::vector<double>(s_.Particles().size(), 1.0);
  std::vector<double> loads(s_.Particles().size(), 0.0);
  for (std::uint32_t row : s_.ContactRowsI()) loads[row] += 1.0;
  return loads;
}

std::vector<double> DistributedMoreauJean::BoxLoads(const std::vector<double>& row_loads) const {
  const ParticleStorage& p = s_.Particles();
  std::vector<double> load(size_, 0.0);
  for (std::size_t i = 0; i < p.size(); ++i) load[RcbOwner(boxes_, p.position[i])] += row_loads[i];
  return load;
}

void DistributedMoreauJean::Bisect(const std::vector<double>& row_loads,
                                   const std::vector<double>& weights) {
  const ParticleStorage& p = s_.Particles();
  std::vector<Array3> points(p.size());
  std::vector<std::int64_t> keys(p.size());
  for (std::size_t i = 0; i < p.size(); ++i)
    points[i] = p.position[i], keys[i] = static_cast<std::int64_t>(i);
  RcbLoadBalance balance;
  if (BalancesContacts()) {
    balance.loads = row_loads;
    // The pair contacts as links: a cut may leave its share by up to
    // kInterfaceWindow of the load to cross fewer of them.
    const auto& first = s_.ContactRowsI();
    const auto& second = s_.ContactRowsJ();
    for (std::size_t k = 0; k < first.size(); ++k)
      if (second[k] >= 0)
        balance.links.push_back({first[k], static_cast<std::uint32_t>(second[k])});
    balance.window = kInterfaceWindow;
  }
  boxes_ = RecursiveCoordinateBisection(points, keys, size_, weights, balance);
  bisection_loads_ = BoxLoads(row_loads);
  bisection_weights_ = weights;
}

void DistributedMoreauJean::Start() {
  Bisect(RowLoads());
  seconds_mark_ = s_.SplitSweepSeconds(), swept_mark_ = s_.SplitSweptContacts();
  s_.SetRankSplit(
      rank_, size_, [this](const Array3& x) { return RcbOwner(boxes_, x); },
      [this](std::vector<double>& v) { SumOverRanks(v); });
}

void DistributedMoreauJean::AfterStep() {
  // The strategy's step count, not one of this object's: a run continued
  // from a checkpoint keeps the cadence of the uninterrupted one.
  const auto steps = static_cast<long long>(s_.StepCount());
  if (settings_.rebalance_every <= 0 || steps % settings_.rebalance_every != 0 || size_ == 1)
    return;
  // Each box's owned spheres, or the contacts its spheres head (the sweeps'
  // work: a contact is swept by its first body's rank).
  const std::vector<double> row_loads = RowLoads();
  if (BalancesTime()) {
    if (RebalanceByTime(row_loads)) ++rebalances_;
    return;
  }
  const std::vector<double> load = BoxLoads(row_loads);
  double total = 0.0;
  for (double l : load) total += l;
  const double mean = total / size_;
  const double largest = *std::max_element(load.begin(), load.end());
  if (mean > 0.0 && largest > settings_.imbalance_threshold * mean) {
    Bisect(row_loads);
    ++rebalances_;
  }
}

bool DistributedMoreauJean::RebalanceByTime(const std::vector<double>& row_loads) {
  const double seconds = s_.SplitSweepSeconds() - seconds_mark_;
  const double swept = s_.SplitSweptContacts() - swept_mark_;
  seconds_mark_ = s_.SplitSweepSeconds(), swept_mark_ = s_.SplitSweptContacts();
  const std::vector<double> times = comm_->AllGather(seconds);
  // A rank's speed: the contacts it swept per sweep second.
  UpdateRankSpeeds(comm_->AllGather(swept), times, speed_);
  if (!SecondsImbalanced(times, settings_.imbalance_threshold)) return false;
  // A rank not measured yet (it swept nothing) counts at the mean speed.
  const std::vector<double> weights = SpeedsWithUnmeasuredAtMean(speed_);
  if (weights.empty()) return false;
  Bisect(row_loads, weights);
  return true;
}

std::vector<std::size_t> DistributedMoreauJean::OwnedRows() const {
  const ParticleStorage& p = s_.Particles();
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < p.size(); ++i)
    if (RcbOwner(boxes_, p.position[i]) == rank_) rows.push_back(i);
  return rows;
}

std::vector<IdType> DistributedMoreauJean::OwnedElementIds() const {
  const ParticleStorage& p = s_.Particles();
  std::vector<IdType> ids;
  for (std::size_t i : OwnedRows()) ids.push_back(p.element_id[i]);
  return ids;
}

std::vector<std::int64_t> DistributedMoreauJean::SweptContacts() const {
  std::vector<std::int64_t> swept(size_, 0);
  for (int r : s_.ContactRanks()) ++swept[r];
  return swept;
}

std::uint64_t DistributedMoreauJean::ReplicaDigest() const {
  // FNV-1a over the bytes.
  std::uint64_t h = 1469598103934665603ull;
  const auto add = [&h](const Array3& a) {
    unsigned char bytes[sizeof(double) * 3];
    std::memcpy(bytes, &a[0], sizeof(double)), std::memcpy(bytes + 8, &a[1], sizeof(double));
    std::memcpy(bytes + 16, &a[2], sizeof(double));
    for (unsigned char b : bytes) h = (h ^ b) * 1099511628211ull;
  };
  const ParticleStorage& p = s_.Particles();
  for (std::size_t i = 0; i < p.size(); ++i)
    add(p.position[i]), add(p.velocity[i]), add(p.angular_velocity[i]);
  return h;
}

void DistributedMoreauJean::SaveState(CheckpointWriter& writer, const std::string& group) const {
  std::vector<double> corners;
  for (const RcbBox& box : boxes_) {
    corners.insert(corners.end(), box.low.begin(), box.low.end());
    corners.insert(corners.end(), box.high.begin(), box.high.end());
  }
  writer.Write(group + "/ranks", std::vector<std::int64_t>{size_});
  writer.Write(group + "/rank", std::vector<std::int64_t>{rank_});
  writer.Write(group + "/boxes", corners);
  writer.Write(group + "/rebalances", std::vector<std::int64_t>{rebalances_});
  writer.Write(group + "/bisection_loads", bisection_loads_);
  writer.Write(group + "/speeds", speed_);
}

void DistributedMoreauJean::LoadState(const CheckpointReader& reader, const std::string& group) {
  const auto read_one = [&](const char* what) {
    const std::string name = group + "/" + what;
    if (!reader.Has(name))
      TESSERA_ERROR("checkpoint ", reader.Path(), " has no ", name,
                    ": it holds no distributed Moreau-Jean state (written by a serial run, or by "
                    "another deck?)");
    const std::vector<std::int64_t> values = reader.ReadInt64(name);
    if (values.size() != 1)
      TESSERA_ERROR("checkpoint ", reader.Path(), ": ", name, " holds ", values.size(),
                    " values, not one (damaged file?)");
    return values.front();
  };
  CheckSavedRank(reader, read_one("ranks"), read_one("rank"), size_, rank_);
  const std::vector<double> corners = reader.ReadDoubles(group + "/boxes");
  if (corners.size() != 6 * static_cast<std::size_t>(size_))
    TESSERA_ERROR("checkpoint ", reader.Path(), ": ", group, "/boxes holds ", corners.size(),
                  " values, not 6 for each of ", size_, " ranks (damaged file?)");
  boxes_.resize(size_);
  for (int r = 0; r < size_; ++r)
    for (int a = 0; a < 3; ++a)
      boxes_[r].low[a] = corners[6 * r + a], boxes_[r].high[a] = corners[6 * r + 3 + a];
  rebalances_ = static_cast<int>(read_one("rebalances"));
  bisection_loads_ = reader.ReadDoubles(group + "/bisection_loads");
  // (Checkpoints written before the time balance have no speeds.)
  if (reader.Has(group + "/speeds")) speed_ = reader.ReadDoubles(group + "/speeds");
  seconds_mark_ = s_.SplitSweepSeconds(), swept_mark_ = s_.SplitSweptContacts();
}

void DistributedMoreauJean::SumOverRanks(std::vector<double>& values) const {
  if (size_ == 1) return;
  out_.assign(others_.size(), values);
  in_.assign(others_.size(), std::vector<double>(values.size()));
  comm_->ExchangeKnownSizes(others_, out_, in_);
  // Rank order: rank 0's values first, then each next rank's.
  std::vector<const std::vector<double>*> by_rank(size_);
  by_rank[rank_] = &values;
  for (std::size_t q = 0; q < others_.size(); ++q) by_rank[others_[q]] = &in_[q];
  std::vector<double> result = *by_rank[0];
  for (int r = 1; r < size_; ++r) {
    const std::vector<double>& v = *by_rank[r];
    for (std::size_t k = 0; k < result.size(); ++k) result[k] += v[k];
  }
  values = std::move(result);
}

}  // namespace tessera::dem
