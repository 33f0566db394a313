// Cell-grid neighbour search (see neighbour_search.h).
#include "applications/dem/utilities/neighbour_search.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <limits>

#include "applications/dem/strategies/memory_report.h"
#include "applications/dem/utilities/packed_lanes.h"
#include "applications/dem/utilities/parallel_rows.h"
#include "applications/dem/utilities/spatial_order.h"
#include "kernel/core/error.h"

namespace tessera::dem {
namespace {

// Fewer cells than this many per particle is enough: a coarser grid only adds
// distance checks, a finer one adds empty cells to visit.
constexpr double kMaxCellsPerParticle = 4.0;

double SquaredDistanceToBox(const Array3& p, const Array3& lo, const Array3& hi) {
  double d2 = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double below = lo[k] - p[k], above = p[k] - hi[k];
    const double d = std::max({below, above, 0.0});
    d2 += d * d;
  }
  return d2;
}

// Sorts [begin, end): by insertion where a row has few hits (most rows; the
// call and set-up of std::sort cost more than the sorting there).
void SortSmall(std::uint32_t* begin, std::uint32_t* end) {
  if (end - begin > 16) {
    std::sort(begin, end);
    return;
  }
  for (std::uint32_t* k = begin + 1; k < end; ++k) {
    const std::uint32_t value = *k;
    std::uint32_t* to = k;
    for (; to > begin && to[-1] > value; --to) *to = to[-1];
    *to = value;
  }
}

// A chunk's hits: items[0, count) are found; the vector may hold more, so
// that a four-wide visit can store a whole group and keep only its hits.
struct HitBuffer {
  std::vector<std::uint32_t> items;
  std::size_t count = 0;
  // At least `slots` writable entries from items[count].
  std::uint32_t* Room(std::size_t slots) {
    if (items.size() < count + slots) items.resize(std::max(2 * items.size(), count + slots + 60));
    return items.data() + count;
  }
  void Push(std::uint32_t j) {
    *Room(1) = j;
    ++count;
  }
};

// Runs visit(i, hits) over rows 0..n-1 once, the visit adding the hits of row i
// to the HitBuffer, and writes every (i, hit) in row order whatever the number
// of threads: fixed chunks of rows collect their hits in their own buffers (in
// parallel), which are then concatenated in chunk order. (Counting first and
// writing second would visit every row twice: the visits, distance checks
// included, are the search's cost.)
template <class Visit>
void CollectInRowOrder(std::size_t n, Visit&& visit, std::vector<std::uint32_t>& rows,
                       std::vector<std::uint32_t>& hits, bool sort_each_row) {
  constexpr std::size_t kChunkRows = 1024;
  const std::size_t chunks = (n + kChunkRows - 1) / kChunkRows;
  struct Chunk {
    std::vector<std::uint32_t> rows;
    HitBuffer hits;
  };
  std::vector<Chunk> found(chunks);
  ParallelBlocks(n, chunks, [&](std::size_t k) {
    Chunk& chunk = found[k];
    const std::size_t end = std::min(n, (k + 1) * kChunkRows);
    for (std::size_t i = k * kChunkRows; i < end; ++i) {
      const std::size_t first = chunk.hits.count;
      visit(i, chunk.hits);
      chunk.rows.resize(chunk.hits.count, static_cast<std::uint32_t>(i));
      if (sort_each_row)
        SortSmall(chunk.hits.items.data() + first, chunk.hits.items.data() + chunk.hits.count);
    }
  });
  std::vector<std::size_t> offset(chunks + 1, 0);
  for (std::size_t k = 0; k < chunks; ++k) offset[k + 1] = offset[k] + found[k].hits.count;
  rows.resize(offset[chunks]);
  hits.resize(offset[chunks]);
  ParallelBlocks(n, chunks, [&](std::size_t k) {
    std::copy(found[k].rows.begin(), found[k].rows.end(), rows.begin() + offset[k]);
    std::copy_n(found[k].hits.items.begin(), found[k].hits.count, hits.begin() + offset[k]);
    found[k] = Chunk{};
  });
}

#if defined(__x86_64__)
// What the four-wide visit of FindParticlePairs reads.
struct PairGrid {
  const Array3* x;
  const double* r;
  const std::uint32_t* cell_start;
  const std::uint32_t* cell_particles;  // with kCellListPadding entries past the last
  // Per cell, its last particle (the largest), or 0 where it is empty: the
  // visit's test of a cell is then one load, not a load of its end and then,
  // dependent on it, of its last entry.
  const std::uint32_t* cell_last;
  // The coordinates and radii of cell_particles' entries, in its order (and
  // padding): entry s is particle cell_particles[s].
  const double *cell_x, *cell_y, *cell_z, *cell_r;
  // Cells per axis in the order of the cell numbering, fastest first (the
  // visit's "x", "y" and "z" are these axes, not necessarily the world's).
  std::array<std::int64_t, 3> dims;
  double tolerance;
};

// Adds to `hits` the candidates j > i of particle i (in cell (cx, cy, cz),
// coordinates along PairGrid::dims' axes): the visit of FindParticlePairs,
// four list entries at a time (AVX2). Along the fastest axis the three
// neighbour cells of a row of cells are consecutive in the cell list: one
// range per row of cells, not three cells, whose coordinates are consecutive
// in the cell-ordered copy. The distance test is the scalar
// one operation for operation (no fused multiply-add), so the hits are the
// same; their order within a row is not, and the caller sorts it.
[[gnu::target("avx2")]] void VisitPairsFourWide(const PairGrid& g, std::uint32_t i, std::int64_t cx,
                                                std::int64_t cy, std::int64_t cz, HitBuffer& hits) {
  // The ranges of the nine rows of cells first. A cell lists its particles in
  // increasing order, so one whose last is not after i has no candidate j > i:
  // a range starts after its leading such cells (with the rows sorted in
  // space, by the strategy's SortRows, those are the cells before i's own:
  // whole rows of cells drop out).
  std::uint32_t range_begin[9], range_end[9];
  int ranges = 0;
  std::size_t entries = 0;
  const std::uint32_t* const cell_start = g.cell_start;
  const std::uint32_t* const cell_particles = g.cell_particles;
  const std::uint32_t* const cell_last = g.cell_last;
  const std::int64_t x0 = std::max<std::int64_t>(cx - 1, 0), x1 = std::min(cx + 1, g.dims[0] - 1);
  for (std::int64_t z = std::max<std::int64_t>(cz - 1, 0); z <= std::min(cz + 1, g.dims[2] - 1);
       ++z)
    for (std::int64_t y = std::max<std::int64_t>(cy - 1, 0); y <= std::min(cy + 1, g.dims[1] - 1);
         ++y) {
      const std::int64_t row = (z * g.dims[1] + y) * g.dims[0];
      std::int64_t cell = row + x0;
      while (cell <= row + x1 && cell_last[cell] <= i) ++cell;  // (an empty cell: 0 <= i)
      const std::uint32_t begin = cell_start[cell], end = cell_start[row + x1 + 1];
      if (begin >= end) continue;
      range_begin[ranges] = begin;
      range_end[ranges] = end;
      ++ranges;
      entries += end - begin;
    }
  if (ranges == 0) return;

  const Array3 p = g.x[i];
  const __m256d px = _mm256_set1_pd(p[0]), py = _mm256_set1_pd(p[1]), pz = _mm256_set1_pd(p[2]);
  const __m256d ri = _mm256_set1_pd(g.r[i]), tolerance = _mm256_set1_pd(g.tolerance);
  // Unsigned j > i as a signed comparison: both offset by 2^31.
  const __m128i bias = _mm_set1_epi32(static_cast<int>(0x80000000u));
  const __m128i biased_i = _mm_xor_si128(_mm_set1_epi32(static_cast<int>(i)), bias);
  const double *const cell_x = g.cell_x, *const cell_y = g.cell_y, *const cell_z = g.cell_z,
                      *const cell_r = g.cell_r;
  // Room for every entry as a hit, and a whole group past the last: the
  // groups store through a local pointer and the count stays in a register
  // (through the buffer, each group's vector store, which may alias
  // anything, made the next group reload the count and the vector's end).
  std::uint32_t* const first_hit = hits.Room(entries + 4);
  std::uint32_t* out = first_hit;
  for (int k = 0; k < ranges; ++k) {
    const std::uint32_t begin = range_begin[k], end = range_end[k];
    for (std::uint32_t s = begin; s < end; s += 4) {
      // Lanes past `end` read the padding or the next cells: masked off.
      const __m128i js = _mm_loadu_si128(reinterpret_cast<const __m128i*>(cell_particles + s));
      const int later =
          _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(_mm_xor_si128(js, bias), biased_i)));
      const int valid = end - s >= 4 ? 0xF : (1 << (end - s)) - 1;
      const __m256d dx = _mm256_sub_pd(_mm256_loadu_pd(cell_x + s), px);
      const __m256d dy = _mm256_sub_pd(_mm256_loadu_pd(cell_y + s), py);
      const __m256d dz = _mm256_sub_pd(_mm256_loadu_pd(cell_z + s), pz);
      const __m256d rj = _mm256_loadu_pd(cell_r + s);
      // Dot(d, d) < (r_i + r_j + tolerance)², in the scalar order.
      const __m256d distance2 = _mm256_add_pd(
          _mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)), _mm256_mul_pd(dz, dz));
      const __m256d reach = _mm256_add_pd(_mm256_add_pd(ri, rj), tolerance);
      const int near =
          _mm256_movemask_pd(_mm256_cmp_pd(distance2, _mm256_mul_pd(reach, reach), _CMP_LT_OQ));
      // The hits packed to the front and the whole group stored: no
      // branch on which lanes hit (they mispredicted in most groups).
      const int lanes = near & later & valid;
      const __m128i packed = _mm_castps_si128(_mm_permutevar_ps(
          _mm_castsi128_ps(js),
          _mm_load_si128(reinterpret_cast<const __m128i*>(kPackedLanes.lanes[lanes]))));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out), packed);
      out += __builtin_popcount(static_cast<unsigned>(lanes));
    }
  }
  hits.count += static_cast<std::size_t>(out - first_hit);
}
#endif

}  // namespace

std::size_t NeighbourSearch::HeldBytes() const {
  return VectorBytes(cell_start_, cell_particles_, cell_of_, cell_coordinates_, cell_cursor_,
                     face_cell_start_, face_cell_items_, face_cursor_);
}

std::int64_t NeighbourSearch::CellCoordinate(double x, int axis) const {
  const double c = std::floor((x - origin_[axis]) / cell_size_[axis]);
  if (!(c >= 0.0)) return 0;  // below the grid, or NaN
  return std::min<std::int64_t>(static_cast<std::int64_t>(std::min(c, 1e15)), dims_[axis] - 1);
}

void NeighbourSearch::BuildGrid(const std::vector<Array3>& position, double cell_size) {
  const std::size_t n = position.size();
  Array3 lo{std::numeric_limits<double>::max(), std::numeric_limits<double>::max(),
            std::numeric_limits<double>::max()};
  Array3 hi{-lo[0], -lo[1], -lo[2]};
  for (const Array3& p : position)
    for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], p[k]), hi[k] = std::max(hi[k], p[k]);
  if (n == 0) lo = hi = Array3{};
  // Grow the cells until the grid has a bounded number of them: a sparse cloud
  // must not allocate a huge empty grid.
  double h = cell_size > 0.0 ? cell_size : 1.0;
  const double max_cells = std::max(27.0, kMaxCellsPerParticle * static_cast<double>(n));
  for (;;) {
    double cells = 1.0;
    for (int k = 0; k < 3; ++k) cells *= std::floor((hi[k] - lo[k]) / h) + 1.0;
    if (cells <= max_cells) break;
    h *= 1.5;
  }
  origin_ = lo;
  grid_rows_ = n;
  cell_size_ = Array3{h, h, h};
  for (int k = 0; k < 3; ++k)
    dims_[k] = static_cast<std::int64_t>(std::floor((hi[k] - lo[k]) / h)) + 1;
  SortIntoCells(position);
}

void NeighbourSearch::BuildPeriodicGrid(const std::vector<Array3>& position, double cell_size) {
  origin_ = periodic_.low;
  grid_rows_ = kNoGrid;
  for (int k = 0; k < 3; ++k)
    if (periodic_.axis[k] && std::floor(periodic_.Length(k) / cell_size) < 3.0)
      TESSERA_ERROR("the periodic domain is ", periodic_.Length(k), " long along axis ", k,
                    "; it must be at least three times the largest contact reach 2 r_max + "
                    "SearchTolerance = ",
                    cell_size, " (enlarge the bounding box)");
  // Larger cells (never fewer than three per periodic side) while the grid has
  // more cells than the particles need: a large box must not allocate a huge
  // empty grid.
  const double max_cells =
      std::max(27.0, kMaxCellsPerParticle * static_cast<double>(position.size()));
  for (double h = cell_size;; h *= 1.5) {
    double cells = 1.0;
    for (int k = 0; k < 3; ++k)
      if (periodic_.axis[k]) cells *= std::max(3.0, std::floor(periodic_.Length(k) / h));
    if (cells <= max_cells || h > 1e300) {
      cell_size = h;
      break;
    }
  }
  for (int k = 0; k < 3; ++k) {
    if (!periodic_.axis[k]) {
      // Not periodic (2D discs along z): cells of cell_size over the particles.
      double lo = std::numeric_limits<double>::max(), hi = -lo;
      for (const Array3& p : position) lo = std::min(lo, p[k]), hi = std::max(hi, p[k]);
      origin_[k] = lo;
      cell_size_[k] = cell_size;
      dims_[k] = static_cast<std::int64_t>(std::floor((hi - lo) / cell_size)) + 1;
      continue;
    }
    const double length = periodic_.Length(k);
    dims_[k] = std::max<std::int64_t>(3, static_cast<std::int64_t>(std::floor(length / cell_size)));
    cell_size_[k] = length / static_cast<double>(dims_[k]);
  }
  SortIntoCells(position);
}

void NeighbourSearch::SortIntoCells(const std::vector<Array3>& position) {
  const std::size_t n = position.size();
  const std::size_t cells = static_cast<std::size_t>(dims_[0] * dims_[1] * dims_[2]);
  axes_ = AxesByCellCount(dims_);
  stride_[axes_[0]] = 1;
  stride_[axes_[1]] = dims_[axes_[0]];
  stride_[axes_[2]] = dims_[axes_[0]] * dims_[axes_[1]];

  // Counting sort of the particles by cell (serial: O(n), order-preserving).
  cell_of_.resize(n);
  cell_start_.assign(cells + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const Array3& p = position[i];
    cell_of_[i] =
        CellIndex(CellCoordinate(p[0], 0), CellCoordinate(p[1], 1), CellCoordinate(p[2], 2));
    ++cell_start_[static_cast<std::size_t>(cell_of_[i]) + 1];
  }
  for (std::size_t c = 0; c < cells; ++c) cell_start_[c + 1] += cell_start_[c];
  // Zeros past the last entry: the four-wide visit reads up to three more.
  cell_particles_.resize(n + kCellListPadding);
  std::fill(cell_particles_.end() - kCellListPadding, cell_particles_.end(), 0u);
  std::vector<std::uint32_t>& fill = cell_cursor_;
  fill.assign(cell_start_.begin(), cell_start_.end() - 1);
  for (std::size_t i = 0; i < n; ++i)
    cell_particles_[fill[static_cast<std::size_t>(cell_of_[i])]++] = static_cast<std::uint32_t>(i);
}

void NeighbourSearch::FindParticlePairs(const std::vector<Array3>& position,
                                        const std::vector<double>& radius, double tolerance,
                                        std::vector<std::uint32_t>& first,
                                        std::vector<std::uint32_t>& second) {
  const std::size_t n = position.size();
  first.clear();
  second.clear();
  grid_rows_ = kNoGrid;  // until a grid is built over these positions
  if (n == 0) return;
  const double r_max = *std::max_element(radius.begin(), radius.end());
  if (periodic_.active) {  // (one sphere too: the box is checked against its reach)
    FindPeriodicPairs(position, radius, tolerance, 2.0 * r_max + tolerance, first, second);
    return;
  }
  if (n < 2) return;
  BuildGrid(position, 2.0 * r_max + tolerance);

  // Visits the candidates j > i of particle i in the 27 cells around it. The
  // arrays are read through local pointers: the visit stores, and a store may
  // alias a vector's own pointer, which would be reloaded at every step.
  const Array3* const x = position.data();
  const double* const r = radius.data();
  const std::uint32_t* const cell_start = cell_start_.data();
  const std::uint32_t* const cell_particles = cell_particles_.data();
  const std::array<std::int64_t, 3> dims = dims_;
  auto visit = [=, this](std::size_t i, HitBuffer& hits) {
    const Array3 p = x[i];
    const double r_i = r[i];
    const std::int64_t cx = CellCoordinate(p[0], 0), cy = CellCoordinate(p[1], 1),
                       cz = CellCoordinate(p[2], 2);
    for (std::int64_t z = std::max<std::int64_t>(cz - 1, 0); z <= std::min(cz + 1, dims[2] - 1);
         ++z)
      for (std::int64_t y = std::max<std::int64_t>(cy - 1, 0); y <= std::min(cy + 1, dims[1] - 1);
           ++y)
        for (std::int64_t xc = std::max<std::int64_t>(cx - 1, 0);
             xc <= std::min(cx + 1, dims[0] - 1); ++xc) {
          const auto c = static_cast<std::size_t>(CellIndex(xc, y, z));
          // A cell lists its particles in increasing order: from the back,
          // only the j > i are visited (half the distance checks; with rows
          // sorted by cell, the cells before i's own are skipped at once).
          for (std::uint32_t s = cell_start[c + 1]; s > cell_start[c];) {
            const std::uint32_t j = cell_particles[--s];
            if (j <= i) break;
            const Array3 d = x[j] - p;
            const double reach = r_i + r[j] + tolerance;
            if (Dot(d, d) < reach * reach) hits.Push(j);
          }
        }
  };

#if defined(__x86_64__)
  static const bool four_wide = __builtin_cpu_supports("avx2");
  if (four_wide) {
    // The coordinates and radii in cell-list order (the padding's zeros
    // are masked off by the visit).
    const std::size_t entries = cell_particles_.size();
    cell_coordinates_.resize(4 * entries);
    double* const cell_x = cell_coordinates_.data();
    double *const cell_y = cell_x + entries, *const cell_z = cell_y + entries,
                  *const cell_r = cell_z + entries;
    for (std::size_t s = 0; s < entries; ++s) {
      const std::size_t j = s < n ? cell_particles[s] : 0;
      cell_x[s] = x[j][0];
      cell_y[s] = x[j][1];
      cell_z[s] = x[j][2];
      cell_r[s] = r[j];
    }
    // cell_cursor_ (past each cell's end after the fill) becomes cell_last.
    const std::size_t cells = cell_start_.size() - 1;
    std::uint32_t* const cell_last = cell_cursor_.data();
    for (std::size_t c = 0; c < cells; ++c)
      cell_last[c] = cell_start[c + 1] > cell_start[c] ? cell_particles[cell_start[c + 1] - 1] : 0;
    // The visit sees the grid's axes in the order of the cell numbering
    // (fastest first), so that its lines of cells are consecutive cells.
    const std::array<std::int64_t, 3> grid_dims{dims[axes_[0]], dims[axes_[1]], dims[axes_[2]]};
    const PairGrid grid{x,      r,      cell_start, cell_particles, cell_last, cell_x,
                        cell_y, cell_z, cell_r,     grid_dims,      tolerance};
    // The cell coordinates of each particle from its cell index (cell_of_,
    // by integer division), not again from its position (CellCoordinate
    // takes a floating-point division per axis).
    const std::int64_t* const cell_of = cell_of_.data();
    const auto row_cells = static_cast<std::uint64_t>(grid_dims[0]);
    const auto plane_cells = static_cast<std::uint64_t>(grid_dims[0] * grid_dims[1]);
    auto visit_four_wide = [&grid, cell_of, row_cells, plane_cells](std::size_t i,
                                                                    HitBuffer& hits) {
      // (Coordinates along the numbering's axes, fastest first.)
      const auto cell = static_cast<std::uint64_t>(cell_of[i]);
      const std::uint64_t z = cell / plane_cells, in_plane = cell - z * plane_cells;
      const std::uint64_t y = in_plane / row_cells, x = in_plane - y * row_cells;
      VisitPairsFourWide(grid, static_cast<std::uint32_t>(i), static_cast<std::int64_t>(x),
                         static_cast<std::int64_t>(y), static_cast<std::int64_t>(z), hits);
    };
    CollectInRowOrder(n, visit_four_wide, first, second, /*sort_each_row=*/true);
    return;
  }
#endif
  CollectInRowOrder(n, visit, first, second, /*sort_each_row=*/true);
}

void NeighbourSearch::FindPeriodicPairs(const std::vector<Array3>& position,
                                        const std::vector<double>& radius, double tolerance,
                                        double cell_size, std::vector<std::uint32_t>& first,
                                        std::vector<std::uint32_t>& second) {
  BuildPeriodicGrid(position, cell_size);
  // As above, with the neighbour cells taken around the box along the periodic
  // axes (at least three cells per side: all different) and the distance to
  // the nearest image; the arrays through local pointers, as there.
  const Array3* const centres = position.data();
  const double* const r = radius.data();
  const std::uint32_t* const cell_start = cell_start_.data();
  const std::uint32_t* const cell_particles = cell_particles_.data();
  auto visit = [=, this](std::size_t i, HitBuffer& hits) {
    const Array3 p = centres[i];
    const double r_i = r[i];
    // Per axis, the cell coordinates to visit.
    std::int64_t around[3][3];
    int count[3];
    for (int k = 0; k < 3; ++k) {
      const std::int64_t centre = CellCoordinate(p[k], k);
      count[k] = 0;
      for (std::int64_t offset = -1; offset <= 1; ++offset) {
        std::int64_t c = centre + offset;
        if (periodic_.axis[k])
          c = (c + dims_[k]) % dims_[k];
        else if (c < 0 || c >= dims_[k])
          continue;
        around[k][count[k]++] = c;
      }
    }
    for (int z = 0; z < count[2]; ++z)
      for (int y = 0; y < count[1]; ++y)
        for (int x = 0; x < count[0]; ++x) {
          const auto c =
              static_cast<std::size_t>(CellIndex(around[0][x], around[1][y], around[2][z]));
          for (std::uint32_t s = cell_start[c + 1]; s > cell_start[c];) {
            const std::uint32_t j = cell_particles[--s];
            if (j <= i) break;
            const Array3 d = periodic_.Nearest(centres[j] - p);
            const double reach = r_i + r[j] + tolerance;
            if (Dot(d, d) < reach * reach) hits.Push(j);
          }
        }
  };
  CollectInRowOrder(position.size(), visit, first, second, /*sort_each_row=*/true);
}

void NeighbourSearch::FindWallCandidates(const std::vector<Array3>& position,
                                         const std::vector<double>& radius, const FaceBoxes& faces,
                                         double tolerance, std::vector<std::uint32_t>& particle,
                                         std::vector<std::uint32_t>& face,
                                         bool positions_unchanged) {
  const std::size_t n = position.size();
  const std::size_t nf = faces.min.size();
  particle.clear();
  face.clear();
  if (n == 0 || nf == 0) return;
  const double r_max = *std::max_element(radius.begin(), radius.end());
  if (!(positions_unchanged && grid_rows_ == n)) BuildGrid(position, 2.0 * r_max + tolerance);
  const double margin = r_max + tolerance;
  const std::size_t cells = static_cast<std::size_t>(dims_[0] * dims_[1] * dims_[2]);
  Array3 grid_hi;
  for (int k = 0; k < 3; ++k)
    grid_hi[k] = origin_[k] + cell_size_[k] * static_cast<double>(dims_[k]);

  // Each face goes into every cell its enlarged box overlaps (faces in
  // increasing order, so that each cell lists them sorted).
  auto face_cells = [&](std::size_t f, auto&& on_cell) {
    std::int64_t lo[3], hi[3];
    for (int k = 0; k < 3; ++k) {
      const double a = faces.min[f][k] - margin, b = faces.max[f][k] + margin;
      if (b < origin_[k] || a > grid_hi[k]) return;  // nowhere near the particles
      lo[k] = CellCoordinate(a, k);
      hi[k] = CellCoordinate(b, k);
    }
    for (std::int64_t z = lo[2]; z <= hi[2]; ++z)
      for (std::int64_t y = lo[1]; y <= hi[1]; ++y)
        for (std::int64_t x = lo[0]; x <= hi[0]; ++x)
          on_cell(static_cast<std::size_t>(CellIndex(x, y, z)));
  };
  face_cell_start_.assign(cells + 1, 0);
  for (std::size_t f = 0; f < nf; ++f)
    face_cells(f, [&](std::size_t c) { ++face_cell_start_[c + 1]; });
  for (std::size_t c = 0; c < cells; ++c) face_cell_start_[c + 1] += face_cell_start_[c];
  face_cell_items_.resize(face_cell_start_[cells]);
  std::vector<std::uint32_t>& cursor = face_cursor_;
  cursor.assign(face_cell_start_.begin(), face_cell_start_.end() - 1);
  for (std::size_t f = 0; f < nf; ++f)
    face_cells(
        f, [&](std::size_t c) { face_cell_items_[cursor[c]++] = static_cast<std::uint32_t>(f); });

  // Local pointers, as in FindParticlePairs: the visit stores.
  const Array3* const x = position.data();
  const double* const r = radius.data();
  const Array3* const box_min = faces.min.data();
  const Array3* const box_max = faces.max.data();
  const auto* const cell_of = cell_of_.data();
  const std::uint32_t* const face_cell_start = face_cell_start_.data();
  const std::uint32_t* const face_cell_items = face_cell_items_.data();
  auto visit = [=](std::size_t i, HitBuffer& hits) {
    const auto c = static_cast<std::size_t>(cell_of[i]);
    const Array3 p = x[i];
    const double reach = r[i] + tolerance;
    for (std::uint32_t s = face_cell_start[c]; s < face_cell_start[c + 1]; ++s) {
      const std::uint32_t f = face_cell_items[s];
      if (SquaredDistanceToBox(p, box_min[f], box_max[f]) < reach * reach) hits.Push(f);
    }
  };
  CollectInRowOrder(n, visit, particle, face, /*sort_each_row=*/false);
}

}  // namespace tessera::dem
