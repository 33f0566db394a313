// Tests of the .mdpa reader, writer and ModelPartIO: the Kratos core reader
// case (every fact its README lists, normal and MESH_ONLY), round trips, every
// error class with its file:line, the lexical corner cases (CRLF, empty file,
// glued comments, padded numbers), DEM renumbering, and every .mdpa of the
// shared Kratos corpus.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <set>
#include <sstream>

#include "kernel/core/kernel_variables.h"
#include "kernel/core/variable_registry.h"
#include "kernel/geometries/geometry_type.h"
#include "kernel/io/mdpa_reader.h"
#include "kernel/io/mdpa_writer.h"
#include "kernel/io/model_part_io.h"
#include "kernel/model/model.h"
#include "kernel/registry/registry.h"
#include "tests/cpp/scratch_directory.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

const std::string kCases = std::string(TESSERA_SHARED_DIR) + "/kratos_cases";
const std::string kCoreFile = kCases + "/core_model_part_io_read/test_model_part_io_read";

// This process' scratch directory (scratch_directory.h).
const fs::path& TempDir() {
  static const tessera::test::ScratchDirectory dir("tessera_mdpa_test");
  return dir.path();
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  const fs::path path = TempDir() / name;
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ModelPart& MakeMain(Model& model) {
  ModelPart& mp = model.CreateModelPart("Main");
  mp.AddNodalSolutionStepVariable(DISPLACEMENT);
  mp.AddNodalSolutionStepVariable(VISCOSITY);
  mp.AddNodalSolutionStepVariable(VELOCITY);
  return mp;
}

// ---------------------------------------------------------------- model part comparison

std::string Str(const Value& v) { return ValueToString(v); }

std::string DataString(const DataValueContainer& data) {
  std::vector<std::string> entries;
  for (const auto& [id, value] : data.Entries())
    entries.push_back(VariableRegistry::Instance().ById(id).Name() + "=" + Str(value));
  std::sort(entries.begin(), entries.end());
  std::string s;
  for (const auto& e : entries) s += e + ";";
  return s;
}

template <class T>
std::string EntityString(T& e, const std::string& name, const NodalDatabase& db) {
  std::string s = name + " " + std::to_string(e.Id()) + " p" +
                  std::to_string(e.HasProperties() ? e.GetPropertiesPointer()->Id() : -1);
  for (std::size_t k = 0; k < e.GetGeometry().size(); ++k)
    s += " " + std::to_string(db.Id(e.GetGeometry().NodeIndex(k)));
  return s + " {" + DataString(e.Data()) + "}";
}

void ExpectSameTables(const Table& a, const Table& b) {
  EXPECT_EQ(a.XName(), b.XName());
  EXPECT_EQ(a.YName(), b.YName());
  EXPECT_EQ(a.X(), b.X());
  EXPECT_EQ(a.Y(), b.Y());
}

void ExpectSameModelParts(ModelPart& a, ModelPart& b) {
  SCOPED_TRACE("model part " + a.FullName());
  ASSERT_EQ(a.NumberOfNodes(), b.NumberOfNodes());
  ASSERT_EQ(a.NumberOfElements(), b.NumberOfElements());
  ASSERT_EQ(a.NumberOfConditions(), b.NumberOfConditions());
  ASSERT_EQ(a.NumberOfGeometries(), b.NumberOfGeometries());
  ASSERT_EQ(a.NumberOfMasterSlaveConstraints(), b.NumberOfMasterSlaveConstraints());
  ASSERT_EQ(a.NumberOfProperties(), b.NumberOfProperties());
  ASSERT_EQ(a.TableIds(), b.TableIds());
  ASSERT_EQ(a.GetSubModelPartNames(), b.GetSubModelPartNames());
  EXPECT_EQ(DataString(a.Data()), DataString(b.Data()));
  NodalDatabase& da = a.Nodal();
  NodalDatabase& dbb = b.Nodal();
  for (std::size_t k = 0; k < a.NumberOfNodes(); ++k) {
    const IndexType i = a.NodeIndices()[k], j = b.NodeIndices()[k];
    ASSERT_EQ(da.Id(i), dbb.Id(j));
    EXPECT_EQ(da.Coordinates(i), dbb.Coordinates(j)) << "node " << da.Id(i);
    EXPECT_EQ(da.InitialCoordinates(i), dbb.InitialCoordinates(j));
    EXPECT_EQ(da.Flags(i), dbb.Flags(j)) << "flags of node " << da.Id(i);
  }
  for (std::size_t k = 0; k < a.NumberOfElements(); ++k)
    EXPECT_EQ(EntityString(a.Elements()[k], RegisteredElementName(a.Elements()[k]), da),
              EntityString(b.Elements()[k], RegisteredElementName(b.Elements()[k]), dbb));
  for (std::size_t k = 0; k < a.NumberOfConditions(); ++k)
    EXPECT_EQ(EntityString(a.Conditions()[k], RegisteredConditionName(a.Conditions()[k]), da),
              EntityString(b.Conditions()[k], RegisteredConditionName(b.Conditions()[k]), dbb));
  for (std::size_t k = 0; k < a.NumberOfGeometries(); ++k) {
    const IndexType ia = a.GeometryIndices()[k], ib = b.GeometryIndices()[k];
    EXPECT_EQ(a.GeometryId(ia), b.GeometryId(ib));
    const Geometry& ga = a.GeometryAt(ia);
    const Geometry& gb = b.GeometryAt(ib);
    EXPECT_EQ(ga.TypePointer(), gb.TypePointer());
    ASSERT_EQ(ga.size(), gb.size());
    for (std::size_t n = 0; n < ga.size(); ++n)
      EXPECT_EQ(da.Id(ga.NodeIndex(n)), dbb.Id(gb.NodeIndex(n)));
  }
  for (std::size_t k = 0; k < a.NumberOfMasterSlaveConstraints(); ++k) {
    const auto& ca = a.MasterSlaveConstraintAt(a.MasterSlaveConstraintIndices()[k]);
    const auto& cb = b.MasterSlaveConstraintAt(b.MasterSlaveConstraintIndices()[k]);
    EXPECT_EQ(ca.id, cb.id);
    EXPECT_EQ(ca.type, cb.type);
    EXPECT_EQ(ca.variable, cb.variable);
    EXPECT_EQ(da.Id(ca.slave), dbb.Id(cb.slave));
    ASSERT_EQ(ca.masters.size(), cb.masters.size());
    for (std::size_t m = 0; m < ca.masters.size(); ++m)
      EXPECT_EQ(da.Id(ca.masters[m]), dbb.Id(cb.masters[m]));
    EXPECT_EQ(ca.weights, cb.weights);
    EXPECT_EQ(ca.constant, cb.constant);
  }
  const auto pa = a.PropertiesList(), pb = b.PropertiesList();
  for (std::size_t k = 0; k < pa.size(); ++k) {
    EXPECT_EQ(pa[k]->Id(), pb[k]->Id());
    EXPECT_EQ(DataString(pa[k]->Data()), DataString(pb[k]->Data()));
    ASSERT_EQ(pa[k]->Tables().size(), pb[k]->Tables().size());
    for (const auto& [key, table] : pa[k]->Tables()) {
      ASSERT_TRUE(pb[k]->Tables().count(key));
      ExpectSameTables(table, pb[k]->Tables().at(key));
    }
  }
  for (IdType id : a.TableIds()) ExpectSameTables(a.GetTable(id), b.GetTable(id));

  if (!a.IsSubModelPart()) {
    // Nodal data of every node: historical values, non-historical values, fixity.
    const auto& registry = VariableRegistry::Instance();
    for (std::uint32_t vid = 0; vid < registry.Size(); ++vid) {
      const VariableBase& v = registry.ById(vid);
      ASSERT_EQ(da.HasHistoricalVariable(v), dbb.HasHistoricalVariable(v));
      for (std::size_t k = 0; k < a.NumberOfNodes(); ++k) {
        const IndexType i = a.NodeIndices()[k], j = b.NodeIndices()[k];
        if (da.HasHistoricalVariable(v))
          EXPECT_EQ(Str(da.GetHistorical(v, i)), Str(dbb.GetHistorical(v, j)))
              << v.Name() << " of node " << da.Id(i);
        if (!v.IsComponent()) {
          EXPECT_EQ(da.HasNonHistorical(v, i), dbb.HasNonHistorical(v, j))
              << "non-historical " << v.Name() << " of node " << da.Id(i);
          if (da.HasNonHistorical(v, i) && dbb.HasNonHistorical(v, j))
            EXPECT_EQ(Str(da.GetNonHistorical(v, i)), Str(dbb.GetNonHistorical(v, j)));
        }
        if (v.Kind() == ValueKind::Double)
          EXPECT_EQ(da.IsFixed(v, i), dbb.IsFixed(v, j))
              << "fixity of " << v.Name() << " on node " << da.Id(i);
      }
    }
  }
  for (const std::string& name : a.GetSubModelPartNames())
    ExpectSameModelParts(a.GetSubModelPart(name), b.GetSubModelPart(name));
}

// Writes `mp`, reads it back into a fresh model part with the same
// solution-step variables, and compares.
void ExpectRoundTrip(ModelPart& mp) {
  const std::string text = MdpaWriter().WriteToString(mp);
  Model model;
  ModelPart& back = model.CreateModelPart(mp.Name());
  for (const VariableBase* v : mp.Nodal().HistoricalVariables())
    back.AddNodalSolutionStepVariable(*v);
  try {
    MdpaReader().ReadText(text, "roundtrip.mdpa", back);
  } catch (const Error& e) {
    FAIL() << e.what() << "\n--- written text ---\n" << text.substr(0, 4000);
  }
  ExpectSameModelParts(mp, back);
  // Writing again gives the same text: nothing drifts.
  EXPECT_EQ(MdpaWriter().WriteToString(back), text);
}

// ---------------------------------------------------------------- the Kratos core case

void CheckCoreCounts(ModelPart& mp, bool mesh_only) {
  EXPECT_EQ(mp.NumberOfSubModelParts(), 2u);
  EXPECT_EQ(mp.NumberOfTables(), mesh_only ? 0u : 1u);
  EXPECT_EQ(mp.NumberOfProperties(), 1u);
  EXPECT_EQ(mp.NumberOfNodes(), 6u);
  EXPECT_EQ(mp.NumberOfGeometries(), 9u);
  EXPECT_EQ(mp.NumberOfElements(), 4u);
  EXPECT_EQ(mp.NumberOfConditions(), 5u);
  EXPECT_EQ(mp.NumberOfMasterSlaveConstraints(), 2u);

  ModelPart& inlets = mp.GetSubModelPart("Inlets");
  EXPECT_EQ(inlets.NumberOfTables(), mesh_only ? 0u : 1u);
  EXPECT_EQ(inlets.NumberOfProperties(), 0u);
  EXPECT_EQ(inlets.NumberOfNodes(), 3u);
  EXPECT_EQ(inlets.NumberOfGeometries(), 0u);
  EXPECT_EQ(inlets.NumberOfElements(), 1u);
  EXPECT_EQ(inlets.NumberOfConditions(), 3u);
  EXPECT_EQ(inlets.NumberOfSubModelParts(), 2u);
  EXPECT_TRUE(inlets.HasNode(1) && inlets.HasNode(2) && inlets.HasNode(3));
  EXPECT_TRUE(inlets.HasCondition(1) && inlets.HasCondition(1800) && inlets.HasCondition(1801));

  ModelPart& inlet1 = mp.GetSubModelPart("Inlets.Inlet1");
  EXPECT_EQ(inlet1.NumberOfTables(), 0u);
  EXPECT_EQ(inlet1.NumberOfProperties(), 0u);
  EXPECT_EQ(inlet1.NumberOfNodes(), 2u);
  EXPECT_EQ(inlet1.NumberOfElements(), 0u);
  EXPECT_EQ(inlet1.NumberOfConditions(), 2u);
  ModelPart& inlet2 = mp.GetSubModelPart("Inlets.Inlet2");
  EXPECT_EQ(inlet2.NumberOfNodes(), 0u);
  EXPECT_EQ(inlet2.NumberOfElements(), 0u);
  EXPECT_EQ(inlet2.NumberOfConditions(), 2u);

  ModelPart& outlet = mp.GetSubModelPart("Outlet");
  EXPECT_EQ(outlet.NumberOfTables(), 0u);
  EXPECT_EQ(outlet.NumberOfProperties(), 1u);
  EXPECT_EQ(outlet.NumberOfNodes(), 0u);
  EXPECT_EQ(outlet.NumberOfElements(), 0u);
  EXPECT_EQ(outlet.NumberOfConditions(), 1u);
  EXPECT_EQ(outlet.NumberOfSubModelParts(), 0u);
}

TEST(MdpaIo, CoreModelPartIoRead) {
  Model model;
  ModelPart& mp = MakeMain(model);
  ModelPartIO(kCoreFile).ReadModelPart(mp);  // the path without ".mdpa", as Kratos passes it
  CheckCoreCounts(mp, false);

  EXPECT_DOUBLE_EQ(mp.GetValue(AMBIENT_TEMPERATURE), 250.0);
  EXPECT_EQ(mp.GetValue(DISPLACEMENT), (Array3{2.1, 3.2, 4.3}));
  EXPECT_DOUBLE_EQ(mp.GetValue(VELOCITY_X), 3.8);
  EXPECT_DOUBLE_EQ(mp.GetValue(VELOCITY_Y), 4.9);
  EXPECT_DOUBLE_EQ(mp.GetValue(VELOCITY_Z), 0.0);

  for (IdType id : {1, 2, 973, 974}) {
    Node n = mp.GetNode(id);
    EXPECT_TRUE(n.IsFixed(DISPLACEMENT_X) && n.IsFixed(DISPLACEMENT_Y) && n.IsFixed(DISPLACEMENT_Z))
        << id;
    EXPECT_DOUBLE_EQ(n.GetSolutionStepValue(VISCOSITY), 0.01);
    EXPECT_TRUE(n.Is(BOUNDARY));
  }
  for (IdType id : {3, 972}) {
    Node n = mp.GetNode(id);
    EXPECT_FALSE(n.IsFixed(DISPLACEMENT_X) || n.IsFixed(DISPLACEMENT_Y) ||
                 n.IsFixed(DISPLACEMENT_Z))
        << id;
    EXPECT_EQ(n.GetSolutionStepValue(VISCOSITY), 0.0);
    EXPECT_FALSE(n.Is(BOUNDARY));
  }
  const std::map<IdType, double> dx{{1, 0.1}, {2, 0.2}}, dy{{973, 0.000973}, {974, 0.000974}};
  for (Node n : mp.Nodes()) {
    const double ex = dx.count(n.Id()) ? dx.at(n.Id()) : 0.0;
    const double ey = dy.count(n.Id()) ? dy.at(n.Id()) : 0.0;
    EXPECT_DOUBLE_EQ(n.GetSolutionStepValue(DISPLACEMENT_X), ex) << n.Id();
    EXPECT_DOUBLE_EQ(n.GetSolutionStepValue(DISPLACEMENT_Y), ey) << n.Id();
    EXPECT_EQ(n.GetSolutionStepValue(DISPLACEMENT_Z), 0.0) << n.Id();
  }
  EXPECT_EQ(mp.GetNode(1).GetSolutionStepValue(VELOCITY), (Array3{1.1, 2.2, 3.3}));
  EXPECT_EQ(mp.GetNode(972).Coordinates(), (Array3{0.0, 7.2, 0.0}));
  EXPECT_EQ(mp.GetNode(3).Coordinates(), (Array3{15.6, 0.0, 0.0}));

  Properties& p = *mp.GetProperties(1);
  EXPECT_TRUE(p.GetValue(IS_RESTARTED));
  EXPECT_FALSE(p.GetValue(COMPUTE_DYNAMIC_TANGENT));
  EXPECT_FALSE(p.GetValue(COMPUTE_LUMPED_MASS_MATRIX));
  EXPECT_DOUBLE_EQ(p.GetValue(DENSITY), 3.4e-5);
  EXPECT_DOUBLE_EQ(p.GetValue(THICKNESS), 19.5);
  EXPECT_EQ(p.GetValue(VOLUME_ACCELERATION), (Array3{0.0, 0.0, 9.8}));
  const Matrix tensor = p.GetValue(LOCAL_INERTIA_TENSOR);
  ASSERT_EQ(tensor.rows(), 3);
  ASSERT_EQ(tensor.cols(), 3);
  const double expected[3][3] = {{0, 0.27, 0.27}, {0.087, 0, 0.27}, {0.075, 0.23, 0}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_DOUBLE_EQ(tensor(i, j), expected[i][j]);
  ASSERT_TRUE(p.HasTable(TEMPERATURE, VISCOSITY));
  EXPECT_DOUBLE_EQ(p.GetTable(TEMPERATURE, VISCOSITY).GetValue(250.0), 2.5e-6);

  const Table& table = mp.GetTable(1);
  EXPECT_EQ(table.Size(), 3u);
  EXPECT_EQ(table.XName(), "TEMPERATURE");
  EXPECT_EQ(table.YName(), "VISCOSITY");
  EXPECT_DOUBLE_EQ(table.GetValue(300.0), 3e-6);

  ModelPart& inlets = mp.GetSubModelPart("Inlets");
  EXPECT_TRUE(inlets.GetValue(IS_RESTARTED));
  EXPECT_TRUE(inlets.GetValue(COMPUTE_LUMPED_MASS_MATRIX));
  EXPECT_FALSE(inlets.GetValue(COMPUTE_DYNAMIC_TANGENT));
  EXPECT_TRUE(inlets.Has(COMPUTE_DYNAMIC_TANGENT));
  EXPECT_TRUE(inlets.HasTable(1));
  EXPECT_TRUE(mp.GetSubModelPart("Outlet").HasProperties(1));

  // Entities, geometries and constraints as written in the file.
  Element& e = mp.GetElement(1796);
  EXPECT_EQ(RegisteredElementName(e), "Element2D3N");
  EXPECT_EQ(e.GetProperties().Id(), 1);
  EXPECT_EQ(e.GetGeometry()[0].Id(), 972);
  EXPECT_EQ(e.GetGeometry()[2].Id(), 974);
  EXPECT_EQ(RegisteredConditionName(mp.GetCondition(1948)), "LineCondition2D2N");
  EXPECT_EQ(mp.GetGeometry(1796).Type().Name(), "Triangle2D3");
  EXPECT_EQ(mp.GetGeometry(10).Type().Name(), "Line2D2");
  EXPECT_EQ(mp.GetGeometry(1948)[1].Id(), 974);
  const MasterSlaveConstraint& c1 = mp.GetMasterSlaveConstraint(1);
  EXPECT_EQ(c1.variable, &DISPLACEMENT_X);
  EXPECT_EQ(mp.Nodal().Id(c1.slave), 1);
  ASSERT_EQ(c1.masters.size(), 1u);
  EXPECT_EQ(mp.Nodal().Id(c1.masters[0]), 2);
  EXPECT_EQ(c1.weights, std::vector<double>{0.5});
  const MasterSlaveConstraint& c2 = mp.GetMasterSlaveConstraint(2);
  ASSERT_EQ(c2.masters.size(), 2u);
  EXPECT_EQ(mp.Nodal().Id(c2.masters[1]), 972);
  EXPECT_EQ(c2.weights, (std::vector<double>{0.25, 0.25}));
  EXPECT_EQ(c2.constant, 0.0);
}

TEST(MdpaIo, CoreModelPartIoReadMeshOnly) {
  Model model;
  ModelPart& mp = MakeMain(model);
  ModelPartIO(kCoreFile, ModelPartIO::READ | ModelPartIO::MESH_ONLY).ReadModelPart(mp);
  CheckCoreCounts(mp, true);
  // Data blocks skipped: properties exist but are empty, no nodal data or flags.
  EXPECT_TRUE(mp.GetProperties(1)->Data().Empty());
  EXPECT_TRUE(mp.GetProperties(1)->Tables().empty());
  EXPECT_TRUE(mp.Data().Empty());
  EXPECT_TRUE(mp.GetSubModelPart("Inlets").Data().Empty());
  for (Node n : mp.Nodes()) {
    EXPECT_FALSE(n.IsFixed(DISPLACEMENT_X));
    EXPECT_EQ(n.GetSolutionStepValue(DISPLACEMENT_X), 0.0);
    EXPECT_FALSE(n.Is(BOUNDARY));
  }
}

TEST(MdpaIo, CoreModelPartIoReadWithoutSolutionStepVariables) {
  // Variables that are not solution-step variables become non-historical values.
  Model model;
  ModelPart& mp = model.CreateModelPart("Main");
  ModelPartIO(kCoreFile + ".mdpa").ReadModelPart(mp);
  EXPECT_DOUBLE_EQ(mp.GetNode(2).GetValue(DISPLACEMENT_X), 0.2);
  EXPECT_TRUE(mp.GetNode(2).Has(DISPLACEMENT));
  EXPECT_FALSE(mp.GetNode(3).Has(DISPLACEMENT));
  EXPECT_TRUE(mp.GetNode(2).IsFixed(DISPLACEMENT_X));
  EXPECT_EQ(mp.GetNode(1).GetValue(VELOCITY), (Array3{1.1, 2.2, 3.3}));
  EXPECT_DOUBLE_EQ(mp.GetNode(974).GetValue(VISCOSITY), 0.01);
  ExpectRoundTrip(mp);
}

TEST(MdpaIo, RoundTripCoreFile) {
  Model model;
  ModelPart& mp = MakeMain(model);
  ModelPartIO(kCoreFile).ReadModelPart(mp);
  ExpectRoundTrip(mp);

  // Through files and ModelPartIO as well.
  const std::string out = (TempDir() / "core_written").string();
  ModelPartIO(out, ModelPartIO::WRITE).WriteModelPart(mp);
  ASSERT_TRUE(fs::exists(out + ".mdpa"));
  Model model2;
  ModelPart& back = MakeMain(model2);
  ModelPartIO(out).ReadModelPart(back);
  ExpectSameModelParts(mp, back);
}

// ---------------------------------------------------------------- a generated mesh

// A block of hexahedra with boundary quadrilaterals, tetrahedra-free geometry
// lines, constraints, data of every kind and three levels of sub model parts.
void BuildGeneratedMesh(ModelPart& mp) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> noise(-1e-3, 1e-3);
  const int nx = 5, ny = 4, nz = 3;
  auto node_id = [&](int i, int j, int k) { return 1 + i + (nx + 1) * (j + (ny + 1) * k); };
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i)
        // Irregular doubles (not short decimals) test exact round trips.
        mp.CreateNewNode(node_id(i, j, k), 0.1 * i + noise(rng), 0.3 * j + noise(rng),
                         k / 3.0 + noise(rng));
  auto props = mp.CreateNewProperties(3);
  props->SetValue(YOUNG_MODULUS, 2.1e11);
  props->SetValue(POISSON_RATIO, 1.0 / 3.0);
  props->SetValue(CONSTITUTIVE_LAW_NAME, std::string("LinearElastic3DLaw"));
  props->SetValue(PARTITION_INDEX, -7);
  props->SetValue(IS_RESTARTED, true);
  Vector strain(6);
  strain << 1, -2, 3.5, 1e-300, -0.0, 7;
  props->SetValue(INITIAL_STRAIN_VECTOR, strain);
  Matrix c(2, 3);
  c << 1, 2, 3, 4, 5, 6.25;
  props->SetValue(CONSTITUTIVE_MATRIX, c);
  props->SetValue(ORIENTATION, Quaternion{0.5, 0.5, -0.5, 0.5});
  Table law_table("TEMPERATURE", "YOUNG_MODULUS");
  law_table.AddRow(0.0, 2e11);
  law_table.AddRow(500.0, 1.5e11);
  props->SetTable(TEMPERATURE, YOUNG_MODULUS, law_table);
  mp.CreateNewProperties(4);
  Table load("TIME", "PRESSURE");
  load.AddRow(0.0, 0.0);
  load.AddRow(1.0 / 7.0, 1e5);
  mp.AddTable(2, load);
  mp.SetValue(TIME, 0.125);
  mp.SetValue(IDENTIFIER, std::string("two words"));

  IdType eid = 100;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const IdType n[8] = {node_id(i, j, k),
                             node_id(i + 1, j, k),
                             node_id(i + 1, j + 1, k),
                             node_id(i, j + 1, k),
                             node_id(i, j, k + 1),
                             node_id(i + 1, j, k + 1),
                             node_id(i + 1, j + 1, k + 1),
                             node_id(i, j + 1, k + 1)};
        mp.CreateNewElement("Element3D8N", eid += 3, n, mp.GetProperties(k == 0 ? 3 : 4));
      }
  IdType cid = 1;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const IdType n[4] = {node_id(i, j, 0), node_id(i, j + 1, 0), node_id(i + 1, j + 1, 0),
                           node_id(i + 1, j, 0)};
      mp.CreateNewCondition("SurfaceCondition3D4N", cid++, n, mp.GetProperties(4));
    }
  const IdType line_nodes[2] = {1, 2};
  mp.CreateNewCondition("LineCondition3D2N", 500, line_nodes, mp.GetProperties(4));
  mp.CreateNewGeometry("Line3D2", 9, line_nodes);
  const IdType tri[3] = {1, 2, 8};
  mp.CreateNewGeometry("Triangle3D3", 3, tri);
  MasterSlaveConstraint msc;
  msc.id = 4;
  msc.variable = &DISPLACEMENT_Z;
  msc.slave = mp.Nodal().IndexOf(node_id(nx, ny, nz));
  msc.masters = {mp.Nodal().IndexOf(1), mp.Nodal().IndexOf(2)};
  msc.weights = {0.1, 0.9};
  msc.constant = -1e-3;
  mp.AddMasterSlaveConstraint(msc);

  // Nodal data: historical scalars with fixity, fixed vector components,
  // non-historical values of every kind, flags.
  NodalDatabase& db = mp.Nodal();
  for (Node n : mp.Nodes()) {
    const IdType id = n.Id();
    n.GetSolutionStepValue(TEMPERATURE) = 20.0 + id / 7.0;
    if (id % 3 == 0) n.GetSolutionStepValue(DISPLACEMENT) = Array3{id * 1e-4, -1.0 / id, 0.0};
    if (id % 5 == 0) n.Fix(TEMPERATURE);
    if (id <= 6) {
      n.Fix(DISPLACEMENT_X);
      n.Fix(DISPLACEMENT_Z);
    }
    if (id % 4 == 0) n.SetValue(PRESSURE, -id * 0.5);
    if (id % 6 == 0) n.SetValue(NODAL_MASS, 0.0);  // set although zero
    if (id == 7) {
      db.SetNonHistorical(PARTITION_INDEX, n.Index(), 3);
      db.SetNonHistorical(IS_RESTARTED, n.Index(), true);
      db.SetNonHistorical(IDENTIFIER, n.Index(), std::string("corner-7"));
      db.SetNonHistorical(STRESS_VECTOR, n.Index(), Value(strain));
      db.SetNonHistorical(DEFORMATION_GRADIENT, n.Index(), Value(c));
      db.SetNonHistorical(ORIENTATION, n.Index(), Quaternion{0, 1, 0, 0});
      n.SetValue(VELOCITY, Array3{1, 2, 3});
      n.Fix(VELOCITY_Y);
    }
    if (id % 2) n.Set(BOUNDARY);
    if (id % 7 == 0) n.Set(INLET);
  }
  mp.GetElement(103).SetValue(TEMPERATURE, 99.5);
  mp.GetElement(106).SetValue(DISPLACEMENT, Array3{1, 0, -1});
  mp.GetElement(106).SetValue(IDENTIFIER, std::string("elem"));
  mp.GetCondition(2).SetValue(PRESSURE, 1e-9);

  ModelPart& skin = mp.CreateSubModelPart("Skin");
  skin.SetValue(IS_RESTARTED, false);
  std::vector<IdType> skin_conditions{1, 2, 3};
  skin.AddConditions(skin_conditions);
  skin.AddPropertiesById(4);
  skin.AddTableById(2);
  ModelPart& corner = mp.CreateSubModelPart("Skin.Corner-1.Deep_2");
  const IdType corner_nodes[2] = {1, 2};
  corner.AddNodes(corner_nodes);
  const IdType corner_elements[1] = {103};
  corner.AddElements(corner_elements);
  const IdType geometries[1] = {9};
  corner.AddGeometries(geometries);
  const IdType constraints[1] = {4};
  corner.AddMasterSlaveConstraints(constraints);
  corner.SetValue(VELOCITY, Array3{0.1, 0.2, 0.3});
  mp.CreateSubModelPart("Empty");
}

TEST(MdpaIo, RoundTripGeneratedMesh) {
  Model model;
  ModelPart& mp = model.CreateModelPart("Generated");
  mp.AddNodalSolutionStepVariable(TEMPERATURE);
  mp.AddNodalSolutionStepVariable(DISPLACEMENT);
  BuildGeneratedMesh(mp);
  ASSERT_EQ(mp.NumberOfElements(), 60u);
  ExpectRoundTrip(mp);

  // The same model part read with renumbering keeps its shape: ids become 1..n.
  const std::string path = WriteTemp("generated.mdpa", MdpaWriter().WriteToString(mp));
  Model model2;
  ModelPart& renumbered = model2.CreateModelPart("Generated");
  renumbered.AddNodalSolutionStepVariable(TEMPERATURE);
  renumbered.AddNodalSolutionStepVariable(DISPLACEMENT);
  MdpaReadOptions options;
  options.renumber = true;
  MdpaReader(options).ReadFile(path, renumbered);
  EXPECT_EQ(renumbered.NumberOfElements(), 60u);
  EXPECT_TRUE(renumbered.HasElement(1) && renumbered.HasElement(60));
  EXPECT_EQ(renumbered.GetSubModelPart("Skin.Corner-1.Deep_2").Elements()[0].Id(), 1);
}

// ---------------------------------------------------------------- errors

struct ErrorCase {
  std::string text;
  int line;
  std::string needle;
};

// Reads `text` from a temporary file; the error must start with file:line and
// contain `needle`.
void ExpectReadError(const std::string& name, const ErrorCase& c, MdpaReadOptions options = {}) {
  SCOPED_TRACE(name);
  const std::string path = WriteTemp(name + ".mdpa", c.text);
  Model model;
  ModelPart& mp = MakeMain(model);
  try {
    MdpaReader(options).ReadFile(path, mp);
  } catch (const Error& e) {
    const std::string message = e.what();
    const std::string prefix = path + ":" + std::to_string(c.line) + ":";
    EXPECT_EQ(message.rfind(prefix, 0), 0u) << "expected prefix " << prefix << "\ngot: " << message;
    EXPECT_NE(message.find(c.needle), std::string::npos)
        << "expected '" << c.needle << "' in: " << message;
    return;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a tessera::Error: " << e.what();
    return;
  }
  ADD_FAILURE() << "no error";
}

const char* kTwoNodes =
    "Begin Nodes\n"
    "1 0 0 0\n"
    "2 1 0 0\n"
    "End Nodes\n";

TEST(MdpaIo, ErrorUnknownBlock) {
  ExpectReadError("unknown_block", {std::string(kTwoNodes) + "\nBegin Nodez\nEnd Nodez\n", 6,
                                    "unknown block 'Begin Nodez'"});
  ExpectReadError("unknown_sub_block",
                  {"Begin SubModelPart A\n  Begin SubModelPartNode\n  End SubModelPartNode\n"
                   "End SubModelPart\n",
                   2, "SubModelPartNodes"});
  ExpectReadError("not_begin", {"// comment\nNodes\n", 2, "expected 'Begin <block>'"});
  ExpectReadError("stray_end", {"\nEnd Nodes\n", 2, "without a matching 'Begin'"});
}

TEST(MdpaIo, ErrorTruncatedBlock) {
  ExpectReadError("truncated", {"Begin Properties 1\nEnd Properties\n\nBegin Nodes\n1 0 0 0\n", 5,
                                "'Begin Nodes' at line 4 is not closed"});
  ExpectReadError(
      "truncated_smp",
      {std::string(kTwoNodes) + "Begin SubModelPart A\n  Begin SubModelPartNodes\n  1\n  End "
                                "SubModelPartNodes\n",
       8, "'Begin SubModelPart' at line 5 is not closed"});
  // A data block skipped in MESH_ONLY mode is still checked for its End.
  MdpaReadOptions mesh_only;
  mesh_only.mesh_only = true;
  ExpectReadError(
      "truncated_mesh_only",
      {"Begin NodalData VISCOSITY\n1 0 1.0\n", 2, "'Begin NodalData' at line 1 is not closed"},
      mesh_only);
  // A missing End shows up as a Begin inside a data block.
  ExpectReadError("missing_end", {"Begin Nodes\n1 0 0 0\nBegin Elements Element2D2N\n", 3,
                                  "is its 'End Nodes' missing?"});
}

TEST(MdpaIo, ErrorMismatchedEnd) {
  ExpectReadError("mismatched", {"Begin Nodes\n1 0 0 0\nEnd Elements\n", 3,
                                 "expected 'End Nodes' to close the block opened at line 1"});
  ExpectReadError("mismatched_nested",
                  {"Begin Properties 1\n Begin Table TEMPERATURE VISCOSITY\n 1 2\n End "
                   "Properties\n",
                   4, "expected 'End Table'"});
}

TEST(MdpaIo, ErrorUnknownNames) {
  ExpectReadError(
      "unknown_element",
      {std::string(kTwoNodes) + "Begin Elements Element2D2M // c\n1 0 1 2\nEnd Elements\n", 5,
       "unknown element 'Element2D2M'; did you mean Element2D2N"});
  ExpectReadError("unknown_condition",
                  {std::string(kTwoNodes) + "Begin Conditions RigidFace3D3N\nEnd Conditions\n", 5,
                   "unknown condition 'RigidFace3D3N'"});
  ExpectReadError(
      "unknown_geometry",
      {std::string(kTwoNodes) + "Begin Geometries Line2D5\n1 1 2\nEnd Geometries\n", 5, "Line2D5"});
  ExpectReadError("unknown_variable", {"Begin ModelPartData\n  DENSITI 1.0\nEnd ModelPartData\n", 2,
                                       "unknown variable 'DENSITI'; did you mean DENSITY"});
  ExpectReadError(
      "unknown_nodal_variable",
      {std::string(kTwoNodes) + "Begin NodalData BOUNDARI\n1\nEnd NodalData\n", 5, "BOUNDARY"});
  ExpectReadError("unknown_constraint",
                  {std::string(kTwoNodes) +
                       "Begin Constraints QuadraticConstraint DISPLACEMENT_X\nEnd Constraints\n",
                   5, "unknown constraint type 'QuadraticConstraint'"});
}

TEST(MdpaIo, ErrorUndefinedNode) {
  ExpectReadError("undefined_node",
                  {std::string(kTwoNodes) + "Begin Elements Element2D2N\n1 0 1 2\n7 0 2 3\n"
                                            "End Elements\n",
                   7, "element 7 refers to node 3, which is not defined"});
  ExpectReadError("undefined_nodal_data",
                  {std::string(kTwoNodes) + "Begin NodalData VISCOSITY\n\n9 0 1.5\nEnd NodalData\n",
                   7, "node 9 is not defined"});
  ExpectReadError(
      "undefined_constraint_master",
      {std::string(kTwoNodes) + "Begin Constraints LinearMasterSlaveConstraint DISPLACEMENT_X\n"
                                "1 0.0 [2](0.5, 0.5) 1 2 5\nEnd Constraints\n",
       6, "constraint 1 refers to node 5"});
}

TEST(MdpaIo, ErrorSubModelPartIdNotInRoot) {
  const std::string mesh = std::string(kTwoNodes) +
                           "Begin Elements Element2D2N\n1 0 1 2\nEnd Elements\n"
                           "Begin Conditions LineCondition2D2N\n5 0 1 2\nEnd Conditions\n";
  ExpectReadError("smp_node", {mesh + "Begin SubModelPart A\n Begin SubModelPartNodes\n 1\n 3\n"
                                      " End SubModelPartNodes\nEnd SubModelPart\n",
                               14, "node 3 is not defined"});
  ExpectReadError(
      "smp_element",
      {mesh + "Begin SubModelPart A\n Begin SubModelPart B\n Begin SubModelPartElements\n"
              " 1 2\n End SubModelPartElements\n End SubModelPart\nEnd SubModelPart\n",
       14, "element 2 is not defined"});
  ExpectReadError("smp_condition",
                  {mesh + "Begin SubModelPart A\n Begin SubModelPartConditions\n 1\n"
                          " End SubModelPartConditions\nEnd SubModelPart\n",
                   13, "condition 1 is not defined"});
  ExpectReadError("smp_properties",
                  {mesh + "Begin SubModelPart A\n Begin SubModelPartProperties\n 8\n"
                          " End SubModelPartProperties\nEnd SubModelPart\n",
                   13, "properties 8 is not defined"});
  ExpectReadError("smp_table", {mesh + "Begin SubModelPart A\n Begin SubModelPartTables\n 1\n"
                                       " End SubModelPartTables\nEnd SubModelPart\n",
                                13, "table 1 is not defined"});
  ExpectReadError("mesh_node", {mesh + "Begin Mesh 1\n Begin MeshNodes\n 4\n End MeshNodes\n"
                                       "End Mesh\n",
                                13, "node 4 is not defined"});
}

TEST(MdpaIo, ErrorMalformedNumber) {
  ExpectReadError("malformed_coordinate", {"Begin Nodes\n1 0 0 0\n2 1.0.0 0 0\nEnd Nodes\n", 3,
                                           "expected the x coordinate of node 2, got '1.0.0'"});
  ExpectReadError("malformed_id", {"Begin Nodes\n1x 0 0 0\nEnd Nodes\n", 2,
                                   "expected a node id (or 'End Nodes'), got '1x'"});
  ExpectReadError("negative_id", {"Begin Nodes\n-1 0 0 0\nEnd Nodes\n", 2, "ids are non-negative"});
  ExpectReadError("malformed_value", {"Begin Properties 1\nDENSITY 7..8\nEnd Properties\n", 2,
                                      "expected a number for DENSITY"});
  ExpectReadError("malformed_vector",
                  {"Begin ModelPartData\nDISPLACEMENT [3](1, 2; 3)\nEnd ModelPartData\n", 2,
                   "expected a number in a vector value, got '2;'"});
  // Numbers that are not finite (std::from_chars would read them).
  ExpectReadError("nan_coordinate", {"Begin Nodes\n1 0 0 0\n2 nan 0 0\nEnd Nodes\n", 3,
                                     "expected the x coordinate of node 2, got 'nan'"});
  ExpectReadError("inf_coordinate", {"Begin Nodes\n1 0 -inf 0\nEnd Nodes\n", 2,
                                     "expected the y coordinate of node 1, got '-inf'"});
  ExpectReadError("infinite_value", {"Begin Properties 1\nDENSITY infinity\nEnd Properties\n", 2,
                                     "expected a number for DENSITY (a double), got 'infinity'"});
  ExpectReadError("nan_in_vector",
                  {"Begin ModelPartData\nDISPLACEMENT [3](1, NaN, 3)\nEnd ModelPartData\n", 2,
                   "expected a number in a vector value, got 'NaN'"});
  ExpectReadError("nan_nodal_value",
                  {std::string(kTwoNodes) + "Begin NodalData VISCOSITY\n1 0 nan\nEnd NodalData\n",
                   6, "expected the value of node 1, got 'nan'"});
  ExpectReadError("overflow_value", {"Begin Properties 1\nDENSITY 1e400\nEnd Properties\n", 2,
                                     "expected a number for DENSITY (a double), got '1e400'"});
  ExpectReadError("missing_coordinate", {"Begin Nodes\n1 0 0\nEnd Nodes\n", 2,
                                         "expected the z coordinate of node 1, got end of line"});
  ExpectReadError("fixity_flag",
                  {std::string(kTwoNodes) + "Begin NodalData VISCOSITY\n1 2 1.0\nEnd NodalData\n",
                   6, "must be 0 or 1"});
}

TEST(MdpaIo, ErrorWrongNumberOfNodes) {
  ExpectReadError(
      "too_few", {std::string(kTwoNodes) + "Begin Elements Element2D3N\n1 0 1 2\nEnd Elements\n", 6,
                  "element 1: Element2D3N (Triangle2D3) has 3 nodes, the line gives 2"});
  ExpectReadError("too_many",
                  {std::string(kTwoNodes) + "Begin Conditions LineCondition2D2N\n1 0 1 2 1\n"
                                            "End Conditions\n",
                   6, "has 2 nodes, the line gives more"});
  ExpectReadError("geometry_nodes",
                  {std::string(kTwoNodes) + "Begin Geometries Triangle2D3\n1 1 2\nEnd Geometries\n",
                   6, "geometry 1: Triangle2D3 has 3 nodes, the line gives 2"});
  ExpectReadError(
      "constraint_masters",
      {std::string(kTwoNodes) + "Begin Constraints LinearMasterSlaveConstraint DISPLACEMENT_X\n"
                                "1 0.0 [0.5, 0.5] 1 2\nEnd Constraints\n",
       6, "constraint 1 has 2 weights but 1 master nodes"});
}

TEST(MdpaIo, ErrorDuplicateIds) {
  ExpectReadError("dup_node", {"Begin Nodes\n1 0 0 0\n2 0 0 0\nEnd Nodes\nBegin Nodes\n2 1 1 1\n"
                               "End Nodes\n",
                               6, "node 2 is defined twice"});
  ExpectReadError(
      "dup_element",
      {std::string(kTwoNodes) + "Begin Elements Element2D2N\n1 0 1 2\n1 0 2 1\nEnd Elements\n", 7,
       "element 1 is defined twice"});
  ExpectReadError("dup_condition",
                  {std::string(kTwoNodes) + "Begin Conditions LineCondition2D2N\n3 0 1 2\nEnd "
                                            "Conditions\nBegin Conditions LineCondition2D2N\n"
                                            "3 0 2 1\nEnd Conditions\n",
                   9, "condition 3 is defined twice"});
  ExpectReadError("dup_properties", {"Begin Properties 1\nEnd Properties\nBegin Properties 1\n"
                                     "End Properties\n",
                                     3, "properties 1 is defined twice (first at line 1)"});
  ExpectReadError("dup_table", {"Begin Table 1 TIME VALUE\n0 0\nEnd Table\nBegin Table 1\nEnd "
                                "Table\n",
                                4, "table 1 is defined twice"});
  ExpectReadError("dup_geometry", {std::string(kTwoNodes) +
                                       "Begin Geometries Line2D2\n1 1 2\n1 2 1\nEnd Geometries\n",
                                   7, "geometry 1 is defined twice"});
  ExpectReadError(
      "dup_constraint",
      {std::string(kTwoNodes) + "Begin Constraints LinearMasterSlaveConstraint DISPLACEMENT_X\n"
                                "1 0.0 [1](0.5) 1 2\n1 0.0 [1](0.5) 2 1\nEnd Constraints\n",
       7, "constraint 1 is defined twice"});
  MdpaReadOptions renumber;
  renumber.renumber = true;
  ExpectReadError("dup_node_renumbered",
                  {"Begin Nodes\n10 0 0 0\n10 0 0 0\nEnd Nodes\n", 3, "node 10 is defined twice"},
                  renumber);
}

TEST(MdpaIo, ErrorVectorSize) {
  ExpectReadError("vector_size", {"Begin Properties 1\nVOLUME_ACCELERATION [2](0, 9.8)\n"
                                  "End Properties\n",
                                  2, "VOLUME_ACCELERATION holds a 3-vector: expected [3]"});
  ExpectReadError("declared_size", {"Begin Properties 1\nVOLUME_ACCELERATION [3](0, 9.8)\n"
                                    "End Properties\n",
                                    2, "vector declared as [3] has 2 values"});
  ExpectReadError("quaternion_size",
                  {std::string(kTwoNodes) + "Begin NodalData ORIENTATION\n1 0 [3](1,0,0)\n"
                                            "End NodalData\n",
                   6, "ORIENTATION holds a quaternion: expected [4]"});
  ExpectReadError("matrix_rows",
                  {"Begin Properties 1\nLOCAL_INERTIA_TENSOR [2,2]((1,0),(0,1),(1,1))\n"
                   "End Properties\n",
                   2, "more rows"});
  ExpectReadError("matrix_cols", {"Begin Properties 1\nLOCAL_INERTIA_TENSOR [2,2]((1,0),(0,1,2))\n"
                                  "End Properties\n",
                                  2, "row 2 of a matrix declared as [2,2] has 3 values"});
}

TEST(MdpaIo, ErrorWrongKind) {
  ExpectReadError("kind_string_for_double",
                  {"Begin Properties 1\nDENSITY steel\nEnd Properties\n", 2,
                   "expected a number for DENSITY (a double), got 'steel'"});
  ExpectReadError(
      "kind_vector_for_double",
      {"Begin ModelPartData\nTIME [1](2)\nEnd ModelPartData\n", 2, "TIME holds a double"});
  ExpectReadError("kind_bool", {"Begin ModelPartData\nIS_RESTARTED 2\nEnd ModelPartData\n", 2,
                                "expected true, false, 1 or 0 for IS_RESTARTED"});
  ExpectReadError("kind_int", {"Begin ModelPartData\nSTEP 2.5\nEnd ModelPartData\n", 2,
                               "expected an integer for STEP"});
  ExpectReadError("kind_matrix_for_vector",
                  {"Begin ModelPartData\nDISPLACEMENT [1,3]((1,2,3))\nEnd ModelPartData\n", 2,
                   "DISPLACEMENT holds a 3-vector, got a matrix"});
  ExpectReadError("kind_scalar_for_vector",
                  {"Begin ModelPartData\nDISPLACEMENT 1.0\nEnd ModelPartData\n", 2,
                   "expected a value like [n](v1, ..., vn) for DISPLACEMENT"});
  ExpectReadError("kind_fix_string",
                  {std::string(kTwoNodes) + "Begin NodalData IDENTIFIER\n1 1 abc\nEnd NodalData\n",
                   6, "cannot fix IDENTIFIER"});
  ExpectReadError(
      "kind_missing_value",
      {"Begin ModelPartData\nTIME   // nothing\nEnd ModelPartData\n", 2, "missing value for TIME"});
  ExpectReadError("kind_trailing", {"Begin ModelPartData\nTIME 1.0 2.0\nEnd ModelPartData\n", 2,
                                    "unexpected '2.0' after the value of TIME"});
}

TEST(MdpaIo, ErrorTableRowsAndMissingFile) {
  // A kernel error (rows out of order) is prefixed with the record's line.
  ExpectReadError("table_order", {"Begin Table 3 TIME VALUE\n0 1\n2 1\n1 1\nEnd Table\n", 4, ""});
  Model model;
  ModelPart& mp = model.CreateModelPart("Main");
  try {
    ModelPartIO("/nonexistent/dir/case").ReadModelPart(mp);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/case.mdpa"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(ModelPartIO(kCoreFile, ModelPartIO::READ).WriteModelPart(mp), Error);
  EXPECT_THROW(ModelPartIO("x", ModelPartIO::WRITE).ReadModelPart(mp), Error);
  EXPECT_THROW(ModelPartIO("x", 16), Error);
  EXPECT_THROW(ModelPartIO("x", ModelPartIO::MESH_ONLY), Error);
}

// ---------------------------------------------------------------- lexical cases

TEST(MdpaIo, CrlfFile) {
  std::string text = Slurp(kCoreFile + ".mdpa");
  std::string crlf;
  for (char c : text) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  const std::string path = WriteTemp("core_crlf.mdpa", crlf);
  Model model, model2;
  ModelPart& mp = MakeMain(model);
  MdpaReader().ReadFile(path, mp);
  CheckCoreCounts(mp, false);
  ModelPart& lf = MakeMain(model2);
  MdpaReader().ReadFile(kCoreFile + ".mdpa", lf);
  ExpectSameModelParts(lf, mp);
  // Errors in a CRLF file still name the right line.
  ExpectReadError("crlf_error", {"Begin Nodes\r\n1 0 0 0\r\n\r\n2 0 x 0\r\nEnd Nodes\r\n", 4,
                                 "expected the y coordinate of node 2, got 'x'"});
}

TEST(MdpaIo, EmptyFileIsEmptyModelPart) {
  for (const std::string& text :
       {std::string(), std::string("\n\n  \t\n"), std::string("// only a comment\r\n")}) {
    const std::string path = WriteTemp("empty.mdpa", text);
    Model model;
    ModelPart& mp = model.CreateModelPart("Main");
    ModelPartIO(path).ReadModelPart(mp);
    EXPECT_EQ(mp.NumberOfNodes(), 0u);
    EXPECT_EQ(mp.NumberOfElements(), 0u);
    EXPECT_EQ(mp.NumberOfProperties(), 0u);
    EXPECT_EQ(mp.NumberOfSubModelParts(), 0u);
  }
}

TEST(MdpaIo, CommentsNumbersAndBooleans) {
  const std::string text =
      "Begin ModelPartData// glued comment\n"
      "\tTIME 3.4E-5//glued\n"
      "  IS_RESTARTED True\n"
      "  IDENTIFIER DEM-wall1\n"
      "  CONSTITUTIVE_LAW_NAME \"two words\" // quoted\n"
      "  VELOCITY [3](1e+20,-00.95 , +2)\n"
      "End ModelPartData// c\n"
      "Begin Properties 0 // GUI\n"
      "  COMPUTE_DYNAMIC_TANGENT true\n"
      "  COMPUTE_LUMPED_MASS_MATRIX FALSE\n"
      "  IS_RESTARTED 1\n"
      "  PARTITION_INDEX 000012\n"
      "  ORIENTATION [4] (1.0, 0.0, 0.0, 0.0)\n"
      "End Properties\n"
      "Begin Nodes // GUI group identifier: FEM\n"
      "1 000001 000000 -00001\n"
      "2 000.95 000000 -00.95\n"
      "//3 1 1 1\n"
      "\t4\t0000.9\t.5\t1.\t// tabbed\n"
      "End Nodes\n"
      "Begin Elements Element3D1N// GUI group identifier: Body\n"
      "1 0 1\n"
      "2 0 2// glued\n"
      "End Elements\n"
      "Begin NodalData RADIUS // GUI group identifier: Body\n"
      "//1 0 9.0\n"
      "1 0 0.326364\n"
      "End NodalData\n"
      "Begin SubModelPart 1 // DEM-FEM-Wall - group identifier: Floor\n"
      "  Begin SubModelPartData // DEM-FEM-Wall. Group name: Floor\n"
      "    IS_RESTARTED false\n"
      "  End SubModelPartData\n"
      "  Begin SubModelPartNodes\n"
      "    1 2 // several ids on one line\n"
      "  End SubModelPartNodes\n"
      "End SubModelPart\n";
  const std::string path = WriteTemp("lexical.mdpa", text);
  Model model;
  ModelPart& mp = model.CreateModelPart("Main");
  ModelPartIO(path).ReadModelPart(mp);
  EXPECT_DOUBLE_EQ(mp.GetValue(TIME), 3.4e-5);
  EXPECT_TRUE(mp.GetValue(IS_RESTARTED));
  EXPECT_EQ(mp.GetValue(IDENTIFIER), "DEM-wall1");
  EXPECT_EQ(mp.GetValue(CONSTITUTIVE_LAW_NAME), "two words");
  EXPECT_EQ(mp.GetValue(VELOCITY), (Array3{1e20, -0.95, 2.0}));
  Properties& p = *mp.GetProperties(0);
  EXPECT_TRUE(p.GetValue(COMPUTE_DYNAMIC_TANGENT));
  EXPECT_FALSE(p.GetValue(COMPUTE_LUMPED_MASS_MATRIX));
  EXPECT_TRUE(p.GetValue(IS_RESTARTED));
  EXPECT_EQ(p.GetValue(PARTITION_INDEX), 12);
  EXPECT_EQ(p.GetValue(ORIENTATION), (Quaternion{1, 0, 0, 0}));
  ASSERT_EQ(mp.NumberOfNodes(), 3u);
  EXPECT_EQ(mp.GetNode(1).Coordinates(), (Array3{1, 0, -1}));
  EXPECT_EQ(mp.GetNode(2).Coordinates(), (Array3{0.95, 0, -0.95}));
  EXPECT_EQ(mp.GetNode(4).Coordinates(), (Array3{0.9, 0.5, 1.0}));
  EXPECT_EQ(RegisteredElementName(mp.GetElement(2)), "Element3D1N");
  EXPECT_DOUBLE_EQ(mp.GetNode(1).GetValue(RADIUS), 0.326364);
  EXPECT_FALSE(mp.GetNode(2).Has(RADIUS));
  EXPECT_FALSE(mp.GetSubModelPart("1").GetValue(IS_RESTARTED));
  EXPECT_EQ(mp.GetSubModelPart("1").NumberOfNodes(), 2u);
  ExpectRoundTrip(mp);
}

TEST(MdpaIo, LegacyMeshBlocks) {
  const std::string text =
      "Begin Nodes // GUI group identifier: ball1\n1 0.025 0 0\nEnd Nodes\n"
      "Begin Nodes // GUI group identifier: ball2\n2 0 0 0\nEnd Nodes\n"
      "Begin Elements Element3D1N   //  GUI group identifier: ball1\n1 1 1\nEnd Elements\n"
      "Begin Elements Element3D1N   //  GUI group identifier: ball2\n2 1 2\nEnd Elements\n"
      "Begin NodalData VELOCITY_X  // GUI group identifier: ball1\n//1 0 -10.0\nEnd NodalData\n"
      "Begin Mesh 1 // GUI conditionid DEM-VelocityBC group identifier: ball1\n"
      "Begin MeshData // GUI Groupid: ball1\nVELOCITY [3] (1.0, 0.0, 0.0)\nEnd MeshData\n"
      "Begin MeshNodes\n1\nEnd MeshNodes\n"
      "Begin MeshElements\n1\nEnd MeshElements\n"
      "End Mesh\n"
      "Begin Mesh 2\nBegin MeshData\nEnd MeshData\nBegin MeshNodes\n2\nEnd MeshNodes\nEnd Mesh\n";
  Model model;
  ModelPart& mp = model.CreateModelPart("SpheresPart");
  MdpaReader().ReadText(text, "legacy.mdpa", mp);
  ASSERT_TRUE(mp.HasSubModelPart("1") && mp.HasSubModelPart("2"));
  EXPECT_EQ(mp.GetSubModelPart("1").GetValue(VELOCITY), (Array3{1, 0, 0}));
  EXPECT_TRUE(mp.GetSubModelPart("1").HasNode(1));
  EXPECT_TRUE(mp.GetSubModelPart("1").HasElement(1));
  EXPECT_TRUE(mp.GetSubModelPart("2").HasNode(2));
  EXPECT_EQ(mp.NumberOfProperties(), 1u);  // created by the elements
}

// ------------------------------------------------ renumbering (docs/file_formats.md §1.9)

const char* kDemLike =
    "Begin ModelPartData\n//  VARIABLE_NAME value\nEnd ModelPartData\n\n"
    "Begin Properties 1\nEnd Properties\n\n"
    "Begin Nodes\n"
    "   14  -0.6207122029  -0.0334263737   0.40\n"
    "   15   0.0571238433  -0.6138121976   0.42\n"
    "   20  -0.0204349663   0.6108070372   0.44\n"
    "   21   0.6079066827   0.0564456333   0.46\n"
    "End Nodes\n\n"
    "Begin Elements Element3D1N// GUI group identifier: Body\n"
    "        1          1    14\n"
    "        4          1    21\n"
    "        5          1    20\n"
    "        6          1    15\n"
    "End Elements\n\n"
    "Begin NodalData RADIUS // GUI group identifier: Body\n"
    "         14 0   0.326364\n"
    "         21 0   0.298592\n"
    "         20 0    0.35679\n"
    "         15 0   0.327858\n"
    "End NodalData\n\n"
    "Begin SubModelPart Parts_Body // Group Body // Subtree Parts\n"
    "    Begin SubModelPartNodes\n           14\n           15\n           20\n           21\n"
    "    End SubModelPartNodes\n"
    "    Begin SubModelPartElements\n            1\n            4\n            5\n"
    "            6\n    End SubModelPartElements\n"
    "    Begin SubModelPartConditions\n    End SubModelPartConditions\n"
    "End SubModelPart\n";

TEST(MdpaIo, RenumberConsecutiveFromGivenIds) {
  const std::string path = WriteTemp("dem_like.mdpa", kDemLike);
  Model model;
  ModelPart& mp = model.CreateModelPart("SpheresPart");
  mp.AddNodalSolutionStepVariable(RADIUS);
  MdpaReadOptions options;
  options.renumber = true;
  ModelPartIO(path, ModelPartIO::READ, options).ReadModelPart(mp);
  // Nodes 14, 15, 20, 21 (order of appearance) -> 1..4; elements 1, 4, 5, 6 -> 1..4.
  const std::map<IdType, double> x{
      {1, -0.6207122029}, {2, 0.0571238433}, {3, -0.0204349663}, {4, 0.6079066827}};
  for (const auto& [id, xx] : x) EXPECT_DOUBLE_EQ(mp.GetNode(id).X(), xx) << id;
  EXPECT_FALSE(mp.HasNode(14));
  EXPECT_DOUBLE_EQ(mp.GetNode(2).GetSolutionStepValue(RADIUS), 0.327858);  // was node 15
  EXPECT_DOUBLE_EQ(mp.GetNode(4).GetSolutionStepValue(RADIUS), 0.298592);  // was node 21
  EXPECT_EQ(mp.GetElement(2).GetGeometry()[0].Id(), 4);                    // element 4 on node 21
  EXPECT_EQ(mp.GetElement(4).GetGeometry()[0].Id(), 2);                    // element 6 on node 15
  EXPECT_FALSE(mp.HasElement(6));
  ModelPart& body = mp.GetSubModelPart("Parts_Body");
  EXPECT_EQ(body.NumberOfNodes(), 4u);
  EXPECT_TRUE(body.HasNode(1) && body.HasNode(4));
  EXPECT_TRUE(body.HasElement(1) && body.HasElement(4));

  // With offsets (a walls file after the spheres: ids continue after them).
  Model model2;
  ModelPart& walls = model2.CreateModelPart("RigidFacePart");
  options.node_id_offset = 5;
  options.element_id_offset = 10;
  MdpaReader(options).ReadFile(path, walls);
  EXPECT_TRUE(walls.HasNode(6) && walls.HasNode(9) && !walls.HasNode(10));
  EXPECT_EQ(walls.GetElement(11).GetGeometry()[0].Id(), 6);
  EXPECT_EQ(walls.GetElement(14).GetGeometry()[0].Id(), 7);
  EXPECT_DOUBLE_EQ(walls.GetNode(9).GetValue(RADIUS), 0.298592);
  EXPECT_TRUE(walls.GetSubModelPart("Parts_Body").HasElement(13));
}

// ---------------------------------------------------------------- writer names

class UnregisteredElement : public Element {
 public:
  using Element::Element;
};

TEST(MdpaIo, WriterNeedsRegisteredNames) {
  Model model;
  ModelPart& mp = model.CreateModelPart("Main");
  mp.CreateNewNode(1, 0, 0, 0);
  mp.CreateNewNode(2, 1, 0, 0);
  const IdType nodes[2] = {1, 2};
  Element& e = mp.CreateNewElement("Element3D2N", 1, nodes, mp.GetPropertiesOrCreate(0));
  EXPECT_EQ(RegisteredElementName(e), "Element3D2N");
  Geometry g = e.GetGeometry();
  mp.AddElement(std::make_unique<UnregisteredElement>(2, g, mp.GetProperties(0)));
  try {
    MdpaWriter().WriteToString(mp);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no registered element name for element 2"),
              std::string::npos)
        << e.what();
  }
}

// ---------------------------------------------------------------- the fuzzer's own seeds

TEST(MdpaIo, FuzzSeedsReadAndRoundTrip) {
  // The hand-written seeds of tests/fuzz/corpus must be valid, or the fuzzer
  // would start from error paths only.
  int count = 0;
  for (const auto& entry :
       fs::directory_iterator(std::string(TESSERA_SOURCE_DIR) + "/tests/fuzz/corpus")) {
    SCOPED_TRACE(entry.path().string());
    Model model;
    ModelPart& mp = model.CreateModelPart("Main");
    mp.AddNodalSolutionStepVariable(DISPLACEMENT);
    mp.AddNodalSolutionStepVariable(VISCOSITY);
    mp.AddNodalSolutionStepVariable(ORIENTATION);
    ASSERT_NO_THROW(MdpaReader().ReadFile(entry.path().string(), mp));
    EXPECT_GT(mp.NumberOfNodes(), 0u);
    ExpectRoundTrip(mp);
    ++count;
  }
  EXPECT_GE(count, 3);
}

// ---------------------------------------------------------------- the shared Kratos corpus

// The first name in the file (in reading order) that no registry knows: an
// element or condition name, or a variable of a data block. Empty if none.
struct Unknown {
  std::string name;
  int line = 0;
};

Unknown FirstUnknownName(const std::string& text) {
  const auto& variables = VariableRegistry::Instance();
  const Registry& registry = Registry::Instance();
  auto known_variable = [&](const std::string& n) {
    return variables.Find(n) != nullptr || variables.FindFlag(n) != nullptr;
  };
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> blocks;
  for (int number = 1; std::getline(in, line); ++number) {
    if (auto c = line.find("//"); c != std::string::npos) line.resize(c);
    std::istringstream words(line);
    std::string first, second, third;
    words >> first >> second >> third;
    if (first.empty()) continue;
    if (first == "Begin") {
      if ((second == "Elements" && !registry.HasElement(third)) ||
          (second == "Conditions" && !registry.HasCondition(third)))
        return {third, number};
      if ((second == "NodalData" || second == "ElementalData" || second == "ConditionalData") &&
          !known_variable(third))
        return {third, number};
      blocks.push_back(second);
      continue;
    }
    if (first == "End") {
      if (!blocks.empty()) blocks.pop_back();
      continue;
    }
    const std::string block = blocks.empty() ? "" : blocks.back();
    if ((block == "ModelPartData" || block == "Properties" || block == "SubModelPartData" ||
         block == "MeshData") &&
        !known_variable(first))
      return {first, number};
  }
  return {};
}

TEST(MdpaIo, KratosCorpus) {
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(kCases))
    if (entry.is_regular_file() && entry.path().extension() == ".mdpa")
      files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 40u);
  int read = 0, waiting = 0;
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    const Unknown unknown = FirstUnknownName(Slurp(path));
    Model model;
    ModelPart& mp = model.CreateModelPart("Main");
    mp.AddNodalSolutionStepVariable(DISPLACEMENT);
    mp.AddNodalSolutionStepVariable(VELOCITY);
    try {
      ModelPartIO(path).ReadModelPart(mp);
      EXPECT_TRUE(unknown.name.empty()) << "read although " << unknown.name << " is unknown";
      ExpectRoundTrip(mp);
      ++read;
      std::cout << "[ read    ] " << path.substr(kCases.size() + 1) << ": " << mp.NumberOfNodes()
                << " nodes, " << mp.NumberOfElements() << " elements, " << mp.NumberOfConditions()
                << " conditions\n";
    } catch (const Error& e) {
      const std::string message = e.what();
      ASSERT_FALSE(unknown.name.empty()) << "unexpected error: " << message;
      // Names the first unknown entity at its file:line.
      EXPECT_EQ(message.rfind(path + ":" + std::to_string(unknown.line) + ":", 0), 0u) << message;
      EXPECT_NE(message.find("'" + unknown.name + "'"), std::string::npos) << message;
      ++waiting;
      std::cout << "[ skipped ] " << path.substr(kCases.size() + 1) << ": needs " << unknown.name
                << " (line " << unknown.line << ")\n";
    }
  }
  std::cout << read << " files read, " << waiting
            << " wait for application names (dem, structural)\n";
  EXPECT_GT(read, 0);
}

}  // namespace
}  // namespace tessera
