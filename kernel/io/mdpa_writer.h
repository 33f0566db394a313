// MdpaWriter: writes a ModelPart (with its sub model parts) as a Kratos .mdpa
// file that MdpaReader reads back to an equal model part; and the lookup of
// an entity's registered name from its C++ class and geometry type.
#pragma once

#include <string>

namespace tessera {

class ModelPart;
class Element;
class Condition;

// What is written: ModelPartData, Tables, Properties (values and their
// tables), Nodes (current coordinates), Geometries, Elements, Conditions,
// Constraints, NodalData, ElementalData, ConditionalData and the sub model
// part tree (data, tables, properties, nodes, elements, conditions,
// geometries, constraints). Numbers are written in their shortest form that
// reads back to the same double (std::to_chars), so a round trip is exact.
//
// Nodal data: each historical variable gets a NodalData block listing the
// nodes where it is non-zero or (for a degree of freedom) fixed; a 3-vector
// whose components are degrees of freedom is written per component so that
// the fixity column carries each component's state. Non-historical values are
// written for the nodes that have them set, and node flags as id lists.
// Not representable in .mdpa, hence not written: sub-properties, constitutive
// laws, ProcessInfo, entity flags and buffer steps other than the current one.
class MdpaWriter {
 public:
  void WriteFile(ModelPart& model_part, const std::string& path) const;
  std::string WriteToString(ModelPart& model_part) const;
};

// The registered name of an entity: the name whose registry prototype has the
// same C++ class and the same geometry type. Among several such names the
// first in alphabetical order is taken; none is an error naming the class.
std::string RegisteredElementName(const Element& element);
std::string RegisteredConditionName(const Condition& condition);

}  // namespace tessera
