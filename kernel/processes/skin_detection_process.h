// SkinDetectionProcess (Kratos' SkinDetectionProcess2D/3D and its Python
// skin_detection_process): finds the skin of a model part's elements
// (utilities/skin_detection.h) and makes it a sub model part of conditions,
// e.g. for the DEM walls of a coupled structure.
//
// C++ / Python form, as Kratos' C++ process, on a model part:
//   {"name_auxiliar_model_part": "SkinModelPart", "name_auxiliar_condition": "Condition",
//    "list_model_parts_to_assign_conditions": [], "echo_level": 0}
// Process-list form (Registry name "SkinDetectionProcess", the keys of Kratos'
// Python process): the same keys plus "model_part_name" (required),
// "computing_model_part_name" ("": none; else the conditions are added to it
// too) and "recursive_detection" (only false is supported).
//
// Execute() creates the sub model part name_auxiliar_model_part under the model
// part (an existing one must hold no conditions yet), one condition per skin
// face with ids from the root's largest condition id + 1, the parent element's
// properties and the INTERFACE flag (also set on the skin nodes), and adds the
// faces' nodes. Condition names: "Condition" gives the kernel's generic
// LineCondition2D2N, SurfaceCondition3D3N and SurfaceCondition3D4N; any other
// name N gives N2D2N, N3D3N, N3D4N as Kratos composes them (registered by an
// application). Each model part of list_model_parts_to_assign_conditions (a
// path from the root, as Kratos resolves it) receives the conditions whose
// nodes it all holds. ExecuteInitialize runs Execute once, unless it has run.
#pragma once

#include <string>
#include <vector>

#include "kernel/model/model.h"
#include "kernel/parameters/parameters.h"
#include "kernel/processes/process.h"

namespace tessera {

class SkinDetectionProcess final : public Process {
 public:
  SkinDetectionProcess(ModelPart& model_part, Parameters settings);
  // The process-list form: resolves model_part_name (and computing_model_part_name).
  SkinDetectionProcess(Model& model, Parameters settings);
  static Parameters GetDefaultParameters();
  static Parameters GetProcessListDefaultParameters();

  void ExecuteInitialize() override;
  void Execute() override;
  std::string Info() const override;

 private:
  struct Setup {
    ModelPart* model_part;
    Parameters settings;
    ModelPart* computing_model_part;
  };
  static Setup FromProcessList(Model& model, Parameters settings);
  explicit SkinDetectionProcess(Setup setup);

  // The registered condition name for faces of that geometry type; an error
  // naming the setting if it is not registered or has another geometry.
  std::string ConditionName(const GeometryType& face_type) const;

  ModelPart& model_part_;
  ModelPart* computing_model_part_ = nullptr;
  std::string skin_name_;
  std::string condition_name_;
  std::vector<std::string> assign_to_;
  int echo_level_ = 0;
  bool executed_ = false;
};

}  // namespace tessera
