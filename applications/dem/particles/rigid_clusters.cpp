// Rigid sphere clusters: set-up from Cluster3D elements and rigid-body motion
// (see rigid_clusters.h).
#include "applications/dem/particles/rigid_clusters.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "applications/dem/dem_variables.h"
#include "applications/dem/elements/spheric_particle.h"
#include "applications/dem/particles/cluster_geometry.h"
#include "applications/dem/particles/particle_storage.h"
#include "applications/dem/utilities/parallel_rows.h"
#include "kernel/core/error.h"
#include "kernel/core/flags.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/model/model_part.h"

namespace tessera::dem {
namespace {

template <class T>
void CompactVector(std::vector<T>& v, const std::vector<std::uint8_t>& keep) {
  std::size_t out = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!keep[i]) continue;
    if (out != i) v[out] = std::move(v[i]);  // never a self-move (it empties a vector)
    ++out;
  }
  v.resize(out);
}

// q + h k, componentwise.
Quaternion Plus(const Quaternion& q, double h, const Quaternion& k) {
  return {q.w + h * k.w, q.x + h * k.x, q.y + h * k.y, q.z + h * k.z};
}

Quaternion Normalised(const Quaternion& q) {
  const double n = q.Norm();
  return {q.w / n, q.x / n, q.y / n, q.z / n};
}

Array3 Scale(const Array3& a, const Array3& b) { return {a[0] * b[0], a[1] * b[1], a[2] * b[2]}; }

}  // namespace

template <class F>
void RigidClusters::ForEachColumn(F f) {
  f(element_id), f(node);
  for (auto* v : {&centre, &velocity, &angular_velocity, &angular_momentum, &displacement, &inertia,
                  &force, &torque, &delta_rotation})
    f(*v);
  f(orientation), f(mass), f(first_row), f(row_count), f(first_member_element), f(member_offset);
}

void RigidClusters::Compact(const std::vector<std::uint8_t>& keep) {
  ForEachColumn([&keep](auto& column) { CompactVector(column, keep); });
}

void RemoveClusters(ModelPart& cluster_part, RigidClusters& clusters, ParticleStorage& particles,
                    const std::vector<std::uint8_t>& keep_cluster) {
  for (std::size_t k = 0; k < clusters.size(); ++k) {
    if (keep_cluster[k]) continue;
    cluster_part.GetElement(clusters.element_id[k]).Set(TO_ERASE, true);
    Node(&cluster_part.Nodal(), clusters.node[k]).Set(TO_ERASE, true);
  }
  cluster_part.RemoveElementsFlagged(TO_ERASE);
  cluster_part.RemoveNodesFlagged(TO_ERASE);
  clusters.Compact(keep_cluster);
  std::size_t k = 0;
  for (Element& element : cluster_part.Elements()) {
    clusters.node[k] = element.GetGeometry().NodeIndex(0);
    for (std::uint32_t m = 0; m < clusters.row_count[k]; ++m)
      particles.cluster[clusters.first_row[k] + m] = static_cast<std::uint32_t>(k + 1);
    ++k;
  }
}

Array3 ClusterAngularVelocity(const Quaternion& q, const Array3& inertia, const Array3& momentum) {
  // R^T L are the body components of L (q* rotates world -> body).
  const Array3 l_body = q.Conjugate().Rotate(momentum);
  return q.Rotate(Array3{l_body[0] / inertia[0], l_body[1] / inertia[1], l_body[2] / inertia[2]});
}

void CreateClusterSpheresAfterIds(ModelPart& clusters, ModelPart& spheres,
                                  std::initializer_list<ModelPart*> parts, int dimension,
                                  RigidClusters& out) {
  IdType node_id = 0, element_id = 0;
  for (ModelPart* part : parts) {
    if (part == nullptr) continue;
    for (auto&& node : part->Nodes()) node_id = std::max(node_id, node.Id());
    for (const Element& element : part->Elements()) element_id = std::max(element_id, element.Id());
    for (const Condition& condition : part->Conditions())
      element_id = std::max(element_id, condition.Id());
  }
  CreateClusterSpheres(clusters, spheres, node_id + 1, element_id + 1, dimension, out);
}

namespace {

// The Cluster3D element (checked) and its geometry (its .clu file read into
// `files` once).
std::pair<const Cluster*, const ClusterGeometry*> ClusterAndGeometry(
    const Element& element, const ModelPart& clusters,
    std::map<std::string, ClusterGeometry>& files) {
  const auto* cluster = dynamic_cast<const Cluster*>(&element);
  if (cluster == nullptr)
    TESSERA_ERROR(element.Info(), " in ", clusters.FullName(),
                  " is not a Cluster3D; the cluster model part holds Cluster3D elements only");
  cluster->Check(clusters.GetProcessInfo());
  const Properties& properties = cluster->GetProperties();
  const std::string& file = properties.GetValue(CLUSTER_FILE_NAME);
  auto found = files.find(file);
  if (found == files.end()) {
    try {
      found = files.emplace(file, ReadClusterFile(file)).first;
    } catch (const Error& error) {
      TESSERA_ERROR(cluster->Info(), " (CLUSTER_FILE_NAME of properties ", properties.Id(),
                    "): ", error.what());
    }
  }
  return {cluster, &found->second};
}

// The members' placement (Kratos' Cluster3D, the module text): one
// arithmetic for the strategy's spheres and a distributed start's pieces.
ClusterMemberSpheres PlaceMembers(const Cluster& cluster, const ClusterGeometry& g) {
  const double scale = cluster.CharacteristicLength() / g.size;
  const Quaternion q = cluster.Orientation();
  const Array3 centre = cluster.GetGeometry()[0].Coordinates();
  ClusterMemberSpheres members;
  for (std::size_t m = 0; m < g.radii.size(); ++m) {
    const Array3 offset = scale * g.centres[m];
    const Array3 arm = q.Rotate(offset);
    members.offsets.push_back(offset);
    members.arms.push_back(arm);
    members.centres.push_back(centre + arm);
    members.radii.push_back(scale * g.radii[m]);
    members.reach = std::max(members.reach, Norm(offset));
  }
  return members;
}

}  // namespace

ClusterMemberSpheres MembersOfCluster(const Element& element, const ModelPart& clusters,
                                      std::map<std::string, ClusterGeometry>& files) {
  const auto [cluster, geometry] = ClusterAndGeometry(element, clusters, files);
  return PlaceMembers(*cluster, *geometry);
}

void CreateClusterSpheres(ModelPart& clusters, ModelPart& spheres, IdType first_node_id,
                          IdType first_element_id, int dimension, RigidClusters& out,
                          const ClusterMemberIds* given) {
  out = RigidClusters{};
  if (clusters.NumberOfElements() == 0) return;
  if (dimension != 3)
    TESSERA_ERROR("clusters (Cluster3D, in ", clusters.FullName(),
                  ") need a 3D run (\"Dimension\": 3)");
  if (given != nullptr && (given->first_node.size() != clusters.NumberOfElements() ||
                           given->first_element.size() != clusters.NumberOfElements()))
    TESSERA_ERROR("CreateClusterSpheres: ", given->first_node.size(), " and ",
                  given->first_element.size(), " first member ids for the ",
                  clusters.NumberOfElements(), " clusters of ", clusters.FullName());
  std::map<std::string, ClusterGeometry> files;  // each .clu read once
  NodalDatabase& db = clusters.Nodal();
  const bool has_velocity = db.HasHistoricalVariable(VELOCITY);
  const bool has_spin = db.HasHistoricalVariable(ANGULAR_VELOCITY);
  IdType node_id = first_node_id, element_id = first_element_id;
  std::size_t index = 0;
  for (Element& element : clusters.Elements()) {
    const auto [cluster, geometry] = ClusterAndGeometry(element, clusters, files);
    if (given != nullptr)
      node_id = given->first_node[index], element_id = given->first_element[index];
    ++index;
    const Properties::Pointer properties = cluster->GetPropertiesPointer();
    const ClusterGeometry& g = *geometry;
    const double scale = cluster->CharacteristicLength() / g.size;
    const Quaternion q = cluster->Orientation();
    const Node centre_node = cluster->GetGeometry()[0];
    const Array3 centre = centre_node.Coordinates();
    const double mass = properties->GetValue(PARTICLE_DENSITY) * g.volume * scale * scale * scale;
    const Array3 inertia = (mass * scale * scale) * g.inertia_per_unit_mass;
    const Array3 v = has_velocity ? centre_node.FastGetSolutionStepValue(VELOCITY) : Array3{};
    const Array3 w = has_spin ? centre_node.FastGetSolutionStepValue(ANGULAR_VELOCITY) : Array3{};

    out.element_id.push_back(cluster->Id());
    out.node.push_back(centre_node.Index());
    out.centre.push_back(centre);
    out.velocity.push_back(v);
    out.angular_velocity.push_back(w);
    // L = R I R^T ω.
    out.angular_momentum.push_back(q.Rotate(Scale(inertia, q.Conjugate().Rotate(w))));
    out.displacement.push_back(centre - centre_node.InitialCoordinates());
    out.orientation.push_back(q);
    out.mass.push_back(mass);
    out.inertia.push_back(inertia);
    out.force.push_back({});
    out.torque.push_back({});
    out.delta_rotation.push_back({});
    out.first_row.push_back(0);
    out.row_count.push_back(static_cast<std::uint32_t>(g.radii.size()));
    out.first_member_element.push_back(element_id);
    std::vector<Array3>& offsets = out.member_offset.emplace_back();

    if (!spheres.HasProperties(properties->Id())) spheres.AddProperties(properties);
    const ClusterMemberSpheres members = PlaceMembers(*cluster, g);
    for (std::size_t m = 0; m < g.radii.size(); ++m) {
      offsets.push_back(members.offsets[m]);
      const Array3& x = members.centres[m];
      Node node = spheres.CreateNewNode(node_id, x[0], x[1], x[2]);
      node.FastGetSolutionStepValue(RADIUS) = members.radii[m];
      node.FastGetSolutionStepValue(VELOCITY) = v + Cross(w, members.arms[m]);
      node.FastGetSolutionStepValue(ANGULAR_VELOCITY) = w;
      AddParticleVelocityDofs(node);
      const IdType ids[1] = {node_id};
      spheres.CreateNewElement("SphericParticle3D", element_id, ids, properties);
      ++node_id, ++element_id;
    }
  }
}

void AttachClusterRows(RigidClusters& clusters, ParticleStorage& particles) {
  std::unordered_map<IdType, std::uint32_t> row_of;
  row_of.reserve(particles.size());
  for (std::size_t i = 0; i < particles.size(); ++i)
    row_of.emplace(particles.element_id[i], static_cast<std::uint32_t>(i));
  for (std::size_t k = 0; k < clusters.size(); ++k) {
    const auto first = row_of.find(clusters.first_member_element[k]);
    if (first == row_of.end())
      TESSERA_ERROR("Cluster3D element ", clusters.element_id[k],
                    ": its member spheres are not in the spheres model part any more");
    clusters.first_row[k] = first->second;
    const double smallest =
        std::min({clusters.inertia[k][0], clusters.inertia[k][1], clusters.inertia[k][2]});
    for (std::uint32_t m = 0; m < clusters.row_count[k]; ++m) {
      const std::uint32_t row = first->second + m;
      if (row >= particles.size() ||
          particles.element_id[row] != clusters.first_member_element[k] + m)
        TESSERA_ERROR("Cluster3D element ", clusters.element_id[k],
                      ": its member spheres are not consecutive rows (elements were added to the "
                      "spheres model part between them)");
      particles.cluster[row] = static_cast<std::uint32_t>(k + 1);
      particles.mass[row] = clusters.mass[k];
      particles.inertia[row] = smallest;
    }
  }
}

void GatherClusterLoads(RigidClusters& clusters, const ParticleStorage& p, const Array3& gravity,
                        const PeriodicBox& periodic) {
  ParallelRows(clusters.size(), [&](std::size_t k) {
    Array3 force = clusters.mass[k] * gravity, torque{};
    const Array3 centre = clusters.centre[k];
    const std::uint32_t end = clusters.first_row[k] + clusters.row_count[k];
    for (std::uint32_t i = clusters.first_row[k]; i < end; ++i) {
      // The row's torque holds its contact torques about its own centre and
      // its applied moment; its force moves to the cluster centre with r x F.
      const Array3 f =
          p.external_force.empty() ? p.contact_force[i] : p.contact_force[i] + p.external_force[i];
      force += f;
      const Array3 arm =
          periodic.active ? periodic.Nearest(p.position[i] - centre) : p.position[i] - centre;
      torque += p.torque[i] + Cross(arm, f);
    }
    clusters.force[k] = force;
    clusters.torque[k] = torque;
  });
}

void KickClusters(RigidClusters& c, double h, bool rotation) {
  ParallelRows(c.size(), [&](std::size_t k) {
    c.velocity[k] += (h / c.mass[k]) * c.force[k];
    if (!rotation) return;
    c.angular_momentum[k] += h * c.torque[k];
    c.angular_velocity[k] =
        ClusterAngularVelocity(c.orientation[k], c.inertia[k], c.angular_momentum[k]);
  });
}

void DriftClusters(RigidClusters& c, double dt, bool rotation) {
  ParallelRows(c.size(), [&](std::size_t k) {
    const Array3 dx = dt * c.velocity[k];
    c.centre[k] += dx;
    c.displacement[k] += dx;
    if (!rotation) {
      c.delta_rotation[k] = Array3{};
      return;
    }
    // Classical RK-4 on q' = 1/2 [0, ω(q)] q with L fixed over the step, in
    // the quaternion space, then normalised (see rigid_clusters.h for why not
    // the thesis' composed increments).
    const Quaternion qn = c.orientation[k];
    const Array3& inertia = c.inertia[k];
    const Array3& momentum = c.angular_momentum[k];
    Array3 w[4];
    auto rate = [&](const Quaternion& q, Array3& spin) {
      spin = ClusterAngularVelocity(Normalised(q), inertia, momentum);
      return Quaternion{0.0, 0.5 * spin[0], 0.5 * spin[1], 0.5 * spin[2]} * q;
    };
    const Quaternion k1 = rate(qn, w[0]);
    const Quaternion k2 = rate(Plus(qn, 0.5 * dt, k1), w[1]);
    const Quaternion k3 = rate(Plus(qn, 0.5 * dt, k2), w[2]);
    const Quaternion k4 = rate(Plus(qn, dt, k3), w[3]);
    Quaternion q = qn;
    for (const auto& [weight, slope] : {std::pair{1.0, k1}, {2.0, k2}, {2.0, k3}, {1.0, k4}})
      q = Plus(q, weight * dt / 6.0, slope);
    c.orientation[k] = Normalised(q);
    c.angular_velocity[k] = ClusterAngularVelocity(c.orientation[k], inertia, momentum);
    // The step's rotation vector, for the contacts' tangential displacement.
    const Array3 turn = (dt / 6.0) * (w[0] + 2.0 * w[1] + 2.0 * w[2] + w[3]);
    c.delta_rotation[k] = turn;
  });
}

void PlaceClusterMembers(const RigidClusters& c, ParticleStorage& p, bool positions,
                         const PeriodicBox& periodic) {
  ParallelRows(c.size(), [&](std::size_t k) {
    const Array3 centre = c.centre[k], v = c.velocity[k], w = c.angular_velocity[k];
    const Quaternion q = c.orientation[k];
    for (std::uint32_t m = 0; m < c.row_count[k]; ++m) {
      const std::uint32_t i = c.first_row[k] + m;
      const Array3 arm = q.Rotate(c.member_offset[k][m]);
      if (positions) {
        const Array3 x = centre + arm;
        const Array3 dx = periodic.active ? periodic.Nearest(x - p.position[i]) : x - p.position[i];
        p.position[i] = x;
        p.displacement[i] += dx;
        p.delta_displacement[i] = dx;
        p.delta_rotation[i] = c.delta_rotation[k];
        p.rotation_angle[i] += c.delta_rotation[k];
      }
      p.velocity[i] = v + Cross(w, arm);
      p.angular_velocity[i] = w;
    }
  });
}

void WriteClustersToNodes(const RigidClusters& c, ModelPart& cluster_part) {
  NodalDatabase& db = cluster_part.Nodal();
  auto column = [&db](const auto& variable) {
    using T = typename std::remove_cvref_t<decltype(variable)>::ValueType;
    return db.HasHistoricalVariable(variable) ? db.HistoricalColumn(variable).Data()
                                              : static_cast<T*>(nullptr);
  };
  Array3* velocity = column(VELOCITY);
  Array3* spin = column(ANGULAR_VELOCITY);
  Array3* displacement = column(DISPLACEMENT);
  Array3* force = column(TOTAL_FORCES);
  Array3* moment = column(PARTICLE_MOMENT);
  Quaternion* orientation = column(ORIENTATION);
  for (std::size_t k = 0; k < c.size(); ++k) {
    const IndexType n = c.node[k];
    db.Coordinates(n) = c.centre[k];
    if (velocity) velocity[n] = c.velocity[k];
    if (spin) spin[n] = c.angular_velocity[k];
    if (displacement) displacement[n] = c.displacement[k];
    if (force) force[n] = c.force[k];
    if (moment) moment[n] = c.torque[k];
    if (orientation) orientation[n] = c.orientation[k];
  }
}

bool ReadClustersFromNodes(RigidClusters& c, ModelPart& cluster_part) {
  NodalDatabase& db = cluster_part.Nodal();
  const Array3* velocity =
      db.HasHistoricalVariable(VELOCITY) ? db.HistoricalColumn(VELOCITY).Data() : nullptr;
  const Array3* spin = db.HasHistoricalVariable(ANGULAR_VELOCITY)
                           ? db.HistoricalColumn(ANGULAR_VELOCITY).Data()
                           : nullptr;
  bool changed = false;
  for (std::size_t k = 0; k < c.size(); ++k) {
    const IndexType n = c.node[k];
    if (velocity && velocity[n] != c.velocity[k]) c.velocity[k] = velocity[n], changed = true;
    if (spin && spin[n] != c.angular_velocity[k]) {
      // The new ω with the body's inertia: L = R I R^T ω.
      const Quaternion q = c.orientation[k];
      c.angular_velocity[k] = spin[n];
      c.angular_momentum[k] = q.Rotate(Scale(c.inertia[k], q.Conjugate().Rotate(spin[n])));
      changed = true;
    }
  }
  return changed;
}

}  // namespace tessera::dem
