// MdpaReader: reads a Kratos .mdpa model part file (the grammar of
// docs/file_formats.md §1) into a ModelPart, and the options of that
// read (Kratos' MESH_ONLY and the DEM stage's "consecutive from given ids"
// renumbering).
//
// Every error is a tessera::Error whose message starts with "<file>:<line>: "
// and says what was expected there.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kernel/core/types.h"

namespace tessera {

class ModelPart;
struct MeshGraph;

// The entities one rank of a distributed run keeps (ReadModelPartPiece):
// ascending ids, as the model part numbers them (after any renumbering).
struct MdpaPiece {
  std::vector<IdType> nodes, elements, conditions;
};

struct MdpaReadOptions {
  // Kratos' IO::MESH_ONLY: nodes, elements, conditions, geometries, constraints
  // and sub model part membership are read; the data blocks (ModelPartData,
  // Table, NodalData, ElementalData, ConditionalData, SubModelPartData,
  // SubModelPartTables, MeshData) are skipped, and Properties are created empty.
  bool mesh_only = false;
  // Kratos' ReorderConsecutiveFromGivenIdsModelPartIO (docs/file_formats.md §1.9): node,
  // element and condition ids are each mapped, in order of first appearance, to
  // offset + 1, offset + 2, ...; every reference in the file (connectivities,
  // NodalData, sub model part lists) goes through the same maps.
  bool renumber = false;
  IdType node_id_offset = 0;
  IdType element_id_offset = 0;
  IdType condition_id_offset = 0;
  // A rank's piece: only these nodes, elements and conditions are created;
  // the rest are read past (their ids still defined: a list, data block or
  // sub model part naming them is no error) and left out of every list and
  // data block. Master-slave constraints are refused. Null: the whole file.
  const MdpaPiece* piece = nullptr;
};

class MdpaReader {
 public:
  explicit MdpaReader(MdpaReadOptions options = {}) : options_(options) {}

  // Reads the whole file at `path` into `model_part` (usually an empty root;
  // nodes already present keep their ids and may be referred to).
  void ReadFile(const std::string& path, ModelPart& model_part) const;
  // Reads .mdpa text already in memory; `source_name` stands for the file in
  // messages. This is the entry point of the fuzzer.
  void ReadText(std::string_view text, const std::string& source_name, ModelPart& model_part) const;
  // Reads only the file's mesh graph (node ids, the elements' and conditions'
  // connectivity, the geometries' nodes, the constraints' count): the first
  // pass of ReadModelPartPiece. The file is checked as a whole read checks
  // its nodes, elements, conditions and geometries (the same file:line
  // errors); the other blocks are skipped.
  void ReadMeshGraph(const std::string& path, MeshGraph& graph) const;
  // The same for .mdpa text already in memory (the fuzzer's entry point).
  void ReadMeshGraphText(std::string_view text, const std::string& source_name,
                         MeshGraph& graph) const;

  const MdpaReadOptions& Options() const { return options_; }

 private:
  MdpaReadOptions options_;
};

}  // namespace tessera
