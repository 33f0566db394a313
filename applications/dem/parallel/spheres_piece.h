// ReadSpheresPiece: the start of a distributed DEM run without the whole
// sphere file on any rank (docs/architecture.md, "Distributed DEM").
//
// The whole-deck start has every rank read every sphere, initialise the
// strategy on all of them and then keep its own and its ghosts
// (DistributedDem::Start): the deck must fit one process. Here each rank
// reads only what it keeps:
//   1. the file's connectivity (MdpaReader::ReadMeshGraph: ids only), so
//      that every rank knows every sphere's element, node and key (its
//      position in the file, which is its row in the serial run);
//   2. a slice of 1/P of the spheres (by position), whose centres and radii
//      give the largest radius (a reduction), hence the ghost layer, and the
//      first bisection (DistributedRecursiveCoordinateBisection: the boxes a
//      bisection of all centres gives, with no rank holding them all);
//   3. each slice's spheres sent, by id, to the ranks that keep them (their
//      owner and the ranks whose box lies within a layer), and then only
//      those read into the model part.
// The strategy then initialises on the piece: an owned sphere has all its
// partners within the layer, so its first search and forces are the serial
// run's; the ghosts' rows come from their owners afterwards
// (DistributedDem::StartFromPiece). A continuum run's piece reaches farther:
// its bonds are made on the piece at start, and a sphere's bond constants
// depend on all its bonds (the section weights, continuum_bonds.h), so every
// sphere the ranks keep has all its bond partners in the piece (PieceBonds).
// The cluster file goes the same way: its connectivity, then a slice of 1/P
// of its clusters, whose members (rows of the serial run after the file's
// spheres) count in the first bisection and whose member counts, scanned
// over the ranks, number every member as the serial run does; then each rank
// reads the clusters whose centre its box or layer holds and makes only
// their members, with the serial run's ids and keys. What the piece cannot decide
// alone, the particle materials' order (SetParticleMaterialOrder), the
// time-step estimate and the automatic bounding box, is reduced over the
// ranks.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "applications/dem/parallel/rcb_decomposition.h"
#include "applications/dem/utilities/periodic_box.h"
#include "kernel/core/types.h"
#include "kernel/io/mdpa_reader.h"

namespace tessera {
class Communicator;
class ModelPart;
}  // namespace tessera

namespace tessera::dem {

struct DemSettings;
class ExplicitSolverStrategy;

// The bonds a continuum run makes at start (continuum_bonds.h), as far as
// the piece's reach needs them.
struct PieceBonds {
  bool made = false;            // the continuum strategy: bonds are made at start
  double largest_range = -1.0;  // the largest BOND_RANGE_BETA (< 0: none given)
  bool kratos_broken = false;   // BrokenBonds "kratos" (DistributedDem::Start widens the layer)

  // The longest bond CreateBonds can make between spheres of radius <= R:
  // a gap of twice the search tolerance, or β (R_i + R_j) about touch.
  double LongestBond(double largest_radius, double search_tolerance) const;
};

// What the run's start needs of the pieces.
struct PieceStart {
  double search_tolerance = 0.0;  // absolute (0 where the deck's is relative)
  // A periodic domain: the centres wrapped into it, a sphere kept by the
  // ranks whose box lies within a layer of one of its images.
  PeriodicBox periodic;
  // With AutomaticBoundingBoxOption (automatic_factor > 0) the periodic
  // domain is the box of every sphere's centre and of the points in
  // [automatic_low, automatic_high] (the walls' nodes), scaled by the factor
  // about its centre, as the stage computes it (its axes: `periodic.axis`).
  double automatic_factor = 0.0;
  Array3 automatic_low{}, automatic_high{};
  // The largest radius of spheres to come (the inlets'), which the ghost
  // layer must reach as DistributedDem::Start's does.
  double least_largest_radius = 0.0;
  PieceBonds bonds;  // those the strategy makes at start
  // The strategy deletes the spheres inside others at start
  // (RemoveBallsInEmbeddedOption), each by its own pairs: the piece reaches
  // 2 R_max farther, so that a sphere it keeps (or bonds) is deleted or not
  // as in the serial run.
  bool removes_embedded = false;
  // With clusters: called once the sphere file's connectivity is read, with
  // its largest node, element and condition ids (renumbered); reads the
  // files between it and the cluster file (the walls', whole) and returns
  // the offsets the cluster file's ids are renumbered from (node, element,
  // condition) and the largest node id and element-or-condition id read so
  // far (the clusters' members are numbered after every id read, as the
  // serial run numbers them).
  std::function<std::array<IdType, 5>(IdType, IdType, IdType)> read_next_files;
  // The cluster file, read in pieces into `clusters` (the Cluster3D root,
  // empty; null: no clusters): its slice's clusters count in the first
  // bisection as the rows their members become, then the piece keeps the
  // clusters whose centre its rank keeps. After each read
  // `assign_cluster_materials` gives them their materials (the .clu files
  // the members come from).
  std::string clusters_path;
  ModelPart* clusters = nullptr;
  std::function<void()> assign_cluster_materials;
};

struct SpheresPiece {
  std::vector<RcbBox> boxes;  // the first bisection of every sphere's centre
  double largest_radius = 0.0;
  // How far beyond its box the piece reaches: the ghost layer, 1.05 (2 R_max
  // + search tolerance + 2 D), D the clusters' reach; with bonds (PieceBonds) the widest layer
  // DistributedDem::Start can take plus the longest bond; plus 2 R_max where
  // embedded spheres are deleted at start.
  double layer = 0.0;
  std::int64_t total_spheres = 0;
  // The kept elements' ids, ascending, and their keys (positions in the file).
  std::vector<IdType> element_ids;
  std::vector<std::int64_t> element_keys;
  PeriodicBox periodic;  // the domain the centres were wrapped into (if active)
  // The whole file's largest ids (the next file's numbering starts after them).
  IdType max_node_id = 0, max_element_id = 0, max_condition_id = 0;
  // Clusters (PieceStart::clusters): their members in all (the serial run's
  // rows after the file's spheres, keys from total_spheres on, element ids
  // from first_member_element on), how far a member lies from its cluster's
  // centre at most, and per cluster kept (the cluster model part's order)
  // its members' first node and element ids.
  std::int64_t cluster_members = 0;
  IdType first_member_node = 0, first_member_element = 0;
  double cluster_reach = 0.0;
  std::vector<IdType> cluster_first_node_ids, cluster_first_element_ids;
  // The cluster file's largest ids (renumbered), and how many of its
  // clusters this rank read to count and bisect (its slice).
  IdType clusters_max_node_id = 0, clusters_max_element_id = 0, clusters_max_condition_id = 0;
  std::size_t clusters_in_slice = 0;
  // Each cluster material's first key (of its first cluster's first member).
  std::vector<std::pair<IdType, std::int64_t>> cluster_material_keys;

  // The key of a kept element, a cluster's member included (an error naming
  // it where it is not kept).
  std::int64_t KeyOf(IdType element_id) const;
};

// Collective. Reads into `model_part` (an empty root with the run's nodal
// variables) this rank's piece of the sphere file at `path` ("": none, a
// deck of clusters only): the spheres whose centre lies in its box or
// within `layer` of it. `options` as for MdpaReader (their `piece` is set
// here). An error names the file where an element has other than one node
// or the file has conditions.
SpheresPiece ReadSpheresPiece(const std::string& path, ModelPart& model_part,
                              MdpaReadOptions options, const Communicator& communicator,
                              const PieceStart& start);

// Collective, for CleanIndentationsOption: each overlapping pair shrinks with
// the radii the pairs before it left, a chain along the serial run's pair
// list that no piece's reach bounds, so rank 0 repeats the serial start over
// every row's centre and radius, gathered here from the pieces (each from
// the rank whose box of the first bisection holds it, a cluster's members
// from its centre's, made from `clusters`, the piece's clusters; 64 B a
// row, on rank 0 only). At the strategy's Initialize (SetInitialShrinks'
// provider, also collective) it takes the spheres each piece deleted as touching a wall
// (RemoveBallsInitiallyTouchingWalls: a sphere's own test against the
// walls, which every rank holds whole) and works out the bounding box's
// deletions, the rows sorted in space where the serial run sorts them
// (`sort_rows_frequency`, the deck's), the candidate pairs, the embedded
// spheres' deletion, the walls' deletions, then the shrinks, which every
// rank receives. `settings`: the strategy's (bounding box, periodic domain,
// search tolerance, RemoveBallsInEmbeddedOption); `spheres`: the piece as
// read. The communicator must outlive the strategy's Initialize.
void ShareInitialShrinks(ExplicitSolverStrategy& strategy, ModelPart& spheres, ModelPart* clusters,
                         const SpheresPiece& piece, const DemSettings& settings,
                         int sort_rows_frequency, const Communicator& communicator);

// For BondAreaCorrection "global" (α = 40 P / N_c of the whole specimen):
// sets the strategy's counts of bonds and bonded spheres to the sums over the
// ranks of those of the spheres each owns in the first bisection (a kept
// sphere's bonds are all in its piece). The communicator must outlive the
// strategy's Initialize.
void CountBondsOverPieces(ExplicitSolverStrategy& strategy, const SpheresPiece& piece,
                          const Communicator& communicator);

// Collective: the ids of the particle Properties of every rank's piece in
// the serial run's order (of first use by the spheres in key order), so
// that every rank numbers the materials as the serial run does.
std::vector<IdType> ParticleMaterialOrder(ModelPart& spheres, const SpheresPiece& piece,
                                          const Communicator& communicator);

}  // namespace tessera::dem
