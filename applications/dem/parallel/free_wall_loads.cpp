// DistributedDem::ReduceFreeWallLoads (see distributed_dem.h): the contact
// force and moment of the particles on each FREE_BODY_MOTION wall, summed over
// the contacts of every rank's owned spheres in the serial run's order, so that
// every rank integrates the walls with the serial run's bits.
//
// The serial sum (ExplicitSolverStrategy::CollectFreeWallLoads) runs over the
// wall contact list, sorted by particle row, i.e. by key here; a sphere's wall
// contacts are all on its owner, in the serial order. Each rank sends its
// terms (key, wall, -force, moment term) in its list order; rank 0 merges
// the ranks' lists by key (each ascending), adds the terms in that order as
// the serial loop does, and broadcasts the sums.
#include <algorithm>
#include <numeric>
#include <vector>

#include "applications/dem/parallel/distributed_dem.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "kernel/core/error.h"
#include "kernel/parallel/communicator.h"

namespace tessera::dem {
namespace {
// A term: key, wall, the force on the wall (3), its moment about the wall's
// centre less the rolling torque (3).
constexpr std::size_t kTerm = 8;
}  // namespace

void DistributedDem::ReduceFreeWallLoads() {
  std::vector<FreeRigidWall>& bodies = s_.free_walls_;
  const auto& wc = s_.wall_contacts_;
  std::vector<double> local;
  for (std::size_t c = 0; c < wc.particle.size(); ++c) {
    if (!wc.active[c] || !OwnedRow(wc.particle[c])) continue;
    const int b = s_.face_free_wall_[wc.face[c]];
    if (b < 0) continue;
    const FreeRigidWall& body = bodies[static_cast<std::size_t>(b)];
    // The serial loop's terms: -force and its moment less the rolling torque.
    const Array3 force = -wc.force[c];
    const Array3 moment = ContactMomentOnWall(body, wc.point[c], wc.force[c], wc.rolling[c]);
    local.insert(local.end(),
                 {static_cast<double>(KeyOfRow(wc.particle[c])), static_cast<double>(b), force[0],
                  force[1], force[2], moment[0], moment[1], moment[2]});
  }
  const std::vector<std::vector<double>> parts = comm_->Gather(local, 0);
  std::vector<double> sums;
  if (rank_ == 0) {
    // Every term by (key, rank, position): a sphere's terms come from one
    // rank, in its list order.
    std::vector<const double*> terms;
    for (const std::vector<double>& part : parts) {
      if (part.size() % kTerm != 0)
        TESSERA_ERROR("DistributedDem: a free wall load message of ", part.size(),
                      " doubles, not a multiple of ", kTerm);
      for (std::size_t k = 0; k < part.size(); k += kTerm) terms.push_back(part.data() + k);
    }
    std::stable_sort(terms.begin(), terms.end(),
                     [](const double* a, const double* b) { return a[0] < b[0]; });
    std::vector<Array3> force(bodies.size()), moment(bodies.size());
    for (const double* t : terms) {
      const auto b = static_cast<std::size_t>(t[1]);
      if (b >= bodies.size())
        TESSERA_ERROR("DistributedDem: a free wall load names wall ", b, " of ", bodies.size(),
                      " (the walls must be alike on every rank)");
      // contact_force -= force[c] is contact_force + (-force[c]) bit for bit.
      force[b] += Array3{t[2], t[3], t[4]};
      moment[b] += Array3{t[5], t[6], t[7]};
    }
    for (std::size_t b = 0; b < bodies.size(); ++b)
      sums.insert(sums.end(), {force[b][0], force[b][1], force[b][2], moment[b][0], moment[b][1],
                               moment[b][2]});
  }
  comm_->Broadcast(sums, 0);
  if (sums.size() != 6 * bodies.size())
    TESSERA_ERROR("DistributedDem: rank ", rank_, " has ", bodies.size(),
                  " free walls, rank 0 sent the loads of ", sums.size() / 6);
  for (std::size_t b = 0; b < bodies.size(); ++b) {
    bodies[b].contact_force = Array3{sums[6 * b], sums[6 * b + 1], sums[6 * b + 2]};
    bodies[b].contact_moment = Array3{sums[6 * b + 3], sums[6 * b + 4], sums[6 * b + 5]};
  }
}

}  // namespace tessera::dem
