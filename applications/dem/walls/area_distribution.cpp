// Masters, slaves and intersection areas of the Area Distributed Method.
#include "applications/dem/walls/area_distribution.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <unordered_map>

#include "applications/dem/walls/circle_face_intersection.h"
#include "kernel/core/error.h"
#include "kernel/model/model_part.h"

namespace tessera::dem {
namespace {

// The cosines of AverageMasterSurfaces' blend: a face turned from the
// master's normal by less than kSameSurfaceAngle / 2 counts whole, by
// kSameSurfaceAngle or more not at all (computed once, not per contact).
const double kFullCosine = std::cos(kSameSurfaceAngle / 2.0);
const double kNoneCosine = std::cos(kSameSurfaceAngle);

// Where the circle the sphere cuts in a flat convex face's plane lies wholly
// inside the face (the common case: a sphere on one face, away from its
// edges), its area is πa² and its centroid C_π (C.2): the composition of
// App. C gives the same to round-off, at several times the cost. Writes the
// area and the face's shape functions at C_π (barycentric; bilinear by the
// inverse map for a quadrilateral) and returns true; false where the short
// cut does not apply (the caller composes).
bool CircleInsideFace(const RigidFaceStorage& faces, std::uint32_t f, const Array3& centre,
                      double radius, AreaShare& share) {
  const int n = faces.vertex_count[f];
  if (n < 3 || !faces.has_plane[f] || !faces.convex[f]) return false;
  const auto& v = faces.points[f];
  // A warped quadrilateral is cut sub-triangle by sub-triangle (Fig. 4.12),
  // each in its own plane: its area is not the circle's in the face's mean
  // plane. The bound is round-off of the vertices' coordinates (relative to
  // the face's size √A): above it the sub-triangles' planes differ and
  // CircleQuadrilateralAreaShare places the circle in each of them.
  if (faces.warp[f] > 1e-12 * std::sqrt(faces.area[f])) return false;
  const Array3& normal = faces.plane_normal[f];
  const double d = Dot(centre - faces.plane_origin[f], normal);
  const double delta = radius - std::abs(d);
  if (!(delta > 0.0)) return false;
  const double a = std::sqrt(delta * (2.0 * radius - delta));
  const Array3 c = centre - d * normal;  // C_π
  // Counter-clockwise about the normal (the face's vertex order), normal x
  // edge points into the face: C_π at least a inside every edge line.
  for (int k = 0; k < n; ++k) {
    const Array3 edge = v[(k + 1) % n] - v[k];
    const Array3 inward = Cross(normal, edge);
    if (Dot(c - v[k], inward) < a * Norm(inward)) return false;
  }
  share.area = std::numbers::pi * a * a;
  if (n == 3) {
    const double twice_area = Dot(Cross(v[1] - v[0], v[2] - v[0]), normal);
    share.weights = {Dot(Cross(v[1] - c, v[2] - c), normal) / twice_area,
                     Dot(Cross(v[2] - c, v[0] - c), normal) / twice_area,
                     Dot(Cross(v[0] - c, v[1] - c), normal) / twice_area, 0.0};
    return true;
  }
  double xi = 0.0, eta = 0.0;
  const bool kept = f < faces.sub_triangles.size() && faces.sub_triangles[f].computed;
  const double diagonals =
      kept ? faces.sub_triangles[f].diagonals : Norm(v[2] - v[0]) + Norm(v[3] - v[1]);
  if (!InverseBilinearMap(c, v[0], v[1], v[2], v[3], diagonals, xi, eta)) return false;
  share.weights = BilinearShapeFunctions(xi, eta);
  return true;
}

}  // namespace

WallForceTransfer WallForceTransferFromName(const std::string& name, const std::string& where) {
  if (name == "direct") return WallForceTransfer::kDirect;
  if (name == "area_distributed") return WallForceTransfer::kAreaDistributed;
  TESSERA_ERROR(where, ": unknown wall force transfer '", name,
                "'; expected \"direct\" (shape functions at the contact point) or "
                "\"area_distributed\" (the Area Distributed Method)");
}

const char* WallForceTransferName(WallForceTransfer transfer) {
  return transfer == WallForceTransfer::kAreaDistributed ? "area_distributed" : "direct";
}

void AverageMasterSurfaces(const RigidFaceStorage& faces, const std::uint32_t* face_ids,
                           std::size_t count, const Array3& centre, const AreaShare* shares,
                           const double* master_area, const FaceContactGeometry* kept,
                           MasterSurface* surface) {
  for (std::size_t m = 0; m < count; ++m) surface[m] = MasterSurface{};
  for (std::size_t e = 0; e < count; ++e) {
    const AreaShare& share = shares[e];
    if (share.master < 0 || !(share.area > 0.0)) continue;
    const std::uint32_t f = face_ids[e];
    const FaceContactGeometry& master = kept[share.master];
    const double w = share.area / master_area[share.master];
    const double d = Dot(centre - faces.plane_origin[f], faces.plane_normal[f]);
    const Array3 n = (d < 0.0 ? 1.0 : -1.0) * faces.plane_normal[f];  // centre to plane
    // A face turned from the master's normal by more than kSameSurfaceAngle
    // is another side of the body (over a convex edge its plane passes near
    // the centre): it takes the master's distance and normal, blended in
    // linearly in the cosine from kSameSurfaceAngle / 2.
    const double b =
        std::clamp((Dot(n, master.normal) - kNoneCosine) / (kFullCosine - kNoneCosine), 0.0, 1.0);
    MasterSurface& s = surface[share.master];
    s.distance += w * (b * std::abs(d) + (1.0 - b) * master.distance);
    s.normal += w * (b * n + (1.0 - b) * master.normal);
    if (!faces.still[f])
      for (int k = 0; k < faces.vertex_count[f]; ++k) {
        s.velocity += (w * share.weights[k]) * faces.velocities[f][k];
        s.displacement += (w * share.weights[k]) * faces.delta_displacement[f][k];
      }
  }
  for (std::size_t m = 0; m < count; ++m)
    if (master_area[m] > 0.0) surface[m].normal = surface[m].normal / Norm(surface[m].normal);
}

std::vector<std::uint8_t> AreaDistributedFaces(ModelPart& walls, const RigidFaceStorage& faces,
                                               WallForceTransfer transfer,
                                               const std::vector<std::string>& parts) {
  std::vector<std::uint8_t> flagged(faces.size(),
                                    transfer == WallForceTransfer::kAreaDistributed ? 1 : 0);
  if (parts.empty() || transfer == WallForceTransfer::kAreaDistributed) return flagged;
  std::unordered_map<IdType, std::size_t> row_of;
  for (std::size_t f = 0; f < faces.size(); ++f) row_of.emplace(faces.condition_id[f], f);
  const std::string prefix = walls.FullName() + ".";
  for (const std::string& name : parts) {
    const std::string relative = name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : name;
    if (!walls.HasSubModelPart(relative)) {
      std::string known;
      for (const std::string& n : walls.GetSubModelPartNames())
        known += (known.empty() ? "" : ", ") + prefix + n;
      TESSERA_ERROR("DEM settings: area_distributed_walls names '", name, "', which is not a sub ",
                    "model part of ", walls.FullName(),
                    " (its sub model parts: ", known.empty() ? "none" : known, ")");
    }
    for (const Condition& condition : walls.GetSubModelPart(relative).Conditions()) {
      const auto it = row_of.find(condition.Id());
      if (it != row_of.end()) flagged[it->second] = 1;
    }
  }
  return flagged;
}

void CircleFaceAreaShare(const RigidFaceStorage& faces, std::uint32_t f, const Array3& centre,
                         double radius, AreaShare& share) {
  share.area = 0.0;
  share.weights = {};
  const auto& v = faces.points[f];
  if (CircleInsideFace(faces, f, centre, radius, share)) return;
  if (faces.vertex_count[f] == 3) {
    const CircleTriangleIntersectionResult r =
        CircleTriangleIntersection(centre, radius, v[0], v[1], v[2]);
    share.area = r.area;
    share.weights = {r.weights[0], r.weights[1], r.weights[2], 0.0};
  } else if (faces.vertex_count[f] == 4) {
    // Sub-triangles wholly inside or apart from their circles in closed
    // form (a warped face under a sphere: three of the four apart, one
    // holding the circle), the composition where it does not apply.
    // The face's sub-triangles as the walls keep them where they are
    // current (RigidFaceStorage::sub_triangles), else computed here: the
    // same bits either way.
    const bool kept = f < faces.sub_triangles.size() && faces.sub_triangles[f].computed;
    const CircleQuadrilateralShare quick =
        kept ? CircleQuadrilateralAreaShare(centre, radius, v[0], v[1], v[2], v[3],
                                            faces.sub_triangles[f])
             : CircleQuadrilateralAreaShare(centre, radius, v[0], v[1], v[2], v[3]);
    if (quick.valid) {
      share.area = quick.area;
      share.weights = quick.weights;
    } else {
      const CircleQuadrilateralIntersectionResult r =
          CircleQuadrilateralIntersection(centre, radius, v[0], v[1], v[2], v[3]);
      share.area = r.area;
      share.weights = r.weights;
    }
  }  // a segment: no area
}

double DistributeByArea(const RigidFaceStorage& faces, const std::uint32_t* face_ids,
                        std::size_t count, const Array3& centre, double radius,
                        const std::uint8_t* reached, const int* shadowed_by,
                        const FaceContactGeometry* kept, AreaShare* shares, double* master_area) {
  double total = 0.0;
  int first_kept = -1;
  for (std::size_t c = 0; c < count; ++c) {
    master_area[c] = 0.0;
    if (first_kept < 0 && reached[c] && kept[c].type != FaceContactType::kNone)
      first_kept = static_cast<int>(c);
  }
  for (std::size_t c = 0; c < count; ++c) {
    AreaShare& share = shares[c];
    share = AreaShare{};
    if (!reached[c]) continue;
    // The master: the contact itself if kept, else the one that shadowed it,
    // followed until a kept one (a chain of eliminations ends at a kept
    // contact; the count bounds it against a cycle of equal contacts).
    int m = static_cast<int>(c);
    for (std::size_t hops = 0; kept[m].type == FaceContactType::kNone && hops < count; ++hops) {
      if (shadowed_by[m] < 0) break;
      m = shadowed_by[m];
    }
    share.master = kept[m].type != FaceContactType::kNone ? m : first_kept;
    // A face shadowed by a contact outside ADM (another wall's) carries nothing.
    if (share.master < 0 || !reached[share.master]) {
      share.master = -1;
      continue;
    }
    CircleFaceAreaShare(faces, face_ids[c], centre, radius, share);
    master_area[share.master] += share.area;
    total += share.area;
  }
  return total;
}

}  // namespace tessera::dem
