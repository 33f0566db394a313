// The batch kernel of pair_contact_batch.h, written with GCC vector
// extensions (one lane per contact): CollectTouching finds the touching
// candidates four at a time with AVX2, and the contact law
// (pair_contact_lanes.inc) runs on four lanes with AVX2 or, where the
// processor has AVX-512, on eight. PairContactBatchAvailable() tells the
// strategy whether the processor runs the kernel, otherwise the strategy
// keeps its scalar loop.
//
// The contact law is its header's Force template (laws/), instantiated with
// the lane vectors: the source ComputeContactForce runs on doubles. The
// geometry around it repeats, in the same order of operations, the scalar
// pair loop (pair_contact_pass.cpp), with every branch evaluated in all lanes
// and selected; keep the two in step. This file is compiled with -ffp-contract=off
// (AVX-512 implies FMA), so nothing is fused. On other processor families the
// kernel is not compiled and the strategy keeps its scalar loop.
#include "applications/dem/contact_laws/pair_contact_batch.h"

#include "applications/dem/contact_laws/contact_force.h"
#include "applications/dem/utilities/avx2_lanes.h"
#include "applications/dem/utilities/packed_lanes.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstring>

#include "kernel/core/error.h"

namespace tessera::dem {
#if defined(__x86_64__)
namespace {

using avx2::Any;
using avx2::kLanes;
using avx2::Mask;
using avx2::Select;
using avx2::Splat;
using avx2::Sqrt;
using avx2::Vec;

// The Math of a law's Force and Elastic templates (laws/law_defaults.h) on
// four lanes. Not always_inline: Force has no target of its own, so these
// calls are inlined once Force is, into the kernel (the library keeps no
// LaneMath symbol).
struct LaneMath {
  using Mask = tessera::dem::Mask;
  [[gnu::target("avx2")]] static Vec Sqrt(Vec x) { return tessera::dem::Sqrt(x); }
  [[gnu::target("avx2")]] static Vec Select(Mask m, Vec a, Vec b) {
    return tessera::dem::Select(m, a, b);
  }
  [[gnu::target("avx2")]] static bool Any(Mask m) { return tessera::dem::Any(m); }
};
// One value per lane: base[stride * index[l] + offset].
TESSERA_AVX2 Vec Gather(const double* base, const std::uint32_t* index, std::size_t stride,
                        std::size_t offset) {
  return Vec{base[stride * index[0] + offset], base[stride * index[1] + offset],
             base[stride * index[2] + offset], base[stride * index[3] + offset]};
}
TESSERA_AVX2 void Store(double* to, Vec v) { std::memcpy(to, &v, sizeof v); }
TESSERA_AVX2 Vec Load(const double* from) {
  Vec v;
  std::memcpy(&v, from, sizeof v);
  return v;
}
// d - L nearbyint(d / L) in every lane: PeriodicBox::Nearest's operations
// (round to nearest even, as std::nearbyint in the default rounding mode).
TESSERA_AVX2 Vec NearestImage(Vec d, double length) {
  const Vec periods = d / Splat(length);
  const Vec rounded = reinterpret_cast<Vec>(_mm256_round_pd(
      reinterpret_cast<__m256d>(periods), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  return d - Splat(length) * rounded;
}

// Candidate c is no contact: it loses its history if it had one (as in the
// scalar loop).
void ClearCandidate(const PairBatchInput& in, std::uint32_t c) {
  if (in.state[c]) in.history[c] = PairHistory{};
  in.state[c] = 0;
}

// Candidate c's history, fetched for writing. The histories are indexed by
// candidate, and in a loose packing (the mixer: a third of the candidates
// touch) nearly every touching contact's record is a line of its own that
// the hardware prefetcher does not bring: unfetched, the spring's gather was
// the law's slowest load (12 % of its samples).
inline void PrefetchHistory(const PairBatchInput& in, std::uint32_t c) {
  const char* record = reinterpret_cast<const char*>(&in.history[c]);
  __builtin_prefetch(record, 1, 3);
  __builtin_prefetch(record + sizeof(PairHistory) - 1, 1, 3);  // it may straddle two lines
}

// Sphere data of the four lanes' spheres (first or second).
struct Row3 {
  Vec x, y, z;
};
// Each row's x and y are one 16-byte load: [x0 y0 | x2 y2] and [x1 y1 | x3 y3]
// unpack into the x and y of the four rows; z is gathered element by element.
// (One address per row, not one index per component: the gathers of a group
// had kept a dozen indices live and spilled them.) A Row starts with its three
// doubles: an Array3, or a PairHistory's spring.
template <class Row>
TESSERA_AVX2 Row3 GatherRows(const Row* rows, const std::uint32_t* index) {
  const double* r0 = reinterpret_cast<const double*>(rows + index[0]);
  const double* r1 = reinterpret_cast<const double*>(rows + index[1]);
  const double* r2 = reinterpret_cast<const double*>(rows + index[2]);
  const double* r3 = reinterpret_cast<const double*>(rows + index[3]);
  const __m256d even =
      _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(r0)), _mm_loadu_pd(r2), 1);
  const __m256d odd =
      _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(r1)), _mm_loadu_pd(r3), 1);
  return {reinterpret_cast<Vec>(_mm256_unpacklo_pd(even, odd)),
          reinterpret_cast<Vec>(_mm256_unpackhi_pd(even, odd)), Vec{r0[2], r1[2], r2[2], r3[2]}};
}

// The contact law on four lanes (AVX2), with the helpers above.
namespace four_lanes {
#define TESSERA_LANES TESSERA_AVX2
#define TESSERA_LANES_KERNEL [[gnu::target("avx2")]]
#include "applications/dem/contact_laws/pair_contact_lanes.inc"
#undef TESSERA_LANES
#undef TESSERA_LANES_KERNEL
}  // namespace four_lanes

// The contact law on eight lanes (AVX-512: 32 vector registers, so that the
// law's some fifty live values spill less, and half the instructions per
// contact where the four-lane law is bound by their count).
namespace eight_lanes {
#define TESSERA_LANES [[gnu::target("avx512f,avx512dq"), gnu::always_inline]] inline
#define TESSERA_LANES_KERNEL [[gnu::target("avx512f,avx512dq")]]
using Vec = double __attribute__((vector_size(64)));
using Mask = decltype(Vec{} < Vec{});
constexpr int kLanes = 8;

TESSERA_LANES Vec Splat(double s) { return Vec{s, s, s, s, s, s, s, s}; }
TESSERA_LANES Vec Sqrt(Vec x) {
  // The masked form: the plain one starts from an undefined vector, which
  // GCC 12 reports as maybe uninitialised.
  const __m512d v = reinterpret_cast<__m512d>(x);
  return reinterpret_cast<Vec>(_mm512_mask_sqrt_pd(v, 0xff, v));
}
TESSERA_LANES Vec Select(Mask m, Vec a, Vec b) { return m ? a : b; }
TESSERA_LANES bool Any(Mask m) { return _mm512_movepi64_mask(reinterpret_cast<__m512i>(m)) != 0; }
struct LaneMath {  // as the four-lane one
  using Mask = eight_lanes::Mask;
  [[gnu::target("avx512f,avx512dq")]] static Vec Sqrt(Vec x) { return eight_lanes::Sqrt(x); }
  [[gnu::target("avx512f,avx512dq")]] static Vec Select(Mask m, Vec a, Vec b) {
    return eight_lanes::Select(m, a, b);
  }
  [[gnu::target("avx512f,avx512dq")]] static bool Any(Mask m) { return eight_lanes::Any(m); }
};
TESSERA_LANES Vec Gather(const double* base, const std::uint32_t* index, std::size_t stride,
                         std::size_t offset) {
  return Vec{base[stride * index[0] + offset], base[stride * index[1] + offset],
             base[stride * index[2] + offset], base[stride * index[3] + offset],
             base[stride * index[4] + offset], base[stride * index[5] + offset],
             base[stride * index[6] + offset], base[stride * index[7] + offset]};
}
TESSERA_LANES void Store(double* to, Vec v) { std::memcpy(to, &v, sizeof v); }
TESSERA_LANES Vec Load(const double* from) {
  Vec v;
  std::memcpy(&v, from, sizeof v);
  return v;
}
struct Row3 {
  Vec x, y, z;
};
// As the four-lane GatherRows: [x0 y0 | x2 y2 | x4 y4 | x6 y6] and the odd
// rows' pairs interleave into the x and the y of the eight rows.
template <class Row>
TESSERA_LANES Row3 GatherRows(const Row* rows, const std::uint32_t* index) {
  using Half = double __attribute__((vector_size(32)));
  const double* r[kLanes];
  for (int l = 0; l < kLanes; ++l) r[l] = reinterpret_cast<const double*>(rows + index[l]);
  const Half pair0{r[0][0], r[0][1], r[2][0], r[2][1]}, pair4{r[4][0], r[4][1], r[6][0], r[6][1]};
  const Half pair1{r[1][0], r[1][1], r[3][0], r[3][1]}, pair5{r[5][0], r[5][1], r[7][0], r[7][1]};
  const Vec even = __builtin_shufflevector(pair0, pair4, 0, 1, 2, 3, 4, 5, 6, 7);
  const Vec odd = __builtin_shufflevector(pair1, pair5, 0, 1, 2, 3, 4, 5, 6, 7);
  return {__builtin_shufflevector(even, odd, 0, 8, 2, 10, 4, 12, 6, 14),
          __builtin_shufflevector(even, odd, 1, 9, 3, 11, 5, 13, 7, 15),
          Vec{r[0][2], r[1][2], r[2][2], r[3][2], r[4][2], r[5][2], r[6][2], r[7][2]}};
}

#include "applications/dem/contact_laws/pair_contact_lanes.inc"
#undef TESSERA_LANES
#undef TESSERA_LANES_KERNEL
}  // namespace eight_lanes

// For each 4-bit mask of touching lanes, the permutation (as eight 32-bit
// indices, two per double) that moves those lanes to the front in order.
struct CompressPermutations {
  alignas(32) std::int32_t doubles[16][8];
  // For each 4-bit mask of cross lanes, lane l's rank among them (the cross
  // lanes before it), or all ones (kNoSlot) where l is not a cross lane.
  alignas(16) std::uint32_t cross_rank[16][4];
  // For each 4-bit mask of touching lanes, 0xff in the byte of every other
  // lane (four one-byte flags of consecutive candidates read as one word,
  // x86-64 being little-endian).
  std::uint32_t apart_bytes[16];
};
constexpr CompressPermutations MakeCompressPermutations() {
  CompressPermutations table{};
  for (int mask = 0; mask < 16; ++mask) {
    for (int lane = 0, rank = 0; lane < kLanes; ++lane)
      table.cross_rank[mask][lane] =
          mask >> lane & 1 ? static_cast<std::uint32_t>(rank++) : PairContactBatch::kNoSlot;
    for (int lane = 0; lane < kLanes; ++lane)
      if (!(mask >> lane & 1)) table.apart_bytes[mask] |= std::uint32_t{0xff} << (8 * lane);
    int to = 0;
    for (int lane = 0; lane < kLanes; ++lane)
      if (mask >> lane & 1) {
        table.doubles[mask][2 * to] = 2 * lane;
        table.doubles[mask][2 * to + 1] = 2 * lane + 1;
        ++to;
      }
  }
  return table;
}
constexpr CompressPermutations kCompress = MakeCompressPermutations();

// v's lanes permuted (kCompress) and stored at `to`: the touching lanes land
// at to[0..], the others after them, overwritten by the next store.
TESSERA_AVX2 void CompressStore(double* to, Vec v, __m256i permutation) {
  const __m256 moved = _mm256_permutevar8x32_ps(reinterpret_cast<__m256>(v), permutation);
  std::memcpy(to, &moved, sizeof moved);
}

// The two spheres' rows of the candidate group [c, c + kWidth) of the touching
// tests: the list's own entries, or, for a last group of `valid` < kWidth
// candidates, copies with the last one repeated (tested again, settled once).
template <std::uint32_t kWidth>
struct CandidateGroup {
  CandidateGroup(const std::uint32_t* first, const std::uint32_t* second, std::uint32_t c,
                 std::uint32_t valid)
      : i(first + c), j(second + c) {
    if (valid == kWidth) return;
    for (std::uint32_t l = 0; l < kWidth; ++l) {
      last_i[l] = first[c + std::min(l, valid - 1)];
      last_j[l] = second[c + std::min(l, valid - 1)];
    }
    i = last_i;
    j = last_j;
  }
  CandidateGroup(const CandidateGroup&) = delete;  // i and j may point into it
  const std::uint32_t *i, *j;
  std::uint32_t last_i[kWidth], last_j[kWidth];
};

// The touching list of `count` candidates closed: its last candidate repeated
// to a whole group of the widest law's lanes (computed, not stored).
void PadTouching(PairContactBatch& b, std::size_t count) {
  for (std::size_t t = count; count > 0 && t % PairContactBatch::kWidestGroup != 0; ++t) {
    b.touching[t] = b.touching[count - 1];
    b.dx[t] = b.dx[count - 1];
    b.dy[t] = b.dy[count - 1];
    b.dz[t] = b.dz[count - 1];
    b.distance2[t] = b.distance2[count - 1];
    b.radius_first[t] = b.radius_first[count - 1];
    b.radius_second[t] = b.radius_second[count - 1];
    b.cross_slot[t] = b.cross_slot[count - 1];
  }
  b.touching_count = count;
}

// Candidates [begin, end) that touch go to b.touching with their geometry, for
// the vector lanes; the others (most of them in a loose packing) are settled
// here, as the scalar loop settles them. Four candidates at a time; the
// arithmetic is that of the scalar loop (d = x_j - x_i, nearest image, d·d).
// Every cross candidate also takes its slot (PairBatchRows): a touching one's
// goes to b.cross_slot, a non-touching one's is zeroed here.
[[gnu::target("avx2")]] void CollectTouching(const PairBatchInput& in, std::uint32_t begin,
                                             std::uint32_t end, PairContactBatch& b,
                                             PairBatchRows& rows) {
  // The pointers are copied to locals: the byte stores below may alias
  // anything, and what is read through `in` would be reloaded after each.
  const std::uint32_t* const first = in.first;
  const std::uint32_t* const second = in.second;
  const Array3* const position = in.position;
  const double* const radius = in.radius;
  const PeriodicBox box = in.periodic;
  const Vec zero = Splat(0.0);
  std::size_t count = 0;
  const std::uint32_t row_end = rows.row_end;
  std::uint32_t next_slot = rows.next_slot;
  for (std::uint32_t c = begin; c < end; c += kLanes) {
    const std::uint32_t valid = std::min<std::uint32_t>(kLanes, end - c);
    const CandidateGroup<kLanes> group(first, second, c, valid);
    const std::uint32_t *const i = group.i, *const j = group.j;
    // Element by element: on the processors measured this was faster than
    // the AVX2 gather instruction.
    const Row3 xi = GatherRows(position, i), xj = GatherRows(position, j);
    Vec dx = xj.x - xi.x, dy = xj.y - xi.y, dz = xj.z - xi.z;
    const Vec ri = Gather(radius, i, 1, 0), rj = Gather(radius, j, 1, 0);
    if (box.active) {
      if (box.axis[0]) dx = NearestImage(dx, box.Length(0));
      if (box.axis[1]) dy = NearestImage(dy, box.Length(1));
      if (box.axis[2]) dz = NearestImage(dz, box.Length(2));
    }
    const Vec distance2 = dx * dx + dy * dy + dz * dz;
    const Vec reach = ri + rj;
    const Mask touches = (distance2 < reach * reach) & (distance2 > zero);
    const int all = (1 << valid) - 1;
    const int mask = _mm256_movemask_pd(reinterpret_cast<__m256d>(touches)) & all;
    const __m256i permutation =
        _mm256_load_si256(reinterpret_cast<const __m256i*>(kCompress.doubles[mask]));
    CompressStore(&b.dx[count], dx, permutation);
    CompressStore(&b.dy[count], dy, permutation);
    CompressStore(&b.dz[count], dz, permutation);
    CompressStore(&b.distance2[count], distance2, permutation);
    CompressStore(&b.radius_first[count], ri, permutation);
    CompressStore(&b.radius_second[count], rj, permutation);
    const std::uint32_t offset = c - begin;
    const __m128i offsets =
        _mm_add_epi32(_mm_set1_epi32(static_cast<int>(offset)),
                      _mm_load_si128(reinterpret_cast<const __m128i*>(kPackedLanes.lanes[mask])));
    std::memcpy(&b.touching[count], &offsets, sizeof offsets);
    // Cross candidates (j >= row_end, unsigned) take the next slots in
    // lane order.
    __m128i second4;
    std::memcpy(&second4, j, sizeof second4);
    const __m128i is_cross =
        _mm_cmpeq_epi32(_mm_max_epu32(second4, _mm_set1_epi32(static_cast<int>(row_end))), second4);
    const int cross = _mm_movemask_ps(_mm_castsi128_ps(is_cross)) & all;
    // The lanes' slots, next_slot + rank, in vector lanes: one load, an add
    // and an or, where building them lane by lane took four popcounts and
    // four stores that the vector load then had to wait for.
    const __m128i rank =
        _mm_load_si128(reinterpret_cast<const __m128i*>(kCompress.cross_rank[cross]));
    const __m128i none = _mm_cmpeq_epi32(rank, _mm_set1_epi32(-1));
    const __m128i slot4 =
        _mm_or_si128(_mm_add_epi32(rank, _mm_set1_epi32(static_cast<int>(next_slot))), none);
    const __m128i compressed = _mm_castps_si128(_mm_permutevar_ps(
        _mm_castsi128_ps(slot4),
        _mm_load_si128(reinterpret_cast<const __m128i*>(kPackedLanes.lanes[mask]))));
    std::memcpy(&b.cross_slot[count], &compressed, sizeof compressed);
    for (int apart = cross & ~mask; apart != 0; apart &= apart - 1) {
      const std::uint32_t slot =
          next_slot + kCompress.cross_rank[cross][__builtin_ctz(static_cast<unsigned>(apart))];
      ClearCrossSlot(rows, slot);
    }
    next_slot += static_cast<std::uint32_t>(__builtin_popcount(static_cast<unsigned>(cross)));
    // The law prefetches the histories of its groups two ahead
    // (EvaluateGroups); those of its first two groups are fetched here.
    if (count < 2 * kLanes)
      for (unsigned m = static_cast<unsigned>(mask); m != 0; m &= m - 1)
        PrefetchHistory(in, c + __builtin_ctz(m));
    count += static_cast<std::size_t>(__builtin_popcount(static_cast<unsigned>(mask)));
    if (valid == kLanes) {
      // The apart lanes' state bytes cleared with one load and one store of
      // the group's four bytes; only a contact that has just come apart
      // (rare in any step) takes the branch that clears its history. A branch
      // per apart lane mispredicted in most groups of a loose packing.
      std::uint32_t flags;
      std::memcpy(&flags, in.state + c, sizeof flags);
      const std::uint32_t apart = kCompress.apart_bytes[mask];
      if (flags & apart)
        for (std::uint32_t l = 0; l < kLanes; ++l)
          if (!(mask >> l & 1)) ClearCandidate(in, c + l);
      flags &= ~apart;
      std::memcpy(in.state + c, &flags, sizeof flags);
    } else if (mask != all) {
      for (std::uint32_t l = 0; l < valid; ++l)
        if (!(mask >> l & 1)) ClearCandidate(in, c + l);
    }
  }
  PadTouching(b, count);
  rows.next_slot = next_slot;
}

// CollectTouching eight candidates at a time with AVX-512 (F, DQ, VL and
// BMI2): the same results, where the compress instructions do what the
// permutation tables do for four lanes.
#define TESSERA_COLLECT8 [[gnu::target("avx512f,avx512dq,avx512vl,bmi2")]]
// d - L nearbyint(d / L) in eight lanes, as NearestImage in four (the masked
// form: the plain one starts from an undefined vector, which GCC 12 reports).
[[gnu::target("avx512f"), gnu::always_inline]] inline __m512d NearestImageEightWide(__m512d d,
                                                                                    double length) {
  const __m512d l = _mm512_set1_pd(length);
  const __m512d periods = _mm512_div_pd(d, l);
  const __m512d rounded = _mm512_mask_roundscale_pd(periods, 0xff, periods,
                                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  return _mm512_sub_pd(d, _mm512_mul_pd(l, rounded));
}

TESSERA_COLLECT8 void CollectTouchingEightWide(const PairBatchInput& in, std::uint32_t begin,
                                               std::uint32_t end, PairContactBatch& b,
                                               PairBatchRows& rows) {
  constexpr std::uint32_t kWide = 8;
  // The pointers are copied to locals: the byte stores below may alias
  // anything, and what is read through `in` would be reloaded after each.
  const std::uint32_t* const first = in.first;
  const std::uint32_t* const second = in.second;
  const Array3* const position = in.position;
  const double* const radius = in.radius;
  const PeriodicBox box = in.periodic;
  std::size_t count = 0;
  const __m256i row_end = _mm256_set1_epi32(static_cast<int>(rows.row_end));
  const __m256i lane_index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i no_slot = _mm256_set1_epi32(-1);
  std::uint32_t next_slot = rows.next_slot;
  for (std::uint32_t c = begin; c < end; c += kWide) {
    const std::uint32_t valid = std::min<std::uint32_t>(kWide, end - c);
    const CandidateGroup<kWide> group(first, second, c, valid);
    const std::uint32_t *const i = group.i, *const j = group.j;
    const eight_lanes::Row3 xi = eight_lanes::GatherRows(position, i),
                            xj = eight_lanes::GatherRows(position, j);
    __m512d dx = reinterpret_cast<__m512d>(xj.x - xi.x);
    __m512d dy = reinterpret_cast<__m512d>(xj.y - xi.y);
    __m512d dz = reinterpret_cast<__m512d>(xj.z - xi.z);
    const __m512d ri = reinterpret_cast<__m512d>(eight_lanes::Gather(radius, i, 1, 0));
    const __m512d rj = reinterpret_cast<__m512d>(eight_lanes::Gather(radius, j, 1, 0));
    if (box.active) {
      if (box.axis[0]) dx = NearestImageEightWide(dx, box.Length(0));
      if (box.axis[1]) dy = NearestImageEightWide(dy, box.Length(1));
      if (box.axis[2]) dz = NearestImageEightWide(dz, box.Length(2));
    }
    const __m512d distance2 = _mm512_add_pd(
        _mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)), _mm512_mul_pd(dz, dz));
    const __m512d reach = _mm512_add_pd(ri, rj);
    const __mmask8 all = static_cast<__mmask8>((1u << valid) - 1);
    const __mmask8 mask = _mm512_cmp_pd_mask(distance2, _mm512_mul_pd(reach, reach), _CMP_LT_OQ) &
                          _mm512_cmp_pd_mask(distance2, _mm512_setzero_pd(), _CMP_GT_OQ) & all;
    _mm512_storeu_pd(&b.dx[count], _mm512_maskz_compress_pd(mask, dx));
    _mm512_storeu_pd(&b.dy[count], _mm512_maskz_compress_pd(mask, dy));
    _mm512_storeu_pd(&b.dz[count], _mm512_maskz_compress_pd(mask, dz));
    _mm512_storeu_pd(&b.distance2[count], _mm512_maskz_compress_pd(mask, distance2));
    _mm512_storeu_pd(&b.radius_first[count], _mm512_maskz_compress_pd(mask, ri));
    _mm512_storeu_pd(&b.radius_second[count], _mm512_maskz_compress_pd(mask, rj));
    const std::uint32_t offset = c - begin;
    const __m256i offsets =
        _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(offset)), lane_index);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(&b.touching[count]),
                        _mm256_maskz_compress_epi32(mask, offsets));
    // Cross candidates (j >= row_end, unsigned) take the next slots in lane
    // order: the expand puts next_slot + rank in the cross lanes.
    const __m256i second8 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(j));
    const __mmask8 cross = _mm256_cmpge_epu32_mask(second8, row_end) & all;
    const __m256i slots = _mm256_mask_expand_epi32(
        no_slot, cross,
        _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(next_slot)), lane_index));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(&b.cross_slot[count]),
                        _mm256_maskz_compress_epi32(mask, slots));
    const unsigned apart_cross = cross & ~mask & 0xffu;
    if (apart_cross) {
      alignas(32) std::uint32_t slot_of[kWide];
      _mm256_store_si256(reinterpret_cast<__m256i*>(slot_of), slots);
      for (unsigned apart = apart_cross; apart != 0; apart &= apart - 1) {
        const std::uint32_t slot = slot_of[__builtin_ctz(apart)];
        ClearCrossSlot(rows, slot);
      }
    }
    next_slot += static_cast<std::uint32_t>(__builtin_popcount(cross));
    // The law prefetches the histories of its groups two ahead
    // (EvaluateGroups); those of its first two groups are fetched here.
    if (count < 2 * kWide)
      for (unsigned m = mask; m != 0; m &= m - 1) PrefetchHistory(in, c + __builtin_ctz(m));
    count += static_cast<std::size_t>(__builtin_popcount(mask));
    if (valid == kWide) {
      // The apart lanes' state bytes cleared as one 8-byte word; only a
      // contact that has just come apart takes the branch that clears its
      // history (as in the four-lane CollectTouching).
      std::uint64_t flags;
      std::memcpy(&flags, in.state + c, sizeof flags);
      const std::uint64_t apart =
          _pdep_u64(~static_cast<unsigned>(mask) & 0xffu, 0x0101010101010101ull) * 0xffu;
      if (flags & apart)
        for (std::uint32_t l = 0; l < kWide; ++l)
          if (!(mask >> l & 1)) ClearCandidate(in, c + l);
      flags &= ~apart;
      std::memcpy(in.state + c, &flags, sizeof flags);
    } else {
      for (std::uint32_t l = 0; l < valid; ++l)
        if (!(mask >> l & 1)) ClearCandidate(in, c + l);
    }
  }
  PadTouching(b, count);
  rows.next_slot = next_slot;
}
#undef TESSERA_COLLECT8

template <class Law, bool kVelocityStep, bool kPowers>
void EvaluateBatch(const PairBatchInput& in, std::uint32_t begin, std::uint32_t end,
                   PairContactBatch& b, PairBatchRows& rows) {
  b.first_undefined = -1;
  if (in.eight_lanes) {
    CollectTouchingEightWide(in, begin, end, b, rows);
    eight_lanes::EvaluateGroups<Law, kVelocityStep, kPowers>(in, begin, b, rows);
  } else {
    CollectTouching(in, begin, end, b, rows);
    four_lanes::EvaluateGroups<Law, kVelocityStep, kPowers>(in, begin, b, rows);
  }
}

template <class Law>
void EvaluateBatchOfLaw(const PairBatchInput& in, std::uint32_t begin, std::uint32_t end,
                        PairContactBatch& b, PairBatchRows& rows) {
  if (in.velocity_step)
    in.powers ? EvaluateBatch<Law, true, true>(in, begin, end, b, rows)
              : EvaluateBatch<Law, true, false>(in, begin, end, b, rows);
  else
    in.powers ? EvaluateBatch<Law, false, true>(in, begin, end, b, rows)
              : EvaluateBatch<Law, false, false>(in, begin, end, b, rows);
}

}  // namespace

bool PairContactBatchAvailable() {
  static const bool available = __builtin_cpu_supports("avx2");
  return available;
}

bool EightLanePairContactBatchAvailable() {
  static const bool available = PairContactBatchAvailable() && __builtin_cpu_supports("avx512f") &&
                                __builtin_cpu_supports("avx512dq") &&
                                __builtin_cpu_supports("avx512vl") &&
                                __builtin_cpu_supports("bmi2");
  return available;
}

std::int64_t EvaluateAndApplyPairBatch(ContactLaw law, const PairBatchInput& in,
                                       std::uint32_t begin, std::uint32_t end,
                                       PairContactBatch& batch, PairBatchRows& rows) {
  ContactLaws::Visit(law, [&]<class L>(std::type_identity<L>) {
    if constexpr (L::kBatch)
      EvaluateBatchOfLaw<L>(in, begin, end, batch, rows);
    else
      TESSERA_ERROR("the batched contact kernel has no ", L::kName, " (HasPairContactBatch)");
  });
  return batch.first_undefined;
}

#else  // not x86-64: no kernel

bool PairContactBatchAvailable() { return false; }
bool EightLanePairContactBatchAvailable() { return false; }

std::int64_t EvaluateAndApplyPairBatch(ContactLaw, const PairBatchInput&, std::uint32_t,
                                       std::uint32_t, PairContactBatch&, PairBatchRows&) {
  TESSERA_ERROR("the batched contact kernel needs an x86-64 processor with AVX2");
}

#endif

}  // namespace tessera::dem
