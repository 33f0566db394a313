"""V4.4 of the thesis (§4.5.3, Table 4.3): four spheres and a Neo-Hookean
prism hung from one node in a closed rigid box, no friction, e = 1, gravity
[0, -1, 0] m/s², Δt = 5e-5 s, search every step; the coupled energy balance
E_T (thesis 4.81 with the digest's errata) should stay constant.

The thesis gives the materials and the mesh (4 x 4 x 20 hexahedra) but not
the sizes; here: a 1 x 5 x 1 m prism (its top corner node fixed), spheres of
R 0.6 m starting at 2-3 m/s, a 6 x 8 x 6 m box of four-node rigid walls
(E 1e20) that stays under WallForceTransfer "direct" while the prism's skin
takes the chosen transfer.

    PYTHONPATH=build/python OMP_NUM_THREADS=1 /usr/bin/python3 \\
        applications/coupling/benchmarks/v4_4_prism_in_box.py [--end-time 0.5] \\
        [--transfer area_distributed|direct_interpolation] [--time-step 5e-5] \\
        [--adm-force thesis|energy_gradient]

prints E_T every 0.05 s and its drift (max |E_T - E_T(0)| over the largest
term, coupled_energy.py), and writes prism_coupled_energy.dat/.png in a
temporary folder (its path is printed). About 12.5 s of CPU per 0.5 s on one
core (13 s with --adm-force energy_gradient).
"""
import argparse
import json
import os
import pathlib
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "python"))

import numpy as np  # noqa: E402

import tessera  # noqa: E402
import tessera.coupling  # noqa: E402
from coupled_decks import block_mesh, dem_files, structure_files  # noqa: E402

SPHERES = [(-1.8, 1.0, 0.3, 0.6, (3.0, 0.0, 0.5)), (1.9, -1.0, -0.4, 0.6, (-2.0, 1.0, 0.0)),
           (-1.5, -2.2, 1.2, 0.6, (1.0, 2.0, -1.0)), (1.4, 1.9, -1.5, 0.6, (-1.5, -1.0, 2.0))]
BOX_LOW, BOX_HIGH = (-3.0, -4.0, -3.0), (3.0, 4.0, 3.0)


def write_folder(folder, end_time, time_step=5e-5):
    nodes, elements = block_mesh((-0.5, -2.5, -0.5), (1.0, 5.0, 1.0), (4, 20, 4))
    top = [i for i, x in nodes.items() if x == (-0.5, 2.5, -0.5)]
    structure_files(folder, "prism", nodes, elements, "TotalLagrangianElement3D8N", young=5e6,
                    poisson=0.2, density=1000.0, fixed_nodes=top, end_time=end_time,
                    time_step=time_step, gravity=(0.0, -1.0, 0.0))
    materials = json.loads((folder / "StructuralMaterials.json").read_text())
    materials["properties"][0]["Material"]["constitutive_law"]["name"] = "HyperElastic3DLaw"
    (folder / "StructuralMaterials.json").write_text(json.dumps(materials))
    dem_files(folder, "prism", SPHERES, density=1500.0, young=1e6, poisson=0.2, restitution=1.0,
              friction=0.0, end_time=end_time, time_step=time_step, gravity=(0.0, -1.0, 0.0))
    corners = [(x, y, z) for z in (BOX_LOW[2], BOX_HIGH[2]) for y in (BOX_LOW[1], BOX_HIGH[1])
               for x in (BOX_LOW[0], BOX_HIGH[0])]
    faces = [(1, 2, 4, 3), (5, 6, 8, 7), (1, 2, 6, 5), (3, 4, 8, 7), (1, 3, 7, 5), (2, 4, 8, 6)]
    with open(folder / "prismDEM_FEM_boundary.mdpa", "w") as f:
        f.write("Begin Properties 0\nEnd Properties\nBegin Nodes\n")
        f.writelines(f"  {k + 1} {x} {y} {z}\n" for k, (x, y, z) in enumerate(corners))
        f.write("End Nodes\nBegin Conditions RigidFace3D4N\n")
        f.writelines(f"  {k + 1} 0 {' '.join(map(str, face))}\n" for k, face in enumerate(faces))
        f.write("End Conditions\nBegin SubModelPart Box\n Begin SubModelPartNodes\n")
        f.writelines(f"  {k + 1}\n" for k in range(8))
        f.write(" End SubModelPartNodes\n Begin SubModelPartConditions\n")
        f.writelines(f"  {k + 1}\n" for k in range(6))
        f.write(" End SubModelPartConditions\nEnd SubModelPart\n")
    materials = json.loads((folder / "MaterialsDEM.json").read_text())
    materials["materials"].append({"material_name": "box", "material_id": 3,
                                   "Variables": {"YOUNG_MODULUS": 1e20, "POISSON_RATIO": 0.2}})
    relation = dict(materials["material_relations"][0]["Variables"])
    materials["material_relations"].append({"material_names_list": ["balls", "box"],
                                            "material_ids_list": [1, 3], "Variables": relation})
    materials["material_assignation_table"].append(["RigidFacePart.Box", "box"])
    (folder / "MaterialsDEM.json").write_text(json.dumps(materials))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--end-time", type=float, default=0.5)
    parser.add_argument("--transfer", default="area_distributed",
                        choices=("area_distributed", "direct_interpolation"))
    parser.add_argument("--time-step", type=float, default=5e-5,
                        help="the common step (the thesis: 5e-5 s); halving it tells the "
                        "time discretisation's share of the drift from the transfer's")
    parser.add_argument("--adm-force", default="thesis", choices=("thesis", "energy_gradient"),
                        help="ProjectParametersCoupling.json's adm_force")
    args = parser.parse_args()
    folder = pathlib.Path(tempfile.mkdtemp(prefix="v4_4_prism_"))
    write_folder(folder, args.end_time, args.time_step)
    os.chdir(folder)
    stage = tessera.coupling.DemStructuresCouplingAnalysis(
        tessera.Model(), tessera.Parameters.FromFile("ProjectParameters.json"),
        tessera.Parameters.FromFile("ProjectParametersDEM.json"),
        {"echo_level": 0, "energy_samples": 1000, "transfer_method": args.transfer,
         "adm_force": args.adm_force})
    stage.Initialize()
    report = 0.05
    while stage.KeepAdvancingSolutionLoop():
        stage.AdvanceInTime()
        stage.InitializeSolutionStep()
        stage.SolveSolutionStep()
        stage.FinalizeSolutionStep()
        if stage.time >= report - 1e-12:
            print(f"t = {stage.time:.3f} s  E_T = {stage.energy.rows[-1][-1]:.2f} J", flush=True)
            report += 0.05
    stage.Finalize()
    total = np.asarray(stage.energy.rows)[:, -1]
    print(f"{args.transfer}: E_T(0) = {total[0]:.2f} J, E_T(end) = {total[-1]:.2f} J "
          f"({100 * (total[-1] - total[0]) / abs(total[0]):+.2f} %), drift "
          f"{100 * stage.energy.Drift():.2f} % of the largest term; files in {folder}")


if __name__ == "__main__":
    main()
