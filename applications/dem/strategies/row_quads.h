// The per-row updates of row_integration.h done four rows at a time with AVX2.
//
// A column of Array3 holds rows i..i+3 as twelve consecutive doubles: three
// vectors of four, where x, y and z of the four rows follow each other. A
// per-row scalar (a mass, an inverse inertia) is spread over those lanes by
// permutation, so the update of four rows is a few vector operations instead
// of a dozen scalar ones per vector quantity.
//
// Every lane does the operations of the scalar update, in the same order and
// without fused multiply-adds (AVX2 alone does not enable FMA): the quads give
// bitwise the results of the row-by-row updates (test_dem_row_quads.py,
// with DemSettings.tuning.quad_row_updates on and off). Only rows with no imposed dof
// that are neither glued nor cluster members take them (FreeQuad); the strategy
// keeps the scalar updates for the others, for the schemes without a quad
// update and on processors without AVX2.
#pragma once

#include <cstddef>
#include <cstdint>

#include "applications/dem/strategies/row_integration.h"
#include "kernel/core/array3.h"

namespace tessera::dem {

// Whether the processor runs the quad updates (AVX2).
bool RowQuadsAvailable();

// The update that follows a quad's sums (FinishRowRange's `then`).
enum class QuadUpdate : std::uint8_t {
  kNone,             // the sums only
  kKick,             // Velocity Verlet's second half kick (KickRow)
  kSymplecticEuler,  // the whole step of Symplectic Euler (IntegrateRow)
};

// The columns a quad's sums read and write: FinishRowRange's, for rows whose
// cross slots are already added, with no background damping and in 3D.
struct QuadSumColumns {
  const Array3* contact_force;
  const Array3* external_force;   // null: none declared
  const Array3* external_moment;  // null: none declared
  Array3* total_force;
  Array3* torque;
  const double* mass;
  Array3 gravity;
};

// Rows i..i+3 are integrated (not glued, not cluster members) and have no
// imposed dof.
inline bool FreeQuad(const IntegrationRows& r, std::size_t i) {
  std::uint32_t attached = 0, fixed = 0;
  for (std::size_t k = i; k < i + 4; ++k)
    attached |= r.glued[k] | r.cluster[k], fixed |= r.fixed[k];
  return attached == 0 && fixed == 0;
}

// Rows i..i+3: total force = contact (+ external) + m g, torque (+ external
// moment), as FinishRowRange sums a row once its cross slots are added; then `update`
// (rows that FreeQuad accepts, where update is not kNone).
void FinishRowQuad(const QuadSumColumns& sums, const IntegrationRows& rows,
                   const IntegrationConstants& k, QuadUpdate update, std::size_t i);

// Velocity Verlet's half kick and drift (KickAndDriftRow) of rows [begin, end):
// four at a time where `quads` and FreeQuad allow, row by row elsewhere.
void KickAndDriftRowRange(const IntegrationRows& rows, const IntegrationConstants& k,
                          std::size_t begin, std::size_t end, bool quads);

}  // namespace tessera::dem
