// RigidClusters: Cluster3D elements (rigid clusters of spheres) as rows of
// arrays, their member spheres and their rigid-body motion.
//
// Set-up (Kratos' Cluster3D): the cluster node carries CHARACTERISTIC_LENGTH L
// and ORIENTATION q (unit quaternion w, x, y, z, body -> world); its material
// names a .clu file (cluster_geometry.h). With s = L / Size, every sphere of
// the file becomes a SphericParticle3D element of the spheres model part (a new
// node, radius s r, centre X + q (s c) q*); the cluster's mass is
// M = PARTICLE_DENSITY * Volume * s^3 and its principal inertia
// I = M * (inertia per unit mass) * s^2 about the body axes.
//
// The members are rows of ParticleStorage (ParticleStorage::cluster = k + 1)
// that the contact loops treat as spheres of mass M (the body's translational
// inertia enters the contact damping); they are never integrated: every step
//   F = sum F_i + M g,   T = sum (T_i + r_i x F_i),   r_i = x_i - X   (thesis 2.72)
// moves the cluster, and the members are placed rigidly, x_i = X + q R_i q*,
// v_i = V + ω x r_i, ω_i = ω. Members of one cluster never touch each other.
//
// Motion (Quaternion_Integration, thesis §2.7.3): the world angular momentum L
// is the rotational state (2.92). A kick adds T h to L (and F h / M to V); a
// drift moves X by V dt and turns q with L fixed, solving
//   q' = 1/2 [0, ω(q)] q,   ω(q) = R(q) I^-1 R(q)^T L   (2.93, R of 2.80)
// with classical RK-4 in quaternion space, then normalising q. This integrates
// Euler's equations T = I ω̇ + ω x I ω in the body frame (2.88-2.90): L is exactly
// conserved without torque, a spin about a principal axis stays there, and the
// error is 4th order in dt (measured: body-frame ω error 1.4e-8, 9.5e-10,
// 6.2e-11 at dt 2e-3, 1e-3, 5e-4 s over 3 s of a generic spin). The thesis'
// composed form, q_{k+1} = q(ω_k, dt/2) q^n ... q^{n+1} = q(ω̄, dt) q^n
// (2.95-2.97), measured only 2nd order on the same test (5.0e-4, 1.2e-4,
// 3.1e-5): its mean ω misses the turn of the axis within the step.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "applications/dem/particles/cluster_geometry.h"
#include "applications/dem/utilities/periodic_box.h"
#include "kernel/core/array3.h"
#include "kernel/core/types.h"

namespace tessera {
class Element;
class ModelPart;
}  // namespace tessera

namespace tessera::dem {

struct ParticleStorage;

struct RigidClusters {
  std::vector<IdType> element_id;
  std::vector<IndexType> node;  // position of the centre node in the clusters' root database
  std::vector<Array3> centre, velocity, angular_velocity, angular_momentum, displacement;
  std::vector<Quaternion> orientation;  // body -> world
  std::vector<double> mass;
  std::vector<Array3> inertia;         // principal moments, body frame
  std::vector<Array3> force, torque;   // totals of the last force evaluation (torque about X)
  std::vector<Array3> delta_rotation;  // rotation vector of the last drift (ω̄ dt)
  std::vector<std::uint32_t> first_row, row_count;  // the member rows (consecutive)
  std::vector<IdType> first_member_element;         // the members' element ids (consecutive)
  std::vector<std::vector<Array3>> member_offset;   // member centres, body frame

  std::size_t size() const { return mass.size(); }
  bool empty() const { return mass.empty(); }
  // Keeps the clusters with keep[k] != 0, in order.
  void Compact(const std::vector<std::uint8_t>& keep);

 private:
  template <class F>
  void ForEachColumn(F f);
};

// The member spheres of one Cluster3D element (checked; its .clu file read
// into `files` once): body-frame offsets s c, world arms q (s c) q*, world
// centres X + arm and radii s r, and the largest |s c| (how far a member
// lies from the cluster's centre). CreateClusterSpheres places them so.
struct ClusterMemberSpheres {
  std::vector<Array3> offsets, arms, centres;
  std::vector<double> radii;
  double reach = 0.0;
};
ClusterMemberSpheres MembersOfCluster(const Element& element, const ModelPart& clusters,
                                      std::map<std::string, ClusterGeometry>& files);

// Per cluster of the model part, in its order, the first node and element id
// of its members (a distributed start from pieces holds some of the file's
// clusters, numbered as the serial run numbers them).
struct ClusterMemberIds {
  std::vector<IdType> first_node, first_element;
};

// Reads the Cluster3D elements of `clusters` (checked, .clu files read once
// each) and creates their member spheres in `spheres`: nodes numbered from
// `first_node_id`, elements from `first_element_id`, in cluster order (or
// from each cluster's `given` ids). Every member node gets RADIUS, VELOCITY,
// ANGULAR_VELOCITY and the six velocity dofs. The clusters' initial VELOCITY
// and ANGULAR_VELOCITY come from their nodes (historical values, when
// declared). Errors name the cluster element and the file. `dimension` must
// be 3.
void CreateClusterSpheres(ModelPart& clusters, ModelPart& spheres, IdType first_node_id,
                          IdType first_element_id, int dimension, RigidClusters& out,
                          const ClusterMemberIds* given = nullptr);

// CreateClusterSpheres with the members numbered after every node and
// element (or condition) id in use in `parts` (Kratos numbers them after the
// largest of all model parts); null parts are skipped.
void CreateClusterSpheresAfterIds(ModelPart& clusters, ModelPart& spheres,
                                  std::initializer_list<ModelPart*> parts, int dimension,
                                  RigidClusters& out);

// After FillParticles: the member rows of every cluster found (by element id),
// marked (ParticleStorage::cluster) and given the cluster's mass; their inertia
// column (used by the rolling resistance and the time-step estimate) the
// smallest principal moment.
void AttachClusterRows(RigidClusters& clusters, ParticleStorage& particles);

// Removes the clusters with keep_cluster[k] == 0 (their elements and centre
// nodes from cluster_part, their rows), once their members' rows are gone and
// the kept clusters' first_row renumbered; the kept clusters' node indices
// and their members' cluster numbers follow the compaction.
void RemoveClusters(ModelPart& cluster_part, RigidClusters& clusters, ParticleStorage& particles,
                    const std::vector<std::uint8_t>& keep_cluster);

// F and T of every cluster from its members' contact forces, applied loads and
// torques of the last evaluation, plus M g. Deterministic: member order. In a
// periodic domain the arms are taken to the nearest image of each member.
void GatherClusterLoads(RigidClusters& clusters, const ParticleStorage& particles,
                        const Array3& gravity, const PeriodicBox& periodic = PeriodicBox{});

// V += h F / M; with `rotation` L += h T and ω = ω(q, L).
void KickClusters(RigidClusters& clusters, double h, bool rotation);
// X += V dt; with `rotation` the RK-4 quaternion turn (see above).
void DriftClusters(RigidClusters& clusters, double dt, bool rotation);
// Members placed from the clusters' state: with `positions` their centres and
// the step's increments (delta_displacement, displacement, delta_rotation,
// rotation_angle), always their velocities and angular velocities. In a
// periodic domain a member's increment is taken from its wrapped position to
// the nearest image of its new one.
void PlaceClusterMembers(const RigidClusters& clusters, ParticleStorage& particles, bool positions,
                         const PeriodicBox& periodic = PeriodicBox{});

// ω of a body: R(q) I^-1 R(q)^T L.
Array3 ClusterAngularVelocity(const Quaternion& q, const Array3& inertia, const Array3& momentum);

// The clusters' state to their nodes: coordinates (the centre), and the
// historical VELOCITY, ANGULAR_VELOCITY, DISPLACEMENT, ORIENTATION,
// TOTAL_FORCES and PARTICLE_MOMENT where declared.
void WriteClustersToNodes(const RigidClusters& clusters, ModelPart& cluster_part);
// VELOCITY and ANGULAR_VELOCITY of the cluster nodes (historical, when
// declared): a value a process or script changed replaces the cluster's (L
// follows ω). Returns whether anything changed.
bool ReadClustersFromNodes(RigidClusters& clusters, ModelPart& cluster_part);

}  // namespace tessera::dem
