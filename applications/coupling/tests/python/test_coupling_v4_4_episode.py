"""Thesis V4.4 (§4.5.3; issue 38: E_T within 1 % of the initial total
energy) cut to its first sphere-prism contact: V4.4's prism (1 x 5 x 1 m,
4 x 4 x 20 Neo-Hookean hexahedra, hung from one corner node, gravity
-1 m/s²) struck near its edge z = 0.5 m by V4.4's first sphere (R 0.6 m,
E 1e6, 1500 kg/m3, e = 1, no friction), started just before the contact
where it is in the full run at 0.23 s. The error of the sphere-skin contact
does not depend on the step (benchmarks/v4_4_prism_in_box.py halves it to
the same joules), so the test takes Δt = 2.5e-4 s: 1200 steps, one episode.

Measured (E_T(0) = 7629 J, largest stored contact energy about 2600 J):
ADM as the thesis gives it loses 294 J over the episode (worst -332 J,
drift 5.3 %); with adm_sphere_force "energy_gradient" (the sphere's force the
exact gradient of the stored energy) -201 J (drift 3.3 %); what is left is
the nodes' side: the same force put on each face at the foot of the
sphere's centre instead of its intersection centroid gains +303 J.
"""
import json

import numpy as np
import pytest

import tessera

from coupled_decks import block_mesh, dem_files, structure_files

STEP, END = 2.5e-4, 0.3
SPHERE = (-1.12, 0.97, 0.41, 0.6, (3.0, -0.23, 0.5))


def _episode(project, adm_sphere_force):
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
        {"echo_level": 0, "energy_samples": 100000, "adm_sphere_force": adm_sphere_force})
    stage.Run()
    rows = np.asarray(stage.energy.rows)
    total = rows[:, -1]
    return total[0], np.max(np.abs(total - total[0])), rows[:, 7].max(), rows[-1, 7]


@pytest.mark.xfail(strict=True, reason="issue 38: ADM's sphere-skin contact is not "
                   "energy-consistent on a denting skin (5.3 % measured, 1 % asked)")
def test_v4_4_one_contact_episode_keeps_the_total_energy_within_one_percent(project):
    """Issue 38's bound on V4.4, |E_T - E_T(0)| <= 1 % of E_T(0), over one
    episode; the default (the thesis' ADM) does not meet it yet."""
    e0, worst, peak, stored_at_end = _episode(project, "thesis")
    print(f"E_T(0) {e0:.2f} J, worst |dE_T| {worst:.2f} J, peak stored {peak:.1f} J")
    assert peak > 1000.0 and stored_at_end == 0.0  # one whole episode: contact, then apart
    assert worst <= 0.01 * e0


def test_v4_4_episode_energy_gradient_option_loses_less_than_the_thesis_force(project):
    """adm_sphere_force "energy_gradient" leaves only the nodes' share of the
    error (docstring): on the episode it loses less than the thesis' force
    (measured 209 J against 332 J at worst, 201 J against 294 J at the end;
    the bound, 250 J, between them), though not yet within issue 38's 1 %."""
    e0, worst, peak, stored_at_end = _episode(project, "energy_gradient")
    print(f"E_T(0) {e0:.2f} J, worst |dE_T| {worst:.2f} J, peak stored {peak:.1f} J")
    assert peak > 1000.0 and stored_at_end == 0.0
    assert worst < 250.0
