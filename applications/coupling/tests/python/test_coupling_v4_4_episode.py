"""Thesis V4.4 (§4.5.3; issue 38: E_T within 1 % of the initial total
energy): the whole run, and its first sphere-prism contact alone. V4.4's
prism (1 x 5 x 1 m, 4 x 4 x 20 Neo-Hookean hexahedra, hung from one corner
node, gravity -1 m/s²) struck near its edge z = 0.5 m by V4.4's first
sphere (R 0.6 m, E 1e6, 1500 kg/m3, e = 1, no friction), started just
before the contact where it is in the full run at 0.23 s. The error of the
thesis' ADM on this contact does not depend on the step
(benchmarks/v4_4_prism_in_box.py halves it to the same joules), so the
episode takes Δt = 2.5e-4 s: 1200 steps.

Measured on the episode (E_T(0) = 7629 J, largest stored contact energy
2258-2600 J): the thesis' ADM (B.1-B.2) loses 294 J (worst 332 J, 4.4 %);
adm_force "energy_gradient" (every force the gradient of one stored
energy, dem/strategies/adm_energy_gradient.cpp) 0.01 J at worst.
"""
import json

import numpy as np
import pytest

import tessera

from coupled_decks import block_mesh, dem_files, structure_files

STEP, END = 2.5e-4, 0.3
SPHERE = (-1.12, 0.97, 0.41, 0.6, (3.0, -0.23, 0.5))


def _episode(project, adm_force):
    """E_T(0), max |E_T - E_T(0)|, the largest stored contact energy and the
    last one, over the episode."""
    import tessera.coupling
    nodes, elements = block_mesh((-0.5, -2.5, -0.5), (1.0, 5.0, 1.0), (4, 20, 4))
    top = [i for i, x in nodes.items() if x == (-0.5, 2.5, -0.5)]
    structure_files(project, "prism", nodes, elements, "TotalLagrangianElement3D8N", young=5e6,
                    poisson=0.2, density=1000.0, fixed_nodes=top, end_time=END, time_step=STEP,
                    gravity=(0.0, -1.0, 0.0))
    materials = json.loads((project / "StructuralMaterials.json").read_text())
    materials["properties"][0]["Material"]["constitutive_law"]["name"] = "HyperElastic3DLaw"
    (project / "StructuralMaterials.json").write_text(json.dumps(materials))
    dem_files(project, "prism", [SPHERE], density=1500.0, young=1e6, poisson=0.2, restitution=1.0,
              friction=0.0, end_time=END, time_step=STEP, gravity=(0.0, -1.0, 0.0))
    stage = tessera.coupling.DemStructuresCouplingAnalysis(
        tessera.Model(), tessera.Parameters.FromFile(str(project / "ProjectParameters.json")),
        tessera.Parameters.FromFile(str(project / "ProjectParametersDEM.json")),
        {"echo_level": 0, "energy_samples": 100000, "adm_force": adm_force})
    stage.Run()
    rows = np.asarray(stage.energy.rows)
    total = rows[:, -1]
    return total[0], np.max(np.abs(total - total[0])), rows[:, 7].max(), rows[-1, 7]


def test_v4_4_one_contact_episode_keeps_the_total_energy_within_one_percent(project):
    """Issue 38's bound on V4.4, |E_T - E_T(0)| <= 1 % of E_T(0), over one
    episode, with the energy-consistent ADM (measured: 0.01 J of 7629 J)."""
    e0, worst, peak, stored_at_end = _episode(project, "energy_gradient")
    print(f"E_T(0) {e0:.2f} J, worst |dE_T| {worst:.2f} J, peak stored {peak:.1f} J")
    assert peak > 1000.0 and stored_at_end == 0.0  # one whole episode: contact, then apart
    assert worst <= 0.01 * e0


def test_v4_4_episode_tells_the_thesis_adm_from_an_energy_consistent_one(project):
    """The episode can fail: the thesis' ADM forces (the masters' normal
    forces scaled by A_m/A_T, their reactions at the faces' intersection
    centroids) do work the stored energy does not account for where the
    sphere presses near the prism's edge, and lose more than 1 % on it
    (measured 332 J at worst, 4.4 % of E_T(0))."""
    e0, worst, peak, stored_at_end = _episode(project, "thesis")
    print(f"E_T(0) {e0:.2f} J, worst |dE_T| {worst:.2f} J, peak stored {peak:.1f} J")
    assert peak > 1000.0 and stored_at_end == 0.0
    assert worst > 0.01 * e0


def test_v4_4_whole_run_keeps_the_total_energy_within_one_percent(tmp_path):
    """V4.4 itself (benchmarks/v4_4_prism_in_box.py: four spheres, the prism,
    a 6 x 8 x 6 m rigid box, Δt 5e-5 s as the thesis, 0.5 s, about 20 s on one
    core) with adm_force "energy_gradient": issue 38's 1 % of E_T(0) at every
    sample (measured: -0.003 % at the end, 0.02 % at worst)."""
    import importlib.util
    import os
    import tessera.coupling
    path = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "v4_4_prism_in_box.py")
    spec = importlib.util.spec_from_file_location("v4_4_prism_in_box", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.write_folder(tmp_path, 0.5)
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        stage = tessera.coupling.DemStructuresCouplingAnalysis(
            tessera.Model(), tessera.Parameters.FromFile("ProjectParameters.json"),
            tessera.Parameters.FromFile("ProjectParametersDEM.json"),
            {"echo_level": 0, "energy_samples": 1000, "adm_force": "energy_gradient"})
        stage.Run()
    finally:
        os.chdir(here)
    rows = np.asarray(stage.energy.rows)
    total = rows[:, -1]
    worst = np.max(np.abs(total - total[0]))
    print(f"E_T(0) {total[0]:.2f} J, worst |dE_T| {worst:.2f} J, end {total[-1] - total[0]:+.2f} J")
    assert rows[:, 7].max() > 1000.0  # the spheres did press on the prism
    assert worst <= 0.01 * total[0]
