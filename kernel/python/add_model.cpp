// Python bindings of the data model with Kratos' names: Model, ModelPart, Node,
// Properties, Element, Condition, Geometry, ProcessInfo, tables, plus numpy
// views of nodal columns (NodalArray) that Kratos lacks.
#include <pybind11/stl.h>

#include "kernel/core/kernel_variables.h"
#include "kernel/geometries/geometry_type.h"
#include "kernel/model/model.h"
#include "kernel/python/bindings.h"
#include "kernel/python/casters.h"

namespace py = pybind11;

namespace tessera::python {
namespace {

constexpr auto kRef = py::return_value_policy::reference;
constexpr auto kRefInternal = py::return_value_policy::reference_internal;

// ---- generic get/set by variable on anything holding a DataValueContainer
py::object GetFromContainer(const DataValueContainer& data, const VariableBase& v) {
  return ValueToPython(data.GetValue(v));
}
void SetInContainer(DataValueContainer& data, const VariableBase& v, py::handle value) {
  data.SetValue(v, ValueFromPython(v, value));
}

template <class Class, class DataOf>
void AddDataAccess(Class& cls, DataOf data_of) {
  cls.def("GetValue",
          [data_of](typename Class::type& self, const VariableBase& v) {
            return GetFromContainer(data_of(self), v);
          })
      .def("SetValue", [data_of](typename Class::type& self, const VariableBase& v,
                                 py::object value) { SetInContainer(data_of(self), v, value); })
      .def("Has", [data_of](typename Class::type& self,
                            const VariableBase& v) { return data_of(self).Has(v); })
      .def("__getitem__",
           [data_of](typename Class::type& self, const VariableBase& v) {
             return GetFromContainer(data_of(self), v);
           })
      .def("__setitem__", [data_of](typename Class::type& self, const VariableBase& v,
                                    py::object value) { SetInContainer(data_of(self), v, value); })
      .def("__contains__", [data_of](typename Class::type& self, const VariableBase& v) {
        return data_of(self).Has(v);
      });
}

// ---- numpy views of nodal columns
py::dtype DtypeOf(ValueKind kind) {
  switch (kind) {
    case ValueKind::Double:
    case ValueKind::Array3:
      return py::dtype::of<double>();
    case ValueKind::Int:
      return py::dtype::of<int>();
    case ValueKind::Bool:
      return py::dtype("bool");
    default:
      break;
  }
  TESSERA_ERROR("numpy views exist for double, int, bool and 3-vector variables only");
}

// A writable view on `column` (of the root's nodes), or on one component of it.
py::array ColumnView(DataColumn& column, const VariableBase& variable, std::size_t n,
                     py::handle owner) {
  const VariableBase& storage = column.GetVariable();
  char* base = static_cast<char*>(column.RawData());
  if (variable.IsComponent())
    return py::array(py::dtype::of<double>(), {n}, {sizeof(Array3)},
                     reinterpret_cast<double*>(base) + variable.ComponentIndex(), owner);
  if (storage.Kind() == ValueKind::Array3)
    return py::array(py::dtype::of<double>(), {n, std::size_t{3}}, {sizeof(Array3), sizeof(double)},
                     base, owner);
  const py::dtype dtype = DtypeOf(storage.Kind());
  return py::array(dtype, {n}, {static_cast<std::size_t>(dtype.itemsize())}, base, owner);
}

py::array NodalArray(ModelPart& mp, const VariableBase& variable, int step, bool historical) {
  if (mp.IsSubModelPart())
    TESSERA_ERROR("NodalArray gives a zero-copy view of a root model part's nodes; ", mp.FullName(),
                  " is a sub model part: index the root's array with NodeIndices() instead");
  NodalDatabase& db = mp.Nodal();
  DataColumn& column =
      historical ? db.HistoricalColumnBase(variable, step) : db.NonHistoricalColumnBase(variable);
  return ColumnView(column, variable, db.Size(), py::cast(&mp, kRef));
}

py::array Array3View(std::vector<Array3>& values, py::handle owner) {
  return py::array(py::dtype::of<double>(), {values.size(), std::size_t{3}},
                   {sizeof(Array3), sizeof(double)}, reinterpret_cast<double*>(values.data()),
                   owner);
}

// ---- Node
py::object GetStepValue(const Node& node, const VariableBase& v, int step) {
  return ValueToPython(node.Database().GetHistorical(v, node.Index(), step));
}
void SetStepValue(const Node& node, const VariableBase& v, int step, py::handle value) {
  node.Database().SetHistorical(v, node.Index(), ValueFromPython(v, value), step);
}

// Kratos' node.GetDof(VAR): a view of one degree of freedom of one node.
struct DofHandle {
  NodalDatabase* db;
  IndexType node;
  const VariableBase* variable;
};

void AddNode(py::module_& m) {
  py::class_<DofHandle>(m, "Dof")
      .def_property(
          "EquationId", [](const DofHandle& d) { return d.db->EquationId(*d.variable, d.node); },
          [](const DofHandle& d, IdType id) { d.db->EquationId(*d.variable, d.node) = id; })
      .def("IsFixed", [](const DofHandle& d) { return d.db->IsFixed(*d.variable, d.node); })
      .def("Fix", [](const DofHandle& d) { d.db->Fix(*d.variable, d.node); })
      .def("Free", [](const DofHandle& d) { d.db->Free(*d.variable, d.node); })
      .def(
          "GetVariable", [](const DofHandle& d) { return d.variable; }, kRef)
      .def_property_readonly("Id", [](const DofHandle& d) { return d.db->Id(d.node); });

  py::class_<Node>(m, "Node", "A handle on one node of a root model part's column store")
      .def_property_readonly("Id", &Node::Id)
      .def_property("X", &Node::X, [](Node& n, double v) { n.Coordinates()[0] = v; })
      .def_property("Y", &Node::Y, [](Node& n, double v) { n.Coordinates()[1] = v; })
      .def_property("Z", &Node::Z, [](Node& n, double v) { n.Coordinates()[2] = v; })
      .def_property("X0", &Node::X0, [](Node& n, double v) { n.InitialCoordinates()[0] = v; })
      .def_property("Y0", &Node::Y0, [](Node& n, double v) { n.InitialCoordinates()[1] = v; })
      .def_property("Z0", &Node::Z0, [](Node& n, double v) { n.InitialCoordinates()[2] = v; })
      .def("Coordinates", [](const Node& n) { return n.Coordinates(); })
      .def("GetInitialPosition", [](const Node& n) { return n.InitialCoordinates(); })
      .def("GetSolutionStepValue", &GetStepValue, py::arg("variable"), py::arg("step") = 0)
      .def("SetSolutionStepValue", [](const Node& n, const VariableBase& v,
                                      py::object value) { SetStepValue(n, v, 0, value); })
      .def("SetSolutionStepValue", &SetStepValue)
      .def("SolutionStepsDataHas", &Node::SolutionStepsDataHas)
      .def("GetValue",
           [](const Node& n, const VariableBase& v) {
             return ValueToPython(n.Database().GetNonHistorical(v, n.Index()));
           })
      .def("SetValue",
           [](const Node& n, const VariableBase& v, py::object value) {
             n.Database().SetNonHistorical(v, n.Index(), ValueFromPython(v, value));
           })
      .def("Has", &Node::Has)
      .def("AddDof", [](const Node& n, const VariableBase& v) { n.AddDof(v); })
      .def("AddDof", [](const Node& n, const VariableBase& v,
                        const VariableBase& reaction) { n.AddDof(v, &reaction); })
      .def("HasDofFor", &Node::HasDofFor)
      .def("GetDof",
           [](const Node& n, const VariableBase& v) {
             if (!n.HasDofFor(v))
               TESSERA_ERROR("node ", n.Id(), " has no degree of freedom ", v.Name(),
                             " (add it with AddDof)");
             return DofHandle{&n.Database(), n.Index(), &v};
           })
      .def("Fix", &Node::Fix)
      .def("Free", &Node::Free)
      .def("IsFixed", &Node::IsFixed)
      .def("Is", &Node::Is)
      .def("Set", &Node::Set, py::arg("flag"), py::arg("value") = true)
      .def("__eq__", [](const Node& a, const Node& b) { return a == b; })
      .def("__hash__", [](const Node& n) { return std::hash<IdType>()(n.Id()); })
      .def("__repr__", [](const Node& n) {
        return "Node #" + std::to_string(n.Id()) + " (" + std::to_string(n.X()) + ", " +
               std::to_string(n.Y()) + ", " + std::to_string(n.Z()) + ")";
      });
}

void AddGeometryAndEntities(py::module_& m) {
  py::class_<Geometry>(m, "Geometry", "The nodes of an element, condition or mesh geometry")
      .def("__len__", &Geometry::size)
      .def("__getitem__",
           [](const Geometry& g, std::size_t i) {
             if (i >= g.size()) throw py::index_error();
             return g[i];
           })
      .def("__iter__",
           [](const Geometry& g) {
             std::vector<Node> nodes;
             for (std::size_t i = 0; i < g.size(); ++i) nodes.push_back(g[i]);
             return py::iter(py::cast(nodes));
           })
      .def("PointsNumber", &Geometry::PointsNumber)
      .def("DomainSize", &Geometry::DomainSize)
      .def("Center", &Geometry::Center)
      .def("WorkingSpaceDimension", &Geometry::WorkingSpaceDimension)
      .def("LocalDimension", &Geometry::LocalDimension)
      .def("GetGeometryType", &Geometry::Type, kRef)
      .def("Name", [](const Geometry& g) { return std::string(g.Type().Name()); });

  py::class_<ProcessInfo> process_info(m, "ProcessInfo");
  process_info.def(py::init<>())
      .def("GetPreviousSolutionStepInfo", &ProcessInfo::GetPreviousSolutionStepInfo,
           py::arg("step") = 1, kRefInternal);
  AddDataAccess(process_info, [](ProcessInfo& p) -> DataValueContainer& { return p; });
  py::class_<DataValueContainer> data(m, "DataValueContainer");
  AddDataAccess(data, [](DataValueContainer& d) -> DataValueContainer& { return d; });

  py::class_<Entity> entity(m, "Entity");
  entity.def_property_readonly("Id", &Entity::Id)
      .def("GetGeometry", py::overload_cast<>(&Entity::GetGeometry), kRefInternal)
      .def("GetProperties", &Entity::GetPropertiesPointer)
      .def_property("Properties", &Entity::GetPropertiesPointer, &Entity::SetProperties)
      .def("SetProperties", &Entity::SetProperties)
      .def("Is", &Entity::Is)
      .def("Set", &Entity::Set, py::arg("flag"), py::arg("value") = true)
      .def("Initialize", &Entity::Initialize)
      .def("InitializeSolutionStep", &Entity::InitializeSolutionStep)
      .def("FinalizeSolutionStep", &Entity::FinalizeSolutionStep)
      .def("AddExplicitContribution", &Entity::AddExplicitContribution)
      .def("Check", &Entity::Check)
      .def("Info", &Entity::Info)
      .def("__repr__", &Entity::Info)
      .def("CalculateLocalSystem",
           [](Entity& e, const ProcessInfo& info) {
             Matrix lhs;
             Vector rhs;
             e.CalculateLocalSystem(lhs, rhs, info);
             return py::make_tuple(lhs, rhs);
           })
      .def("CalculateLeftHandSide",
           [](Entity& e, const ProcessInfo& info) {
             Matrix lhs;
             e.CalculateLeftHandSide(lhs, info);
             return lhs;
           })
      .def("CalculateRightHandSide",
           [](Entity& e, const ProcessInfo& info) {
             Vector rhs;
             e.CalculateRightHandSide(rhs, info);
             return rhs;
           })
      .def("CalculateMassMatrix",
           [](Entity& e, const ProcessInfo& info) {
             Matrix mass;
             e.CalculateMassMatrix(mass, info);
             return mass;
           })
      .def("CalculateLumpedMassVector",
           [](const Entity& e, const ProcessInfo& info) {
             Vector mass;
             e.CalculateLumpedMassVector(mass, info);
             return mass;
           })
      .def("CalculateDampingMatrix",
           [](Entity& e, const ProcessInfo& info) {
             Matrix damping;
             e.CalculateDampingMatrix(damping, info);
             return damping;
           })
      .def("EquationIdVector",
           [](const Entity& e, const ProcessInfo& info) {
             std::vector<IdType> ids;
             e.EquationIdVector(ids, info);
             return ids;
           })
      .def(
          "GetDofList",
          [](const Entity& e, const ProcessInfo& info) {
            std::vector<DofReference> dofs;
            e.GetDofList(dofs, info);
            py::list out;
            for (const DofReference& d : dofs)
              out.append(
                  py::make_tuple(e.GetGeometry().Database()->Id(d.node), d.variable->Name()));
            return out;
          },
          "[(node id, variable name)] of the entity's degrees of freedom")
      .def("CalculateOnIntegrationPoints",
           [](Entity& e, const VariableBase& v, const ProcessInfo& info) -> py::object {
             switch (v.Kind()) {
               case ValueKind::Double: {
                 std::vector<double> out;
                 e.CalculateOnIntegrationPoints(static_cast<const Variable<double>&>(v), out, info);
                 return py::cast(out);
               }
               case ValueKind::Array3: {
                 std::vector<Array3> out;
                 e.CalculateOnIntegrationPoints(static_cast<const Variable<Array3>&>(v), out, info);
                 return py::cast(out);
               }
               case ValueKind::Vector: {
                 std::vector<Vector> out;
                 e.CalculateOnIntegrationPoints(static_cast<const Variable<Vector>&>(v), out, info);
                 return py::cast(out);
               }
               case ValueKind::Matrix: {
                 std::vector<Matrix> out;
                 e.CalculateOnIntegrationPoints(static_cast<const Variable<Matrix>&>(v), out, info);
                 return py::cast(out);
               }
               default:
                 TESSERA_ERROR("no integration-point results of kind ", ValueKindName(v.Kind()));
             }
           });
  AddDataAccess(entity, [](Entity& e) -> DataValueContainer& { return e.Data(); });
  py::class_<Element, Entity>(m, "Element");
  py::class_<Condition, Entity>(m, "Condition");
}

void AddPropertiesAndTables(py::module_& m) {
  py::class_<Table>(m, "PiecewiseLinearTable", "y(x) by rows, linear in between")
      .def(py::init<>())
      .def("AddRow", &Table::AddRow)
      .def("GetValue", &Table::GetValue)
      .def("GetDerivative", &Table::GetDerivative)
      .def("Size", &Table::Size)
      .def("__len__", &Table::Size)
      .def("X", &Table::X)
      .def("Y", &Table::Y);

  py::class_<Properties, std::shared_ptr<Properties>> properties(m, "Properties");
  properties.def(py::init<IdType>(), py::arg("id") = 0)
      .def_property_readonly("Id", &Properties::Id)
      .def("HasTable", &Properties::HasTable)
      .def("GetTable", &Properties::GetTable, kRefInternal)
      .def("SetTable", &Properties::SetTable)
      .def("HasSubProperties", &Properties::HasSubProperties)
      .def("GetSubProperties", &Properties::GetSubProperties)
      .def("AddSubProperties", &Properties::AddSubProperties)
      .def("NumberOfSubproperties", &Properties::NumberOfSubproperties)
      .def("__repr__", [](const Properties& p) { return "Properties #" + std::to_string(p.Id()); });
  AddDataAccess(properties, [](Properties& p) -> DataValueContainer& { return p.Data(); });
}

void AddModelPartAndModel(py::module_& m) {
  using NodeRange = ModelPart::NodeRange;
  py::class_<NodeRange>(m, "NodesRange")
      .def("__len__", &NodeRange::size)
      .def(
          "__iter__", [](const NodeRange& r) { return py::make_iterator(r.begin(), r.end()); },
          py::keep_alive<0, 1>())
      .def("__getitem__", [](const NodeRange& r, std::size_t i) {
        if (i >= r.size()) throw py::index_error();
        return r[i];
      });
  using ElementRange = ModelPart::EntityRange<Element>;
  py::class_<ElementRange>(m, "ElementsRange")
      .def("__len__", &ElementRange::size)
      .def(
          "__iter__",
          [](const ElementRange& r) {
            return py::make_iterator<py::return_value_policy::reference>(r.begin(), r.end());
          },
          py::keep_alive<0, 1>());
  using ConditionRange = ModelPart::EntityRange<Condition>;
  py::class_<ConditionRange>(m, "ConditionsRange")
      .def("__len__", &ConditionRange::size)
      .def(
          "__iter__",
          [](const ConditionRange& r) {
            return py::make_iterator<py::return_value_policy::reference>(r.begin(), r.end());
          },
          py::keep_alive<0, 1>());

  py::class_<ModelPart> mp(m, "ModelPart");
  mp.def_property_readonly("Name", &ModelPart::Name)
      .def("FullName", &ModelPart::FullName)
      .def("IsSubModelPart", &ModelPart::IsSubModelPart)
      .def("GetParentModelPart", &ModelPart::GetParentModelPart, kRef)
      .def("GetRootModelPart", py::overload_cast<>(&ModelPart::GetRootModelPart), kRef)
      .def("GetModel", &ModelPart::GetModel, kRef)
      .def("AddNodalSolutionStepVariable", &ModelPart::AddNodalSolutionStepVariable)
      .def("HasNodalSolutionStepVariable", &ModelPart::HasNodalSolutionStepVariable)
      .def("GetBufferSize", &ModelPart::GetBufferSize)
      .def("SetBufferSize", &ModelPart::SetBufferSize)
      .def_property_readonly("ProcessInfo", py::overload_cast<>(&ModelPart::GetProcessInfo), kRef)
      .def("GetProcessInfo", py::overload_cast<>(&ModelPart::GetProcessInfo), kRef)
      .def("CloneTimeStep", &ModelPart::CloneTimeStep)
      // nodes
      .def("CreateNewNode", &ModelPart::CreateNewNode)
      .def("AddNode", [](ModelPart& self, const Node& n) { self.AddNode(n.Id()); })
      .def("AddNode", [](ModelPart& self, IdType id) { self.AddNode(id); })
      .def("AddNodes", [](ModelPart& self, const std::vector<IdType>& ids) { self.AddNodes(ids); })
      .def("HasNode", &ModelPart::HasNode)
      .def("GetNode", &ModelPart::GetNode)
      .def("NumberOfNodes", &ModelPart::NumberOfNodes)
      .def_property_readonly("Nodes", &ModelPart::Nodes, py::keep_alive<0, 1>())
      // elements and conditions
      .def(
          "CreateNewElement",
          [](ModelPart& self, const std::string& name, IdType id, const std::vector<IdType>& nodes,
             Properties::Pointer props) -> Element& {
            return self.CreateNewElement(name, id, nodes, std::move(props));
          },
          kRef)
      .def(
          "CreateNewCondition",
          [](ModelPart& self, const std::string& name, IdType id, const std::vector<IdType>& nodes,
             Properties::Pointer props) -> Condition& {
            return self.CreateNewCondition(name, id, nodes, std::move(props));
          },
          kRef)
      .def("AddElements",
           [](ModelPart& self, const std::vector<IdType>& ids) { self.AddElements(ids); })
      .def("AddConditions",
           [](ModelPart& self, const std::vector<IdType>& ids) { self.AddConditions(ids); })
      .def("HasElement", &ModelPart::HasElement)
      .def("HasCondition", &ModelPart::HasCondition)
      .def("GetElement", &ModelPart::GetElement, kRef)
      .def("GetCondition", &ModelPart::GetCondition, kRef)
      .def("NumberOfElements", &ModelPart::NumberOfElements)
      .def("NumberOfConditions", &ModelPart::NumberOfConditions)
      .def_property_readonly("Elements", &ModelPart::Elements, py::keep_alive<0, 1>())
      .def_property_readonly("Conditions", &ModelPart::Conditions, py::keep_alive<0, 1>())
      .def("NumberOfGeometries", &ModelPart::NumberOfGeometries)
      .def("HasGeometry", &ModelPart::HasGeometry)
      .def("GetGeometry", &ModelPart::GetGeometry, kRef)
      .def(
          "CreateNewGeometry",
          [](ModelPart& self, const std::string& type, IdType id, const std::vector<IdType>& nodes)
              -> Geometry& { return self.CreateNewGeometry(type, id, nodes); },
          kRef)
      .def("NumberOfMasterSlaveConstraints", &ModelPart::NumberOfMasterSlaveConstraints)
      // removal
      .def("RemoveNodesFromAllLevels", &ModelPart::RemoveNodesFlagged,
           py::arg("flag") = std::ref(TO_ERASE))
      .def("RemoveElementsFromAllLevels", &ModelPart::RemoveElementsFlagged,
           py::arg("flag") = std::ref(TO_ERASE))
      .def("RemoveConditionsFromAllLevels", &ModelPart::RemoveConditionsFlagged,
           py::arg("flag") = std::ref(TO_ERASE))
      // properties and tables
      .def("CreateNewProperties", &ModelPart::CreateNewProperties)
      .def("AddProperties", &ModelPart::AddProperties)
      .def("HasProperties", &ModelPart::HasProperties)
      .def("GetProperties", &ModelPart::GetPropertiesOrCreate,
           "The properties of that id (created empty if absent, as Kratos does)")
      .def("GetProperties",
           [](ModelPart& self) {
             std::map<IdType, Properties::Pointer> out;
             for (auto& p : self.PropertiesList()) out[p->Id()] = p;
             return out;
           })
      .def("NumberOfProperties", &ModelPart::NumberOfProperties)
      .def_property_readonly("Properties", &ModelPart::PropertiesList)
      .def("AddTable", &ModelPart::AddTable)
      .def("GetTable", &ModelPart::GetTable, kRefInternal)
      .def("HasTable", &ModelPart::HasTable)
      .def("NumberOfTables", &ModelPart::NumberOfTables)
      // sub model parts
      .def("CreateSubModelPart", &ModelPart::CreateSubModelPart, kRefInternal)
      .def("HasSubModelPart", &ModelPart::HasSubModelPart)
      .def("GetSubModelPart", &ModelPart::GetSubModelPart, kRefInternal)
      .def("RemoveSubModelPart", &ModelPart::RemoveSubModelPart)
      .def("NumberOfSubModelParts", &ModelPart::NumberOfSubModelParts)
      .def("GetSubModelPartNames", &ModelPart::GetSubModelPartNames)
      .def_property_readonly("SubModelParts", &ModelPart::SubModelParts, kRefInternal)
      // numpy views (root model parts; rows follow NodeIndices() order)
      .def(
          "NodalArray",
          [](ModelPart& self, const VariableBase& v, int step) {
            return NodalArray(self, v, step, true);
          },
          py::arg("variable"), py::arg("step") = 0,
          "Writable zero-copy numpy view of a historical nodal variable: (N,) or (N, 3), rows "
          "in NodeIndices() order. Valid until nodes are added to or removed from the model "
          "part; a reordering of the nodes (ModelPart.ReorderNodes, the DEM strategy's "
          "spatial sort) keeps the view but moves the rows: read NodeIndices() again.")
      .def(
          "NodalValueArray",
          [](ModelPart& self, const VariableBase& v) { return NodalArray(self, v, 0, false); },
          "Writable zero-copy numpy view of a non-historical nodal variable")
      .def("NodalCoordinates",
           [](ModelPart& self) {
             if (self.IsSubModelPart()) TESSERA_ERROR("NodalCoordinates is for root model parts");
             return Array3View(self.Nodal().AllCoordinates(), py::cast(&self, kRef));
           })
      .def("NodalInitialCoordinates",
           [](ModelPart& self) {
             if (self.IsSubModelPart())
               TESSERA_ERROR("NodalInitialCoordinates is for root model parts");
             return Array3View(self.Nodal().AllInitialCoordinates(), py::cast(&self, kRef));
           })
      .def(
          "NodeIndices",
          [](ModelPart& self) {
            return py::array_t<IndexType>(self.NodeIndices().size(), self.NodeIndices().data());
          },
          "Positions of this part's nodes in the root's arrays (copy)")
      .def("NodeIds",
           [](ModelPart& self) {
             py::array_t<IdType> out(self.NumberOfNodes());
             auto w = out.mutable_unchecked<1>();
             std::size_t k = 0;
             for (IndexType i : self.NodeIndices()) w(k++) = self.Nodal().Id(i);
             return out;
           })
      .def("__repr__", [](ModelPart& self) {
        return "ModelPart " + self.FullName() + " (" + std::to_string(self.NumberOfNodes()) +
               " nodes, " + std::to_string(self.NumberOfElements()) + " elements, " +
               std::to_string(self.NumberOfConditions()) + " conditions)";
      });
  AddDataAccess(mp, [](ModelPart& p) -> DataValueContainer& { return p.Data(); });

  py::class_<Model>(m, "Model")
      .def(py::init<>())
      .def("CreateModelPart", &Model::CreateModelPart, py::arg("name"), py::arg("buffer_size") = 1,
           kRefInternal)
      .def("GetModelPart", &Model::GetModelPart, kRefInternal)
      .def("__getitem__", &Model::GetModelPart, kRefInternal)
      .def("HasModelPart", &Model::HasModelPart)
      .def("__contains__", &Model::HasModelPart)
      .def("DeleteModelPart", &Model::DeleteModelPart)
      .def("GetModelPartNames", &Model::GetModelPartNames)
      .def("Reset", &Model::Reset);
}

}  // namespace

void AddModelToPython(py::module_& m) {
  AddNode(m);
  AddGeometryAndEntities(m);
  AddPropertiesAndTables(m);
  AddModelPartAndModel(m);
}

}  // namespace tessera::python
