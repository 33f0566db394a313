// Hdf5Output: writes a model part and its results as HDF5 files (serial HDF5
// C API) in the group layout of Kratos' HDF5Application, plus an XDMF
// descriptor (<name>.xdmf) beside them so that ParaView opens the time series
// directly. The layout is documented in docs/file_formats.md (§3.5).
//
// Per file:
//   /ModelData                      the mesh (written once, and again when it changes)
//     Nodes/Local/Ids               (n)    int64
//     Nodes/Local/Coordinates       (n, 3) float64, initial coordinates
//     Elements/<Geometry>/Ids, Connectivities (node ids), PropertiesIds
//     Conditions/<Geometry>/...     the same for the conditions
//     SubModelParts/<name>/Nodes/Ids, Elements/<Geometry>/Ids, Conditions/<Geometry>/Ids
//                                   (Kratos), NodeIndices, ElementIndices,
//                                   ConditionIndices (0-based rows: index sets),
//                                   nested sub model parts below their parent
//     Xdmf/...                      0-based topology (and sphere radii) for the XDMF
//   <results>                       /ResultsData (one file per step) or
//                                   /ResultsData/<label> (one file for the run)
//     attributes TIME, STEP, ModelData (the mesh group's path)
//     NodalSolutionStepData/<VAR>, NodalDataValues/<VAR>,
//     ElementDataValues/<VAR> (data values and averaged Gauss point results),
//     ConditionDataValues/<VAR>, NodalCoordinates (write_deformed_configuration),
//     NodalFlagValues/<FLAG>, ElementFlagValues/<FLAG>, ConditionFlagValues/<FLAG>
//                                   (int32 0/1)
//
// Rows follow the model part's order (nodes, then elements and conditions in
// the order of its sets); an element's rows of ElementDataValues are in the
// order of /ModelData/Xdmf/Elements/Ids. Datasets are chunked and optionally
// gzip-compressed. Written serially: the files do not depend on the thread count.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernel/parameters/parameters.h"

namespace tessera {

class Flag;
class ModelPart;
class VariableBase;

class Hdf5Output {
 public:
  // Validates `settings` against GetDefaultParameters() (an unknown key is an
  // error naming it) and resolves every variable name (an unknown one is an
  // error naming the key and the variable). The model part must outlive this.
  Hdf5Output(ModelPart& model_part, Parameters settings);

  // The accepted settings and their defaults ("output_control_type" and
  // "output_interval" are read by the output process).
  static Parameters GetDefaultParameters();

  // Writes the current step (STEP and TIME of the ProcessInfo) and rewrites
  // the .xdmf. Writing the same label again replaces that step.
  void PrintOutput();

  // The .h5 files written by the last PrintOutput(), and the .xdmf's path.
  const std::vector<std::string>& LastWrittenFiles() const { return last_files_; }
  std::string XdmfFileName() const;

 private:
  struct XdmfStep {
    std::string label;
    double time;
    std::string grid;  // the step's <Grid> element
  };

  ModelPart& model_part_;
  Parameters settings_;
  std::string output_path_, base_name_;
  bool single_file_ = true;
  bool label_by_time_ = false;
  bool write_deformed_ = false;
  bool write_xdmf_ = true;
  int compression_ = 0;  // gzip level, 0: none
  std::vector<const VariableBase*> nodal_historical_, nodal_non_historical_, element_data_,
      condition_data_, gauss_point_;
  std::vector<const Flag*> nodal_flags_, element_flags_, condition_flags_;

  // The mesh last written: its signature, and where it is (file name relative
  // to the output path, group path).
  bool has_mesh_ = false;
  std::uint64_t mesh_signature_ = 0;
  std::string mesh_file_, mesh_group_;
  bool file_created_ = false;  // single file: created by this writer

  std::vector<XdmfStep> xdmf_steps_;
  std::vector<std::string> last_files_;

  // PrintOutput's steps, on one output's state (hdf5_output.cpp).
  struct Step;
  void OpenStepFile(Step& step);
  void WriteMeshIfChanged(Step& step);
  void WriteResults(Step& step);
  void AddXdmfGrid(const Step& step);
  void WriteXdmf() const;
};

}  // namespace tessera
