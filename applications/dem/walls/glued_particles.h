// Glued particles: sticky walls (IS_STICKY 1 in a wall sub model part's
// SubModelPartData, as in Kratos' DEM_FEM_boundary decks) glue the particles
// that touch one of their faces when the run starts. A glued particle is no
// longer integrated: it moves as a point rigidly attached to its wall, with
//   x(t) = c(t) + R(θ(t)) (x_g - c0),  v = V(t) + ω(t) × (x - c(t)),  ω_particle = ω(t),
// the wall's imposed rigid-body motion (imposed_wall_motion.h) applied to the
// centre x_g it had when it was glued; on a wall without imposed motion it stays
// where it is, at rest. Its contacts with the faces of its own wall are not
// evaluated (it is part of the wall); other particles still collide with it as
// with a moving obstacle. Particles added later (inlets) are never glued.
//
// Supported: sticky walls with RIGID_BODY_MOTION (an imposed velocity) and fixed
// walls. A sticky FREE_BODY_MOTION wall (free rigid body, or one moved by
// apply_kinematic_constraints_to_walls_process) is an error naming the part, as
// is a sticky part whose nodes are moved by the motion of another part.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernel/core/array3.h"
#include "kernel/core/types.h"

namespace tessera {
class ModelPart;
}

namespace tessera::dem {

struct ImposedWallMotion;
struct FreeRigidWall;
struct ParticleStorage;
struct RigidFaceStorage;

struct StickyWall {
  std::string part;  // full name of the sub model part, for messages and Python
  int motion = -1;   // its imposed motion (index into the motions), -1: it does not move
  std::vector<IdType> conditions;  // ids of its faces
};

struct GluedParticles {
  std::vector<StickyWall> walls;
  // Per glued particle, in increasing row order: its row and its centre when
  // it was glued (the wall's reference configuration). Its wall is
  // ParticleStorage::glued[row] - 1.
  std::vector<std::uint32_t> row;
  std::vector<Array3> reference;

  std::size_t size() const { return row.size(); }
  // After rows were removed or reordered: new_index[old row] is the new row,
  // or a value >= new_index.size() for a removed one.
  void Renumber(const std::vector<std::uint32_t>& new_index);
};

// The sticky sub model parts of `walls` (any depth, children before parents),
// each with the imposed motion of the same part or -1. Errors name the part: a
// FREE_BODY_MOTION sticky part, or one with a node moved by another part's
// imposed motion or by a free rigid wall.
std::vector<StickyWall> ReadStickyWalls(ModelPart& walls,
                                        const std::vector<ImposedWallMotion>& motions,
                                        const std::vector<FreeRigidWall>& free_walls);

// Per face row, the sticky wall whose sub model part holds its condition (the
// first in `sticky` order), or -1.
std::vector<int> StickyWallOfFaces(const std::vector<StickyWall>& sticky,
                                   const RigidFaceStorage& faces);

// Glues every particle that touches a sticky face (FaceContact: the face within
// its radius) among the particle-face candidate pairs of the search,
// (candidate_particle[c], candidate_face[c]). With a zero wall search tolerance
// the candidates overlap the face's box, so a sphere at exactly zero gap is not
// glued. A particle touching several sticky walls takes the one of the nearest
// face. Sets ParticleStorage::glued and fills `glued` (its `walls` must be set).
void GlueTouchingParticles(const RigidFaceStorage& faces, const std::vector<int>& face_sticky,
                           const std::vector<std::uint32_t>& candidate_particle,
                           const std::vector<std::uint32_t>& candidate_face,
                           ParticleStorage& particles, GluedParticles& glued);

// The glued particles at `time`: centre, velocity and angular velocity from
// their wall's motion; the step's increments (delta_displacement, and
// delta_rotation = θ(time) - θ(previous_time), the imposed rotation having a
// fixed axis) added to displacement and rotation_angle. With
// `velocities_only` (at the start of a run) the centres stay where they are.
void MoveGluedParticles(const GluedParticles& glued, const std::vector<ImposedWallMotion>& motions,
                        double previous_time, double time, ParticleStorage& particles,
                        bool velocities_only = false);

}  // namespace tessera::dem
