// The Distance Hierarchy (thesis §3.4.2, Table 3.4): among the wall contacts
// of one sphere, a contact that lies "behind" another one is not a contact of
// its own. With Vc = Pc - C the vector from the centre to a contact point,
// contact i is shadowed by contact j when
//     Pr_ij = Vc_i · Vc_j / |Vc_j|  >=  |Vc_j| (1 - eps),
// i.e. Pc_i lies beyond the plane through Pc_j normal to Vc_j. The edge of a
// coplanar neighbour face is shadowed by the facet the centre projects on; a
// shared edge or vertex seen from several faces gives identical vectors, of
// which one is kept; perpendicular contacts (Pr = 0), as in a concave corner,
// both stay. Two contacts that shadow each other (identical, or equal within
// the tolerance, like a facet and the edge of the neighbour face a hair from
// the foot of the centre) are resolved by the Contact Type Hierarchy: facet
// before edge before vertex, then the nearer, then the lower row.
//
// The rule is applied to all pairs at once (a contact is dropped when any
// other contact shadows it), so the result does not depend on the order in
// which the faces were found, and it runs on one sphere's rows without
// allocating.
#pragma once

#include <cstddef>

#include "applications/dem/walls/rigid_face_storage.h"

namespace tessera::dem {

// Relative tolerance of the shadow test: coplanar faces give Pr = |Vc| up to
// rounding (the thesis uses "a tolerance" and gives no value; 1e-6 relative is
// far above rounding and far below any real offset between faces).
inline constexpr double kShadowTolerance = 1e-6;

// Sets the type of every shadowed contact among contacts[0, count) to kNone.
// Where `shadowed_by` is given, shadowed_by[i] is the contact that shadowed
// contact i, -1 for a contact kept or one that was none (the Area
// Distributed Method makes the shadowed faces slaves of their shadow, App. B).
inline void ApplyDistanceHierarchy(FaceContactGeometry* contacts, std::size_t count,
                                   int* shadowed_by = nullptr) {
  auto shadows = [](const FaceContactGeometry& j, const FaceContactGeometry& i) {
    // Pr_ij >= |Vc_j|(1-eps) with Vc = distance * normal.
    return i.distance * Dot(i.normal, j.normal) >= j.distance * (1.0 - kShadowTolerance);
  };
  auto Preferred = [](const FaceContactGeometry& a, std::size_t ia, const FaceContactGeometry& b,
                      std::size_t ib) {
    if (a.type != b.type) return a.type < b.type;  // kFacet < kEdge < kVertex
    if (a.distance != b.distance) return a.distance < b.distance;
    return ia < ib;
  };
  // Decide every contact against the original set first, then drop.
  constexpr auto kDropped = static_cast<FaceContactType>(0xff);
  if (shadowed_by)
    for (std::size_t i = 0; i < count; ++i) shadowed_by[i] = -1;
  for (std::size_t i = 0; i < count; ++i) {
    if (contacts[i].type == FaceContactType::kNone) continue;
    for (std::size_t j = 0; j < count; ++j) {
      if (j == i || contacts[j].type == FaceContactType::kNone) continue;
      if (!shadows(contacts[j], contacts[i])) continue;
      // Contacts that shadow each other are one contact (identical, or equal
      // within the tolerance): the Contact Type Hierarchy keeps the facet over
      // an edge over a vertex, then the nearer, then the lower row.
      if (shadows(contacts[i], contacts[j]) && Preferred(contacts[i], i, contacts[j], j)) continue;
      contacts[i].type = kDropped;
      if (shadowed_by) shadowed_by[i] = static_cast<int>(j);
      break;
    }
  }
  for (std::size_t i = 0; i < count; ++i)
    if (contacts[i].type == kDropped) contacts[i].type = FaceContactType::kNone;
}

}  // namespace tessera::dem
