"""Checkpoints of the coupled DE-FE stage (DemStructuresCouplingAnalysis): both
sides and the coupling's own state in one file, in the layout of a single
stage's checkpoint (docs/file_formats.md, "Restart checkpoints"):

* /ModelParts/<name>: every root model part of the shared model (the
  structure's, with its skin's load conditions, and the DEM's, with the skin
  walls' mirror nodes);
* /Deck/ProjectParameters, /Deck/DEMParameters, /Deck/CouplingParameters:
  the three decks, each compared with the continued run's (a checkpoint of
  other decks is refused, naming the key that differs);
* /Objects/Structure/... and /Objects/DEM/...: each stage's own state and that
  of its checkpointable objects (its solver, processes), as a single stage
  writes them;
* /Objects/Coupling/State: the coupled loop's time and step count, and the
  energy monitor's samples (and, under Moreau-Jean, the impact losses).

The skin walls carry nothing between steps beyond the nodal values of both
sides (the model parts); ADM's per-contact state is the DEM strategy's. The
sub-step count and the common time step come from the decks, as in the
uninterrupted run (checked against the saved ones).

Under MPI each rank writes its own file (checkpoint_<STEP>.rank<R>of<N>.h5,
tessera.checkpoint.RankFile) with its pieces of both sides: the structure's
METIS piece and the DEM's rows with the DistributedDem state; the replicated
skin is rebuilt from the decks as at a fresh start."""
import json

import tessera
from tessera import checkpoint as _checkpoint

STAGES = (("Structure", "structural_stage"), ("DEM", "dem_stage"))


def _DeckJsons(stage):
    return {"/Deck/ProjectParameters": stage.structural_stage.project_parameters.WriteJsonString(),
            "/Deck/DEMParameters": stage.dem_stage.project_parameters.WriteJsonString(),
            "/Deck/CouplingParameters": json.dumps(stage.options, sort_keys=True)}


def SaveCoupledCheckpoint(stage, path):
    writer = tessera.CheckpointWriter(path)
    writer.SetAttribute("stage", type(stage).__name__)
    writer.SetAttribute("time", float(stage.time))
    writer.SetAttribute("step", int(stage.step))
    rank, ranks = stage.structural_stage._Ranks()  # one file per rank under MPI
    writer.SetAttribute("rank", rank)
    writer.SetAttribute("ranks", ranks)
    for name, text in _DeckJsons(stage).items():
        writer.WriteString(name, text)
    for name in _checkpoint.RootModelPartNames(stage.model):
        tessera.SaveModelPart(stage.model[name], writer, f"/ModelParts/{name}")
    for label, attribute in STAGES:
        side = getattr(stage, attribute)
        writer.WriteString(f"/Objects/{label}/Stage/State", json.dumps(side._GetStageCheckpointState()))
        for name, obj in side._GetCheckpointables():
            _checkpoint.CheckpointableState(obj, writer, f"/Objects/{label}/{name}")
    writer.WriteString("/Objects/Coupling/State", json.dumps(_CouplingState(stage)))
    writer.Commit()
    return path


def _CouplingState(stage):
    state = {"time": stage.time, "step": stage.step, "substeps": stage.substeps,
             "delta_time": stage.delta_time}
    if stage.energy is not None:
        state["energy"] = {"rows": [list(row) for row in stage.energy.rows],
                           "damping_work": stage.energy.damping_work}
        if stage.nonsmooth:  # what the impulses took (Moreau-Jean)
            state["energy"]["impact_loss"] = stage.energy.impact_loss
    return state


def LoadCoupledCheckpoint(stage, path):
    """Replaces the state of the initialized coupled stage by the saved one."""
    reader = tessera.CheckpointReader(path)
    _checkpoint.CheckSavedStage(reader, path, type(stage).__name__)
    stage.structural_stage._CheckSavedRanks(reader, path)
    # Merged from another rank count's files (resized_checkpoint.py): the
    # run may go from distributed to serial or back.
    resized_from = stage.structural_stage._resized_from
    resized = ("parallel_type", "problem_data.parallel_type") if resized_from is not None else ()
    for name, text in _DeckJsons(stage).items():
        if not reader.Has(name):
            raise tessera.Error(f"checkpoint {path} has no {name}: it is not a coupled DE-FE checkpoint")
        _checkpoint.CheckSavedDeck(reader, path, name, text, "other decks", f" of {name}", resized)
    current_parts = _checkpoint.CheckSavedModelParts(reader, path, stage.model, "other decks")
    objects = []
    for label, attribute in STAGES:
        side = getattr(stage, attribute)
        saved = reader.List(f"/Objects/{label}")
        for name, obj in side._GetCheckpointables():
            if name not in saved:
                raise tessera.Error(f"checkpoint {path} holds no state for {label}/{name} (other decks "
                                    "or another set of processes?)")
            objects.append((side, f"/Objects/{label}/{name}", obj))
    if not reader.Has("/Objects/Coupling/State"):
        raise tessera.Error(f"checkpoint {path} has no /Objects/Coupling/State (the coupled loop's state)")
    coupling = json.loads(reader.ReadString("/Objects/Coupling/State"))
    for key in ("substeps", "delta_time"):
        if coupling[key] != getattr(stage, key):
            raise tessera.Error(f"checkpoint {path}: the coupled run there has {key} {coupling[key]!r}, this "
                                f"one {getattr(stage, key)!r} (other decks?)")
    for _, group, obj in objects:
        _checkpoint.PrepareCheckpointableState(obj, reader, group)
    for name in current_parts:
        tessera.LoadModelPart(stage.model[name], reader, f"/ModelParts/{name}")
    for label, attribute in STAGES:
        getattr(stage, attribute)._SetStageCheckpointState(
            json.loads(reader.ReadString(f"/Objects/{label}/Stage/State")))
    for _, group, obj in objects:
        _checkpoint.RestoreCheckpointableState(obj, reader, group)
    stage.time = coupling["time"]
    stage.step = coupling["step"]
    if stage.energy is not None:
        if "energy" not in coupling:
            raise tessera.Error(f"checkpoint {path} holds no energy monitor state (energy_output was off)")
        damping_work = coupling["energy"]["damping_work"]
        if resized_from is not None and stage.structural_stage._Ranks()[0] > 0:
            damping_work = 0.0  # the ranks' sum, counted on rank 0 (resized_checkpoint.py)
        stage.energy.Restore([tuple(row) for row in coupling["energy"]["rows"]], damping_work)
        if stage.nonsmooth:
            stage.energy.impact_loss = coupling["energy"]["impact_loss"]
