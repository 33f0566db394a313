"""FromJsonCheckResultProcess (Kratos' from_json_check_result_process): compares
nodal results with a reference file in the layout json_output_process writes

    {"TIME": [t1, ...], "NODE_<id>": {"DISPLACEMENT_Y": [v1, ...]}, ...}

At the end of a step, once the accumulated DELTA_TIME exceeds "time_frequency"
(Kratos' counter, reset on each check), every node of the model part is
compared with the entry at the stored time nearest to TIME, with math.isclose
semantics: |got - ref| <= max(relative_tolerance * max(|got|, |ref|), tolerance).
A mismatch raises CheckFailure naming the node, variable, time and values.

    "Parameters": {"check_variables": ["DISPLACEMENT_Y"],
                   "input_file_name": "pendulus_test/pendulus_test_results.json",
                   "model_part_name": "Structure.SelfWeight", "time_frequency": 0.05}
"""
import json

import numpy as np

import tessera

from . import CheckFailure, NodeSet, ProcessLabel, SettingsError, ValidateSettings
from .json_output_process import ResultColumns, ResultModelPart, RejectUnsupported

DEFAULTS = """{
    "help": "Checks nodal results against a json file written by json_output_process",
    "check_variables": [],
    "gauss_points_check_variables": [],
    "input_file_name": "",
    "model_part_name": "",
    "sub_model_part_name": "",
    "check_for_flag": "",
    "historical_value": true,
    "tolerance": 1e-3,
    "relative_tolerance": 1e-6,
    "time_frequency": 1.0,
    "check_only_local_entities": false,
    "use_node_coordinates": false
}"""


def Factory(settings, model):
    if not isinstance(settings, tessera.Parameters):
        raise TypeError("expected a tessera.Parameters with the process settings")
    return FromJsonCheckResultProcess(model, settings["Parameters"])


class FromJsonCheckResultProcess(tessera.Process):
    def __init__(self, model, settings):
        super().__init__()
        ValidateSettings(settings, DEFAULTS)
        RejectUnsupported(settings)
        self.label = ProcessLabel(settings, type(self).__name__)
        self.model_part = ResultModelPart(model, settings)
        self.columns = ResultColumns(settings, "check_variables")
        self.file_name = settings["input_file_name"].GetString()
        try:
            with open(self.file_name) as file:
                self.reference = json.load(file)
        except OSError as error:
            raise SettingsError(settings["input_file_name"],
                                f"cannot read the reference results: {error.strerror}: {self.file_name}") from None
        except json.JSONDecodeError as error:
            raise SettingsError(settings["input_file_name"],
                                f"{self.file_name}:{error.lineno}: not valid JSON ({error.msg})") from None
        if not isinstance(self.reference.get("TIME"), list) or not self.reference["TIME"]:
            raise SettingsError(settings["input_file_name"], f'{self.file_name} has no "TIME" list')
        self.times = np.asarray(self.reference["TIME"], dtype=float)
        self.tolerance = settings["tolerance"].GetDouble()
        self.relative_tolerance = settings["relative_tolerance"].GetDouble()
        self.frequency = settings["time_frequency"].GetDouble()
        self.historical = settings["historical_value"].GetBool()
        self.nodes = NodeSet(self.model_part)
        self.time_counter = 0.0
        self.checks_done = 0  # how many steps were compared, for tests and reports

    def _Reference(self, node_id, name, index):
        record = self.reference.get(f"NODE_{node_id}")
        if record is None or name not in record:
            raise tessera.Error(f"{self.label}: {self.file_name} has no {name} of node {node_id}")
        values = record[name]
        if index >= len(values):
            raise tessera.Error(f"{self.label}: {self.file_name}: NODE_{node_id}.{name} has "
                                f"{len(values)} values, fewer than its TIME list")
        return float(values[index])

    # Checkpoints: a continued run checks at the steps the uninterrupted one would.
    def GetCheckpointState(self):
        return {"time_counter": self.time_counter, "checks_done": self.checks_done}

    def SetCheckpointState(self, state):
        self.time_counter = state["time_counter"]
        self.checks_done = state["checks_done"]

    def ExecuteFinalizeSolutionStep(self):
        info = self.model_part.ProcessInfo
        self.time_counter += float(info[tessera.DELTA_TIME])
        if self.time_counter <= self.frequency:
            return
        self.time_counter = 0.0
        time = float(info[tessera.TIME])
        index = int(np.argmin(np.abs(self.times - time)))
        ids = [int(i) for i in self.nodes.Ids()]
        for name, variable in self.columns:
            if self.historical:
                got = np.asarray(self.nodes.Get(variable), dtype=float)
            else:
                got = np.array([node.GetValue(variable) for node in self.model_part.Nodes], dtype=float)
            reference = np.array([self._Reference(node_id, name, index) for node_id in ids])
            allowed = np.maximum(self.relative_tolerance * np.maximum(np.abs(got), np.abs(reference)),
                                 self.tolerance)
            wrong = np.flatnonzero(~(np.abs(got - reference) <= allowed))
            if wrong.size:
                i = int(wrong[0])
                raise CheckFailure(
                    f"{self.label}: node {ids[i]} at TIME {time:.9g}: {name} expected "
                    f"{reference[i]:.12g} ({self.file_name} at TIME {self.times[index]:.9g}), got "
                    f"{got[i]:.12g}; difference {abs(got[i] - reference[i]):.3g} exceeds tolerance "
                    f"{self.tolerance:g} (relative {self.relative_tolerance:g}); {wrong.size} of "
                    f"{len(ids)} nodes differ")
        self.checks_done += 1
