// The concurrent-impact solver (cluster_impact_solver.h).
#include "applications/dem/nonsmooth/cluster_impact_solver.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>

#include "applications/dem/nonsmooth/contact_frame.h"
#include "applications/dem/nonsmooth/small_dense.h"
#include "kernel/core/error.h"

namespace tessera::dem::nonsmooth {

namespace {

// Geometry and pre-impact data of one contact.
struct Geometry {
  int i = 0, j = -1;
  Array3 n{}, a{}, b{};     // normal and tangent basis
  Array3 arm_i{}, arm_j{};  // rho_i = -r_i n, rho_j = +r_j n
  Array3 u_minus{};         // pre-impact relative contact velocity
};

double KineticEnergy(const std::vector<ImpactBody>& bodies, const std::vector<Array3>& v,
                     const std::vector<Array3>& w) {
  double e = 0.0;
  for (std::size_t k = 0; k < bodies.size(); ++k)
    e += 0.5 * bodies[k].mass * Dot(v[k], v[k]) + 0.5 * bodies[k].inertia * Dot(w[k], w[k]);
  return e;
}

// One connected component of the contact graph and its unknowns.
class Cluster {
 public:
  Cluster(const std::vector<ImpactBody>& bodies, const std::vector<Geometry>& geometry,
          std::vector<int> members, const ImpactMaterial& material, const ImpactOptions& options)
      : bodies_(bodies), g_(geometry), members_(std::move(members)), m_(material), o_(options) {
    const std::size_t c = members_.size();
    w_.assign(c * c, Matrix3{});
    for (std::size_t p = 0; p < c; ++p)
      for (std::size_t q = 0; q < c; ++q) w_[p * c + q] = Block(g_[members_[p]], g_[members_[q]]);
    state_.assign(c, ImpactState::kStick);
    ln_.assign(c, 0.0), lt_.assign(c, 0.0), phi_.assign(c, 0.0);
    double speed = 0.0;
    for (int k : members_) speed = std::max(speed, Norm(g_[k].u_minus));
    tolerance_ = o_.tolerance * std::max(speed, 1e-300);
  }

  // Runs the guess, the Newton-Levenberg solves and the active-set loop.
  // `converged` tells whether the last solve (of the final active set) met
  // the tolerance; intermediate sets only steer the active-set changes.
  void Solve(int& iterations, std::string& message, bool& converged) {
    Guess();
    converged = true;
    for (int change = 0; change <= o_.max_active_set_changes; ++change) {
      converged = Newton(iterations);
      // Release the most negative normal impulse(s).
      double most_negative = 0.0, largest = 0.0;
      for (std::size_t k = 0; k < ln_.size(); ++k)
        if (state_[k] != ImpactState::kInactive) {
          most_negative = std::min(most_negative, ln_[k]);
          largest = std::max(largest, std::abs(ln_[k]));
        }
      const double impulse_tol = 1e-12 * std::max(largest, 1e-300);
      if (most_negative < -impulse_tol) {
        for (std::size_t k = 0; k < ln_.size(); ++k)
          if (state_[k] != ImpactState::kInactive &&
              ln_[k] <= most_negative + 1e-9 * std::abs(most_negative)) {
            state_[k] = ImpactState::kInactive;
            ln_[k] = lt_[k] = 0.0;
          }
        continue;
      }
      // Then switch the contact(s) with the largest |L_t|/L_n above mu_s to slip.
      double ratio = m_.static_friction * (1.0 + 1e-12);
      bool any = false;
      for (std::size_t k = 0; k < ln_.size(); ++k)
        if (state_[k] == ImpactState::kStick && ln_[k] > impulse_tol) {
          const double r = std::abs(lt_[k]) / ln_[k];
          if (r > ratio) ratio = r, any = true;
        }
      if (!any) return;
      std::vector<std::size_t> switched;
      for (std::size_t k = 0; k < ln_.size(); ++k)
        if (state_[k] == ImpactState::kStick && ln_[k] > impulse_tol &&
            std::abs(lt_[k]) / ln_[k] >= ratio * (1.0 - 1e-9)) {
          state_[k] = ImpactState::kSlip;
          if (lt_[k] < 0.0) phi_[k] += std::numbers::pi;  // t along the stick impulse
          lt_[k] = m_.dynamic_friction * ln_[k];
          switched.push_back(k);
        }
      const auto saved_ln = ln_, saved_lt = lt_, saved_phi = phi_;
      const double before = EnergyBefore();
      converged = Newton(iterations);
      if (EnergyAfter() > before * (1.0 + 1e-12)) {
        // The other root of the slip direction: t reversed.
        ln_ = saved_ln, lt_ = saved_lt, phi_ = saved_phi;
        for (std::size_t k : switched) phi_[k] += std::numbers::pi;
        converged = Newton(iterations);
        if (EnergyAfter() > before * (1.0 + 1e-12))
          message += "a slip switch gained kinetic energy with either slip direction; ";
      }
    }
    message += "active-set changes exceeded max_active_set_changes; ";
    converged = false;
  }

  // Writes the post velocities (added to v, w) and the contact results.
  void Write(std::vector<Array3>& v, std::vector<Array3>& w, std::vector<ImpactContactResult>& out,
             double& residual) const {
    std::vector<Array3> p(members_.size());
    for (std::size_t k = 0; k < members_.size(); ++k) p[k] = Impulse(k);
    for (std::size_t k = 0; k < members_.size(); ++k) {
      const Geometry& g = g_[members_[k]];
      const ImpactBody& bi = bodies_[g.i];
      v[g.i] += p[k] / bi.mass;
      w[g.i] += Cross(g.arm_i, p[k]) / bi.inertia;
      if (g.j >= 0) {
        const ImpactBody& bj = bodies_[g.j];
        v[g.j] -= p[k] / bj.mass;
        w[g.j] += Cross(g.arm_j, -p[k]) / bj.inertia;
      }
      ImpactContactResult& r = out[members_[k]];
      r.normal = g.n;
      r.tangent = Tangent(k);
      r.normal_impulse = ln_[k];
      r.tangential_impulse = lt_[k];
      r.state = state_[k];
      r.normal_velocity_after = Dot(g.n, UPlus(k, p));
    }
    std::vector<double> f;
    Residual(f);
    for (double x : f) residual = std::max(residual, std::abs(x));
  }

 private:
  Array3 Tangent(std::size_t k) const {
    const Geometry& g = g_[members_[k]];
    return std::cos(phi_[k]) * g.a + std::sin(phi_[k]) * g.b;
  }
  Array3 Impulse(std::size_t k) const {
    if (state_[k] == ImpactState::kInactive) return {0.0, 0.0, 0.0};
    return ln_[k] * g_[members_[k]].n + lt_[k] * Tangent(k);
  }
  // The change of contact c's relative velocity per unit impulse of contact d.
  Matrix3 Block(const Geometry& c, const Geometry& d) const {
    Matrix3 out{};
    for (int axis = 0; axis < 3; ++axis) {
      Array3 p{0.0, 0.0, 0.0};
      p[axis] = 1.0;
      Array3 du{0.0, 0.0, 0.0};
      for (int side_d = 0; side_d < 2; ++side_d) {
        const int body = side_d == 0 ? d.i : d.j;
        if (body < 0) continue;
        const double sd = side_d == 0 ? 1.0 : -1.0;
        const Array3& arm_d = side_d == 0 ? d.arm_i : d.arm_j;
        const ImpactBody& b = bodies_[body];
        const Array3 dv = (sd / b.mass) * p;
        const Array3 dw = (sd / b.inertia) * Cross(arm_d, p);
        if (body == c.i) du += dv + Cross(dw, c.arm_i);
        if (body == c.j) du -= dv + Cross(dw, c.arm_j);
      }
      for (int r = 0; r < 3; ++r) out[3 * r + axis] = du[r];
    }
    return out;
  }
  Array3 UPlus(std::size_t k, const std::vector<Array3>& p) const {
    Array3 u = g_[members_[k]].u_minus;
    const std::size_t c = members_.size();
    for (std::size_t q = 0; q < c; ++q)
      if (state_[q] != ImpactState::kInactive) u += Multiply(w_[k * c + q], p[q]);
    return u;
  }
  double NormalMobility(std::size_t k) const {
    const std::size_t c = members_.size();
    return Dot(g_[members_[k]].n, Multiply(w_[k * c + k], g_[members_[k]].n));
  }
  // The active contacts' positions in the unknown vector.
  std::vector<std::size_t> Active() const {
    std::vector<std::size_t> a;
    for (std::size_t k = 0; k < state_.size(); ++k)
      if (state_[k] != ImpactState::kInactive) a.push_back(k);
    return a;
  }
  void Residual(std::vector<double>& f) const {
    const auto active = Active();
    std::vector<Array3> p(members_.size());
    for (std::size_t k = 0; k < members_.size(); ++k) p[k] = Impulse(k);
    f.assign(3 * active.size(), 0.0);
    for (std::size_t r = 0; r < active.size(); ++r) {
      const std::size_t k = active[r];
      const Geometry& g = g_[members_[k]];
      const Array3 u = UPlus(k, p);
      const Array3 t = Tangent(k), s = Cross(g.n, t);
      f[3 * r] = Dot(g.n, u) + m_.normal_restitution * Dot(g.n, g.u_minus);
      f[3 * r + 1] = state_[k] == ImpactState::kStick
                         ? Dot(t, u) + m_.tangential_restitution * Dot(t, g.u_minus)
                         : (lt_[k] - m_.dynamic_friction * ln_[k]) * NormalMobility(k);
      f[3 * r + 2] = Dot(s, u);
    }
  }
  void Jacobian(std::vector<double>& jac) const {
    const auto active = Active();
    const std::size_t n = 3 * active.size(), c = members_.size();
    jac.assign(n * n, 0.0);
    std::vector<Array3> p(c);
    for (std::size_t k = 0; k < c; ++k) p[k] = Impulse(k);
    for (std::size_t r = 0; r < active.size(); ++r) {
      const std::size_t k = active[r];
      const Geometry& g = g_[members_[k]];
      const Array3 t = Tangent(k), s = Cross(g.n, t);
      const Array3 u = UPlus(k, p);
      const bool stick = state_[k] == ImpactState::kStick;
      for (std::size_t col = 0; col < active.size(); ++col) {
        const std::size_t q = active[col];
        const Matrix3& wb = w_[k * c + q];
        const Array3 nq = g_[members_[q]].n, tq = Tangent(q), sq = Cross(nq, tq);
        const Array3 du[3] = {Multiply(wb, nq), Multiply(wb, tq), Multiply(wb, lt_[q] * sq)};
        for (int v = 0; v < 3; ++v) {
          jac[(3 * r) * n + 3 * col + v] = Dot(g.n, du[v]);
          if (stick) jac[(3 * r + 1) * n + 3 * col + v] = Dot(t, du[v]);
          jac[(3 * r + 2) * n + 3 * col + v] = Dot(s, du[v]);
        }
      }
      if (stick) {
        jac[(3 * r + 1) * n + 3 * r + 2] += Dot(s, u + m_.tangential_restitution * g.u_minus);
      } else {
        jac[(3 * r + 1) * n + 3 * r] = -m_.dynamic_friction * NormalMobility(k);
        jac[(3 * r + 1) * n + 3 * r + 1] = NormalMobility(k);
      }
      jac[(3 * r + 2) * n + 3 * r + 2] -= Dot(t, u);
    }
  }
  static double MaxAbs(const std::vector<double>& f) {
    double m = 0.0;
    for (double x : f) m = std::max(m, std::abs(x));
    return m;
  }
  void Add(const std::vector<double>& x, double scale) {
    const auto active = Active();
    for (std::size_t r = 0; r < active.size(); ++r) {
      ln_[active[r]] += scale * x[3 * r];
      lt_[active[r]] += scale * x[3 * r + 1];
      phi_[active[r]] += scale * x[3 * r + 2];
    }
  }
  // Newton with a Levenberg step: (J^T J + lambda 1) dx = -J^T F, lambda
  // adapted so that |F| decreases; near the solution lambda -> 0 (Newton).
  bool Newton(int& iterations) {
    std::vector<double> f, jac;
    Residual(f);
    if (f.empty()) return true;
    const std::size_t n = f.size();
    double norm = MaxAbs(f);
    double lambda = -1.0;
    for (int it = 0; it < o_.max_iterations; ++it) {
      if (norm <= tolerance_) return true;
      ++iterations;
      Jacobian(jac);
      std::vector<double> jtj(n * n, 0.0), jtf(n, 0.0);
      double diag = 0.0;
      for (std::size_t a = 0; a < n; ++a) {
        for (std::size_t r = 0; r < n; ++r) jtf[a] -= jac[r * n + a] * f[r];
        for (std::size_t b = a; b < n; ++b) {
          double s = 0.0;
          for (std::size_t r = 0; r < n; ++r) s += jac[r * n + a] * jac[r * n + b];
          jtj[a * n + b] = jtj[b * n + a] = s;
        }
        diag = std::max(diag, jtj[a * n + a]);
      }
      if (lambda < 0.0) lambda = 1e-12 * diag;
      bool improved = false;
      for (int tries = 0; tries < 40 && !improved; ++tries) {
        std::vector<double> a = jtj, dx = jtf;
        for (std::size_t k = 0; k < n; ++k) a[k * n + k] += lambda;
        if (SolveDense(a, dx, n)) {
          Add(dx, 1.0);
          std::vector<double> trial;
          Residual(trial);
          const double trial_norm = MaxAbs(trial);
          if (trial_norm < norm) {
            f.swap(trial), norm = trial_norm, improved = true;
            lambda = std::max(lambda * 0.1, 1e-18 * diag);
            continue;
          }
          Add(dx, -1.0);
        }
        lambda = std::max(lambda * 10.0, 1e-14 * diag);
      }
      if (!improved) return norm <= 1e3 * tolerance_;
    }
    return norm <= tolerance_;
  }
  double EnergyBefore() const {
    std::vector<Array3> v, w;
    for (const auto& b : bodies_) v.push_back(b.velocity), w.push_back(b.angular_velocity);
    return KineticEnergy(bodies_, v, w);
  }
  double EnergyAfter() const {
    std::vector<Array3> v, w;
    for (const auto& b : bodies_) v.push_back(b.velocity), w.push_back(b.angular_velocity);
    std::vector<ImpactContactResult> out(g_.size());
    double residual = 0.0;
    Write(v, w, out, residual);
    return KineticEnergy(bodies_, v, w);
  }
  // Frictionless solve, tangents from the slip it leaves, then the linear
  // model (t fixed) for L_n, L_t: the warm start of the full system.
  void Guess() {
    const std::size_t c = members_.size();
    std::vector<double> a(c * c), rhs(c);
    for (std::size_t p = 0; p < c; ++p) {
      const Geometry& gp = g_[members_[p]];
      for (std::size_t q = 0; q < c; ++q)
        a[p * c + q] = Dot(gp.n, Multiply(w_[p * c + q], g_[members_[q]].n));
      a[p * c + p] *= 1.0 + 1e-13;  // ridge: redundant contacts share the impulse
      rhs[p] = -(1.0 + m_.normal_restitution) * Dot(gp.n, gp.u_minus);
    }
    if (!SolveDense(a, rhs, c)) rhs.assign(c, 0.0);
    std::vector<Array3> p(c);
    for (std::size_t k = 0; k < c; ++k) p[k] = rhs[k] * g_[members_[k]].n;
    double speed = 0.0;
    for (int k : members_) speed = std::max(speed, Norm(g_[k].u_minus));
    for (std::size_t k = 0; k < c; ++k) {
      const Geometry& g = g_[members_[k]];
      Array3 slip = g.u_minus - Dot(g.u_minus, g.n) * g.n;
      if (Norm(slip) <= 1e-9 * speed) {
        const Array3 u = UPlus(k, p);
        slip = u - Dot(u, g.n) * g.n;
      }
      phi_[k] = Norm(slip) > 1e-12 * speed ? std::atan2(-Dot(slip, g.b), -Dot(slip, g.a)) : 0.0;
    }
    // Linear model: R0 and R1 (stick) with t fixed, unknowns (L_n, L_t).
    std::vector<double> m(4 * c * c, 0.0), r(2 * c, 0.0);
    for (std::size_t k = 0; k < c; ++k) {
      const Geometry& g = g_[members_[k]];
      const Array3 t = Tangent(k);
      for (std::size_t q = 0; q < c; ++q) {
        const Matrix3& wb = w_[k * c + q];
        const Array3 dn = Multiply(wb, g_[members_[q]].n), dt = Multiply(wb, Tangent(q));
        m[(2 * k) * 2 * c + 2 * q] = Dot(g.n, dn);
        m[(2 * k) * 2 * c + 2 * q + 1] = Dot(g.n, dt);
        m[(2 * k + 1) * 2 * c + 2 * q] = Dot(t, dn);
        m[(2 * k + 1) * 2 * c + 2 * q + 1] = Dot(t, dt);
      }
      m[(2 * k) * 2 * c + 2 * k] *= 1.0 + 1e-13;
      m[(2 * k + 1) * 2 * c + 2 * k + 1] *= 1.0 + 1e-13;
      r[2 * k] = -(1.0 + m_.normal_restitution) * Dot(g.n, g.u_minus);
      r[2 * k + 1] = -(1.0 + m_.tangential_restitution) * Dot(t, g.u_minus);
    }
    if (SolveDense(m, r, 2 * c)) {
      for (std::size_t k = 0; k < c; ++k) ln_[k] = r[2 * k], lt_[k] = r[2 * k + 1];
    } else {
      for (std::size_t k = 0; k < c; ++k) ln_[k] = rhs[k], lt_[k] = 0.0;
    }
  }

  const std::vector<ImpactBody>& bodies_;
  const std::vector<Geometry>& g_;
  std::vector<int> members_;
  ImpactMaterial m_;
  ImpactOptions o_;
  std::vector<Matrix3> w_;
  std::vector<ImpactState> state_;
  std::vector<double> ln_, lt_, phi_;
  double tolerance_ = 0.0;
};

Geometry MakeGeometry(const std::vector<ImpactBody>& bodies, const ImpactContact& c) {
  Geometry g;
  const int nb = static_cast<int>(bodies.size());
  if (c.i < 0 || c.i >= nb || c.j >= nb || c.j == c.i || c.j < -1)
    TESSERA_ERROR("impact contact (", c.i, ", ", c.j, "): body indices must be distinct, in [0, ",
                  nb, ") (j = -1: a static surface)");
  g.i = c.i, g.j = c.j;
  const ImpactBody& bi = bodies[c.i];
  if (c.j >= 0) {
    const Array3 d = bi.position - bodies[c.j].position;
    const double len = Norm(d);
    if (!(len > 0.0)) TESSERA_ERROR("impact contact (", c.i, ", ", c.j, "): coincident centres");
    g.n = d / len;
  } else {
    const double len = Norm(c.normal);
    if (!(len > 0.0)) TESSERA_ERROR("impact contact (", c.i, ", static): zero surface normal");
    g.n = c.normal / len;
  }
  TangentBasis(g.n, g.a, g.b);
  g.arm_i = -bi.radius * g.n;
  g.u_minus = bi.velocity + Cross(bi.angular_velocity, g.arm_i);
  if (c.j >= 0) {
    const ImpactBody& bj = bodies[c.j];
    g.arm_j = bj.radius * g.n;
    g.u_minus -= bj.velocity + Cross(bj.angular_velocity, g.arm_j);
  }
  return g;
}

void CheckBodies(const std::vector<ImpactBody>& bodies) {
  for (std::size_t k = 0; k < bodies.size(); ++k)
    if (!(bodies[k].mass > 0.0) || !(bodies[k].inertia > 0.0) || !(bodies[k].radius > 0.0))
      TESSERA_ERROR("impact body ", k, ": mass, inertia and radius must be > 0 (got ",
                    bodies[k].mass, ", ", bodies[k].inertia, ", ", bodies[k].radius, ")");
}

}  // namespace

ImpactResult SolveConcurrentImpact(const std::vector<ImpactBody>& bodies,
                                   const std::vector<ImpactContact>& contacts,
                                   const ImpactMaterial& material, const ImpactOptions& options) {
  CheckBodies(bodies);
  ImpactResult result;
  std::vector<Geometry> geometry;
  for (const auto& c : contacts) geometry.push_back(MakeGeometry(bodies, c));
  for (const auto& b : bodies)
    result.velocity.push_back(b.velocity), result.angular_velocity.push_back(b.angular_velocity);
  result.contacts.assign(contacts.size(), ImpactContactResult{});
  result.kinetic_energy_before = KineticEnergy(bodies, result.velocity, result.angular_velocity);

  // Clusters: connected components of the bodies through the contacts.
  std::vector<int> parent(bodies.size());
  std::iota(parent.begin(), parent.end(), 0);
  const auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (const auto& g : geometry)
    if (g.j >= 0) parent[find(g.i)] = find(g.j);
  std::vector<std::vector<int>> members(bodies.size());
  for (std::size_t k = 0; k < geometry.size(); ++k)
    members[find(geometry[k].i)].push_back(static_cast<int>(k));
  result.converged = true;
  for (auto& m : members) {
    if (m.empty()) continue;
    ++result.clusters;
    Cluster cluster(bodies, geometry, m, material, options);
    bool converged = true;
    cluster.Solve(result.iterations, result.message, converged);
    result.converged = result.converged && converged;
    cluster.Write(result.velocity, result.angular_velocity, result.contacts, result.residual);
  }
  result.kinetic_energy_after = KineticEnergy(bodies, result.velocity, result.angular_velocity);
  Array3 dp{0.0, 0.0, 0.0};
  for (std::size_t k = 0; k < bodies.size(); ++k)
    dp += bodies[k].mass * (result.velocity[k] - bodies[k].velocity);
  result.smallest_normal_impulse = INFINITY;
  for (std::size_t k = 0; k < geometry.size(); ++k) {
    const auto& r = result.contacts[k];
    if (geometry[k].j < 0) dp -= r.normal_impulse * r.normal + r.tangential_impulse * r.tangent;
    if (r.state != ImpactState::kInactive)
      result.smallest_normal_impulse = std::min(result.smallest_normal_impulse, r.normal_impulse);
  }
  if (result.smallest_normal_impulse == INFINITY) result.smallest_normal_impulse = 0.0;
  result.momentum_change = dp;
  if (!result.converged && result.message.empty()) result.message = "Newton did not converge; ";
  if (result.kinetic_energy_after > result.kinetic_energy_before * (1.0 + 1e-10))
    result.message += "kinetic energy increased; ";
  return result;
}

std::vector<ImpactContact> TouchingPairs(const std::vector<ImpactBody>& bodies, double tolerance) {
  std::vector<ImpactContact> out;
  for (std::size_t i = 0; i < bodies.size(); ++i)
    for (std::size_t j = i + 1; j < bodies.size(); ++j) {
      const double gap =
          Norm(bodies[i].position - bodies[j].position) - bodies[i].radius - bodies[j].radius;
      if (std::abs(gap) <= tolerance)
        out.push_back({static_cast<int>(i), static_cast<int>(j), {0.0, 0.0, 0.0}});
    }
  return out;
}

ImpactResult BinaryImpactClosedForm(const ImpactBody& a, const ImpactBody& b,
                                    const ImpactMaterial& material) {
  CheckBodies({a, b});
  const std::vector<ImpactBody> bodies{a, b};
  const Geometry g = MakeGeometry(bodies, {0, 1, {0.0, 0.0, 0.0}});
  ImpactResult r;
  r.clusters = 1;
  r.converged = true;
  const double un = Dot(g.u_minus, g.n);
  const double m_star = 1.0 / (1.0 / a.mass + 1.0 / b.mass);
  const double m_t = 1.0 / (1.0 / a.mass + 1.0 / b.mass + a.radius * a.radius / a.inertia +
                            b.radius * b.radius / b.inertia);
  ImpactContactResult c;
  c.normal = g.n;
  c.state = ImpactState::kInactive;
  Array3 p{0.0, 0.0, 0.0};
  if (un < 0.0) {
    c.state = ImpactState::kStick;
    c.normal_impulse = (1.0 + material.normal_restitution) * m_star * (-un);
    const Array3 ut = g.u_minus - un * g.n;
    const double slip = Norm(ut);
    c.tangent = slip > 0.0 ? -ut / slip : g.a;
    c.tangential_impulse = (1.0 + material.tangential_restitution) * m_t * slip;
    if (c.tangential_impulse > material.static_friction * c.normal_impulse) {
      c.tangential_impulse = material.dynamic_friction * c.normal_impulse;
      c.state = ImpactState::kSlip;
    }
    p = c.normal_impulse * c.normal + c.tangential_impulse * c.tangent;
  }
  r.velocity = {a.velocity + p / a.mass, b.velocity - p / b.mass};
  r.angular_velocity = {a.angular_velocity + Cross(g.arm_i, p) / a.inertia,
                        b.angular_velocity + Cross(g.arm_j, -p) / b.inertia};
  const Array3 u = (r.velocity[0] + Cross(r.angular_velocity[0], g.arm_i)) -
                   (r.velocity[1] + Cross(r.angular_velocity[1], g.arm_j));
  c.normal_velocity_after = Dot(u, g.n);
  r.contacts = {c};
  r.kinetic_energy_before =
      KineticEnergy(bodies, {a.velocity, b.velocity}, {a.angular_velocity, b.angular_velocity});
  r.kinetic_energy_after = KineticEnergy(bodies, r.velocity, r.angular_velocity);
  r.momentum_change = a.mass * (r.velocity[0] - a.velocity) + b.mass * (r.velocity[1] - b.velocity);
  r.smallest_normal_impulse = c.normal_impulse;
  return r;
}

}  // namespace tessera::dem::nonsmooth
