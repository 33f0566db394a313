// Python bindings of the non-smooth contact dynamics (tessera._dem):
// MoreauJeanSettings, MoreauJeanStrategy, the concurrent-impact solver and
// the time-of-impact functions. Called from dem_python_module.cpp.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "applications/dem/nonsmooth/cluster_impact_solver.h"
#include "applications/dem/nonsmooth/local_coulomb_solver.h"
#include "applications/dem/nonsmooth/moreau_jean_strategy.h"
#include "applications/dem/nonsmooth/time_of_impact.h"
#include "applications/dem/python/terms_dict.h"
#include "kernel/model/model_part.h"
#include "kernel/python/casters.h"

namespace py = pybind11;

namespace tessera::dem {

namespace {

using namespace nonsmooth;

py::dict StepDict(const MoreauJeanStepReport& s) {
  py::dict d;
  d["contacts"] = s.contacts;
  d["iterations"] = s.iterations;
  d["converged"] = s.converged;
  d["change"] = s.change;
  d["law_residual"] = s.law_residual;
  d["max_penetration"] = s.max_penetration;
  d["max_impulse"] = s.max_impulse;
  d["interface_contacts"] = s.interface_contacts;
  d["exchanges"] = s.exchanges;
  return d;
}

const char* StateName(ImpactState s) {
  switch (s) {
    case ImpactState::kStick:
      return "stick";
    case ImpactState::kSlip:
      return "slip";
    default:
      return "inactive";
  }
}

py::dict ResultDict(const ImpactResult& r) {
  py::dict d;
  d["velocity"] = r.velocity;
  d["angular_velocity"] = r.angular_velocity;
  py::list contacts;
  for (const auto& c : r.contacts) {
    py::dict e;
    e["normal_impulse"] = c.normal_impulse;
    e["tangential_impulse"] = c.tangential_impulse;
    e["normal"] = c.normal;
    e["tangent"] = c.tangent;
    e["state"] = StateName(c.state);
    e["normal_velocity_after"] = c.normal_velocity_after;
    contacts.append(e);
  }
  d["contacts"] = contacts;
  d["clusters"] = r.clusters;
  d["iterations"] = r.iterations;
  d["residual"] = r.residual;
  d["kinetic_energy_before"] = r.kinetic_energy_before;
  d["kinetic_energy_after"] = r.kinetic_energy_after;
  d["momentum_change"] = r.momentum_change;
  d["smallest_normal_impulse"] = r.smallest_normal_impulse;
  d["converged"] = r.converged;
  d["message"] = r.message;
  return d;
}

using Rows = py::array_t<double, py::array::c_style | py::array::forcecast>;

std::vector<Array3> ToArrays(const Rows& a, const char* name) {
  if (a.ndim() != 2 || a.shape(1) != 3)
    throw py::value_error(std::string("MoreauJeanStrategy.SetDeformableNodeState: ") + name +
                          " must be an n x 3 array");
  std::vector<Array3> out(static_cast<std::size_t>(a.shape(0)));
  const double* d = a.data();
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = {d[3 * k], d[3 * k + 1], d[3 * k + 2]};
  return out;
}

py::array_t<double> FromArrays(const std::vector<Array3>& v) {
  py::array_t<double> out({static_cast<py::ssize_t>(v.size()), py::ssize_t{3}});
  double* d = out.mutable_data();
  for (std::size_t k = 0; k < v.size(); ++k)
    for (int c = 0; c < 3; ++c) d[3 * k + c] = v[k][c];
  return out;
}

}  // namespace

// The clusters as a list of dicts (python/dem_python_module.cpp).
py::list ClusterList(const RigidClusters& clusters);

void BindNonsmooth(py::module_& m) {
  using namespace nonsmooth;
  py::class_<MoreauJeanSettings> s(m, "MoreauJeanSettings",
                                   "Settings of MoreauJeanStrategy (solver_settings."
                                   "moreau_jean_settings; docs/user_guide)");
  s.def(py::init<>());
  s.def_readwrite("theta", &MoreauJeanSettings::theta)
      .def_readwrite("activation", &MoreauJeanSettings::activation)
      .def_readwrite("sweep_order", &MoreauJeanSettings::sweep_order)
      .def_readwrite("relaxation", &MoreauJeanSettings::relaxation)
      .def_readwrite("warm_start", &MoreauJeanSettings::warm_start)
      .def_readwrite("tolerance", &MoreauJeanSettings::tolerance)
      .def_readwrite("max_iterations", &MoreauJeanSettings::max_iterations)
      .def_readwrite("tangential_restitution", &MoreauJeanSettings::tangential_restitution)
      .def_readwrite("seed", &MoreauJeanSettings::seed)
      .def_readwrite("sweeps_per_exchange", &MoreauJeanSettings::sweeps_per_exchange);

  py::class_<MoreauJeanStrategy>(m, "MoreauJeanStrategy",
                                 "Non-smooth contact dynamics (Moreau-Jean, NLGS) of the DEM "
                                 "spheres and rigid walls")
      .def(py::init([](ModelPart& spheres, ModelPart* walls, const DemSettings& settings,
                       const MoreauJeanSettings& nonsmooth) {
             return std::make_unique<MoreauJeanStrategy>(spheres, walls, settings, nonsmooth);
           }),
           py::arg("spheres"), py::arg("walls"), py::arg("settings"),
           py::arg("moreau_jean_settings") = MoreauJeanSettings{}, py::keep_alive<1, 2>(),
           py::keep_alive<1, 3>())
      .def("SetClusterModelPart", &MoreauJeanStrategy::SetClusterModelPart, py::arg("clusters"),
           py::keep_alive<1, 2>(),
           "The Cluster3D model part (ClusterPart), before Initialize: its clusters' spheres are "
           "created in the spheres model part and the clusters are rigid bodies of the contact "
           "problem")
      .def(
          "Clusters", [](const MoreauJeanStrategy& st) { return ClusterList(st.Clusters()); },
          "The rigid clusters as ExplicitSolverStrategy.Clusters gives them (force and torque: "
          "the last step's mean contact forces over the step, weight and applied loads)")
      .def("Initialize", &MoreauJeanStrategy::Initialize)
      .def("SetDeformableNodes", &MoreauJeanStrategy::SetDeformableNodes,
           py::arg("wall_node_positions"),
           "The positions in the walls' root nodal database of the nodes of deformable walls "
           "(the coupling's mirrors of the FE skin nodes), one slot each; after Initialize")
      .def(
          "SetDeformableNodeState",
          [](MoreauJeanStrategy& st, const Rows& inv_mass, const Rows& free_velocity,
             const Rows& start_velocity) {
            st.SetDeformableNodeState(ToArrays(inv_mass, "inv_mass"),
                                      ToArrays(free_velocity, "free_velocity"),
                                      ToArrays(start_velocity, "start_velocity"));
          },
          py::arg("inv_mass"), py::arg("free_velocity"), py::arg("start_velocity"),
          "Per deformable node (n x 3 arrays): inverse masses per component (0: fixed), the "
          "velocities that move it over the step without contact, and its start-of-step "
          "velocities (the impact law's U-); before each SolveSolutionStep")
      .def(
          "DeformableNodeImpulses",
          [](const MoreauJeanStrategy& st) { return FromArrays(st.DeformableNodeImpulses()); },
          "The last step's contact impulse on each deformable node (n x 3, N s)")
      .def("NumberOfDeformableNodes", &MoreauJeanStrategy::NumberOfDeformableNodes)
      .def("SolveSolutionStep", &MoreauJeanStrategy::SolveSolutionStep, py::arg("time"))
      .def("ReadFromNodes", &MoreauJeanStrategy::ReadFromNodes)
      .def("WriteToNodes", &MoreauJeanStrategy::WriteToNodes)
      .def("SetDeltaTime", &MoreauJeanStrategy::SetDeltaTime, py::arg("delta_time"))
      .def("DeltaTime", &MoreauJeanStrategy::DeltaTime)
      .def("MaximumSpeed", &MoreauJeanStrategy::MaximumSpeed)
      .def("StepCount", &MoreauJeanStrategy::StepCount)
      .def("NumberOfSearches", &MoreauJeanStrategy::NumberOfSearches)
      .def("NumberOfEarlySearches", [](const MoreauJeanStrategy&) { return std::size_t{0}; })
      .def(
          "LastStep", [](const MoreauJeanStrategy& st) { return StepDict(st.LastStep()); },
          "The last step's violation measures: contacts, iterations, converged, change, "
          "law_residual (m/s), max_penetration (m), max_impulse (N s), interface_contacts, "
          "exchanges")
      .def(
          "History",
          [](const MoreauJeanStrategy& st) {
            const auto& h = st.History();
            py::dict d;
            for (const char* key : {"contacts", "iterations", "law_residual", "max_penetration",
                                    "interface_contacts", "exchanges"}) {
              py::array_t<double> a(static_cast<py::ssize_t>(h.size()));
              auto* p = a.mutable_data();
              for (std::size_t k = 0; k < h.size(); ++k) {
                const std::string name = key;
                p[k] = name == "contacts"             ? static_cast<double>(h[k].contacts)
                       : name == "iterations"         ? h[k].iterations
                       : name == "law_residual"       ? h[k].law_residual
                       : name == "interface_contacts" ? static_cast<double>(h[k].interface_contacts)
                       : name == "exchanges"          ? h[k].exchanges
                                                      : h[k].max_penetration;
              }
              d[key] = a;
            }
            return d;
          },
          "Per step: contacts, iterations, law_residual, max_penetration, interface_contacts "
          "(distributed: exchanged after each sweep), exchanges (distributed: message rounds of "
          "the sweeps) (numpy arrays)")
      .def_property_readonly(
          "Particles", [](MoreauJeanStrategy& st) -> ParticleStorage& { return st.Particles(); },
          py::return_value_policy::reference_internal)
      .def(
          "ContactImpulses",
          [](const MoreauJeanStrategy& st) {
            const auto& c = st.Contacts();
            py::list out;
            for (std::size_t k = 0; k < c.size(); ++k) {
              py::dict d;
              d["i"] = st.ContactRowsI()[k];
              d["j"] = st.ContactRowsJ()[k];
              d["body_i"] = c.body_i[k];
              d["body_j"] = c.body_j[k];
              d["normal"] = c.frame[k].n;
              d["impulse"] = c.frame[k].ToWorld(c.impulse[k]);
              d["local_impulse"] = c.impulse[k];
              d["gap"] = c.gap[k];
              out.append(d);
            }
            return out;
          },
          "The last step's contacts: rows i, j (-1: a wall), bodies body_i, body_j (the row "
          "for a free sphere, rows + k for cluster k), normal, world and local impulses, gap")
      .def("KineticEnergy", &MoreauJeanStrategy::KineticEnergy)
      .def(
          "GetEnergies",
          [](const MoreauJeanStrategy& st) { return TotalsDict(st.Energies(), kEnergyTerms); },
          "Energies (J), the keys of ExplicitSolverStrategy.GetEnergies: kinetic, gravitational "
          "and, with DemSettings.energy_calculation, what the impulses dissipated since "
          "Initialize() (normal: dissipated_damping, tangential: dissipated_friction; no elastic "
          "energy); 'total' is their sum")
      .def("LinearMomentum", &MoreauJeanStrategy::LinearMomentum)
      .def("AngularMomentum", &MoreauJeanStrategy::AngularMomentum,
           py::arg("origin") = Array3{0.0, 0.0, 0.0});

  py::class_<ImpactBody>(m, "ImpactBody", "A sphere of the concurrent-impact solver")
      .def(py::init([](Array3 position, Array3 velocity, Array3 angular_velocity, double radius,
                       double mass, double inertia) {
             return ImpactBody{position, velocity, angular_velocity, radius, mass, inertia};
           }),
           py::arg("position"), py::arg("velocity"),
           py::arg("angular_velocity") = Array3{0.0, 0.0, 0.0}, py::arg("radius"), py::arg("mass"),
           py::arg("inertia"))
      .def_readwrite("position", &ImpactBody::position)
      .def_readwrite("velocity", &ImpactBody::velocity)
      .def_readwrite("angular_velocity", &ImpactBody::angular_velocity)
      .def_readwrite("radius", &ImpactBody::radius)
      .def_readwrite("mass", &ImpactBody::mass)
      .def_readwrite("inertia", &ImpactBody::inertia);
  py::class_<ImpactContact>(m, "ImpactContact",
                            "Contact (i, j) of the concurrent-impact solver; j = -1: a static "
                            "surface of unit normal `normal` towards sphere i")
      .def(py::init([](int i, int j, Array3 normal) {
             return ImpactContact{i, j, normal};
           }),
           py::arg("i"), py::arg("j"), py::arg("normal") = Array3{0.0, 0.0, 0.0})
      .def_readwrite("i", &ImpactContact::i)
      .def_readwrite("j", &ImpactContact::j)
      .def_readwrite("normal", &ImpactContact::normal);
  py::class_<ImpactMaterial>(m, "ImpactMaterial")
      .def(py::init([](double en, double et, double ms, double md) {
             return ImpactMaterial{en, et, ms, md};
           }),
           py::arg("normal_restitution") = 0.9, py::arg("tangential_restitution") = 0.9,
           py::arg("static_friction") = 0.15, py::arg("dynamic_friction") = 0.15);
  py::class_<ImpactOptions>(m, "ImpactOptions")
      .def(py::init<>())
      .def_readwrite("tolerance", &ImpactOptions::tolerance)
      .def_readwrite("max_iterations", &ImpactOptions::max_iterations)
      .def_readwrite("max_active_set_changes", &ImpactOptions::max_active_set_changes);
  m.def(
      "SolveConcurrentImpact",
      [](const std::vector<ImpactBody>& bodies, const std::vector<ImpactContact>& contacts,
         const ImpactMaterial& material, const ImpactOptions& options) {
        return ResultDict(SolveConcurrentImpact(bodies, contacts, material, options));
      },
      py::arg("bodies"), py::arg("contacts"), py::arg("material"),
      py::arg("options") = ImpactOptions{},
      "Post-collision velocities of hard spheres meeting at several contacts at once (thesis "
      "003 model, applications/dem/nonsmooth/cluster_impact_solver.h); returns a dict");
  m.def(
      "BinaryImpactClosedForm",
      [](const ImpactBody& a, const ImpactBody& b, const ImpactMaterial& material) {
        return ResultDict(BinaryImpactClosedForm(a, b, material));
      },
      py::arg("a"), py::arg("b"), py::arg("material"));
  m.def("TouchingPairs", &TouchingPairs, py::arg("bodies"), py::arg("tolerance"));
  m.def("PairTimeOfImpact", &PairTimeOfImpact, py::arg("xi"), py::arg("vi"), py::arg("ri"),
        py::arg("xj"), py::arg("vj"), py::arg("rj"));
  m.def("PlaneTimeOfImpact", &PlaneTimeOfImpact, py::arg("x"), py::arg("v"), py::arg("r"),
        py::arg("gravity"), py::arg("point"), py::arg("normal"));
  m.def("RefineTimeOfImpact", &RefineTimeOfImpact, py::arg("gap"), py::arg("rate"), py::arg("dt"),
        py::arg("tolerance"), py::arg("max_iterations") = 100);
  m.def(
      "SolveLocalCoulomb",
      [](const std::array<double, 9>& w, Array3 b, double mu) {
        const auto s = SolveLocalCoulomb(w, b, mu);
        return py::make_tuple(s.impulse, static_cast<int>(s.status));
      },
      py::arg("w"), py::arg("b"), py::arg("mu"),
      "The exact local contact solution: (P local, status 0 open / 1 stick / 2 slip)");
  m.def("LocalLawResidual", &LocalLawResidual, py::arg("w"), py::arg("b"), py::arg("mu"),
        py::arg("p"));
}

}  // namespace tessera::dem
