"""Where the coupled energy balance (coupled_energy.py, thesis 4.75-4.81)
goes wrong, measured apart: the structure's own energy against the work its
contact loads do; the rest (the DEM's energy with that work given away) is
the spheres' side of the contact.

Measured on thesis V4.4 (benchmarks/v4_4_prism_in_box.py, area distributed
method, 0.5 s, E_T(0) = 18,254 J, E_T(end) -293 J = -1.6 %): the
structure's energy minus the work of its DEM_NODAL_FORCE stays within
0.0009 J (5e-8) over the run; before the first sphere-prism contact
(0.22 s) the DEM alone (box walls, sphere pairs) keeps E_T to the printed
1e-4 J; so the whole drift sits in the sphere-skin contacts (DEM energy plus
work given: -6.48 J at 0.25 s, -312 J at 0.30 s, mid-contact, recovered to
+27 J at 0.35 s). Halving the step leaves it unchanged (-6.4829 against
-6.4832 J at 0.25 s, -312.337 against -312.338 J at 0.30 s): not the time
integration but the contact model, its force not the gradient of the energy
it stores (ADM's overlap from the faces' area-weighted mean plane, whose
weights change as the sphere moves, and the A_m/A_T scaling).
"""
import numpy as np
import pytest

import tessera

from coupled_decks import block_mesh, dem_files, structure_files

# Terms of the coupled balance that belong to the structure.
STRUCTURE_TERMS = ("fe_kinetic", "fe_strain", "fe_gravity", "fe_damping")


def _strike(project, transfer):
    """A free Neo-Hookean block (V4.4's prism material: TL hexahedra, E 5e6,
    nu 0.2, 1000 kg/m3; 0.5 m cube of 2 x 2 x 2) struck off-centre by a soft
    sphere (V4.4's: R 0.3 m, E 1e6, nu 0.2, 1500 kg/m3) at 3 m/s, e = 1, no
    friction, no gravity; the contact spans the top faces around a node."""
    import json
    import tessera.coupling
    nodes, elements = block_mesh((-0.25, -0.25, -0.5), (0.5, 0.5, 0.5), (2, 2, 2))
    structure_files(project, "block", nodes, elements, "TotalLagrangianElement3D8N", young=5e6,
                    poisson=0.2, density=1000.0, end_time=0.06, time_step=5e-5)
    materials = json.loads((project / "StructuralMaterials.json").read_text())
    materials["properties"][0]["Material"]["constitutive_law"]["name"] = "HyperElastic3DLaw"
    (project / "StructuralMaterials.json").write_text(json.dumps(materials))
    dem_files(project, "block", [(0.04, 0.07, 0.305, 0.3, (0.0, 0.0, -3.0))], density=1500.0,
              young=1e6, poisson=0.2, restitution=1.0, friction=0.0, end_time=0.06, time_step=5e-5)
    model = tessera.Model()
    stage = tessera.coupling.DemStructuresCouplingAnalysis(
        model, tessera.Parameters.FromFile(str(project / "ProjectParameters.json")),
        tessera.Parameters.FromFile(str(project / "ProjectParametersDEM.json")),
        {"echo_level": 0, "transfer_method": transfer})
    return model, stage


@pytest.mark.parametrize("transfer", ["area_distributed", "direct_interpolation"])
def test_the_structure_energy_changes_by_the_work_of_its_contact_loads(project, monkeypatch, transfer):
    """The structure's terms of the balance (lumped kinetic energy at the
    step's velocities, the strain energy of ComputeStrainEnergy) change by
    the work its contact loads do, sum of 1/2 (F_n + F_n+1) . (u_n+1 - u_n)
    (the trapezoidal work that central differences conserve to O(dt^2)),
    to 1e-5 of the largest work (measured in V4.4: 5e-8): the strain energy
    is the potential of the internal force and both energies are taken at
    the same time level. Whatever the coupled balance loses is on the
    DEM's side of the contact."""
    monkeypatch.chdir(project)
    model, stage = _strike(project, transfer)
    stage.Initialize()
    structure = stage.structure
    monitor = stage.energy

    def structure_energy():
        terms = monitor.Terms()
        return sum(terms[k] for k in STRUCTURE_TERMS)

    e0 = structure_energy()
    u_old = structure.NodalArray(tessera.DISPLACEMENT).copy()
    f_old = structure.NodalArray(tessera.DEM_NODAL_FORCE).copy()
    work, largest, worst = 0.0, 0.0, 0.0
    while stage.KeepAdvancingSolutionLoop():
        stage.AdvanceInTime()
        stage.InitializeSolutionStep()
        stage.SolveSolutionStep()
        stage.FinalizeSolutionStep()
        u = structure.NodalArray(tessera.DISPLACEMENT).copy()
        f = structure.NodalArray(tessera.DEM_NODAL_FORCE).copy()
        work += 0.5 * float(np.sum((f + f_old) * (u - u_old)))
        u_old, f_old = u, f
        largest = max(largest, abs(work))
        worst = max(worst, abs(structure_energy() - e0 - work))
    print(f"{transfer}: largest work {largest:.6g} J, worst |dE_FE - W| {worst:.3g} J")
    assert largest > 1.0  # the sphere struck the block
    assert worst < 1e-5 * largest
