// Filling the wall rows and the sphere-face contact geometry.
#include "applications/dem/walls/rigid_face_storage.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "applications/dem/conditions/rigid_face.h"
#include "applications/dem/particles/particle_storage.h"
#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/model/model_part.h"

namespace tessera::dem {
namespace {

// Inside-outside tolerance, relative to the squared edge length: a centre over
// the shared edge of two faces is on both facets (the Distance Hierarchy keeps
// one of the two coincident contacts).
constexpr double kInsideTolerance = 1e-12;

// Relative margin on the squared radius below which PolygonContact does not
// call a sphere off a face by the edge-line test: far larger than rounding,
// far smaller than any overlap that matters (a relative 5e-10 of the radius).
constexpr double kOffFaceMargin = 1e-9;

// Fewer faces than this are read on one thread (a few walls' faces take less
// than the start of a parallel loop).
constexpr std::ptrdiff_t kMinimumParallelFaces = 1024;

// 1 where every vertex of face f has exactly zero velocity and last
// displacement (RigidFaceStorage::still), else 0.
std::uint8_t StandsStill(const RigidFaceStorage& faces, std::size_t f) {
  for (int k = 0; k < faces.vertex_count[f]; ++k)
    for (int d = 0; d < 3; ++d)
      if (faces.velocities[f][k][d] != 0.0 || faces.delta_displacement[f][k][d] != 0.0) return 0;
  return 1;
}

// Reads the vertex coordinates and velocities of every face from the nodes
// and the step's displacement. The box and plane of a face are recomputed
// where a vertex has moved, or of all faces if `every_face`: most walls stand
// still, and their geometry from the same coordinates would be the same bits.
// With `mask`, only the faces f with mask[f] == which.
void ReadFaceVertices(ModelPart& walls, RigidFaceStorage& faces, bool every_face,
                      const std::uint8_t* mask = nullptr, std::uint8_t which = 0) {
  NodalDatabase& db = walls.Nodal();
  const Array3* velocity =
      db.HasHistoricalVariable(VELOCITY) ? db.HistoricalColumn(VELOCITY).Data() : nullptr;
  // Each face writes its own row only, so the rows in parallel are the same
  // bits: a deformable skin (DE-FE coupling) moves every face every step.
  const auto count = static_cast<std::ptrdiff_t>(faces.size());
#pragma omp parallel for schedule(static) if (count >= kMinimumParallelFaces)
  for (std::ptrdiff_t row = 0; row < count; ++row) {
    const auto f = static_cast<std::size_t>(row);
    if (mask != nullptr && mask[f] != which) continue;
    bool moved = every_face;
    for (int k = 0; k < faces.vertex_count[f]; ++k) {
      const IndexType node = faces.nodes[f][k];
      const Array3& x = db.Coordinates(node);
      moved = moved || std::memcmp(&x, &faces.points[f][k], sizeof x) != 0;
      faces.delta_displacement[f][k] = x - faces.points[f][k];
      faces.points[f][k] = x;
      faces.velocities[f][k] = velocity ? velocity[node] : Array3{};
    }
    faces.still[f] = StandsStill(faces, f);
    if (moved) UpdateFaceGeometry(faces, f);
  }
}

// Edges and vertices (3.7-3.12, with the erratum's projected length): the
// closest point of the polygon boundary (of the segment when n = 2). For a
// convex face the Distance Hierarchy keeps only the closest of its edge and
// vertex contacts, so the one face yields at most that one contact.
// N, the vertex count, is a template argument so that the cyclic index of the
// next vertex is no integer division.
template <int N>
void ClosestBoundaryPoint(const std::array<Array3, 4>& v, const Array3& centre,
                          FaceContactGeometry& g) {
  double best = std::numeric_limits<double>::infinity();
  for (int a = 0; a < (N == 2 ? 1 : N); ++a) {
    const int b = (a + 1) % N;
    const Array3 edge = v[b] - v[a];
    const double eta = std::clamp(Dot(centre - v[a], edge) / Dot(edge, edge), 0.0, 1.0);
    const Array3 point = v[a] + eta * edge;
    const Array3 gap = point - centre;
    const double d2 = Dot(gap, gap);
    if (d2 < best) {
      best = d2;
      g.point = point;
      g.weights = {};
      g.weights[a] = 1.0 - eta;
      g.weights[b] = eta;
      g.type = eta > 0.0 && eta < 1.0 ? FaceContactType::kEdge : FaceContactType::kVertex;
    }
  }
}

// Distance and normal of the feature found; kNone when the sphere does not
// reach it (or none was found: coordinates that are not numbers).
void Finish(FaceContactGeometry& g, const Array3& centre, double radius) {
  if (g.type == FaceContactType::kNone) return;
  const Array3 gap = g.point - centre;
  g.distance = Norm(gap);
  if (!(g.distance <= radius) || !(g.distance > 0.0)) {
    g.type = FaceContactType::kNone;
    return;
  }
  g.normal = gap / g.distance;
}

// The contact of a sphere with a triangle (N = 3) or quadrilateral (N = 4).
template <int N>
void PolygonContact(const RigidFaceStorage& faces, std::size_t f, const Array3& centre,
                    double radius, FaceContactGeometry& g) {
  // Plane test (thesis 3.1-3.4), against the plane kept with the face; a
  // sphere farther from the plane than its radius ends here.
  if (!faces.has_plane[f]) return;
  const Array3& normal = faces.plane_normal[f];
  const double plane_distance = Dot(centre - faces.plane_origin[f], normal);
  if (std::abs(plane_distance) > radius) return;
  const Array3 projection = centre - plane_distance * normal;
  const auto& v = faces.points[f];

  // Inside-outside test (3.5-3.6): s_a = twice the signed area of the triangle
  // (v_a, v_a+1, projection); all >= 0 means the projection is on the facet.
  // s_a / |v_a+1 - v_a| is at most the projection's distance to the line of
  // edge a in the plane (at most: the edge may leave a warped plane), and a
  // convex face lies wholly on the inner side of that line. Every point of
  // its edges is also at least |plane distance| - warp from the centre along
  // the normal. A projection outside an edge line by more than
  //   lateral = sqrt(r^2 - (|plane distance| - warp)^2)
  // therefore puts the sphere off the face: most candidates of a mesh are
  // such coplanar neighbours (the sphere rests on the next face, its centre a
  // little less than r from the plane), which then need no closest-point
  // search (its divisions and square root). The margin keeps the shortcut
  // for what is off the face beyond any rounding, and a projection inside the
  // facet within kInsideTolerance never takes it.
  const double reach2 = (1.0 + kOffFaceMargin) * radius * radius;
  const double off_plane = std::max(std::abs(plane_distance) - faces.warp[f], 0.0);
  const double lateral2 = reach2 - off_plane * off_plane;
  const bool convex = faces.convex[f] != 0;
  std::array<double, 4> s{};
  bool inside = true;
  for (int a = 0; a < N; ++a) {
    const Array3& va = v[a];
    const Array3& vb = v[(a + 1) % N];
    const double edge2 = Dot(vb - va, vb - va);
    const double inside_limit = -kInsideTolerance * edge2;
    s[a] = Dot(Cross(vb - va, projection - va), normal);
    if (convex && s[a] < inside_limit && s[a] * s[a] > lateral2 * edge2) return;
    inside = inside && s[a] >= inside_limit;
  }
  if (inside) {
    for (double& x : s) x = std::max(x, 0.0);
    if constexpr (N == 3) {
      // Triangle areas opposite each vertex (3.13).
      const double total = s[0] + s[1] + s[2];
      g.weights = {s[1] / total, s[2] / total, s[0] / total, 0.0};
    } else {
      // Convex quadrilateral (Zhong, 3.14).
      const double total = (s[0] + s[2]) * (s[1] + s[3]);
      g.weights = {s[1] * s[2] / total, s[2] * s[3] / total, s[3] * s[0] / total,
                   s[0] * s[1] / total};
    }
    g.type = FaceContactType::kFacet;
    g.point = projection;
  } else {
    ClosestBoundaryPoint<N>(v, centre, g);
  }
  Finish(g, centre, radius);
}

}  // namespace

void UpdateFaceGeometry(RigidFaceStorage& faces, std::size_t f) {
  const auto& v = faces.points[f];
  const int n = faces.vertex_count[f];
  Array3 lo = v[0], hi = lo;
  for (int k = 1; k < n; ++k)
    for (int d = 0; d < 3; ++d) lo[d] = std::min(lo[d], v[k][d]), hi[d] = std::max(hi[d], v[k][d]);
  faces.boxes.min[f] = lo;
  faces.boxes.max[f] = hi;
  // Plane (thesis 3.1-3.4): a quadrilateral may be slightly warped, so its
  // normal is the diagonals' cross product and its plane passes through the
  // vertex mean.
  faces.has_plane[f] = faces.convex[f] = 0;
  faces.plane_normal[f] = faces.plane_origin[f] = Array3{};
  faces.warp[f] = 0.0;
  if (f < faces.sub_triangles.size())
    faces.sub_triangles[f] = n == 4 && faces.keeps_sub_triangles[f]
                                 ? QuadSubTrianglesOf(v[0], v[1], v[2], v[3])
                                 : QuadSubTriangles{};
  if (n < 3) {  // a segment
    faces.area[f] = Norm(v[1] - v[0]);
    return;
  }
  Array3 normal, origin;
  if (n == 3) {
    normal = Cross(v[1] - v[0], v[2] - v[0]);
    origin = v[0];
  } else {
    normal = Cross(v[2] - v[0], v[3] - v[1]);
    origin = 0.25 * (v[0] + v[1] + v[2] + v[3]);
  }
  // Half the cross product of the edges (a triangle) or diagonals (a
  // quadrilateral: exact for a planar one).
  const double length = Norm(normal);
  faces.area[f] = 0.5 * length;
  if (!(length > 0.0)) return;
  faces.plane_normal[f] = normal / length;
  faces.plane_origin[f] = origin;
  faces.has_plane[f] = 1;
  for (int k = 0; k < n; ++k)
    faces.warp[f] = std::max(faces.warp[f], std::abs(Dot(v[k] - origin, faces.plane_normal[f])));
  // Convexity: a triangle that spans a plane is convex; a quadrilateral is if
  // it turns the same way at every corner. The triple product of consecutive
  // edges and the normal is the turn at a corner of the polygon projected on
  // the plane (counter-clockwise about the normal the vertex order defines).
  bool convex = true;
  if (n == 4) {
    const Array3 edges[4] = {v[1] - v[0], v[2] - v[1], v[3] - v[2], v[0] - v[3]};
    for (int a = 0; a < 4; ++a)
      convex = convex && Dot(Cross(edges[a], edges[(a + 1) & 3]), normal) > 0.0;
  }
  faces.convex[f] = convex ? 1 : 0;
}

void KeepSubTrianglesOf(RigidFaceStorage& faces, const std::vector<std::uint32_t>& candidate_faces,
                        const std::vector<std::uint8_t>& area_distributed) {
  if (faces.sub_triangles.size() != faces.size()) return;  // rows not from FillRigidFaces
  std::fill(faces.keeps_sub_triangles.begin(), faces.keeps_sub_triangles.end(), 0);
  if (area_distributed.size() != faces.size()) return;
  for (const std::uint32_t f : candidate_faces)
    if (faces.vertex_count[f] == 4 && area_distributed[f]) faces.keeps_sub_triangles[f] = 1;
  for (std::size_t f = 0; f < faces.size(); ++f) {
    if (!faces.keeps_sub_triangles[f] || faces.sub_triangles[f].computed) continue;
    const auto& v = faces.points[f];
    faces.sub_triangles[f] = QuadSubTrianglesOf(v[0], v[1], v[2], v[3]);
  }
}

void FillRigidFaces(ModelPart& walls, MaterialIndex& materials, RigidFaceStorage& faces,
                    int dimension) {
  const std::size_t n = walls.NumberOfConditions();
  faces = RigidFaceStorage{};
  faces.points.resize(n);
  faces.velocities.resize(n);
  faces.delta_displacement.resize(n);
  faces.still.resize(n);
  faces.nodes.resize(n);
  faces.vertex_count.resize(n);
  faces.material.resize(n);
  faces.condition_id.resize(n);
  faces.boxes.min.resize(n);
  faces.boxes.max.resize(n);
  faces.plane_normal.resize(n);
  faces.plane_origin.resize(n);
  faces.has_plane.resize(n);
  faces.convex.resize(n);
  faces.warp.resize(n);
  faces.area.resize(n);
  faces.inverse_mass.resize(n);
  faces.massive.resize(n);
  faces.sub_triangles.resize(n);
  faces.keeps_sub_triangles.resize(n);
  const ProcessInfo& info = walls.GetProcessInfo();
  std::size_t row = 0;
  for (Condition& condition : walls.Conditions()) {
    const auto* face = dynamic_cast<const RigidFace*>(&condition);
    if (face == nullptr)
      TESSERA_ERROR(condition.Info(), " in ", walls.FullName(),
                    " is not a DEM rigid wall (RigidFace3D3N, RigidFace3D4N)");
    const std::size_t count = face->GetGeometry().size();
    const bool edge_2d = dynamic_cast<const RigidEdge2D*>(face) != nullptr;
    if (dimension == 2 && !edge_2d)
      TESSERA_ERROR(face->Info(), " in ", walls.FullName(),
                    ": a 2D run (\"Dimension\": 2) takes RigidEdge2D2N walls (segments in the "
                    "x-y plane) only");
    if (dimension != 2 && edge_2d)
      TESSERA_ERROR(face->Info(), " in ", walls.FullName(),
                    " is a 2D wall, but the run is 3D; set \"Dimension\": 2 in "
                    "ProjectParametersDEM.json or use RigidFace3D3N/3D4N walls");
    // Segments (RigidFace3D2N, RigidEdge3D2N) in 3D: a sphere touches the
    // closest point of the segment, as a disc touches a RigidEdge2D2N.
    if (count < 2 || count > 4)
      TESSERA_ERROR(face->Info(), " in ", walls.FullName(), " has ", count,
                    " nodes; a DEM wall is a segment (2), triangle (3) or quadrilateral (4)");
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
  ReadFaceVertices(walls, faces, /*every_face=*/true);
  // The nodes' masses (deformable walls; RigidFaceStorage::inverse_mass).
  NodalDatabase& db = walls.Nodal();
  const bool has_masses = db.HasNonHistoricalColumn(NODAL_MASS);
  for (std::size_t f = 0; f < n; ++f) {
    faces.inverse_mass[f] = {};
    faces.massive[f] = 0;
    if (!has_masses) continue;
    for (int k = 0; k < faces.vertex_count[f]; ++k) {
      const IndexType node = faces.nodes[f][k];
      if (!db.HasNonHistorical(NODAL_MASS, node)) continue;
      const double mass = db.NonHistorical(NODAL_MASS, node);
      if (!(mass > 0.0)) continue;
      faces.inverse_mass[f][k] = 1.0 / mass;
      faces.massive[f] = 1;
    }
  }
  for (std::size_t f = 0; f < n; ++f) {  // nothing moved yet
    faces.delta_displacement[f] = {};
    faces.still[f] = StandsStill(faces, f);
  }
}

void UpdateRigidFaces(ModelPart& walls, RigidFaceStorage& faces) {
  ReadFaceVertices(walls, faces, /*every_face=*/false);
}

void UpdateRigidFacesWhere(ModelPart& walls, RigidFaceStorage& faces,
                           const std::vector<std::uint8_t>& mask, std::uint8_t which) {
  if (mask.size() != faces.size())
    TESSERA_ERROR("UpdateRigidFacesWhere: ", mask.size(), " mask entries for ", faces.size(),
                  " faces");
  ReadFaceVertices(walls, faces, /*every_face=*/false, mask.data(), which);
}

void FaceContact(const RigidFaceStorage& faces, std::size_t f, const Array3& centre, double radius,
                 FaceContactGeometry& g) {
  g.type = FaceContactType::kNone;
  switch (faces.vertex_count[f]) {
    case 2:
      // A segment (2D wall, or RigidFace3D2N/RigidEdge3D2N in 3D): no facet,
      // the closest point of the segment (an end point or inside it).
      ClosestBoundaryPoint<2>(faces.points[f], centre, g);
      Finish(g, centre, radius);
      return;
    case 3:
      PolygonContact<3>(faces, f, centre, radius, g);
      return;
    default:
      PolygonContact<4>(faces, f, centre, radius, g);
      return;
  }
}

void KeepFacesInReach(const RigidFaceStorage& faces, const std::vector<Array3>& position,
                      const std::vector<double>& radius, double tolerance,
                      std::vector<std::uint32_t>& particle, std::vector<std::uint32_t>& face) {
  std::size_t kept = 0;
  FaceContactGeometry g;
  for (std::size_t c = 0; c < particle.size(); ++c) {
    const std::uint32_t i = particle[c], f = face[c];
    FaceContact(faces, f, position[i], radius[i] + tolerance, g);
    if (g.type == FaceContactType::kNone) continue;
    particle[kept] = i;
    face[kept] = f;
    ++kept;
  }
  particle.resize(kept);
  face.resize(kept);
}

}  // namespace tessera::dem
