// Neighbour search of the DEM strategy: a uniform cell grid over the particles
// (the basic cell-based search of DEMpack, thesis §2.2) giving
//   - candidate particle pairs i < j with |x_i - x_j| < r_i + r_j + tolerance,
//   - candidate (particle, wall face) pairs whose face box lies within
//     r_i + wall tolerance of the particle centre.
// The search runs every NeighbourSearchFrequency steps; the contact check on the
// candidates runs every step, so the tolerance is the margin that lets the list
// stay valid in between (a Verlet list).
//
// Results are sorted ((i, j) and (particle, face)) and do not depend on the
// number of threads: fixed chunks of particles collect their candidates (each
// particle's sorted) in their own buffers, concatenated in chunk order. With
// AVX2, the pair search (not periodic) checks four list entries at a time over
// one range of cells per row of the grid, with the scalar arithmetic: the same
// pairs. It reads the coordinates and radii from a copy in cell-list order.
// The cells are numbered in the order SpatialOrder sorts the rows (the axis of
// fewest cells fastest), so that with sorted rows whole lines of cells hold
// no candidate j > i and drop out of the visit.
//
// In a periodic domain (SetPeriodicBox) the particle grid spans the box, its
// cells wrap around, and distances are taken to the nearest periodic image;
// the particles must lie in the box. The wall search does not wrap: faces
// are seen where they are.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "applications/dem/utilities/periodic_box.h"
#include "kernel/core/array3.h"

namespace tessera::dem {

// The faces as the wall search sees them: a box per face.
struct FaceBoxes {
  std::vector<Array3> min, max;
};

class NeighbourSearch {
 public:
  // Particle pairs through the periodic boundaries of `box` (if active).
  void SetPeriodicBox(const PeriodicBox& box) { periodic_ = box; }

  // Candidate particle pairs, appended to first/second after clearing them.
  void FindParticlePairs(const std::vector<Array3>& position, const std::vector<double>& radius,
                         double tolerance, std::vector<std::uint32_t>& first,
                         std::vector<std::uint32_t>& second);

  // Candidate particle-face pairs, sorted by particle then face. Any grid over
  // the particles gives the same candidates: with `positions_unchanged` (the
  // caller's promise that `position` is what the last search of this object
  // saw, unmoved) the faces are binned on that search's grid, if it was a
  // grid over the particles, instead of on a new one.
  void FindWallCandidates(const std::vector<Array3>& position, const std::vector<double>& radius,
                          const FaceBoxes& faces, double tolerance,
                          std::vector<std::uint32_t>& particle, std::vector<std::uint32_t>& face,
                          bool positions_unchanged = false);

  // Cells of the last grid, for tests and statistics.
  std::array<std::int64_t, 3> GridDimensions() const { return dims_; }
  double CellSize() const { return cell_size_[0]; }
  // Bytes the grid's arrays hold (capacity), for the memory report.
  std::size_t HeldBytes() const;

 private:
  void BuildGrid(const std::vector<Array3>& position, double cell_size);
  // The grid over the periodic box: the most cells of at least `cell_size`
  // per side (three at least, or the nearest image would not be unique).
  void BuildPeriodicGrid(const std::vector<Array3>& position, double cell_size);
  // Counting sort of the particles into the cells of the current grid.
  void SortIntoCells(const std::vector<Array3>& position);
  void FindPeriodicPairs(const std::vector<Array3>& position, const std::vector<double>& radius,
                         double tolerance, double cell_size, std::vector<std::uint32_t>& first,
                         std::vector<std::uint32_t>& second);
  std::int64_t CellCoordinate(double x, int axis) const;
  // Cells are numbered row-major with the axis of fewest cells fastest and
  // that of most slowest (AxesByCellCount), as SpatialOrder sorts the rows, so
  // that a cell's particles and its neighbours' follow the row order.
  std::int64_t CellIndex(std::int64_t cx, std::int64_t cy, std::int64_t cz) const {
    return cx * stride_[0] + cy * stride_[1] + cz * stride_[2];
  }

  PeriodicBox periodic_;
  Array3 origin_{};
  Array3 cell_size_{1.0, 1.0, 1.0};  // per axis: equal except in a periodic box
  std::array<std::int64_t, 3> dims_{1, 1, 1};
  std::array<int, 3> axes_{0, 1, 2};                  // fastest to slowest
  std::array<std::int64_t, 3> stride_{1, 1, 1};       // of each axis in the cell numbering
  std::vector<std::uint32_t> cell_start_;             // CSR over cells: particles of each cell
  std::vector<std::uint32_t> cell_particles_;         // then kCellListPadding zeros
  static constexpr std::size_t kCellListPadding = 3;  // read by the four-wide visit
  std::vector<std::int64_t> cell_of_;
  // The four-wide pair visit's copy of the particles in cell-list order: x,
  // y, z and r, each n + kCellListPadding long, one after the other, so that
  // the entries of a range of cells are consecutive (vector loads, not
  // gathers through cell_particles_).
  std::vector<double> cell_coordinates_;
  // Rows of the positions the current grid was built over (BuildGrid), or
  // kNoGrid (none yet, or the periodic grid, whose cells wrap).
  static constexpr std::size_t kNoGrid = ~std::size_t{0};
  std::size_t grid_rows_ = kNoGrid;
  // Per cell: the next entry while SortIntoCells fills cell_particles_; then,
  // in FindParticlePairs' four-wide visit, the cell's last particle (0 if empty).
  std::vector<std::uint32_t> cell_cursor_;
  std::vector<std::uint32_t> face_cell_start_;  // CSR over cells: faces touching each cell
  std::vector<std::uint32_t> face_cell_items_;
  std::vector<std::uint32_t> face_cursor_;
};

}  // namespace tessera::dem
