// The area a sphere cuts in a face (thesis App. C's A_e: the circle it cuts
// in the face's plane, inside the face) and its exact derivatives with
// respect to the sphere's centre and the face's vertices, for the
// energy-consistent ADM forces (strategies/adm_energy_gradient.cpp).
//
// The circle the sphere (centre C, radius R) cuts in the plane of a
// triangle T is the set of the plane's points within R of C, so
// A(C, X) = area(T ∩ ball(C, R)): the plane's motion needs no term of its
// own. With the circle (centre C_π, radius a, distance d = (C - X_0)·n of C
// from the plane along the unit normal n) and the arcs of it inside T:
//   ∂A/∂C   =  ∫_arcs (p - C) dθ                        (the ball's boundary
//              moves with C; its in-plane speed along the arc's normal is
//              (p - C)·V / a, and ds = a dθ);
//   ∂A/∂X_j =  A ∇λ_j  -  ∫_arcs λ_j(p) (p - C) dθ      (the vertex moves the
//              triangle's points affinely, with the barycentric λ_j: the
//              area element grows by the velocity's divergence, V·∇λ_j, and
//              the circle's boundary is passed at λ_j(p) V);
// with p - C = a e(θ) - d n and λ_j affine, both integrals are closed forms
// in ∫dθ, ∫e dθ and ∫e eᵀ dθ over the arcs. Σ_j ∂A/∂X_j = -∂A/∂C (a
// translation of everything leaves A). A itself comes from Green's theorem,
// A = ½ (a² Θ + Σ_edges s_k L_k) (Θ the arcs' angle, L_k the length of edge
// k inside the circle, s_k C_π's distance from its line, positive inside):
// the same area as App. C's composition (circle_face_intersection.h) to
// round-off. A quadrilateral is cut as area_distribution.cpp cuts it: the
// sum over its four sub-triangles (v_i, v_i+1, x_cm) about the vertex mean
// x_cm (Fig. 4.12), each in its own plane (a flat convex face whose circle
// lies inside it gives πa² either way).
//
// The derivatives are continuous where the arcs change (a vertex entering
// the circle, the circle leaving an edge): A is C¹ away from a = 0.
#pragma once

#include <array>

#include "kernel/core/array3.h"

namespace tessera::dem {

struct SphereFaceAreaGradient {
  double area = 0.0;               // A
  Array3 centre{};                 // ∂A/∂C
  std::array<Array3, 4> vertex{};  // ∂A/∂X_v (the face's vertex order)
};

// A triangle (vertex_count 3) or a quadrilateral (4) of vertices `points`;
// a segment or a face the sphere does not cut gives zeros.
void SphereFaceAreaWithGradient(const Array3& centre, double radius,
                                const std::array<Array3, 4>& points, int vertex_count,
                                SphereFaceAreaGradient& out);

}  // namespace tessera::dem
