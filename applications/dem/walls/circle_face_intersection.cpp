// Circle–triangle intersection (thesis App. C) for the Area Distributed Method.
//
// Everything is computed in the triangle's plane, in coordinates centred at
// C_π and scaled by 1/a (the circle is the unit circle): the primitives of
// App. C then carry no a, and the area and first moment are scaled back at the
// end (area · a², centroid · a). Each primitive returns a Part: its signed area
// and its first moment ∫ x dA = A x̄ (C.1 is then a plain sum of Parts, and no
// centroid of a vanishing part is ever divided out).
#include "applications/dem/walls/circle_face_intersection.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace tessera::dem {
namespace {

struct Vec2 {
  double x = 0.0, y = 0.0;
};
Vec2 operator+(Vec2 a, Vec2 b) { return {a.x + b.x, a.y + b.y}; }
Vec2 operator-(Vec2 a, Vec2 b) { return {a.x - b.x, a.y - b.y}; }
Vec2 operator*(double s, Vec2 a) { return {s * a.x, s * a.y}; }
double Dot(Vec2 a, Vec2 b) { return a.x * b.x + a.y * b.y; }
double Cross(Vec2 a, Vec2 b) { return a.x * b.y - a.y * b.x; }
// Unit normal on the right of a direction d (outward for an edge of a
// counter-clockwise triangle).
Vec2 RightNormal(Vec2 d, double length) { return {d.y / length, -d.x / length}; }

// A signed area and its first moment about the circle's centre (C.1).
struct Part {
  double area = 0.0;
  Vec2 moment{};
};
Part operator+(Part a, Part b) { return {a.area + b.area, a.moment + b.moment}; }
Part operator-(Part a, Part b) { return {a.area - b.area, a.moment - b.moment}; }

// (C.2) the unit circle: A = π, x̄ = C_π (the origin).
Part CirclePart() { return {std::numbers::pi, {}}; }

// (C.3) triangle (p, q, r), signed: positive when counter-clockwise;
// x̄ = (p + q + r)/3.
Part TrianglePart(Vec2 p, Vec2 q, Vec2 r) {
  const double area = 0.5 * Cross(q - p, r - p);
  return {area, (area / 3.0) * (p + q + r)};
}

// (C.4) sector of angle θ ∈ [0, 2π] whose bisector is the unit vector m:
// A = θ/2, x̄ = C_π + 4 sin(θ/2)/(3θ) m, so A x̄ = (2/3) sin(θ/2) m (no 0/0 at
// θ = 0).
Part SectorPart(double theta, Vec2 m) {
  return {0.5 * theta, (2.0 / 3.0 * std::sin(0.5 * theta)) * m};
}

// (C.5) segment: the part of the circle between the chord r_a r_b and the arc
// of half-angle φ ∈ [0, π] about the unit vector m, r_{a,b} = cos φ m ∓ sin φ
// m⊥. Sector (θ = 2φ) minus the signed triangle (C_π, r_a, r_b): that triangle
// is positive for a minor segment (φ < π/2) and negative for a major one
// (C_π on the segment's side of the chord), which is the ∓ of (C.5).
Part SegmentPart(double phi, Vec2 m) {
  const Vec2 m_perp{-m.y, m.x};
  const double c = std::cos(phi), s = std::sin(phi);
  const Vec2 ra = c * m - s * m_perp;
  const Vec2 rb = c * m + s * m_perp;
  return SectorPart(2.0 * phi, m) - TrianglePart({}, ra, rb);
}

// The segment of the circle beyond the line through p with direction d, on
// the line's right (the outside of an edge p → p + d of a counter-clockwise
// triangle). s = distance from C_π to the line towards that side: cos φ = s,
// so s ≥ 1 gives nothing (tangent from inside) and s ≤ −1 the whole circle
// (the line leaves the circle on its inner side).
Part SegmentBeyondLine(Vec2 p, Vec2 d) {
  const double length = std::sqrt(Dot(d, d));
  const Vec2 n = RightNormal(d, length);
  const double s = std::clamp(Dot(n, p), -1.0, 1.0);
  const double phi = std::atan2(std::sqrt((1.0 - s) * (1.0 + s)), s);
  return SegmentPart(phi, n);
}

// The segment on the right of the chord p1 → p2 of the circle; chord = p2 − p1,
// passed in as computed from the vertex (accurate when p1 and p2 are close).
// Half-chord sin φ = |chord|/2, cos φ = distance from C_π to the chord towards
// the segment's side.
Part SegmentRightOfChord(Vec2 p1, Vec2 p2, Vec2 chord) {
  const double length = std::sqrt(Dot(chord, chord));
  if (length == 0.0) return {};
  const Vec2 n = RightNormal(chord, length);
  const double phi = std::atan2(0.5 * length, Dot(n, 0.5 * (p1 + p2)));
  return SegmentPart(phi, n);
}

// Where the ray v + τ e, τ ∈ [0, 1], meets the unit circle: the roots of
// |v + τ e|² = 1, i.e. A τ² + 2B τ + C = 0, written without cancellation.
// Leaving (v inside, C < 0): the positive root.
double LeavingRoot(Vec2 v, Vec2 e) {
  const double a = Dot(e, e), b = Dot(v, e), c = Dot(v, v) - 1.0;
  const double sq = std::sqrt(std::max(b * b - a * c, 0.0));
  const double tau = b <= 0.0 ? (sq - b) / a : -c / (b + sq);
  return std::clamp(tau, 0.0, 1.0);
}
// Entering (v on or outside the circle, C ≥ 0): the smaller root, never past
// the foot of the perpendicular (a near-tangent edge seen from both ends).
double EnteringRoot(Vec2 v, Vec2 e) {
  const double a = Dot(e, e), b = Dot(v, e), c = std::max(Dot(v, v) - 1.0, 0.0);
  if (b >= 0.0) return 0.0;  // moving away: only v itself, if on the circle
  const double sq = std::sqrt(std::max(b * b - a * c, 0.0));
  return std::clamp(std::min(c / (sq - b), -b / a), 0.0, 1.0);
}

// (C.6) the inner spike at vertex k (inside the circle): the part of the
// triangle around v_k inside the circle = triangle (v, p1, p2) + the segment
// beyond the chord p1 p2, p1 on the edge to the next vertex, p2 on the edge to
// the previous one.
Part InnerSpike(const std::array<Vec2, 3>& P, int k) {
  const Vec2 v = P[k], to_next = P[(k + 1) % 3] - v, to_prev = P[(k + 2) % 3] - v;
  const double t1 = LeavingRoot(v, to_next), t2 = LeavingRoot(v, to_prev);
  const Vec2 p1 = v + t1 * to_next, p2 = v + t2 * to_prev;
  return TrianglePart(v, p1, p2) + SegmentRightOfChord(p1, p2, t2 * to_prev - t1 * to_next);
}

// (C.6) the outer spike at vertex k (outside the circle or on it): the part of
// the triangle around v_k outside the circle = triangle (p1, v, p2) minus the
// segment of the circle inside that triangle (the signed segment of C.6),
// p1 on the edge from the previous vertex, p2 on the edge to the next.
Part OuterSpike(const std::array<Vec2, 3>& P, int k) {
  const Vec2 v = P[k], to_next = P[(k + 1) % 3] - v, to_prev = P[(k + 2) % 3] - v;
  const double t_next = EnteringRoot(v, to_next), t_prev = EnteringRoot(v, to_prev);
  const Vec2 p1 = v + t_prev * to_prev, p2 = v + t_next * to_next;
  return TrianglePart(p1, v, p2) - SegmentRightOfChord(p1, p2, t_next * to_next - t_prev * to_prev);
}

// The point of the (counter-clockwise) triangle closest to the origin.
Vec2 ClosestPointToOrigin(const std::array<Vec2, 3>& P) {
  bool inside = true;
  for (int k = 0; k < 3; ++k) inside = inside && Cross(P[k], P[(k + 1) % 3] - P[k]) >= 0.0;
  if (inside) return {};
  Vec2 best = P[0];
  for (int k = 0; k < 3; ++k) {
    const Vec2 d = P[(k + 1) % 3] - P[k];
    const double dd = Dot(d, d);
    const double t = dd > 0.0 ? std::clamp(-Dot(P[k], d) / dd, 0.0, 1.0) : 0.0;
    const Vec2 q = P[k] + t * d;
    if (Dot(q, q) < Dot(best, best)) best = q;
  }
  return best;
}

// Barycentric weights of g in the triangle P (2·area = twice_area > 0),
// clamped to [0, 1] and normalised.
std::array<double, 3> Barycentric(const std::array<Vec2, 3>& P, double twice_area, Vec2 g,
                                  bool& clamped) {
  std::array<double, 3> w{};
  double sum = 0.0;
  clamped = false;
  for (int k = 0; k < 3; ++k) {
    w[k] = Cross(P[(k + 1) % 3] - g, P[(k + 2) % 3] - g) / twice_area;
    if (w[k] < 0.0) w[k] = 0.0, clamped = true;
    sum += w[k];
  }
  for (double& wk : w) wk /= sum;
  return w;
}

}  // namespace

const char* CaseLabel(CircleTriangleCase c) {
  switch (c) {
    case CircleTriangleCase::kNoContact:
      return "none";
    case CircleTriangleCase::kApart:
      return "apart";
    case CircleTriangleCase::kCircle:
      return "a";
    case CircleTriangleCase::kCircleMinusOneSegment:
      return "b";
    case CircleTriangleCase::kCircleMinusTwoSegments:
      return "c";
    case CircleTriangleCase::kCircleMinusThreeSegments:
      return "d";
    case CircleTriangleCase::kInnerSpike:
      return "e";
    case CircleTriangleCase::kTriangleMinusTwoSpikes:
      return "f";
    case CircleTriangleCase::kTriangleMinusOneSpike:
      return "g";
    case CircleTriangleCase::kTriangle:
      return "h";
  }
  return "?";
}

CircleTriangleIntersectionResult CircleTriangleIntersection(const Array3& centre, double radius,
                                                            const Array3& v1, const Array3& v2,
                                                            const Array3& v3) {
  CircleTriangleIntersectionResult r;
  const std::array<const Array3*, 3> v{&v1, &v2, &v3};
  const Array3 normal = tessera::Cross(v2 - v1, v3 - v1);
  const double twice_area_3d = Norm(normal);
  if (!(twice_area_3d > 0.0) || !std::isfinite(twice_area_3d)) {  // degenerate triangle
    r.centroid = (v1 + v2 + v3) / 3.0;
    r.weights = {1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0};
    r.circle_centre = r.centroid;
    return r;
  }
  // The circle (thesis 3.4 and App. C): C_π = C − d_π n, δ = R − |d_π|,
  // a = sqrt(δ(2R − δ)) (the erratum to "a = Rδ").
  const Array3 n = normal / twice_area_3d;
  const double d_pi = tessera::Dot(centre - v1, n);
  const double delta = radius - std::abs(d_pi);
  r.circle_centre = centre - d_pi * n;
  r.circle_radius = delta > 0.0 ? std::sqrt(delta * (2.0 * radius - delta)) : 0.0;

  // In-plane frame (e_u, e_w, n) right-handed, so the triangle is
  // counter-clockwise in it; coordinates relative to C_π, in units of a (for
  // a = 0 a unit length keeps the closest point computable).
  const Array3 e_u = (v2 - v1) / Norm(v2 - v1);
  const Array3 e_w = tessera::Cross(n, e_u);
  double max_edge = 0.0;
  for (int k = 0; k < 3; ++k) max_edge = std::max(max_edge, Norm(*v[(k + 1) % 3] - *v[k]));
  // A circle below 1e-100 of the triangle's size (area < 1e-200 of it) is
  // treated as no contact: its coordinates in units of a would overflow.
  const bool contact = r.circle_radius > 1e-100 * max_edge;
  const double a = contact ? r.circle_radius : max_edge;
  std::array<Vec2, 3> P;
  for (int k = 0; k < 3; ++k) {
    const Array3 x = *v[k] - r.circle_centre;
    P[k] = {tessera::Dot(x, e_u) / a, tessera::Dot(x, e_w) / a};
  }
  const double twice_area = Cross(P[1] - P[0], P[2] - P[0]);
  const auto finish = [&](Vec2 g) {
    bool clamped = false;
    r.weights = Barycentric(P, twice_area, g, clamped);
    if (clamped) {  // round-off only: rebuild the centroid from the clamped weights
      r.centroid = r.weights[0] * v1 + r.weights[1] * v2 + r.weights[2] * v3;
    } else {
      r.centroid = r.circle_centre + (a * g.x) * e_u + (a * g.y) * e_w;
    }
  };
  if (!contact) {
    finish(ClosestPointToOrigin(P));
    return r;
  }

  // Classification (Fig. C.4). A vertex is inside when strictly inside the
  // circle; an edge is crossed when the circle's boundary passes through its
  // interior: always when one end is inside, and with both ends on or outside
  // when the line is nearer than a to C_π with the foot of the perpendicular
  // between the ends (then both crossings lie on the edge).
  std::array<bool, 3> inside{};
  std::array<bool, 3> crossed{};
  for (int k = 0; k < 3; ++k) inside[k] = Dot(P[k], P[k]) < 1.0;
  for (int k = 0; k < 3; ++k) {
    const Vec2 p = P[k], d = P[(k + 1) % 3] - p;
    if (inside[k] != inside[(k + 1) % 3]) {
      crossed[k] = true;
    } else if (!inside[k]) {
      const double dd = Dot(d, d);
      const double s = Cross(p, d) / std::sqrt(dd);  // distance of the line, + if C_π inside
      const double foot = -Dot(p, d) / dd;
      crossed[k] = std::abs(s) < 1.0 && foot > 0.0 && foot < 1.0;
    }
  }
  for (int k = 0; k < 3; ++k) r.vertices_inside += inside[k], r.edges_crossed += crossed[k];

  // Composition (C.1) of the case's primitives.
  Part part;
  const Part triangle = TrianglePart(P[0], P[1], P[2]);
  switch (r.vertices_inside) {
    case 0:
      if (r.edges_crossed == 0) {
        // (a): no crossing, so the circle is inside the triangle or apart from it.
        const bool centre_inside = Cross(P[0], P[1] - P[0]) >= 0.0 &&
                                   Cross(P[1], P[2] - P[1]) >= 0.0 &&
                                   Cross(P[2], P[0] - P[2]) >= 0.0;
        r.intersection_case =
            centre_inside ? CircleTriangleCase::kCircle : CircleTriangleCase::kApart;
        if (centre_inside) part = CirclePart();
      } else {
        // (b), (c), (d): the circle minus the (signed) segments beyond the
        // crossed edges; the segments of different edges do not overlap (no
        // vertex inside), and the circle reaches beyond an uncrossed edge only
        // inside the segment of a crossed one.
        r.intersection_case = r.edges_crossed == 1 ? CircleTriangleCase::kCircleMinusOneSegment
                              : r.edges_crossed == 2
                                  ? CircleTriangleCase::kCircleMinusTwoSegments
                                  : CircleTriangleCase::kCircleMinusThreeSegments;
        part = CirclePart();
        for (int k = 0; k < 3; ++k) {
          if (crossed[k]) part = part - SegmentBeyondLine(P[k], P[(k + 1) % 3] - P[k]);
        }
      }
      break;
    case 1:
      if (r.edges_crossed == 2) {
        // (e): the single inner spike of the inside vertex.
        r.intersection_case = CircleTriangleCase::kInnerSpike;
        for (int k = 0; k < 3; ++k) {
          if (inside[k]) part = InnerSpike(P, k);
        }
      } else {
        // (f): the triangle minus the outer spikes of the two outside vertices.
        r.intersection_case = CircleTriangleCase::kTriangleMinusTwoSpikes;
        part = triangle;
        for (int k = 0; k < 3; ++k) {
          if (!inside[k]) part = part - OuterSpike(P, k);
        }
      }
      break;
    case 2:
      // (g): the triangle minus the outer spike of the outside vertex.
      r.intersection_case = CircleTriangleCase::kTriangleMinusOneSpike;
      part = triangle;
      for (int k = 0; k < 3; ++k) {
        if (!inside[k]) part = part - OuterSpike(P, k);
      }
      break;
    default:
      // (h): the triangle inside the circle.
      r.intersection_case = CircleTriangleCase::kTriangle;
      part = triangle;
      break;
  }

  // (C.1b); a (near-)vanishing area has no resolvable centroid: it shrinks to
  // the point of the triangle closest to C_π.
  const double area = std::max(part.area, 0.0);
  r.area = area * a * a;
  const double resolvable = 1e-10 * std::min(std::numbers::pi, 0.5 * twice_area);
  finish(area > resolvable ? (1.0 / area) * part.moment : ClosestPointToOrigin(P));
  return r;
}

namespace {

// Bilinear shape functions of the 4-node quadrilateral and their derivatives;
// nodes at (ξ, η) = (−1, −1), (1, −1), (1, 1), (−1, 1).
constexpr double kXi[4] = {-1.0, 1.0, 1.0, -1.0};
constexpr double kEta[4] = {-1.0, -1.0, 1.0, 1.0};

std::array<double, 4> Bilinear(double xi, double eta) {
  std::array<double, 4> N{};
  for (int i = 0; i < 4; ++i) N[i] = 0.25 * (1.0 + kXi[i] * xi) * (1.0 + kEta[i] * eta);
  return N;
}

}  // namespace

bool InverseBilinearMap(const Array3& point, const Array3& v1, const Array3& v2, const Array3& v3,
                        const Array3& v4, double& xi, double& eta) {
  return InverseBilinearMap(point, v1, v2, v3, v4, Norm(v3 - v1) + Norm(v4 - v2), xi, eta);
}

bool InverseBilinearMap(const Array3& point, const Array3& v1, const Array3& v2, const Array3& v3,
                        const Array3& v4, double diagonals, double& xi, double& eta) {
  // Gauss–Newton on min |x(ξ, η) − x̄|², i.e. the closest-point conditions
  // (x̄ − x)·x_ξ = (x̄ − x)·x_η = 0 (thesis 4.66–4.67).
  const std::array<const Array3*, 4> v{&v1, &v2, &v3, &v4};
  const double scale = diagonals;
  double s = 0.0, t = 0.0;
  for (int it = 0; it < 50; ++it) {
    Array3 x{}, x_xi{}, x_eta{};
    const std::array<double, 4> N = Bilinear(s, t);
    for (int i = 0; i < 4; ++i) {
      x += N[i] * *v[i];
      x_xi += (0.25 * kXi[i] * (1.0 + kEta[i] * t)) * *v[i];
      x_eta += (0.25 * kEta[i] * (1.0 + kXi[i] * s)) * *v[i];
    }
    const Array3 res = point - x;
    const double a11 = tessera::Dot(x_xi, x_xi), a12 = tessera::Dot(x_xi, x_eta),
                 a22 = tessera::Dot(x_eta, x_eta);
    const double det = a11 * a22 - a12 * a12;
    if (!(det > 1e-24 * scale * scale * scale * scale)) return false;  // singular map
    const double b1 = tessera::Dot(x_xi, res), b2 = tessera::Dot(x_eta, res);
    const double dxi = (a22 * b1 - a12 * b2) / det, deta = (a11 * b2 - a12 * b1) / det;
    s += dxi, t += deta;
    if (!std::isfinite(s) || !std::isfinite(t) || std::abs(s) > 10.0 || std::abs(t) > 10.0)
      return false;
    if (std::abs(dxi) + std::abs(deta) < 1e-13) {
      xi = s, eta = t;
      return true;
    }
  }
  return false;
}

std::array<double, 4> BilinearShapeFunctions(double xi, double eta) { return Bilinear(xi, eta); }

CircleQuadrilateralIntersectionResult CircleQuadrilateralIntersection(
    const Array3& centre, double radius, const Array3& v1, const Array3& v2, const Array3& v3,
    const Array3& v4) {
  CircleQuadrilateralIntersectionResult r;
  const std::array<const Array3*, 4> v{&v1, &v2, &v3, &v4};
  // Fig. 4.12: the extra node at the centroid, four sub-triangles (v_i, v_{i+1}, x_cm).
  const Array3 x_cm = 0.25 * (v1 + v2 + v3 + v4);
  Array3 moment{};
  for (int k = 0; k < 4; ++k) {
    r.sub_triangles[k] = CircleTriangleIntersection(centre, radius, *v[k], *v[(k + 1) % 4], x_cm);
    r.area += r.sub_triangles[k].area;  // (C.1a)
    moment += r.sub_triangles[k].area * r.sub_triangles[k].centroid;
  }
  // Piecewise-linear weights of the sub-triangles (x_cm's weight shared
  // equally): the fallback, and the centroid when there is no area (then the
  // sub-triangle's point nearest the sphere's centre).
  std::array<double, 4> linear{};
  const auto add_linear = [&](int k, double factor) {
    const auto& w = r.sub_triangles[k].weights;
    linear[k] += factor * w[0];
    linear[(k + 1) % 4] += factor * w[1];
    for (double& l : linear) l += factor * 0.25 * w[2];
  };
  if (r.area > 0.0) {
    r.centroid = moment / r.area;  // (C.1b)
    for (int k = 0; k < 4; ++k) add_linear(k, r.sub_triangles[k].area / r.area);
  } else {
    int nearest = 0;
    for (int k = 1; k < 4; ++k) {
      if (Norm(r.sub_triangles[k].centroid - centre) <
          Norm(r.sub_triangles[nearest].centroid - centre)) {
        nearest = k;
      }
    }
    r.centroid = r.sub_triangles[nearest].centroid;
    add_linear(nearest, 1.0);
  }

  r.inverse_map_converged = InverseBilinearMap(r.centroid, v1, v2, v3, v4, r.xi, r.eta);
  if (r.inverse_map_converged) {
    r.weights = Bilinear(r.xi, r.eta);
  } else {
    r.weights = linear;
  }
  return r;
}

namespace {

// Where the circle the sphere cuts in the plane of the triangle (p0, p1, p2)
// lies against it (CircleQuadrilateralAreaShare), given the triangle's unit
// normal `n` and its edges' lengths |p1 − p0|, |p2 − p1|, |p0 − p2|
// (QuadSubTrianglesOf). For kInside, `area` and `centroid` are what
// CircleTriangleIntersection computes for case (a), by the same operations:
// its plane, C_π = C − d_π n and a, area (π a) a.
enum class CirclePlacement { kApart, kInside, kCut };
CirclePlacement PlaceCircle(const Array3& centre, double radius, const Array3& p0, const Array3& p1,
                            const Array3& p2, const Array3& n, const double (&lengths)[3],
                            double& area, Array3& centroid) {
  const double d_pi = tessera::Dot(centre - p0, n);
  const double delta = radius - std::abs(d_pi);
  if (!(delta > 0.0)) return CirclePlacement::kApart;  // the sphere short of the plane
  const double a = std::sqrt(delta * (2.0 * radius - delta));
  const Array3 c = centre - d_pi * n;
  const std::array<const Array3*, 3> p{&p0, &p1, &p2};
  bool inside = true;
  double max_edge = 0.0;
  for (int k = 0; k < 3; ++k) {
    // n x edge points into the triangle (counter-clockwise about its own
    // normal) and has the edge's length (the edge lies in the plane).
    const Array3 edge = *p[(k + 1) % 3] - *p[k];
    const double length = lengths[k];
    max_edge = std::max(max_edge, length);
    const double s = tessera::Dot(c - *p[k], tessera::Cross(n, edge));  // s_k · length
    if (s <= -a * length) return CirclePlacement::kApart;
    inside = inside && s >= a * length;
  }
  // CircleTriangleIntersection's "too small to be represented": no area.
  if (!(a > 1e-100 * max_edge)) return CirclePlacement::kApart;
  if (!inside) return CirclePlacement::kCut;
  area = std::numbers::pi * a * a;
  centroid = c;
  return CirclePlacement::kInside;
}

}  // namespace

QuadSubTriangles QuadSubTrianglesOf(const Array3& v1, const Array3& v2, const Array3& v3,
                                    const Array3& v4) {
  QuadSubTriangles planes;
  const std::array<const Array3*, 4> v{&v1, &v2, &v3, &v4};
  planes.centroid = 0.25 * (v1 + v2 + v3 + v4);
  const Array3& x_cm = planes.centroid;
  for (int k = 0; k < 4; ++k) {
    const Array3& p0 = *v[k];
    const Array3& p1 = *v[(k + 1) % 4];
    planes.rim[k] = Norm(p1 - p0);
    planes.spoke[k] = Norm(x_cm - p0);  // the bits of |p0 − x_cm|: a difference negated
    const Array3 normal = tessera::Cross(p1 - p0, x_cm - p0);
    const double twice_area = Norm(normal);
    if (!(twice_area > 0.0) || !std::isfinite(twice_area)) continue;  // composed instead
    planes.normal[k] = normal / twice_area;
    planes.spans_plane |= static_cast<std::uint8_t>(1u << k);
  }
  planes.diagonals = Norm(v3 - v1) + Norm(v4 - v2);
  planes.computed = 1;
  return planes;
}

CircleQuadrilateralShare CircleQuadrilateralAreaShare(const Array3& centre, double radius,
                                                      const Array3& v1, const Array3& v2,
                                                      const Array3& v3, const Array3& v4) {
  return CircleQuadrilateralAreaShare(centre, radius, v1, v2, v3, v4,
                                      QuadSubTrianglesOf(v1, v2, v3, v4));
}

CircleQuadrilateralShare CircleQuadrilateralAreaShare(const Array3& centre, double radius,
                                                      const Array3& v1, const Array3& v2,
                                                      const Array3& v3, const Array3& v4,
                                                      const QuadSubTriangles& planes) {
  CircleQuadrilateralShare share;
  const std::array<const Array3*, 4> v{&v1, &v2, &v3, &v4};
  // The sums of CircleQuadrilateralIntersection in its order; a sub-triangle
  // without area adds exact zeros there, and nothing here.
  const Array3& x_cm = planes.centroid;
  double area = 0.0;
  Array3 moment{};
  for (int k = 0; k < 4; ++k) {
    const Array3& p0 = *v[k];
    const Array3& p1 = *v[(k + 1) % 4];
    double sub_area = 0.0;
    Array3 sub_centroid{};
    // A sub-triangle without a plane is composed (its area there is none).
    CirclePlacement placement = CirclePlacement::kCut;
    if (planes.spans_plane & (1u << k)) {
      const double lengths[3] = {planes.rim[k], planes.spoke[(k + 1) % 4], planes.spoke[k]};
      placement = PlaceCircle(centre, radius, p0, p1, x_cm, planes.normal[k], lengths, sub_area,
                              sub_centroid);
    }
    switch (placement) {
      case CirclePlacement::kApart:
        continue;
      case CirclePlacement::kInside:
        break;
      case CirclePlacement::kCut: {
        const CircleTriangleIntersectionResult r =
            CircleTriangleIntersection(centre, radius, p0, p1, x_cm);
        sub_area = r.area;
        sub_centroid = r.centroid;
        ++share.sub_triangles_composed;
        break;
      }
    }
    area += sub_area;
    moment += sub_area * sub_centroid;
  }
  if (!(area > 0.0)) return share;
  double xi = 0.0, eta = 0.0;
  if (!InverseBilinearMap(moment / area, v1, v2, v3, v4, planes.diagonals, xi, eta)) return share;
  share.valid = true;
  share.area = area;
  share.weights = Bilinear(xi, eta);
  return share;
}

}  // namespace tessera::dem
