// Tests of the data model: variables, the nodal column store, model parts and
// their sub model parts, removal, properties and tables.
#include <gtest/gtest.h>

#include "kernel/core/kernel_variables.h"
#include "kernel/core/variable_registry.h"
#include "kernel/model/model.h"
#include "kernel/parallel/parallel_for.h"

using namespace tessera;

TEST(Variables, RegisteredByNameWithComponents) {
  const VariableBase& v = VariableRegistry::Instance().Get("DISPLACEMENT_Y");
  EXPECT_EQ(&v, &DISPLACEMENT_Y);
  EXPECT_TRUE(v.IsComponent());
  EXPECT_EQ(v.Source(), &DISPLACEMENT);
  EXPECT_EQ(v.ComponentIndex(), 1);
  EXPECT_EQ(&VariableRegistry::Instance().Get<Array3>("VELOCITY"), &VELOCITY);
  EXPECT_NE(TEMPERATURE.Id(), PRESSURE.Id());
}

TEST(Variables, UnknownNameSuggestsClosest) {
  try {
    VariableRegistry::Instance().Get("DISPLACEMNT");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean DISPLACEMENT"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(VariableRegistry::Instance().Get<double>("VELOCITY"), Error);
}

TEST(DataValueContainer, ComponentsShareTheirSource) {
  DataValueContainer data;
  EXPECT_EQ(data.GetValue(TEMPERATURE), 0.0);  // absent -> zero, Kratos semantics
  data.SetValue(VELOCITY_Y, 4.9);
  EXPECT_EQ(data.GetValue(VELOCITY)[1], 4.9);
  data.SetValue(VELOCITY, Array3{1, 2, 3});
  EXPECT_EQ(data.GetValue(VELOCITY_Z), 3.0);
  data.SetValue(IS_RESTARTED, Value(1));  // int 1 is accepted as true
  EXPECT_TRUE(data.GetValue(IS_RESTARTED));
  EXPECT_THROW(data.SetValue(DENSITY, Value(std::string("x"))), Error);
}

TEST(NodalDatabase, HistoricalBufferShiftsAndCopies) {
  Model model;
  ModelPart& mp = model.CreateModelPart("Main", 3);
  mp.AddNodalSolutionStepVariable(DISPLACEMENT);
  mp.AddNodalSolutionStepVariable(TEMPERATURE);
  Node n = mp.CreateNewNode(7, 1.0, 2.0, 3.0);
  n.GetSolutionStepValue(TEMPERATURE) = 10.0;
  n.GetSolutionStepValue(DISPLACEMENT_X) = 0.5;
  mp.CloneTimeStep(0.1);
  EXPECT_EQ(n.GetSolutionStepValue(TEMPERATURE, 0), 10.0);  // new step starts as a copy
  EXPECT_EQ(n.GetSolutionStepValue(TEMPERATURE, 1), 10.0);
  n.GetSolutionStepValue(TEMPERATURE) = 20.0;
  mp.CloneTimeStep(0.3);
  EXPECT_EQ(n.GetSolutionStepValue(TEMPERATURE, 1), 20.0);
  EXPECT_EQ(n.GetSolutionStepValue(TEMPERATURE, 2), 10.0);
  EXPECT_EQ(n.GetSolutionStepValue(DISPLACEMENT, 2)[0], 0.5);
  EXPECT_DOUBLE_EQ(mp.GetProcessInfo().GetValue(DELTA_TIME), 0.2);
  EXPECT_THROW(n.GetSolutionStepValue(PRESSURE), Error);  // not declared historical
}

TEST(NodalDatabase, ColumnsAreContiguous) {
  Model model;
  ModelPart& mp = model.CreateModelPart("Main");
  mp.AddNodalSolutionStepVariable(VELOCITY);
  for (int i = 1; i <= 100; ++i) mp.CreateNewNode(i, i, 0, 0);
  auto& column = mp.Nodal().HistoricalColumn(VELOCITY);
  for (IndexType i = 0; i < 100; ++i) column[i] = Array3{double(i), 0, 0};
  const double* raw = reinterpret_cast<const double*>(column.Data());
  EXPECT_EQ(raw[3 * 42], 42.0);  // (N, 3) block of doubles
  EXPECT_EQ(mp.GetNode(43).GetSolutionStepValue(VELOCITY_X), 42.0);
}

TEST(NodalDatabase, DofsAndFixity) {
  Model model;
  ModelPart& mp = model.CreateModelPart("Main");
  Node n = mp.CreateNewNode(1, 0, 0, 0);
  EXPECT_FALSE(n.IsFixed(DISPLACEMENT_X));
  n.Fix(DISPLACEMENT_X);  // fixing adds the dof, as in Kratos
  EXPECT_TRUE(n.HasDofFor(DISPLACEMENT_X));
  EXPECT_TRUE(n.IsFixed(DISPLACEMENT_X));
  n.Free(DISPLACEMENT_X);
  EXPECT_FALSE(n.IsFixed(DISPLACEMENT_X));
  EXPECT_THROW(n.AddDof(DISPLACEMENT), Error);  // a dof is a scalar or a component
}

TEST(ModelPart, SubModelPartsPropagateToAncestors) {
  Model model;
  ModelPart& root = model.CreateModelPart("Main");
  for (int i = 1; i <= 4; ++i) root.CreateNewNode(i, i, 0, 0);
  ModelPart& inlets = root.CreateSubModelPart("Inlets");
  ModelPart& inlet1 = root.CreateSubModelPart("Inlets.Inlet1");
  const IdType a[] = {1, 2};
  inlets.AddNodes(a);
  const IdType b[] = {1, 3};
  inlet1.AddNodes(b);
  EXPECT_EQ(inlets.NumberOfNodes(), 3u);  // {1,2} ∪ {1,3}
  EXPECT_EQ(inlet1.NumberOfNodes(), 2u);
  EXPECT_EQ(&model.GetModelPart("Main.Inlets.Inlet1"), &inlet1);
  EXPECT_EQ(inlet1.FullName(), "Main.Inlets.Inlet1");
  inlet1.CreateNewNode(10, 0, 0, 0);
  EXPECT_TRUE(root.HasNode(10));
  EXPECT_TRUE(inlets.HasNode(10));
  EXPECT_EQ(root.NumberOfNodes(), 5u);
  EXPECT_THROW(model.GetModelPart("Main.Outlet"), Error);
  EXPECT_THROW(root.CreateNewNode(10, 0, 0, 0), Error);  // duplicate id
}

TEST(ModelPart, ElementsNeedDefinedNodesAndKnownNames) {
  Model model;
  ModelPart& mp = model.CreateModelPart("Main");
  for (int i = 1; i <= 3; ++i) mp.CreateNewNode(i, i == 2, i == 3, 0);
  auto props = mp.CreateNewProperties(1);
  const IdType tri[] = {1, 2, 3};
  Element& e = mp.CreateNewElement("Element2D3N", 5, tri, props);
  EXPECT_NEAR(e.GetGeometry().DomainSize(), 0.5, 1e-15);  // unit right triangle
  const IdType bad[] = {1, 2, 99};
  EXPECT_THROW(mp.CreateNewElement("Element2D3N", 6, bad, props), Error);
  EXPECT_THROW(mp.CreateNewElement("Element2D3N", 5, tri, props), Error);  // duplicate id
  try {
    mp.CreateNewElement("Element2D3", 7, tri, props);
    FAIL();
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("Element2D3N"), std::string::npos) << err.what();
  }
  const IdType two[] = {1, 2};
  EXPECT_THROW(mp.CreateNewElement("Element2D3N", 8, two, props), Error);  // node count
}

TEST(ModelPart, RemovalCompactsEveryLevel) {
  Model model;
  ModelPart& root = model.CreateModelPart("Main");
  root.AddNodalSolutionStepVariable(TEMPERATURE);
  ModelPart& sub = root.CreateSubModelPart("Sub");
  for (int i = 1; i <= 6; ++i) sub.CreateNewNode(i, i, 0, 0).GetSolutionStepValue(TEMPERATURE) = i;
  auto props = root.CreateNewProperties(0);
  const IdType line[] = {5, 6};
  sub.CreateNewElement("Element2D2N", 1, line, props);
  root.GetNode(2).Set(TO_ERASE);
  root.GetNode(4).Set(TO_ERASE);
  root.RemoveNodesFlagged(TO_ERASE);
  EXPECT_EQ(root.NumberOfNodes(), 4u);
  EXPECT_EQ(sub.NumberOfNodes(), 4u);
  EXPECT_FALSE(root.HasNode(2));
  EXPECT_EQ(root.GetNode(5).GetSolutionStepValue(TEMPERATURE), 5.0);
  Element& e = root.GetElement(1);
  EXPECT_EQ(e.GetGeometry()[0].Id(), 5);  // element follows its moved nodes
  root.GetNode(5).Set(TO_ERASE);
  EXPECT_THROW(root.RemoveNodesFlagged(TO_ERASE), Error);  // still used by element 1
  e.Set(TO_ERASE);
  root.RemoveElementsFlagged(TO_ERASE);
  EXPECT_EQ(sub.NumberOfElements(), 0u);
}

TEST(ModelPart, ReorderNodesMovesEveryReferenceAndKeepsHandlesValid) {
  Model model;
  ModelPart& root = model.CreateModelPart("Main");
  root.AddNodalSolutionStepVariable(TEMPERATURE);
  ModelPart& sub = root.CreateSubModelPart("Sub");
  for (int i = 1; i <= 5; ++i) root.CreateNewNode(i, i, 0, 0).GetSolutionStepValue(TEMPERATURE) = i;
  sub.AddNodesByIndex({0, 3});  // nodes 1 and 4
  auto props = root.CreateNewProperties(0);
  const IdType line[] = {2, 5};
  Element& e = root.CreateNewElement("Element2D2N", 1, line, props);
  const Node kept = root.GetNode(4);  // a handle held across the reordering
  EXPECT_EQ(kept.Index(), 3u);

  root.ReorderNodes({4, 3, 2, 1, 0});  // reversed
  EXPECT_EQ(root.GetNode(5).Index(), 0u);
  EXPECT_EQ(kept.Index(), 1u);
  EXPECT_EQ(kept.Id(), 4u);
  EXPECT_EQ(kept.GetSolutionStepValue(TEMPERATURE), 4.0);
  EXPECT_EQ(kept.X(), 4.0);
  EXPECT_EQ(e.GetGeometry()[0].Id(), 2u);  // elements follow their nodes
  EXPECT_EQ(e.GetGeometry()[1].Id(), 5u);
  std::vector<IdType> sub_ids;
  for (Node node : sub.Nodes()) sub_ids.push_back(node.Id());
  EXPECT_EQ(sub_ids, (std::vector<IdType>{4, 1}));  // in the new position order

  EXPECT_THROW(root.ReorderNodes({0, 1, 2, 3}), Error);     // too short
  EXPECT_THROW(root.ReorderNodes({0, 1, 2, 3, 3}), Error);  // not a permutation

  // A handle survives the removal of another node and fails clearly on its own.
  const Node gone = root.GetNode(3);
  root.GetNode(1).Set(TO_ERASE);
  root.RemoveNodesFlagged(TO_ERASE);
  EXPECT_EQ(kept.GetSolutionStepValue(TEMPERATURE), 4.0);
  root.GetNode(3).Set(TO_ERASE);
  root.RemoveNodesFlagged(TO_ERASE);
  EXPECT_THROW(gone.X(), Error);
}

TEST(ModelPart, KeepNodesInOrderRemovesTheOthersAndReordersTheRestInOnePass) {
  Model model;
  ModelPart& root = model.CreateModelPart("Main");
  root.AddNodalSolutionStepVariable(TEMPERATURE);
  ModelPart& sub = root.CreateSubModelPart("Sub");
  for (int i = 1; i <= 6; ++i) root.CreateNewNode(i, i, 0, 0).GetSolutionStepValue(TEMPERATURE) = i;
  sub.AddNodesByIndex({0, 2, 4});  // nodes 1, 3 and 5
  auto props = root.CreateNewProperties(0);
  const IdType line[] = {3, 6};
  Element& e = root.CreateNewElement("Element2D2N", 1, line, props);
  const Node kept = root.GetNode(6);

  // An element still uses node 3 (position 2): it cannot go.
  EXPECT_THROW(root.KeepNodesInOrder({5, 3}), Error);
  EXPECT_THROW(root.KeepNodesInOrder({5, 2, 5}), Error);  // listed twice
  EXPECT_EQ(root.NumberOfNodes(), 6u);                    // nothing changed

  root.KeepNodesInOrder({5, 2, 0});  // nodes 6, 3, 1 kept in that order; 2, 4, 5 go
  EXPECT_EQ(root.NumberOfNodes(), 3u);
  EXPECT_EQ(kept.Index(), 0u);
  EXPECT_EQ(kept.GetSolutionStepValue(TEMPERATURE), 6.0);
  EXPECT_EQ(root.GetNode(3).Index(), 1u);
  EXPECT_EQ(root.GetNode(1).X(), 1.0);
  EXPECT_FALSE(root.HasNode(5));
  EXPECT_EQ(e.GetGeometry()[0].Id(), 3u);  // elements follow their nodes
  EXPECT_EQ(e.GetGeometry()[1].Id(), 6u);
  std::vector<IdType> sub_ids;
  for (Node node : sub.Nodes()) sub_ids.push_back(node.Id());
  EXPECT_EQ(sub_ids, (std::vector<IdType>{3, 1}));  // node 5 gone, in position order
}

TEST(Table, InterpolatesAndExtrapolatesAsKratos) {
  Table t("TIME", "VALUE");
  t.AddRow(0.0, 0.0);
  t.AddRow(1.0, 10.0);
  t.AddRow(2.0, 0.0);
  EXPECT_DOUBLE_EQ(t.GetValue(0.25), 2.5);
  EXPECT_DOUBLE_EQ(t.GetValue(1.5), 5.0);
  // Beyond the rows the end segments go on (Kratos' Table::GetValue).
  EXPECT_DOUBLE_EQ(t.GetValue(3.0), -10.0);
  EXPECT_DOUBLE_EQ(t.GetValue(-0.5), -5.0);
  EXPECT_DOUBLE_EQ(t.GetDerivative(0.5), 10.0);
  EXPECT_EQ(t.GetDerivative(3.0), 0.0);
  EXPECT_THROW(t.AddRow(1.5, 0.0), Error);
  Table constant("TIME", "VALUE");
  constant.AddRow(1.0, 7.0);
  EXPECT_EQ(constant.GetValue(-3.0), 7.0);
  EXPECT_EQ(constant.GetValue(5.0), 7.0);
}

TEST(Parallel, ReductionIsIndependentOfThreadCount) {
  const std::size_t n = 100003;
  auto term = [](std::size_t i) { return 1.0 / (1.0 + static_cast<double>(i)); };
  SetParallelThreads(1);
  const double one = ParallelSum(n, term);
  SetParallelThreads(2);
  const double two = ParallelSum(n, term);
  SetParallelThreads(7);
  const double seven = ParallelSum(n, term);
  EXPECT_EQ(one, two);  // bitwise: the same sums in the same order
  EXPECT_EQ(one, seven);
}
