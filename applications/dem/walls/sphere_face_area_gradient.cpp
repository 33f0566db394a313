// The area a sphere cuts in a face and its derivatives (formulas in the header).
#include "applications/dem/walls/sphere_face_area_gradient.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace tessera::dem {
namespace {

// The triangle (x[0], x[1], x[2]): its area A in the ball and the
// derivatives with respect to the centre and each vertex.
void TriangleAreaWithGradient(const Array3& centre, double radius, const Array3& x0,
                              const Array3& x1, const Array3& x2, double& area, Array3& d_centre,
                              std::array<Array3, 3>& d_vertex) {
  area = 0.0;
  d_centre = Array3{};
  d_vertex = {};
  const Array3 x[3] = {x0, x1, x2};
  const Array3 e1 = x1 - x0;
  const Array3 twice_area = Cross(e1, x2 - x0);
  const double twice = Norm(twice_area);
  if (!(twice > 0.0)) return;
  const Array3 n = twice_area / twice;
  const double d = Dot(centre - x0, n);
  const double a2 = radius * radius - d * d;
  if (!(a2 > 0.0)) return;
  const double a = std::sqrt(a2);
  const Array3 cp = centre - d * n;  // C_π
  // An orthonormal basis of the plane: the circle's points are cp + a e(θ),
  // e(θ) = cos θ u + sin θ w. The vertex order runs counter-clockwise about
  // n, so n × edge points into the triangle.
  const Array3 u = e1 / Norm(e1);
  const Array3 w = Cross(n, u);
  auto inside = [&](const Array3& p) {
    for (int k = 0; k < 3; ++k)
      if (Dot(Cross(x[(k + 1) % 3] - x[k], p - x[k]), n) < 0.0) return false;
    return true;
  };
  // C_π's distances from the edges' lines (inside > 0): the circle wholly
  // beyond one of them leaves no area (nor any derivative), wholly inside
  // all of them is whole (the common cases, without the crossings).
  bool whole = true;
  for (int k = 0; k < 3; ++k) {
    const Array3 edge = x[(k + 1) % 3] - x[k];
    const double s = Dot(Cross(n, edge), cp - x[k]) / Norm(edge);
    if (s <= -a) return;
    whole = whole && s >= a;
  }
  // Where the circle crosses each edge (inside the edge): the angle and its
  // cosine and sine; and Σ s_k L_k.
  struct Crossing {
    double angle, cosine, sine;
  } crossing[6];
  int crossings = 0;
  double chords = 0.0;
  for (int k = 0; k < 3 && !whole; ++k) {
    const Array3 edge = x[(k + 1) % 3] - x[k];
    const Array3 from = x[k] - cp;
    const double ee = Dot(edge, edge), fe = Dot(from, edge);
    const double disc = fe * fe - ee * (Dot(from, from) - a2);
    if (!(disc > 0.0)) continue;  // the edge's line misses the circle, or touches it
    const double root = std::sqrt(disc);
    const double t[2] = {(-fe - root) / ee, (-fe + root) / ee};
    const double lo = std::max(t[0], 0.0), hi = std::min(t[1], 1.0);
    if (lo < hi) {
      const double length = std::sqrt(ee);
      const double s = Dot(Cross(n, edge), cp - x[k]) / length;  // C_π from the line, inside > 0
      chords += s * (hi - lo) * length;
    }
    for (double tk : t)
      if (tk >= 0.0 && tk < 1.0) {
        const Array3 q = from + tk * edge;
        const double qu = Dot(q, u), qw = Dot(q, w);
        crossing[crossings++] = {std::atan2(qw, qu), qu / a, qw / a};
      }
  }
  // The arcs inside the triangle and their integrals (in u, w):
  // Θ = ∫dθ, E = ∫e dθ, M = ∫e eᵀ dθ, from the ends' cosines and sines.
  double theta = 0.0, eu = 0.0, ew = 0.0, muu = 0.0, mww = 0.0, muw = 0.0;
  if (crossings == 0) {
    // The whole circle inside the triangle (Θ = 2π, E = 0, M = π I), or none
    // of it (the triangle inside the circle, or the two apart).
    if (whole || inside(cp + a * u)) theta = 2.0 * std::numbers::pi, muu = mww = std::numbers::pi;
  } else {
    std::sort(crossing, crossing + crossings,
              [](const Crossing& l, const Crossing& r) { return l.angle < r.angle; });
    for (int k = 0; k < crossings; ++k) {
      const Crossing& p = crossing[k];
      const Crossing& q = crossing[k + 1 < crossings ? k + 1 : 0];
      const double span =
          k + 1 < crossings ? q.angle - p.angle : q.angle + 2.0 * std::numbers::pi - p.angle;
      if (!(span > 0.0)) continue;
      // The arc's middle: along the sum of its ends' directions (reversed
      // past a half turn; a half turn itself: p's turned by 90°).
      double mu = p.cosine + q.cosine, mw = p.sine + q.sine;
      const double length = std::sqrt(mu * mu + mw * mw);
      if (length > 1e-6) {
        const double scale = (span > std::numbers::pi ? -a : a) / length;
        mu *= scale, mw *= scale;
      } else {
        mu = -a * p.sine, mw = a * p.cosine;
      }
      if (!inside(cp + mu * u + mw * w)) continue;
      const double sin2 = 2.0 * (q.sine * q.cosine - p.sine * p.cosine);
      theta += span;
      eu += q.sine - p.sine;
      ew += p.cosine - q.cosine;
      muu += 0.5 * span + 0.25 * sin2;
      mww += 0.5 * span - 0.25 * sin2;
      muw += 0.5 * (q.sine * q.sine - p.sine * p.sine);
    }
  }
  area = 0.5 * (a2 * theta + chords);
  const Array3 e_integral = eu * u + ew * w;
  const Array3 arcs = a * e_integral - (d * theta) * n;  // ∫(p - C) dθ
  d_centre = arcs;
  for (int j = 0; j < 3; ++j) {
    // ∇λ_j: in the plane, towards x_j from the opposite edge, 1 / height long.
    const Array3 g = Cross(n, x[(j + 2) % 3] - x[(j + 1) % 3]) / twice;
    const double lambda = 1.0 + Dot(g, cp - x[j]);  // λ_j(C_π)
    const double gu = Dot(g, u), gw = Dot(g, w);
    const Array3 mg = (muu * gu + muw * gw) * u + (muw * gu + mww * gw) * w;  // M g
    // ∫ λ_j(p) (p - C) dθ with λ_j(p) = λ_j(C_π) + a g·e.
    const Array3 weighted = lambda * arcs + a * (a * mg - (d * Dot(g, e_integral)) * n);
    d_vertex[j] = area * g - weighted;
  }
}

}  // namespace

void SphereFaceAreaWithGradient(const Array3& centre, double radius,
                                const std::array<Array3, 4>& points, int vertex_count,
                                SphereFaceAreaGradient& out) {
  out = SphereFaceAreaGradient{};
  std::array<Array3, 3> d_vertex;
  if (vertex_count == 3) {
    TriangleAreaWithGradient(centre, radius, points[0], points[1], points[2], out.area, out.centre,
                             d_vertex);
    for (int j = 0; j < 3; ++j) out.vertex[j] = d_vertex[j];
  } else if (vertex_count == 4) {
    const Array3 mean = 0.25 * (points[0] + points[1] + points[2] + points[3]);
    for (int k = 0; k < 4; ++k) {
      double area;
      Array3 d_centre;
      TriangleAreaWithGradient(centre, radius, points[k], points[(k + 1) & 3], mean, area, d_centre,
                               d_vertex);
      out.area += area;
      out.centre += d_centre;
      out.vertex[k] += d_vertex[0];
      out.vertex[(k + 1) & 3] += d_vertex[1];
      for (int v = 0; v < 4; ++v) out.vertex[v] += 0.25 * d_vertex[2];
    }
  }
}

}  // namespace tessera::dem
