"""A distributed coupled DE-FE checkpoint (explicit schemes) continued on
another number of ranks: the N rank files (checkpoint_<STEP>.rank<R>of<N>.h5,
coupled_checkpoint.py) merged into the checkpoint a serial coupled run would
have written at that step (MergeRankFiles), each side by its own merge on
its part of the file:

* the structure's root model part (its METIS pieces, with the skin's load
  conditions on the owners of the skin nodes): the structure's merge
  (structural resized_checkpoint.MergeModelParts; each node from its owner,
  /Objects/Structure/Solver/OwnedNodes), of which each rank of the
  continuing run loads the piece its fresh partition holds (PieceOfModel,
  LoadPiece below); the load conditions keep the serial run's ids (after
  the whole mesh's largest condition id, by skin node), so the pieces find
  theirs;
* the DEM's rows, contacts and model parts of spheres and clusters: the
  DEM's merge (dem resized_checkpoint.MergeDem under /Objects/DEM/Solver),
  loaded whole on every rank and decomposed as a fresh start does
  (DEMSolver.LoadCheckpoint);
* the coupling's state (/Objects/Coupling/State): time, step, sub-steps and
  step alike on every rank; the energy monitor's samples too (its terms are
  the ranks' sums, broadcast); its Rayleigh work, each rank's running sum
  over its nodes' shares, is the ranks' sum (rank order), counted on rank 0
  of the continued run (coupled_checkpoint.LoadCoupledCheckpoint): the
  serial run's value to rounding;
* everything else from the template file, as the two merges take it: the
  walls (the DEM deck's and the skin's mirror nodes, alike on every rank;
  the wall results, CONTACT_FORCES, DEM_PRESSURE and the faces' normal
  shares, are the template rank's part, outputs the next step computes
  again), the decks, the stages' and processes' states.

The replicated skin (its walls, mirrors, load conditions and which rank owns
which skin node) is built from the decks at the continued run's start as at
a fresh one. The implicit scheme (DEM sub-steps) stays an error naming both
rank counts (AnalysisStage._CheckSavedRanks)."""
import json

import tessera
from tessera.checkpoint_merge import CheckRankFiles, Copier
from tessera.checkpoint_merge import ResizedCheckpointForRank as _ResizedCheckpointForRank

DEM_ROOTS = ("SpheresPart", "RigidFacePart", "ClusterPart", "DEMInletPart")
STRUCTURE_OWNED = "/Objects/Structure/Solver/OwnedNodes"
DEM_SOLVER = "/Objects/DEM/Solver"
STATE = "/Objects/Coupling/State"


def StructureParts(reader):
    """The structure's root model parts in a coupled checkpoint: all but the DEM's."""
    return [part for part in reader.List("/ModelParts") if part not in DEM_ROOTS]


def MergeRankFiles(files, out_path, template_rank=0, ranks=1):
    """Writes to `out_path` the serial coupled checkpoint merged from the
    rank files `files` (rank order) of one step (module text). `ranks`: the
    rank count of the run that will continue (named in errors)."""
    from tessera.dem import resized_checkpoint as dem
    from tessera.structural import resized_checkpoint as structure

    readers = [tessera.CheckpointReader(f) for f in files]
    CheckRankFiles(readers)
    template = readers[template_rank]
    for reader in readers:
        if not reader.Has(STATE):
            raise tessera.Error(f"checkpoint {reader.path} has no {STATE}: it is not a coupled DE-FE "
                                "checkpoint")
    writer = tessera.CheckpointWriter(out_path)
    copy = Copier(writer, template)
    copy.SerialHeader()
    structure.MergeModelParts(copy, readers, StructureParts(template), STRUCTURE_OWNED, ranks)
    dem.MergeDem(copy, readers, template_rank, ranks, DEM_SOLVER)
    state = json.loads(template.ReadString(STATE))
    if "energy" in state:
        total = 0.0
        for reader in readers:  # rank order, as the samples' sums
            total += json.loads(reader.ReadString(STATE))["energy"]["damping_work"]
        state["energy"]["damping_work"] = total
    writer.WriteString(STATE, json.dumps(state))
    copy.done.add(STATE)
    copy.Rest(skip=(STRUCTURE_OWNED,), skip_under=(DEM_SOLVER + "/Distributed",))
    writer.Commit()


def ResizedCheckpointForRank(path, written, rank, ranks):
    """The merged serial coupled checkpoint a rank of the continued run
    loads (checkpoint_merge.ResizedCheckpointForRank)."""
    return _ResizedCheckpointForRank(path, written, rank, ranks, MergeRankFiles)


def LoadPiece(stage, path, load):
    """Calls load(file) with the merged checkpoint `path` whose structure is
    cut to this rank's pieces (structural resized_checkpoint.LoadPiece; the
    DEM's parts whole), then removes the temporary files."""
    from tessera.structural import resized_checkpoint as structure

    structure.LoadPiece(stage, path, load, StructureParts(tessera.CheckpointReader(path)))
