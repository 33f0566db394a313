// The four-row updates of row_quads.h (AVX2, x86-64 only). Each function
// repeats, lane by lane, the operations of its scalar counterpart in
// row_integration.h and ExplicitSolverStrategy::FinishRowRange, in the same
// order: keep them in step.
#include "applications/dem/strategies/row_quads.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "kernel/core/error.h"

namespace tessera::dem {
#if defined(__x86_64__)
namespace {

#define TESSERA_AVX2 [[gnu::target("avx2"), gnu::always_inline]] inline

static_assert(sizeof(Array3) == 3 * sizeof(double), "four rows are twelve doubles");

// Rows i..i+3 of an Array3 column: x0 y0 z0 x1 | y1 z1 x2 y2 | z2 x3 y3 z3.
struct Quad {
  __m256d a, b, c;
};
TESSERA_AVX2 Quad LoadQuad(const Array3* rows) {
  const double* d = reinterpret_cast<const double*>(rows);
  return {_mm256_loadu_pd(d), _mm256_loadu_pd(d + 4), _mm256_loadu_pd(d + 8)};
}
TESSERA_AVX2 void StoreQuad(Array3* rows, const Quad& q) {
  double* d = reinterpret_cast<double*>(rows);
  _mm256_storeu_pd(d, q.a);
  _mm256_storeu_pd(d + 4, q.b);
  _mm256_storeu_pd(d + 8, q.c);
}
TESSERA_AVX2 Quad Add(const Quad& p, const Quad& q) {
  return {_mm256_add_pd(p.a, q.a), _mm256_add_pd(p.b, q.b), _mm256_add_pd(p.c, q.c)};
}
TESSERA_AVX2 Quad Mul(const Quad& p, const Quad& q) {
  return {_mm256_mul_pd(p.a, q.a), _mm256_mul_pd(p.b, q.b), _mm256_mul_pd(p.c, q.c)};
}
TESSERA_AVX2 Quad Mul(const Quad& p, __m256d s) {
  return {_mm256_mul_pd(p.a, s), _mm256_mul_pd(p.b, s), _mm256_mul_pd(p.c, s)};
}
// One value per row (s = s0 s1 s2 s3) over its row's three components.
TESSERA_AVX2 Quad Spread(__m256d s) {
  return {_mm256_permute4x64_pd(s, 0x40),   // s0 s0 s0 s1
          _mm256_permute4x64_pd(s, 0xA5),   // s1 s1 s2 s2
          _mm256_permute4x64_pd(s, 0xFE)};  // s2 s3 s3 s3
}
// One vector for all four rows: g repeated.
TESSERA_AVX2 Quad Repeat(const Array3& g) {
  return {_mm256_setr_pd(g[0], g[1], g[2], g[0]), _mm256_setr_pd(g[1], g[2], g[0], g[1]),
          _mm256_setr_pd(g[2], g[0], g[1], g[2])};
}
TESSERA_AVX2 __m256d Splat(double s) { return _mm256_set1_pd(s); }
TESSERA_AVX2 __m256d Load4(const double* from) { return _mm256_loadu_pd(from); }

// The new velocity stored and the rows moved by dx (position, displacement
// where it advances, this step's increment), as the scalar updates store them.
TESSERA_AVX2 void Move(const IntegrationRows& r, const IntegrationConstants& k, std::size_t i,
                       const Quad& velocity, const Quad& dx) {
  StoreQuad(r.velocity + i, velocity);
  StoreQuad(r.position + i, Add(LoadQuad(r.position + i), dx));
  if (k.advance_displacement) StoreQuad(r.displacement + i, Add(LoadQuad(r.displacement + i), dx));
  StoreQuad(r.delta_displacement + i, dx);
}
// The rows turned by dtheta (this step's turn, the accumulated angle).
TESSERA_AVX2 void Turn(const IntegrationRows& r, std::size_t i, const Quad& dtheta) {
  StoreQuad(r.delta_rotation + i, dtheta);
  StoreQuad(r.rotation_angle + i, Add(LoadQuad(r.rotation_angle + i), dtheta));
}

// KickRow, rows i..i+3, whose total force and torque are given.
TESSERA_AVX2 void KickQuad(const IntegrationRows& r, const IntegrationConstants& k, std::size_t i,
                           const Quad& force, const Quad& torque) {
  const __m256d h = Splat(0.5 * k.dt), virtual_mass = Splat(k.virtual_mass);
  // HalfKicked: v + s f with s = h (c/m).
  const __m256d s = _mm256_mul_pd(h, _mm256_div_pd(virtual_mass, Load4(r.mass + i)));
  StoreQuad(r.velocity + i, Add(LoadQuad(r.velocity + i), Mul(Spread(s), force)));
  if (!k.rotation) return;
  const Quad inverse_inertia = Spread(_mm256_div_pd(virtual_mass, Load4(r.inertia + i)));
  const Quad w = LoadQuad(r.angular_velocity + i);
  if (k.rotational_scheme == RotationalScheme::kDirect) {
    // Kicked: w + (h t) (c/I).
    StoreQuad(r.angular_velocity + i, Add(w, Mul(Mul(torque, h), inverse_inertia)));
    return;
  }
  const __m256d dt = Splat(k.dt);
  const Quad spin = Add(w, Mul(Mul(torque, dt), inverse_inertia));
  StoreQuad(r.angular_velocity + i, spin);
  Turn(r, i, Mul(spin, dt));
}

// IntegrateRow<kSymplecticEuler>, rows i..i+3, whose total force and torque are given.
TESSERA_AVX2 void SymplecticEulerQuad(const IntegrationRows& r, const IntegrationConstants& k,
                                      std::size_t i, const Quad& force, const Quad& torque) {
  const __m256d dt = Splat(k.dt), virtual_mass = Splat(k.virtual_mass);
  const Quad inverse_mass = Spread(_mm256_div_pd(virtual_mass, Load4(r.mass + i)));
  // Advance: v + (f c/m) dt, then the increment v dt.
  const Quad velocity = Add(LoadQuad(r.velocity + i), Mul(Mul(force, inverse_mass), dt));
  Move(r, k, i, velocity, Mul(velocity, dt));
  const __m256d zero = _mm256_setzero_pd();
  Quad dtheta{zero, zero, zero};
  if (k.rotation) {
    // Either rotational scheme: w + (t c/I) dt, then the turn w dt.
    const Quad inverse_inertia = Spread(_mm256_div_pd(virtual_mass, Load4(r.inertia + i)));
    const Quad spin = Add(LoadQuad(r.angular_velocity + i), Mul(Mul(torque, inverse_inertia), dt));
    StoreQuad(r.angular_velocity + i, spin);
    dtheta = Mul(spin, dt);
  }
  Turn(r, i, dtheta);
}

// KickAndDriftRow, rows i..i+3.
TESSERA_AVX2 void KickAndDriftQuad(const IntegrationRows& r, const IntegrationConstants& k,
                                   std::size_t i) {
  const __m256d h = Splat(0.5 * k.dt), dt = Splat(k.dt), virtual_mass = Splat(k.virtual_mass);
  const __m256d s = _mm256_mul_pd(h, _mm256_div_pd(virtual_mass, Load4(r.mass + i)));
  const Quad velocity = Add(LoadQuad(r.velocity + i), Mul(Spread(s), LoadQuad(r.force + i)));
  Move(r, k, i, velocity, Mul(velocity, dt));
  if (k.rotational_scheme != RotationalScheme::kDirect) return;
  const __m256d zero = _mm256_setzero_pd();
  Quad dtheta{zero, zero, zero};
  if (k.rotation) {
    const Quad inverse_inertia = Spread(_mm256_div_pd(virtual_mass, Load4(r.inertia + i)));
    const Quad spin =
        Add(LoadQuad(r.angular_velocity + i), Mul(Mul(LoadQuad(r.torque + i), h), inverse_inertia));
    dtheta = Mul(spin, dt);
    StoreQuad(r.angular_velocity + i, spin);
  }
  Turn(r, i, dtheta);
}

// The arguments are copied to locals: a vector store may alias anything, and
// what is read through a reference would be reloaded after each.
[[gnu::target("avx2")]] void FinishQuad(const QuadSumColumns& sum_columns,
                                        const IntegrationRows& row_columns,
                                        const IntegrationConstants& constants, QuadUpdate update,
                                        std::size_t i) {
  const QuadSumColumns sums = sum_columns;
  const IntegrationRows rows = row_columns;
  const IntegrationConstants k = constants;
  // FinishRowRange's order: total = contact, += external, += m g.
  Quad total = LoadQuad(sums.contact_force + i);
  if (sums.external_force) total = Add(total, LoadQuad(sums.external_force + i));
  total = Add(total, Mul(Spread(Load4(sums.mass + i)), Repeat(sums.gravity)));
  Quad torque = LoadQuad(sums.torque + i);
  if (sums.external_moment) {
    torque = Add(torque, LoadQuad(sums.external_moment + i));
    StoreQuad(sums.torque + i, torque);
  }
  StoreQuad(sums.total_force + i, total);
  switch (update) {
    case QuadUpdate::kNone:
      return;
    case QuadUpdate::kKick:
      return KickQuad(rows, k, i, total, torque);
    case QuadUpdate::kSymplecticEuler:
      return SymplecticEulerQuad(rows, k, i, total, torque);
  }
}

// KickAndDriftRowRange with quads: the scalar rows compiled here as well.
[[gnu::target("avx2")]] void KickAndDriftQuadRange(const IntegrationRows& row_columns,
                                                   const IntegrationConstants& constants,
                                                   std::size_t begin, std::size_t end) {
  const IntegrationRows rows = row_columns;  // locals, as in FinishQuad
  const IntegrationConstants k = constants;
  std::size_t i = begin;
  while (i < end) {
    if (i + 4 <= end && FreeQuad(rows, i)) {
      KickAndDriftQuad(rows, k, i);
      i += 4;
    } else {
      KickAndDriftRow(rows, k, i);
      ++i;
    }
  }
}

}  // namespace

#undef TESSERA_AVX2

bool RowQuadsAvailable() {
  static const bool available = __builtin_cpu_supports("avx2");
  return available;
}

void FinishRowQuad(const QuadSumColumns& sums, const IntegrationRows& rows,
                   const IntegrationConstants& k, QuadUpdate update, std::size_t i) {
  FinishQuad(sums, rows, k, update, i);
}

void KickAndDriftRowRange(const IntegrationRows& row_columns, const IntegrationConstants& constants,
                          std::size_t begin, std::size_t end, bool quads) {
  if (quads) return KickAndDriftQuadRange(row_columns, constants, begin, end);
  const IntegrationRows rows = row_columns;  // locals, as in FinishQuad
  const IntegrationConstants k = constants;
  for (std::size_t i = begin; i < end; ++i) KickAndDriftRow(rows, k, i);
}

#else  // not x86-64: the scalar updates only

bool RowQuadsAvailable() { return false; }

void FinishRowQuad(const QuadSumColumns&, const IntegrationRows&, const IntegrationConstants&,
                   QuadUpdate, std::size_t) {
  TESSERA_ERROR("the four-row updates need an x86-64 processor with AVX2");
}

void KickAndDriftRowRange(const IntegrationRows& rows, const IntegrationConstants& k,
                          std::size_t begin, std::size_t end, bool) {
  for (std::size_t i = begin; i < end; ++i) KickAndDriftRow(rows, k, i);
}

#endif

}  // namespace tessera::dem
