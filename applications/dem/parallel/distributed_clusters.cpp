// DistributedDem's rigid clusters (distributed_dem.h, "Rigid clusters"): a
// cluster and its member rows travel together, owned where the cluster's
// centre is; its state (RigidClusters' columns) goes with its members at each
// migration and to its ghosts after each step.
//
// A cluster message: the key of its first member (the members are rows of
// consecutive keys), its owner, element, node and properties ids, the node's
// initial coordinates and CHARACTERISTIC_LENGTH, the member count, the first
// member's element id, mass, principal inertia, the members' body-frame
// offsets, then its state (kClusterState doubles: what the serial
// integrator keeps between steps).
#include <algorithm>
#include <unordered_map>

#include "applications/dem/dem_variables.h"
#include "applications/dem/parallel/distributed_dem.h"
#include "applications/dem/parallel/periodic_layer.h"
#include "applications/dem/particles/rigid_clusters.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "kernel/core/error.h"
#include "kernel/model/model_part.h"
#include "kernel/parallel/communicator.h"

namespace tessera::dem {
namespace {

// centre, velocity, angular velocity, angular momentum, displacement,
// orientation (w x y z), force, torque, rotation vector of the last drift.
constexpr std::size_t kClusterState = 3 * 5 + 4 + 3 * 3;
// key, owner, element, node, properties, x0 (3), length, members, first element,
// mass, inertia (3); then 3 per member and the state.
constexpr std::size_t kClusterHead = 5 + 3 + 1 + 1 + 1 + 1 + 3;

void PutClusterState(std::vector<double>& out, const RigidClusters& c, std::size_t k) {
  for (const Array3* a : {&c.centre[k], &c.velocity[k], &c.angular_velocity[k],
                          &c.angular_momentum[k], &c.displacement[k]})
    out.insert(out.end(), a->begin(), a->end());
  const Quaternion& q = c.orientation[k];
  out.insert(out.end(), {q.w, q.x, q.y, q.z});
  for (const Array3* a : {&c.force[k], &c.torque[k], &c.delta_rotation[k]})
    out.insert(out.end(), a->begin(), a->end());
}

Array3 TakeArray(const double*& in) {
  const Array3 a{in[0], in[1], in[2]};
  in += 3;
  return a;
}

void TakeClusterState(const double*& in, RigidClusters& c, std::size_t k) {
  c.centre[k] = TakeArray(in), c.velocity[k] = TakeArray(in);
  c.angular_velocity[k] = TakeArray(in), c.angular_momentum[k] = TakeArray(in);
  c.displacement[k] = TakeArray(in);
  c.orientation[k] = Quaternion{in[0], in[1], in[2], in[3]};
  in += 4;
  c.force[k] = TakeArray(in), c.torque[k] = TakeArray(in), c.delta_rotation[k] = TakeArray(in);
}

// The cluster whose first member is `row`, or -1 (a free sphere, or a
// member other than the first).
std::int64_t ClusterStartingAt(const RigidClusters& c, const ParticleStorage& p, std::size_t row) {
  const std::uint32_t k = p.cluster[row];
  return k != 0 && c.first_row[k - 1] == row ? static_cast<std::int64_t>(k - 1) : -1;
}

}  // namespace

Array3 DistributedDem::Site(std::size_t row) const {
  const std::uint32_t k = s_.particles_.cluster[row];
  return k == 0 ? s_.particles_.position[row] : s_.clusters_.centre[k - 1];
}

double DistributedDem::ClusterReach() const {
  double reach = 0.0;
  for (const std::vector<Array3>& offsets : s_.clusters_.member_offset)
    for (const Array3& offset : offsets) reach = std::max(reach, Norm(offset));
  return reach;
}

void DistributedDem::RemoveRows(const std::vector<std::uint8_t>& keep) {
  RigidClusters& c = s_.clusters_;
  if (c.empty()) return s_.RemoveParticles(keep);
  // A cluster's rows are kept or removed together (decided by its centre):
  // its first row says which, before the rows are renumbered.
  std::vector<std::uint8_t> keep_cluster(c.size());
  bool any_removed = false;
  for (std::size_t k = 0; k < c.size(); ++k) {
    keep_cluster[k] = keep[c.first_row[k]];
    for (std::uint32_t m = 1; m < c.row_count[k]; ++m)
      if (keep[c.first_row[k] + m] != keep_cluster[k])
        TESSERA_ERROR("DistributedDem: rank ", rank_, " would keep only some spheres of Cluster3D ",
                      "element ", c.element_id[k]);
    any_removed = any_removed || keep_cluster[k] == 0;
  }
  s_.RemoveParticles(keep);
  if (any_removed) RemoveClusters(*s_.clusters_part_, c, s_.particles_, keep_cluster);
}

std::vector<std::vector<double>> DistributedDem::PackClusters() const {
  // Where Migrate sends the members (the same test on the same centre): the
  // cluster goes along.
  std::vector<std::vector<double>> out(size_);
  const RigidClusters& c = s_.clusters_;
  const RcbBox& own = boxes_[static_cast<std::size_t>(rank_)];
  const bool has_length = s_.clusters_part_ != nullptr &&
                          s_.clusters_part_->Nodal().HasHistoricalVariable(CHARACTERISTIC_LENGTH);
  std::vector<int> holders;
  for (std::size_t k = 0; k < c.size(); ++k) {
    const std::uint32_t row = c.first_row[k];
    if (!OwnedRow(row) || DeepInsidePeriodic(own, c.centre[k], layer_, s_.periodic_)) continue;
    const int owner = RcbOwner(boxes_, c.centre[k]);
    GhostTargets(c.centre[k], owner, holders);
    holders.push_back(owner);
    const Element& element = s_.clusters_part_->GetElement(c.element_id[k]);
    Node node(&s_.clusters_part_->Nodal(), c.node[k]);
    const Array3& x0 = node.InitialCoordinates();
    const double length = has_length ? node.FastGetSolutionStepValue(CHARACTERISTIC_LENGTH) : 0.0;
    for (int r : holders) {
      if (r == rank_) continue;
      std::vector<double>& h = out[r];
      h.insert(h.end(),
               {static_cast<double>(KeyOfRow(row)), static_cast<double>(owner),
                static_cast<double>(c.element_id[k]), static_cast<double>(node.Id()),
                static_cast<double>(element.GetProperties().Id()), x0[0], x0[1], x0[2], length,
                static_cast<double>(c.row_count[k]), static_cast<double>(c.first_member_element[k]),
                c.mass[k], c.inertia[k][0], c.inertia[k][1], c.inertia[k][2]});
      for (const Array3& offset : c.member_offset[k])
        h.insert(h.end(), offset.begin(), offset.end());
      PutClusterState(h, c, k);
    }
  }
  return out;
}

void DistributedDem::InstallClusters(std::vector<std::vector<double>> out) {
  const std::vector<std::vector<double>> send = ToPartners(out, "rigid clusters");
  for (const std::vector<double>& message : send)
    migration_doubles_ += static_cast<std::int64_t>(message.size());
  const std::vector<std::vector<double>> in = comm_->Exchange(partners_, send);
  RigidClusters& c = s_.clusters_;
  ModelPart& part = *s_.clusters_part_;
  std::unordered_map<IdType, std::size_t> index_of;
  for (std::size_t k = 0; k < c.size(); ++k) index_of.emplace(c.element_id[k], k);
  const bool has_length = part.Nodal().HasHistoricalVariable(CHARACTERISTIC_LENGTH);
  bool added = false;
  for (const std::vector<double>& message : in) {
    const double* h = message.data();
    const double* const end = h + message.size();
    while (h < end) {
      const auto members = static_cast<std::uint32_t>(h[9]);
      if (h + kClusterHead + 3 * members + kClusterState > end)
        TESSERA_ERROR("DistributedDem: rank ", rank_, " got a truncated cluster message");
      const auto key = static_cast<std::int64_t>(h[0]);
      const auto id = static_cast<IdType>(h[2]);
      std::size_t k;
      if (const auto found = index_of.find(id); found != index_of.end()) {
        k = found->second;  // held already (a ghost before): its state below
      } else {
        // New here: its members arrived with Migrate (by the same test).
        const std::int64_t first = RowOfKey(key);
        if (first < 0)
          TESSERA_ERROR("DistributedDem: Cluster3D element ", id, " arrived on rank ", rank_,
                        " without its member spheres (first key ", key, ")");
        const auto node_id = static_cast<IdType>(h[3]);
        const double* centre = h + kClusterHead + 3 * members;  // the state's first column
        Node node = part.CreateNewNode(node_id, centre[0], centre[1], centre[2]);
        node.InitialCoordinates() = Array3{h[5], h[6], h[7]};
        if (has_length) node.FastGetSolutionStepValue(CHARACTERISTIC_LENGTH) = h[8];
        const IdType ids[1] = {node_id};
        const Element& element = part.CreateNewElement(
            "Cluster3D", id, ids, part.GetProperties(static_cast<IdType>(h[4])));
        // Appended: the clusters stay in the model part's element order
        // (RemoveClusters relies on it).
        c.element_id.push_back(id);
        c.node.push_back(element.GetGeometry().NodeIndex(0));
        for (auto* column : {&c.centre, &c.velocity, &c.angular_velocity, &c.angular_momentum,
                             &c.displacement, &c.force, &c.torque, &c.delta_rotation})
          column->emplace_back();
        c.orientation.emplace_back();
        c.mass.push_back(h[11]);
        c.inertia.push_back(Array3{h[12], h[13], h[14]});
        c.first_row.push_back(static_cast<std::uint32_t>(first));
        c.row_count.push_back(members);
        c.first_member_element.push_back(static_cast<IdType>(h[10]));
        std::vector<Array3>& offsets = c.member_offset.emplace_back();
        const double* o = h + kClusterHead;
        for (std::uint32_t m = 0; m < members; ++m) offsets.push_back(TakeArray(o));
        k = c.size() - 1;
        index_of.emplace(id, k);
        added = true;
      }
      const double* state = h + kClusterHead + 3 * members;
      TakeClusterState(state, c, k);
      h = state;
    }
  }
  // The new members: their cluster's number, mass and inertia (they came as
  // spheres), every cluster's first row found again by element id.
  if (added) {
    AttachClusterRows(c, s_.particles_);
    WriteClustersToNodes(c, part);
  }
}

void DistributedDem::RefreshGhostClusters() {
  // The clusters whose members a neighbour sends (all members go, so the
  // first one does): their state after the owner's step, in key order on
  // both sides, as the rows themselves.
  const ParticleStorage& p = s_.particles_;
  RigidClusters& c = s_.clusters_;
  cluster_out_.resize(neighbours_.size());
  cluster_in_.resize(neighbours_.size());
  for (std::size_t n = 0; n < neighbours_.size(); ++n) {
    cluster_out_[n].clear();
    for (std::uint32_t row : send_rows_[n])
      if (const std::int64_t k = ClusterStartingAt(c, p, row); k >= 0)
        PutClusterState(cluster_out_[n], c, static_cast<std::size_t>(k));
    std::size_t count = 0;
    for (std::uint32_t row : receive_rows_[n]) count += ClusterStartingAt(c, p, row) >= 0 ? 1 : 0;
    cluster_in_[n].resize(count * kClusterState);
    ghost_doubles_ += static_cast<std::int64_t>(cluster_out_[n].size());
  }
  comm_->ExchangeKnownSizes(neighbours_, cluster_out_, cluster_in_);
  for (std::size_t n = 0; n < neighbours_.size(); ++n) {
    const double* cursor = cluster_in_[n].data();
    for (std::uint32_t row : receive_rows_[n])
      if (const std::int64_t k = ClusterStartingAt(c, p, row); k >= 0)
        TakeClusterState(cursor, c, static_cast<std::size_t>(k));
  }
}

void DistributedDem::VoteClusters() {
  s_.clusters_on_any_rank_ =
      comm_->MaxAll(static_cast<std::int64_t>(s_.clusters_.empty() ? 0 : 1)) != 0;
}

std::vector<IdType> DistributedDem::OwnedClusterIds() const {
  std::vector<IdType> ids;
  const RigidClusters& c = s_.clusters_;
  for (std::size_t k = 0; k < c.size(); ++k)
    if (OwnedRow(c.first_row[k])) ids.push_back(c.element_id[k]);
  return ids;
}

}  // namespace tessera::dem
