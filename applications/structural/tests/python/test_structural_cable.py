"""CableElement3D2N (Kratos' tension-only bar) and the explicit critical step
of bars and cables."""
import numpy as np
import pytest

import tessera
import tessera.structural as structural

from structural_meshes import add_dofs, new_model_part


def bar(element_name, stretch, prestress=0.0, density=2.0):
    """A bar of length 2 along (1, 2, 2)/3, its second node moved to stretch x
    its length; returns the element's local residual and the model part."""
    model = tessera.Model()
    mp = new_model_part(model)
    e = np.array([1.0, 2.0, 2.0]) / 3.0
    mp.CreateNewNode(1, 0.0, 0.0, 0.0)
    mp.CreateNewNode(2, *(2.0 * e))
    properties = mp.GetProperties(1)
    properties[tessera.YOUNG_MODULUS] = 500.0
    properties[tessera.CROSS_AREA] = 0.01
    properties[tessera.DENSITY] = density
    if prestress:
        properties[structural.TRUSS_PRESTRESS_PK2] = prestress
    structural.SetConstitutiveLaw(properties, "TrussConstitutiveLaw")
    element = mp.CreateNewElement(element_name, 1, [1, 2], properties)
    add_dofs(mp)
    mp.GetNode(2).SetSolutionStepValue(tessera.DISPLACEMENT, list((stretch - 1.0) * 2.0 * e))
    return np.asarray(element.CalculateRightHandSide(mp.ProcessInfo)), mp, element


@pytest.mark.parametrize("stretch, prestress", [(1.1, 0.0), (1.02, 30.0), (0.99, 30.0)])
def test_a_cable_in_tension_is_the_truss(stretch, prestress):
    """Tension (S = E (λ² - 1)/2 + S_0 > 0): the cable's internal force is the
    truss' to the last bit (same formula)."""
    cable, _, _ = bar("CableElement3D2N", stretch, prestress)
    truss, _, _ = bar("TrussElement3D2N", stretch, prestress)
    assert np.any(truss != 0.0)
    assert np.array_equal(cable, truss)


@pytest.mark.parametrize("stretch, prestress", [(0.9, 0.0), (0.95, 10.0)])
def test_a_compressed_cable_is_slack(stretch, prestress):
    """Compression (S < 0): the truss pushes back, the cable carries nothing,
    force and stiffness zero; its mass stays (ρ A L / 2 per node)."""
    cable, mp, element = bar("CableElement3D2N", stretch, prestress)
    truss, _, _ = bar("TrussElement3D2N", stretch, prestress)
    assert np.linalg.norm(truss) > 0.0
    assert np.all(cable == 0.0)
    K = np.asarray(element.CalculateLeftHandSide(mp.ProcessInfo))
    assert np.all(K == 0.0)
    assert structural.ComputeStrainEnergy(mp) == 0.0
    assert np.asarray(element.CalculateLumpedMassVector(mp.ProcessInfo)).sum() == \
        pytest.approx(3 * 2.0 * 0.01 * 2.0, rel=1e-14)


def test_critical_time_step_of_bars_is_length_over_the_prestressed_wave_speed():
    """dt_crit of a bar = L / sqrt((E + S_0)/ρ) (axial speed, raised by a
    tensile prestress whose geometric stiffness carries transverse waves)."""
    _, mp, _ = bar("CableElement3D2N", 1.0, prestress=300.0)
    assert structural.EstimateCriticalTimeStep(mp) == pytest.approx(2.0 / np.sqrt((500.0 + 300.0) / 2.0),
                                                                   rel=1e-14)
    _, mp, _ = bar("TrussElement3D2N", 1.0)
    assert structural.EstimateCriticalTimeStep(mp) == pytest.approx(2.0 / np.sqrt(500.0 / 2.0), rel=1e-14)
