"""Explicit element updates per second of the structural solid elements.

A cube [0, 1]^3 of n^3 TotalLagrangianElement3D8N (2x2x2 Gauss points) or
6 n^3 TotalLagrangianElement3D4N (Kuhn split, 1 Gauss point), Neo-Hookean
(HyperElastic3DLaw: E = 1e6, nu = 0.3, rho = 1000), the bottom face clamped,
released with a smooth velocity field so that every element deforms; `steps`
steps of explicit central differences (ExplicitCentralDifferencesStrategy) at
half the critical time step. An "element update" is one element's internal
force (all its Gauss points, law included) inside a full step (assembly and
nodal update included), so the figure is elements x steps / wall time.

    OMP_NUM_THREADS=1 PYTHONPATH=build/python /usr/bin/python3 \
        applications/structural/benchmarks/explicit_element_throughput.py hex8 30 50
"""
import math
import os
import sys
import time

import tessera
import tessera.structural as structural


def _volume(mp, tet):
    p = [mp.GetNode(i) for i in tet]
    d = [[p[a].X0 - p[0].X0, p[a].Y0 - p[0].Y0, p[a].Z0 - p[0].Z0] for a in (1, 2, 3)]
    return (d[0][0] * (d[1][1] * d[2][2] - d[1][2] * d[2][1]) - d[0][1] * (d[1][0] * d[2][2] - d[1][2] * d[2][0])
            + d[0][2] * (d[1][0] * d[2][1] - d[1][1] * d[2][0]))


def build(kind, n):
    model = tessera.Model()
    mp = model.CreateModelPart("Structure", 2)
    for variable in (tessera.DISPLACEMENT, tessera.REACTION, tessera.VELOCITY, tessera.ACCELERATION,
                     tessera.VOLUME_ACCELERATION):
        mp.AddNodalSolutionStepVariable(variable)
    ids = {}
    for i in range(n + 1):
        for j in range(n + 1):
            for k in range(n + 1):
                ids[i, j, k] = len(ids) + 1
                mp.CreateNewNode(ids[i, j, k], i / n, j / n, k / n)
    properties = mp.GetProperties(1)
    properties[tessera.YOUNG_MODULUS] = 1e6
    properties[tessera.POISSON_RATIO] = 0.3
    properties[tessera.DENSITY] = 1000.0
    structural.SetConstitutiveLaw(properties, "HyperElastic3DLaw")
    element_id = 0
    for i in range(n):
        for j in range(n):
            for k in range(n):
                c = [ids[i, j, k], ids[i + 1, j, k], ids[i + 1, j + 1, k], ids[i, j + 1, k],
                     ids[i, j, k + 1], ids[i + 1, j, k + 1], ids[i + 1, j + 1, k + 1], ids[i, j + 1, k + 1]]
                if kind == "hex8":
                    element_id += 1
                    mp.CreateNewElement("TotalLagrangianElement3D8N", element_id, c, properties)
                else:  # Kuhn: six tetrahedra around the diagonal c0-c6, oriented positively
                    for a, b in ((1, 2), (2, 3), (3, 7), (7, 4), (4, 5), (5, 1)):
                        element_id += 1
                        tet = [c[0], c[a], c[b], c[6]]
                        if _volume(mp, tet) < 0.0:
                            tet[1], tet[2] = tet[2], tet[1]
                        mp.CreateNewElement("TotalLagrangianElement3D4N", element_id, tet, properties)
    for node in mp.Nodes:
        for dof, reaction in ((tessera.DISPLACEMENT_X, tessera.REACTION_X),
                              (tessera.DISPLACEMENT_Y, tessera.REACTION_Y),
                              (tessera.DISPLACEMENT_Z, tessera.REACTION_Z)):
            node.AddDof(dof, reaction)
        if node.Z0 == 0.0:
            for dof in (tessera.DISPLACEMENT_X, tessera.DISPLACEMENT_Y, tessera.DISPLACEMENT_Z):
                node.Fix(dof)
        else:
            node.SetSolutionStepValue(tessera.VELOCITY_X, 0.1 * math.sin(3.0 * node.Y0) * node.Z0)
            node.SetSolutionStepValue(tessera.VELOCITY_Y, 0.1 * math.cos(2.0 * node.X0) * node.Z0)
    mp.ProcessInfo[tessera.TIME] = 0.0
    return model, mp, element_id


def main():
    kind = sys.argv[1] if len(sys.argv) > 1 else "hex8"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    steps = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    if kind not in ("hex8", "tet4"):
        raise SystemExit("usage: explicit_element_throughput.py hex8|tet4 [n] [steps]")
    model, mp, n_elements = build(kind, n)
    builder = structural.ResidualBasedEliminationBuilderAndSolver(
        structural.CreateLinearSolver(tessera.Parameters('{"solver_type": "sparse_lu"}')))
    strategy = structural.ExplicitCentralDifferencesStrategy(mp, builder, compute_reactions=False)
    strategy.Initialize()
    dt = 0.5 * structural.EstimateCriticalTimeStep(mp)
    mp.CloneTimeStep(dt)
    strategy.Solve()  # set-up (dof numbering, colouring, mass) outside the timing
    start = time.perf_counter()
    for step in range(2, steps + 2):
        mp.CloneTimeStep(step * dt)
        strategy.Solve()
    elapsed = time.perf_counter() - start
    rate = n_elements * steps / elapsed
    print(f"{kind} elements={n_elements} steps={steps} threads={os.environ.get('OMP_NUM_THREADS', '?')} "
          f"time={elapsed:.3f}s updates/s={rate:.3e}")


if __name__ == "__main__":
    main()
