"""GiDOutputProcess: writes a model part and its results as GiD ASCII
postprocess files (<output_name>.post.msh / .post.res), configured with the
layout of Kratos' gid_output_process:

    {"python_module": "gid_output_process",
     "kratos_module": "KratosMultiphysics",
     "Parameters": {
         "model_part_name": "Structure",
         "output_name": "results/plate",
         "postprocess_parameters": {"result_file_configuration": {
             "gidpost_flags": {"GiDPostMode": "GiD_PostBinary",
                               "MultiFileFlag": "SingleFile"},
             "file_label": "step",
             "output_control_type": "step", "output_interval": 1,
             "nodal_results": ["DISPLACEMENT"],
             "gauss_point_results": ["VON_MISES_STRESS"]}}}}

What is honoured: the output schedule, "file_label" (results and multi-file
names labelled by STEP or TIME; Kratos' default "time"), "nodal_results",
"nodal_nonhistorical_results", "gauss_point_results" (averaged per element,
see kernel/io/gid_output.h) and from "gidpost_flags" MultiFileFlag
(SingleFile | MultipleFiles), WriteDeformedMeshFlag (WriteDeformed |
WriteUndeformed) and WriteConditionsFlag (WriteConditions writes them,
anything else does not). GiDPostMode is accepted and ignored: files are always
ASCII. The Kratos keys for outputs tessera does not write (node, skin and plane
output, flag results, additional list files, point data) are accepted at their
defaults and an error otherwise. "output_name" may hold a folder; the optional
"output_path" is put in front of it.
"""
import json
import os

import tessera
from tessera.output import OutputSchedule, ScheduledOutputProcess

_PROCESS_DEFAULTS = """{
    "model_part_name": "",
    "output_name": "",
    "output_path": "",
    "postprocess_parameters": {}
}"""

_POSTPROCESS_DEFAULTS = """{
    "result_file_configuration": {},
    "point_data_configuration": []
}"""

_RESULT_DEFAULTS = """{
    "gidpost_flags": {},
    "file_label": "time",
    "output_control_type": "step",
    "output_interval": 1.0,
    "flush_after_output": false,
    "body_output": true,
    "node_output": false,
    "skin_output": false,
    "plane_output": [],
    "nodal_results": [],
    "nodal_nonhistorical_results": [],
    "nodal_flags_results": [],
    "elemental_conditional_flags_results": [],
    "gauss_point_results": [],
    "additional_list_files": []
}"""


def Factory(settings, model):
    if not isinstance(settings, tessera.Parameters):
        raise TypeError("gid_output_process.Factory expects a tessera.Parameters object")
    return GiDOutputProcess(model, settings["Parameters"])


def _Unsupported(results):
    """The keys of result_file_configuration set to outputs tessera does not write."""
    found = []
    if not results["body_output"].GetBool():
        found.append('"body_output": false')
    for key in ("node_output", "skin_output"):
        if results[key].GetBool():
            found.append(f'"{key}": true')
    for key in ("plane_output", "nodal_flags_results", "elemental_conditional_flags_results",
                "additional_list_files"):
        if results[key].size() > 0:
            found.append(f'"{key}" (not empty)')
    return found


class GiDOutputProcess(ScheduledOutputProcess):
    """Kratos' output process protocol: the analysis asks IsOutputStep() after
    each solution step and calls PrintOutput() when it is."""

    def __init__(self, model, settings, merged=False):
        """merged: the model part already holds the whole result of a
        distributed run and only this rank writes it (the DEM stage's merged
        spheres on rank 0, its walls that every rank holds alike). Otherwise,
        in a distributed run, each rank writes its own piece (its elements
        and conditions, with their nodes) as <output_name>_<rank>.post.*,
        Kratos' naming for distributed GiD output: GiD opens the pieces
        together and merges the nodes they share by id."""
        super().__init__()  # the C++ base must be initialised for the bindings
        rank = None
        if not merged and tessera.MPIBuilt() and tessera.LaunchedByMPI() \
                and tessera.DefaultCommunicator().Size() > 1:
            rank = tessera.DefaultCommunicator().Rank()
        settings.ValidateAndAssignDefaults(tessera.Parameters(_PROCESS_DEFAULTS))
        postprocess = settings["postprocess_parameters"]
        postprocess.ValidateAndAssignDefaults(tessera.Parameters(_POSTPROCESS_DEFAULTS))
        results = postprocess["result_file_configuration"]
        if results.Has("output_frequency"):
            # Kratos' older name of output_interval (decks written before the
            # rename, e.g. the DEM-structures ball_and_box demo): the same value.
            if results.Has("output_interval"):
                raise tessera.Error(f"{results.Origin()}: key '{results.Path()}' has both "
                                    "output_frequency (Kratos' older name) and output_interval; keep "
                                    "output_interval")
            results.AddValue("output_interval", results["output_frequency"])
            results.RemoveValue("output_frequency")
        results.ValidateAndAssignDefaults(tessera.Parameters(_RESULT_DEFAULTS))
        unsupported = _Unsupported(results)
        if postprocess["point_data_configuration"].size() > 0:
            unsupported.append('"point_data_configuration" (not empty)')
        if unsupported:
            raise ValueError("GiDOutputProcess: tessera's GiD output does not write "
                             + ", ".join(unsupported) + "; remove these settings")

        model_part_name = settings["model_part_name"].GetString()
        if not model_part_name:
            raise ValueError('GiDOutputProcess: "model_part_name" must name the model part to write')
        self.model_part = model.GetModelPart(model_part_name)

        # "results/plate" -> folder "results", files "plate.post.*".
        output_name = settings["output_name"].GetString() or model_part_name.replace(".", "_")
        folder, name = os.path.split(output_name)
        if rank is not None:
            name = f"{name}_{rank}"
        folder = os.path.join(settings["output_path"].GetString(), folder) or "."

        flags = results["gidpost_flags"]

        def flag(key, default):
            return flags[key].GetString() if flags.Has(key) else default

        gid_settings = {
            "model_part_name": model_part_name,
            "output_path": folder,
            "output_name": name,
            "file_label": results["file_label"].GetString(),
            "multiple_files": flag("MultiFileFlag", "SingleFile") == "MultipleFiles",
            "write_deformed_mesh": flag("WriteDeformedMeshFlag", "WriteUndeformed") == "WriteDeformed",
            "write_conditions": flag("WriteConditionsFlag", "WriteConditions") == "WriteConditions",
            "nodal_results": results["nodal_results"].GetStringArray(),
            "nodal_nonhistorical_results": results["nodal_nonhistorical_results"].GetStringArray(),
            "gauss_point_results": results["gauss_point_results"].GetStringArray(),
        }
        self.writer = tessera.GidOutput(self.model_part,
                                        tessera.Parameters(json.dumps(gid_settings)))
        self.schedule = OutputSchedule(self.model_part,
                                       results["output_control_type"].GetString(),
                                       results["output_interval"].GetDouble(),
                                       "GiDOutputProcess")

    def ExecuteFinalize(self):
        self.writer.ExecuteFinalize()
