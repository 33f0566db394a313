"""SkinDetectionProcess (Kratos' skin_detection_process): at ExecuteInitialize,
finds the skin of a model part's elements (faces of solids that no other
element shares, boundary edges of plane meshes, membranes themselves), all
oriented outwards, and makes it a sub model part of conditions with fresh ids.
Implemented in C++ (kernel/processes/skin_detection_process.h).

    "Parameters": {"model_part_name": "Structure",
                   "name_auxiliar_model_part": "SkinModelPart",
                   "name_auxiliar_condition": "Condition",
                   "list_model_parts_to_assign_conditions": [],
                   "computing_model_part_name": "",
                   "recursive_detection": false, "echo_level": 0}

"Condition" makes the kernel's LineCondition2D2N / SurfaceCondition3D3N /
SurfaceCondition3D4N; another name N makes N2D2N, N3D3N, N3D4N.
"""
import tessera


def Factory(settings, model):
    if not isinstance(settings, tessera.Parameters):
        raise TypeError("expected a tessera.Parameters with the process settings")
    return tessera.CreateRegisteredProcess("SkinDetectionProcess", model, settings["Parameters"])
