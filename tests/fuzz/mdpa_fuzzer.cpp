// libFuzzer target of the .mdpa reader: random bytes go through
// MdpaReader::ReadText; a tessera::Error is the expected answer to bad input,
// anything else (a crash, a sanitizer report, another exception) is a bug.
// Input that reads must also write and read back to the same counts, which
// exercises the writer on every shape the reader accepts, and its mesh graph
// (the first pass of a distributed read, MdpaReader::ReadMeshGraphText) must
// read too, with the model part's node, element and condition counts.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "kernel/core/kernel_variables.h"
#include "kernel/io/mdpa_reader.h"
#include "kernel/io/mdpa_writer.h"
#include "kernel/model/model.h"
#include "kernel/parallel/mesh_graph.h"

namespace {

void AddVariables(tessera::ModelPart& mp) {
  // Some solution-step variables, so both the historical and the
  // non-historical NodalData paths are reached.
  mp.AddNodalSolutionStepVariable(tessera::DISPLACEMENT);
  mp.AddNodalSolutionStepVariable(tessera::VISCOSITY);
  mp.AddNodalSolutionStepVariable(tessera::ORIENTATION);
}

[[noreturn]] void Bug(const char* what, const std::string& detail) {
  std::fprintf(stderr, "mdpa_fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // The options come from the input length, so that the seed files read
  // unchanged in every mode as they are mutated.
  tessera::MdpaReadOptions options;
  options.mesh_only = size % 3 == 1;
  options.renumber = size % 3 == 2;
  options.node_id_offset = options.renumber ? static_cast<tessera::IdType>(size % 7) : 0;
  options.element_id_offset = options.renumber ? 3 : 0;

  tessera::Model model;
  tessera::ModelPart& mp = model.CreateModelPart("Main");
  AddVariables(mp);
  // The graph's read skips the blocks besides the mesh's: it may accept what
  // the whole read refuses, never the reverse.
  tessera::MeshGraph graph;
  std::string graph_error;
  try {
    tessera::MdpaReader(options).ReadMeshGraphText(text, "fuzz.mdpa", graph);
  } catch (const tessera::Error& e) {
    graph_error = e.what();
  }
  try {
    tessera::MdpaReader(options).ReadText(text, "fuzz.mdpa", mp);
  } catch (const tessera::Error&) {
    return 0;
  }
  if (!graph_error.empty()) Bug("a file that reads has no mesh graph", graph_error);
  if (graph.node_ids.size() != mp.NumberOfNodes() ||
      graph.NumberOfElements() != mp.NumberOfElements() ||
      graph.NumberOfConditions() != mp.NumberOfConditions() ||
      graph.master_slave_constraints != mp.NumberOfMasterSlaveConstraints())
    Bug("the mesh graph's counts are not the model part's", std::string(text));

  std::string written;
  try {
    written = tessera::MdpaWriter().WriteToString(mp);
  } catch (const tessera::Error& e) {
    Bug("a model part that was read cannot be written", e.what());
  }
  tessera::Model model2;
  tessera::ModelPart& back = model2.CreateModelPart("Main");
  AddVariables(back);
  try {
    tessera::MdpaReader().ReadText(written, "written.mdpa", back);
  } catch (const tessera::Error& e) {
    Bug("the written model part does not read back", std::string(e.what()) + "\n" + written);
  }
  if (back.NumberOfNodes() != mp.NumberOfNodes() ||
      back.NumberOfElements() != mp.NumberOfElements() ||
      back.NumberOfConditions() != mp.NumberOfConditions() ||
      back.NumberOfGeometries() != mp.NumberOfGeometries() ||
      back.NumberOfMasterSlaveConstraints() != mp.NumberOfMasterSlaveConstraints() ||
      back.NumberOfProperties() != mp.NumberOfProperties() ||
      back.NumberOfTables() != mp.NumberOfTables() ||
      back.NumberOfSubModelParts() != mp.NumberOfSubModelParts())
    Bug("the written model part reads back with other counts", written);
  if (tessera::MdpaWriter().WriteToString(back) != written)
    Bug("writing the read-back model part gives another text", written);
  return 0;
}
