// ParticleInlets: Kratos' DEM inlets (the sub model parts of DEMInletPart, read
// from <problem_name>DEM_Inlet.mdpa) injecting spheres into a running strategy.
//
// Each sub model part is one inlet; its SubModelPartData says what to inject
// (docs/file_formats.md "DEM inlets" lists the keys) and its nodes are the
// injection points. After each step ending at time t, for every inlet with
// INLET_START_TIME <= t <= INLET_STOP_TIME (inlets in order of their names):
//   - how many: with INLET_NUMBER_OF_PARTICLES n (per second) the inlet has
//     injected floor(n (t - start) + 1e-6) particles in all by time t (the 1e-6
//     absorbs the round-off of summed time steps); with IMPOSED_MASS_FLOW_OPTION
//     it injects, one particle at a time, while its injected mass is below
//     MASS_FLOW (t - start). A particle that finds no free point waits for the
//     next step (the totals catch up: the rate holds on average), but not
//     beyond INLET_STOP_TIME;
//   - where: the points in a random order, each used at most once per step; a
//     point is free when the new sphere overlaps no particle (existing ones and
//     those injected earlier in this step); an occupied point is skipped;
//   - what: a radius from the inlet's distribution (drawn once per particle,
//     kept until the particle is placed, so that skipped points do not bias the
//     sizes), the velocity VELOCITY plus a random component perpendicular to it,
//     uniform over the disc of radius |VELOCITY| tan(MAX_RAND_DEVIATION_ANGLE):
//     the direction lies within that angle of VELOCITY and the speed along it is
//     |VELOCITY|; no spin; the inlet's Properties (PROPERTIES_ID) and ELEMENT_TYPE.
// The new spheres become nodes and elements of the spheres model part and rows
// of the strategy (ExplicitSolverStrategy::InsertParticles, which adds their
// candidate pairs and wall faces to the contact lists).
//
// Differences from Kratos: no injector "ghost" spheres (the spheres part holds
// only real particles); an injected particle is free at once instead of moving
// with a fixed velocity until it clears the injector; the mass-flow option
// keeps VELOCITY instead of rescaling it; a particle that found no free point
// is injected later instead of being dropped. Moving inlets (RIGID_BODY_MOTION)
// and clusters are not supported yet (an error says so).
//
// Random numbers: one seed (ProjectParametersDEM "seed") gives each inlet its
// own streams (inlet_random.h), so results are the same for any thread count.
//
// Distributed runs (parallel/distributed_dem.h): every rank runs the same
// injection (same streams, same ids); InletHooks give the overlap test the
// spheres of all ranks near the inlets and let each rank keep the new spheres
// it owns or holds as ghosts.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "applications/dem/inlets/inlet_random.h"
#include "kernel/core/array3.h"
#include "kernel/core/types.h"
#include "kernel/model/properties.h"

namespace tessera {
class ModelPart;
}

namespace tessera::dem {

class ExplicitSolverStrategy;
struct InletsCheckpointAccess;  // io/dem_checkpoint.cpp

// A radius table of dem_inlets_settings.<inlet>.random_variable_settings
// (possible_values / relative_frequencies, or pdf_breakpoints / pdf_values).
struct InletRadiusTable {
  std::vector<double> values, weights;
  bool use_seed = false;  // do_use_seed: draw the radii from `seed` instead of the global one
  std::int64_t seed = 0;
};

// The radius distribution of one inlet (sub model part of DEMInletPart, its
// SubModelPartData; `tables` the discrete and piecewise-linear ones by name):
// an error naming the part where a key is missing or out of range.
RadiusDistribution ReadInletRadius(const ModelPart& part,
                                   const std::map<std::string, InletRadiusTable>& tables);
// The largest radius any inlet of `inlets` injects (0 without inlets):
// what a distributed start from pieces needs before the inlets exist.
double LargestInletRadius(ModelPart& inlets, const std::map<std::string, InletRadiusTable>& tables);

struct NewParticle;

// Set by a distributed run; unset (serial) Inject works on the strategy's rows.
struct InletHooks {
  // The spheres of every rank within `reach` of the box [low, high] of the
  // due inlets' points, where reach = largest_new + max(largest radius of any
  // sphere, largest_new); returns that reach. Collective: all ranks call it.
  std::function<double(const Array3& low, const Array3& high, double largest_new,
                       std::vector<Array3>& centres, std::vector<double>& radii)>
      gather;
  // Adds the spheres of one injection (all ranks get the same list).
  std::function<void(const std::vector<NewParticle>&)> insert;
};

class ParticleInlets {
 public:
  // Reads and checks every sub model part of `inlets` (errors name the part
  // and the key) and registers the inlets' materials with `strategy`, which
  // must not be initialised yet. `tables` holds the radius tables of the
  // inlets with a discrete or piecewise_linear distribution, by sub model part name.
  ParticleInlets(ModelPart& inlets, ExplicitSolverStrategy& strategy, std::uint64_t seed,
                 const std::map<std::string, InletRadiusTable>& tables = {});

  // After strategy.Initialize(), which makes the rigid clusters' member
  // spheres with ids after every id read (rigid_clusters.h): the injected
  // spheres skip the node and element ids the spheres' model part holds then
  // from the first injected id on (those would be defined twice). Without
  // clusters it holds none there, and the ids stay those of the constructor.
  void SkipIdsOfInitialSpheres();
  // The same from a distributed start from pieces with clusters, whose
  // spheres' model part holds its clusters' members only: the members of
  // every cluster have node ids first_node.. and element ids first_element..
  // (`count` of each, SpheresPiece).
  void SkipIdsOfClusterMembers(IdType first_node, IdType first_element, std::int64_t count);
  // The injected spheres' ids after these too: a distributed start from
  // pieces, whose spheres' model part holds a piece, gives the whole file's.
  void NumberAfter(IdType node_id, IdType element_id);
  // Injects what is due after the step that ended at `time` (see above).
  void Inject(double time);

  // The largest injection speed, |VELOCITY| / cos(MAX_RAND_DEVIATION_ANGLE).
  double MaximumSpeed() const;
  // The largest radius any inlet may inject (0 without inlets).
  double LargestRadius() const;
  // The inlets' materials, in inlet order.
  std::vector<Properties::Pointer> Materials() const;
  void SetHooks(InletHooks hooks) { hooks_ = std::move(hooks); }
  std::size_t size() const { return inlets_.size(); }
  const std::string& Name(std::size_t i) const { return inlets_[i].name; }
  std::size_t InjectedCount(std::size_t i) const { return inlets_[i].injected_count; }
  double InjectedMass(std::size_t i) const { return inlets_[i].injected_mass; }

 private:
  // Saves and restores the inlets' counters and random generators.
  friend struct InletsCheckpointAccess;
  struct Inlet {
    std::string name;  // full name, for messages
    std::vector<Array3> points;
    Properties::Pointer properties;
    std::string element_type;
    double density = 0.0;
    Array3 velocity{};
    double deviation_angle = 0.0;  // radians
    bool imposed_mass_flow = false;
    double particles_per_second = 0.0, mass_flow = 0.0;
    double start_time = 0.0, stop_time = 0.0;
    RadiusDistribution radius;
    InletRandom placement, sizes;
    // State: totals, and the radius drawn for a particle not placed yet (0: none).
    std::size_t injected_count = 0;
    double injected_mass = 0.0;
    double pending_radius = 0.0;
    std::vector<std::uint32_t> order;  // scratch: the points in this step's order
  };

  Inlet ReadInlet(ModelPart& part, std::uint64_t seed, std::size_t number,
                  const std::map<std::string, InletRadiusTable>& tables) const;
  Array3 DeviatedVelocity(Inlet& inlet);

  ModelPart& inlets_part_;
  ExplicitSolverStrategy& strategy_;
  std::vector<Inlet> inlets_;
  IdType next_node_id_ = 1, next_element_id_ = 1;
  // Ids not to inject (SkipIdsOfInitialSpheres), ascending; the same on every
  // rank of a distributed run (taken before Start, where each holds every sphere).
  std::vector<IdType> taken_node_ids_, taken_element_ids_;
  InletHooks hooks_;
};

}  // namespace tessera::dem
