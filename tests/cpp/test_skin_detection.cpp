// Tests of the skin detection utility (kernel/utilities/skin_detection.h):
// structured cubes of hexahedra and of tetrahedra, squares of triangles and
// quadrilaterals, membranes, shared internal faces and inverted elements, each
// checked against the geometry it bounds (count, outward normals by the
// right-hand rule, total area or perimeter, nodes on the boundary).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <set>

#include "kernel/core/error.h"
#include "kernel/geometries/geometry_type.h"
#include "kernel/model/model.h"
#include "kernel/registry/registry.h"
#include "kernel/utilities/skin_detection.h"

using namespace tessera;

namespace {

IdType GridId(int i, int j, int k, int n) { return 1 + i + (n + 1) * (j + (n + 1) * k); }

// Nodes of the unit cube as an (n+1)^3 grid.
void MakeGridNodes(ModelPart& mp, int n) {
  for (int k = 0; k <= n; ++k)
    for (int j = 0; j <= n; ++j)
      for (int i = 0; i <= n; ++i)
        mp.CreateNewNode(GridId(i, j, k, n), double(i) / n, double(j) / n, double(k) / n);
}

// The corners of grid cell (i, j, k) in Hexahedra3D8 order (bottom counter-clockwise, then top).
std::array<IdType, 8> CellCorners(int i, int j, int k, int n) {
  return {GridId(i, j, k, n),
          GridId(i + 1, j, k, n),
          GridId(i + 1, j + 1, k, n),
          GridId(i, j + 1, k, n),
          GridId(i, j, k + 1, n),
          GridId(i + 1, j, k + 1, n),
          GridId(i + 1, j + 1, k + 1, n),
          GridId(i, j + 1, k + 1, n)};
}

void MakeHexCube(ModelPart& mp, int n) {
  MakeGridNodes(mp, n);
  auto props = mp.CreateNewProperties(1);
  IdType id = 1;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const auto c = CellCorners(i, j, k, n);
        mp.CreateNewElement("Element3D8N", id++, c, props);
      }
}

double SignedTetVolume(ModelPart& mp, const std::array<IdType, 4>& t) {
  const Array3 x0 = mp.GetNode(t[0]).Coordinates();
  return Dot(Cross(mp.GetNode(t[1]).Coordinates() - x0, mp.GetNode(t[2]).Coordinates() - x0),
             mp.GetNode(t[3]).Coordinates() - x0) /
         6.0;
}

// Each cell split into six tetrahedra around its main diagonal (Kuhn's
// subdivision, conforming between cells), positively oriented.
void MakeTetCube(ModelPart& mp, int n) {
  MakeGridNodes(mp, n);
  auto props = mp.CreateNewProperties(1);
  const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  IdType id = 1;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        for (const auto& p : perms) {
          std::array<int, 3> v{i, j, k};
          std::array<IdType, 4> tet;
          tet[0] = GridId(v[0], v[1], v[2], n);
          for (int s = 0; s < 3; ++s) {
            ++v[p[s]];
            tet[s + 1] = GridId(v[0], v[1], v[2], n);
          }
          if (SignedTetVolume(mp, tet) < 0) std::swap(tet[1], tet[2]);
          mp.CreateNewElement("Element3D4N", id++, tet, props);
        }
}

// The square [0, 1]^2 as an (n+1)^2 grid of counter-clockwise quadrilaterals or
// triangles (two per cell).
void MakeSquare(ModelPart& mp, int n, bool triangles) {
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i)
      mp.CreateNewNode(GridId(i, j, 0, n), double(i) / n, double(j) / n, 0.0);
  auto props = mp.CreateNewProperties(1);
  IdType id = 1;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const IdType a = GridId(i, j, 0, n), b = GridId(i + 1, j, 0, n),
                   c = GridId(i + 1, j + 1, 0, n), d = GridId(i, j + 1, 0, n);
      if (triangles) {
        mp.CreateNewElement("Element2D3N", id++, std::array<IdType, 3>{a, b, c}, props);
        mp.CreateNewElement("Element2D3N", id++, std::array<IdType, 3>{a, c, d}, props);
      } else {
        mp.CreateNewElement("Element2D4N", id++, std::array<IdType, 4>{a, b, c, d}, props);
      }
    }
}

std::vector<Array3> FacePoints(ModelPart& mp, const SkinFace& face) {
  std::vector<Array3> points;
  for (IdType id : face.NodeIds()) points.push_back(mp.GetNode(id).Coordinates());
  return points;
}

// Area vector by the right-hand rule of the node order, computed here (not by
// the geometry types) so that the test checks the convention itself.
Array3 AreaVector(const std::vector<Array3>& x) {
  if (x.size() == 3) return Cross(x[1] - x[0], x[2] - x[0]) * 0.5;
  return Cross(x[2] - x[0], x[3] - x[1]) * 0.5;  // planar quadrilateral
}

Array3 Centre(const std::vector<Array3>& x) {
  Array3 c;
  for (const Array3& p : x) c += p;
  return c / double(x.size());
}

bool OnUnitBoundary(double v) { return std::abs(v) < 1e-12 || std::abs(v - 1.0) < 1e-12; }

// The checks every skin of the unit cube passes: area 6, each face on a side of
// the cube with the unit normal of that side, every node on the boundary, the
// face's nodes among its parent's, and the output ordered by (parent, face).
void ExpectUnitCubeSkin(ModelPart& mp, const std::vector<SkinFace>& faces,
                        std::string_view face_geometry) {
  double area = 0.0;
  for (std::size_t f = 0; f < faces.size(); ++f) {
    const SkinFace& face = faces[f];
    EXPECT_EQ(face.geometry->Name(), face_geometry);
    const auto x = FacePoints(mp, face);
    const Array3 a = AreaVector(x);
    area += Norm(a);
    const Array3 c = Centre(x);
    // The side the face lies on: the axis along which its centre is at 0 or 1.
    int side_axis = -1;
    for (int d = 0; d < 3; ++d)
      if (OnUnitBoundary(c[d])) side_axis = d;
    ASSERT_GE(side_axis, 0) << "face of element " << face.parent_id << " is inside the cube";
    Array3 outward;
    outward[side_axis] = c[side_axis] > 0.5 ? 1.0 : -1.0;
    EXPECT_NEAR(Dot(a, outward) / Norm(a), 1.0, 1e-12)
        << "face " << face.local_face << " of element " << face.parent_id << " points in";
    for (const Array3& p : x)
      EXPECT_TRUE(OnUnitBoundary(p[0]) || OnUnitBoundary(p[1]) || OnUnitBoundary(p[2]));
    const Geometry& parent = mp.GetElement(face.parent_id).GetGeometry();
    for (IdType id : face.NodeIds()) {
      bool found = false;
      for (std::size_t k = 0; k < parent.size(); ++k) found |= parent[k].Id() == id;
      EXPECT_TRUE(found);
    }
    if (f > 0)
      EXPECT_TRUE(
          faces[f - 1].parent_id < face.parent_id ||
          (faces[f - 1].parent_id == face.parent_id && faces[f - 1].local_face < face.local_face));
  }
  EXPECT_NEAR(area, 6.0, 1e-12);
}

}  // namespace

TEST(SkinDetection, HexahedralCube) {
  for (int n : {1, 2, 3}) {
    Model model;
    ModelPart& mp = model.CreateModelPart("Cube");
    MakeHexCube(mp, n);
    const auto faces = FindSkinFaces(mp);
    EXPECT_EQ(faces.size(), std::size_t(6 * n * n));
    ExpectUnitCubeSkin(mp, faces, "Quadrilateral3D4");
  }
}

TEST(SkinDetection, TetrahedralCube) {
  for (int n : {1, 2, 3}) {
    Model model;
    ModelPart& mp = model.CreateModelPart("Cube");
    MakeTetCube(mp, n);
    const auto faces = FindSkinFaces(mp);
    EXPECT_EQ(faces.size(), std::size_t(12 * n * n));
    ExpectUnitCubeSkin(mp, faces, "Triangle3D3");
  }
}

TEST(SkinDetection, PlaneSquaresGiveOutwardBoundaryEdges) {
  for (bool triangles : {false, true}) {
    const int n = 3;
    Model model;
    ModelPart& mp = model.CreateModelPart("Square");
    MakeSquare(mp, n, triangles);
    const auto faces = FindSkinFaces(mp);
    ASSERT_EQ(faces.size(), std::size_t(4 * n));
    double perimeter = 0.0;
    for (const SkinFace& face : faces) {
      EXPECT_EQ(face.geometry->Name(), "Line2D2");
      ASSERT_EQ(face.nodes_number, 2);
      const auto x = FacePoints(mp, face);
      const Array3 t = x[1] - x[0];
      perimeter += Norm(t);
      const Array3 normal{t[1], -t[0], 0.0};  // the tangent turned by -90 degrees
      const Array3 c = Centre(x);
      int side_axis = OnUnitBoundary(c[0]) ? 0 : 1;
      ASSERT_TRUE(OnUnitBoundary(c[side_axis]));
      Array3 outward;
      outward[side_axis] = c[side_axis] > 0.5 ? 1.0 : -1.0;
      EXPECT_NEAR(Dot(normal, outward) / Norm(normal), 1.0, 1e-12);
      // And the kernel's line normal agrees with the convention.
      const Array3 kernel_normal = face.geometry->UnitNormal(x, Array3{});
      EXPECT_NEAR(Dot(kernel_normal, outward), 1.0, 1e-12);
    }
    EXPECT_NEAR(perimeter, 4.0, 1e-12);
  }
}

TEST(SkinDetection, MembranesAreTheirOwnSkin) {
  Registry::Instance().RegisterElement("SkinTestMembrane3D4N", "Quadrilateral3D4");
  Model model;
  ModelPart& mp = model.CreateModelPart("Membrane");
  mp.CreateNewNode(1, 0, 0, 0);
  mp.CreateNewNode(2, 1, 0, 0);
  mp.CreateNewNode(3, 1, 1, 0);
  mp.CreateNewNode(4, 0, 1, 0);
  mp.CreateNewNode(5, 2, 0, 1);
  auto props = mp.CreateNewProperties(0);
  mp.CreateNewElement("SkinTestMembrane3D4N", 7, std::array<IdType, 4>{1, 2, 3, 4}, props);
  mp.CreateNewElement("Element3D3N", 3, std::array<IdType, 3>{2, 5, 3}, props);
  const auto faces = FindSkinFaces(mp);
  ASSERT_EQ(faces.size(), 2u);
  EXPECT_EQ(faces[0].parent_id, 3);
  EXPECT_EQ(faces[0].local_face, -1);
  EXPECT_EQ(faces[0].geometry->Name(), "Triangle3D3");
  EXPECT_EQ(std::vector<IdType>(faces[0].NodeIds().begin(), faces[0].NodeIds().end()),
            (std::vector<IdType>{2, 5, 3}));
  EXPECT_EQ(faces[1].parent_id, 7);
  EXPECT_EQ(faces[1].geometry->Name(), "Quadrilateral3D4");
  EXPECT_EQ(std::vector<IdType>(faces[1].NodeIds().begin(), faces[1].NodeIds().end()),
            (std::vector<IdType>{1, 2, 3, 4}));
}

TEST(SkinDetection, SharedInternalFaceIsNeverSkin) {
  Model model;
  ModelPart& mp = model.CreateModelPart("TwoTets");
  mp.CreateNewNode(1, 0, 0, 0);
  mp.CreateNewNode(2, 1, 0, 0);
  mp.CreateNewNode(3, 0, 1, 0);
  mp.CreateNewNode(4, 0, 0, 1);
  mp.CreateNewNode(5, 1, 1, 1);
  auto props = mp.CreateNewProperties(0);
  mp.CreateNewElement("Element3D4N", 1, std::array<IdType, 4>{1, 2, 3, 4}, props);
  // Shares face {2, 3, 4}, given in another order.
  mp.CreateNewElement("Element3D4N", 2, std::array<IdType, 4>{2, 5, 3, 4}, props);
  ASSERT_GT(SignedTetVolume(mp, {2, 5, 3, 4}), 0.0);
  const auto faces = FindSkinFaces(mp);
  ASSERT_EQ(faces.size(), 6u);
  const Array3 centre = (mp.GetNode(1).Coordinates() + mp.GetNode(5).Coordinates()) * 0.5;
  for (const SkinFace& face : faces) {
    std::set<IdType> nodes(face.NodeIds().begin(), face.NodeIds().end());
    EXPECT_NE(nodes, (std::set<IdType>{2, 3, 4}));
    // The pair is convex, so each outward face normal points away from an inner point.
    const auto x = FacePoints(mp, face);
    EXPECT_GT(Dot(AreaVector(x), Centre(x) - centre), 0.0);
  }
  // Two hexahedra sharing a face: 10 of the 12 faces.
  Model model2;
  ModelPart& bar = model2.CreateModelPart("Bar");
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 2; ++k) bar.CreateNewNode(1 + i + 3 * (j + 2 * k), i, j, k);
  auto p = bar.CreateNewProperties(0);
  for (int i = 0; i < 2; ++i) {
    auto id = [&](int a, int b, int c) { return IdType(1 + (i + a) + 3 * (b + 2 * c)); };
    bar.CreateNewElement("Element3D8N", i + 1,
                         std::array<IdType, 8>{id(0, 0, 0), id(1, 0, 0), id(1, 1, 0), id(0, 1, 0),
                                               id(0, 0, 1), id(1, 0, 1), id(1, 1, 1), id(0, 1, 1)},
                         p);
  }
  EXPECT_EQ(FindSkinFaces(bar).size(), 10u);
}

TEST(SkinDetection, InvertedElementsStillPointOut) {
  Model model;
  ModelPart& mp = model.CreateModelPart("Inverted");
  mp.CreateNewNode(1, 0, 0, 0);
  mp.CreateNewNode(2, 1, 0, 0);
  mp.CreateNewNode(3, 0, 1, 0);
  mp.CreateNewNode(4, 0, 0, 1);
  mp.CreateNewElement("Element3D4N", 1, std::array<IdType, 4>{1, 3, 2, 4},
                      mp.CreateNewProperties(0));
  ASSERT_LT(SignedTetVolume(mp, {1, 3, 2, 4}), 0.0);
  const auto faces = FindSkinFaces(mp);
  ASSERT_EQ(faces.size(), 4u);
  const Array3 centre{0.25, 0.25, 0.25};
  for (const SkinFace& face : faces) {
    const auto x = FacePoints(mp, face);
    EXPECT_GT(Dot(AreaVector(x), Centre(x) - centre), 0.0) << "face " << face.local_face;
  }
  // A clockwise triangle in 2D: its edges still turn counter-clockwise around it.
  ModelPart& plane = model.CreateModelPart("InvertedPlane");
  plane.CreateNewNode(1, 0, 0, 0);
  plane.CreateNewNode(2, 1, 0, 0);
  plane.CreateNewNode(3, 0, 1, 0);
  plane.CreateNewElement("Element2D3N", 1, std::array<IdType, 3>{1, 3, 2},
                         plane.CreateNewProperties(0));
  const auto edges = FindSkinFaces(plane);
  ASSERT_EQ(edges.size(), 3u);
  const Array3 middle{1.0 / 3.0, 1.0 / 3.0, 0.0};
  for (const SkinFace& edge : edges) {
    const auto x = FacePoints(plane, edge);
    const Array3 t = x[1] - x[0];
    EXPECT_GT(Dot(Array3{t[1], -t[0], 0.0}, Centre(x) - middle), 0.0) << "edge " << edge.local_face;
  }
}

TEST(SkinDetection, OnlyTheModelPartsElementsCount) {
  // The x < 0.5 half of a 2x2x2 cube in a sub model part (1x2x2 cells): the
  // four faces it shares with the other half are skin of the sub model part.
  Model model;
  ModelPart& mp = model.CreateModelPart("Cube");
  MakeHexCube(mp, 2);
  ModelPart& half = mp.CreateSubModelPart("Half");
  std::vector<IdType> ids;
  for (const Element& e : mp.Elements())
    if (e.GetGeometry().Center()[0] < 0.5) ids.push_back(e.Id());
  half.AddElements(ids);
  const auto faces = FindSkinFaces(half);
  EXPECT_EQ(faces.size(), 16u);  // x = 0 and x = 0.5: 4 each; y = 0, 1 and z = 0, 1: 2 each
  int on_cut = 0;
  for (const SkinFace& face : faces)
    on_cut += std::abs(Centre(FacePoints(mp, face))[0] - 0.5) < 1e-12;
  EXPECT_EQ(on_cut, 4);
}

TEST(SkinDetection, PointsAndLinesHaveNoSkin) {
  Model model;
  ModelPart& mp = model.CreateModelPart("Cube");
  MakeHexCube(mp, 1);
  auto props = mp.CreateNewProperties(2);
  mp.CreateNewElement("Element3D2N", 10, std::array<IdType, 2>{1, 8}, props);  // a truss
  mp.CreateNewElement("Element3D1N", 11, std::array<IdType, 1>{1}, props);
  const auto faces = FindSkinFaces(mp);
  EXPECT_EQ(faces.size(), 6u);
  for (const SkinFace& face : faces) EXPECT_EQ(face.parent_id, 1);
}
