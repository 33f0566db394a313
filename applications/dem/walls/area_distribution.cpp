// Masters, slaves and intersection areas of the Area Distributed Method.
#include "applications/dem/walls/area_distribution.h"

#include "applications/dem/walls/circle_face_intersection.h"
#include "kernel/core/error.h"

namespace tessera::dem {

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

double DistributeByArea(const RigidFaceStorage& faces, const std::uint32_t* face_ids,
                        std::size_t count, const Array3& centre, double radius,
                        const std::uint8_t* reached, const int* shadowed_by,
                        const FaceContactGeometry* kept, AreaShare* shares, double* master_area) {
  double total = 0.0;
  int first_kept = -1;
  for (std::size_t c = 0; c < count; ++c) {
    master_area[c] = 0.0;
    if (first_kept < 0 && kept[c].type != FaceContactType::kNone) first_kept = static_cast<int>(c);
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
    if (share.master < 0) continue;
    const std::uint32_t f = face_ids[c];
    const auto& v = faces.points[f];
    if (faces.vertex_count[f] == 3) {
      const CircleTriangleIntersectionResult r =
          CircleTriangleIntersection(centre, radius, v[0], v[1], v[2]);
      share.area = r.area;
      share.weights = {r.weights[0], r.weights[1], r.weights[2], 0.0};
    } else if (faces.vertex_count[f] == 4) {
      const CircleQuadrilateralIntersectionResult r =
          CircleQuadrilateralIntersection(centre, radius, v[0], v[1], v[2], v[3]);
      share.area = r.area;
      share.weights = r.weights;
    }  // a segment: no area
    master_area[share.master] += share.area;
    total += share.area;
  }
  return total;
}

}  // namespace tessera::dem
