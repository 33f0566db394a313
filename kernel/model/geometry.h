// Geometry: the nodes of one element, condition or mesh geometry together with
// its GeometryType (the shape functions and integration rules).
//
// Node positions are kept (not node objects), so an element is a few words plus
// its node list; coordinates are gathered from the NodalDatabase on demand.
#pragma once

#include <boost/container/small_vector.hpp>
#include <span>

#include "kernel/model/node.h"

namespace tessera {

class GeometryType;

class Geometry {
 public:
  using NodeIndices = boost::container::small_vector<IndexType, 8>;
  using Points = boost::container::small_vector<Array3, 8>;

  Geometry() = default;
  Geometry(const GeometryType* type, NodalDatabase* database, NodeIndices nodes)
      : type_(type), db_(database), nodes_(std::move(nodes)) {}

  const GeometryType& Type() const { return *type_; }
  const GeometryType* TypePointer() const { return type_; }
  std::size_t size() const { return nodes_.size(); }
  std::size_t PointsNumber() const { return nodes_.size(); }
  Node operator[](std::size_t i) const { return Node(db_, nodes_[i]); }
  IndexType NodeIndex(std::size_t i) const { return nodes_[i]; }
  const NodeIndices& NodeIndicesList() const { return nodes_; }
  NodeIndices& NodeIndicesList() { return nodes_; }
  NodalDatabase* Database() const { return db_; }

  // Current (or initial) coordinates of the nodes, in node order.
  Points CurrentPoints() const;
  Points InitialPoints() const;

  // Measures of the current configuration, from the GeometryType.
  double DomainSize() const;
  Array3 Center() const;
  int WorkingSpaceDimension() const;
  int LocalDimension() const;

 private:
  const GeometryType* type_ = nullptr;
  NodalDatabase* db_ = nullptr;
  NodeIndices nodes_;
};

}  // namespace tessera
