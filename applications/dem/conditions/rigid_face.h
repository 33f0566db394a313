// The rigid walls of DEM decks: RigidFace3D3N (triangles), RigidFace3D4N
// (quadrilaterals), RigidFace3D2N and RigidEdge3D2N (segments), RigidEdge2D2N
// (the segment walls of 2D runs).
//
// These classes are data carriers. In Tessera's DEM design the physics lives in
// the DEM strategy (issue "DEM application part 1"): a wall is geometry that the
// particle–wall contact search reads (its nodes, their velocities under the
// sub model part's imposed or free rigid-body motion), and the wall forces are
// written by the strategy to the wall nodes (CONTACT_FORCES, DEM_PRESSURE...). A
// condition here only holds its nodes and properties and checks that its face is
// usable; it computes no force.
#pragma once

#include <string>

#include "kernel/model/element.h"

namespace tessera::dem {

// A rigid face with 2, 3 or 4 nodes (Line3D2, Triangle3D3, Quadrilateral3D4).
class RigidFace : public Condition {
 public:
  using Condition::Condition;
  TESSERA_ELEMENT_CREATE(RigidFace, Condition)

  // The name the condition is registered under (by node count), for messages.
  virtual std::string TypeName() const;
  std::string Info() const override;

  // The face must not be degenerate: a segment needs a length > 0, a triangle or
  // quadrilateral an area > 0 (both relative to its longest edge, so that the
  // test does not depend on units). Throws a tessera::Error naming the
  // condition, its nodes and their coordinates.
  int Check(const ProcessInfo& info) const override;

  // Length of a segment, area of a triangle or quadrilateral (current coordinates).
  double Measure() const;
};

// A rigid edge (Line3D2): contact with the segment itself, as for RigidFace3D2N.
// A separate class so that a model part written back to .mdpa keeps the name.
class RigidEdge : public RigidFace {
 public:
  using RigidFace::RigidFace;
  TESSERA_ELEMENT_CREATE(RigidEdge, Condition)
  std::string TypeName() const override { return "RigidEdge3D2N"; }
};

// The wall of 2D runs (Line2D2 in the x-y plane): the discs touch the segment
// or its end points. Only a 2D run ("Dimension": 2) takes it.
class RigidEdge2D : public RigidFace {
 public:
  using RigidFace::RigidFace;
  TESSERA_ELEMENT_CREATE(RigidEdge2D, Condition)
  std::string TypeName() const override { return "RigidEdge2D2N"; }
};

}  // namespace tessera::dem
