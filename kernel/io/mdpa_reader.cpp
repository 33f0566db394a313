// The .mdpa reader: a hand-written, single-pass scanner over the whole file in
// memory (no iostreams, no regex, numbers parsed in place with std::from_chars)
// that builds the model part block by block.
//
// The grammar is line oriented: a record is one line, tokens are separated by
// blanks (space, TAB, and CR so that CRLF files read like LF ones), `//` starts
// a comment anywhere, even glued to a token. Errors are thrown as soon as they
// are seen, prefixed with "<file>:<line>: "; errors raised by the kernel while
// the reader builds the model part (duplicate ids, table rows out of order...)
// are prefixed with the line of the record being processed. The lexing
// (records, tokens, numbers, blocks, the errors' prefix) is MdpaScanner's
// (mdpa_scanner.h); this file gives the blocks their meaning.
#include "kernel/io/mdpa_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <unordered_map>
#include <vector>

#include "kernel/core/variable_registry.h"
#include "kernel/geometries/geometry_type.h"
#include "kernel/geometries/geometry_types.h"
#include "kernel/io/mapped_file.h"
#include "kernel/io/mdpa_scanner.h"
#include "kernel/model/model.h"
#include "kernel/model/model_part.h"
#include "kernel/parallel/mesh_graph.h"
#include "kernel/registry/registry.h"

namespace tessera {
namespace {

using namespace mdpa_detail;  // the scanner (mdpa_scanner.h)

// Deep enough for any real deck; bounded so that a hostile file cannot exhaust
// the stack through recursion.
constexpr int kMaxSubModelPartDepth = 256;
// Longer names are not matched against the registries for suggestions (the
// edit distance is quadratic in the name length).
constexpr std::size_t kMaxSuggestedNameLength = 64;

// Node id -> position in the nodal database. Mesh ids are usually dense, so a
// flat vector replaces the database's hash map on the hot path (8 lookups per
// hexahedron); sparse or huge ids fall back to the hash map.
// Without a database (db null: the mesh graph's read, which creates no node)
// the sparse fallback is a map of its own.
class NodeLookup {
 public:
  explicit NodeLookup(const NodalDatabase* db) : db_(db) {
    if (db)
      for (IndexType i = 0; i < db->Size() && dense_; ++i) Add(db->Id(i), i);
  }
  IndexType Find(IdType id) const {
    if (!dense_) {
      if (db_) return db_->FindIndex(id);
      auto it = sparse_.find(id);
      return it == sparse_.end() ? kInvalidIndex : it->second;
    }
    return id >= 0 && static_cast<std::size_t>(id) < table_.size() ? table_[id] : kInvalidIndex;
  }
  void Add(IdType id, IndexType index) {
    if (!dense_) {
      if (!db_) sparse_.emplace(id, index);
      return;
    }
    ++count_;
    if (id < 0 || static_cast<std::uint64_t>(id) > 4 * count_ + (std::uint64_t{1} << 20)) {
      dense_ = false;
      if (!db_) {
        for (std::size_t k = 0; k < table_.size(); ++k)
          if (table_[k] != kInvalidIndex) sparse_.emplace(static_cast<IdType>(k), table_[k]);
        sparse_.emplace(id, index);
      }
      std::vector<IndexType>().swap(table_);
      return;
    }
    if (static_cast<std::size_t>(id) >= table_.size()) table_.resize(id + 1, kInvalidIndex);
    table_[id] = index;
  }

 private:
  const NodalDatabase* db_;
  std::vector<IndexType> table_;
  std::unordered_map<IdType, IndexType> sparse_;
  std::uint64_t count_ = 0;
  bool dense_ = true;
};

// FindNode's answer for a node the file defines and this rank's piece leaves
// out (MdpaReadOptions::piece).
constexpr IndexType kNodeNotInPiece = kInvalidIndex - 1;

bool InPiece(const std::vector<IdType>& ids, IdType id) {
  return std::binary_search(ids.begin(), ids.end(), id);
}

// The "consecutive from given ids" renumbering of one kind of entity, and
// (where tracked) which ids this file defines. Kept as runs of consecutive
// file ids defined one after another: a file whose ids ascend is one run, so
// a rank reading its piece of a large file keeps no per-id map.
class IdMap {
 public:
  // `renumber`: new ids from offset + 1 in order of definition (else each id
  // keeps its own); `track`: the definitions are recorded (always when
  // renumbering), for Refer's undefined answer, "defined twice" and Defined.
  IdMap(bool renumber, IdType offset, bool track)
      : renumber_(renumber), track_(renumber || track), next_(offset + 1) {}
  IdMap(const IdMap&) = delete;  // (last_ points into runs_)
  IdMap& operator=(const IdMap&) = delete;
  // The new id of an id being defined; -1 if it was defined before.
  IdType Define(IdType id) {
    if (!track_) return id;
    if (Defined(id)) return -1;
    const IdType new_id = renumber_ ? next_++ : id;
    // Extends the run of the previous definition where both ids follow on.
    if (last_ != runs_.end() && id == last_->first + last_->second.count &&
        new_id == last_->second.first_new + last_->second.count)
      ++last_->second.count;
    else
      last_ = runs_.emplace(id, Run{new_id, 1}).first;
    return new_id;
  }
  // The new id of a referenced id; -1 if renumbering and it was never defined
  // (without renumbering an id not of this file keeps its own: entities
  // already in the model part may be referred to).
  IdType Refer(IdType id) const {
    if (!track_) return id;
    const auto run = RunOf(id);
    if (run != runs_.end()) return run->second.first_new + (id - run->first);
    return renumber_ ? -1 : id;
  }
  // Whether this file defined `id` (tracked maps only).
  bool Defined(IdType id) const { return RunOf(id) != runs_.end(); }

 private:
  struct Run {
    IdType first_new, count;
  };
  using Runs = std::map<IdType, Run>;  // by first file id
  Runs::const_iterator RunOf(IdType id) const {
    auto run = runs_.upper_bound(id);
    if (run == runs_.begin()) return runs_.end();
    --run;
    return id < run->first + run->second.count ? run : runs_.end();
  }
  bool renumber_, track_;
  IdType next_;
  Runs runs_;
  Runs::iterator last_ = runs_.end();
};

enum class ListKind { Nodes, Elements, Conditions, Properties, Tables, Geometries, Constraints };

class Parser : MdpaScanner {
 public:
  // With `graph`, the first pass of a piece's read: only the mesh graph is
  // filled in (target stays empty).
  Parser(std::string_view text, const std::string& source, ModelPart& target,
         const MdpaReadOptions& options, MeshGraph* graph = nullptr)
      : MdpaScanner(text, source),
        target_(target),
        root_(target.GetRootModelPart()),
        db_(target.Nodal()),
        options_(options),
        graph_(graph),
        piece_(graph ? nullptr : options.piece),
        nodes_(graph ? nullptr : &db_),
        // A piece's read and the graph's know the file's ids (a left-out
        // entity's references are skipped; an id defined twice is an error).
        node_ids_(options.renumber, options.node_id_offset, graph || options.piece),
        element_ids_(options.renumber, options.element_id_offset, graph || options.piece),
        condition_ids_(options.renumber, options.condition_id_offset, graph || options.piece) {}

  void Read() {
    try {
      ReadTopLevel();
    } catch (const MdpaError&) {
      throw;
    } catch (const Error& e) {
      // Raised by the kernel while building the model part from this record.
      throw MdpaError(source_ + ":" + std::to_string(record_line_) + ": " + e.what());
    }
  }

 private:
  void ReadTopLevel() {
    while (NextRecord()) {
      const std::string_view word = Word();
      if (word == "End") Fail("'End ", Shorten(Word()), "' without a matching 'Begin'");
      if (word != "Begin")
        Fail("expected 'Begin <block>' at the top level, got '", Shorten(word), "'");
      const Block b{Word(), record_line_};
      if (b.kind.empty()) Fail("expected a block name after 'Begin'");
      OpenBlock open(*this, b);
      const std::string_view k = b.kind;
      if (k == "ModelPartData") {
        ExpectLineEnd("'Begin ModelPartData'");
        if (options_.mesh_only || graph_)
          SkipBlockBody(b);
        else
          ReadDataBlock(b, target_.Data());
      } else if (k == "Table") {
        if (!SkippedForTheGraph(b)) ReadTable(b);
      } else if (k == "Properties") {
        if (!SkippedForTheGraph(b)) ReadProperties(b);
      } else if (k == "Nodes") {
        ReadNodes(b);
      } else if (k == "Geometries") {
        ReadGeometries(b);
      } else if (k == "Elements") {
        ReadEntities<Element>(b);
      } else if (k == "Conditions") {
        ReadEntities<Condition>(b);
      } else if (k == "Constraints") {
        ReadConstraints(b);
      } else if (k == "NodalData") {
        if (!SkippedForTheGraph(b)) ReadNodalData(b);
      } else if (k == "ElementalData") {
        if (!SkippedForTheGraph(b)) ReadEntityData<Element>(b);
      } else if (k == "ConditionalData") {
        if (!SkippedForTheGraph(b)) ReadEntityData<Condition>(b);
      } else if (k == "SubModelPart") {
        if (!SkippedForTheGraph(b)) ReadSubModelPart(b, target_, 1);
      } else if (k == "Mesh") {
        if (!SkippedForTheGraph(b)) ReadMesh(b);
      } else {
        FailUnknownBlock(b, "at the top level",
                         "ModelPartData, Table, Properties, Nodes, Geometries, Elements, "
                         "Conditions, Constraints, NodalData, ElementalData, ConditionalData, "
                         "SubModelPart, Mesh");
      }
    }
  }

  // The mesh graph's read skips every block but the mesh's, the rest of its
  // header line included.
  bool SkippedForTheGraph(const Block& b) {
    if (!graph_) return false;
    NextLine();
    SkipBlockBody(b);
    return true;
  }

  // ------------------------------------------------------------------ variables and values
  const VariableBase& LookupVariable(std::string_view name) {
    if (const VariableBase* v = VariableRegistry::Instance().Find(name)) return *v;
    if (name.size() > kMaxSuggestedNameLength) Fail("unknown variable '", Shorten(name), "'");
    try {
      VariableRegistry::Instance().Get(name);
    } catch (const Error& e) {
      Fail(e.what());
    }
    Fail("unknown variable '", name, "'");
  }

  // `VARIABLE value` records until the block's End (ModelPartData,
  // SubModelPartData, MeshData).
  void ReadDataBlock(const Block& b, DataValueContainer& data) {
    while (NextInBlock(b)) {
      const std::string_view name = Word();
      if (name == "Begin")
        Fail("a nested block may not appear in ", b.kind, " (opened at line ", b.begin_line, ")");
      const VariableBase& variable = LookupVariable(name);
      data.SetValue(variable, ParseValue(variable));
      ExpectLineEnd("the value of ", variable.Name());
    }
  }

  // A value of the kind `variable` holds.
  Value ParseValue(const VariableBase& variable) {
    if (AtLineEnd()) Fail("missing value for ", variable.Name());
    switch (variable.Kind()) {
      case ValueKind::String:
        return ParseString();
      case ValueKind::Bool: {
        const std::string_view w = Word();
        if (w == "true" || w == "True" || w == "TRUE" || w == "1") return true;
        if (w == "false" || w == "False" || w == "FALSE" || w == "0") return false;
        Fail("expected true, false, 1 or 0 for ", variable.Name(), " (a bool), got '", Shorten(w),
             "'");
      }
      case ValueKind::Double: {
        if (*p_ == '[') Fail(variable.Name(), " holds a double, got a vector or matrix");
        double v;
        if (!ScanDouble(v, false))
          Fail("expected a number for ", variable.Name(), " (a double), got ", PeekToken());
        return v;
      }
      case ValueKind::Int: {
        if (*p_ == '[') Fail(variable.Name(), " holds an int, got a vector or matrix");
        long long i = 0;
        auto [q, ec] = std::from_chars(p_, end_, i);
        if (ec == std::errc() && IsDelimiter(q) && i >= std::numeric_limits<int>::min() &&
            i <= std::numeric_limits<int>::max()) {
          p_ = q;
          return static_cast<int>(i);
        }
        double d;
        const char* save = p_;
        if (ScanDouble(d, false) && d == std::floor(d) && d >= std::numeric_limits<int>::min() &&
            d <= std::numeric_limits<int>::max())
          return static_cast<int>(d);
        p_ = save;
        Fail("expected an integer for ", variable.Name(), " (an int), got ", PeekToken());
      }
      case ValueKind::Array3:
      case ValueKind::Vector:
      case ValueKind::Quaternion:
      case ValueKind::Matrix:
        break;
    }
    if (*p_ != '[')
      Fail("expected a value like ",
           variable.Kind() == ValueKind::Matrix ? "[r,c]((..),(..))" : "[n](v1, ..., vn)", " for ",
           variable.Name(), " (a ", ValueKindName(variable.Kind()), "), got ", PeekToken());
    Value value = ParseBracketValue(false);
    const bool is_matrix = std::holds_alternative<Matrix>(value);
    switch (variable.Kind()) {
      case ValueKind::Matrix:
        if (!is_matrix)
          Fail(variable.Name(), " holds a matrix: expected [r,c]((..),(..)), got a vector");
        return value;
      case ValueKind::Vector:
        if (is_matrix) Fail(variable.Name(), " holds a vector, got a matrix");
        return value;
      case ValueKind::Array3:
      case ValueKind::Quaternion: {
        const int n = variable.Kind() == ValueKind::Array3 ? 3 : 4;
        if (is_matrix)
          Fail(variable.Name(), " holds a ", ValueKindName(variable.Kind()), ", got a matrix");
        const Vector& v = std::get<Vector>(value);
        if (v.size() != n)
          Fail(variable.Name(), " holds a ", ValueKindName(variable.Kind()), ": expected [", n,
               "](...) with ", n, " values, got [", v.size(), "]");
        if (n == 3) return Array3{v[0], v[1], v[2]};
        return Quaternion{v[0], v[1], v[2], v[3]};
      }
      default:
        break;
    }
    return value;
  }

  Value ParseString() {
    SkipBlanks();
    if (*p_ == '"') {
      const char* start = ++p_;
      while (p_ < end_ && *p_ != '"' && *p_ != '\n') ++p_;
      if (p_ >= end_ || *p_ != '"') Fail("unterminated quoted string");
      std::string s(start, static_cast<std::size_t>(p_ - start));
      ++p_;
      if (!IsDelimiter(p_)) Fail("unexpected ", PeekToken(), " after a quoted string");
      return s;
    }
    return std::string(Word());
  }

  void Expect(char c, const char* context) {
    SkipBlanks();
    if (p_ >= end_ || *p_ != c)
      Fail("expected '", c, "' ", context, ", got ",
           p_ < end_ && *p_ != '\n' ? "'" + std::string(1, *p_) + "'" : PeekToken());
    ++p_;
  }
  // Numbers separated by commas up to `close` (the opening char is consumed).
  std::vector<double> ParseNumberList(char close, const char* context) {
    std::vector<double> values;
    SkipBlanks();
    if (p_ < end_ && *p_ == close) {
      ++p_;
      return values;
    }
    for (;;) {
      SkipBlanks();
      double v;
      if (!ScanDouble(v, true)) {
        const char* q = p_;
        while (q < end_ && !IsBlank(*q) && *q != '\n' && *q != ',' && *q != close) ++q;
        Fail("expected a number in ", context, ", got ",
             q == p_ ? PeekToken()
                     : "'" + Shorten(std::string_view(p_, static_cast<std::size_t>(q - p_))) + "'");
      }
      values.push_back(v);
      SkipBlanks();
      if (p_ < end_ && *p_ == ',') {
        ++p_;
        continue;
      }
      Expect(close, context);
      return values;
    }
  }
  static bool IsCount(double d) { return d >= 0 && d <= 1e9 && d == std::floor(d); }

  // `[n](v1, ..., vn)` -> Vector, `[r,c]((..),..)` -> Matrix; with
  // allow_bare_list, also `[v1, ..., vn]` -> Vector (constraint weights).
  Value ParseBracketValue(bool allow_bare_list) {
    ++p_;  // '['
    const std::vector<double> header = ParseNumberList(']', "the [...] of a value");
    SkipBlanks();
    if (p_ >= end_ || *p_ != '(') {
      if (allow_bare_list) {
        Vector v(static_cast<Eigen::Index>(header.size()));
        for (std::size_t i = 0; i < header.size(); ++i) v[i] = header[i];
        return v;
      }
      Fail("expected '(' after [", header.empty() ? "" : "n", "], got ", PeekToken());
    }
    if (header.size() == 1 && IsCount(header[0])) {
      ++p_;
      const std::vector<double> values = ParseNumberList(')', "a vector value");
      if (values.size() != static_cast<std::size_t>(header[0]))
        Fail("vector declared as [", static_cast<long long>(header[0]), "] has ", values.size(),
             " values");
      Vector v(static_cast<Eigen::Index>(values.size()));
      for (std::size_t i = 0; i < values.size(); ++i) v[i] = values[i];
      return v;
    }
    if (header.size() == 2 && IsCount(header[0]) && IsCount(header[1])) {
      const auto rows = static_cast<std::size_t>(header[0]);
      const auto cols = static_cast<std::size_t>(header[1]);
      ++p_;
      std::vector<double> values;
      std::size_t row = 0;
      SkipBlanks();
      if (p_ < end_ && *p_ == ')') {
        ++p_;
      } else {
        for (;;) {
          Expect('(', "to open a matrix row");
          const std::vector<double> r = ParseNumberList(')', "a matrix row");
          if (r.size() != cols)
            Fail("row ", row + 1, " of a matrix declared as [", rows, ",", cols, "] has ", r.size(),
                 " values");
          if (++row > rows) Fail("matrix declared as [", rows, ",", cols, "] has more rows");
          values.insert(values.end(), r.begin(), r.end());
          SkipBlanks();
          if (p_ < end_ && *p_ == ',') {
            ++p_;
            continue;
          }
          Expect(')', "to close the matrix");
          break;
        }
      }
      if (row != rows) Fail("matrix declared as [", rows, ",", cols, "] has ", row, " rows");
      Matrix m(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
      for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) m(i, j) = values[i * cols + j];
      return m;
    }
    Fail("expected [n] or [rows,cols] before '(', with non-negative integers");
  }

  // ------------------------------------------------------------------ nodes
  // `who` (with who_id) names the entity referring to the node, if any.
  IndexType FindNode(IdType file_id, const char* who = nullptr, IdType who_id = 0) {
    const IdType id = node_ids_.Refer(file_id);
    const IndexType index = id < 0 ? kInvalidIndex : nodes_.Find(id);
    if (index == kInvalidIndex) {
      if (piece_ && node_ids_.Defined(file_id)) return kNodeNotInPiece;
      if (who) Fail(who, " ", who_id, " refers to node ", file_id, ", which is not defined");
      Fail("node ", file_id, " is not defined");
    }
    return index;
  }
  IndexType ParseNodeRef(const char* who, IdType who_id) {
    return FindNode(ParseId("a node id"), who, who_id);
  }

  void ReadNodes(const Block& b) {
    ExpectLineEnd("'Begin Nodes'");
    if (!graph_) ReserveNodes();
    while (NextInBlock(b)) {
      const IdType file_id = ParseId("a node id (or 'End Nodes')");
      const double x = ParseDouble("the x coordinate of node", &file_id);
      const double y = ParseDouble("the y coordinate of node", &file_id);
      const double z = ParseDouble("the z coordinate of node", &file_id);
      ExpectLineEnd("the coordinates of node ", file_id);
      const IdType id = node_ids_.Define(file_id);
      if (id < 0) FailAt(record_line_, "node ", file_id, " is defined twice");
      if (graph_) {
        if (nodes_.Find(id) != kInvalidIndex)
          FailAt(record_line_, "node ", file_id, " is defined twice");
        nodes_.Add(id, static_cast<IndexType>(graph_->node_ids.size()));
        graph_->node_ids.push_back(id);
        continue;
      }
      if (piece_ && !InPiece(piece_->nodes, id)) {
        if (nodes_.Find(id) != kInvalidIndex)
          FailAt(record_line_, "node ", file_id, " is defined twice");
        continue;
      }
      const IndexType index = target_.CreateNewNode(id, x, y, z).Index();
      nodes_.Add(id, index);
    }
  }
  // A big Nodes block reserves its columns once: its line count (up to the
  // next "End") bounds the number of nodes. Small blocks do not, so that many
  // one-node blocks (DEM decks) keep the vectors' geometric growth.
  void ReserveNodes() {
    const std::string_view rest(p_, static_cast<std::size_t>(end_ - p_));
    const std::size_t stop = std::min(rest.find("End"), rest.size());
    auto lines = static_cast<std::size_t>(std::count(p_, p_ + stop, '\n'));
    if (piece_) lines = std::min(lines, piece_->nodes.size());  // a piece keeps no more
    if (lines >= 4096 && lines >= db_.Size()) db_.Reserve(db_.Size() + lines);
  }

  // ------------------------------------------------------------------ elements and conditions
  template <class T>
  void ReadEntities(const Block& b) {
    constexpr bool is_element = std::is_same_v<T, Element>;
    const char* kind = is_element ? "element" : "condition";
    const std::string name(Word());
    if (name.empty()) Fail("expected ", kind, " name after 'Begin ", b.kind, "'");
    ExpectLineEnd("'Begin ", b.kind, " ", name, "'");
    Registry& registry = Registry::Instance();
    const T* prototype;
    if constexpr (is_element)
      prototype = registry.ElementPrototype(name);
    else
      prototype = registry.ConditionPrototype(name);
    if (!prototype) {
      if (name.size() > kMaxSuggestedNameLength)
        FailAt(b.begin_line, "unknown ", kind, " '", Shorten(name), "'");
      try {
        if constexpr (is_element)
          registry.ElementGeometry(name);
        else
          registry.ConditionGeometry(name);
      } catch (const Error& e) {
        FailAt(b.begin_line, e.what());
      }
    }
    const GeometryType& type =
        is_element ? registry.ElementGeometry(name) : registry.ConditionGeometry(name);
    const int points = type.PointsNumber();
    IdMap& ids = is_element ? element_ids_ : condition_ids_;
    // The dual graph's face size counts the cell types of elements read (as
    // MeshGraphOf does): an empty block changes nothing.
    const int common = graph_ && is_element ? DualGraphCommonNodes(type) : 0;
    const std::vector<IdType>* in_piece =
        piece_ ? (is_element ? &piece_->elements : &piece_->conditions) : nullptr;
    NodalDatabase* db = &db_;
    IdType last_properties_id = -1;
    Properties::Pointer properties;
    while (NextInBlock(b)) {
      const IdType file_id = ParseId(is_element ? "an element id (or 'End Elements')"
                                                : "a condition id (or 'End Conditions')");
      const IdType properties_id = ParseId("a properties id");
      Geometry::NodeIndices nodes;
      for (int k = 0; k < points; ++k) {
        if (AtLineEnd())
          Fail(kind, " ", file_id, ": ", name, " (", type.Name(), ") has ", points,
               " nodes, the line gives ", k);
        nodes.push_back(ParseNodeRef(kind, file_id));
      }
      if (!AtLineEnd())
        Fail(kind, " ", file_id, ": ", name, " (", type.Name(), ") has ", points,
             " nodes, the line gives more");
      NextLine();
      const IdType id = ids.Define(file_id);
      if (id < 0) FailAt(record_line_, kind, " ", file_id, " is defined twice");
      if (graph_) {
        if (common > 0)
          graph_->common_nodes =
              graph_->common_nodes == 0 ? common : std::min(graph_->common_nodes, common);
        (is_element ? graph_->element_ids : graph_->condition_ids).push_back(id);
        std::vector<IdType>& connectivity =
            is_element ? graph_->element_nodes : graph_->condition_nodes;
        for (IndexType n : nodes) connectivity.push_back(graph_->node_ids[n]);
        (is_element ? graph_->element_offsets : graph_->condition_offsets)
            .push_back(static_cast<std::int64_t>(connectivity.size()));
        continue;
      }
      if (properties_id != last_properties_id) {
        // Created for every entity read, kept or not: the same properties as a
        // whole read's.
        properties = target_.GetPropertiesOrCreate(properties_id);
        last_properties_id = properties_id;
      }
      if (in_piece && !InPiece(*in_piece, id)) continue;
      if (in_piece && std::find(nodes.begin(), nodes.end(), kNodeNotInPiece) != nodes.end())
        Fail(kind, " ", file_id, " is in this rank's piece and uses a node that is not ",
             "(the piece is not a plan of this file)");
      auto entity = prototype->Create(id, Geometry(&type, db, std::move(nodes)), properties);
      if constexpr (is_element)
        target_.AddElement(std::move(entity));
      else
        target_.AddCondition(std::move(entity));
    }
  }

  void ReadGeometries(const Block& b) {
    const std::string name(Word());
    if (name.empty()) Fail("expected a geometry type after 'Begin Geometries'");
    ExpectLineEnd("'Begin Geometries ", name, "'");
    const GeometryType* type = FindGeometryType(name);
    if (!type) {
      try {
        GetGeometryType(name);
      } catch (const Error& e) {
        FailAt(b.begin_line, e.what());
      }
      FailAt(b.begin_line, "unknown geometry type '", Shorten(name), "'");
    }
    std::vector<IdType> node_ids;
    while (NextInBlock(b)) {
      const IdType id = ParseId("a geometry id (or 'End Geometries')");
      node_ids.clear();
      for (int k = 0; k < type->PointsNumber(); ++k) {
        if (AtLineEnd())
          Fail("geometry ", id, ": ", name, " has ", type->PointsNumber(),
               " nodes, the line gives ", k);
        const IdType node = ParseId("a node id");
        FindNode(node, "geometry", id);
        node_ids.push_back(node_ids_.Refer(node));
      }
      if (!AtLineEnd())
        Fail("geometry ", id, ": ", name, " has ", type->PointsNumber(),
             " nodes, the line gives more");
      NextLine();
      if (graph_) {  // every rank keeps the geometries and their nodes
        graph_->geometry_nodes.insert(graph_->geometry_nodes.end(), node_ids.begin(),
                                      node_ids.end());
        continue;
      }
      if (root_.HasGeometry(id)) FailAt(record_line_, "geometry ", id, " is defined twice");
      target_.CreateNewGeometry(name, id, node_ids);
    }
  }

  void ReadConstraints(const Block& b) {
    const std::string_view type = Word();
    if (type != "LinearMasterSlaveConstraint")
      Fail("unknown constraint type '", Shorten(type),
           "' after 'Begin Constraints'; expected LinearMasterSlaveConstraint");
    const std::string_view variable_name = Word();
    if (variable_name.empty()) Fail("expected a variable after 'Begin Constraints ", type, "'");
    const VariableBase& variable = LookupVariable(variable_name);
    if (variable.Kind() != ValueKind::Double)
      Fail("a constraint acts on a scalar or a component; ", variable.Name(), " holds a ",
           ValueKindName(variable.Kind()));
    ExpectLineEnd("'Begin Constraints ", type, " ", variable_name, "'");
    if (graph_) {  // counted: a piece's plan refuses them
      while (NextInBlock(b)) {
        ++graph_->master_slave_constraints;
        NextLine();
      }
      return;
    }
    if (piece_) FailAt(b.begin_line, "master-slave constraints are not distributed yet");
    while (NextInBlock(b)) {
      MasterSlaveConstraint c;
      c.id = ParseId("a constraint id (or 'End Constraints')");
      c.type = std::string(type);
      c.variable = &variable;
      c.constant = ParseDouble("the constant of constraint", &c.id);
      SkipBlanks();
      if (p_ >= end_ || *p_ != '[')
        Fail("expected the weights [n](w1, ..., wn) of constraint ", c.id, ", got ", PeekToken());
      const Value weights = ParseBracketValue(true);
      if (!std::holds_alternative<Vector>(weights))
        Fail("the weights of constraint ", c.id, " must be a vector, got a matrix");
      const Vector& w = std::get<Vector>(weights);
      c.weights.assign(w.data(), w.data() + w.size());
      if (AtLineEnd()) Fail("constraint ", c.id, ": expected the slave node id");
      c.slave = ParseNodeRef("constraint", c.id);
      for (std::size_t k = 0; k < c.weights.size(); ++k) {
        if (AtLineEnd())
          Fail("constraint ", c.id, " has ", c.weights.size(), " weights but ", k,
               " master nodes; expected one master node per weight");
        c.masters.push_back(ParseNodeRef("constraint", c.id));
      }
      if (!AtLineEnd())
        Fail("constraint ", c.id, " has ", c.weights.size(),
             " weights but more master nodes; expected one master node per weight");
      NextLine();
      if (root_.HasMasterSlaveConstraint(c.id))
        FailAt(record_line_, "constraint ", c.id, " is defined twice");
      target_.AddMasterSlaveConstraint(std::move(c));
    }
  }

  // ------------------------------------------------------------------ properties and tables
  void ReadProperties(const Block& b) {
    const IdType id = ParseId("a properties id after 'Begin Properties'");
    ExpectLineEnd("'Begin Properties ", id, "'");
    if (auto [it, inserted] = properties_lines_.emplace(id, b.begin_line); !inserted)
      FailAt(b.begin_line, "properties ", id, " is defined twice (first at line ", it->second, ")");
    Properties::Pointer properties = target_.CreateNewProperties(id);
    if (options_.mesh_only) {
      SkipBlockBody(b);
      return;
    }
    while (NextInBlock(b)) {
      const std::string_view name = Word();
      if (name == "Begin") {
        const Block table{Word(), record_line_};
        if (table.kind != "Table")
          Fail(
              "only 'Begin Table <X_VARIABLE> <Y_VARIABLE>' may be nested in Properties, got "
              "'Begin ",
              Shorten(table.kind), "'");
        OpenBlock open(*this, table);
        ReadPropertiesTable(table, *properties);
        continue;
      }
      const VariableBase& variable = LookupVariable(name);
      properties->Data().SetValue(variable, ParseValue(variable));
      ExpectLineEnd("the value of ", variable.Name());
    }
  }

  void ReadPropertiesTable(const Block& b, Properties& properties) {
    std::string_view x_name = Word();
    // An id before the variables is tolerated (it means nothing here).
    if (!x_name.empty() &&
        std::all_of(x_name.begin(), x_name.end(), [](char c) { return c >= '0' && c <= '9'; }))
      x_name = Word();
    const std::string_view y_name = Word();
    if (x_name.empty() || y_name.empty())
      Fail("expected 'Begin Table <X_VARIABLE> <Y_VARIABLE>' inside Properties ", properties.Id());
    const VariableBase& x = LookupVariable(x_name);
    const VariableBase& y = LookupVariable(y_name);
    ExpectLineEnd("'Begin Table ", x_name, " ", y_name, "'");
    Table table(x.Name(), y.Name());
    ReadTableRows(b, table);
    properties.SetTable(x, y, std::move(table));
  }

  void ReadTableRows(const Block& b, Table& table) {
    while (NextInBlock(b)) {
      const double x = ParseDouble("a table row 'x y' (or 'End Table')");
      const double y = ParseDouble("the y value of a table row");
      ExpectLineEnd("a table row");
      table.AddRow(x, y);
    }
  }

  void ReadTable(const Block& b) {
    const IdType id = ParseId("a table id after 'Begin Table'");
    const std::string_view x_name = Word();
    const std::string_view y_name = Word();
    if (!x_name.empty() && y_name.empty())
      Fail("expected 'Begin Table <id> <X_VARIABLE> <Y_VARIABLE>'");
    ExpectLineEnd("'Begin Table ", id, "'");
    if (options_.mesh_only) {
      SkipBlockBody(b);
      return;
    }
    if (root_.HasTable(id)) FailAt(b.begin_line, "table ", id, " is defined twice");
    Table table{std::string(x_name), std::string(y_name)};
    ReadTableRows(b, table);
    target_.AddTable(id, std::move(table));
  }

  // ------------------------------------------------------------------ nodal and entity data
  void ReadNodalData(const Block& b) {
    const std::string_view name = Word();
    if (name.empty()) Fail("expected a variable or flag after 'Begin NodalData'");
    ExpectLineEnd("'Begin NodalData ", name, "'");
    if (options_.mesh_only) {
      SkipBlockBody(b);
      return;
    }
    const VariableBase* variable = VariableRegistry::Instance().Find(name);
    if (!variable) {
      if (const Flag* flag = VariableRegistry::Instance().FindFlag(name)) {
        // A flag: the ids of the nodes it is set on, one or more per line.
        while (NextInBlock(b)) {
          while (!AtLineEnd()) {
            const IndexType i = FindNode(ParseId("a node id (or 'End NodalData')"));
            if (i != kNodeNotInPiece) db_.Flags(i) |= flag->Mask();
          }
          NextLine();
        }
        return;
      }
      variable = &LookupVariable(name);
    }
    const bool historical = db_.HasHistoricalVariable(*variable);
    // Scalars (and components) are by far the most common: write them in place.
    double* scalars = nullptr;
    Array3* vectors = nullptr;
    const int component = variable->ComponentIndex();
    if (historical && variable->Kind() == ValueKind::Double) {
      if (variable->IsComponent())
        vectors =
            static_cast<TypedDataColumn<Array3>&>(db_.HistoricalColumnBase(*variable->Source()))
                .Data();
      else
        scalars = static_cast<TypedDataColumn<double>&>(db_.HistoricalColumnBase(*variable)).Data();
    }
    while (NextInBlock(b)) {
      const IdType file_id = ParseId("a node id (or 'End NodalData')");
      const IndexType i = FindNode(file_id);
      if (i == kNodeNotInPiece) {  // another rank's node: its value is read there
        NextLine();
        continue;
      }
      const IdType fixed = ParseId("the fixity flag (0 or 1) after the node id");
      if (fixed > 1) Fail("the fixity flag of node ", file_id, " must be 0 or 1, got ", fixed);
      if (scalars) {
        scalars[i] = ParseDouble("the value of node", &file_id);
      } else if (vectors) {
        vectors[i][component] = ParseDouble("the value of node", &file_id);
      } else {
        const Value value = ParseValue(*variable);
        if (historical)
          db_.SetHistorical(*variable, i, value);
        else
          db_.SetNonHistorical(*variable, i, value);
      }
      ExpectLineEnd("the value of node ", file_id);
      if (fixed) Fix(*variable, i);
    }
  }

  // Fixes the degree of freedom; a 3-vector fixes its three components.
  void Fix(const VariableBase& variable, IndexType node) {
    if (variable.Kind() == ValueKind::Double) {
      db_.Fix(variable, node);
      return;
    }
    if (variable.Kind() == ValueKind::Array3) {
      const VariableBase* components[3];
      int found = 0;
      for (const char* suffix : {"_X", "_Y", "_Z"}) {
        const VariableBase* c = VariableRegistry::Instance().Find(variable.Name() + suffix);
        if (c && c->Source() == &variable) components[found++] = c;
      }
      if (found == 3) {
        for (const VariableBase* c : components) db_.Fix(*c, node);
        return;
      }
    }
    FailAt(record_line_, "cannot fix ", variable.Name(), " (a ", ValueKindName(variable.Kind()),
           "): a degree of freedom is a scalar or a component");
  }

  template <class T>
  void ReadEntityData(const Block& b) {
    constexpr bool is_element = std::is_same_v<T, Element>;
    const char* kind = is_element ? "element" : "condition";
    const std::string_view name = Word();
    if (name.empty()) Fail("expected a variable after 'Begin ", b.kind, "'");
    ExpectLineEnd("'Begin ", b.kind, " ", name, "'");
    if (options_.mesh_only) {
      SkipBlockBody(b);
      return;
    }
    if (!VariableRegistry::Instance().Find(name) && VariableRegistry::Instance().FindFlag(name))
      Fail("flag ", name, " cannot be given in ", b.kind, " (flags are read in NodalData only)");
    const VariableBase& variable = LookupVariable(name);
    IdMap& ids = is_element ? element_ids_ : condition_ids_;
    while (NextInBlock(b)) {
      const IdType file_id = ParseId(is_element ? "an element id (or 'End ElementalData')"
                                                : "a condition id (or 'End ConditionalData')");
      const IdType id = ids.Refer(file_id);
      T* entity = nullptr;
      if constexpr (is_element) {
        if (id >= 0 && target_.HasElement(id)) entity = &target_.GetElement(id);
      } else {
        if (id >= 0 && target_.HasCondition(id)) entity = &target_.GetCondition(id);
      }
      if (!entity) {
        if (piece_ && ids.Defined(file_id)) {
          NextLine();  // another rank's entity
          continue;
        }
        Fail(kind, " ", file_id, " is not defined");
      }
      entity->Data().SetValue(variable, ParseValue(variable));
      ExpectLineEnd("the value of ", kind, " ", file_id);
    }
  }

  // ------------------------------------------------------------------ sub model parts
  ModelPart& CreateSubModelPart(ModelPart& parent, std::string_view name, const Block& b) {
    if (name.empty()) Fail("expected a name after 'Begin ", b.kind, "'");
    if (name.find('.') != std::string_view::npos)
      Fail("sub model part name '", Shorten(name), "' must not contain '.'");
    return parent.CreateSubModelPart(std::string(name));
  }

  void ReadSubModelPart(const Block& b, ModelPart& parent, int depth) {
    if (depth > kMaxSubModelPartDepth)
      Fail("sub model parts are nested deeper than ", kMaxSubModelPartDepth, " levels");
    const std::string_view name = Word();
    ModelPart& part = CreateSubModelPart(parent, name, b);
    ExpectLineEnd("'Begin SubModelPart ", name, "'");
    while (NextInBlock(b)) {
      if (const std::string_view w = Word(); w != "Begin")
        Fail("expected 'Begin SubModelPart...' or 'End SubModelPart' inside sub model part ",
             part.FullName(), " (opened at line ", b.begin_line, "), got '", Shorten(w), "'");
      const Block sub{Word(), record_line_};
      OpenBlock open(*this, sub);
      const std::string_view k = sub.kind;
      if (k == "SubModelPartData") {
        ExpectLineEnd("'Begin SubModelPartData'");
        if (options_.mesh_only)
          SkipBlockBody(sub);
        else
          ReadDataBlock(sub, part.Data());
      } else if (k == "SubModelPartTables") {
        if (options_.mesh_only) {
          ExpectLineEnd("'Begin SubModelPartTables'");
          SkipBlockBody(sub);
        } else {
          ReadIdList(sub, ListKind::Tables, part);
        }
      } else if (k == "SubModelPartProperties") {
        ReadIdList(sub, ListKind::Properties, part);
      } else if (k == "SubModelPartNodes") {
        ReadIdList(sub, ListKind::Nodes, part);
      } else if (k == "SubModelPartElements") {
        ReadIdList(sub, ListKind::Elements, part);
      } else if (k == "SubModelPartConditions") {
        ReadIdList(sub, ListKind::Conditions, part);
      } else if (k == "SubModelPartGeometries") {
        ReadIdList(sub, ListKind::Geometries, part);
      } else if (k == "SubModelPartConstraints") {
        ReadIdList(sub, ListKind::Constraints, part);
      } else if (k == "SubModelPart") {
        ReadSubModelPart(sub, part, depth + 1);
      } else {
        FailUnknownBlock(sub, "inside a SubModelPart",
                         "SubModelPartData, SubModelPartTables, SubModelPartProperties, "
                         "SubModelPartNodes, SubModelPartElements, SubModelPartConditions, "
                         "SubModelPartGeometries, SubModelPartConstraints, SubModelPart");
      }
    }
  }

  // The legacy (pre-2017) `Begin Mesh <id>` block. Kratos kept such meshes as
  // numbered meshes of the model part; that they stand for a sub model part
  // named by the id is an inference (docs/file_formats.md §1.7), as the DEM
  // legacy decks use them like the newer sub model parts (a group of nodes
  // with its data).
  void ReadMesh(const Block& b) {
    const std::string_view name = Word();
    ModelPart& part = CreateSubModelPart(target_, name, b);
    ExpectLineEnd("'Begin Mesh ", name, "'");
    while (NextInBlock(b)) {
      if (const std::string_view w = Word(); w != "Begin")
        Fail("expected 'Begin Mesh...' or 'End Mesh' inside Mesh ", name, " (opened at line ",
             b.begin_line, "), got '", Shorten(w), "'");
      const Block sub{Word(), record_line_};
      OpenBlock open(*this, sub);
      const std::string_view k = sub.kind;
      if (k == "MeshData") {
        ExpectLineEnd("'Begin MeshData'");
        if (options_.mesh_only)
          SkipBlockBody(sub);
        else
          ReadDataBlock(sub, part.Data());
      } else if (k == "MeshNodes") {
        ReadIdList(sub, ListKind::Nodes, part);
      } else if (k == "MeshElements") {
        ReadIdList(sub, ListKind::Elements, part);
      } else if (k == "MeshConditions") {
        ReadIdList(sub, ListKind::Conditions, part);
      } else {
        FailUnknownBlock(sub, "inside a Mesh", "MeshData, MeshNodes, MeshElements, MeshConditions");
      }
    }
  }

  // A list of ids (any number per line), checked against the root as read and
  // added to `part` in one batch at the block's End.
  void ReadIdList(const Block& b, ListKind kind, ModelPart& part) {
    ExpectLineEnd("'Begin ", b.kind, "'");
    std::vector<IndexType> node_indices;
    std::vector<IdType> ids;
    while (NextInBlock(b)) {
      while (!AtLineEnd()) {
        const IdType file_id = ParseId("an id");
        switch (kind) {
          case ListKind::Nodes:
            if (const IndexType i = FindNode(file_id); i != kNodeNotInPiece)
              node_indices.push_back(i);
            continue;
          case ListKind::Elements: {
            const IdType id = element_ids_.Refer(file_id);
            if (id < 0 || !root_.HasElement(id)) {
              if (piece_ && element_ids_.Defined(file_id)) continue;  // another rank's
              Fail("element ", file_id, " is not defined");
            }
            ids.push_back(id);
            continue;
          }
          case ListKind::Conditions: {
            const IdType id = condition_ids_.Refer(file_id);
            if (id < 0 || !root_.HasCondition(id)) {
              if (piece_ && condition_ids_.Defined(file_id)) continue;  // another rank's
              Fail("condition ", file_id, " is not defined");
            }
            ids.push_back(id);
            continue;
          }
          case ListKind::Properties:
            if (!root_.HasProperties(file_id)) Fail("properties ", file_id, " is not defined");
            break;
          case ListKind::Tables:
            if (!root_.HasTable(file_id)) Fail("table ", file_id, " is not defined");
            break;
          case ListKind::Geometries:
            if (!root_.HasGeometry(file_id)) Fail("geometry ", file_id, " is not defined");
            break;
          case ListKind::Constraints:
            if (!root_.HasMasterSlaveConstraint(file_id))
              Fail("constraint ", file_id, " is not defined");
            break;
        }
        ids.push_back(file_id);
      }
      NextLine();
    }
    switch (kind) {
      case ListKind::Nodes:
        part.AddNodesByIndex(std::move(node_indices));
        break;
      case ListKind::Elements:
        part.AddElements(ids);
        break;
      case ListKind::Conditions:
        part.AddConditions(ids);
        break;
      case ListKind::Properties:
        for (IdType id : ids) part.AddPropertiesById(id);
        break;
      case ListKind::Tables:
        for (IdType id : ids) part.AddTableById(id);
        break;
      case ListKind::Geometries:
        part.AddGeometries(ids);
        break;
      case ListKind::Constraints:
        part.AddMasterSlaveConstraints(ids);
        break;
    }
  }

  // ------------------------------------------------------------------ state
  ModelPart& target_;
  ModelPart& root_;
  NodalDatabase& db_;
  const MdpaReadOptions& options_;
  MeshGraph* graph_;
  const MdpaPiece* piece_;
  NodeLookup nodes_;
  IdMap node_ids_, element_ids_, condition_ids_;
  std::unordered_map<IdType, int> properties_lines_;
};

}  // namespace

void MdpaReader::ReadFile(const std::string& path, ModelPart& model_part) const {
  const MappedFile file(path);
  ReadText(file.Text(), path, model_part);
}

void MdpaReader::ReadText(std::string_view text, const std::string& source_name,
                          ModelPart& model_part) const {
  Parser(text, source_name, model_part, options_).Read();
}

void MdpaReader::ReadMeshGraph(const std::string& path, MeshGraph& graph) const {
  const MappedFile file(path);
  ReadMeshGraphText(file.Text(), path, graph);
}

void MdpaReader::ReadMeshGraphText(std::string_view text, const std::string& source_name,
                                   MeshGraph& graph) const {
  Model scratch;  // stays empty: the parser's target while it fills the graph
  graph = MeshGraph();
  Parser(text, source_name, scratch.CreateModelPart("MeshGraph"), options_, &graph).Read();
}

}  // namespace tessera
