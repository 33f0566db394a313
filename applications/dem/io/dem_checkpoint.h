// The DEM run's state in a restart checkpoint (layout in docs/file_formats.md,
// "Restart checkpoints"): what ExplicitSolverStrategy and ParticleInlets carry
// from one step to the next beyond the model parts, saved verbatim (every row
// column, the contact lists with their histories, the bonds with their laws'
// state, the walls', clusters' and glued particles' state, the search and
// sort counters, the energy sums; the inlets' counters and random
// generators), so that a continued run repeats the uninterrupted one bitwise;
// likewise the Moreau-Jean strategy's.
//
// Continuing: the deck is read and the strategy initialised as for a fresh
// run; then PrepareSpheresForCheckpoint makes the spheres' model part hold
// the saved spheres (inlets created some, the bounding box deleted some), the
// kernel loads the model parts (LoadModelPart) and LoadStrategyState
// overwrites the strategy's state. The strategy's members are listed once, in
// dem_checkpoint.cpp, for saving and loading alike: a new member that lives
// across steps is one more line there.
#pragma once

#include <string>

namespace tessera {
class CheckpointReader;
class CheckpointWriter;
}  // namespace tessera

namespace tessera::dem {

namespace nonsmooth {
class MoreauJeanStrategy;
}

class ExplicitSolverStrategy;
class ParticleInlets;

void SaveStrategyState(const ExplicitSolverStrategy& strategy, CheckpointWriter& writer,
                       const std::string& group);

// Before the model parts are loaded: deletes the spheres (elements and their
// nodes) the checkpoint does not hold and creates those it holds that are
// missing (inlet spheres), in the saved order, with the saved properties
// (those of the deck, or of an inlet); likewise the rigid clusters' elements
// and centre nodes (a rank of a distributed run holds clusters that arrived
// since the start); their values come with LoadModelPart.
// `inlets` may be null (no inlets).
void PrepareSpheresForCheckpoint(ExplicitSolverStrategy& strategy, const ParticleInlets* inlets,
                                 const CheckpointReader& reader, const std::string& group,
                                 const std::string& spheres_group);

// After the model parts are loaded: the strategy's state as saved.
void LoadStrategyState(ExplicitSolverStrategy& strategy, const CheckpointReader& reader,
                       const std::string& group);

// The Moreau-Jean strategy's state (rows, walls, clusters, the warm-start
// impulses, the step reports); its spheres are the deck's, so nothing is
// prepared before the model parts load.
void SaveMoreauJeanState(const nonsmooth::MoreauJeanStrategy& strategy, CheckpointWriter& writer,
                         const std::string& group);
void LoadMoreauJeanState(nonsmooth::MoreauJeanStrategy& strategy, const CheckpointReader& reader,
                         const std::string& group);

void SaveInletState(const ParticleInlets& inlets, CheckpointWriter& writer,
                    const std::string& group);
void LoadInletState(ParticleInlets& inlets, const CheckpointReader& reader,
                    const std::string& group);

}  // namespace tessera::dem
