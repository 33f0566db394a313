// Sphere–face intersection areas and centroids for the Area Distributed Method
// (thesis App. C; ADM in §4.3.3 and App. B).
//
// A sphere (centre C, radius R) cuts the plane of a linear triangle in a circle
// of centre C_π (the projection of C, thesis Fig. 3.4) and radius
// a = sqrt(δ(2R − δ)), δ = R − |d_π| (the geometric radius: App. C prints
// "a = Rδ", which is dimensionally wrong; only area ratios enter ADM, and
// the geometric radius is the circle the sphere actually cuts). The area A_e^p of
// circle ∩ triangle and its centroid x̄_e^p are composed from the primitives of
// App. C with signed areas (C.1): circle (C.2), triangle (C.3), sector (C.4),
// segment (C.5), spike (C.6), following the eight cases of Fig. C.4, keyed by
// (vertices strictly inside the circle, edges crossed by the circle):
//
//   (a) (0,0) full circle              (e) (1,2) the inner spike
//   (b) (0,1) circle − 1 segment       (f) (1,3) triangle − 2 outer spikes
//   (c) (0,2) circle − 2 segments      (g) (2,2) triangle − 1 outer spike
//   (d) (0,3) circle − 3 segments      (h) (3,0) full triangle
//
// plus (0,0) with C_π outside the triangle (circle and triangle apart, area 0)
// and "no contact" (|d_π| ≥ R, a degenerate triangle, or a circle too small
// to be represented next to the triangle).
//
// Segments are signed (C.5: sector ∓ triangle): the part of the circle beyond
// an edge is the major part when C_π lies beyond that edge. Tangencies and
// points exactly on the circle are limits of neighbouring cases with equal
// area, so they are classified by one consistent rule (a vertex on the circle
// counts as outside, a tangent edge as not crossed) and give the limit value.
//
// ADM interpolates the element force with the parent's shape functions at the
// centroid (B.2, 4.64): the result carries the barycentric weights N_i(x̄_e^p)
// (sum 1, reproducing the centroid). Quadrilaterals are split into four
// sub-triangles about the node average (Fig. 4.12), composed with (C.1), and
// weighted with the bilinear N_i at the inverse-mapped centroid.
//
// Pure functions over Array3: no allocation, no state, double precision.
#pragma once

#include <array>
#include <cstdint>

#include "kernel/core/array3.h"

namespace tessera::dem {

// The configuration of Fig. C.4 that produced the area.
enum class CircleTriangleCase : int {
  kNoContact = 0,  // the sphere does not reach the plane (|d_π| ≥ R), or a degenerate face
  kApart,          // (0,0), C_π outside the triangle: no common area
  kCircle,         // (a) (0,0): the circle inside the triangle
  kCircleMinusOneSegment,     // (b) (0,1)
  kCircleMinusTwoSegments,    // (c) (0,2)
  kCircleMinusThreeSegments,  // (d) (0,3)
  kInnerSpike,                // (e) (1,2)
  kTriangleMinusTwoSpikes,    // (f) (1,3)
  kTriangleMinusOneSpike,     // (g) (2,2)
  kTriangle,                  // (h) (3,0): the triangle inside the circle
};

// "a".."h" for the eight cases of Fig. C.4, "apart" and "none" for the others.
const char* CaseLabel(CircleTriangleCase c);

struct CircleTriangleIntersectionResult {
  double area = 0.0;                // A_e^p (C.1a)
  Array3 centroid{};                // x̄_e^p (C.1b), in the triangle's plane and inside it
  std::array<double, 3> weights{};  // barycentric N_i(x̄_e^p), Σ N_i = 1
  CircleTriangleCase intersection_case = CircleTriangleCase::kNoContact;
  int vertices_inside = 0;     // vertices strictly inside the circle
  int edges_crossed = 0;       // edges whose interior the circle boundary crosses
  Array3 circle_centre{};      // C_π (projection of C onto the plane)
  double circle_radius = 0.0;  // a = sqrt(δ(2R − δ))
};

// The intersection of the sphere (centre, radius) with the triangle (v1, v2,
// v3). Without contact the area is 0, the centroid the point of the triangle
// closest to C_π and the weights those of that point (a degenerate triangle:
// the vertex average, weights 1/3). With an area too small for its
// centroid to be resolved (below 1e-10 of min(πa², triangle area)) the
// centroid is the point of the triangle closest to C_π, where the area
// shrinks to. The centroid's barycentric weights are clamped to [0, 1]
// (round-off only: the region is convex and inside the triangle).
CircleTriangleIntersectionResult CircleTriangleIntersection(const Array3& centre, double radius,
                                                            const Array3& v1, const Array3& v2,
                                                            const Array3& v3);

struct CircleQuadrilateralIntersectionResult {
  double area = 0.0;                // Σ over the four sub-triangles (C.1a)
  Array3 centroid{};                // (C.1b) over the sub-triangles
  std::array<double, 4> weights{};  // bilinear N_i(ξ, η) of the parent at the centroid
  double xi = 0.0, eta = 0.0;       // the centroid's parent coordinates (inverse map)
  bool inverse_map_converged = false;
  std::array<CircleTriangleIntersectionResult, 4> sub_triangles{};  // (v_i, v_{i+1}, x_cm)
};

// A 4-node face (v1..v4 in order) split into the sub-triangles (v_i, v_{i+1},
// x_cm) about x_cm = (v1 + v2 + v3 + v4)/4 (thesis Fig. 4.12), each
// intersected with the sphere in its own plane, composed with (C.1). The
// weights are the parent's bilinear shape functions N_i(ξ, η) at the
// centroid, (ξ, η) from Gauss–Newton on min |x(ξ, η) − x̄|² (the closest-point
// equations 4.66–4.67; exact for a planar face, the closest surface point for
// a warped one). If that does not converge (inverse_map_converged false), the
// weights are the piecewise-linear ones of the sub-triangles (x_cm sharing its
// weight equally among the four nodes), which reproduce x̄ as well.
CircleQuadrilateralIntersectionResult CircleQuadrilateralIntersection(
    const Array3& centre, double radius, const Array3& v1, const Array3& v2, const Array3& v3,
    const Array3& v4);

// The area and weights of CircleQuadrilateralIntersection at a fraction of
// its cost, for the Area Distributed Method's warped skin faces (a deformed
// structure's quadrilaterals; a flat face whose circle lies wholly inside it
// has its own closed form, walls/area_distribution.cpp). Each sub-triangle
// (v_i, v_{i+1}, x_cm) is first placed against the circle the sphere cuts in
// its own plane (centre C_π, radius a), with the signed distances s_j of C_π
// from its three edge lines (positive inside):
//   - s_j ≥ a for all j: the circle is wholly inside (App. C's case (a)):
//     area πa², centroid C_π, as the composition gives them;
//   - s_j ≤ −a for some j, or the sphere short of the plane: no common area;
//   - otherwise the circle crosses an edge line, and App. C's composition
//     (CircleTriangleIntersection) is run for that sub-triangle only.
// The sub-triangles are then composed with (C.1) and the centroid mapped to
// (ξ, η) as in CircleQuadrilateralIntersection, so the area and weights
// equal its to round-off (at an exact tangency the two may classify apart,
// where the area either gives vanishes). `valid` is false where the composed
// area is zero or the inverse map does not converge: then
// CircleQuadrilateralIntersection's fallbacks (the nearest point, the
// piecewise-linear weights) apply and the caller takes it.
struct CircleQuadrilateralShare {
  bool valid = false;
  double area = 0.0;
  std::array<double, 4> weights{};
  int sub_triangles_composed = 0;  // how many needed App. C's composition
};
CircleQuadrilateralShare CircleQuadrilateralAreaShare(const Array3& centre, double radius,
                                                      const Array3& v1, const Array3& v2,
                                                      const Array3& v3, const Array3& v4);

// What CircleQuadrilateralAreaShare needs of the quadrilateral alone: x_cm,
// each sub-triangle's unit normal and its edges' lengths. A deformed skin's
// face lies under several spheres and is reached by each every step, so the
// walls keep these per face, recomputed where the face moved
// (RigidFaceStorage::sub_triangles): the per-sphere placement then costs one
// square root per sub-triangle instead of five and a division. The same
// operations as the per-sphere computation, so the same bits.
struct QuadSubTriangles {
  Array3 centroid{};               // x_cm = (v1 + v2 + v3 + v4) / 4
  std::array<Array3, 4> normal{};  // of (v_k, v_k+1, x_cm), unit where it spans a plane
  std::array<double, 4> rim{};     // |v_k+1 − v_k|
  std::array<double, 4> spoke{};   // |x_cm − v_k|
  double diagonals = 0.0;          // |v3 − v1| + |v4 − v2|, InverseBilinearMap's scale
  std::uint8_t spans_plane = 0;    // bit k: sub-triangle k has a finite, non-zero area
  std::uint8_t computed = 0;       // 1 once filled from the face's current vertices
};
QuadSubTriangles QuadSubTrianglesOf(const Array3& v1, const Array3& v2, const Array3& v3,
                                    const Array3& v4);
// CircleQuadrilateralAreaShare with the quadrilateral's `planes`
// (QuadSubTrianglesOf of the same vertices): the same result, bit for bit.
CircleQuadrilateralShare CircleQuadrilateralAreaShare(const Array3& centre, double radius,
                                                      const Array3& v1, const Array3& v2,
                                                      const Array3& v3, const Array3& v4,
                                                      const QuadSubTriangles& planes);

// The parent coordinates (ξ, η) of `point` in the 4-node face (v1..v4), by
// Gauss–Newton on the closest-point equations (4.66–4.67); false where the
// map is singular or does not converge (ξ, η then unchanged).
bool InverseBilinearMap(const Array3& point, const Array3& v1, const Array3& v2, const Array3& v3,
                        const Array3& v4, double& xi, double& eta);
// The same with the face's |v3 − v1| + |v4 − v2| given (QuadSubTriangles::
// diagonals), which scales the test for a singular map.
bool InverseBilinearMap(const Array3& point, const Array3& v1, const Array3& v2, const Array3& v3,
                        const Array3& v4, double diagonals, double& xi, double& eta);
// N_i(ξ, η) of the 4-node face, nodes at (−1, −1), (1, −1), (1, 1), (−1, 1).
std::array<double, 4> BilinearShapeFunctions(double xi, double eta);

}  // namespace tessera::dem
