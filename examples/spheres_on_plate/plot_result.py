"""Runs the spheres_on_plate example from Python and draws its result:

    PYTHONPATH=build/python /usr/bin/python3 examples/spheres_on_plate/plot_result.py [out.png]

Left, the plate's top at the end (colour: vertical displacement, ×20) with the
spheres; right, the histories of the plate centre's deflection, the vertical
force of the spheres on the plate and their weight, and the kinetic energies
of spheres and plate. Needs matplotlib (python3-matplotlib). The run itself
is the same as `tessera run examples/spheres_on_plate` (which writes ParaView
files to VTK_Output/ and spheres_on_plate_Post_Files/).
"""
import os
import shutil
import sys
import tempfile

import numpy as np

import tessera
import tessera.coupling

HERE = os.path.dirname(os.path.abspath(__file__))
SCALE = 20.0  # displacement magnification of the picture


def run():
    folder = tempfile.mkdtemp(prefix="spheres_on_plate_")
    for name in os.listdir(HERE):
        if name.endswith((".json", ".mdpa")):
            shutil.copy(os.path.join(HERE, name), folder)
    os.chdir(folder)
    model = tessera.Model()
    parameters = tessera.Parameters.FromFile("ProjectParameters.json")
    parameters["output_processes"].RemoveValue("vtk_output")  # the picture needs no files
    dem_parameters = tessera.Parameters.FromFile("ProjectParametersDEM.json")
    dem_parameters["post_vtk_option"].SetBool(False)
    stage = tessera.coupling.DemStructuresCouplingAnalysis(model, parameters, dem_parameters,
                                                           "ProjectParametersCoupling.json")
    stage.Initialize()
    plate = model.GetModelPart("Structure")
    centre = plate.GetSubModelPart("Centre").NodeIds()[0]
    masses = stage.NodalMasses()
    history = []
    while stage.KeepAdvancingSolutionLoop():
        stage.AdvanceInTime()
        stage.InitializeSolutionStep()
        stage.SolveSolutionStep()
        stage.FinalizeSolutionStep()
        stage.OutputSolutionStep()
        particles = stage.GetDEMStage().GetStrategy().Particles
        v = np.asarray(particles.velocity)
        spheres_kinetic = 0.5 * float(np.sum(np.asarray(particles.mass) * np.sum(v * v, axis=1)))
        plate_v = plate.NodalArray(tessera.VELOCITY)
        plate_kinetic = 0.5 * float(np.sum(masses * np.sum(plate_v * plate_v, axis=1)))
        history.append((stage.time, plate.GetNode(centre).GetSolutionStepValue(tessera.DISPLACEMENT_Z),
                        stage.skin.TotalForceOnStructure()[2], spheres_kinetic, plate_kinetic))
    stage.Finalize()
    weight = float(np.sum(np.asarray(stage.GetDEMStage().GetStrategy().Particles.mass))) * 9.81
    return model, np.asarray(history), weight


def draw(model, history, weight, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plate = model.GetModelPart("Structure")
    x = plate.NodalInitialCoordinates()
    u = plate.NodalArray(tessera.DISPLACEMENT)
    top = x[:, 2] > -1e-9
    spheres = model.GetModelPart("SpheresPart")
    centres = np.array([n.Coordinates() for n in spheres.Nodes])
    radii = np.array([n.GetSolutionStepValue(tessera.RADIUS) for n in spheres.Nodes])

    figure = plt.figure(figsize=(12, 4.6))
    view = figure.add_subplot(1, 2, 1, projection="3d")
    points = x[top] + SCALE * u[top]
    shown = view.scatter(points[:, 0], points[:, 1], points[:, 2], c=1000.0 * u[top, 2], cmap="viridis",
                         s=12)
    figure.colorbar(shown, ax=view, shrink=0.6, label="plate u_z (mm)")
    sphere_z = centres[:, 2] + (SCALE - 1.0) * np.minimum(centres[:, 2] - radii, 0.0)
    view.scatter(centres[:, 0], centres[:, 1], sphere_z, s=(radii / 0.04) * 120.0, color="tab:orange",
                 edgecolors="k", depthshade=False)
    view.set_title(f"t = {history[-1, 0]:.2f} s (displacements × {SCALE:g})")
    view.set_xlabel("x (m)")
    view.set_ylabel("y (m)")
    view.set_zlim(-0.15, 0.3)

    left = figure.add_subplot(2, 2, 2)
    left.plot(history[:, 0], 1000.0 * history[:, 1], color="tab:blue")
    left.set_ylabel("centre u_z (mm)")
    force = left.twinx()
    force.plot(history[:, 0], -history[:, 2], color="tab:red", lw=0.8, label="force of spheres")
    force.axhline(weight, color="tab:red", ls="--", lw=0.8, label="their weight")
    force.set_ylabel("force on plate (N)", color="tab:red")
    force.legend(loc="upper right", fontsize=8)
    energy = figure.add_subplot(2, 2, 4, sharex=left)
    energy.plot(history[:, 0], history[:, 3], label="spheres, kinetic")
    energy.plot(history[:, 0], history[:, 4], label="plate, kinetic")
    energy.set_xlabel("t (s)")
    energy.set_ylabel("energy (J)")
    energy.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=110)


if __name__ == "__main__":
    out = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "spheres_on_plate.png"))
    model, history, weight = run()
    draw(model, history, weight, out)
    print(f"wrote {out}")
