// Python bindings of the distributed DEM (parallel/distributed_dem.h):
// tessera._dem.DistributedDem, which DEMSolver builds for "parallel_type": "MPI".
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <limits>

#include "applications/dem/inlets/particle_inlet.h"
#include "applications/dem/nonsmooth/moreau_jean_strategy.h"
#include "applications/dem/parallel/distributed_dem.h"
#include "applications/dem/parallel/distributed_moreau_jean.h"
#include "applications/dem/parallel/distributed_rcb.h"
#include "applications/dem/parallel/rcb_decomposition.h"
#include "applications/dem/parallel/spheres_piece.h"
#include "applications/dem/python/terms_dict.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "kernel/core/error.h"
#include "kernel/io/checkpoint_file.h"
#include "kernel/model/model_part.h"
#include "kernel/parallel/communicator.h"

namespace py = pybind11;

namespace tessera::dem {
namespace {

// The bisections' points from Python's triples, and their boxes as (low, high).
std::vector<Array3> AsArray3s(const std::vector<std::array<double, 3>>& points) {
  std::vector<Array3> x;
  x.reserve(points.size());
  for (const auto& p : points) x.push_back(Array3{p[0], p[1], p[2]});
  return x;
}

std::vector<std::pair<std::array<double, 3>, std::array<double, 3>>> AsPairs(
    const std::vector<RcbBox>& boxes) {
  std::vector<std::pair<std::array<double, 3>, std::array<double, 3>>> out;
  for (const RcbBox& b : boxes)
    out.push_back({{b.low[0], b.low[1], b.low[2]}, {b.high[0], b.high[1], b.high[2]}});
  return out;
}

}  // namespace

void BindDistributed(py::module_& m) {
  py::class_<DistributedDemSettings>(m, "DistributedDemSettings",
                                     "mpi_settings of a distributed DEM run")
      .def(py::init<>())
      .def_readwrite("rebalance_every", &DistributedDemSettings::rebalance_every)
      .def_readwrite("imbalance_threshold", &DistributedDemSettings::imbalance_threshold)
      .def_readwrite("balance", &DistributedDemSettings::balance);
  py::class_<DistributedDem>(m, "DistributedDem",
                             "The explicit DEM strategy over MPI ranks: owned spheres, ghosts, "
                             "migration (distributed_dem.h)")
      .def(py::init([](ExplicitSolverStrategy& strategy, std::shared_ptr<Communicator> comm,
                       const DistributedDemSettings& settings) {
             return std::make_unique<DistributedDem>(strategy, comm, settings);
           }),
           py::arg("strategy"), py::arg("communicator"), py::arg("settings"),
           py::keep_alive<1, 2>(), py::keep_alive<1, 3>())
      .def("Start", &DistributedDem::Start, py::arg("restored") = false,
           "After the strategy's Initialize on every sphere; restored: after a load of the "
           "whole state merged from a checkpoint of another rank count")
      .def("StartFromPiece", &DistributedDem::StartFromPiece, py::arg("piece"),
           "After the strategy's Initialize on this rank's piece of the sphere file "
           "(ReadSpheresPiece): the piece's boxes and keys, the ghosts from their owners")
      .def_static("IndexContacts", &DistributedDem::IndexContacts, py::arg("strategy"),
                  "The strategy's contact indexes for its present lists (after a merged load)")
      .def("AdoptInlets", &DistributedDem::AdoptInlets, py::arg("inlets"), py::keep_alive<1, 2>(),
           "Before Start: the run's inlets inject distributed (every rank the same "
           "injection, each keeping its own spheres and ghosts)")
      .def("RefreshGhosts", &DistributedDem::RefreshGhosts)
      .def("OwnedElementIds", &DistributedDem::OwnedElementIds)
      .def("OwnedNodeIds", &DistributedDem::OwnedNodeIds)
      .def("NumberOfOwned", &DistributedDem::NumberOfOwned)
      .def("NumberOfGhosts", &DistributedDem::NumberOfGhosts)
      .def("GlobalKineticEnergy", &DistributedDem::GlobalKineticEnergy)
      .def(
          "GlobalEnergies",
          [](const DistributedDem& d) { return TotalsDict(d.GlobalEnergies(), kEnergyTerms); },
          "EnergyCalculationOption: the run's energies (J) summed over the ranks, each "
          "sphere and contact once; the keys of the strategy's GetEnergies()")
      .def("GlobalNumberOfParticles", &DistributedDem::GlobalNumberOfParticles)
      .def("GlobalNumberOfParticleContacts", &DistributedDem::GlobalNumberOfParticleContacts)
      .def("GlobalNumberOfBonds", &DistributedDem::GlobalNumberOfBonds)
      .def("GlobalNumberOfIntactBonds", &DistributedDem::GlobalNumberOfIntactBonds)
      .def("NumberOfParkedBonds", &DistributedDem::NumberOfParkedBonds)
      .def("GlobalBondParkings", &DistributedDem::GlobalBondParkings)
      .def(
          "ParkedBonds",
          [](const DistributedDem& d) {
            const DistributedDem::ParkedBondColumns c = d.ParkedBonds();
            py::dict out;
            out["first_key"] = c.first_key, out["second_key"] = c.second_key;
            out["first_element"] = c.first_element, out["second_element"] = c.second_element;
            out["first_owned"] = c.first_owned, out["state"] = c.state, out["opened"] = c.opened;
            out["normal_force"] = c.normal_force, out["failure_criterion"] = c.failure_criterion;
            out["sigma"] = c.sigma, out["tau"] = c.tau, out["rest_length"] = c.rest_length;
            out["area"] = c.area;
            const auto rows3 = [](const std::vector<Array3>& v) {
              std::vector<std::array<double, 3>> out;
              for (const Array3& a : v) out.push_back({a[0], a[1], a[2]});
              return out;
            };
            out["shear_force"] = rows3(c.shear_force), out["moment"] = rows3(c.moment);
            out["direction"] = rows3(c.direction);
            return out;
          },
          "This rank's parked bonds (broken bonds whose partner sphere is on no row of this "
          "rank), by (first_key, second_key) as lists: the spheres' element ids, first_owned (this "
          "rank owns the first sphere: the bond counts here), state, opened, normal_force, "
          "failure_criterion, sigma, tau, rest_length, area, shear_force, moment, direction (the "
          "last one as parked)")
      .def("GlobalMigrations", &DistributedDem::GlobalMigrations)
      .def("Rebalances", &DistributedDem::Rebalances)
      .def("NeighbourBoxes", &DistributedDem::NeighbourBoxes,
           "The ranks whose boxes lie within three ghost layers of this rank's: a migration "
           "exchanges with those alone")
      .def("NeighbourMigrations", &DistributedDem::NeighbourMigrations,
           "Searches whose migration exchanged with the neighbour boxes alone (0 where every "
           "box is near every other)")
      .def("EveryRankMigrations", &DistributedDem::EveryRankMigrations,
           "Searches that exchanged with every rank although some boxes lie farther apart "
           "(the boxes cut again, or a sphere beyond its box's layer)")
      .def("GhostDoublesPerStep", &DistributedDem::GhostDoublesPerStep)
      .def("MigrationDoubles", &DistributedDem::MigrationDoubles)
      .def("GhostLayer", &DistributedDem::GhostLayer)
      .def("OwnedClusterIds", &DistributedDem::OwnedClusterIds,
           "Element ids of the rigid clusters (Cluster3D) this rank owns")
      .def(
          "GetTimings",
          [](const DistributedDem& d) { return TermsDict(d.Timings(), kDistributedTerms); },
          "Wall-clock seconds of this rank's distributed work since Start, waits included: "
          "vote, ghost_refresh, migrate (of which remove_rows and reorder_rows), after_search")
      .def("OwnedWallContactForces", &DistributedDem::OwnedWallContactForces, py::arg("wall_nodes"),
           "Flat [fx, fy, fz, ...] per wall node index: CONTACT_FORCES from the owned "
           "spheres' wall contacts only")
      .def("SearchWallsNearDomain", &DistributedDem::SearchWallsNearDomain,
           py::arg("condition_ids"),
           "The wall faces of these conditions (a coupled structure's skin) enter this rank's "
           "wall searches only near its box (ghost layer + wall search tolerance)")
      .def("NumberOfSearchedFaces", &DistributedDem::NumberOfSearchedFaces,
           "Wall faces this rank's last wall search saw")
      .def("SearchedFaceIds", &DistributedDem::SearchedFaceIds,
           "Condition ids of the near-domain faces this rank's last wall search saw")
      .def("PlaceSkinInStep", &DistributedDem::PlaceSkinInStep, py::arg("place"),
           "place(search) runs in each step once it knows whether it searches; the skin's "
           "faces are read from their nodes only by ReadSkinFaces (skin_placement.cpp)")
      .def("ReadSkinFaces", &DistributedDem::ReadSkinFaces)
      .def("SkinFacePoints", &DistributedDem::SkinFacePoints, py::arg("wall_nodes"),
           "The skin faces' points (as last read) at these wall node indices, 3 per node")
      .def("NoteSkinDisplacement", &DistributedDem::NoteSkinDisplacement, py::arg("wall_nodes"),
           py::arg("positions"),
           "Collective: the run's largest skin displacement since the last search raises the "
           "adaptive search's wall displacement")
      .def("SaveCheckpoint", &DistributedDem::SaveState, py::arg("writer"), py::arg("group"),
           "This rank's distributed state (rows' keys, owners, element ids, boxes, ghost lists, "
           "bond counts, counters) under `group` (distributed_checkpoint.cpp)")
      .def("LoadCheckpoint", &DistributedDem::LoadState, py::arg("reader"), py::arg("group"),
           "After Start and the strategy's state: this rank's distributed state as saved")
      .def("WriteGlobalWallResults", &DistributedDem::WriteGlobalWallResults,
           "Collective: the walls' nodal contact results (CONTACT_FORCES, ELASTIC_FORCES, "
           "TANGENTIAL_ELASTIC_FORCES, DEM_PRESSURE, SHEAR_STRESS) summed over the ranks' "
           "owned spheres, on every rank");
  py::class_<SpheresPiece>(m, "SpheresPiece",
                           "This rank's piece of a distributed run's sphere file (spheres_piece.h)")
      .def_readonly("largest_radius", &SpheresPiece::largest_radius)
      .def_readonly("layer", &SpheresPiece::layer)
      .def_readonly("total_spheres", &SpheresPiece::total_spheres)
      .def_readonly("element_ids", &SpheresPiece::element_ids)
      .def_readonly("element_keys", &SpheresPiece::element_keys)
      .def_readonly("max_node_id", &SpheresPiece::max_node_id)
      .def_readonly("max_element_id", &SpheresPiece::max_element_id)
      .def_readonly("max_condition_id", &SpheresPiece::max_condition_id)
      .def_readonly("cluster_members", &SpheresPiece::cluster_members)
      .def_readonly("first_member_node", &SpheresPiece::first_member_node)
      .def_readonly("first_member_element", &SpheresPiece::first_member_element)
      .def_readonly("clusters_max_node_id", &SpheresPiece::clusters_max_node_id)
      .def_readonly("clusters_max_element_id", &SpheresPiece::clusters_max_element_id)
      .def_readonly("clusters_max_condition_id", &SpheresPiece::clusters_max_condition_id)
      .def_readonly("clusters_in_slice", &SpheresPiece::clusters_in_slice)
      .def_readonly("cluster_material_keys", &SpheresPiece::cluster_material_keys,
                    "(material id, key of its first cluster's first member) per cluster material")
      .def_property_readonly("boxes", [](const SpheresPiece& p) { return AsPairs(p.boxes); })
      .def_property_readonly(
          "periodic_box",
          [](const SpheresPiece& p) {
            return std::array<std::array<double, 3>, 2>{
                std::array<double, 3>{p.periodic.low[0], p.periodic.low[1], p.periodic.low[2]},
                std::array<double, 3>{p.periodic.high[0], p.periodic.high[1], p.periodic.high[2]}};
          },
          "(low, high) of the periodic domain the centres were wrapped into");
  constexpr double kInf = std::numeric_limits<double>::infinity();
  m.def(
      "ReadSpheresPiece",
      [](const std::string& path, ModelPart& model_part, const Communicator& communicator,
         double search_tolerance, IdType node_id_offset, IdType element_id_offset,
         IdType condition_id_offset, const std::vector<bool>& periodic_axes,
         const std::array<double, 3>& periodic_low, const std::array<double, 3>& periodic_high,
         double least_largest_radius, bool bonds_made, double largest_bond_range,
         bool kratos_broken_bonds, bool removes_embedded, double automatic_factor,
         const std::array<double, 3>& automatic_low, const std::array<double, 3>& automatic_high,
         std::function<std::array<IdType, 5>(IdType, IdType, IdType)> read_next_files,
         const std::string& clusters_path, ModelPart* clusters,
         std::function<void()> assign_cluster_materials) {
        PieceStart start;
        start.read_next_files = std::move(read_next_files);
        start.clusters_path = clusters_path;
        start.clusters = clusters;
        start.assign_cluster_materials = std::move(assign_cluster_materials);
        start.search_tolerance = search_tolerance;
        if (!periodic_axes.empty()) {
          if (periodic_axes.size() != 3)
            TESSERA_ERROR("ReadSpheresPiece: periodic_axes needs 3 flags, got ",
                          periodic_axes.size());
          start.periodic.active = true;
          for (int k = 0; k < 3; ++k) {
            start.periodic.axis[k] = periodic_axes[k];
            start.periodic.low[k] = periodic_low[k], start.periodic.high[k] = periodic_high[k];
          }
        }
        start.automatic_factor = automatic_factor;
        start.automatic_low = Array3{automatic_low[0], automatic_low[1], automatic_low[2]};
        start.automatic_high = Array3{automatic_high[0], automatic_high[1], automatic_high[2]};
        start.least_largest_radius = least_largest_radius;
        start.bonds = PieceBonds{bonds_made, largest_bond_range, kratos_broken_bonds};
        start.removes_embedded = removes_embedded;
        MdpaReadOptions options;
        options.renumber = true;
        options.node_id_offset = node_id_offset;
        options.element_id_offset = element_id_offset;
        options.condition_id_offset = condition_id_offset;
        return ReadSpheresPiece(path, model_part, options, communicator, start);
      },
      py::arg("path"), py::arg("model_part"), py::arg("communicator"), py::arg("search_tolerance"),
      py::arg("node_id_offset") = 0, py::arg("element_id_offset") = 0,
      py::arg("condition_id_offset") = 0, py::arg("periodic_axes") = std::vector<bool>{},
      py::arg("periodic_low") = std::array<double, 3>{},
      py::arg("periodic_high") = std::array<double, 3>{}, py::arg("least_largest_radius") = 0.0,
      py::arg("bonds_made") = false, py::arg("largest_bond_range") = -1.0,
      py::arg("kratos_broken_bonds") = false, py::arg("removes_embedded") = false,
      py::arg("automatic_factor") = 0.0,
      py::arg("automatic_low") = std::array<double, 3>{kInf, kInf, kInf},
      py::arg("automatic_high") = std::array<double, 3>{-kInf, -kInf, -kInf},
      py::arg("read_next_files") = py::none(), py::arg("clusters_path") = std::string(),
      py::arg("clusters") = nullptr, py::arg("assign_cluster_materials") = py::none(),
      "Collective: reads into the empty root model_part this rank's piece of the sphere file "
      "(renumbered consecutively from the offsets, as the DEM stage reads it): the spheres in "
      "its box of the first bisection or within the ghost layer of it; periodic_axes (three "
      "flags), periodic_low and periodic_high: a periodic domain (its centres wrapped); "
      "least_largest_radius: spheres to come (inlets) reach that far; bonds_made (the "
      "continuum strategy), largest_bond_range (the largest BOND_RANGE_BETA, < 0: none) and "
      "kratos_broken_bonds (BrokenBonds \"kratos\"): the piece reaches every bond partner of "
      "the spheres kept; removes_embedded (RemoveBallsInEmbeddedOption): 2 R_max farther; "
      "automatic_factor > 0 (AutomaticBoundingBoxOption with the periodic domain): the domain "
      "is the box of every centre and of [automatic_low, automatic_high], scaled; "
      "with clusters, read_next_files(node, element, condition): called with the file's "
      "largest ids, reads the files between it and the cluster file and returns the offsets "
      "the cluster file's ids start from (node, element, condition) and the largest node and "
      "element-or-condition id read so far; clusters_path: the cluster file, read in pieces "
      "into clusters (the Cluster3D root): a slice of it, whose members count in the "
      "bisection, then the clusters this rank keeps; assign_cluster_materials() after each "
      "read");
  m.def("ShareInitialShrinks", &ShareInitialShrinks, py::arg("strategy"), py::arg("spheres"),
        py::arg("clusters"), py::arg("piece"), py::arg("settings"), py::arg("sort_rows_frequency"),
        py::arg("communicator"), py::keep_alive<1, 2>(), py::keep_alive<1, 7>(),
        "Collective, before Initialize, for CleanIndentationsOption in a start from pieces: "
        "rank 0 gathers every sphere's centre and radius and, at the strategy's Initialize, "
        "repeats the serial start's deletions, sort, search and shrinks over them; every "
        "rank applies the shrinks of its spheres (spheres_piece.h)");
  m.def(
      "NumberClusterMembers",
      [](ExplicitSolverStrategy& strategy, const SpheresPiece& piece) {
        strategy.SetClusterMemberIds(
            {piece.cluster_first_node_ids, piece.cluster_first_element_ids});
      },
      py::arg("strategy"), py::arg("piece"),
      "Before Initialize, in a start from pieces with clusters: the members of the piece's "
      "clusters numbered as the serial run numbers them");
  m.def("CountBondsOverPieces", &CountBondsOverPieces, py::arg("strategy"), py::arg("piece"),
        py::arg("communicator"), py::keep_alive<1, 3>(),
        "Before Initialize, in a start from pieces with BondAreaCorrection \"global\": the "
        "strategy counts the whole specimen's bonds and bonded spheres over the ranks");
  m.def("ParticleMaterialOrder", &ParticleMaterialOrder, py::arg("spheres"), py::arg("piece"),
        py::arg("communicator"),
        "Collective: the Properties ids of the spheres of every rank's piece in the serial "
        "run's order of first use");
  m.def(
      "RecursiveCoordinateBisection",
      [](const std::vector<std::array<double, 3>>& points, const std::vector<std::int64_t>& keys,
         int parts, const std::vector<double>& weights, std::vector<double> loads,
         std::vector<std::array<std::uint32_t, 2>> links, double window) {
        RcbLoadBalance balance{std::move(loads), std::move(links), window};
        return AsPairs(
            RecursiveCoordinateBisection(AsArray3s(points), keys, parts, weights, balance));
      },
      py::arg("points"), py::arg("keys"), py::arg("parts"),
      py::arg("weights") = std::vector<double>{}, py::arg("loads") = std::vector<double>{},
      py::arg("links") = std::vector<std::array<std::uint32_t, 2>>{}, py::arg("window") = 0.0,
      "One (low, high) box per part: owner of x where low <= x < high; `weights` (one per part): "
      "each part's share of the points in proportion to its weight; `loads` (one per point, >= "
      "0): the parts share the points' summed load instead of their count; `links` (pairs of "
      "point indices) and `window`: a cut may leave its share by up to window of the load to "
      "separate fewer linked pairs (rcb_decomposition.h, RcbLoadBalance)");
  m.def(
      "DistributedRecursiveCoordinateBisection",
      [](const std::vector<std::array<double, 3>>& points, int parts,
         const std::vector<double>& weights, const Communicator& communicator) {
        return AsPairs(DistributedRecursiveCoordinateBisection(AsArray3s(points), parts, weights,
                                                               communicator));
      },
      py::arg("points"), py::arg("parts"), py::arg("weights"), py::arg("communicator"),
      "Collective: RecursiveCoordinateBisection's boxes of every rank's points together, each "
      "rank passing its own (distributed_rcb.h)");
  py::class_<DistributedMoreauJean>(
      m, "DistributedMoreauJean",
      "The Moreau-Jean strategy over MPI ranks: every rank holds every sphere, the NLGS sweeps "
      "split by the ranks' boxes (distributed_moreau_jean.h)")
      .def(py::init([](nonsmooth::MoreauJeanStrategy& strategy, std::shared_ptr<Communicator> comm,
                       const DistributedDemSettings& settings) {
             return std::make_unique<DistributedMoreauJean>(strategy, comm, settings);
           }),
           py::arg("strategy"), py::arg("communicator"), py::arg("settings"),
           py::keep_alive<1, 2>(), py::keep_alive<1, 3>())
      .def("Start", &DistributedMoreauJean::Start,
           "After the strategy's Initialize: the boxes, and the split installed in the strategy")
      .def("AfterStep", &DistributedMoreauJean::AfterStep, "After each step: the rebalancing check")
      .def("SaveCheckpoint", &DistributedMoreauJean::SaveState, py::arg("writer"), py::arg("group"),
           "The boxes and rebalancing counters under `group` (the strategy's state is saved as "
           "a serial run's)")
      .def("LoadCheckpoint", &DistributedMoreauJean::LoadState, py::arg("reader"), py::arg("group"),
           "After Start and the strategy's state: the boxes as saved")
      .def("OwnedElementIds", &DistributedMoreauJean::OwnedElementIds)
      .def("OwnedRows", &DistributedMoreauJean::OwnedRows)
      .def("NumberOfOwned", &DistributedMoreauJean::NumberOfOwned)
      .def("ReplicaDigest", &DistributedMoreauJean::ReplicaDigest,
           "A hash of every row's position and velocities: equal on every rank")
      .def("Rebalances", &DistributedMoreauJean::Rebalances)
      .def("SweptContacts", &DistributedMoreauJean::SweptContacts,
           "The contacts each rank swept in the last step")
      .def("BisectionLoads", &DistributedMoreauJean::BisectionLoads,
           "Each box's share of the balanced loads (owned spheres or contacts) at the last "
           "bisection")
      .def("BisectionWeights", &DistributedMoreauJean::BisectionWeights,
           "The ranks' weights at the last bisection (\"time\": their measured speeds, contacts "
           "swept per second; empty: equal shares)")
      .def(
          "SumOverRanks",
          [](const DistributedMoreauJean& d, std::vector<double> v) {
            d.SumOverRanks(v);
            return v;
          },
          py::arg("values"), "Element-wise sum over the ranks in rank order (collective)");
}

}  // namespace tessera::dem
