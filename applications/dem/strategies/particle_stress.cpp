// DEM_STRESS_TENSOR: each sphere's mean stress from the forces of the force
// pass that just ran (ComputeForces writes it), its bonds' (broken bonds that
// act as contacts included) and its contacts' with other spheres and with the
// walls.
#include <algorithm>
#include <numbers>

#include "applications/dem/dem_variables.h"
#include "applications/dem/particles/stress_moment.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "kernel/model/model_part.h"

namespace tessera::dem {

// σ̄_i = (1 / V_i) Σ_c sym(r_c ⊗ F_c) (digest §3.6), r_c from the sphere's
// centre to the contact point along the contact's normal in the pass's
// geometry (a bond's: ContinuumBonds::AddStressMoments), F_c the force on the
// sphere; V_i the virtual polyhedron's volume ⅓ R_i ratio(n_i) 4π R_i²
// (thesis §5.3), n_i the sphere's bonds plus its touching contacts, clamped to
// 4..20 faces (a sphere of a simple cubic lattice: 6, the cube (2R)³). One
// thread, in list order: the same bits for any thread count; a rank of a
// distributed run holds every contact and bond of its owned rows, in the
// serial order (distributed_dem.h), so those rows get the serial run's bits.
void ExplicitSolverStrategy::WriteStressTensorToNodes() {
  NodalDatabase& db = spheres_.Nodal();
  const std::size_t n = particles_.size();
  constexpr std::size_t kSize = kStressMomentSize;
  // The scratch is zero between passes (the last loop resets what it reads).
  std::vector<double>& moments = stress_moments_;
  std::vector<int>& count = stress_faces_;
  moments.resize(kSize * n, 0.0);
  count.resize(n, 0);
  bonds_.AddStressMoments(moments);
  for (std::size_t b = 0; b < bonds_.size(); ++b)
    ++count[bonds_.first[b]], ++count[bonds_.second[b]];
  // Pair contacts (kept by this pass): F on the first sphere at a_i n, -F on
  // the second at -a_j n.
  const PairContacts& pc = pairs_;
  if (pc.kept.size() == pc.second.size())
    for (std::size_t c = 0; c < pc.kept.size(); ++c) {
      if (!(pc.state[c] & kPairTouching)) continue;
      const KeptPairForce& k = pc.kept[c];
      const std::uint32_t i = pc.first[c], j = pc.second[c];
      AddPairStressMoments(moments.data() + kSize * i, moments.data() + kSize * j, k.arm_first,
                           k.arm_second, k.normal, k.force);
      ++count[i], ++count[j];
    }
  // Wall contacts: the force on the sphere at its arm along the normal to the face.
  const WallContacts& wc = wall_contacts_;
  if (wc.arm.size() == wc.particle.size())
    for (std::size_t c = 0; c < wc.arm.size(); ++c) {
      if (!wc.active[c]) continue;
      const std::uint32_t i = wc.particle[c];
      AddStressMoment(moments.data() + kSize * i, wc.arm[c], wc.normal[c], wc.force[c]);
      ++count[i];
    }
  // ratio(n) 4π of the faces 4..20 (the volume's first factors, in its order).
  double scale[17];
  for (int faces = 4; faces <= 20; ++faces)
    scale[faces - 4] = VpacAreaRatio(faces) * 4.0 * std::numbers::pi;
  auto* column = db.HistoricalColumn(DEM_STRESS_TENSOR).Data();
  for (std::size_t i = 0; i < n; ++i) {
    const double r = particles_.radius[i];
    const double volume = scale[std::clamp(count[i], 4, 20) - 4] * r * r * r / 3.0;
    // In place: the node's 3x3 keeps its storage from pass to pass.
    Matrix& m = column[particles_.node[i]];
    if (m.rows() != 3 || m.cols() != 3) m.resize(3, 3);
    double* const out = m.data();  // row-major
    double* const s = moments.data() + kSize * i;
    for (std::size_t k = 0; k < kSize; ++k) {
      const double value = s[k] / volume;
      out[3 * kStressMomentRow[k] + kStressMomentColumn[k]] = value;
      out[3 * kStressMomentColumn[k] + kStressMomentRow[k]] = value;
      s[k] = 0.0;
    }
    count[i] = 0;
  }
}

}  // namespace tessera::dem
