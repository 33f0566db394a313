// Unit tests of tessera::Parameters: reference semantics of handles, every getter
// and setter, JSON parsing details (comments, duplicate keys), defaults validation,
// and that each error message names the file, key path and what was expected.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "kernel/core/error.h"
#include "kernel/parameters/parameters.h"

namespace tessera {
namespace {

// The message of the tessera::Error that `f` throws, or a marker if it throws none.
std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& error) {
    return error.what();
  }
  return "<no tessera::Error thrown>";
}

::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << part << "\" not found in:\n" << text;
}

// A file in the temp directory, removed when the test ends.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& contents)
      : path_(std::filesystem::temp_directory_path() /
              ("tessera_" + std::to_string(::getpid()) + "_" + name)) {
    std::ofstream(path_) << contents;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

const char* const kProject = R"({
    "problem_data": {
        "problem_name": "plate",
        "echo_level": 1,
        "start_time": 0.0,
        "end_time": 1.0
    },
    "solver_settings": {
        "solver_type": "dynamic",
        "time_stepping": {
            "time_step": 0.01
        },
        "gravity": [0.0, -9.81, 0.0]
    },
    "processes": [
        {"name": "fix", "Parameters": {"model_part_name": "Structure.support"}},
        {"name": "load", "Parameters": {"model_part_name": "Structure.top"}}
    ]
})";

// ---- construction, parsing --------------------------------------------------------------

TEST(Parameters, DefaultIsEmptyObject) {
  Parameters p;
  EXPECT_TRUE(p.IsSubParameter());
  EXPECT_EQ(p.size(), 0u);
  EXPECT_EQ(p.WriteJsonString(), "{}");
  EXPECT_EQ(p.Origin(), "<string>");
  EXPECT_EQ(p.Path(), "");
}

TEST(Parameters, DuplicateKeysLastOneWins) {
  Parameters p(R"({"a": 1, "b": 2, "a": 3})");
  EXPECT_EQ(p.GetInt("a"), 3);
  EXPECT_EQ(p.size(), 2u);
  Parameters nested(R"({"s": {"x": "first"}, "s": {"y": "second"}})");
  EXPECT_FALSE(nested["s"].Has("x"));
  EXPECT_EQ(nested["s"].GetString("y"), "second");
}

TEST(Parameters, CommentsAreIgnored) {
  Parameters p(R"({
      // a line comment
      "a": 1, /* a block
                 comment */ "b": "text // not a comment"
  })");
  EXPECT_EQ(p.GetInt("a"), 1);
  EXPECT_EQ(p.GetString("b"), "text // not a comment");
}

TEST(Parameters, KeyOrderIsKept) {
  Parameters p(R"({"zeta": 1, "alpha": 2, "mid": 3})");
  EXPECT_EQ(p.keys(), (std::vector<std::string>{"zeta", "alpha", "mid"}));
  EXPECT_EQ(p.WriteJsonString(), R"({"zeta":1,"alpha":2,"mid":3})");
  p.AddInt("beta", 4);
  EXPECT_EQ(p.keys().back(), "beta");
}

TEST(Parameters, NonObjectRootsAreAllowed) {
  EXPECT_TRUE(Parameters("[1, 2]").IsVector());
  EXPECT_DOUBLE_EQ(Parameters("2.5").GetDouble(), 2.5);
  EXPECT_TRUE(Parameters("null").IsNull());
}

TEST(Parameters, ParseErrorOfStringGivesLineAndColumn) {
  const std::string message = ErrorOf([] { Parameters("{\n  \"a\": 1,\n  \"b\" 2\n}"); });
  EXPECT_TRUE(Contains(message, "<string>: line 3, column 7"));
  EXPECT_TRUE(Contains(message, "expected ':'"));
  EXPECT_TRUE(Contains(message, "  \"b\" 2"));  // the offending line is quoted
  EXPECT_FALSE(Contains(message, "json.exception"));
}

TEST(Parameters, ParseErrorOfFileNamesFileLineAndColumn) {
  TempFile file("ParseError.json", "{\n    \"a\": 1,\n    \"b\": [1, 2,],\n    \"c\": 3\n}\n");
  const std::string message = ErrorOf([&] { Parameters::FromFile(file.path()); });
  EXPECT_TRUE(Contains(message, file.path() + ": line 3, column 16"));
  EXPECT_TRUE(Contains(message, "unexpected ']'; expected"));
  EXPECT_TRUE(Contains(message, "trailing comma"));
}

TEST(Parameters, ParseErrorOfMissingCommaPointsAtTheNextKey) {
  const std::string message = ErrorOf([] { Parameters("{\n  \"a\": 1\n  \"b\": 2\n}"); });
  EXPECT_TRUE(Contains(message, "<string>: line 3, column 3"));
  EXPECT_TRUE(Contains(message, "comma missing"));
}

TEST(Parameters, ParseErrorAtEndOfInput) {
  const std::string message = ErrorOf([] { Parameters("{\"a\": {\"b\": 1}\n"); });
  EXPECT_TRUE(Contains(message, "line 2"));
  EXPECT_TRUE(Contains(message, "unexpected end of input"));
  EXPECT_TRUE(Contains(ErrorOf([] { Parameters(""); }), "line 1, column 1"));
}

TEST(Parameters, FileNameGivenAsJsonGetsAHint) {
  EXPECT_TRUE(Contains(ErrorOf([] { Parameters("ProjectParameters.json"); }),
                       "Parameters::FromFile(\"ProjectParameters.json\")"));
}

TEST(Parameters, MissingFileIsNamed) {
  const std::string path = "/nonexistent/dir/ProjectParameters.json";
  const std::string message = ErrorOf([&] { Parameters::FromFile(path); });
  EXPECT_TRUE(Contains(message, path));
  EXPECT_TRUE(Contains(message, "no such file"));
  EXPECT_TRUE(Contains(
      ErrorOf([] { Parameters::FromFile(std::filesystem::temp_directory_path().string()); }),
      "is a directory"));
}

TEST(Parameters, FromFileKeepsOriginAndPath) {
  TempFile file("ProjectParameters.json", kProject);
  Parameters p = Parameters::FromFile(file.path());
  EXPECT_EQ(p.Origin(), file.path());
  EXPECT_EQ(p["solver_settings"]["time_stepping"].Path(), "solver_settings.time_stepping");
  EXPECT_EQ(p["processes"][1]["Parameters"].Path(), "processes[1].Parameters");
  EXPECT_DOUBLE_EQ(p["solver_settings"]["time_stepping"].GetDouble("time_step"), 0.01);
}

TEST(Parameters, FromStringNamesItsOrigin) {
  const std::string message =
      ErrorOf([] { Parameters::FromString(R"({"a": 1})", "materials.json")["b"]; });
  EXPECT_TRUE(Contains(message, "materials.json: key 'b' does not exist"));
}

// ---- reference semantics ----------------------------------------------------------------

TEST(Parameters, HandlesShareTheDocument) {
  Parameters p(kProject);
  p["solver_settings"]["time_stepping"].SetDouble("time_step", 0.1);
  EXPECT_DOUBLE_EQ(p["solver_settings"]["time_stepping"]["time_step"].GetDouble(), 0.1);

  Parameters solver = p["solver_settings"];
  Parameters alias = solver;  // a copy is another handle, not a copy of the JSON
  alias.SetString("solver_type", "static");
  EXPECT_EQ(p["solver_settings"].GetString("solver_type"), "static");
  EXPECT_EQ(solver.GetString("solver_type"), "static");

  p["processes"][0]["Parameters"].SetString("model_part_name", "Structure.fixed");
  EXPECT_EQ(p["processes"][0]["Parameters"]["model_part_name"].GetString(), "Structure.fixed");
}

TEST(Parameters, HandlesSurviveChangesToTheirParents) {
  Parameters p(R"({"a": {"x": 1}, "list": [{"v": 1}]})");
  Parameters a = p["a"];
  Parameters item = p["list"][0];
  for (int i = 0; i < 100; ++i) {  // enough to reallocate the parents' storage
    p.AddInt("k" + std::to_string(i), i);
    p["list"].Append(i);
  }
  a.SetInt("x", 2);
  item.SetInt("v", 3);
  EXPECT_EQ(p["a"].GetInt("x"), 2);
  EXPECT_EQ(p["list"][0].GetInt("v"), 3);
}

TEST(Parameters, HandleToRemovedValueReportsIt) {
  Parameters p(R"({"a": {"b": {"c": 1}}})");
  Parameters b = p["a"]["b"];
  EXPECT_TRUE(p["a"].RemoveValue("b"));
  const std::string message = ErrorOf([&] { b.GetInt("c"); });
  EXPECT_TRUE(Contains(message, "key 'a.b' no longer exists"));
  p["a"].AddEmptyValue("b");  // a new value at the same path is found again
  EXPECT_TRUE(b.IsNull());
}

TEST(Parameters, CloneIsIndependent) {
  Parameters p(kProject);
  Parameters copy = p["solver_settings"].Clone();
  copy["time_stepping"].SetDouble("time_step", 5.0);
  copy.AddBool("new", true);
  EXPECT_DOUBLE_EQ(p["solver_settings"]["time_stepping"].GetDouble("time_step"), 0.01);
  EXPECT_FALSE(p["solver_settings"].Has("new"));
  p["solver_settings"].SetString("solver_type", "static");
  EXPECT_EQ(copy.GetString("solver_type"), "dynamic");
  // Errors in a clone still say where the values came from.
  EXPECT_EQ(copy["time_stepping"].Path(), "solver_settings.time_stepping");
  EXPECT_TRUE(Contains(ErrorOf([&] { copy.GetInt("solver_type"); }),
                       "key 'solver_settings.solver_type' is a string"));
}

TEST(Parameters, SetValueCopiesDeeply) {
  Parameters p(R"({"a": {"x": 1}, "b": null})");
  p.SetValue("b", p["a"]);
  p["a"].SetInt("x", 2);
  EXPECT_EQ(p["b"].GetInt("x"), 1);
  // A value may be replaced by its own child.
  p["a"].SetValue(p["a"]["x"]);
  EXPECT_EQ(p.GetInt("a"), 2);
}

// ---- getters ----------------------------------------------------------------------------------

TEST(Parameters, Getters) {
  Parameters p(R"({"d": 1.5, "i": -3, "b": true, "s": "text", "v": [1, 2.5, -3],
                   "m": [[1, 2], [3, 4], [5, 6.5]], "sa": ["x", "y"]})");
  EXPECT_DOUBLE_EQ(p.GetDouble("d"), 1.5);
  EXPECT_EQ(p.GetInt("i"), -3);
  EXPECT_TRUE(p.GetBool("b"));
  EXPECT_EQ(p.GetString("s"), "text");
  EXPECT_EQ(p["s"].GetString(), "text");
  const Vector v = p.GetVector("v");
  ASSERT_EQ(v.size(), 3);
  EXPECT_DOUBLE_EQ(v[1], 2.5);
  EXPECT_DOUBLE_EQ(v[2], -3.0);
  const Matrix m = p["m"].GetMatrix();
  ASSERT_EQ(m.rows(), 3);
  ASSERT_EQ(m.cols(), 2);
  EXPECT_DOUBLE_EQ(m(0, 1), 2.0);
  EXPECT_DOUBLE_EQ(m(2, 1), 6.5);
  EXPECT_EQ(p.GetStringArray("sa"), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(p["sa"][1].GetString(), "y");
  EXPECT_EQ(p["v"].size(), 3u);
  EXPECT_DOUBLE_EQ(p["v"].GetArrayItem(1).GetDouble(), 2.5);
  EXPECT_EQ(p.GetValue("i").GetInt(), -3);
}

TEST(Parameters, TypeQueries) {
  Parameters p(R"({"n": null, "d": 1.0, "i": 1, "b": false, "s": "", "v": [1, 2.0],
                   "m": [[1], [2]], "sa": ["a"], "e": [], "mixed": [1, "a"],
                   "ragged": [[1, 2], [3]], "o": {}})");
  EXPECT_TRUE(p["n"].IsNull());
  EXPECT_TRUE(p["d"].IsDouble());
  EXPECT_FALSE(p["d"].IsInt());
  EXPECT_TRUE(p["d"].IsNumber());
  EXPECT_TRUE(p["i"].IsInt());
  EXPECT_FALSE(p["i"].IsDouble());
  EXPECT_TRUE(p["i"].IsNumber());
  EXPECT_TRUE(p["b"].IsBool());
  EXPECT_FALSE(p["b"].IsNumber());
  EXPECT_TRUE(p["s"].IsString());
  EXPECT_TRUE(p["v"].IsVector());
  EXPECT_TRUE(p["v"].IsArray());
  EXPECT_FALSE(p["v"].IsMatrix());
  EXPECT_TRUE(p["m"].IsMatrix());
  EXPECT_FALSE(p["m"].IsVector());
  EXPECT_TRUE(p["sa"].IsStringArray());
  EXPECT_TRUE(p["e"].IsVector());
  EXPECT_TRUE(p["e"].IsMatrix());
  EXPECT_TRUE(p["e"].IsStringArray());
  EXPECT_FALSE(p["mixed"].IsVector());
  EXPECT_FALSE(p["mixed"].IsStringArray());
  EXPECT_FALSE(p["ragged"].IsMatrix());
  EXPECT_TRUE(p["o"].IsSubParameter());
  EXPECT_FALSE(p["o"].IsArray());
  EXPECT_TRUE(p.Has("o"));
  EXPECT_FALSE(p.Has("O"));
  EXPECT_FALSE(p["s"].Has("anything"));  // Has of a non-object is false, not an error
}

TEST(Parameters, IntAndDoubleInterchange) {
  Parameters p(R"({"i": 3, "d": 2.0, "f": 2.5, "big": 3000000000, "neg": -3000000000})");
  EXPECT_DOUBLE_EQ(p.GetDouble("i"), 3.0);  // GetDouble of an int is fine
  EXPECT_EQ(p.GetInt("d"), 2);              // an integral double is an int
  const std::string message = ErrorOf([&] { p.GetInt("f"); });
  EXPECT_TRUE(Contains(message, "key 'f' is a double (2.5), expected an int"));
  EXPECT_TRUE(Contains(ErrorOf([&] { p.GetInt("big"); }), "does not fit in an int"));
  EXPECT_TRUE(Contains(ErrorOf([&] { p.GetInt("neg"); }), "does not fit in an int"));
}

TEST(Parameters, TypeMismatchNamesPathOriginAndTypes) {
  TempFile file("ProjectParameters.json",
                R"({"solver_settings": {"time_stepping": {"time_step": "0.1"}}})");
  Parameters p = Parameters::FromFile(file.path());
  const std::string message =
      ErrorOf([&] { p["solver_settings"]["time_stepping"].GetDouble("time_step"); });
  EXPECT_TRUE(Contains(message, "ProjectParameters.json"));
  EXPECT_TRUE(Contains(message, "key 'solver_settings.time_stepping.time_step'"));
  EXPECT_TRUE(Contains(message, "is a string (\"0.1\")"));
  EXPECT_TRUE(Contains(message, "expected a double"));

  Parameters q(R"({"b": 1, "s": 2, "o": {}, "v": [1, "x"], "m": [[1, 2], [3]], "sa": ["a", 1]})");
  EXPECT_TRUE(Contains(ErrorOf([&] { q.GetBool("b"); }), "expected a bool"));
  EXPECT_TRUE(
      Contains(ErrorOf([&] { q.GetString("s"); }), "key 's' is an int (2), expected a string"));
  EXPECT_TRUE(Contains(ErrorOf([&] { q.GetDouble("o"); }), "is an object"));
  EXPECT_TRUE(Contains(ErrorOf([&] { q.GetVector("v"); }), "item [1] is a string"));
  EXPECT_TRUE(
      Contains(ErrorOf([&] { q.GetMatrix("m"); }), "row [1] has 1 items but row [0] has 2"));
  EXPECT_TRUE(Contains(ErrorOf([&] { q.GetStringArray("sa"); }), "item [1] is an int"));
  EXPECT_TRUE(Contains(ErrorOf([&] { q.GetVector("b"); }), "expected a vector"));
  EXPECT_TRUE(Contains(ErrorOf([&] { Parameters("[1]").GetInt(); }), "the root value is an array"));
}

TEST(Parameters, MissingKeyNamesPathOriginKeysAndSuggestion) {
  TempFile file("ProjectParameters.json", kProject);
  Parameters p = Parameters::FromFile(file.path());
  const std::string message = ErrorOf([&] { p["solver_settings"]["time_steping"]; });
  EXPECT_TRUE(
      Contains(message, file.path() + ": key 'solver_settings.time_steping' does not exist"));
  EXPECT_TRUE(Contains(message, "solver_type, time_stepping, gravity"));
  EXPECT_TRUE(Contains(message, "did you mean 'time_stepping'?"));
  // No suggestion when nothing is close.
  EXPECT_FALSE(Contains(ErrorOf([&] { p["zzzzzz"]; }), "did you mean"));
  EXPECT_TRUE(Contains(ErrorOf([&] { Parameters()["a"]; }), "the root object has no keys"));
  EXPECT_TRUE(Contains(ErrorOf([&] { p["problem_data"]["echo_level"]["x"]; }),
                       "cannot look up key 'problem_data.echo_level.x'"));
}

TEST(Parameters, ArrayIndexErrors) {
  Parameters p(kProject);
  EXPECT_TRUE(Contains(ErrorOf([&] { p["processes"][2]; }),
                       "item [2] of key 'processes' is out of range: the array has 2 items"));
  EXPECT_TRUE(Contains(ErrorOf([&] { p["problem_data"][0]; }), "not an array"));
  EXPECT_TRUE(Contains(ErrorOf([&] { p["processes"][1]["Parameters"]["x"]; }),
                       "key 'processes[1].Parameters.x' does not exist"));
  EXPECT_TRUE(Contains(ErrorOf([&] { p["processes"][0]["name"].size(); }),
                       "size() needs an object or an array, but key 'processes[0].name' is a "
                       "string (\"fix\")"));
}

// ---- setters, adding, removing ----------------------------------------------------------------

TEST(Parameters, Setters) {
  Parameters p(R"({"d": 0, "i": 0, "b": false, "s": "", "v": [], "m": [], "sa": [], "p": null})");
  p.SetDouble("d", 2.5);
  p.SetInt("i", 7);
  p.SetBool("b", true);
  p.SetString("s", "hello");
  Vector v(3);
  v << 1.0, 2.0, 3.5;
  p.SetVector("v", v);
  Matrix m(2, 3);
  m << 1, 2, 3, 4, 5, 6;
  p.SetMatrix("m", m);
  p.SetStringArray("sa", {"a", "b"});
  p.SetValue("p", Parameters(R"({"nested": [1, {"x": null}]})"));
  EXPECT_DOUBLE_EQ(p.GetDouble("d"), 2.5);
  EXPECT_TRUE(p["d"].IsDouble());
  EXPECT_EQ(p.GetInt("i"), 7);
  EXPECT_TRUE(p.GetBool("b"));
  EXPECT_EQ(p.GetString("s"), "hello");
  EXPECT_EQ(p.GetVector("v"), v);
  EXPECT_EQ(p.GetMatrix("m"), m);
  EXPECT_TRUE(p["m"].IsMatrix());
  EXPECT_EQ(p.GetStringArray("sa"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(p["p"]["nested"][1]["x"].IsNull());

  // Node forms, which may change the type.
  p["d"].SetString("now a string");
  EXPECT_TRUE(p["d"].IsString());
  p["i"].SetDouble(1.0);
  EXPECT_TRUE(p["i"].IsDouble());
  p["s"].SetInt(3);
  EXPECT_TRUE(p["s"].IsInt());
  p["b"].SetBool(false);
  EXPECT_FALSE(p.GetBool("b"));
  p["sa"].SetVector(v);
  EXPECT_TRUE(p["sa"].IsVector());
  p["v"].SetMatrix(m);
  EXPECT_TRUE(p["v"].IsMatrix());
  p["m"].SetStringArray({"z"});
  EXPECT_TRUE(p["m"].IsStringArray());
  p["v"].SetArrayItem(1, Parameters(R"({"k": 1})"));
  EXPECT_EQ(p["v"][1].GetInt("k"), 1);
  EXPECT_TRUE(Contains(ErrorOf([&] { p.SetArrayItem(0, Parameters("1")); }),
                       "cannot take item [0] of the root value: it is an object"));
}

TEST(Parameters, KeyedSetOfMissingKeyIsAnError) {
  Parameters p(R"({"time_step": 0.1})");
  const std::string message = ErrorOf([&] { p.SetDouble("time_stpe", 0.2); });
  EXPECT_TRUE(Contains(message, "key 'time_stpe' does not exist"));
  EXPECT_TRUE(Contains(message, "did you mean 'time_step'?"));
  EXPECT_TRUE(Contains(message, "use Add"));
  EXPECT_FALSE(p.Has("time_stpe"));
}

TEST(Parameters, EmptyMatrixRoundTrips) {
  Parameters p;
  p.AddMatrix("m", Matrix(0, 0));
  EXPECT_EQ(p.WriteJsonString(), R"({"m":[]})");
  EXPECT_EQ(p.GetMatrix("m").size(), 0);
  p.AddVector("v", Vector(0));
  EXPECT_EQ(p.GetVector("v").size(), 0);
}

TEST(Parameters, AddFunctions) {
  Parameters p;
  p.AddDouble("d", 0.5);
  p.AddInt("i", 4);
  p.AddBool("b", true);
  p.AddString("s", "x");
  p.AddVector("v", Vector::Constant(2, 1.5));
  p.AddMatrix("m", Matrix::Identity(2, 2));
  p.AddStringArray("sa", {"u", "w"});
  p.AddValue("o", Parameters(R"({"k": 1})"));
  EXPECT_EQ(p.keys(), (std::vector<std::string>{"d", "i", "b", "s", "v", "m", "sa", "o"}));
  EXPECT_EQ(p.WriteJsonString(),
            R"({"d":0.5,"i":4,"b":true,"s":"x","v":[1.5,1.5],"m":[[1.0,0.0],[0.0,1.0]],)"
            R"("sa":["u","w"],"o":{"k":1}})");
  p.AddInt("d", 9);  // adding an existing key overwrites it, as in Kratos
  EXPECT_TRUE(p["d"].IsInt());
  EXPECT_EQ(p.size(), 8u);

  Parameters empty = p.AddEmptyValue("n");
  EXPECT_TRUE(empty.IsNull());
  empty.SetInt(1);
  EXPECT_EQ(p.GetInt("n"), 1);
  EXPECT_EQ(p.AddEmptyValue("n").GetInt(), 1);  // an existing value is kept

  EXPECT_TRUE(Contains(ErrorOf([&] { p["i"].AddInt("x", 1); }),
                       "AddInt needs an object, but key 'i' is an int (4)"));
}

TEST(Parameters, AppendToArrays) {
  Parameters p;
  Parameters list = p.AddEmptyArray("list");
  list.Append(1.5);
  list.Append(2);
  list.Append(true);
  list.Append("text");
  list.Append(std::string("more"));
  list.Append(Vector(Vector::Zero(2)));  // an Eigen expression would be ambiguous
  list.Append(Matrix(Matrix::Zero(1, 2)));
  list.Append(Parameters(R"({"k": "v"})"));
  EXPECT_EQ(list.size(), 8u);
  EXPECT_EQ(p.WriteJsonString(),
            R"({"list":[1.5,2,true,"text","more",[0.0,0.0],[[0.0,0.0]],{"k":"v"}]})");
  EXPECT_TRUE(list[2].IsBool());  // Append("text") did not pick Append(bool)
  EXPECT_TRUE(list[3].IsString());
  EXPECT_EQ(p.AddEmptyArray("list").size(), 8u);  // an existing array is kept
  EXPECT_TRUE(Contains(ErrorOf([&] { p.Append(1); }),
                       "Append needs an array, but the root value is an object"));
}

TEST(Parameters, RemoveValue) {
  Parameters p(R"({"a": 1, "b": 2, "c": 3})");
  EXPECT_TRUE(p.RemoveValue("b"));
  EXPECT_FALSE(p.RemoveValue("b"));
  EXPECT_EQ(p.keys(), (std::vector<std::string>{"a", "c"}));
}

// ---- output, comparison, iteration -------------------------------------------------------------

TEST(Parameters, PrettyPrintRoundTrips) {
  Parameters p(kProject);
  const std::string pretty = p.PrettyPrintJsonString();
  EXPECT_TRUE(Contains(pretty, "\n    \"problem_data\": {\n        \"problem_name\""));
  Parameters again(pretty);
  EXPECT_TRUE(again.IsEquivalentTo(p));
  EXPECT_EQ(again.WriteJsonString(), p.WriteJsonString());
  EXPECT_TRUE(again["problem_data"]["start_time"].IsDouble());  // 0.0 stays a double
}

TEST(Parameters, IsEquivalentTo) {
  Parameters a(R"({"x": 1, "y": {"p": [1, 2], "q": "s"}})");
  Parameters b(R"({"y": {"q": "s", "p": [1.0, 2]}, "x": 1.0})");
  EXPECT_TRUE(a.IsEquivalentTo(b));
  EXPECT_TRUE(b.IsEquivalentTo(a));
  EXPECT_FALSE(a.IsEquivalentTo(Parameters(R"({"x": 1, "y": {"p": [2, 1], "q": "s"}})")));
  EXPECT_FALSE(a.IsEquivalentTo(Parameters(R"({"x": 1})")));
  EXPECT_FALSE(a.IsEquivalentTo(Parameters(R"({"x": 1, "y": {"p": [1, 2], "q": "s"}, "z": 0})")));
  EXPECT_FALSE(Parameters(R"({"x": "1"})").IsEquivalentTo(Parameters(R"({"x": 1})")));
}

TEST(Parameters, HasSameKeysAndTypeOfValuesAs) {
  Parameters a(R"({"x": 1, "y": {"p": [1, 2], "q": "s"}})");
  EXPECT_TRUE(
      a.HasSameKeysAndTypeOfValuesAs(Parameters(R"({"y": {"q": "t", "p": []}, "x": 2.5})")));
  EXPECT_FALSE(a.HasSameKeysAndTypeOfValuesAs(Parameters(R"({"x": 1, "y": {"p": [], "q": 1}})")));
  EXPECT_FALSE(a.HasSameKeysAndTypeOfValuesAs(Parameters(R"({"x": 1, "y": {"p": []}})")));
  EXPECT_FALSE(a.HasSameKeysAndTypeOfValuesAs(Parameters(R"({"x": 1})")));
}

TEST(Parameters, IterationOverKeyValuePairs) {
  Parameters p(R"({"b": 1, "a": 2, "c": 3})");
  std::vector<std::string> keys;
  int sum = 0;
  for (const auto& [key, value] : p) {
    keys.push_back(key);
    sum += value.GetInt();
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"b", "a", "c"}));
  EXPECT_EQ(sum, 6);
  for (auto [key, value] : p) value.SetInt(value.GetInt() * 10);  // values are handles
  EXPECT_EQ(p.GetInt("c"), 30);
  auto it = Parameters(R"({"only": true})").begin();  // the iterator holds its document
  EXPECT_EQ((*it).first, "only");
  EXPECT_TRUE((*it).second.GetBool());
  EXPECT_TRUE(Contains(ErrorOf([] { Parameters("[1]").begin(); }), "needs an object"));
}

TEST(Parameters, StreamOutputIsPrettyJson) {
  Parameters p(R"({"a": 1})");
  std::ostringstream os;
  os << p;
  EXPECT_EQ(os.str(), "{\n    \"a\": 1\n}");
}

// ---- validation against defaults
// ------------------------------------------------------------------

const char* const kDefaults = R"({
    "solver_type": "dynamic",
    "echo_level": 0,
    "time_step": 0.1,
    "compute_reactions": true,
    "linear_solver_settings": {"solver_type": "cg", "tolerance": 1e-6},
    "anything": null,
    "gravity": [0.0, 0.0, 0.0]
})";

TEST(Parameters, ValidateAndAssignDefaultsAddsMissingKeys) {
  Parameters p(R"({"echo_level": 2, "linear_solver_settings": {"tolerance": 1e-9}})");
  p.ValidateAndAssignDefaults(Parameters(kDefaults));
  EXPECT_EQ(p.GetInt("echo_level"), 2);
  EXPECT_EQ(p.GetString("solver_type"), "dynamic");
  EXPECT_DOUBLE_EQ(p.GetDouble("time_step"), 0.1);
  EXPECT_TRUE(p.GetBool("compute_reactions"));
  EXPECT_TRUE(p["anything"].IsNull());
  // Sub-objects are one value: not recursed into, missing sub-keys are not added.
  EXPECT_FALSE(p["linear_solver_settings"].Has("solver_type"));
  // Present keys first, in their order, then the added ones in the defaults' order.
  EXPECT_EQ(p.keys(),
            (std::vector<std::string>{"echo_level", "linear_solver_settings", "solver_type",
                                      "time_step", "compute_reactions", "anything", "gravity"}));
}

TEST(Parameters, ValidateAndAssignDefaultsDoesNotRecurse) {
  Parameters p(R"({"linear_solver_settings": {"unknown_in_sub": 1}})");
  EXPECT_NO_THROW(p.ValidateAndAssignDefaults(Parameters(kDefaults)));
}

TEST(Parameters, UnknownKeyErrorListsAllowedKeysAndSuggestion) {
  TempFile file("ProjectParameters.json",
                R"({"solver_settings": {"echo_level": 1, "time_stepp": 0.2}})");
  Parameters p = Parameters::FromFile(file.path());
  const std::string message =
      ErrorOf([&] { p["solver_settings"].ValidateAndAssignDefaults(Parameters(kDefaults)); });
  EXPECT_TRUE(Contains(message, "unknown key 'time_stepp' in 'solver_settings' of " + file.path()));
  EXPECT_TRUE(Contains(message,
                       "allowed keys: solver_type, echo_level, time_step, compute_reactions, "
                       "linear_solver_settings, anything, gravity"));
  EXPECT_TRUE(Contains(message, "did you mean 'time_step'?"));
  // A failed validation changes nothing.
  EXPECT_EQ(p["solver_settings"].size(), 2u);

  EXPECT_TRUE(Contains(ErrorOf([] { Parameters(R"({"x": 1})").ValidateDefaults(Parameters()); }),
                       "unknown key 'x' in the root object of <string>; allowed keys: (none)"));
  EXPECT_FALSE(
      Contains(ErrorOf([] {
                 Parameters(R"({"completely_else": 1})").ValidateDefaults(Parameters(kDefaults));
               }),
               "did you mean"));
}

TEST(Parameters, ValidationTypeMismatch) {
  Parameters defaults(kDefaults);
  const std::string message =
      ErrorOf([&] { Parameters(R"({"echo_level": "1"})").ValidateAndAssignDefaults(defaults); });
  EXPECT_TRUE(Contains(message, "key 'echo_level' is a string (\"1\"), expected a number"));
  EXPECT_TRUE(Contains(message, "default, an int (0)"));
  EXPECT_TRUE(Contains(
      ErrorOf([&] { Parameters(R"({"gravity": 9.81})").ValidateAndAssignDefaults(defaults); }),
      "expected an array"));
  EXPECT_TRUE(Contains(
      ErrorOf([&] {
        Parameters(R"({"linear_solver_settings": "cg"})").ValidateAndAssignDefaults(defaults);
      }),
      "expected an object"));
  EXPECT_TRUE(
      Contains(ErrorOf([&] {
                 Parameters(R"({"compute_reactions": 1})").ValidateAndAssignDefaults(defaults);
               }),
               "expected a bool"));
  // A null value is not a number.
  EXPECT_TRUE(Contains(
      ErrorOf([&] { Parameters(R"({"time_step": null})").ValidateAndAssignDefaults(defaults); }),
      "key 'time_step' is null, expected a number"));
}

TEST(Parameters, ValidationNumbersInterchangeAndNullDefaultAcceptsAnything) {
  Parameters defaults(kDefaults);
  Parameters p(R"({"echo_level": 1.0, "time_step": 1})");
  EXPECT_NO_THROW(p.ValidateAndAssignDefaults(defaults));
  EXPECT_EQ(p.GetInt("echo_level"), 1);
  EXPECT_DOUBLE_EQ(p.GetDouble("time_step"), 1.0);
  for (const char* value : {"1", "\"s\"", "[1]", "{\"k\": 1}", "true", "null"}) {
    Parameters q(std::string(R"({"anything": )") + value + "}");
    EXPECT_NO_THROW(q.ValidateAndAssignDefaults(defaults)) << value;
  }
}

TEST(Parameters, RecursivelyValidateAndAssignDefaults) {
  TempFile file("ProjectParameters.json",
                R"({"linear_solver_settings": {"tolerance": 1e-9, "max_iteration": 10}})");
  Parameters defaults(kDefaults);
  Parameters p = Parameters::FromFile(file.path());
  const std::string message = ErrorOf([&] { p.RecursivelyValidateAndAssignDefaults(defaults); });
  EXPECT_TRUE(Contains(message, "unknown key 'max_iteration' in 'linear_solver_settings' of " +
                                    file.path() + "; allowed keys: solver_type, tolerance"));
  EXPECT_FALSE(p.Has("echo_level"));  // nothing was added

  Parameters q(R"({"linear_solver_settings": {"tolerance": 1e-9}})");
  q.RecursivelyValidateAndAssignDefaults(defaults);
  EXPECT_EQ(q["linear_solver_settings"].GetString("solver_type"), "cg");
  EXPECT_DOUBLE_EQ(q["linear_solver_settings"].GetDouble("tolerance"), 1e-9);
  EXPECT_EQ(q.GetInt("echo_level"), 0);

  EXPECT_TRUE(Contains(ErrorOf([&] {
                         Parameters(R"({"linear_solver_settings": {"tolerance": "tight"}})")
                             .RecursivelyValidateDefaults(defaults);
                       }),
                       "key 'linear_solver_settings.tolerance' is a string"));
}

TEST(Parameters, ValidateDefaultsChangesNothing) {
  Parameters p(R"({"echo_level": 1})");
  p.ValidateDefaults(Parameters(kDefaults));
  p.RecursivelyValidateDefaults(Parameters(kDefaults));
  EXPECT_EQ(p.size(), 1u);
}

TEST(Parameters, AddMissingParameters) {
  Parameters defaults(kDefaults);
  Parameters p(R"({"extra": 1, "echo_level": "not checked", "linear_solver_settings": {}})");
  p.AddMissingParameters(defaults);
  EXPECT_EQ(p.GetInt("extra"), 1);
  EXPECT_EQ(p.GetString("echo_level"), "not checked");
  EXPECT_DOUBLE_EQ(p.GetDouble("time_step"), 0.1);
  EXPECT_EQ(p["linear_solver_settings"].size(), 0u);

  Parameters q(R"({"linear_solver_settings": {"tolerance": 1.0}})");
  q.RecursivelyAddMissingParameters(defaults);
  EXPECT_EQ(q["linear_solver_settings"].GetString("solver_type"), "cg");
  EXPECT_DOUBLE_EQ(q["linear_solver_settings"].GetDouble("tolerance"), 1.0);
  // The added values are copies.
  q["linear_solver_settings"].SetString("solver_type", "gmres");
  EXPECT_EQ(defaults["linear_solver_settings"].GetString("solver_type"), "cg");
}

}  // namespace
}  // namespace tessera
