"""Writes oscillating_plate.mdpa: a 2 m x 1 m plate, 0.05 m thick, meshed with
20 x 10 x 1 hexahedra (Element3D8N), with the sub model parts the project
parameters name. Run once (`python3 make_mesh.py`); the .mdpa is kept in the
folder so the example runs without this script.
"""
import os

LENGTH, WIDTH, THICKNESS = 2.0, 1.0, 0.05
NX, NY, NZ = 20, 10, 1


def node_id(i, j, k):
    return 1 + i + (NX + 1) * (j + (NY + 1) * k)


def main(path=os.path.join(os.path.dirname(os.path.abspath(__file__)), "oscillating_plate.mdpa")):
    lines = ["// Oscillating plate: written by make_mesh.py", "",
             "Begin ModelPartData", "End ModelPartData", "",
             "Begin Properties 1", "End Properties", "", "Begin Nodes"]
    for k in range(NZ + 1):
        for j in range(NY + 1):
            for i in range(NX + 1):
                x, y, z = LENGTH * i / NX, WIDTH * j / NY, THICKNESS * k / NZ
                lines.append(f"  {node_id(i, j, k):4d} {x:.6f} {y:.6f} {z:.6f}")
    lines += ["End Nodes", "", "Begin Elements Element3D8N"]
    element = 0
    for k in range(NZ):
        for j in range(NY):
            for i in range(NX):
                element += 1
                # Kratos' Hexahedra3D8 order: bottom face counter-clockwise, then top
                corners = [node_id(i, j, k), node_id(i + 1, j, k), node_id(i + 1, j + 1, k),
                           node_id(i, j + 1, k), node_id(i, j, k + 1), node_id(i + 1, j, k + 1),
                           node_id(i + 1, j + 1, k + 1), node_id(i, j + 1, k + 1)]
                lines.append(f"  {element:4d} 1 " + " ".join(f"{n:4d}" for n in corners))
    lines += ["End Elements", ""]

    all_nodes = [node_id(i, j, k) for k in range(NZ + 1) for j in range(NY + 1) for i in range(NX + 1)]
    supports = [n for n in all_nodes if (n - 1) % (NX + 1) in (0, NX)]  # the edges x = 0 and x = L
    centre_line = [node_id(NX // 2, j, k) for k in range(NZ + 1) for j in range(NY + 1)]  # x = L/2

    def sub_model_part(name, nodes, elements):
        block = [f"Begin SubModelPart {name}", "  Begin SubModelPartNodes"]
        block += [f"    {n}" for n in sorted(nodes)]
        block += ["  End SubModelPartNodes", "  Begin SubModelPartElements"]
        block += [f"    {e}" for e in elements]
        block += ["  End SubModelPartElements", "End SubModelPart", ""]
        return block

    lines += sub_model_part("Parts_plate", all_nodes, range(1, element + 1))
    lines += sub_model_part("Supports", supports, [])
    lines += sub_model_part("CentreLine", centre_line, [])
    with open(path, "w") as file:
        file.write("\n".join(lines))
    print(f"wrote {path}: {len(all_nodes)} nodes, {element} elements")


if __name__ == "__main__":
    main()
