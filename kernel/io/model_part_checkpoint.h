// SaveModelPart / LoadModelPart: the complete state of a root model part in a
// checkpoint, under one group (layout in docs/file_formats.md, "Restart
// checkpoints").
//
// Saved: the nodes (ids in their layout order, current and initial
// coordinates, flags), every historical variable at every buffer step, every
// non-historical column with its set-mask, the degrees of freedom (presence,
// fixity, equation ids, reactions), the ProcessInfo with its previous steps,
// each element's and condition's flags, properties id, data container and
// internal state (Entity::SaveState: the laws' internal variables), the
// properties' data, and each sub model part's members and data.
//
// Loading goes into a model part built from the same deck (the restart reads
// the deck as a fresh run does, then overwrites its state): the nodes must be
// the same set of ids (their order is restored), and the elements and
// conditions the same ids; anything else is an error saying the checkpoint
// belongs to another deck. Every value is restored bitwise.
#pragma once

#include <string>

namespace tessera {

class CheckpointReader;
class CheckpointWriter;
class ModelPart;

void SaveModelPart(const ModelPart& model_part, CheckpointWriter& writer, const std::string& group);
void LoadModelPart(ModelPart& model_part, const CheckpointReader& reader, const std::string& group);

}  // namespace tessera
