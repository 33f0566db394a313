"""JsonOutputProcess (Kratos' json_output_process): records nodal results in the
JSON layout that from_json_check_result_process reads, so a run's results can
be checked later:

    {"TIME": [t1, t2, ...],
     "NODE_<id>": {"DISPLACEMENT_X": [v1, v2, ...], ...}, ...}

3-vector variables are written as their _X, _Y, _Z components. A record is taken
at the end of a step once the accumulated DELTA_TIME exceeds "time_frequency"
(Kratos' counter, reset on each record), and the file is rewritten each time so
that an interrupted run keeps what it had. "resultant_solution": true records
the sum over the nodes instead ("RESULTANT": {...}).

    "Parameters": {"model_part_name": "Structure", "sub_model_part_name": "tip",
                   "output_variables": ["DISPLACEMENT_Y"],
                   "output_file_name": "results.json", "time_frequency": 0.05}
"""
import json
import os

import numpy as np

import tessera

from . import NodeSet, GetModelPart, ProcessLabel, SettingsError, ValidateSettings

DEFAULTS = """{
    "help": "Writes nodal results to a json file readable by from_json_check_result_process",
    "output_variables": [],
    "gauss_points_output_variables": [],
    "output_file_name": "",
    "model_part_name": "",
    "sub_model_part_name": "",
    "check_for_flag": "",
    "historical_value": true,
    "resultant_solution": false,
    "use_node_coordinates": false,
    "time_frequency": 1.0
}"""


def Factory(settings, model):
    if not isinstance(settings, tessera.Parameters):
        raise TypeError("expected a tessera.Parameters with the process settings")
    return JsonOutputProcess(model, settings["Parameters"])


def ResultColumns(settings, key):
    """[(json name, variable)] for the variable names in settings[key]; a
    3-vector becomes its three components, as Kratos writes them."""
    columns = []
    for i, name in enumerate(settings[key].GetStringArray()):
        try:
            variable = tessera.GetVariable(name)
        except tessera.Error as error:
            raise SettingsError(settings[key][i], str(error)) from None
        if variable.Kind() == tessera.ValueKind.Array3 and not variable.IsComponent():
            columns += [(name + s, tessera.GetVariable(name + s)) for s in ("_X", "_Y", "_Z")]
        elif variable.Kind() == tessera.ValueKind.Double:
            columns.append((name, variable))
        else:
            raise SettingsError(settings[key][i], f"{name} is neither a number nor a 3-vector variable")
    return columns


def ResultModelPart(model, settings):
    model_part = GetModelPart(model, settings)
    sub_name = settings["sub_model_part_name"].GetString()
    if sub_name:
        if not model_part.HasSubModelPart(sub_name):
            raise SettingsError(settings["sub_model_part_name"],
                                f"{model_part.FullName()} has no sub model part '{sub_name}'")
        model_part = model_part.GetSubModelPart(sub_name)
    return model_part


def RejectUnsupported(settings):
    """Kratos keys this implementation does not honour: an error unless left at
    their defaults, rather than silently ignored."""
    if settings["check_for_flag"].GetString():
        raise SettingsError(settings["check_for_flag"], "filtering nodes by flag is not supported yet")
    if settings["use_node_coordinates"].GetBool():
        raise SettingsError(settings["use_node_coordinates"], "is not supported yet (leave it false)")
    for key in ("gauss_points_output_variables", "gauss_points_check_variables"):
        if settings.Has(key) and settings[key].size():
            raise SettingsError(settings[key], "Gauss point results are not supported yet")


class JsonOutputProcess(tessera.Process):
    def __init__(self, model, settings):
        super().__init__()
        from tessera.parallel import DistributedCommunicator
        # In a distributed run rank 0 writes the file, each node's values
        # gathered from the rank that owns it.
        self.communicator = DistributedCommunicator()
        ValidateSettings(settings, DEFAULTS)
        RejectUnsupported(settings)
        self.label = ProcessLabel(settings, type(self).__name__)
        self.model_part = ResultModelPart(model, settings)
        self.columns = ResultColumns(settings, "output_variables")
        self.file_name = settings["output_file_name"].GetString()
        if not self.file_name:
            raise SettingsError(settings["output_file_name"], "name the json file to write")
        self.frequency = settings["time_frequency"].GetDouble()
        self.resultant = settings["resultant_solution"].GetBool()
        self.historical = settings["historical_value"].GetBool()
        self.nodes = NodeSet(self.model_part)
        self.time_counter = 0.0
        self.data = None

    def _Values(self, variable):
        if self.historical:
            return np.asarray(self.nodes.Get(variable), dtype=float)
        return np.array([node.GetValue(variable) for node in self.model_part.Nodes], dtype=float)

    def _Record(self):
        """(node ids, values: one column per output column) of the nodes to
        record; in a distributed run the owned nodes of every rank, on rank 0
        in ascending id order, and (None, None) on the other ranks."""
        ids = np.asarray(self.nodes.Ids(), dtype=np.int64)
        values = np.column_stack([self._Values(variable) for _, variable in self.columns]) \
            if self.columns else np.zeros((len(ids), 0))
        if self.communicator is None:
            return ids, values
        from tessera.parallel import GatherNodalArray, OwnedNodeIds
        owned = np.isin(ids, OwnedNodeIds(self.model_part, self.label))
        return GatherNodalArray(self.communicator, self.model_part, ids[owned], values[owned])

    def ExecuteBeforeSolutionLoop(self):
        self.data = {"TIME": []}
        if self.resultant:
            self.data["RESULTANT"] = {name: [] for name, _ in self.columns}
        elif self.communicator is None:
            # (distributed: each node's record is made at its first sample)
            for node_id in self.nodes.Ids():
                self.data[f"NODE_{int(node_id)}"] = {name: [] for name, _ in self.columns}

    # Checkpoints: a continued run samples at the steps the uninterrupted one
    # would and writes the whole history (floats survive JSON exactly).
    def GetCheckpointState(self):
        return {"time_counter": self.time_counter, "data": self.data}

    def SetCheckpointState(self, state):
        self.time_counter = state["time_counter"]
        self.data = state["data"]

    def ExecuteFinalizeSolutionStep(self):
        info = self.model_part.ProcessInfo
        self.time_counter += float(info[tessera.DELTA_TIME])
        if self.time_counter <= self.frequency:
            return
        self.time_counter = 0.0
        if self.data is None:
            self.ExecuteBeforeSolutionLoop()
        ids, values = self._Record()
        if ids is None:
            return  # not rank 0 of a distributed run
        self.data["TIME"].append(float(info[tessera.TIME]))
        ids = [int(i) for i in ids]
        for column, (name, _) in enumerate(self.columns):
            if self.resultant:
                self.data["RESULTANT"][name].append(float(np.ascontiguousarray(values[:, column]).sum()))
                continue
            for node_id, value in zip(ids, values[:, column]):
                # nodes added after the start get their own (shorter) record
                self.data.setdefault(f"NODE_{node_id}", {}).setdefault(name, []).append(float(value))
        self._Write()

    def _Write(self):
        folder = os.path.dirname(self.file_name)
        if folder:
            os.makedirs(folder, exist_ok=True)
        temporary = self.file_name + ".tmp"
        with open(temporary, "w") as file:
            json.dump(self.data, file)
        os.replace(temporary, self.file_name)  # never leave a half-written file
