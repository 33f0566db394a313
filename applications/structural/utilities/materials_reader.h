// Reading of Kratos' structural materials files (StructuralMaterials.json,
// *_materials.json; docs/file_formats.md §4):
//
//   {"properties": [{"model_part_name": "Structure.Parts_Solid",
//                    "properties_id": 1,
//                    "Material": {"name": "Steel",
//                                 "constitutive_law": {"name": "LinearElastic3DLaw"},
//                                 "Variables": {"YOUNG_MODULUS": 2.1e11, ...},
//                                 "Tables": {"t1": {"input_variable": "TEMPERATURE",
//                                                   "output_variable": "YOUNG_MODULUS",
//                                                   "data": [[0, 2e11], [100, 1.9e11]]}}}}]}
//
// For each entry: the Properties of that id (created in the root model part if
// new) gets the variables, tables and a constitutive law made by name, and is
// assigned to every element and condition of the model part, overriding the
// .mdpa ids. Names may carry Kratos module prefixes
// ("KratosMultiphysics.YOUNG_MODULUS", "StructuralMechanicsApplication.
// LinearElastic3DLaw"); a model part name without its root ("Parts_Solid", as
// older files write it) is looked up in the single root model part. Every error
// names the file and the key path.
#pragma once

#include <string>

#include "kernel/model/model.h"
#include "kernel/parameters/parameters.h"

namespace tessera::structural {

void ReadMaterials(Model& model, const Parameters& materials);
void ReadMaterialsFile(Model& model, const std::string& file_name);

}  // namespace tessera::structural
