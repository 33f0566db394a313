// A distributed DEM run's start from each rank's piece of the sphere file
// (spheres_piece.h).
#include "applications/dem/parallel/spheres_piece.h"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "applications/dem/elements/spheric_particle.h"
#include "applications/dem/parallel/distributed_rcb.h"
#include "applications/dem/parallel/periodic_layer.h"
#include "applications/dem/particles/initial_overlaps.h"
#include "applications/dem/particles/rigid_clusters.h"
#include "applications/dem/particles/row_removal.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "applications/dem/utilities/neighbour_search.h"
#include "applications/dem/utilities/spatial_order.h"
#include "kernel/core/error.h"
#include "kernel/core/flags.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/model/model.h"
#include "kernel/model/model_part.h"
#include "kernel/parallel/communicator.h"
#include "kernel/parallel/mesh_graph.h"

namespace tessera::dem {

std::int64_t SpheresPiece::KeyOf(IdType element_id) const {
  if (cluster_members > 0 && element_id >= first_member_element &&
      element_id - first_member_element < cluster_members)
    return total_spheres + (element_id - first_member_element);
  const auto at = std::lower_bound(element_ids.begin(), element_ids.end(), element_id);
  if (at == element_ids.end() || *at != element_id)
    TESSERA_ERROR("the distributed start: element ", element_id,
                  " is not in this rank's piece of the sphere file");
  return element_keys[static_cast<std::size_t>(at - element_ids.begin())];
}

double PieceBonds::LongestBond(double largest_radius, double search_tolerance) const {
  const double touch = 2.0 * largest_radius;
  return std::max(touch + 2.0 * search_tolerance,
                  largest_range >= 0.0 ? touch * (1.0 + largest_range) : 0.0);
}

namespace {

// The largest node and element ids of a file whose connectivity `graph`
// is: of spheres or of clusters (`what`), one node each (the centre) and no
// condition, else an error naming the file.
std::array<IdType, 2> LargestIdsOfCentres(const std::string& path, const MeshGraph& graph,
                                          const char* what) {
  for (std::size_t e = 0; e < graph.NumberOfElements(); ++e)
    if (graph.element_offsets[e + 1] - graph.element_offsets[e] != 1)
      TESSERA_ERROR(path, ": element ", graph.element_ids[e], " has ",
                    graph.element_offsets[e + 1] - graph.element_offsets[e],
                    " nodes; the distributed start reads ", what, " (one node each)");
  if (graph.NumberOfConditions() > 0)
    TESSERA_ERROR(path, ": ", graph.NumberOfConditions(),
                  " conditions; the distributed start reads ", what, " only");
  std::array<IdType, 2> largest{0, 0};
  for (IdType id : graph.node_ids) largest[0] = std::max(largest[0], id);
  for (IdType id : graph.element_ids) largest[1] = std::max(largest[1], id);
  return largest;
}

// Reads the clusters `read` names (sorted here) into the clusters' root and
// gives them their materials.
void ReadClusters(const PieceStart& start, MdpaReadOptions options, MdpaPiece& read) {
  std::sort(read.elements.begin(), read.elements.end());
  std::sort(read.nodes.begin(), read.nodes.end());
  read.nodes.erase(std::unique(read.nodes.begin(), read.nodes.end()), read.nodes.end());
  options.piece = &read;
  MdpaReader(options).ReadFile(start.clusters_path, *start.clusters);
  start.assign_cluster_materials();
}

// This rank's slice of the cluster file (1/P of its clusters, by position):
// per cluster, in file order, its element and node ids, its centre and the
// number of its first member among all the file's members; the members'
// centres and radii (for the first bisection), in the same order.
struct ClusterSlice {
  std::vector<IdType> element_ids, node_ids;
  std::vector<Array3> centres;
  std::vector<std::int64_t> first_member;
  std::vector<Array3> member_centres;
  std::vector<double> member_radii;
};

// Reads the slice into the clusters' root, then empties it again. Sets the
// piece's member count, each cluster material's first key (the least over
// the slices) and the members' reach (the largest over the slices).
ClusterSlice ReadClusterSlice(const PieceStart& start, const MdpaReadOptions& options,
                              const MeshGraph& graph, const Communicator& communicator,
                              std::int64_t spheres, SpheresPiece& piece) {
  const int rank = communicator.Rank(), ranks = communicator.Size();
  const std::size_t count = graph.NumberOfElements();
  const std::size_t first = count * static_cast<std::size_t>(rank) / ranks;
  const std::size_t last = count * static_cast<std::size_t>(rank + 1) / ranks;
  const std::size_t m = last - first;
  ClusterSlice slice;
  std::unordered_map<IdType, std::size_t> position;
  for (std::size_t e = first; e < last; ++e) {
    slice.element_ids.push_back(graph.element_ids[e]);
    slice.node_ids.push_back(
        graph.element_nodes[static_cast<std::size_t>(graph.element_offsets[e])]);
    position.emplace(graph.element_ids[e], e - first);
  }
  MdpaPiece read{slice.node_ids, slice.element_ids, {}};
  ReadClusters(start, options, read);
  piece.clusters_in_slice = m;
  ModelPart& clusters = *start.clusters;

  std::vector<ClusterMemberSpheres> members(m);
  std::vector<IdType> material(m);
  slice.centres.resize(m);
  std::map<std::string, ClusterGeometry> files;  // each .clu read once
  double reach = 0.0;
  for (const Element& element : clusters.Elements()) {
    const auto at = position.find(element.Id());
    if (at == position.end())
      TESSERA_ERROR(start.clusters_path, ": cluster ", element.Id(),
                    " read outside this rank's slice of the file");
    const std::size_t k = at->second;
    members[k] = MembersOfCluster(element, clusters, files);
    material[k] = element.GetProperties().Id();
    slice.centres[k] = clusters.Nodal().Coordinates(element.GetGeometry().NodeIndex(0));
    reach = std::max(reach, members[k].reach);
  }
  // The members' numbers: the slices' counts scanned in rank order.
  std::int64_t in_slice = 0;
  slice.first_member.resize(m);
  for (std::size_t k = 0; k < m; ++k) {
    slice.first_member[k] = in_slice;
    in_slice += static_cast<std::int64_t>(members[k].centres.size());
  }
  const std::vector<std::int64_t> totals = communicator.AllGather(in_slice);
  std::int64_t before = 0;
  for (int r = 0; r < ranks; ++r) {
    if (r < rank) before += totals[static_cast<std::size_t>(r)];
    piece.cluster_members += totals[static_cast<std::size_t>(r)];
  }
  for (std::int64_t& number : slice.first_member) number += before;
  // Each material's first key: of the first cluster using it (the least).
  const auto flat = [](const std::map<IdType, std::int64_t>& keys) {
    std::vector<std::int64_t> pairs;
    for (const auto& [id, key] : keys)
      pairs.insert(pairs.end(), {static_cast<std::int64_t>(id), key});
    return pairs;
  };
  std::map<IdType, std::int64_t> least;
  for (std::size_t k = 0; k < m; ++k) least.emplace(material[k], spheres + slice.first_member[k]);
  const std::vector<std::vector<std::int64_t>> parts = communicator.Gather(flat(least), 0);
  least.clear();
  for (const std::vector<std::int64_t>& part : parts)  // (rank 0's only)
    for (std::size_t k = 0; k + 1 < part.size(); k += 2) {
      const auto [at, added] = least.emplace(static_cast<IdType>(part[k]), part[k + 1]);
      if (!added) at->second = std::min(at->second, part[k + 1]);
    }
  std::vector<std::int64_t> pairs = flat(least);
  communicator.Broadcast(pairs, 0);
  for (std::size_t k = 0; k + 1 < pairs.size(); k += 2)
    piece.cluster_material_keys.emplace_back(static_cast<IdType>(pairs[k]), pairs[k + 1]);
  piece.cluster_reach = communicator.MaxAll(reach);
  for (std::size_t k = 0; k < m; ++k) {
    slice.member_centres.insert(slice.member_centres.end(), members[k].centres.begin(),
                                members[k].centres.end());
    slice.member_radii.insert(slice.member_radii.end(), members[k].radii.begin(),
                              members[k].radii.end());
  }
  // The slice is done with; the clusters this rank keeps are read after the
  // bisection (ReadKeptClusters).
  for (Element& element : clusters.Elements()) {
    element.Set(TO_ERASE, true);
    Node(&clusters.Nodal(), element.GetGeometry().NodeIndex(0)).Set(TO_ERASE, true);
  }
  clusters.RemoveElementsFlagged(TO_ERASE);
  clusters.RemoveNodesFlagged(TO_ERASE);
  return slice;
}

// Each slice cluster to the ranks that keep it (its centre's owner in the
// first bisection and the ranks whose layer holds the centre, as
// DistributedDem::Start keeps a member by its cluster's centre); then this
// rank's clusters read and numbered as the serial run numbers them.
void ReadKeptClusters(const PieceStart& start, const MdpaReadOptions& options,
                      const ClusterSlice& slice, const Communicator& communicator,
                      SpheresPiece& piece) {
  const int rank = communicator.Rank(), ranks = communicator.Size();
  const PeriodicBox& periodic = piece.periodic;
  std::vector<int> others;
  for (int r = 0; r < ranks; ++r)
    if (r != rank) others.push_back(r);
  std::vector<std::vector<double>> send(others.size());
  std::vector<double> mine;
  for (std::size_t k = 0; k < slice.element_ids.size(); ++k) {
    const Array3 x = periodic.active ? periodic.Wrap(slice.centres[k]) : slice.centres[k];
    const int owner = RcbOwner(piece.boxes, x);
    const double triple[3] = {static_cast<double>(slice.element_ids[k]),
                              static_cast<double>(slice.node_ids[k]),
                              static_cast<double>(slice.first_member[k])};
    for (int r = 0; r < ranks; ++r) {
      if (r != owner && !WithinPeriodicLayer(piece.boxes[r], x, piece.layer, periodic)) continue;
      std::vector<double>& to = r == rank ? mine : send[r < rank ? r : r - 1];
      to.insert(to.end(), triple, triple + 3);
    }
  }
  std::vector<std::vector<double>> received = communicator.Exchange(others, send);
  received.push_back(std::move(mine));
  std::map<IdType, std::int64_t> first_member;  // by element id
  MdpaPiece read;
  for (const std::vector<double>& part : received)
    for (std::size_t k = 0; k + 2 < part.size(); k += 3) {
      first_member.emplace(static_cast<IdType>(part[k]), static_cast<std::int64_t>(part[k + 2]));
      read.nodes.push_back(static_cast<IdType>(part[k + 1]));
    }
  for (const auto& entry : first_member) read.elements.push_back(entry.first);
  ReadClusters(start, options, read);
  for (const Element& element : start.clusters->Elements()) {
    const std::int64_t number = first_member.at(element.Id());
    piece.cluster_first_node_ids.push_back(piece.first_member_node + static_cast<IdType>(number));
    piece.cluster_first_element_ids.push_back(piece.first_member_element +
                                              static_cast<IdType>(number));
  }
}

}  // namespace

SpheresPiece ReadSpheresPiece(const std::string& path, ModelPart& model_part,
                              MdpaReadOptions options, const Communicator& communicator,
                              const PieceStart& start) {
  const PieceBonds& bonds = start.bonds;
  const double search_tolerance = start.search_tolerance;
  const int rank = communicator.Rank(), ranks = communicator.Size();
  options.piece = nullptr;
  MeshGraph graph;
  // (No sphere file, path ""; a deck of clusters only: no sphere to read.)
  if (!path.empty()) MdpaReader(options).ReadMeshGraph(path, graph);
  const std::size_t n = graph.NumberOfElements();
  SpheresPiece piece;
  piece.total_spheres = static_cast<std::int64_t>(n);
  const std::array<IdType, 2> sphere_ids = LargestIdsOfCentres(path, graph, "spheres");
  piece.max_node_id = sphere_ids[0], piece.max_element_id = sphere_ids[1];
  // The cluster file's connectivity, numbered after the files before it.
  const bool with_clusters = start.clusters != nullptr && !start.clusters_path.empty();
  MdpaReadOptions cluster_options;
  MeshGraph cluster_graph;
  if (with_clusters) {
    if (!start.read_next_files || !start.assign_cluster_materials)
      TESSERA_ERROR("ReadSpheresPiece: clusters need read_next_files and assign_cluster_materials");
    const std::array<IdType, 5> next =
        start.read_next_files(piece.max_node_id, piece.max_element_id, piece.max_condition_id);
    cluster_options.renumber = true;
    cluster_options.node_id_offset = next[0];
    cluster_options.element_id_offset = next[1];
    cluster_options.condition_id_offset = next[2];
    MdpaReader(cluster_options).ReadMeshGraph(start.clusters_path, cluster_graph);
    const std::array<IdType, 2> cluster_ids =
        LargestIdsOfCentres(start.clusters_path, cluster_graph, "clusters");
    piece.clusters_max_node_id = cluster_ids[0], piece.clusters_max_element_id = cluster_ids[1];
    piece.first_member_node = std::max(next[3], piece.clusters_max_node_id) + 1;
    piece.first_member_element =
        std::max({next[4], piece.clusters_max_element_id, piece.clusters_max_condition_id}) + 1;
  }

  // This rank's slice: spheres [first, last) by position in the file.
  const std::size_t first = n * static_cast<std::size_t>(rank) / ranks;
  const std::size_t last = n * static_cast<std::size_t>(rank + 1) / ranks;
  MdpaPiece slice;
  for (std::size_t e = first; e < last; ++e) {
    slice.elements.push_back(graph.element_ids[e]);
    slice.nodes.push_back(graph.element_nodes[e]);
  }
  std::sort(slice.elements.begin(), slice.elements.end());
  std::sort(slice.nodes.begin(), slice.nodes.end());
  slice.nodes.erase(std::unique(slice.nodes.begin(), slice.nodes.end()), slice.nodes.end());
  // Centres and radii of the slice, from a model part of its own.
  std::vector<Array3> centres(last - first);
  double largest = 0.0;
  if (!path.empty()) {
    Model scratch;
    ModelPart& part = scratch.CreateModelPart("SpheresSlice");
    part.AddNodalSolutionStepVariable(RADIUS);
    MdpaReadOptions slice_options = options;
    slice_options.piece = &slice;
    MdpaReader(slice_options).ReadFile(path, part);
    // The piece keeps the file's order: its k-th element is sphere first + k.
    const NodalDatabase& db = part.Nodal();
    std::size_t k = 0;
    for (Element& element : part.Elements()) {
      if (first + k >= last || element.Id() != graph.element_ids[first + k])
        TESSERA_ERROR(path, ": element ", element.Id(), " read at position ", first + k,
                      " of the sphere file, outside its slice [", first, ", ", last,
                      ") or not the element its graph has there");
      centres[k++] = db.Coordinates(element.GetGeometry().NodeIndex(0));
      if (const auto* sphere = dynamic_cast<const SphericParticle*>(&element))
        largest = std::max(largest, sphere->Radius());
    }
  }
  // The clusters' members, rows of the serial run after the file's spheres
  // in the clusters' order: this rank's slice of the clusters read, their
  // members counted in the bisection and the largest radius.
  ClusterSlice cluster_slice;
  if (with_clusters) {
    cluster_slice = ReadClusterSlice(start, cluster_options, cluster_graph, communicator,
                                     static_cast<std::int64_t>(n), piece);
    cluster_graph = MeshGraph{};
    for (const double radius : cluster_slice.member_radii) largest = std::max(largest, radius);
  }
  std::vector<Array3>& member_centres = cluster_slice.member_centres;
  // The periodic domain, then the centres wrapped into it as the strategy
  // wraps them.
  PeriodicBox& periodic = piece.periodic;
  periodic = start.periodic;
  if (periodic.active && start.automatic_factor > 0.0) {
    // The stage's automatic box (DEMSolver._AutomaticBoundingBox): of every
    // node, scaled about its centre; the same arithmetic, the same bits.
    Array3 low = start.automatic_low, high = start.automatic_high;
    for (const Array3& x : centres)
      for (int k = 0; k < 3; ++k)
        low[k] = std::min(low[k], x[k]), high[k] = std::max(high[k], x[k]);
    for (int k = 0; k < 3; ++k) {
      low[k] = communicator.MinAll(low[k]), high[k] = communicator.MaxAll(high[k]);
      const double centre = 0.5 * (low[k] + high[k]);
      const double half = 0.5 * start.automatic_factor * (high[k] - low[k]);
      periodic.low[k] = centre - half, periodic.high[k] = centre + half;
    }
  }
  if (periodic.active) {
    // (A cluster's members one by one, as the strategy wraps them.)
    for (Array3& x : centres) x = periodic.Wrap(x);
    for (Array3& x : member_centres) x = periodic.Wrap(x);
  }
  piece.largest_radius = std::max(communicator.MaxAll(largest), start.least_largest_radius);
  // The layer DistributedDem::Start keeps: a member lies up to D from the
  // centre that places it (2 D more).
  const double r = piece.largest_radius, t = search_tolerance;
  piece.layer = 1.05 * (2.0 * r + t + 2.0 * piece.cluster_reach);
  if (bonds.made) {
    // Start's layer holds the longest bond (with "kratos" broken bonds, more:
    // distributed_bonds.cpp); and a sphere within it has its bond partners
    // within the longest bond, whose rows its bonds' constants need.
    const double longest = bonds.LongestBond(r, t);
    double layer = std::max(piece.layer, 1.05 * longest);
    if (bonds.kratos_broken)
      layer = std::max({layer, 1.05 * (2.0 * r + 3.0 * t), 1.05 * (longest + t)});
    piece.layer = layer + longest;
  }
  // A sphere inside another lies within the larger one's radius of it.
  if (start.removes_embedded) piece.layer += 2.0 * r;
  if (member_centres.empty()) {
    piece.boxes = DistributedRecursiveCoordinateBisection(centres, ranks, {}, communicator);
  } else {
    std::vector<Array3> points = centres;
    points.insert(points.end(), member_centres.begin(), member_centres.end());
    member_centres = std::vector<Array3>{};
    piece.boxes = DistributedRecursiveCoordinateBisection(points, ranks, {}, communicator);
  }
  if (with_clusters) ReadKeptClusters(start, cluster_options, cluster_slice, communicator, piece);
  cluster_slice = ClusterSlice{};

  // Each slice sphere to its owner and to the ranks whose layer holds it:
  // (element id, node id, key) triples.
  std::vector<int> others;
  for (int r = 0; r < ranks; ++r)
    if (r != rank) others.push_back(r);
  std::vector<std::vector<double>> send(others.size());
  std::vector<double> mine;
  for (std::size_t e = first; e < last; ++e) {
    const Array3& x = centres[e - first];
    const int owner = RcbOwner(piece.boxes, x);
    const double triple[3] = {static_cast<double>(graph.element_ids[e]),
                              static_cast<double>(graph.element_nodes[e]), static_cast<double>(e)};
    for (int r = 0; r < ranks; ++r) {
      if (r != owner && !WithinPeriodicLayer(piece.boxes[r], x, piece.layer, periodic)) continue;
      std::vector<double>& to = r == rank ? mine : send[r < rank ? r : r - 1];
      to.insert(to.end(), triple, triple + 3);
    }
  }
  // The whole file's graph and the slice are done with: freed before the
  // piece is read, so that the start's peak holds one or the other.
  graph = MeshGraph{};
  slice = MdpaPiece{};
  centres = std::vector<Array3>{};
  std::vector<std::vector<double>> received = communicator.Exchange(others, send);
  send = {};
  received.push_back(std::move(mine));
  std::vector<std::array<double, 3>> kept;
  for (const std::vector<double>& part : received)
    for (std::size_t k = 0; k + 2 < part.size(); k += 3)
      kept.push_back({part[k], part[k + 1], part[k + 2]});
  std::sort(kept.begin(), kept.end());
  MdpaPiece read;
  for (const auto& [element, node, key] : kept) {
    piece.element_ids.push_back(static_cast<IdType>(element));
    piece.element_keys.push_back(static_cast<std::int64_t>(key));
    read.nodes.push_back(static_cast<IdType>(node));
  }
  read.elements = piece.element_ids;
  std::sort(read.nodes.begin(), read.nodes.end());
  read.nodes.erase(std::unique(read.nodes.begin(), read.nodes.end()), read.nodes.end());
  received = {};
  kept = {};
  options.piece = &read;
  if (!path.empty()) MdpaReader(options).ReadFile(path, model_part);
  return piece;
}

namespace {

// Rank 0's copy of every row of the serial run (the file's spheres, then the
// clusters' members), by key, for the serial start's shrinks
// (ShareInitialShrinks): per member its cluster (`group`, nonzero) and
// whether the bounding box deletes that cluster (by its centre).
struct EverySphere {
  std::vector<Array3> position;
  std::vector<double> radius;
  std::vector<IdType> element;
  std::vector<std::uint32_t> group;
  std::vector<std::uint8_t> cluster_outside;

  void Resize(std::size_t n) {
    position.resize(n), radius.resize(n), element.resize(n), group.resize(n);
    cluster_outside.resize(n);
  }
  // Keeps the rows with keep[i] != 0, in order.
  void Keep(const std::vector<std::uint8_t>& keep) {
    std::size_t to = 0;
    for (std::size_t i = 0; i < keep.size(); ++i)
      if (keep[i]) {
        position[to] = position[i], radius[to] = radius[i], element[to] = element[i];
        group[to] = group[i], cluster_outside[to] = cluster_outside[i];
        ++to;
      }
    Resize(to);
  }
  // The rows in `order` (row order[k] at k).
  void Reorder(const std::vector<std::uint32_t>& order) {
    EverySphere sorted;
    for (const std::uint32_t k : order) {
      sorted.position.push_back(position[k]), sorted.radius.push_back(radius[k]);
      sorted.element.push_back(element[k]), sorted.group.push_back(group[k]);
      sorted.cluster_outside.push_back(cluster_outside[k]);
    }
    *this = std::move(sorted);
  }
};

// Whether the bounding box deletes at `time` what lies at x (a sphere by its
// centre, a cluster by its own; ExplicitSolverStrategy::RemoveOutsideBoundingBox).
bool DeletedByTheBox(const DemSettings& settings, double time, const Array3& x) {
  return BoundingBoxDeletesAt(settings, time) &&
         OutsideBox(x, settings.bounding_box_min, settings.bounding_box_max);
}

// The serial start up to its shrinks (ExplicitSolverStrategy::Initialize),
// in its order, over every row; `deleted_touching_walls` as the pieces
// deleted them. The shrinks as (element id, factor) pairs.
std::vector<double> SerialShrinks(EverySphere all,
                                  const std::vector<IdType>& deleted_touching_walls,
                                  const DemSettings& settings, int sort_rows_frequency,
                                  double time) {
  const PeriodicBox periodic = settings.periodic ? PeriodicDomainOf(settings) : PeriodicBox{};
  if (periodic.active)
    for (Array3& x : all.position) x = periodic.Wrap(x);
  {
    std::vector<std::uint8_t> keep(all.position.size(), 1);
    for (std::size_t i = 0; i < keep.size(); ++i)
      keep[i] = all.group[i] != 0 ? !all.cluster_outside[i]
                                  : !DeletedByTheBox(settings, time, all.position[i]);
    all.Keep(keep);
  }
  if (sort_rows_frequency > 0 && all.position.size() >= settings.tuning.sort_rows_minimum) {
    const double largest = *std::max_element(all.radius.begin(), all.radius.end());
    const double cell = 2.0 * largest + settings.search_tolerance;
    if (cell > 0.0) all.Reorder(SpatialOrder(all.position, cell, all.group));
  }
  NeighbourSearch search;
  if (periodic.active) search.SetPeriodicBox(periodic);
  std::vector<std::uint32_t> first, second;
  search.FindParticlePairs(all.position, all.radius, settings.search_tolerance, first, second);
  if (settings.remove_embedded) {
    bool any = false;
    const std::vector<std::uint8_t> keep =
        EmbeddedSpheres(first, second, all.position, all.radius, all.group, periodic, any);
    if (any) {
      all.Keep(keep);
      search.FindParticlePairs(all.position, all.radius, settings.search_tolerance, first, second);
    }
  }
  if (!deleted_touching_walls.empty()) {
    // (Each such sphere deleted by every piece holding it: listed once or more.)
    const std::unordered_set<IdType> deleted(deleted_touching_walls.begin(),
                                             deleted_touching_walls.end());
    std::vector<std::uint8_t> keep(all.position.size(), 1);
    for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = deleted.count(all.element[i]) == 0;
    all.Keep(keep);
    search.FindParticlePairs(all.position, all.radius, settings.search_tolerance, first, second);
  }
  const std::vector<Shrink> shrinks =
      ShrinkOverlappingPairs(first, second, all.position, all.group, periodic, all.radius);
  std::vector<double> out;
  for (const Shrink& s : shrinks)
    out.insert(out.end(), {static_cast<double>(all.element[s.sphere]), s.factor});
  return out;
}

}  // namespace

void ShareInitialShrinks(ExplicitSolverStrategy& strategy, ModelPart& spheres, ModelPart* clusters,
                         const SpheresPiece& piece, const DemSettings& settings,
                         int sort_rows_frequency, const Communicator& communicator) {
  const PeriodicBox periodic = settings.periodic ? PeriodicDomainOf(settings) : PeriodicBox{};
  const double time = spheres.GetProcessInfo().GetValue(TIME);
  const auto owned = [&](const Array3& x) {
    return RcbOwner(piece.boxes, periodic.active ? periodic.Wrap(x) : x) == communicator.Rank();
  };
  // Each row once, from the rank whose box holds its (wrapped) centre, a
  // member from its cluster's: key, element id, raw centre, radius, group,
  // its cluster deleted by the bounding box.
  std::vector<double> mine;
  const NodalDatabase& db = spheres.Nodal();
  for (Element& element : spheres.Elements()) {
    const auto* sphere = dynamic_cast<const SphericParticle*>(&element);
    if (sphere == nullptr) continue;  // (FillParticles names it)
    const Array3 x = db.Coordinates(element.GetGeometry().NodeIndex(0));
    if (!owned(x)) continue;
    mine.insert(mine.end(),
                {static_cast<double>(piece.KeyOf(element.Id())), static_cast<double>(element.Id()),
                 x[0], x[1], x[2], sphere->Radius(), 0.0, 0.0});
  }
  if (clusters != nullptr && piece.cluster_members > 0) {
    // The piece's clusters, in the order of their first member ids.
    std::map<std::string, ClusterGeometry> files;
    std::size_t k = 0;
    for (const Element& element : clusters->Elements()) {
      const IdType first_element = piece.cluster_first_element_ids[k++];
      const Array3 centre = clusters->Nodal().Coordinates(element.GetGeometry().NodeIndex(0));
      if (!owned(centre)) continue;
      const ClusterMemberSpheres members = MembersOfCluster(element, *clusters, files);
      const IdType offset = first_element - piece.first_member_element;
      const double outside = DeletedByTheBox(settings, time, centre) ? 1.0 : 0.0;
      for (std::size_t m = 0; m < members.centres.size(); ++m) {
        const Array3& x = members.centres[m];
        const IdType id = first_element + static_cast<IdType>(m);
        mine.insert(mine.end(),
                    {static_cast<double>(piece.KeyOf(id)), static_cast<double>(id), x[0], x[1],
                     x[2], members.radii[m], static_cast<double>(offset + 1), outside});
      }
    }
  }
  constexpr std::size_t kStride = 8;
  const std::vector<std::vector<double>> parts = communicator.Gather(mine, 0);
  auto all = std::make_shared<EverySphere>();
  if (communicator.Rank() == 0) {
    const auto n = static_cast<std::size_t>(piece.total_spheres + piece.cluster_members);
    all->Resize(n);
    std::vector<std::uint8_t> present(n, 0);
    for (const std::vector<double>& part : parts)
      for (std::size_t k = 0; k + kStride - 1 < part.size(); k += kStride) {
        const auto key = static_cast<std::size_t>(part[k]);
        all->element[key] = static_cast<IdType>(part[k + 1]);
        all->position[key] = Array3{part[k + 2], part[k + 3], part[k + 4]};
        all->radius[key] = part[k + 5];
        all->group[key] = static_cast<std::uint32_t>(part[k + 6]);
        all->cluster_outside[key] = part[k + 7] != 0.0;
        present[key] = 1;
      }
    for (std::size_t key = 0; key < n; ++key)
      if (!present[key])
        TESSERA_ERROR("ShareInitialShrinks: row ", key, " of the serial run is in no rank's box");
  }
  strategy.SetInitialShrinks([all, settings, sort_rows_frequency, &spheres,
                              &communicator](const std::vector<IdType>& deleted_touching_walls) {
    const std::vector<std::vector<std::int64_t>> deleted = communicator.Gather(
        std::vector<std::int64_t>(deleted_touching_walls.begin(), deleted_touching_walls.end()), 0);
    std::vector<double> out;  // (element id, factor) pairs
    if (communicator.Rank() == 0) {
      std::vector<IdType> every;
      for (const std::vector<std::int64_t>& part : deleted)
        every.insert(every.end(), part.begin(), part.end());
      out = SerialShrinks(std::move(*all), every, settings, sort_rows_frequency,
                          spheres.GetProcessInfo().GetValue(TIME));
      *all = EverySphere{};
    }
    communicator.Broadcast(out, 0);
    InitialShrinks result;
    for (std::size_t k = 0; k + 1 < out.size(); k += 2) {
      result.element_ids.push_back(static_cast<IdType>(out[k]));
      result.factors.push_back(out[k + 1]);
    }
    return result;
  });
}

void CountBondsOverPieces(ExplicitSolverStrategy& strategy, const SpheresPiece& piece,
                          const Communicator& communicator) {
  strategy.SetGlobalBondCounts(
      [boxes = piece.boxes, &communicator](const ParticleStorage& rows,
                                           const std::vector<std::uint32_t>& first,
                                           const std::vector<int>& bonds_per_row) {
        // (The rows' centres are wrapped into a periodic domain by now, as the
        // first bisection's were.)
        std::vector<std::uint8_t> owned(rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i)
          owned[i] = RcbOwner(boxes, rows.position[i]) == communicator.Rank();
        std::int64_t bonds = 0, bonded = 0;
        for (const std::uint32_t i : first) bonds += owned[i];
        for (std::size_t i = 0; i < rows.size(); ++i) bonded += owned[i] && bonds_per_row[i] > 0;
        return std::array<std::int64_t, 2>{communicator.SumAll(bonds), communicator.SumAll(bonded)};
      });
}

std::vector<IdType> ParticleMaterialOrder(ModelPart& spheres, const SpheresPiece& piece,
                                          const Communicator& communicator) {
  // Each material's first key on this rank, then the least over the ranks.
  std::map<IdType, std::int64_t> first_key;
  for (Element& element : spheres.Elements()) {
    const std::int64_t key = piece.KeyOf(element.Id());
    const IdType id = element.GetProperties().Id();
    const auto [at, added] = first_key.emplace(id, key);
    if (!added) at->second = std::min(at->second, key);
  }
  std::vector<std::int64_t> local;
  for (const auto& [id, key] : first_key)
    local.insert(local.end(), {static_cast<std::int64_t>(id), key});
  std::vector<std::int64_t> all;
  const std::vector<std::vector<std::int64_t>> parts = communicator.Gather(local, 0);
  if (communicator.Rank() == 0)
    for (const std::vector<std::int64_t>& part : parts)
      all.insert(all.end(), part.begin(), part.end());
  communicator.Broadcast(all, 0);
  std::map<IdType, std::int64_t> least;
  // The clusters' materials from their first members' keys (every rank's alike).
  for (const auto& [id, key] : piece.cluster_material_keys) least.emplace(id, key);
  for (std::size_t k = 0; k + 1 < all.size(); k += 2) {
    const auto id = static_cast<IdType>(all[k]);
    const auto [at, added] = least.emplace(id, all[k + 1]);
    if (!added) at->second = std::min(at->second, all[k + 1]);
  }
  std::vector<std::pair<std::int64_t, IdType>> by_key;
  for (const auto& [id, key] : least) by_key.push_back({key, id});
  std::sort(by_key.begin(), by_key.end());
  std::vector<IdType> order;
  for (const auto& [key, id] : by_key) order.push_back(id);
  return order;
}

}  // namespace tessera::dem
