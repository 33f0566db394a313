// Tests of the result writers: VTK XML (.vtu/.pvd) and GiD ASCII (.post.msh/.post.res).
// The .vtu and .pvd files are read back with Boost.PropertyTree's XML parser, so
// a malformed file fails the test, and every array is checked value by value.
#include <gtest/gtest.h>
#include <omp.h>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kernel/core/kernel_variables.h"
#include "kernel/geometries/geometry_types.h"
#include "kernel/io/gid_output.h"
#include "kernel/io/vtk_output.h"
#include "kernel/model/model.h"
#include "tests/cpp/scratch_directory.h"

using namespace tessera;
namespace fs = std::filesystem;
namespace pt = boost::property_tree;

namespace {

// A fresh, empty folder named after the running test, in this process'
// scratch directory (removed when the process ends: scratch_directory.h).
std::string TestDir() {
  static const tessera::test::ScratchDirectory scratch("tessera_output_test");
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path dir = scratch.path() / (std::string(info->test_suite_name()) + "_" + info->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Two unit hexahedra side by side (x in [0, 2]) and a triangle condition on the
// bottom face; TEMPERATURE = 10 * id, DISPLACEMENT = 0.01 * (id, 2 id, 3 id).
ModelPart& MakeHexMesh(Model& model) {
  ModelPart& mp = model.CreateModelPart("Main");
  mp.AddNodalSolutionStepVariable(TEMPERATURE);
  mp.AddNodalSolutionStepVariable(DISPLACEMENT);
  const double xyz[12][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1},
                             {1, 1, 1}, {0, 1, 1}, {2, 0, 0}, {2, 1, 0}, {2, 0, 1}, {2, 1, 1}};
  for (int i = 0; i < 12; ++i) {
    Node n = mp.CreateNewNode(i + 1, xyz[i][0], xyz[i][1], xyz[i][2]);
    n.GetSolutionStepValue(TEMPERATURE) = 10.0 * (i + 1);
    n.GetSolutionStepValue(DISPLACEMENT) = Array3{0.01 * (i + 1), 0.02 * (i + 1), 0.03 * (i + 1)};
  }
  auto properties = mp.CreateNewProperties(1);
  const std::vector<IdType> hex1{1, 2, 3, 4, 5, 6, 7, 8}, hex2{2, 9, 10, 3, 6, 11, 12, 7};
  mp.CreateNewElement("Element3D8N", 1, hex1, properties);
  mp.CreateNewElement("Element3D8N", 2, hex2, properties);
  const std::vector<IdType> tri{1, 2, 3};
  mp.CreateNewCondition("SurfaceCondition3D3N", 5, tri, properties);
  return mp;
}

void SetStep(ModelPart& mp, double time, int step) {
  mp.CloneTimeStep(time);
  // Type-erased setter: STEP is set explicitly, whatever CloneTimeStep does with it.
  mp.GetProcessInfo().SetValue(static_cast<const VariableBase&>(STEP), Value(step));
}

// ---- reading .vtu files back

struct Vtu {
  pt::ptree tree;
  const pt::ptree& Piece() const { return tree.get_child("VTKFile.UnstructuredGrid.Piece"); }
  int Attribute(const char* name) const {
    return Piece().get<int>(std::string("<xmlattr>.") + name);
  }
  // The DataArray `name` of section ("Points", "Cells", "PointData", "CellData").
  const pt::ptree& Array(const std::string& section, const std::string& name) const {
    for (const auto& [tag, child] : Piece().get_child(section))
      if (tag == "DataArray" && child.get<std::string>("<xmlattr>.Name") == name) return child;
    throw std::runtime_error("no DataArray " + name + " in " + section);
  }
  bool HasArray(const std::string& section, const std::string& name) const {
    for (const auto& [tag, child] : Piece().get_child(section))
      if (tag == "DataArray" && child.get<std::string>("<xmlattr>.Name") == name) return true;
    return false;
  }
  std::vector<double> Values(const std::string& section, const std::string& name) const {
    std::istringstream in(Array(section, name).data());
    std::vector<double> values;
    double v;
    while (in >> v) values.push_back(v);
    return values;
  }
};

Vtu ReadVtu(const std::string& path) {
  Vtu vtu;
  pt::read_xml(path, vtu.tree);  // throws on malformed XML
  return vtu;
}

void ExpectNear(const std::vector<double>& actual, const std::vector<double>& expected,
                double tolerance = 1e-6) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], tolerance * std::max(1.0, std::abs(expected[i])))
        << "entry " << i;
}

Parameters VtkSettings(const std::string& dir, const std::string& extra = "") {
  return Parameters(R"({"output_path": ")" + dir + R"(", "output_precision": 12)" + extra + "}");
}

// An element with integration point results, for the gauss point averages.
class GaussElement : public Element {
 public:
  using Element::CalculateOnIntegrationPoints;
  using Element::Element;
  void CalculateOnIntegrationPoints(const Variable<double>& variable, std::vector<double>& out,
                                    const ProcessInfo&) override {
    if (&variable == &PRESSURE)
      out = {1.0 * Id(), 3.0 * Id()};
    else
      out.clear();
  }
  void CalculateOnIntegrationPoints(const Variable<Array3>&, std::vector<Array3>& out,
                                    const ProcessInfo&) override {
    out = {Array3{1, 0, 0}, Array3{3, 2, 0}};
  }
  void CalculateOnIntegrationPoints(const Variable<Vector>&, std::vector<Vector>& out,
                                    const ProcessInfo&) override {
    Vector a(6), b(6);
    a << 1, 2, 3, 4, 5, 6;
    b << 3, 4, 5, 6, 7, 8;
    out = {a, b};
  }
};

}  // namespace

// ============================================================ VTK

TEST(VtkOutput, WritesHexahedraWithNodalAndElementData) {
  const std::string dir = TestDir();
  Model model;
  ModelPart& mp = MakeHexMesh(model);
  mp.GetElement(2).SetValue(DENSITY, 7.5);
  SetStep(mp, 0.5, 3);
  VtkOutput output(mp, VtkSettings(dir, R"(,
      "nodal_solution_step_data_variables": ["TEMPERATURE", "DISPLACEMENT"],
      "element_data_value_variables": ["DENSITY"],
      "write_ids": true)"));
  output.PrintOutput();

  const std::string path = dir + "/Main_3.vtu";
  ASSERT_TRUE(fs::exists(path));
  ASSERT_EQ(output.LastWrittenFiles(), std::vector<std::string>{path});
  const Vtu vtu = ReadVtu(path);
  EXPECT_EQ(vtu.tree.get<std::string>("VTKFile.<xmlattr>.type"), "UnstructuredGrid");
  EXPECT_EQ(vtu.Attribute("NumberOfPoints"), 12);
  EXPECT_EQ(vtu.Attribute("NumberOfCells"), 2);  // automatic: the elements, not the condition
  ExpectNear(vtu.Values("Cells", "connectivity"),
             {0, 1, 2, 3, 4, 5, 6, 7, 1, 8, 9, 2, 5, 10, 11, 6});
  ExpectNear(vtu.Values("Cells", "offsets"), {8, 16});
  ExpectNear(vtu.Values("Cells", "types"), {12, 12});
  const auto points = vtu.Values("Points", "Points");
  ASSERT_EQ(points.size(), 36u);
  ExpectNear({points[3 * 8], points[3 * 8 + 1], points[3 * 8 + 2]}, {2, 0, 0});  // node 9

  std::vector<double> temperature, displacement, ids;
  for (int id = 1; id <= 12; ++id) {
    temperature.push_back(10.0 * id);
    displacement.insert(displacement.end(), {0.01 * id, 0.02 * id, 0.03 * id});
    ids.push_back(id);
  }
  ExpectNear(vtu.Values("PointData", "TEMPERATURE"), temperature);
  EXPECT_FALSE(
      vtu.Array("PointData", "TEMPERATURE").get_child("<xmlattr>").count("NumberOfComponents"));
  ExpectNear(vtu.Values("PointData", "DISPLACEMENT"), displacement);
  EXPECT_EQ(vtu.Array("PointData", "DISPLACEMENT").get<int>("<xmlattr>.NumberOfComponents"), 3);
  EXPECT_EQ(vtu.Array("PointData", "DISPLACEMENT").get<std::string>("<xmlattr>.type"), "Float64");
  ExpectNear(vtu.Values("PointData", "NODE_ID"), ids);
  ExpectNear(vtu.Values("CellData", "DENSITY"), {0.0, 7.5});  // absent on element 1: zero
  ExpectNear(vtu.Values("CellData", "ELEMENT_ID"), {1, 2});
  ExpectNear(vtu.Values("CellData", "PROPERTIES_ID"), {1, 1});
  // TimeValue field data for ParaView.
  const auto& field = vtu.tree.get_child("VTKFile.UnstructuredGrid.FieldData.DataArray");
  EXPECT_EQ(field.get<std::string>("<xmlattr>.Name"), "TimeValue");
  EXPECT_DOUBLE_EQ(std::stod(field.data()), 0.5);
}

TEST(VtkOutput, IntAndBoolVariablesAreInt32) {
  const std::string dir = TestDir();
  Model model;
  ModelPart& mp = MakeHexMesh(model);
  for (Node n : mp.Nodes()) {
    n.SetValue(PARTITION_INDEX, static_cast<int>(n.Id()) % 3);
    n.SetValue(IS_RESTARTED, n.Id() > 6);
  }
  mp.GetNode(4).Set(BOUNDARY);
  mp.GetNode(2).SetValue(VELOCITY, Array3{1, 2, 3});
  VtkOutput(mp, VtkSettings(dir, R"(, "nodal_data_value_variables": ["PARTITION_INDEX",
      "IS_RESTARTED", "TEMPERATURE", "VELOCITY", "VELOCITY_Z"], "nodal_flags": ["BOUNDARY"],
      "nodal_solution_step_data_variables": ["DISPLACEMENT_Y"])"))
      .PrintOutput();
  const Vtu vtu = ReadVtu(dir + "/Main_0.vtu");
  EXPECT_EQ(vtu.Array("PointData", "PARTITION_INDEX").get<std::string>("<xmlattr>.type"), "Int32");
  ExpectNear(vtu.Values("PointData", "PARTITION_INDEX"), {1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0});
  ExpectNear(vtu.Values("PointData", "IS_RESTARTED"), {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1});
  // Non-historical TEMPERATURE was never set: zeros, not the historical values.
  ExpectNear(vtu.Values("PointData", "TEMPERATURE"), std::vector<double>(12, 0.0));
  ExpectNear(vtu.Values("PointData", "BOUNDARY"), {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0});
  std::vector<double> velocity(36, 0.0), velocity_z(12, 0.0), displacement_y;
  velocity[3] = 1, velocity[4] = 2, velocity[5] = 3, velocity_z[1] = 3;
  for (int id = 1; id <= 12; ++id) displacement_y.push_back(0.02 * id);
  ExpectNear(vtu.Values("PointData", "VELOCITY"), velocity);
  ExpectNear(vtu.Values("PointData", "VELOCITY_Z"), velocity_z);
  ExpectNear(vtu.Values("PointData", "DISPLACEMENT_Y"), displacement_y);
}

TEST(VtkOutput, DeformedOrInitialConfiguration) {
  const std::string dir = TestDir();
  Model model;
  ModelPart& mp = MakeHexMesh(model);
  mp.GetNode(9).Coordinates() = Array3{2.5, 0.0, 0.0};
  VtkOutput(mp, VtkSettings(dir)).PrintOutput();
  auto points = ReadVtu(dir + "/Main_0.vtu").Values("Points", "Points");
  EXPECT_DOUBLE_EQ(points[3 * 8], 2.0);
  VtkOutput(mp, VtkSettings(dir, R"(, "write_deformed_configuration": true)")).PrintOutput();
  points = ReadVtu(dir + "/Main_0.vtu").Values("Points", "Points");
  EXPECT_DOUBLE_EQ(points[3 * 8], 2.5);
}

TEST(VtkOutput, PvdListsEveryStepWithItsTime) {
  const std::string dir = TestDir();
  Model model;
  ModelPart& mp = MakeHexMesh(model);
  VtkOutput output(mp,
                   VtkSettings(dir, R"(, "nodal_solution_step_data_variables": ["TEMPERATURE"])"));
  const double times[] = {0.1, 0.25, 0.4};
  for (int step = 1; step <= 3; ++step) {
    SetStep(mp, times[step - 1], step);
    mp.GetNode(1).GetSolutionStepValue(TEMPERATURE) = 100.0 * step;
    output.PrintOutput();
    // The collection is valid after every step, not only at the end.
    pt::ptree pvd;
    pt::read_xml(dir + "/Main.pvd", pvd);
    EXPECT_EQ(pvd.get_child("VTKFile.Collection").size(), static_cast<std::size_t>(step));
  }
  pt::ptree pvd;
  pt::read_xml(dir + "/Main.pvd", pvd);
  EXPECT_EQ(pvd.get<std::string>("VTKFile.<xmlattr>.type"), "Collection");
  int step = 0;
  for (const auto& [tag, dataset] : pvd.get_child("VTKFile.Collection")) {
    ASSERT_EQ(tag, "DataSet");
    ++step;
    EXPECT_EQ(dataset.get<std::string>("<xmlattr>.file"), "Main_" + std::to_string(step) + ".vtu");
    EXPECT_EQ(dataset.get<double>("<xmlattr>.timestep"), times[step - 1]);  // exact round trip
    const auto temperature =
        ReadVtu(dir + "/Main_" + std::to_string(step) + ".vtu").Values("PointData", "TEMPERATURE");
    EXPECT_DOUBLE_EQ(temperature[0], 100.0 * step);
  }
  EXPECT_EQ(step, 3);
  EXPECT_FALSE(fs::exists(dir + "/Main.pvd.tmp"));

  // Writing a step again replaces its entry instead of listing it twice.
  output.PrintOutput();
  pt::read_xml(dir + "/Main.pvd", pvd);
  EXPECT_EQ(pvd.get_child("VTKFile.Collection").size(), 3u);
}

TEST(VtkOutput, ConditionsWhenAskedAndSubModelParts) {
  const std::string dir = TestDir();
  Model model;
  ModelPart& mp = MakeHexMesh(model);
  ModelPart& skin = mp.CreateSubModelPart("Skin");
  const std::vector<IdType> nodes{1, 2, 3}, conditions{5};
  skin.AddNodes(nodes);
  skin.AddConditions(conditions);
  mp.GetCondition(5).SetValue(PRESSURE, 2.5);
  VtkOutput output(mp, VtkSettings(dir, R"(, "entity_type": "condition",
      "output_sub_model_parts": true, "condition_data_value_variables": ["PRESSURE"],
      "nodal_solution_step_data_variables": ["TEMPERATURE"], "write_ids": true)"));
  output.PrintOutput();
  ASSERT_EQ(output.LastWrittenFiles().size(), 2u);

  const Vtu main = ReadVtu(dir + "/Main_0.vtu");
  EXPECT_EQ(main.Attribute("NumberOfPoints"), 12);
  EXPECT_EQ(main.Attribute("NumberOfCells"), 1);
  ExpectNear(main.Values("Cells", "connectivity"), {0, 1, 2});
  ExpectNear(main.Values("Cells", "types"), {5});
  ExpectNear(main.Values("CellData", "PRESSURE"), {2.5});
  ExpectNear(main.Values("CellData", "CONDITION_ID"), {5});

  const Vtu sub = ReadVtu(dir + "/Main_Skin_0.vtu");
  EXPECT_EQ(sub.Attribute("NumberOfPoints"), 3);
  EXPECT_EQ(sub.Attribute("NumberOfCells"), 1);
  ExpectNear(sub.Values("PointData", "TEMPERATURE"), {10, 20, 30});
  ExpectNear(sub.Values("PointData", "NODE_ID"), {1, 2, 3});
  EXPECT_TRUE(fs::exists(dir + "/Main_Skin.pvd"));
}

TEST(VtkOutput, ElementNodesMissingFromTheModelPartAreStillWritten) {
  const std::string dir = TestDir();
  Model model;
  ModelPart& mp = MakeHexMesh(model);
  ModelPart& part = mp.CreateSubModelPart("Right");
  const std::vector<IdType> elements{2};
  part.AddElements(elements);  // no nodes added
  VtkOutput(part, VtkSettings(dir)).PrintOutput();
  const Vtu vtu = ReadVtu(dir + "/Main_Right_0.vtu");
  EXPECT_EQ(vtu.Attribute("NumberOfPoints"), 8);
  ExpectNear(vtu.Values("Cells", "connectivity"), {0, 1, 2, 3, 4, 5, 6, 7});
}

TEST(VtkOutput, SpheresAreVerticesWithRadius) {
  const std::string dir = TestDir();
  Model model;
  ModelPart& mp = model.CreateModelPart("Balls");
  auto properties = mp.CreateNewProperties(1);
  const GeometryType& sphere = GetGeometryType("Sphere3D1");
  for (int i = 1; i <= 3; ++i) {
    Node n = mp.CreateNewNode(10 + i, i, 0, 0);
    auto element = std::make_unique<Element>(
        i, Geometry(&sphere, &mp.Nodal(), Geometry::NodeIndices{n.Index()}), properties);
    element->SetValue(RADIUS, 0.1 * i);
    mp.AddElement(std::move(element));
  }
  VtkOutput(mp, VtkSettings(dir)).PrintOutput();
  const Vtu vtu = ReadVtu(dir + "/Balls_0.vtu");
  EXPECT_EQ(vtu.Attribute("NumberOfPoints"), 3);
  EXPECT_EQ(vtu.Attribute("NumberOfCells"), 3);
  ExpectNear(vtu.Values("Cells", "types"), {1, 1, 1});
  ExpectNear(vtu.Values("Cells", "connectivity"), {0, 1, 2});
  ExpectNear(vtu.Values("Cells", "offsets"), {1, 2, 3});
  ExpectNear(vtu.Values("PointData", "RADIUS"), {0.1, 0.2, 0.3});

  // Nodes with a (historical) RADIUS and no elements: vertices with RADIUS too.
  ModelPart& cloud = model.CreateModelPart("Cloud");
  cloud.AddNodalSolutionStepVariable(RADIUS);
  for (int i = 1; i <= 4; ++i)
    cloud.CreateNewNode(i, 0, i, 0).GetSolutionStepValue(RADIUS) = 0.5 * i;
  VtkOutput(cloud, VtkSettings(dir)).PrintOutput();
  const Vtu points = ReadVtu(dir + "/Cloud_0.vtu");
  EXPECT_EQ(points.Attribute("NumberOfCells"), 4);
  ExpectNear(points.Values("Cells", "types"), {1, 1, 1, 1});
  ExpectNear(points.Values("PointData", "RADIUS"), {0.5, 1.0, 1.5, 2.0});

  // Plain nodes: vertices, no RADIUS.
  ModelPart& plain = model.CreateModelPart("Plain");
  plain.CreateNewNode(1, 0, 0, 0);
  VtkOutput(plain, VtkSettings(dir)).PrintOutput();
  const Vtu bare = ReadVtu(dir + "/Plain_0.vtu");
  EXPECT_EQ(bare.Attribute("NumberOfCells"), 1);
  EXPECT_FALSE(bare.HasArray("PointData", "RADIUS"));
}

TEST(VtkOutput, GaussPointValuesAreAveragedPerElement) {
  const std::string dir = TestDir();
  Model model;
  ModelPart& mp = MakeHexMesh(model);
  ModelPart& gp = model.CreateModelPart("Gauss");
  for (Node n : mp.Nodes()) gp.CreateNewNode(n.Id(), n.X(), n.Y(), n.Z());
  const GeometryType& hexa = GetGeometryType("Hexahedra3D8");
  for (IdType id = 1; id <= 2; ++id) {
    Geometry::NodeIndices nodes;
    for (std::size_t i = 0; i < 8; ++i)
      nodes.push_back(mp.GetElement(id).GetGeometry().NodeIndex(i));
    gp.AddElement(std::make_unique<GaussElement>(id, Geometry(&hexa, &gp.Nodal(), nodes), nullptr));
  }
  VtkOutput(gp, VtkSettings(dir, R"(, "gauss_point_variables_in_elements":
      ["PRESSURE", "TEMPERATURE", "VELOCITY", "STRESS_VECTOR"], "write_ids": true)"))
      .PrintOutput();
  const Vtu vtu = ReadVtu(dir + "/Gauss_0.vtu");
  ExpectNear(vtu.Values("CellData", "PRESSURE"), {2.0, 4.0});
  ExpectNear(vtu.Values("CellData", "TEMPERATURE"), {0.0, 0.0});  // no values: zero
  ExpectNear(vtu.Values("CellData", "VELOCITY"), {2, 1, 0, 2, 1, 0});
  EXPECT_EQ(vtu.Array("CellData", "STRESS_VECTOR").get<int>("<xmlattr>.NumberOfComponents"), 6);
  ExpectNear(vtu.Values("CellData", "STRESS_VECTOR"), {2, 3, 4, 5, 6, 7, 2, 3, 4, 5, 6, 7});
  ExpectNear(vtu.Values("CellData", "PROPERTIES_ID"), {-1, -1});  // no properties
}

namespace {
std::vector<unsigned char> DecodeBase64(const std::string& text) {
  std::vector<unsigned char> out;
  int value = 0, bits = -8;
  for (char c : text) {
    const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char* p = std::strchr(table, c);
    if (c == '=' || c == '\0' || p == nullptr) continue;
    value = (value << 6) + static_cast<int>(p - table);
    bits += 6;
    if (bits >= 0) {
      out.push_back(static_cast<unsigned char>((value >> bits) & 0xFF));
      bits -= 8;
    }
  }
  return out;
}

template <class T>
std::vector<T> DecodeBinaryArray(const pt::ptree& array) {
  const std::vector<unsigned char> bytes = DecodeBase64(array.data());
  std::uint64_t size = 0;
  EXPECT_GE(bytes.size(), 8u);
  std::memcpy(&size, bytes.data(), 8);
  EXPECT_EQ(size, bytes.size() - 8);
  std::vector<T> values(size / sizeof(T));
  std::memcpy(values.data(), bytes.data() + 8, size);
  return values;
}
}  // namespace

TEST(VtkOutput, BinaryFormatHoldsTheSameValues) {
  const std::string dir = TestDir();
  Model model;
  ModelPart& mp = MakeHexMesh(model);
  mp.GetNode(2).Set(BOUNDARY);
  VtkOutput(mp, VtkSettings(dir, R"(, "file_format": "binary", "write_ids": true,
      "nodal_flags": ["BOUNDARY"],
      "nodal_solution_step_data_variables": ["TEMPERATURE", "DISPLACEMENT"])"))
      .PrintOutput();
  const Vtu vtu = ReadVtu(dir + "/Main_0.vtu");
  EXPECT_EQ(vtu.tree.get<std::string>("VTKFile.<xmlattr>.header_type"), "UInt64");
  const auto& temperature = vtu.Array("PointData", "TEMPERATURE");
  EXPECT_EQ(temperature.get<std::string>("<xmlattr>.format"), "binary");
  const auto t = DecodeBinaryArray<double>(temperature);
  ASSERT_EQ(t.size(), 12u);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(t[i], 10.0 * (i + 1));  // bit exact
  const auto d = DecodeBinaryArray<double>(vtu.Array("PointData", "DISPLACEMENT"));
  ASSERT_EQ(d.size(), 36u);
  EXPECT_EQ(d[3 * 4 + 2], 0.03 * 5);
  const auto connectivity = DecodeBinaryArray<std::int64_t>(vtu.Array("Cells", "connectivity"));
  EXPECT_EQ(connectivity,
            (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 1, 8, 9, 2, 5, 10, 11, 6}));
  EXPECT_EQ(DecodeBinaryArray<std::uint8_t>(vtu.Array("Cells", "types")),
            (std::vector<std::uint8_t>{12, 12}));
  EXPECT_EQ(DecodeBinaryArray<std::int32_t>(vtu.Array("PointData", "BOUNDARY")),
            (std::vector<std::int32_t>{0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(DecodeBinaryArray<std::int64_t>(vtu.Array("CellData", "ELEMENT_ID")),
            (std::vector<std::int64_t>{1, 2}));
}

TEST(VtkOutput, FilesDoNotDependOnTheThreadCount) {
  const std::string dir = TestDir();
  Model model;
  ModelPart& mp = MakeHexMesh(model);
  const int threads = omp_get_max_threads();
  std::string contents[2];
  for (int run = 0; run < 2; ++run) {
    omp_set_num_threads(run == 0 ? 1 : 4);
    VtkOutput(mp, VtkSettings(dir + "/" + std::to_string(run), R"(,
        "nodal_solution_step_data_variables": ["TEMPERATURE", "DISPLACEMENT"])"))
        .PrintOutput();
    contents[run] = ReadFile(dir + "/" + std::to_string(run) + "/Main_0.vtu");
  }
  omp_set_num_threads(threads);
  EXPECT_EQ(contents[0], contents[1]);
}

TEST(VtkOutput, UnknownSettingIsAnErrorNamingIt) {
  Model model;
  ModelPart& mp = MakeHexMesh(model);
  try {
    VtkOutput(mp, Parameters(R"({"nodal_results": ["TEMPERATURE"]})"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("nodal_results"), std::string::npos) << message;
    EXPECT_NE(message.find("nodal_solution_step_data_variables"), std::string::npos) << message;
  }
  EXPECT_THROW(VtkOutput(mp, Parameters(R"({"file_format": "hdf5"})")), Error);
  EXPECT_THROW(VtkOutput(mp, Parameters(R"({"entity_type": "nodes"})")), Error);
  try {
    VtkOutput(mp, Parameters(R"({"nodal_solution_step_data_variables": ["TEMPERATUR"]})"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("TEMPERATURE"), std::string::npos) << e.what();
  }
  // A variable that is not historical is reported when writing.
  VtkOutput output(mp, Parameters(R"({"output_path": ")" + TestDir() +
                                  R"(", "nodal_solution_step_data_variables": ["PRESSURE"]})"));
  try {
    output.PrintOutput();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("PRESSURE"), std::string::npos) << e.what();
  }
}

TEST(VtkOutput, DefaultsAreComplete) {
  const Parameters defaults = VtkOutput::GetDefaultParameters();
  for (const char* key : {"model_part_name", "output_path", "file_format", "output_precision",
                          "output_sub_model_parts", "nodal_solution_step_data_variables",
                          "nodal_data_value_variables", "element_data_value_variables",
                          "condition_data_value_variables", "gauss_point_variables_in_elements",
                          "write_deformed_configuration", "write_ids", "entity_type",
                          "output_control_type", "output_interval"})
    EXPECT_TRUE(defaults.Has(key)) << key;
}

// ============================================================ GiD

namespace {
// The lines of a file from the first line equal to `start` up to (without) the
// first line equal to `end` after it.
std::vector<std::string> Block(const std::string& text, const std::string& start,
                               const std::string& end, std::size_t occurrence = 0) {
  std::istringstream in(text);
  std::vector<std::string> lines;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside && line == start) {
      if (occurrence-- == 0) inside = true;
      continue;
    }
    if (inside && line == end) return lines;
    if (inside) lines.push_back(line);
  }
  return inside ? lines : std::vector<std::string>{};
}

std::size_t Count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}
}  // namespace

TEST(GidOutput, WritesMeshBlocksAndNodalResults) {
  const std::string dir = TestDir();
  Model model;
  ModelPart& mp = MakeHexMesh(model);
  GidOutput output(mp, Parameters(R"({"output_path": ")" + dir + R"(", "output_name": "case",
      "nodal_results": ["TEMPERATURE", "DISPLACEMENT"]})"));
  SetStep(mp, 0.1, 1);
  output.PrintOutput();
  SetStep(mp, 0.2, 2);
  mp.GetNode(3).GetSolutionStepValue(TEMPERATURE) = -1.5;
  output.PrintOutput();
  output.ExecuteFinalize();
  EXPECT_EQ(output.MeshFileName(), (fs::path(dir) / "case.post.msh").string());

  const std::string msh = ReadFile(dir + "/case.post.msh");
  EXPECT_EQ(Count(msh, "MESH "), 2u);
  EXPECT_EQ(msh.find("MESH \"case_Hexahedra\" dimension 3 ElemType Hexahedra Nnode 8\n"), 0u);
  EXPECT_NE(msh.find("MESH \"case_Triangle_conditions\" dimension 3 ElemType Triangle Nnode 3\n"),
            std::string::npos);
  const auto coordinates = Block(msh, "Coordinates", "End Coordinates");
  ASSERT_EQ(coordinates.size(), 12u);
  EXPECT_EQ(coordinates[8], "9 2 0 0");
  EXPECT_TRUE(Block(msh, "Coordinates", "End Coordinates", 1).empty());  // written once
  EXPECT_EQ(Block(msh, "Elements", "End Elements"),
            (std::vector<std::string>{"1 1 2 3 4 5 6 7 8 1", "2 2 9 10 3 6 11 12 7 1"}));
  EXPECT_EQ(Block(msh, "Elements", "End Elements", 1), std::vector<std::string>{"5 1 2 3 1"});

  const std::string res = ReadFile(dir + "/case.post.res");
  EXPECT_EQ(res.find("GiD Post Results File 1.0\n"), 0u);
  EXPECT_EQ(Count(res, "Result \""), 4u);
  const auto t1 = Block(res, "Result \"TEMPERATURE\" \"Kratos\" 1 Scalar OnNodes", "End Values");
  ASSERT_EQ(t1.size(), 13u);
  EXPECT_EQ(t1[0], "Values");
  EXPECT_EQ(t1[1], "1 10");
  EXPECT_EQ(t1[12], "12 120");
  const auto t2 = Block(res, "Result \"TEMPERATURE\" \"Kratos\" 2 Scalar OnNodes", "End Values");
  ASSERT_EQ(t2.size(), 13u);
  EXPECT_EQ(t2[3], "3 -1.5");
  const auto d = Block(res, "Result \"DISPLACEMENT\" \"Kratos\" 2 Vector OnNodes", "End Values");
  ASSERT_EQ(d.size(), 14u);
  EXPECT_EQ(d[0], "ComponentNames \"X\", \"Y\", \"Z\"");
  EXPECT_EQ(d[1], "Values");
  EXPECT_EQ(d[3], "2 0.02 0.04 0.06");
}

TEST(GidOutput, TimeLabelsAndMultipleFiles) {
  const std::string dir = TestDir();
  Model model;
  ModelPart& mp = MakeHexMesh(model);
  GidOutput output(mp, Parameters(R"({"output_path": ")" + dir + R"(", "file_label": "time",
      "multiple_files": true, "write_conditions": false, "nodal_results": ["TEMPERATURE"]})"));
  SetStep(mp, 0.25, 1);
  output.PrintOutput();
  SetStep(mp, 0.5, 2);
  output.PrintOutput();
  for (const char* label : {"0.25", "0.5"}) {
    const std::string base = dir + "/Main_" + label;
    const std::string msh = ReadFile(base + ".post.msh");
    EXPECT_EQ(Count(msh, "MESH "), 1u);  // no conditions block
    const std::string res = ReadFile(base + ".post.res");
    EXPECT_EQ(Count(res, "Result \""), 1u);
    EXPECT_NE(res.find(std::string("Result \"TEMPERATURE\" \"Kratos\" ") + label),
              std::string::npos);
  }
}

TEST(GidOutput, SpheresAndGaussPointResults) {
  const std::string dir = TestDir();
  Model model;
  ModelPart& balls = model.CreateModelPart("Balls");
  balls.AddNodalSolutionStepVariable(RADIUS);
  auto properties = balls.CreateNewProperties(3);
  const GeometryType& sphere = GetGeometryType("Sphere3D1");
  for (int i = 1; i <= 2; ++i) {
    Node n = balls.CreateNewNode(i, i, 0, 0);
    n.GetSolutionStepValue(RADIUS) = 0.5 * i;
    balls.AddElement(std::make_unique<Element>(
        10 + i, Geometry(&sphere, &balls.Nodal(), Geometry::NodeIndices{n.Index()}), properties));
  }
  balls.GetElement(12).SetValue(RADIUS, 0.75);  // the element's radius wins
  GidOutput(balls, Parameters(R"({"output_path": ")" + dir + R"("})")).PrintOutput();
  const std::string msh = ReadFile(dir + "/Balls.post.msh");
  EXPECT_EQ(msh.find("MESH \"Balls_Sphere\" dimension 3 ElemType Sphere Nnode 1\n"), 0u);
  EXPECT_EQ(Block(msh, "Elements", "End Elements"),
            (std::vector<std::string>{"11 1 0.5 3", "12 2 0.75 3"}));

  // Node-only model part with RADIUS: nodes become spheres.
  ModelPart& cloud = model.CreateModelPart("Cloud");
  cloud.CreateNewNode(7, 0, 0, 0).SetValue(RADIUS, 0.2);
  GidOutput(cloud, Parameters(R"({"output_path": ")" + dir + R"("})")).PrintOutput();
  const std::string cloud_msh = ReadFile(dir + "/Cloud.post.msh");
  EXPECT_NE(cloud_msh.find("ElemType Sphere Nnode 1"), std::string::npos);
  EXPECT_EQ(Block(cloud_msh, "Elements", "End Elements"), std::vector<std::string>{"7 7 0.2 0"});

  // Gauss point results: one centre point per element, the average of the element's values.
  ModelPart& gp = model.CreateModelPart("Gauss");
  const GeometryType& hexa = GetGeometryType("Hexahedra3D8");
  Geometry::NodeIndices nodes;
  for (int i = 1; i <= 8; ++i)
    nodes.push_back(gp.CreateNewNode(i, i & 1, (i >> 1) & 1, i >> 2).Index());
  gp.AddElement(std::make_unique<GaussElement>(4, Geometry(&hexa, &gp.Nodal(), nodes), nullptr));
  GidOutput(gp,
            Parameters(R"({"output_path": ")" + dir +
                       R"(", "gauss_point_results": ["PRESSURE", "VELOCITY", "STRESS_VECTOR"]})"))
      .PrintOutput();
  const std::string res = ReadFile(dir + "/Gauss.post.res");
  EXPECT_EQ(
      Block(res, "GaussPoints \"Gauss_Hexahedra_gp\" ElemType Hexahedra \"Gauss_Hexahedra\"",
            "End GaussPoints"),
      (std::vector<std::string>{"Number Of Gauss Points: 1", "Natural Coordinates: Internal"}));
  EXPECT_EQ(
      Block(res, "Result \"PRESSURE\" \"Kratos\" 0 Scalar OnGaussPoints \"Gauss_Hexahedra_gp\"",
            "End Values"),
      (std::vector<std::string>{"Values", "4 8"}));
  EXPECT_EQ(
      Block(res, "Result \"VELOCITY\" \"Kratos\" 0 Vector OnGaussPoints \"Gauss_Hexahedra_gp\"",
            "End Values"),
      (std::vector<std::string>{"ComponentNames \"X\", \"Y\", \"Z\"", "Values", "4 2 1 0"}));
  const auto stress = Block(
      res, "Result \"STRESS_VECTOR\" \"Kratos\" 0 Matrix OnGaussPoints \"Gauss_Hexahedra_gp\"",
      "End Values");
  ASSERT_EQ(stress.size(), 3u);
  EXPECT_EQ(stress[2], "4 2 3 4 5 6 7");
}

TEST(GidOutput, UnknownSettingIsAnErrorNamingIt) {
  Model model;
  ModelPart& mp = MakeHexMesh(model);
  try {
    GidOutput(mp, Parameters(R"({"nodal_result": ["TEMPERATURE"]})"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nodal_result"), std::string::npos) << e.what();
  }
  EXPECT_THROW(GidOutput(mp, Parameters(R"({"file_label": "iteration"})")), Error);
  EXPECT_THROW(GidOutput(mp, Parameters(R"({"nodal_results": ["IDENTIFIER"]})")), Error);
}
