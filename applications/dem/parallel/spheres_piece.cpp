// A distributed DEM run's start from each rank's piece of the sphere file
// (spheres_piece.h).
#include "applications/dem/parallel/spheres_piece.h"

#include <algorithm>
#include <limits>
#include <map>

#include "applications/dem/elements/spheric_particle.h"
#include "applications/dem/parallel/distributed_rcb.h"
#include "applications/dem/parallel/periodic_layer.h"
#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/model/model.h"
#include "kernel/model/model_part.h"
#include "kernel/parallel/communicator.h"
#include "kernel/parallel/mesh_graph.h"

namespace tessera::dem {

std::int64_t SpheresPiece::KeyOf(IdType element_id) const {
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

SpheresPiece ReadSpheresPiece(const std::string& path, ModelPart& model_part,
                              MdpaReadOptions options, const Communicator& communicator,
                              double search_tolerance, const PeriodicBox& periodic,
                              double least_largest_radius, const PieceBonds& bonds,
                              bool removes_embedded) {
  const int rank = communicator.Rank(), ranks = communicator.Size();
  options.piece = nullptr;
  MeshGraph graph;
  MdpaReader(options).ReadMeshGraph(path, graph);
  const std::size_t n = graph.NumberOfElements();
  for (std::size_t e = 0; e < n; ++e)
    if (graph.element_offsets[e + 1] - graph.element_offsets[e] != 1)
      TESSERA_ERROR(path, ": element ", graph.element_ids[e], " has ",
                    graph.element_offsets[e + 1] - graph.element_offsets[e],
                    " nodes; the distributed start reads spheres (one node each)");
  if (graph.NumberOfConditions() > 0)
    TESSERA_ERROR(path, ": ", graph.NumberOfConditions(),
                  " conditions; the distributed start reads spheres only");
  SpheresPiece piece;
  piece.total_spheres = static_cast<std::int64_t>(n);
  for (IdType id : graph.node_ids) piece.max_node_id = std::max(piece.max_node_id, id);
  for (IdType id : graph.element_ids) piece.max_element_id = std::max(piece.max_element_id, id);

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
  {
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
      const Array3 x = db.Coordinates(element.GetGeometry().NodeIndex(0));
      centres[k++] = periodic.active ? periodic.Wrap(x) : x;
      if (const auto* sphere = dynamic_cast<const SphericParticle*>(&element))
        largest = std::max(largest, sphere->Radius());
    }
  }
  piece.largest_radius = std::max(communicator.MaxAll(largest), least_largest_radius);
  // The layer DistributedDem::Start keeps (no clusters here).
  const double r = piece.largest_radius, t = search_tolerance;
  piece.layer = 1.05 * (2.0 * r + t);
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
  if (removes_embedded) piece.layer += 2.0 * r;
  piece.boxes = DistributedRecursiveCoordinateBisection(centres, ranks, {}, communicator);

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
  std::vector<std::vector<double>> received = communicator.Exchange(others, send);
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
  options.piece = &read;
  MdpaReader(options).ReadFile(path, model_part);
  return piece;
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
