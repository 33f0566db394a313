// Array3 and Quaternion: the small fixed-size value types of the kernel.
//
// Array3 is a plain aggregate of three doubles so that a std::vector<Array3> is
// one contiguous (N, 3) block of doubles: nodal vector data is stored that way
// and handed to numpy without a copy.
#pragma once

#include <array>
#include <cmath>
#include <ostream>

namespace tessera {

struct Array3 {
  double data[3] = {0.0, 0.0, 0.0};

  constexpr double& operator[](int i) { return data[i]; }
  constexpr const double& operator[](int i) const { return data[i]; }
  constexpr double* begin() { return data; }
  constexpr double* end() { return data + 3; }
  constexpr const double* begin() const { return data; }
  constexpr const double* end() const { return data + 3; }
  static constexpr int size() { return 3; }

  constexpr Array3& operator+=(const Array3& o) {
    data[0] += o[0], data[1] += o[1], data[2] += o[2];
    return *this;
  }
  constexpr Array3& operator-=(const Array3& o) {
    data[0] -= o[0], data[1] -= o[1], data[2] -= o[2];
    return *this;
  }
  constexpr Array3& operator*=(double s) {
    data[0] *= s, data[1] *= s, data[2] *= s;
    return *this;
  }
  friend constexpr bool operator==(const Array3& a, const Array3& b) {
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
  }
};

static_assert(sizeof(Array3) == 3 * sizeof(double), "Array3 must have no padding");

constexpr Array3 operator+(Array3 a, const Array3& b) { return a += b; }
constexpr Array3 operator-(Array3 a, const Array3& b) { return a -= b; }
constexpr Array3 operator-(const Array3& a) { return {-a[0], -a[1], -a[2]}; }
constexpr Array3 operator*(Array3 a, double s) { return a *= s; }
constexpr Array3 operator*(double s, Array3 a) { return a *= s; }
constexpr Array3 operator/(Array3 a, double s) { return a *= (1.0 / s); }

constexpr double Dot(const Array3& a, const Array3& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
constexpr Array3 Cross(const Array3& a, const Array3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
inline double Norm(const Array3& a) { return std::sqrt(Dot(a, a)); }

inline std::ostream& operator<<(std::ostream& os, const Array3& a) {
  return os << '[' << a[0] << ", " << a[1] << ", " << a[2] << ']';
}

// Unit quaternion (w, x, y, z) for orientations; the mdpa writes it as [4](w, x, y, z).
struct Quaternion {
  double w = 1.0, x = 0.0, y = 0.0, z = 0.0;

  friend constexpr bool operator==(const Quaternion& a, const Quaternion& b) {
    return a.w == b.w && a.x == b.x && a.y == b.y && a.z == b.z;
  }
  constexpr Quaternion Conjugate() const { return {w, -x, -y, -z}; }
  double Norm() const { return std::sqrt(w * w + x * x + y * y + z * z); }

  // Rotates v by this (unit) quaternion: v' = q v q*.
  constexpr Array3 Rotate(const Array3& v) const {
    const Array3 u{x, y, z};
    const Array3 t = 2.0 * Cross(u, v);
    return v + w * t + Cross(u, t);
  }
};

constexpr Quaternion operator*(const Quaternion& a, const Quaternion& b) {
  return {
      a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
      a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}

inline std::ostream& operator<<(std::ostream& os, const Quaternion& q) {
  return os << '[' << q.w << ", " << q.x << ", " << q.y << ", " << q.z << ']';
}

}  // namespace tessera
