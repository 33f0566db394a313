// tessera._dem: importing it registers the dem application (its variables
// registered when the library loaded; this adds its elements and conditions),
// and binds the DEM strategy, its settings, the particle rows and the contact
// law helpers that the Python stage (tessera.dem.DEMAnalysisStage) and tests use.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <vector>

#include "applications/dem/contact_laws/bond_law_path.h"
#include "applications/dem/contact_laws/bond_laws.h"
#include "applications/dem/contact_laws/contact_law.h"
#include "applications/dem/dem_application.h"
#include "applications/dem/inlets/particle_inlet.h"
#include "applications/dem/parallel/spheres_piece.h"
#include "applications/dem/particles/cluster_geometry.h"
#include "applications/dem/particles/continuum_bonds.h"
#include "applications/dem/particles/particle_storage.h"
#include "applications/dem/python/terms_dict.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "applications/dem/utilities/spatial_order.h"
#include "applications/dem/walls/sphere_face_area_gradient.h"
#include "kernel/core/error.h"
#include "kernel/model/model_part.h"
#include "kernel/python/casters.h"

namespace py = pybind11;
using namespace tessera;
using namespace tessera::dem;

namespace {

// A copy of a row array as numpy: (n, 3) for vectors, (n,) for scalars.
py::array_t<double> Rows(const std::vector<Array3>& values) {
  py::array_t<double> out({static_cast<py::ssize_t>(values.size()), py::ssize_t{3}});
  auto m = out.mutable_unchecked<2>();
  for (std::size_t i = 0; i < values.size(); ++i)
    for (int k = 0; k < 3; ++k) m(static_cast<py::ssize_t>(i), k) = values[i][k];
  return out;
}

template <class T>
py::array_t<T> Rows(const std::vector<T>& values) {
  py::array_t<T> out(static_cast<py::ssize_t>(values.size()));
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

void BindParticleStorage(py::module_& m) {
  py::class_<ParticleStorage>(m, "ParticleStorage",
                              "Particles as rows of arrays; the properties return numpy copies")
      .def(py::init<>())
      .def("__len__", &ParticleStorage::size)
      .def_property_readonly("shares_columns_with_nodes", &ParticleStorage::SharesColumnsWithNodes,
                             "whether the state and force columns are the nodal columns "
                             "(ShareColumnsWithNodes)")
      .def_property_readonly("position", [](const ParticleStorage& p) { return Rows(p.position); })
      .def_property_readonly("velocity", [](const ParticleStorage& p) { return Rows(p.velocity); })
      .def_property_readonly("angular_velocity",
                             [](const ParticleStorage& p) { return Rows(p.angular_velocity); })
      .def_property_readonly(
          "displacement", [](const ParticleStorage& p) { return Rows(p.displacement); },
          "x - x0 as of the last write to the nodes (WriteToNodes); a periodic domain's "
          "steps advance it")
      .def_property_readonly("delta_displacement",
                             [](const ParticleStorage& p) { return Rows(p.delta_displacement); })
      .def_property_readonly("delta_rotation",
                             [](const ParticleStorage& p) { return Rows(p.delta_rotation); })
      .def_property_readonly("rotation_angle",
                             [](const ParticleStorage& p) { return Rows(p.rotation_angle); })
      .def_property_readonly("force", [](const ParticleStorage& p) { return Rows(p.force); })
      .def_property_readonly("torque", [](const ParticleStorage& p) { return Rows(p.torque); })
      .def_property_readonly("contact_force",
                             [](const ParticleStorage& p) { return Rows(p.contact_force); })
      .def_property_readonly(
          "elastic_force", [](const ParticleStorage& p) { return Rows(p.elastic_force); },
          "the elastic parts of the contact forces; no rows unless the spheres' model part "
          "declares ELASTIC_FORCES")
      .def_property_readonly("radius", [](const ParticleStorage& p) { return Rows(p.radius); })
      .def_property_readonly("mass", [](const ParticleStorage& p) { return Rows(p.mass); })
      .def_property_readonly("inertia", [](const ParticleStorage& p) { return Rows(p.inertia); })
      .def_property_readonly("material", [](const ParticleStorage& p) { return Rows(p.material); })
      .def_property_readonly("element_id",
                             [](const ParticleStorage& p) { return Rows(p.element_id); })
      .def_property_readonly("fixed", [](const ParticleStorage& p) { return Rows(p.fixed); })
      .def_property_readonly(
          "glued", [](const ParticleStorage& p) { return Rows(p.glued); },
          "0: integrated; k + 1: glued to sticky wall k (see GluedParticles)")
      .def_property_readonly(
          "cluster", [](const ParticleStorage& p) { return Rows(p.cluster); },
          "0: a free sphere; k + 1: a member of rigid cluster k (see Clusters)")
      .def(
          "SetVelocity",
          [](ParticleStorage& p, std::size_t i, const Array3& v) { p.velocity.at(i) = v; },
          "Sets the velocity of row i (tests)")
      .def(
          "SetForce", [](ParticleStorage& p, std::size_t i, const Array3& f) { p.force.at(i) = f; },
          "Sets the total force of row i (tests)")
      .def_property_readonly(
          "gear",
          [](const ParticleStorage& p) {
            return py::make_tuple(Rows(p.gear[0]), Rows(p.gear[1]), Rows(p.gear[2]),
                                  Rows(p.gear_angular[0]), Rows(p.gear_angular[1]),
                                  Rows(p.gear_angular[2]));
          },
          "Gear_Predictor_Corrector's derivatives (a, a', a'' of the centre, then of the "
          "rotation with Direct_Integration); no rows under the other schemes")
      .def(
          "SetGearDerivatives",
          [](ParticleStorage& p, std::size_t i, const Array3& a, const Array3& b, const Array3& c,
             bool angular) {
            auto& columns = angular ? p.gear_angular : p.gear;
            if (i >= columns[0].size())
              throw py::index_error("SetGearDerivatives: no Gear row " + std::to_string(i) +
                                    (angular ? " (angular)" : ""));
            columns[0][i] = a, columns[1][i] = b, columns[2][i] = c;
          },
          py::arg("row"), py::arg("acceleration"), py::arg("jerk"), py::arg("snap"),
          py::arg("angular") = false,
          "Sets the starting derivatives of row i under Gear_Predictor_Corrector (Initialize "
          "starts a = F/m, a' = a'' = 0)");

  m.def(
      "FillParticles",
      [](ModelPart& spheres, int dimension) {
        MaterialIndex materials;
        ParticleStorage particles;
        FillParticles(spheres, materials, particles, dimension);
        return particles;
      },
      py::arg("spheres"), py::arg("dimension") = 3,
      "The particle rows of a spheres model part (elements' Check() included); dimension 2: "
      "CylinderParticle2D discs");
  m.def(
      "ReadClusterFile",
      [](const std::string& path) {
        const ClusterGeometry g = ReadClusterFile(path);
        py::dict d;
        d["name"] = g.name;
        d["centres"] = Rows(g.centres);
        d["radii"] = Rows(g.radii);
        d["size"] = g.size;
        d["volume"] = g.volume;
        d["inertia_per_unit_mass"] = g.inertia_per_unit_mass;
        d["enclosing_sphere"] =
            g.has_enclosing_sphere
                ? py::object(py::make_tuple(g.enclosing_centre, g.enclosing_diameter))
                : py::object(py::none());
        return d;
      },
      py::arg("path"),
      "A Kratos .clu cluster file: name, centres (n, 3), radii, size, volume, "
      "inertia_per_unit_mass and enclosing_sphere ((centre, diameter) or None)");
  m.def("WriteParticlesToNodes", &WriteParticlesToNodes, py::arg("particles"), py::arg("spheres"),
        py::arg("displacements_from_coordinates") = true);
  m.def("ReadParticlesFromNodes", &ReadParticlesFromNodes, py::arg("spheres"),
        py::arg("particles"));
  m.def("DeclareParticleVariables", &DeclareParticleVariables, py::arg("spheres"),
        py::arg("elastic_forces") = false);
  m.def(
      "SpatialOrder",
      [](const std::vector<Array3>& position, double cell_size,
         const std::vector<std::uint32_t>& group) {
        return SpatialOrder(position, cell_size, group);
      },
      py::arg("position"), py::arg("cell_size"), py::arg("group"),
      "The spatial order of rows (by cell, x fastest): row order[k] goes to position k; rows of "
      "one "
      "nonzero group stay consecutive");
  m.def("PairContactBatchAvailable", &PairContactBatchAvailable,
        "Whether this processor runs the vectorised (AVX2) sphere-sphere contact kernel");
  m.def("EightLanePairContactBatchAvailable", &EightLanePairContactBatchAvailable,
        "Whether it runs the kernel's contact law on eight lanes (AVX-512 F, DQ, VL and BMI2)");
  m.def("RowQuadsAvailable", &RowQuadsAvailable,
        "Whether this processor runs the four-row (AVX2) sums and updates of the rows");
}

void BindContactLaws(py::module_& m) {
  m.def(
      "RestitutionForDampingRatio",
      [](const std::string& law, double xi) {
        return RestitutionForDampingRatio(ContactLawFromName(law, "RestitutionForDampingRatio"),
                                          xi);
      },
      py::arg("law"), py::arg("damping_ratio"));
  m.def(
      "DampingRatioForRestitution",
      [](const std::string& law, double e) {
        return DampingRatioForRestitution(ContactLawFromName(law, "DampingRatioForRestitution"), e);
      },
      py::arg("law"), py::arg("restitution"));
  m.def(
      "EvaluateBondLawPath",
      [](const Properties& material, double area, double length,
         const std::vector<double>& shortening, const std::vector<double>& slip,
         const std::string& bond_damage) {
        const BondPath p =
            EvaluateBondLawPath(material, area, length, shortening, slip,
                                BondDamageFromName(bond_damage, "EvaluateBondLawPath.bond_damage"));
        py::dict d;
        d["normal"] = Rows(p.normal);
        d["shear"] = Rows(p.shear);
        d["criterion"] = Rows(p.criterion);
        d["state"] = Rows(p.state);
        d["normal_stiffness"] = p.normal_stiffness;
        d["tangential_stiffness"] = p.tangential_stiffness;
        return d;
      },
      py::arg("material"), py::arg("area"), py::arg("length"), py::arg("shortening"),
      py::arg("slip"), py::arg("bond_damage") = "kratos",
      "One bond of the material's continuum law (its section and rest length given) through "
      "the shortenings L - d and tangential displacements given, one step each: normal (force, "
      "compression positive), shear, criterion (Failure Criterion State), state (0 intact, 2 "
      "shear, 4 tension failure), normal_stiffness, tangential_stiffness");
  m.def(
      "CheckBondLaw",
      [](const Properties& material, const std::string& where) {
        BondParametersOf(material, where);
      },
      py::arg("material"), py::arg("where"),
      "Reads the material's continuum (bond) law parameters; a value out of range or missing is "
      "an error starting with `where`");
  m.def("BondLawNames", &BondLawNames, "The continuum (bond) laws of this build");
  m.def("PolyhedronAreaRatio", &PolyhedronAreaRatio, py::arg("faces"),
        "Kratos' ratio (Table 5.1, linear in n, 1.15 above 20 faces)");
  m.def("VpacAreaRatio", &VpacAreaRatio, py::arg("faces"),
        "Thesis Table 5.1 ratio of the polyhedron of n faces, linear in n, clamped to [4, 20]");
  m.def("ContactLawNames", &ContactLawNames,
        "The DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME values this build provides");
  m.def(
      "SphereFaceAreaWithGradient",
      [](const Array3& centre, double radius, const std::vector<Array3>& vertices) {
        if (vertices.size() != 3 && vertices.size() != 4)
          TESSERA_ERROR("SphereFaceAreaWithGradient: expected 3 or 4 vertices, got ",
                        vertices.size());
        std::array<Array3, 4> points{};
        std::copy(vertices.begin(), vertices.end(), points.begin());
        SphereFaceAreaGradient g;
        SphereFaceAreaWithGradient(centre, radius, points, static_cast<int>(vertices.size()), g);
        py::dict d;
        d["area"] = g.area;
        d["centre"] = py::cast(g.centre);
        d["vertices"] =
            py::cast(std::vector<Array3>(g.vertex.begin(), g.vertex.begin() + vertices.size()));
        return d;
      },
      py::arg("centre"), py::arg("radius"), py::arg("vertices"),
      "The area the sphere cuts in the face (3 or 4 vertices; App. C's A_e) and its derivatives "
      "with respect to the centre and each vertex (walls/sphere_face_area_gradient.h): a dict "
      "with area, centre, vertices");
  m.def("ThorntonDampingRatio", &ThorntonDampingRatio, py::arg("restitution"),
        "The Hertz damping ratio of Kratos' fitted map (HertzDampingMap \"thornton_fit\")");
  m.attr("MINIMUM_RESTITUTION") = kMinimumRestitution;
}

// A DemSettings choice exposed by its name: Name gives a value's name,
// FromName reads one (an unknown name is an error naming the setting).
template <auto Member, auto Name, auto FromName>
void DefNamedChoice(py::class_<DemSettings>& settings, const char* property, const char* doc) {
  const std::string key = std::string("DemSettings.") + property;
  settings.def_property(
      property, [](const DemSettings& s) { return std::string(Name(s.*Member)); },
      [key](DemSettings& s, const std::string& name) { s.*Member = FromName(name, key); }, doc);
}

// A DemTuning switch read and set by its former name on DemSettings as well.
template <class T, T DemTuning::*Member>
void DefTuningAlias(py::class_<DemSettings>& settings, const char* name) {
  settings.def_property(
      name, [](const DemSettings& s) { return s.tuning.*Member; },
      [](DemSettings& s, T value) { s.tuning.*Member = value; },
      "The switch of that name in DemSettings.tuning (DemTuning)");
}

}  // namespace

namespace tessera::dem {
// The clusters as a list of dicts (ExplicitSolverStrategy.Clusters and
// MoreauJeanStrategy.Clusters, whose doc strings list the keys).
py::list ClusterList(const RigidClusters& c) {
  py::list out;
  for (std::size_t k = 0; k < c.size(); ++k) {
    py::dict d;
    d["element_id"] = c.element_id[k];
    d["mass"] = c.mass[k];
    d["inertia"] = c.inertia[k];
    d["centre"] = c.centre[k];
    d["velocity"] = c.velocity[k];
    d["angular_velocity"] = c.angular_velocity[k];
    d["angular_momentum"] = c.angular_momentum[k];
    d["displacement"] = c.displacement[k];
    const Quaternion& q = c.orientation[k];
    d["orientation"] = py::make_tuple(q.w, q.x, q.y, q.z);
    d["force"] = c.force[k];
    d["torque"] = c.torque[k];
    d["first_row"] = c.first_row[k];
    d["row_count"] = c.row_count[k];
    d["member_offset"] = Rows(c.member_offset[k]);
    out.append(d);
  }
  return out;
}
}  // namespace tessera::dem

namespace {

void BindStrategy(py::module_& m) {
  py::class_<DemTuning>(m, "DemTuning",
                        "Tuning switches of ExplicitSolverStrategy: each keeps a reference path "
                        "for the equality tests; none is physics (strategies/dem_strategy.h)")
      .def(py::init<>())
      .def_readwrite("batched_pair_contacts", &DemTuning::batched_pair_contacts)
      .def_readwrite("eight_lane_pair_contacts", &DemTuning::eight_lane_pair_contacts)
      .def_readwrite("quad_row_updates", &DemTuning::quad_row_updates)
      .def_readwrite("batched_bonds", &DemTuning::batched_bonds)
      .def_readwrite("sort_rows_frequency", &DemTuning::sort_rows_frequency)
      .def_readwrite("sort_rows_minimum", &DemTuning::sort_rows_minimum)
      .def_readwrite("force_block_rows", &DemTuning::force_block_rows)
      .def_readwrite("share_rows_with_nodes", &DemTuning::share_rows_with_nodes);
  py::class_<DemSettings> settings(m, "DemSettings",
                                   "Settings of ExplicitSolverStrategy (SI units)");
  settings.def(py::init<>())
      .def_readwrite("gravity", &DemSettings::gravity)
      .def_readwrite("delta_time", &DemSettings::delta_time)
      .def_property(
          "translational_scheme",
          [](const DemSettings& s) { return std::string(TranslationalSchemeName(s.scheme)); },
          [](DemSettings& s, const std::string& name) {
            s.scheme = TranslationalSchemeFromName(name);
          })
      .def_readwrite("rotation", &DemSettings::rotation)
      .def_property(
          "rotational_scheme",
          [](const DemSettings& s) {
            return std::string(s.rotational_scheme == RotationalScheme::kDirect
                                   ? "Direct_Integration"
                                   : "Quaternion_Integration");
          },
          [](DemSettings& s, const std::string& name) {
            s.rotational_scheme = RotationalSchemeFromName(name);
          })
      .def_readwrite("rolling_friction", &DemSettings::rolling_friction)
      .def_readwrite("energy_calculation", &DemSettings::energy_calculation)
      .def_readwrite("search_frequency", &DemSettings::search_frequency)
      .def_readwrite("search_tolerance", &DemSettings::search_tolerance)
      .def_readwrite("wall_search_tolerance", &DemSettings::wall_search_tolerance)
      .def_readwrite("adaptive_search", &DemSettings::adaptive_search,
                     "AdaptiveSearch: also search when spheres or wall vertices have moved "
                     "far enough since the last search to meet outside its candidates "
                     "(2 d_particle > search_tolerance, or d_particle + d_wall > "
                     "wall_search_tolerance); a zero tolerance arms nothing")
      .def_readwrite("global_damping", &DemSettings::global_damping)
      .def_readwrite("virtual_mass_coefficient", &DemSettings::virtual_mass_coefficient)
      .def_readwrite("bounding_box", &DemSettings::bounding_box)
      .def_readwrite("periodic", &DemSettings::periodic)
      .def_readwrite("bounding_box_min", &DemSettings::bounding_box_min)
      .def_readwrite("bounding_box_max", &DemSettings::bounding_box_max)
      .def_readwrite("bounding_box_start_time", &DemSettings::bounding_box_start_time)
      .def_readwrite("bounding_box_stop_time", &DemSettings::bounding_box_stop_time)
      .def_readwrite("clean_indentations", &DemSettings::clean_indentations)
      .def_readwrite("remove_embedded", &DemSettings::remove_embedded)
      .def_readwrite("remove_touching_walls", &DemSettings::remove_touching_walls)
      .def_readwrite("kratos_wall_slider", &DemSettings::kratos_wall_slider,
                     "wall contacts split the Coulomb cap as Kratos does (the spring keeps "
                     "its elastic part, the dashpot fills the cap); default false: the "
                     "force and the spring capped along their sum (thesis 2.37)")
      .def_readwrite("continuum", &DemSettings::continuum,
                     "Kratos' continuum_sphere_strategy: bonds (KDEM) between the spheres of one "
                     "COHESIVE_GROUP whose gap is at most search_tolerance at the start")
      .def_readwrite("tuning", &DemSettings::tuning,
                     "Tuning switches (DemTuning): reference paths for the equality tests")
      .def_readwrite("walls_moved_by_processes", &DemSettings::walls_moved_by_processes)
      .def_readwrite("area_distributed_walls", &DemSettings::area_distributed_walls)
      .def_readwrite("adm_energy_gradient", &DemSettings::adm_energy_gradient,
                     "ADM: the skin contacts' forces on the sphere and the faces' vertices as "
                     "gradients of one stored energy (strategies/adm_energy_gradient.cpp)")
      .def_readwrite("dimension", &DemSettings::dimension,
                     "3: spheres; 2: discs in the x-y plane (CylinderParticle2D)");
  DefTuningAlias<bool, &DemTuning::batched_pair_contacts>(settings, "batched_pair_contacts");
  DefTuningAlias<bool, &DemTuning::eight_lane_pair_contacts>(settings, "eight_lane_pair_contacts");
  DefTuningAlias<bool, &DemTuning::quad_row_updates>(settings, "quad_row_updates");
  DefTuningAlias<int, &DemTuning::sort_rows_frequency>(settings, "sort_rows_frequency");
  DefTuningAlias<std::size_t, &DemTuning::sort_rows_minimum>(settings, "sort_rows_minimum");
  DefTuningAlias<std::size_t, &DemTuning::force_block_rows>(settings, "force_block_rows");
  DefTuningAlias<bool, &DemTuning::share_rows_with_nodes>(settings, "share_rows_with_nodes");
  DefNamedChoice<&DemSettings::hertz_damping, HertzDampingMapName, HertzDampingMapFromName>(
      settings, "hertz_damping_map",
      "\"exact\" (default) or \"thornton_fit\" (Kratos' fitted Hertz damping)");
  DefNamedChoice<&DemSettings::wall_force_transfer, WallForceTransferName,
                 WallForceTransferFromName>(
      settings, "wall_force_transfer",
      "\"direct\" (default: shape functions at the contact point) or \"area_distributed\" "
      "(the Area Distributed Method, walls/area_distribution.h)");
  DefNamedChoice<&DemSettings::global_damping_form, GlobalDampingFormName,
                 GlobalDampingFormFromName>(
      settings, "global_damping_form",
      "\"vector\" (default, thesis 5.18) or \"per_component\" (Kratos)");
  DefNamedChoice<&DemSettings::linear_stiffness, LinearStiffnessName, LinearStiffnessFromName>(
      settings, "linear_stiffness",
      "\"thesis\" (default, k_n = 2 E* R) or \"kratos\" (Kratos' linear k_n)");
  DefNamedChoice<&DemSettings::bond_stiffness, BondStiffnessName, BondStiffnessFromName>(
      settings, "bond_stiffness",
      "\"thesis\" (default, k_n = E A / L) or \"kratos\" (Kratos' DEM_KDEM springs)");
  DefNamedChoice<&DemSettings::bond_area_correction, BondAreaCorrectionName,
                 BondAreaCorrectionFromName>(
      settings, "bond_area_correction",
      "\"kratos\" (default), \"vpac\" (thesis §5.3), \"global\" (α = 40 P / N_c) or \"none\"");
  DefNamedChoice<&DemSettings::bond_lever_arms, BondLeverArmsName, BondLeverArmsFromName>(
      settings, "bond_lever_arms",
      "\"centres\" (default, the contact point on the line of centres) or \"kratos\" "
      "(Kratos' continuum particle: torques about R - s (L - d))");
  DefNamedChoice<&DemSettings::broken_bonds, BrokenBondsName, BrokenBondsFromName>(
      settings, "broken_bonds",
      "\"frictional\" (default, a frictional contact with the bond's stiffness) or \"kratos\" "
      "(Kratos' DEM_Dempack: the shear force kept, turned, after a tension failure)");
  DefNamedChoice<&DemSettings::bond_damage, BondDamageName, BondDamageFromName>(
      settings, "bond_damage",
      "\"kratos\" (default, Kratos' DEM_Dempack: (1 - D) ℱ past the strength) or \"thesis\" "
      "(the thesis' (5.23-5.24) as printed: (1 - d) k u)");
  settings.def_readwrite("bond_area_porosity", &DemSettings::bond_area_porosity,
                         "P of the global bond area correction (thesis 5.6)");

  py::class_<TimeStepEstimate>(m, "TimeStepEstimate")
      .def_readonly("critical_time_step", &TimeStepEstimate::critical_time_step)
      .def_readonly("contact_time", &TimeStepEstimate::contact_time)
      .def_readonly("contact_time_pair", &TimeStepEstimate::contact_time_pair)
      .def_readonly("reference_speed", &TimeStepEstimate::reference_speed);

  py::class_<ExplicitSolverStrategy>(m, "ExplicitSolverStrategy",
                                     "The DEM explicit step over particle and wall rows")
      .def(py::init([](ModelPart& spheres, ModelPart* walls, const DemSettings& settings) {
             return std::make_unique<ExplicitSolverStrategy>(spheres, walls, settings);
           }),
           py::arg("spheres"), py::arg("walls"), py::arg("settings"), py::keep_alive<1, 2>(),
           py::keep_alive<1, 3>())
      .def("SetClusterModelPart", &ExplicitSolverStrategy::SetClusterModelPart, py::arg("clusters"),
           py::keep_alive<1, 2>(),
           "The Cluster3D model part (ClusterPart), before Initialize: its clusters' spheres are "
           "created in the spheres model part and move as rigid bodies")
      .def("SetParticleMaterialOrder", &ExplicitSolverStrategy::SetParticleMaterialOrder,
           py::arg("properties_ids"),
           "Before Initialize, in a distributed start from pieces: the particle materials "
           "numbered in this order (ParticleMaterialOrder), as the serial run numbers them")
      .def("Initialize", &ExplicitSolverStrategy::Initialize)
      .def(
          "Clusters", [](const ExplicitSolverStrategy& s) { return ClusterList(s.Clusters()); },
          "The rigid clusters, in cluster model part order: element_id, mass, inertia (principal, "
          "body frame), centre, velocity, angular_velocity, angular_momentum (world), "
          "displacement, orientation (w, x, y, z), force and torque (about the centre) of the "
          "last evaluation, first_row and row_count of the member rows, member_offset (body "
          "frame)")
      .def(
          "Bonds",
          [](const ExplicitSolverStrategy& s) {
            const ContinuumBonds& b = s.Bonds();
            const ParticleStorage& p = s.Particles();
            py::list out;
            for (std::size_t k = 0; k < b.size(); ++k) {
              py::dict d;
              d["elements"] = py::make_tuple(p.element_id[b.first[k]], p.element_id[b.second[k]]);
              d["rows"] = py::make_tuple(b.first[k], b.second[k]);
              d["state"] = static_cast<int>(b.state[k]);
              d["opened"] = static_cast<bool>(b.opened[k]);
              d["rest_length"] = b.constants[k].rest_length;
              d["area"] = b.constants[k].area;
              d["normal_stiffness"] = b.constants[k].normal_stiffness;
              d["tangential_stiffness"] = b.constants[k].tangential_stiffness;
              d["bending_stiffness"] = b.constants[k].bending_stiffness;
              d["twisting_stiffness"] = b.constants[k].twisting_stiffness;
              d["normal_damping"] = b.constants[k].normal_damping;
              d["tangential_damping"] = b.constants[k].tangential_damping;
              d["normal_force"] = b.normal_force[k];
              d["shear_force"] = b.shear_force[k];
              d["moment"] = b.moment[k];
              d["sigma"] = b.Sigma(k);
              d["tau"] = b.Tau(k);
              out.append(d);
            }
            return out;
          },
          "The bonds of the continuum strategy, sorted by row pair: elements (ids), rows, state "
          "(0 intact, 2 broken in shear, 4 broken in tension: Kratos' failure ids), opened "
          "(a broken bond whose spheres parted: BrokenBonds), "
          "rest_length, area, the stiffnesses and dashpots, and of the last evaluation the "
          "normal force (compression positive), shear_force and moment on the first sphere, "
          "sigma = F_n / A and tau = |F_t| / A")
      .def(
          "BondArrays",
          [](const ExplicitSolverStrategy& s) {
            const ContinuumBonds& b = s.Bonds();
            py::dict d;
            d["first"] = Rows(b.first);
            d["second"] = Rows(b.second);
            d["state"] = Rows(b.state);
            d["opened"] = Rows(b.opened);
            d["normal_force"] = Rows(b.normal_force);
            py::array_t<double> sigma(static_cast<py::ssize_t>(b.size()));
            py::array_t<double> tau(static_cast<py::ssize_t>(b.size()));
            for (std::size_t k = 0; k < b.size(); ++k) {
              sigma.mutable_data()[k] = b.Sigma(k);
              tau.mutable_data()[k] = b.Tau(k);
            }
            d["sigma"] = sigma;
            d["tau"] = tau;
            d["failure_criterion"] = Rows(b.failure_criterion);
            py::array_t<double> area(static_cast<py::ssize_t>(b.size()));
            py::array_t<double> length(static_cast<py::ssize_t>(b.size()));
            py::array_t<double> direction({static_cast<py::ssize_t>(b.size()), py::ssize_t{3}});
            for (std::size_t k = 0; k < b.size(); ++k) {
              area.mutable_data()[k] = b.constants[k].area;
              length.mutable_data()[k] = b.constants[k].rest_length;
              for (int c = 0; c < 3; ++c) direction.mutable_data()[3 * k + c] = b.direction[k][c];
            }
            d["area"] = area;
            d["rest_length"] = length;
            d["direction"] = direction;
            return d;
          },
          "The bonds as arrays (for output): first and second (rows), state, opened (1 once a "
          "broken bond's spheres parted: BrokenBonds), normal_force, sigma, "
          "tau, failure_criterion (thesis 5.44), area, rest_length, direction (first to second, of "
          "the last evaluation or the creation); see Bonds()")
      .def("NumberOfBonds", [](const ExplicitSolverStrategy& s) { return s.Bonds().size(); })
      .def("NumberOfIntactBonds",
           [](const ExplicitSolverStrategy& s) { return s.Bonds().NumberIntact(); })
      .def("SolveSolutionStep", &ExplicitSolverStrategy::SolveSolutionStep, py::arg("time"),
           py::call_guard<py::gil_scoped_release>())
      .def("ReadFromNodes", &ExplicitSolverStrategy::ReadFromNodes)
      .def("WriteToNodes", &ExplicitSolverStrategy::WriteToNodes)
      .def("EstimateTimeStep", &ExplicitSolverStrategy::EstimateTimeStep,
           py::arg("reference_speed"))
      .def("MaximumSpeed", &ExplicitSolverStrategy::MaximumSpeed)
      .def("KineticEnergy", &ExplicitSolverStrategy::KineticEnergy)
      .def("ContactElasticEnergy", &ExplicitSolverStrategy::ContactElasticEnergy)
      .def(
          "GetEnergies",
          [](const ExplicitSolverStrategy& s) { return TotalsDict(s.Energies(), kEnergyTerms); },
          "Energies (J): kinetic, gravitational potential, elastic and, with "
          "DemSettings.energy_calculation, dissipated since Initialize(); 'total' is their sum")
      .def(
          "GetTimings",
          [](const ExplicitSolverStrategy& s) { return TermsDict(s.Timings(), kPhaseTerms); },
          "Wall-clock seconds per phase of the step (wall_motion, search_particles, search_walls, "
          "forces, integration, energy, node_sync) since Initialize() or ResetTimings()")
      .def("ResetTimings", &ExplicitSolverStrategy::ResetTimings)
      .def(
          "GetMemoryReport",
          [](const ExplicitSolverStrategy& s) { return TotalsDict(s.HeldMemory(), kMemoryTerms); },
          "Bytes the strategy's arrays hold (capacity), by part: rows, pair_contacts, "
          "wall_contacts, search, scratch, other; 'total' is their sum. The model part's nodes "
          "and elements are not counted")
      .def("NumberOfParticleContacts", &ExplicitSolverStrategy::NumberOfParticleContacts)
      .def("RelativeDisplacementIsVelocityStep",
           &ExplicitSolverStrategy::RelativeDisplacementIsVelocityStep,
           "Whether the next pair forces take the relative displacement as relative velocity "
           "times the time step (Velocity Verlet; Symplectic Euler when every row's increments "
           "are its velocities times the step) instead of the spheres' increments")
      .def("NumberOfWallContacts", &ExplicitSolverStrategy::NumberOfWallContacts)
      .def("NumberOfParticlePairCandidates",
           &ExplicitSolverStrategy::NumberOfParticlePairCandidates)
      .def("StepCount", &ExplicitSolverStrategy::StepCount)
      .def("WallDisplacementSinceSearch", &ExplicitSolverStrategy::WallDisplacementSinceSearch,
           "The adaptive search's largest wall vertex displacement since the last search")
      .def("NumberOfSearches", &ExplicitSolverStrategy::NumberOfSearches,
           "Neighbour searches since Initialize(), its own included")
      .def("NumberOfEarlySearches", &ExplicitSolverStrategy::NumberOfEarlySearches,
           "Of those, the searches the adaptive search made before NeighbourSearchFrequency "
           "steps had passed (spheres or walls had moved too far since the last one)")
      .def(
          "ParticlePairCandidates",
          [](const ExplicitSolverStrategy& s) {
            return py::make_tuple(Rows(s.PairFirst()), Rows(s.PairSecond()));
          },
          "(first, second) row indices of the candidate pairs of the last search")
      .def(
          "WallCandidates",
          [](const ExplicitSolverStrategy& s) {
            return py::make_tuple(Rows(s.WallCandidateParticle()), Rows(s.WallCandidateFace()));
          },
          "(particle row, face row) of the particle-face candidates of the last search")
      .def("SetDeltaTime", &ExplicitSolverStrategy::SetDeltaTime)
      .def(
          "GetSettings", [](const ExplicitSolverStrategy& s) { return s.Settings(); },
          "A copy of the strategy's DemSettings")
      .def_property_readonly(
          "Particles", [](ExplicitSolverStrategy& s) -> ParticleStorage& { return s.Particles(); },
          py::return_value_policy::reference_internal)
      .def("NumberOfFaces", [](const ExplicitSolverStrategy& s) { return s.Faces().size(); })
      .def(
          "FreeWalls",
          [](const ExplicitSolverStrategy& s) {
            py::list bodies;
            for (const FreeRigidWall& b : s.FreeWalls()) {
              py::dict d;
              d["part"] = b.part;
              d["mass"] = b.mass;
              d["inertia"] = b.inertia;
              d["centre"] = b.centre;
              d["velocity"] = b.velocity;
              d["angular_velocity"] = b.angular_velocity;
              d["angular_momentum"] = b.angular_momentum;
              d["rotation"] = Rows(std::vector<Array3>(b.rotation.begin(), b.rotation.end()));
              d["contact_force"] = b.contact_force;
              d["contact_moment"] = b.contact_moment;
              bodies.append(d);
            }
            return bodies;
          },
          "The FREE_BODY_MOTION walls: part, mass, inertia (principal), centre, velocity, "
          "angular_velocity, angular_momentum, rotation (body to world, 3 x 3), contact_force "
          "and contact_moment (about the centre) of the last force evaluation")
      .def(
          "GluedParticles",
          [](const ExplicitSolverStrategy& s) {
            const GluedParticles& glued = s.Glued();
            const ParticleStorage& p = s.Particles();
            py::list out;
            for (std::size_t g = 0; g < glued.size(); ++g) {
              const std::uint32_t row = glued.row[g];
              py::dict d;
              d["row"] = row;
              d["element_id"] = p.element_id[row];
              d["wall"] = glued.walls[p.glued[row] - 1].part;
              d["reference"] = glued.reference[g];
              out.append(d);
            }
            return out;
          },
          "The particles glued to sticky (IS_STICKY) walls at Initialize, in row order: row, "
          "element_id, wall (full name of the sticky sub model part) and reference (the centre "
          "when it was glued)")
      .def(
          "PairParameters",
          [](const ExplicitSolverStrategy& s, int a, int b) {
            const PairParameters& p = s.Materials().Pair(a, b);
            py::dict d;
            d["defined"] = p.defined;
            d["law"] = std::string(ContactLawName(p.law));
            d["effective_young"] = p.effective_young;
            d["effective_shear"] = p.effective_shear;
            d["damping_ratio"] = p.damping_ratio;
            d["restitution"] = p.restitution;
            d["static_friction"] = p.static_friction;
            d["dynamic_friction"] = p.dynamic_friction;
            return d;
          },
          py::arg("a"), py::arg("b"), "The contact parameters of material indices a and b");
}

void BindInlets(py::module_& m) {
  py::class_<InletRadiusTable>(
      m, "InletRadiusTable", "A radius table of dem_inlets_settings (discrete or piecewise_linear)")
      .def(py::init<>())
      .def_readwrite("values", &InletRadiusTable::values)
      .def_readwrite("weights", &InletRadiusTable::weights)
      .def_readwrite("use_seed", &InletRadiusTable::use_seed)
      .def_readwrite("seed", &InletRadiusTable::seed);
  m.def("LargestInletRadius", &LargestInletRadius, py::arg("inlets"),
        py::arg("tables") = std::map<std::string, InletRadiusTable>{},
        "The largest radius the inlets (sub model parts of `inlets`) inject, from their "
        "SubModelPartData alone");

  py::class_<ParticleInlets>(m, "ParticleInlets",
                             "Kratos' DEM inlets (the sub model parts of DEMInletPart)")
      .def(py::init([](ModelPart& inlets, ExplicitSolverStrategy& strategy, std::uint64_t seed,
                       const std::map<std::string, InletRadiusTable>& tables) {
             return std::make_unique<ParticleInlets>(inlets, strategy, seed, tables);
           }),
           py::arg("inlets"), py::arg("strategy"), py::arg("seed") = 42,
           py::arg("tables") = std::map<std::string, InletRadiusTable>{}, py::keep_alive<1, 2>(),
           py::keep_alive<1, 3>(),
           "Reads the inlets (before strategy.Initialize(): it registers their materials)")
      .def("NumberAfter", &ParticleInlets::NumberAfter, py::arg("node_id"), py::arg("element_id"),
           "The injected spheres' ids after these too (a distributed start from pieces: the "
           "whole file's largest ids)")
      .def("SkipIdsOfInitialSpheres", &ParticleInlets::SkipIdsOfInitialSpheres,
           "After strategy.Initialize(): the injected spheres skip the ids of the spheres "
           "it made (the rigid clusters' members)")
      .def("SkipIdsOfClusterMembers", &ParticleInlets::SkipIdsOfClusterMembers,
           py::arg("first_node"), py::arg("first_element"), py::arg("count"),
           "After strategy.Initialize() in a start from pieces with clusters: the injected "
           "spheres skip the ids of every cluster's members (SpheresPiece)")
      .def("Inject", &ParticleInlets::Inject, py::arg("time"),
           "Injects what is due after the step that ended at `time`")
      .def("MaximumSpeed", &ParticleInlets::MaximumSpeed)
      .def("__len__", &ParticleInlets::size)
      .def("Name", &ParticleInlets::Name, py::arg("i"))
      .def("InjectedCount", &ParticleInlets::InjectedCount, py::arg("i"))
      .def("InjectedMass", &ParticleInlets::InjectedMass, py::arg("i"));
}

}  // namespace

namespace tessera::dem {
// Non-smooth contact dynamics (nonsmooth/python/nonsmooth_bindings.cpp).
void BindNonsmooth(py::module_& m);
// Restart checkpoints (io/python/checkpoint_bindings.cpp).
void BindCheckpoint(py::module_& m);
// Distributed runs (parallel/python/distributed_bindings.cpp).
void BindDistributed(py::module_& m);
}  // namespace tessera::dem

PYBIND11_MODULE(_dem, m) {
  // The kernel module must be loaded first: it owns the Python types (Element,
  // Condition, variables) that this application's objects are returned as.
  py::module_::import("tessera._tessera");
  tessera::dem::RegisterDemApplication();
  m.doc() = "Discrete elements: spheres, bonded spheres, clusters and rigid walls";
  BindParticleStorage(m);
  BindContactLaws(m);
  BindStrategy(m);
  BindInlets(m);
  tessera::dem::BindNonsmooth(m);
  tessera::dem::BindCheckpoint(m);
  tessera::dem::BindDistributed(m);
}
