"""The walls the DEM benchmarks share: an open box of five RigidFace3D4N
quadrilaterals (floor and four sides) over [x0, x1] x [y0, y1] x [0, top]."""


def AddOpenBox(walls, properties, x0, x1, y0, y1, top):
    quads = [[(x0, y0, 0), (x1, y0, 0), (x1, y1, 0), (x0, y1, 0)],
             [(x0, y0, 0), (x0, y1, 0), (x0, y1, top), (x0, y0, top)],
             [(x1, y0, 0), (x1, y0, top), (x1, y1, top), (x1, y1, 0)],
             [(x0, y0, 0), (x0, y0, top), (x1, y0, top), (x1, y0, 0)],
             [(x0, y1, 0), (x1, y1, 0), (x1, y1, top), (x0, y1, top)]]
    node_id = 1
    for k, quad in enumerate(quads, start=1):
        ids = []
        for xyz in quad:
            walls.CreateNewNode(node_id, *xyz)
            ids.append(node_id)
            node_id += 1
        walls.CreateNewCondition("RigidFace3D4N", k, ids, properties)
