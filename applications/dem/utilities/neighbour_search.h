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
// particle's sorted) in their own buffers, concatenated in chunk order.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "kernel/core/array3.h"

namespace tessera::dem {

// The faces as the wall search sees them: a box per face.
struct FaceBoxes {
  std::vector<Array3> min, max;
};

class NeighbourSearch {
 public:
  // Candidate particle pairs, appended to first/second after clearing them.
  void FindParticlePairs(const std::vector<Array3>& position, const std::vector<double>& radius,
                         double tolerance, std::vector<std::uint32_t>& first,
                         std::vector<std::uint32_t>& second);

  // Candidate particle-face pairs, sorted by particle then face.
  void FindWallCandidates(const std::vector<Array3>& position, const std::vector<double>& radius,
                          const FaceBoxes& faces, double tolerance,
                          std::vector<std::uint32_t>& particle, std::vector<std::uint32_t>& face);

  // Cells of the last grid, for tests and statistics.
  std::array<std::int64_t, 3> GridDimensions() const { return dims_; }
  double CellSize() const { return cell_size_; }
  // Bytes the grid's arrays hold (capacity), for the memory report.
  std::size_t HeldBytes() const;

 private:
  void BuildGrid(const std::vector<Array3>& position, double cell_size);
  std::int64_t CellCoordinate(double x, int axis) const;
  std::int64_t CellIndex(std::int64_t cx, std::int64_t cy, std::int64_t cz) const {
    return (cz * dims_[1] + cy) * dims_[0] + cx;
  }

  Array3 origin_{};
  double cell_size_ = 1.0;
  std::array<std::int64_t, 3> dims_{1, 1, 1};
  std::vector<std::uint32_t> cell_start_;  // CSR over cells: particles of each cell
  std::vector<std::uint32_t> cell_particles_;
  std::vector<std::int64_t> cell_of_;
  std::vector<std::uint32_t> cell_cursor_;      // per cell, while filling cell_particles_
  std::vector<std::uint32_t> face_cell_start_;  // CSR over cells: faces touching each cell
  std::vector<std::uint32_t> face_cell_items_;
  std::vector<std::uint32_t> face_cursor_;
};

}  // namespace tessera::dem
