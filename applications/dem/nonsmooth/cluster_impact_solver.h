// The concurrent-impact (cluster) solver for hard spheres, after thesis 003
// (its chapters 3-4, equations as reconstructed below): the post-collision
// velocities of spheres meeting at several contacts at the same instant.
//
// Contact c joins spheres i and j (or sphere i and a static surface), with
// n_c = (x_i - x_j)/|x_i - x_j| (the surface's normal, towards the sphere),
// arms rho_i = -r_i n_c, rho_j = +r_j n_c, relative contact velocity
// u_c = (v_i + w_i x rho_i) - (v_j + w_j x rho_j) and impulse on i
// P_c = L_n n_c + L_t t_c (on j: -P_c). Its unknowns are L_n, L_t and the unit
// tangent t_c (an angle in the tangent plane); its equations:
//   u_c+ . n + e_n u_c- . n = 0                   (Newton restitution, 3.20)
//   stick: u_c+ . t + e_t u_c- . t = 0            (3.22)
//   slip:  L_t = mu_d L_n                         (3.24, where |L_t| > mu_s L_n)
//   u_c+ . (n x t) = 0                            (3.23)
// with the bodies' momentum balances (3.15, 3.18-3.19) eliminated: the
// post velocities are linear in the impulses through the Delassus blocks.
//
// Robust solution (the thesis' plain Newton failed beyond small clusters):
// the clusters are the connected components of the contact graph, each solved
// alone; the guess is the frictionless solution, whose tangential slip orients
// each t, then the linear model (t fixed); the full system is solved by
// Newton with a Levenberg step (minimum-norm where the tangential impulses of
// closed sticking loops are indeterminate) from that warm start; the
// active set follows the thesis: the most negative L_n is released, then the
// contact with the largest |L_t|/L_n > mu_s slips, oriented as its stick
// impulse, with the opposite root tried where the first gains energy;
// neither change is undone. Post-checks: momentum balance, kinetic energy not
// increasing, L_n >= 0.
#pragma once

#include <string>
#include <vector>

#include "kernel/core/array3.h"

namespace tessera::dem::nonsmooth {

struct ImpactBody {
  Array3 position{}, velocity{}, angular_velocity{};
  double radius = 0.0, mass = 0.0, inertia = 0.0;
};

struct ImpactContact {
  int i = 0;
  int j = -1;       // -1: a static surface
  Array3 normal{};  // static surfaces only: unit, towards sphere i
};

struct ImpactMaterial {
  double normal_restitution = 0.9, tangential_restitution = 0.9;
  double static_friction = 0.15, dynamic_friction = 0.15;
};

struct ImpactOptions {
  double tolerance = 1e-13;  // on the residual, relative to the largest approach speed
  int max_iterations = 200;  // Newton-Levenberg iterations per active set
  int max_active_set_changes = 100;
};

enum class ImpactState : int { kInactive = 0, kStick = 1, kSlip = 2 };

struct ImpactContactResult {
  double normal_impulse = 0.0, tangential_impulse = 0.0;
  Array3 normal{}, tangent{};
  ImpactState state = ImpactState::kInactive;
  double normal_velocity_after = 0.0;  // u_c+ . n
};

struct ImpactResult {
  std::vector<Array3> velocity, angular_velocity;
  std::vector<ImpactContactResult> contacts;
  int clusters = 0;
  int iterations = 0;     // Newton-Levenberg iterations, all clusters and active sets
  double residual = 0.0;  // largest final equation residual (velocity units)
  double kinetic_energy_before = 0.0, kinetic_energy_after = 0.0;
  Array3 momentum_change{};  // sum m (v+ - v-) minus the impulses of static surfaces
  double smallest_normal_impulse = 0.0;
  bool converged = false;
  std::string message;
};

ImpactResult SolveConcurrentImpact(const std::vector<ImpactBody>& bodies,
                                   const std::vector<ImpactContact>& contacts,
                                   const ImpactMaterial& material,
                                   const ImpactOptions& options = {});

// The sphere pairs whose gap |x_i - x_j| - r_i - r_j is within `tolerance` of
// zero, i < j (the contacts of one impact instant).
std::vector<ImpactContact> TouchingPairs(const std::vector<ImpactBody>& bodies, double tolerance);

// The binary closed form (003 eqs 5.1-5.2, Hoomans 1999) for spheres i, j:
// L_n = (1 + e_n) m* |u.n|, L_t = min((1 + e_t) m_t |u_T|, stick) or mu_d L_n.
ImpactResult BinaryImpactClosedForm(const ImpactBody& a, const ImpactBody& b,
                                    const ImpactMaterial& material);

}  // namespace tessera::dem::nonsmooth
