// Filling the wall rows and the sphere-face contact geometry.
#include "applications/dem/walls/rigid_face_storage.h"

#include <algorithm>
#include <cmath>

#include "applications/dem/conditions/rigid_face.h"
#include "applications/dem/particles/particle_storage.h"
#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/model/model_part.h"

namespace tessera::dem {
namespace {

// Barycentric inclusion tolerance: a centre on the shared edge of two faces is
// inside both (the strategy keeps one of two coincident contacts).
constexpr double kInsideTolerance = 1e-12;

// Barycentric coordinates of p (in the plane of a, b, c) with respect to the
// triangle; false if the triangle is degenerate.
bool Barycentric(const Array3& a, const Array3& b, const Array3& c, const Array3& p, double& u,
                 double& v, double& w) {
  const Array3 v0 = b - a, v1 = c - a, v2 = p - a;
  const double d00 = Dot(v0, v0), d01 = Dot(v0, v1), d11 = Dot(v1, v1);
  const double d20 = Dot(v2, v0), d21 = Dot(v2, v1);
  const double denominator = d00 * d11 - d01 * d01;
  if (!(denominator > 0.0)) return false;
  v = (d11 * d20 - d01 * d21) / denominator;
  w = (d00 * d21 - d01 * d20) / denominator;
  u = 1.0 - v - w;
  return true;
}

bool Inside(double u, double v, double w) {
  return u >= -kInsideTolerance && v >= -kInsideTolerance && w >= -kInsideTolerance;
}

void UpdateBox(RigidFaceStorage& faces, std::size_t f) {
  Array3 lo = faces.points[f][0], hi = lo;
  for (int k = 1; k < faces.vertex_count[f]; ++k)
    for (int d = 0; d < 3; ++d)
      lo[d] = std::min(lo[d], faces.points[f][k][d]),
      hi[d] = std::max(hi[d], faces.points[f][k][d]);
  faces.boxes.min[f] = lo;
  faces.boxes.max[f] = hi;
}

}  // namespace

void FillRigidFaces(ModelPart& walls, MaterialIndex& materials, RigidFaceStorage& faces) {
  const std::size_t n = walls.NumberOfConditions();
  faces = RigidFaceStorage{};
  faces.points.resize(n);
  faces.velocities.resize(n);
  faces.delta_displacement.resize(n);
  faces.nodes.resize(n);
  faces.vertex_count.resize(n);
  faces.material.resize(n);
  faces.condition_id.resize(n);
  faces.boxes.min.resize(n);
  faces.boxes.max.resize(n);
  const ProcessInfo& info = walls.GetProcessInfo();
  std::size_t row = 0;
  for (Condition& condition : walls.Conditions()) {
    const auto* face = dynamic_cast<const RigidFace*>(&condition);
    if (face == nullptr)
      TESSERA_ERROR(condition.Info(), " in ", walls.FullName(),
                    " is not a DEM rigid wall (RigidFace3D3N, RigidFace3D4N)");
    const std::size_t count = face->GetGeometry().size();
    if (count != 3 && count != 4)
      TESSERA_ERROR(face->Info(), " in ", walls.FullName(),
                    ": walls made of segments (RigidFace3D2N, RigidEdge3D2N) are not supported "
                    "yet; the DEM strategy handles triangles and quadrilaterals");
    face->Check(info);
    if (!face->HasProperties())
      TESSERA_ERROR(face->Info(), " has no properties; assign it a wall material");
    const Properties& properties = face->GetProperties();
    for (const Variable<double>* variable : {&YOUNG_MODULUS, &POISSON_RATIO})
      if (!properties.Has(*variable))
        TESSERA_ERROR(face->Info(), ": properties ", properties.Id(), " have no ", variable->Name(),
                      "; a DEM wall material needs YOUNG_MODULUS and POISSON_RATIO");
    faces.vertex_count[row] = static_cast<std::uint8_t>(count);
    for (std::size_t k = 0; k < count; ++k) faces.nodes[row][k] = face->GetGeometry().NodeIndex(k);
    faces.material[row] = materials.IndexOf(&properties);
    faces.condition_id[row] = face->Id();
    ++row;
  }
  UpdateRigidFaces(walls, faces);
  for (auto& d : faces.delta_displacement) d = {};  // nothing moved yet
}

void UpdateRigidFaces(ModelPart& walls, RigidFaceStorage& faces) {
  NodalDatabase& db = walls.Nodal();
  const Array3* velocity =
      db.HasHistoricalVariable(VELOCITY) ? db.HistoricalColumn(VELOCITY).Data() : nullptr;
  for (std::size_t f = 0; f < faces.size(); ++f) {
    for (int k = 0; k < faces.vertex_count[f]; ++k) {
      const IndexType node = faces.nodes[f][k];
      const Array3& x = db.Coordinates(node);
      faces.delta_displacement[f][k] = x - faces.points[f][k];
      faces.points[f][k] = x;
      faces.velocities[f][k] = velocity ? velocity[node] : Array3{};
    }
    UpdateBox(faces, f);
  }
}

FaceContactGeometry FaceContact(const RigidFaceStorage& faces, std::size_t f,
                                const Array3& centre) {
  FaceContactGeometry g;
  const auto& p = faces.points[f];
  Array3 normal, origin;
  if (faces.vertex_count[f] == 3) {
    normal = Cross(p[1] - p[0], p[2] - p[0]);
    origin = p[0];
  } else {
    // A quadrilateral may be slightly warped: its plane is the one through the
    // vertex mean normal to the diagonals' cross product.
    normal = Cross(p[2] - p[0], p[3] - p[1]);
    origin = 0.25 * (p[0] + p[1] + p[2] + p[3]);
  }
  const double length = Norm(normal);
  if (!(length > 0.0)) return g;
  normal = normal / length;
  const double signed_distance = Dot(centre - origin, normal);
  const Array3 projection = centre - signed_distance * normal;
  double u, v, w;
  if (faces.vertex_count[f] == 3) {
    if (!Barycentric(p[0], p[1], p[2], projection, u, v, w) || !Inside(u, v, w)) return g;
    g.weights = {u, v, w, 0.0};
  } else {
    auto onto_plane = [&](const Array3& x) { return x - Dot(x - origin, normal) * normal; };
    const Array3 a = onto_plane(p[0]), b = onto_plane(p[1]), c = onto_plane(p[2]),
                 d = onto_plane(p[3]);
    if (Barycentric(a, b, c, projection, u, v, w) && Inside(u, v, w))
      g.weights = {u, v, w, 0.0};
    else if (Barycentric(a, c, d, projection, u, v, w) && Inside(u, v, w))
      g.weights = {u, 0.0, v, w};
    else
      return g;
  }
  g.inside = true;
  g.distance = std::abs(signed_distance);
  g.normal = signed_distance > 0.0 ? -normal : normal;
  g.projection = projection;
  return g;
}

}  // namespace tessera::dem
