"""Checkpoints of an analysis stage: writing them (every N steps or every Δt
of simulated time, and on SIGTERM/SIGINT), and continuing a run from one.

A checkpoint (layout in docs/file_formats.md, "Restart checkpoints") holds:

* /ModelParts/<name>: every root model part of the model, complete
  (tessera.SaveModelPart: nodes, buffers, dofs, ProcessInfo, elements with
  their integration-point state, conditions, properties' data, sub model
  parts);
* /Deck/ProjectParameters: the deck's JSON, so that a checkpoint offered to
  another deck is refused (see CompareDecks);
* /Objects/<name>: the state of every checkpointable object of the stage.

The one hook: an object (the solver, a process, an object a plugin hands to
stage.AddCheckpointable) is checkpointable when it has
``SaveCheckpoint(writer, group)`` and ``LoadCheckpoint(reader, group)``;
the writer/reader are tessera.CheckpointWriter/Reader, which take and give
numpy arrays, strings and bytes; C++ state goes through bindings that take
them. Objects whose state is a few numbers may instead give
``GetCheckpointState()`` -> a JSON-able dict and ``SetCheckpointState(dict)``.
An object whose run creates entities (a DEM inlet's spheres) may also have
``PrepareLoadCheckpoint(reader, group)``, called before the model parts are
loaded, to create them (LoadModelPart then fills them).

Loading happens at the end of the stage's Initialize(): the deck is read and
everything built as for a fresh run, then the saved state replaces it. A run
continued so gives bitwise the results of the uninterrupted run (tested per
application).

A distributed run ("parallel_type": "MPI") writes one file per rank, each the
rank's model parts and objects as a serial run writes them:
checkpoint_<STEP>.h5 becomes checkpoint_<STEP>.rank<R>of<N>.h5 (RankFile).
It continues on as many ranks as wrote it, each rank loading its own file
(RankFileToLoad: the name given may be the step's serial name or any rank's
file); another rank count is an error naming both, except for a stage that
merges the rank files (AnalysisStage._ResizedCheckpoint: the DEM, the
structure and the explicit coupled run, each application's
resized_checkpoint.py, with checkpoint_merge.py).
"""
import glob
import json
import math
import os
import re
import signal

import tessera

RESTART_OPTIONS_DEFAULTS = """{
    "SaveRestart": false,
    "RestartFrequency": 0.0,
    "RestartControl": "step",
    "checkpoint_folder": "",
    "max_files_to_keep": -1,
    "checkpoint_on_signal": true,
    "LoadRestart": false,
    "Restart_Step": 0
}"""

# Keys of the deck a continued run may change: when to stop and where to
# write. Any other difference makes the checkpoint another deck's.
DECK_KEYS_FREE_ON_RESTART = ("problem_data.end_time", "FinalTime", "restart_options",
                             "output_processes", "problem_data.problem_name")


_RANK_SUFFIX = re.compile(r"\.rank(\d+)of(\d+)\.h5$")


def RankFile(path, rank, ranks):
    """The file of rank `rank` of `ranks` for the checkpoint `path`
    (checkpoint_<STEP>.h5 -> checkpoint_<STEP>.rank<R>of<N>.h5)."""
    base = _RANK_SUFFIX.sub(".h5", path)
    stem = base[:-3] if base.endswith(".h5") else base
    return f"{stem}.rank{rank}of{ranks}.h5"


def RanksOfFile(path):
    """(rank, ranks) a file's name says it holds, or None for a serial name."""
    match = _RANK_SUFFIX.search(path)
    return (int(match.group(1)), int(match.group(2))) if match else None


def WrittenRankCounts(path):
    """The rank counts whose files of the checkpoint `path` (a step's serial
    name or any rank's file) exist, ascending; [1] for a serial file only."""
    stem = _RANK_SUFFIX.sub(".h5", path)[:-3]
    written = sorted({RanksOfFile(f)[1] for f in glob.glob(glob.escape(stem) + ".rank*of*.h5")})
    if not written and os.path.isfile(stem + ".h5"):
        written = [1]
    return written


def RankFileToLoad(path, rank, ranks):
    """The file that rank `rank` of a run on `ranks` ranks loads to continue
    the checkpoint `path` (a step's serial name or any rank's file); an error
    naming both rank counts where the checkpoint was written by another
    number of ranks (a serial run counts one) and the stage cannot continue
    it on another (AnalysisStage._ResizedCheckpoint)."""
    own = RankFile(path, rank, ranks) if ranks > 1 else _RANK_SUFFIX.sub(".h5", path)
    if os.path.isfile(own):
        return own
    written = WrittenRankCounts(path)
    if written and ranks not in written:
        counts = " or ".join(str(n) for n in written)
        raise tessera.Error(f"checkpoint {path} was written by a run on {counts} rank(s); this run "
                            f"has {ranks} rank(s): a run continues on as many ranks as it was saved "
                            f"from (mpirun -np {written[0]})")
    raise tessera.Error(f"restart file '{own}' does not exist (checkpoint {path}, rank {rank} of "
                        f"{ranks})")


def CheckpointableState(obj, writer, group):
    if hasattr(obj, "SaveCheckpoint"):
        obj.SaveCheckpoint(writer, group)
    if hasattr(obj, "GetCheckpointState"):
        writer.WriteString(group + "/State", json.dumps(obj.GetCheckpointState()))


def PrepareCheckpointableState(obj, reader, group):
    if hasattr(obj, "PrepareLoadCheckpoint"):
        obj.PrepareLoadCheckpoint(reader, group)


def RestoreCheckpointableState(obj, reader, group):
    if hasattr(obj, "LoadCheckpoint"):
        obj.LoadCheckpoint(reader, group)
    if hasattr(obj, "SetCheckpointState"):
        obj.SetCheckpointState(json.loads(reader.ReadString(group + "/State")))


def IsCheckpointable(obj):
    return any(hasattr(obj, name) for name in ("SaveCheckpoint", "GetCheckpointState"))


def _Flatten(value, prefix, out):
    if isinstance(value, dict):
        for key, item in value.items():
            _Flatten(item, f"{prefix}.{key}" if prefix else key, out)
    else:
        out[prefix] = value


def _Free(path, also=()):
    return any(path == free or path.startswith(free + ".")
               for free in DECK_KEYS_FREE_ON_RESTART + tuple(also))


def CompareDecks(saved_json, current_json, also_free=()):
    """The first key (dotted path) where the two decks differ, ignoring the
    keys a continued run may change (and `also_free`); None when they agree."""
    saved, current = {}, {}
    _Flatten(json.loads(saved_json), "", saved)
    _Flatten(json.loads(current_json), "", current)
    for key in sorted(set(saved) | set(current)):
        if _Free(key, also_free):
            continue
        if saved.get(key, "<absent>") != current.get(key, "<absent>"):
            return key, saved.get(key, "<absent>"), current.get(key, "<absent>")
    return None


def RootModelPartNames(model):
    return sorted(name for name in model.GetModelPartNames() if "." not in name)


# The checks a stage makes before it loads a checkpoint: each raises an error
# naming the file and what differs. `which` says what the stage calls its
# decks in the message ("another deck", "other decks").
def CheckSavedStage(reader, path, stage_name):
    saved = reader.StringAttribute("stage") if reader.HasAttribute("stage") else "?"
    if saved != stage_name:
        raise tessera.Error(f"checkpoint {path} was written by a {saved}, not a {stage_name}")


def CheckSavedDeck(reader, path, dataset, current_json, which="another deck", of="", also_free=()):
    """The deck saved under `dataset` against this run's (`of`: the file it
    is, named in the message where a checkpoint holds several; `also_free`:
    keys that may differ besides DECK_KEYS_FREE_ON_RESTART)."""
    difference = CompareDecks(reader.ReadString(dataset), current_json, also_free)
    if difference is not None:
        key, saved, current = difference
        raise tessera.Error(f"checkpoint {path} belongs to {which}: key '{key}'{of} is {saved!r} "
                            f"there and {current!r} here")


def CheckSavedModelParts(reader, path, model, which="another deck"):
    """The root model parts saved against this run's; returns this run's names."""
    saved = reader.List("/ModelParts")
    current = RootModelPartNames(model)
    if saved != current:
        raise tessera.Error(f"checkpoint {path} holds the model parts {saved}; this run has "
                            f"{current} ({which}?)")
    return current


class RestartOptions:
    """The deck's "restart_options" (Kratos' keys, and Tessera's):

    * "SaveRestart" (false): write checkpoints;
    * "RestartFrequency" (0): every that many steps ("RestartControl" "step")
      or that much simulated time ("time"); 0 writes none periodically;
    * "RestartControl" ("step"): "step" or "time";
    * "checkpoint_folder" (""): where; "" is "<problem_name>_checkpoints";
    * "max_files_to_keep" (-1): the older periodic files beyond it are
      removed (-1 keeps all);
    * "checkpoint_on_signal" (true): with SaveRestart, SIGTERM or SIGINT end
      the run after the current step with a checkpoint (exit code 128 + the
      signal number);
    * "LoadRestart" (false), "Restart_Step" (0): Kratos' keys for loading,
      accepted so that Kratos decks read; LoadRestart true is an error
      pointing to `tessera run --restart FILE`.

    An unknown key is an error naming it."""

    def __init__(self, parameters, problem_name, origin):
        options = parameters.Clone() if parameters is not None else tessera.Parameters("{}")
        defaults = tessera.Parameters(RESTART_OPTIONS_DEFAULTS)
        for key in options.keys():
            if not defaults.Has(key):
                raise tessera.Error(f"{origin}: unknown key 'restart_options.{key}'; allowed: "
                                    f"{', '.join(sorted(defaults.keys()))}")
        options.ValidateAndAssignDefaults(defaults)
        self.save = options["SaveRestart"].GetBool()
        self.frequency = options["RestartFrequency"].GetDouble()
        self.control = options["RestartControl"].GetString()
        if self.control not in ("step", "time"):
            raise tessera.Error(f"{origin}: 'restart_options.RestartControl' is '{self.control}'; "
                                "allowed: \"step\", \"time\"")
        if self.frequency < 0.0:
            raise tessera.Error(f"{origin}: 'restart_options.RestartFrequency' is {self.frequency}; "
                                "it must be 0 (no periodic checkpoints) or positive")
        if self.control == "step" and self.frequency != int(self.frequency):
            raise tessera.Error(f"{origin}: 'restart_options.RestartFrequency' is {self.frequency}; "
                                "with RestartControl \"step\" it counts steps (an integer)")
        self.folder = options["checkpoint_folder"].GetString() or f"{problem_name or 'run'}_checkpoints"
        self.max_files = options["max_files_to_keep"].GetInt()
        self.on_signal = options["checkpoint_on_signal"].GetBool()
        if options["LoadRestart"].GetBool():
            raise tessera.Error(f"{origin}: 'restart_options.LoadRestart' is true; Tessera continues a run "
                                "from the checkpoint file given to `tessera run FOLDER --restart FILE` "
                                "(or stage.RestartFrom(FILE)); set LoadRestart to false")


class CheckpointSchedule:
    """When a stage writes its periodic checkpoints, and the SIGTERM/SIGINT
    handlers of its time loop. The points are absolute, so that a continued
    run writes where the uninterrupted one would: with "step" control the
    steps that are multiples of RestartFrequency, with "time" control the
    first step at or past each start_time + k RestartFrequency."""

    def __init__(self, options, start_time, current_time, rank=0, ranks=1):
        self.options = options
        self.rank, self.ranks = rank, ranks
        self.start_time = start_time
        self.written = []
        self.pending_signal = None
        self._previous_handlers = {}
        self.Advance(current_time)

    def _Tolerance(self):
        return 1e-9 * self.options.frequency

    def IsDue(self, step, time):
        if not self.options.save or self.options.frequency <= 0:
            return False
        if self.options.control == "step":
            return step % int(self.options.frequency) == 0
        return time >= self.next_time - self._Tolerance()

    def Advance(self, time):
        """After writing (or at the start): the next time point past `time`."""
        f = self.options.frequency
        if self.options.control != "time" or f <= 0:
            return
        k = math.floor((time - self.start_time) / f + 1e-9) + 1
        self.next_time = self.start_time + k * f

    def FileFor(self, step):
        """This rank's file of the step (one per rank in a distributed run)."""
        path = os.path.join(self.options.folder, f"checkpoint_{step:09d}.h5")
        return RankFile(path, self.rank, self.ranks) if self.ranks > 1 else path

    def AgreeOnSignal(self, communicator):
        """A distributed run: the signal may reach some ranks only (a batch
        system's SIGTERM to one process); the ranks take the largest signal
        number any received, so that all write and stop at the same step."""
        if self.ranks > 1 and self.options.save and self.options.on_signal:
            signum = int(communicator.MaxAll(float(self.pending_signal or 0)))
            self.pending_signal = signum if signum > 0 else None

    def Remember(self, path):
        if path in self.written:
            self.written.remove(path)
        self.written.append(path)
        keep = self.options.max_files
        while keep >= 0 and len(self.written) > keep:
            old = self.written.pop(0)
            if os.path.exists(old):
                os.remove(old)

    # ---- signals: the handler only takes note; the loop writes at the step's end
    def InstallSignalHandlers(self):
        if not (self.options.save and self.options.on_signal):
            return
        for signum in (signal.SIGTERM, signal.SIGINT):
            try:
                self._previous_handlers[signum] = signal.signal(signum, self._Note)
            except ValueError:  # not the main thread: no handlers
                return

    def RemoveSignalHandlers(self):
        for signum, handler in self._previous_handlers.items():
            signal.signal(signum, handler)
        self._previous_handlers = {}

    def _Note(self, signum, frame):
        self.pending_signal = signum


class SignalStop(SystemExit):
    """Raised after the checkpoint written on SIGTERM/SIGINT: exit code 128 + signal."""

    def __init__(self, signum, path):
        super().__init__(128 + signum)
        self.signum = signum
        self.path = path


def DifferingDatasets(path_a, path_b, group="/ModelParts"):
    """The datasets below `group` whose bytes differ between two checkpoints
    (or that only one has): [] when the two saved states are bitwise equal.
    What the restart tests compare, and a user's check of a restart."""
    a, b = tessera.CheckpointReader(path_a), tessera.CheckpointReader(path_b)
    names_a, names_b = set(a.ListDatasets(group)), set(b.ListDatasets(group))
    differing = sorted(names_a ^ names_b)
    for name in sorted(names_a & names_b):
        if a.ReadRawBytes(name) != b.ReadRawBytes(name):
            differing.append(name)
    return differing
