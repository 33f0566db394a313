// GidOutput: writes a model part and its results in GiD's ASCII postprocess
// format (<name>.post.msh + <name>.post.res), like Kratos' gid_output with
// GiD_PostAscii.
//
// Subset of the format that is written:
//   * .post.msh: one block per geometry family of the elements,
//       MESH "<name>_<ElemType>" dimension 3 ElemType <ElemType> Nnode <n>
//     with ElemType Linear, Triangle, Quadrilateral, Tetrahedra, Hexahedra,
//     Point or Sphere; then, with "write_conditions", one block per family of
//     the conditions, named "<name>_<ElemType>_conditions". The Coordinates
//     (node id, x, y, z) are written in the first block only; later blocks have
//     an empty Coordinates section, which GiD reads as "the same nodes".
//     Element lines are "id node_ids... material" with the properties id as
//     the material; Sphere lines are "id node radius material", the radius
//     being the element's RADIUS, else the node's. A model part with neither
//     elements nor conditions writes its nodes as Point elements (Sphere
//     elements when the nodes carry RADIUS), numbered by node id.
//   * .post.res: "GiD Post Results File 1.0", then for every gauss point
//     variable one GaussPoints set per element family, each with a single
//     point at the centre of the element ("Natural Coordinates: Internal"),
//     then per output step and variable
//       Result "<VAR>" "Kratos" <label> <Scalar|Vector|Matrix> OnNodes
//     (or OnGaussPoints "<set>" for gauss point results), a ComponentNames
//     line for vectors ("X", "Y", "Z") and Values ... End Values.
//     Gauss point results are written as the average of the element's
//     CalculateOnIntegrationPoints values at that one point: the simplest
//     form GiD shows as an element-constant field.
//   * Result types: double, int, bool -> Scalar; Array3 -> Vector; Vector of
//     6 (xx, yy, zz, xy, yz, xz) or 3 (xx, yy, xy) entries and 3x3 Matrix
//     (its symmetric part) -> Matrix. Other types are an error.
//   * <label> is STEP or TIME ("file_label"). With "multiple_files" every output
//     step writes its own <name>_<label>.post.msh/.post.res pair (GiD's
//     MultipleFiles); otherwise the mesh is written at the first output and
//     results are appended to one .post.res (GiD's SingleFile), so the mesh is
//     assumed not to change.
// The binary (GiD_PostBinary) and HDF5 forms are not written; the result
// files are ASCII, appended and closed at every step so they are readable
// while the run goes on.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kernel/geometries/geometry_type.h"
#include "kernel/parameters/parameters.h"

namespace tessera {

class ModelPart;
class VariableBase;

class GidOutput {
 public:
  // Validates `settings` against GetDefaultParameters() and resolves the
  // variable names; the model part must outlive this object.
  GidOutput(ModelPart& model_part, Parameters settings);

  static Parameters GetDefaultParameters();

  // Writes the results of the current step (and the mesh at the first call, or
  // at every call with "multiple_files").
  void PrintOutput();
  // Nothing stays open between calls; kept for the Kratos process protocol.
  void ExecuteFinalize() {}

  // <output_path>/<output_name>.post.msh and .post.res (of the last step with
  // "multiple_files").
  const std::string& MeshFileName() const { return mesh_file_; }
  const std::string& ResultFileName() const { return result_file_; }

 private:
  void WriteMesh(const std::string& path);
  void StartResultFile(const std::string& path);
  void WriteResults(const std::string& path, const std::string& label);

  ModelPart& model_part_;
  Parameters settings_;
  std::string output_path_, output_name_;
  bool time_label_ = false;
  bool multiple_files_ = false;
  bool write_deformed_ = false;
  bool write_conditions_ = true;
  std::vector<const VariableBase*> nodal_historical_, nodal_non_historical_, gauss_point_;
  // The element blocks of the last mesh written, for the gauss point sets.
  std::vector<std::pair<GeometryFamily, std::string>> element_meshes_;
  bool mesh_written_ = false;
  std::string mesh_file_, result_file_;
};

}  // namespace tessera
