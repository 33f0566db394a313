// Geometry: gathering node coordinates for the geometry type.
#include "kernel/model/geometry.h"

#include "kernel/geometries/geometry_type.h"

namespace tessera {

Geometry::Points Geometry::CurrentPoints() const {
  Points points;
  points.reserve(nodes_.size());
  for (IndexType i : nodes_) points.push_back(db_->Coordinates(i));
  return points;
}

Geometry::Points Geometry::InitialPoints() const {
  Points points;
  points.reserve(nodes_.size());
  for (IndexType i : nodes_) points.push_back(db_->InitialCoordinates(i));
  return points;
}

double Geometry::DomainSize() const {
  const Points p = CurrentPoints();
  return type_->DomainSize(std::span<const Array3>(p.data(), p.size()));
}

Array3 Geometry::Center() const {
  const Points p = CurrentPoints();
  return type_->Center(std::span<const Array3>(p.data(), p.size()));
}

int Geometry::WorkingSpaceDimension() const { return type_->WorkingSpaceDimension(); }
int Geometry::LocalDimension() const { return type_->LocalDimension(); }

}  // namespace tessera
