// Glued particles on sticky walls (see glued_particles.h).
#include "applications/dem/walls/glued_particles.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "applications/dem/dem_variables.h"
#include "applications/dem/particles/particle_storage.h"
#include "applications/dem/walls/free_rigid_wall.h"
#include "applications/dem/walls/imposed_wall_motion.h"
#include "applications/dem/walls/rigid_face_storage.h"
#include "kernel/core/error.h"
#include "kernel/model/model_part.h"

namespace tessera::dem {
namespace {

bool Flag(ModelPart& part, const Variable<bool>& variable) {
  return part.Has(variable) && part.GetValue(variable);
}

void Collect(ModelPart& part, std::vector<ModelPart*>& sticky) {
  for (ModelPart* child : part.SubModelParts()) Collect(*child, sticky);
  if (Flag(part, IS_STICKY)) sticky.push_back(&part);
}

}  // namespace

void GluedParticles::Renumber(const std::vector<std::uint32_t>& new_index) {
  std::size_t out = 0;
  for (std::size_t g = 0; g < row.size(); ++g) {
    const std::uint32_t r = new_index[row[g]];
    if (r >= new_index.size()) continue;
    row[out] = r;
    reference[out] = reference[g];
    ++out;
  }
  row.resize(out);
  reference.resize(out);
  // A reordering of the rows (the strategy's spatial sort) is not monotonic.
  if (std::is_sorted(row.begin(), row.end())) return;
  std::vector<std::uint32_t> order(row.size());
  for (std::size_t g = 0; g < order.size(); ++g) order[g] = static_cast<std::uint32_t>(g);
  std::sort(order.begin(), order.end(),
            [this](std::uint32_t a, std::uint32_t b) { return row[a] < row[b]; });
  std::vector<std::uint32_t> sorted_row(order.size());
  std::vector<Array3> sorted_reference(order.size());
  for (std::size_t g = 0; g < order.size(); ++g) {
    sorted_row[g] = row[order[g]];
    sorted_reference[g] = reference[order[g]];
  }
  row.swap(sorted_row);
  reference.swap(sorted_reference);
}

std::vector<StickyWall> ReadStickyWalls(ModelPart& walls,
                                        const std::vector<ImposedWallMotion>& motions,
                                        const std::vector<FreeRigidWall>& free_walls) {
  std::vector<ModelPart*> parts;
  Collect(walls, parts);
  if (parts.empty()) return {};
  // Who moves each node: an imposed motion (index), a free body (-2 - index), nobody (-1).
  std::unordered_map<IndexType, int> mover;
  for (std::size_t m = 0; m < motions.size(); ++m)
    for (IndexType node : motions[m].nodes) mover[node] = static_cast<int>(m);
  for (std::size_t b = 0; b < free_walls.size(); ++b)
    for (IndexType node : free_walls[b].nodes) mover[node] = -2 - static_cast<int>(b);
  std::vector<StickyWall> sticky;
  for (ModelPart* part : parts) {
    StickyWall wall;
    wall.part = part->FullName();
    if (Flag(*part, FREE_BODY_MOTION))
      TESSERA_ERROR("wall sub model part ", wall.part,
                    ": IS_STICKY on a FREE_BODY_MOTION wall is not supported (particles glue to "
                    "fixed walls and to walls with an imposed RIGID_BODY_MOTION only)");
    for (std::size_t m = 0; m < motions.size(); ++m)
      if (motions[m].part == wall.part) wall.motion = static_cast<int>(m);
    for (auto&& node : part->Nodes()) {
      const auto it = mover.find(node.Index());
      const int by = it == mover.end() ? -1 : it->second;
      if (by == wall.motion) continue;
      const std::string other = by >= 0    ? "the imposed motion of " + motions[by].part
                                : by <= -2 ? "the free rigid body " + free_walls[-2 - by].part
                                           : std::string("nothing");
      TESSERA_ERROR("wall sub model part ", wall.part, " (IS_STICKY 1): its node ", node.Id(),
                    " is moved by ", other, ", not by the part's own ",
                    wall.motion >= 0 ? "imposed motion" : "(fixed) position",
                    "; glued particles follow the motion of the sticky part itself (set IS_STICKY "
                    "on the part that carries RIGID_BODY_MOTION)");
    }
    for (auto&& condition : part->Conditions()) wall.conditions.push_back(condition.Id());
    sticky.push_back(std::move(wall));
  }
  return sticky;
}

std::vector<int> StickyWallOfFaces(const std::vector<StickyWall>& sticky,
                                   const RigidFaceStorage& faces) {
  std::vector<int> face_sticky(faces.size(), -1);
  if (sticky.empty()) return face_sticky;
  std::unordered_map<IdType, std::size_t> row_of;
  for (std::size_t f = 0; f < faces.size(); ++f) row_of.emplace(faces.condition_id[f], f);
  for (std::size_t s = 0; s < sticky.size(); ++s)
    for (IdType id : sticky[s].conditions) {
      const auto it = row_of.find(id);
      if (it != row_of.end() && face_sticky[it->second] < 0)
        face_sticky[it->second] = static_cast<int>(s);
    }
  return face_sticky;
}

void GlueTouchingParticles(const RigidFaceStorage& faces, const std::vector<int>& face_sticky,
                           const std::vector<std::uint32_t>& candidate_particle,
                           const std::vector<std::uint32_t>& candidate_face,
                           ParticleStorage& particles, GluedParticles& glued) {
  glued.row.clear();
  glued.reference.clear();
  const std::size_t n = particles.size();
  particles.glued.assign(n, 0);
  if (glued.walls.empty()) return;
  std::vector<double> nearest(n, std::numeric_limits<double>::infinity());
  for (std::size_t c = 0; c < candidate_particle.size(); ++c) {
    const std::uint32_t i = candidate_particle[c], f = candidate_face[c];
    const int wall = face_sticky[f];
    if (wall < 0) continue;
    FaceContactGeometry g;
    FaceContact(faces, f, particles.position[i], particles.radius[i], g);
    if (g.type == FaceContactType::kNone || !(g.distance < nearest[i])) continue;
    nearest[i] = g.distance;
    particles.glued[i] = static_cast<std::uint32_t>(wall) + 1;
  }
  for (std::size_t i = 0; i < n; ++i)
    if (particles.glued[i] != 0) {
      glued.row.push_back(static_cast<std::uint32_t>(i));
      glued.reference.push_back(particles.position[i]);
    }
}

void MoveGluedParticles(const GluedParticles& glued, const std::vector<ImposedWallMotion>& motions,
                        double previous_time, double time, ParticleStorage& p,
                        bool velocities_only) {
  // Wall by wall, so that each motion's state is evaluated once per step (there
  // are few sticky walls and many glued particles).
  for (std::size_t w = 0; w < glued.walls.size(); ++w) {
    const std::uint32_t tag = static_cast<std::uint32_t>(w) + 1;
    const int motion = glued.walls[w].motion;
    if (motion < 0) {  // a fixed sticky wall holds its particles at rest
      for (std::size_t g = 0; g < glued.size(); ++g) {
        const std::size_t i = glued.row[g];
        if (p.glued[i] != tag) continue;
        p.velocity[i] = p.angular_velocity[i] = Array3{};
        p.delta_displacement[i] = p.delta_rotation[i] = Array3{};
      }
      continue;
    }
    const ImposedWallMotion& m = motions[static_cast<std::size_t>(motion)];
    const ImposedMotionState now = ImposedMotionAt(m, time);
    // The imposed rotation has a fixed axis, so the step's rotation increment
    // is the difference of the rotation vectors.
    const Array3 dtheta = now.theta - ImposedMotionAt(m, previous_time).theta;
    for (std::size_t g = 0; g < glued.size(); ++g) {
      const std::size_t i = glued.row[g];
      if (p.glued[i] != tag) continue;
      const Array3 arm = RotateByVector(now.theta, glued.reference[g] - m.rotation_center);
      if (!velocities_only) {
        const Array3 x = now.centre + arm;
        const Array3 dx = x - p.position[i];
        p.position[i] = x;
        p.displacement[i] += dx;
        p.delta_displacement[i] = dx;
        p.delta_rotation[i] = dtheta;
        p.rotation_angle[i] += dtheta;
      }
      p.velocity[i] = now.velocity + Cross(now.angular_velocity, arm);
      p.angular_velocity[i] = now.angular_velocity;
    }
  }
}

}  // namespace tessera::dem
