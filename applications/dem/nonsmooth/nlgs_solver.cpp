// The NLGS sweep (nlgs_solver.h).
#include "applications/dem/nonsmooth/nlgs_solver.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>

#include "applications/dem/nonsmooth/delassus.h"
#include "kernel/core/error.h"

namespace tessera::dem::nonsmooth {

SweepOrder SweepOrderFromName(const std::string& name, const std::string& where) {
  if (name == "forward") return SweepOrder::kForward;
  if (name == "backward") return SweepOrder::kBackward;
  if (name == "symmetric") return SweepOrder::kSymmetric;
  if (name == "random") return SweepOrder::kRandom;
  TESSERA_ERROR(where, ": sweep_order '", name,
                "' is not known; expected \"forward\", \"backward\", \"symmetric\" or \"random\"");
}

void NonsmoothContacts::clear() {
  body_i.clear(), body_j.clear(), frame.clear(), arm_i.clear(), arm_j.clear();
  wall_velocity.clear(), w.clear(), shift.clear(), mu.clear(), gap.clear(), impulse.clear();
  key.clear(), status.clear();
  node_begin.clear(), node_count.clear(), node_slot.clear(), node_weight.clear();
}

void NonsmoothContacts::AddNodes(std::size_t k, const std::uint32_t* slots, const double* weights,
                                 int count) {
  node_begin[k] = static_cast<std::uint32_t>(node_slot.size());
  node_count[k] = static_cast<std::uint8_t>(count);
  for (int a = 0; a < count; ++a) node_slot.push_back(slots[a]), node_weight.push_back(weights[a]);
}

std::size_t NonsmoothContacts::Add(std::uint32_t i, std::int64_t j, const Array3& normal,
                                   const Array3& ai, const Array3& aj, const Array3& wv, double g,
                                   std::uint64_t k) {
  body_i.push_back(i), body_j.push_back(j), frame.push_back(FrameFromNormal(normal));
  arm_i.push_back(ai), arm_j.push_back(aj), wall_velocity.push_back(wv);
  w.push_back(Matrix3{}), shift.push_back(Array3{}), mu.push_back(0.0), gap.push_back(g);
  impulse.push_back(Array3{}), key.push_back(k), status.push_back(LocalStatus::kOpen);
  node_begin.push_back(static_cast<std::uint32_t>(node_slot.size())), node_count.push_back(0);
  return body_i.size() - 1;
}

Array3 ContactVelocity(const NonsmoothBodies& b, const NonsmoothContacts& c, std::size_t k) {
  const std::uint32_t i = c.body_i[k];
  Array3 u = b.velocity[i] + Cross(b.angular_velocity[i], c.arm_i[k]);
  const std::int64_t j = c.body_j[k];
  if (j >= 0) {
    u -= b.velocity[j] + Cross(b.angular_velocity[j], c.arm_j[k]);
  } else if (c.node_count[k] == 0) {
    u -= c.wall_velocity[k];
  } else {
    for (std::uint32_t a = c.node_begin[k], e = a + c.node_count[k]; a < e; ++a)
      u -= c.node_weight[a] * b.node_velocity[c.node_slot[a]];
  }
  return u;
}

void BuildDelassusBlocks(const NonsmoothBodies& b, NonsmoothContacts& c) {
  for (std::size_t k = 0; k < c.size(); ++k) {
    const auto block = [&b](std::size_t body, const Array3& arm) {
      return body < b.first_tensor_body
                 ? RigidBodyBlock(b.inv_mass[body], b.inv_inertia[body], arm)
                 : RigidBodyBlock(b.inv_mass[body],
                                  b.inv_inertia_tensor[body - b.first_tensor_body], arm);
    };
    Matrix3 w = block(c.body_i[k], c.arm_i[k]);
    const std::int64_t j = c.body_j[k];
    if (j >= 0) w = Add(w, block(static_cast<std::size_t>(j), c.arm_j[k]));
    if (c.node_count[k] > 0)
      w = Add(w, NodalBlock(&c.node_weight[c.node_begin[k]], &c.node_slot[c.node_begin[k]],
                            c.node_count[k], b.node_inv_mass));
    c.w[k] = ToLocal(c.frame[k], w);
  }
}

namespace {

// Adds the world impulse dp (on i; -dp on j) to the bodies' velocities.
inline void Apply(NonsmoothBodies& b, const NonsmoothContacts& c, std::size_t k, const Array3& dp) {
  const std::uint32_t i = c.body_i[k];
  const auto scale = [](const Array3& d, const Array3& x) {
    return Array3{d[0] * x[0], d[1] * x[1], d[2] * x[2]};
  };
  b.velocity[i] += scale(b.inv_mass[i], dp);
  b.angular_velocity[i] += b.Turn(i, Cross(c.arm_i[k], dp));
  const std::int64_t j = c.body_j[k];
  if (j >= 0) {
    b.velocity[j] -= scale(b.inv_mass[j], dp);
    b.angular_velocity[j] += b.Turn(static_cast<std::size_t>(j), Cross(c.arm_j[k], -dp));
  } else if (c.node_count[k] > 0) {
    // Node a takes -N_a dp.
    for (std::uint32_t a = c.node_begin[k], e = a + c.node_count[k]; a < e; ++a) {
      const std::uint32_t s = c.node_slot[a];
      b.node_velocity[s] -= c.node_weight[a] * scale(b.node_inv_mass[s], dp);
    }
  }
}

Array3 ProjectCone(const Array3& p, double mu) {
  const double pt = PlaneNorm(p[1], p[2]);
  if (pt <= mu * p[0]) return p;
  if (mu * pt <= -p[0]) return {0.0, 0.0, 0.0};
  const double pn = (p[0] + mu * pt) / (1.0 + mu * mu);
  return {pn, mu * pn * p[1] / pt, mu * pn * p[2] / pt};
}

// Appends contact k of `from` to `to`, every column, its deformable-wall
// nodes included (a split's own copy).
void CopyContact(const NonsmoothContacts& from, std::size_t k, NonsmoothContacts& to) {
  to.body_i.push_back(from.body_i[k]), to.body_j.push_back(from.body_j[k]);
  to.frame.push_back(from.frame[k]), to.arm_i.push_back(from.arm_i[k]);
  to.arm_j.push_back(from.arm_j[k]), to.wall_velocity.push_back(from.wall_velocity[k]);
  to.w.push_back(from.w[k]), to.shift.push_back(from.shift[k]), to.mu.push_back(from.mu[k]);
  to.gap.push_back(from.gap[k]), to.impulse.push_back(from.impulse[k]);
  to.key.push_back(from.key[k]), to.status.push_back(from.status[k]);
  to.node_begin.push_back(static_cast<std::uint32_t>(to.node_slot.size()));
  to.node_count.push_back(from.node_count[k]);
  for (std::uint32_t a = from.node_begin[k], e = a + from.node_count[k]; a < e; ++a)
    to.node_slot.push_back(from.node_slot[a]), to.node_weight.push_back(from.node_weight[a]);
}

// A split's per-step tables: whether this rank sweeps each contact, the
// interface contacts (ascending) and the owner of each body and each
// deformable-wall node (the rank of the first contact touching it; -1:
// none touches it).
struct SplitTables {
  std::vector<std::uint8_t> mine;
  std::vector<std::uint32_t> interface;
  std::vector<int> body_owner, node_owner;
  std::vector<double> message;  // kept between sweeps
};

SplitTables MakeSplitTables(const NonsmoothBodies& b, const NonsmoothContacts& c,
                            const NlgsRankSplit& split) {
  const std::size_t n = c.size(), bodies = b.velocity.size(), nodes = b.node_velocity.size();
  if (split.contact_rank.size() != n)
    TESSERA_ERROR("SolveNlgs: the rank split names ", split.contact_rank.size(), " contacts for ",
                  n);
  SplitTables t;
  t.mine.resize(n);
  t.body_owner.assign(bodies, -1);
  t.node_owner.assign(nodes, -1);
  // A deformable wall's node is a body of the contacts on its faces: those
  // of two ranks touching one node couple through its velocity as through
  // a sphere's.
  std::vector<std::uint8_t> shared(bodies, 0), node_shared(nodes, 0);
  const auto touch = [](std::vector<int>& owner, std::vector<std::uint8_t>& twice, std::size_t at,
                        int r) {
    if (owner[at] < 0)
      owner[at] = r;
    else if (owner[at] != r)
      twice[at] = 1;
  };
  for (std::size_t k = 0; k < n; ++k) {
    const int r = split.contact_rank[k];
    t.mine[k] = r == split.rank;
    touch(t.body_owner, shared, c.body_i[k], r);
    if (c.body_j[k] >= 0) touch(t.body_owner, shared, static_cast<std::size_t>(c.body_j[k]), r);
    for (std::uint32_t a = c.node_begin[k], e = a + c.node_count[k]; a < e; ++a)
      touch(t.node_owner, node_shared, c.node_slot[a], r);
  }
  for (std::size_t k = 0; k < n; ++k) {
    bool crosses =
        shared[c.body_i[k]] || (c.body_j[k] >= 0 && shared[static_cast<std::size_t>(c.body_j[k])]);
    for (std::uint32_t a = c.node_begin[k], e = a + c.node_count[k]; a < e && !crosses; ++a)
      crosses = node_shared[c.node_slot[a]] != 0;
    if (crosses) t.interface.push_back(static_cast<std::uint32_t>(k));
  }
  return t;
}

// After a sweep, one message: the interface contacts' impulses from their
// owners (the others' changes applied to this rank's copies in the serial
// order) and every rank's sweep maxima, each in its rank's slots; returns
// the global maxima.
void ExchangeInterface(NonsmoothBodies& b, NonsmoothContacts& c, const NlgsRankSplit& split,
                       SplitTables& t, double& max_dp, double& max_p) {
  const std::size_t m = 3 * t.interface.size();
  t.message.assign(m + 2 * static_cast<std::size_t>(split.size), 0.0);
  for (std::size_t q = 0; q < t.interface.size(); ++q)
    if (t.mine[t.interface[q]])
      for (int a = 0; a < 3; ++a) t.message[3 * q + a] = c.impulse[t.interface[q]][a];
  t.message[m + 2 * split.rank] = max_dp;
  t.message[m + 2 * split.rank + 1] = max_p;
  split.sum(t.message);
  for (std::size_t q = 0; q < t.interface.size(); ++q) {
    const std::uint32_t k = t.interface[q];
    if (t.mine[k]) continue;
    const Array3 p{t.message[3 * q], t.message[3 * q + 1], t.message[3 * q + 2]};
    const Array3 dp = p - c.impulse[k];
    c.impulse[k] = p;
    Apply(b, c, k, c.frame[k].ToWorld(dp));
  }
  for (int r = 0; r < split.size; ++r) {
    max_dp = std::max(max_dp, t.message[m + 2 * r]);
    max_p = std::max(max_p, t.message[m + 2 * r + 1]);
  }
}

// After the last sweep: every contact's impulse and status, and every
// touched body's and deformable-wall node's velocities, from their owners
// (the replicas' bits alike).
void TakeFromOwners(NonsmoothBodies& b, NonsmoothContacts& c, const NlgsRankSplit& split,
                    const SplitTables& t) {
  const std::size_t n = c.size(), bodies = b.velocity.size(), nodes = b.node_velocity.size();
  // One message: 4 doubles per contact, then 6 per body, then 3 per node.
  std::vector<double> message(4 * n + 6 * bodies + 3 * nodes, 0.0);
  double* contacts = message.data();
  double* velocities = contacts + 4 * n;
  double* node_velocities = velocities + 6 * bodies;
  for (std::size_t a = 0; a < nodes; ++a)
    if (t.node_owner[a] == split.rank)
      for (int d = 0; d < 3; ++d) node_velocities[3 * a + d] = b.node_velocity[a][d];
  for (std::size_t k = 0; k < n; ++k) {
    if (!t.mine[k]) continue;
    for (int a = 0; a < 3; ++a) contacts[4 * k + a] = c.impulse[k][a];
    contacts[4 * k + 3] = static_cast<double>(c.status[k]);
  }
  for (std::size_t i = 0; i < bodies; ++i) {
    if (t.body_owner[i] != split.rank) continue;
    for (int a = 0; a < 3; ++a) {
      velocities[6 * i + a] = b.velocity[i][a];
      velocities[6 * i + 3 + a] = b.angular_velocity[i][a];
    }
  }
  split.sum(message);
  contacts = message.data();
  velocities = contacts + 4 * n;
  node_velocities = velocities + 6 * bodies;
  for (std::size_t a = 0; a < nodes; ++a)
    if (t.node_owner[a] >= 0)  // untouched: every replica kept its free velocity
      b.node_velocity[a] = {node_velocities[3 * a], node_velocities[3 * a + 1],
                            node_velocities[3 * a + 2]};
  for (std::size_t k = 0; k < n; ++k) {
    c.impulse[k] = {contacts[4 * k], contacts[4 * k + 1], contacts[4 * k + 2]};
    c.status[k] = static_cast<LocalStatus>(static_cast<int>(contacts[4 * k + 3]));
  }
  for (std::size_t i = 0; i < bodies; ++i) {
    if (t.body_owner[i] < 0) continue;  // untouched: every replica kept its free velocity
    b.velocity[i] = {velocities[6 * i], velocities[6 * i + 1], velocities[6 * i + 2]};
    b.angular_velocity[i] = {velocities[6 * i + 3], velocities[6 * i + 4], velocities[6 * i + 5]};
  }
}

}  // namespace

NlgsReport SolveNlgs(NonsmoothBodies& bodies, NonsmoothContacts& c, const NlgsSettings& s,
                     const NlgsRankSplit* split) {
  NlgsReport report;
  const std::size_t n = c.size();
  if (!(s.relaxation > 0.0 && s.relaxation < 2.0))
    TESSERA_ERROR("moreau_jean_settings.relaxation must be in (0, 2), got ", s.relaxation);
  for (std::size_t k = 0; k < n; ++k) Apply(bodies, c, k, c.frame[k].ToWorld(c.impulse[k]));
  if (n == 0) return report;
  SplitTables tables;
  if (split != nullptr) {
    tables = MakeSplitTables(bodies, c, *split);
    report.interface_contacts = tables.interface.size();
  }
  // A split sweeps a compact copy of its own contacts, in the serial order:
  // in the whole list they lie interleaved with the others' (a sweep then
  // loads the others' halves of the cache lines too, and branches at every
  // change of owner). own_index: a contact's place in the copy (-1: another
  // rank's).
  NonsmoothContacts own;
  std::vector<std::uint32_t> global;  // the copy's contacts' places in c
  std::vector<std::int64_t> own_index;
  if (split != nullptr) {
    own_index.assign(n, -1);
    for (std::uint32_t k = 0; k < n; ++k) {
      if (!tables.mine[k]) continue;
      own_index[k] = static_cast<std::int64_t>(global.size());
      global.push_back(k);
      CopyContact(c, k, own);
    }
  }
  NonsmoothContacts& swept = split != nullptr ? own : c;
  const std::size_t m = swept.size();
  std::vector<std::uint32_t> forward(m);
  std::iota(forward.begin(), forward.end(), 0u);
  const std::vector<std::uint32_t> backward(forward.rbegin(), forward.rend());
  // The random order shuffles the whole list, as the serial run does; a
  // split sweeps its own contacts in that order.
  std::vector<std::uint32_t> shuffled, shuffled_own;
  if (s.order == SweepOrder::kRandom) {
    shuffled.resize(n);
    std::iota(shuffled.begin(), shuffled.end(), 0u);
  }
  std::mt19937_64 random(s.seed);
  if (s.sweeps_per_exchange < 1)
    TESSERA_ERROR("moreau_jean_settings.sweeps_per_exchange must be >= 1, got ",
                  s.sweeps_per_exchange);
  const int per_exchange = s.sweeps_per_exchange;
  // A split's impulses at the last exchange: the block's change is measured
  // from them.
  std::vector<Array3> block_start;
  if (split != nullptr) block_start = own.impulse;
  report.converged = false;
  for (int it = 1; it <= s.max_iterations; ++it) {
    report.iterations = it;
    const std::vector<std::uint32_t>* order = &forward;
    switch (s.order) {
      case SweepOrder::kForward:
        break;
      case SweepOrder::kBackward:
        order = &backward;
        break;
      case SweepOrder::kSymmetric:
        if (it % 2 == 0) order = &backward;
        break;
      case SweepOrder::kRandom:
        std::shuffle(shuffled.begin(), shuffled.end(), random);
        order = &shuffled;
        if (split != nullptr) {
          shuffled_own.clear();
          for (std::uint32_t k : shuffled)
            if (own_index[k] >= 0) shuffled_own.push_back(static_cast<std::uint32_t>(own_index[k]));
          order = &shuffled_own;
        }
        break;
    }
    double max_dp = 0.0, max_p = 0.0;
    const auto sweep_start = std::chrono::steady_clock::now();
    for (std::uint32_t k : *order) {
      const Array3 u = swept.frame[k].ToLocal(ContactVelocity(bodies, swept, k));
      const Array3 old = swept.impulse[k];
      const Array3 b = u - Multiply(swept.w[k], old) + swept.shift[k];
      const LocalSolution local = SolveLocalCoulomb(swept.w[k], b, swept.mu[k]);
      Array3 p = local.impulse;
      if (s.relaxation != 1.0) {
        p = s.relaxation * p + (1.0 - s.relaxation) * old;
        if (s.relaxation > 1.0) p = ProjectCone(p, swept.mu[k]);
      }
      swept.status[k] = local.status;
      const Array3 dp = p - old;
      swept.impulse[k] = p;
      Apply(bodies, swept, k, swept.frame[k].ToWorld(dp));
      max_dp = std::max(max_dp, Norm(dp));
      max_p = std::max(max_p, Norm(p));
    }
    if (split != nullptr) {
      report.sweep_seconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - sweep_start).count();
      report.swept_contacts += order->size();
      // Between exchanges only local sweeps. At an exchange the change of
      // each impulse over the whole block decides, the step of the outer
      // (Jacobi) iteration: its sweeps' own changes, small once a rank has
      // settled against the others' frozen impulses, would stop it early.
      // With one sweep a block these are that sweep's maxima (the serial
      // criterion).
      if (it % per_exchange != 0 && it < s.max_iterations) continue;
      max_dp = 0.0, max_p = 0.0;
      for (std::size_t k = 0; k < m; ++k) {
        max_dp = std::max(max_dp, Norm(own.impulse[k] - block_start[k]));
        max_p = std::max(max_p, Norm(own.impulse[k]));
        block_start[k] = own.impulse[k];
      }
      for (std::uint32_t k : tables.interface)  // this rank's interface impulses, to send
        if (own_index[k] >= 0) c.impulse[k] = own.impulse[own_index[k]];
      ExchangeInterface(bodies, c, *split, tables, max_dp, max_p);
      ++report.exchanges;
    }
    report.change = max_p > 0.0 ? max_dp / max_p : 0.0;
    if (max_dp <= s.tolerance * max_p || max_p == 0.0) {
      report.converged = true;
      break;
    }
  }
  for (std::size_t k = 0; k < global.size(); ++k)
    c.impulse[global[k]] = own.impulse[k], c.status[global[k]] = own.status[k];
  if (split != nullptr) TakeFromOwners(bodies, c, *split, tables);
  for (std::size_t k = 0; k < n; ++k) {
    const Array3 u = c.frame[k].ToLocal(ContactVelocity(bodies, c, k));
    const Array3 b = u - Multiply(c.w[k], c.impulse[k]) + c.shift[k];
    report.law_residual =
        std::max(report.law_residual, LocalLawResidual(c.w[k], b, c.mu[k], c.impulse[k]));
  }
  return report;
}

}  // namespace tessera::dem::nonsmooth
