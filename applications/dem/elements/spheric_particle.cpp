// Checks of the DEM particle elements (their physics is the DEM strategy's).
#include "applications/dem/elements/spheric_particle.h"

#include <cmath>
#include <optional>
#include <variant>

#include "applications/dem/dem_variables.h"
#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/model/node.h"

namespace tessera::dem {
namespace {

// A nodal scalar as the DEM decks give it: the element's own data first (an
// ElementalData block or a generator), then the node's historical value (the
// mdpa NodalData of a stage that declared the variable), then its non-historical
// value. The first source holding a nonzero value wins, so a historical column a
// stage declared but left at zero does not hide a value set on the node; when all
// sources hold zero the zero is returned. std::nullopt: no source has it at all.
struct NodalScalar {
  double value;
  const char* source;
};

std::optional<NodalScalar> FindNodalScalar(const Entity& entity, const Variable<double>& variable) {
  std::optional<NodalScalar> found;
  auto consider = [&found](double value, const char* source) {
    if (!found || (found->value == 0.0 && value != 0.0)) found = NodalScalar{value, source};
  };
  if (entity.Has(variable)) consider(entity.GetValue(variable), "element data");
  const Geometry& geometry = entity.GetGeometry();
  if (geometry.size() == 1) {
    const Node node = geometry[0];
    NodalDatabase& db = node.Database();
    if (db.HasHistoricalVariable(variable))
      consider(node.GetSolutionStepValue(variable), "nodal historical value");
    if (db.HasNonHistorical(variable, node.Index()))
      consider(std::get<double>(db.GetNonHistorical(variable, node.Index())),
               "nodal non-historical value");
  }
  return found;
}

// Node ids of the entity's geometry, for messages.
std::string NodeIdOf(const Entity& entity) {
  const Geometry& geometry = entity.GetGeometry();
  return geometry.size() == 1 ? "node " + std::to_string(geometry[0].Id()) : "its node";
}

// `value` of `variable` must be > 0 (written so that NaN fails too).
void CheckPositive(const std::string& what, const Variable<double>& variable, double value,
                   const std::string& where) {
  if (!(value > 0.0))
    TESSERA_ERROR(what, ": ", variable.Name(), " must be > 0, got ", value, " (", where, ")");
}

void CheckOneNode(const Entity& entity, const std::string& what) {
  if (entity.GetGeometry().size() != 1)
    TESSERA_ERROR(what, " has ", entity.GetGeometry().size(),
                  " nodes; a DEM particle has exactly one (its centre)");
}

}  // namespace

void CheckParticleMaterial(const Entity& entity, const std::string& what) {
  if (!entity.HasProperties())
    TESSERA_ERROR(what,
                  " has no properties; assign a DEM material (MaterialsDEM.json or the "
                  "mdpa Properties block)");
  const Properties& properties = entity.GetProperties();
  const std::string where = "properties " + std::to_string(properties.Id());
  for (const Variable<double>* variable : {&PARTICLE_DENSITY, &YOUNG_MODULUS}) {
    if (!properties.Has(*variable))
      TESSERA_ERROR(what, ": ", where, " have no ", variable->Name(),
                    "; a DEM particle material needs PARTICLE_DENSITY, YOUNG_MODULUS and "
                    "POISSON_RATIO");
    CheckPositive(what, *variable, properties.GetValue(*variable), where);
  }
  if (!properties.Has(POISSON_RATIO))
    TESSERA_ERROR(what, ": ", where,
                  " have no POISSON_RATIO; a DEM particle material needs PARTICLE_DENSITY, "
                  "YOUNG_MODULUS and POISSON_RATIO");
  // 0.5 is admitted: the Hertz/Mindlin contact stiffnesses stay finite there
  // (they use 1 - nu^2 and 1 + nu, not the bulk modulus), and Kratos' cluster
  // test deck (dem3d_clusters) uses nu = 0.5 for its particles and walls.
  const double nu = properties.GetValue(POISSON_RATIO);
  if (!(nu >= 0.0 && nu <= 0.5))
    TESSERA_ERROR(what, ": POISSON_RATIO must be in [0, 0.5], got ", nu, " (", where, ")");
}

std::string SphericParticle::Info() const {
  return std::string(TypeName()) + " element " + std::to_string(Id());
}

double SphericParticle::Radius() const {
  const auto radius = FindNodalScalar(*this, RADIUS);
  return radius ? radius->value : 0.0;
}

int SphericParticle::Check(const ProcessInfo& info) const {
  Element::Check(info);
  const std::string what = Info();
  CheckOneNode(*this, what);
  const auto radius = FindNodalScalar(*this, RADIUS);
  if (!radius)
    TESSERA_ERROR(what, ": no RADIUS on ", NodeIdOf(*this),
                  " (give it in a NodalData RADIUS block, on the node or in the element data)");
  CheckPositive(what, RADIUS, radius->value, NodeIdOf(*this) + ", " + radius->source);
  CheckParticleMaterial(*this, what);
  return 0;
}

double Cluster::CharacteristicLength() const {
  const auto length = FindNodalScalar(*this, CHARACTERISTIC_LENGTH);
  return length ? length->value : 0.0;
}

Quaternion Cluster::Orientation() const {
  const Node node = GetGeometry()[0];
  NodalDatabase& db = node.Database();
  Quaternion q{};
  if (db.HasHistoricalVariable(ORIENTATION)) q = node.GetSolutionStepValue(ORIENTATION);
  if (q == Quaternion{} && db.HasNonHistorical(ORIENTATION, node.Index()))
    q = std::get<Quaternion>(db.GetNonHistorical(ORIENTATION, node.Index()));
  const double norm = q.Norm();
  if (!(norm > 0.0) || !std::isfinite(norm))
    TESSERA_ERROR(Info(), ": ORIENTATION of ", NodeIdOf(*this), " is ", q,
                  "; a unit quaternion (w, x, y, z) is needed");
  return {q.w / norm, q.x / norm, q.y / norm, q.z / norm};
}

std::string Cluster::Info() const { return "Cluster3D element " + std::to_string(Id()); }

int Cluster::Check(const ProcessInfo& info) const {
  Element::Check(info);
  const std::string what = Info();
  CheckOneNode(*this, what);
  const auto length = FindNodalScalar(*this, CHARACTERISTIC_LENGTH);
  if (!length)
    TESSERA_ERROR(what, ": no CHARACTERISTIC_LENGTH on ", NodeIdOf(*this),
                  " (the size the cluster's .clu geometry is scaled to)");
  CheckPositive(what, CHARACTERISTIC_LENGTH, length->value,
                NodeIdOf(*this) + ", " + length->source);
  CheckParticleMaterial(*this, what);
  const Properties& properties = GetProperties();
  if (properties.GetValue(CLUSTER_FILE_NAME).empty())
    TESSERA_ERROR(what, ": properties ", properties.Id(),
                  " have no CLUSTER_FILE_NAME (the .clu file with the cluster's spheres)");
  return 0;
}

}  // namespace tessera::dem
