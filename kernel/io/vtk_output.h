// VtkOutput: writes a model part as ParaView VTK XML UnstructuredGrid files
// (.vtu, one per output step) and keeps a .pvd collection listing every written
// step with its TIME, in the spirit of Kratos' vtk_output.
//
// What is written per file:
//   * Points: the nodes of the model part (plus any node a written cell uses
//     that is not in it), at their initial coordinates, or current ones with
//     "write_deformed_configuration".
//   * Cells: the elements or conditions ("entity_type"; "automatic" takes the
//     elements if there are any, else the conditions). If the chosen container
//     is empty the nodes are written as VTK vertices, so a particle cloud or a
//     node-only model part still shows up. Sphere3D1 and Point geometries are
//     vertices too; for spheres (and for vertex-only output of nodes that carry
//     RADIUS) a RADIUS point array is added so ParaView can glyph them.
//   * PointData: historical and non-historical nodal variables, nodal flags,
//     node ids, and "gauss_point_variables_extrapolated_to_nodes": integration
//     point results extrapolated to the nodes and averaged there, weighted by
//     element size (integration_point_extrapolation.h). CellData: entity data values, entity flags,
//     gauss point values averaged per entity, entity and properties ids.
//   * Array types: double -> Float64 (1 component), Array3 -> Float64 (3),
//     Vector -> Float64 (its length, padded with zeros for entities without a
//     value), Matrix -> Float64 (rows*cols, row-major), Quaternion -> Float64
//     (w, x, y, z), int and bool -> Int32, ids -> Int64.
//   * "file_format": "ascii" (text) or "binary" (inline base64 data with a
//     UInt64 byte-count header, VTK's uncompressed inline binary encoding).
//
// Files are <output_path>/<prefix><name><postfix>_<STEP>.vtu and
// <output_path>/<prefix><name><postfix>.pvd, where <name> is the model part's
// full name with dots replaced by underscores ("Main_Inlet" for a sub model
// part). Everything is written serially in model part order, so the files do
// not depend on the number of OpenMP threads.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kernel/parameters/parameters.h"

namespace tessera {

class ModelPart;
class VariableBase;
class Flag;

class VtkOutput {
 public:
  // Validates `settings` against GetDefaultParameters() (an unknown key is an
  // error naming the allowed keys), fills in the defaults and resolves every
  // variable and flag name (an unknown name is an error). The model part must
  // outlive this object.
  VtkOutput(ModelPart& model_part, Parameters settings);

  // The accepted settings and their defaults. "output_control_type" and
  // "output_interval" are read by the output process, not by this class; they
  // are accepted here so one settings object serves both.
  static Parameters GetDefaultParameters();

  // Writes the files of the current step (STEP and TIME of the model part's
  // ProcessInfo) for the model part, and for each of its sub model parts at
  // any depth with "output_sub_model_parts", then rewrites the .pvd files.
  // Writing the same STEP twice replaces that step's file and .pvd entry.
  void PrintOutput();

  // The .vtu files written by the last PrintOutput(), model part first.
  const std::vector<std::string>& LastWrittenFiles() const { return last_files_; }

 private:
  // One written model part: its file base name and the (time, file) entries of
  // its .pvd collection.
  struct Collection {
    ModelPart* model_part;
    std::string base_name;
    std::vector<std::pair<double, std::string>> steps;
  };

  void WriteModelPart(Collection& collection, int step, double time);
  void WritePvd(const Collection& collection) const;

  ModelPart& model_part_;
  Parameters settings_;
  std::string output_path_;
  bool binary_ = false;
  int precision_ = 7;
  bool write_deformed_ = false;
  bool write_ids_ = false;
  enum class EntityType { Automatic, Element, Condition } entity_type_ = EntityType::Automatic;
  std::vector<const VariableBase*> nodal_historical_, nodal_non_historical_, element_data_,
      condition_data_, gauss_point_, gauss_point_nodal_;
  std::vector<const Flag*> nodal_flags_, element_flags_, condition_flags_;
  std::vector<Collection> collections_;  // the model part, then its sub model parts
  std::vector<std::string> last_files_;
};

}  // namespace tessera
