"""Validation of the plane-stress Quadrilateral4 (SmallDisplacementElement2D4N)
with line loads: Cook's membrane and the Timoshenko–Goodier cantilever under
mesh refinement. The cases are in structural_validation_cases.py; the full
refinement study is applications/structural/benchmarks/plane_stress_refinement.py."""
import pytest

from structural_validation_cases import (COOK_REFERENCE_TIP_DISPLACEMENT, TimoshenkoGoodierCantilever,
                                         cook_tip_displacement)


def test_cook_membrane_coarse_meshes_match_the_published_q4_values():
    """The standard bilinear Q4 (2x2 Gauss) on n x n meshes, as tabulated by
    Simo & Rifai (IJNME 29 (1990) 1595): 11.845, 18.299, 22.08, 23.43. They
    are printed to 3-4 digits, hence the tolerance of half a unit in the last."""
    for n, published, digit in ((2, 11.845, 1e-3), (4, 18.299, 1e-3), (8, 22.08, 1e-2),
                                (16, 23.43, 1e-2)):
        assert cook_tip_displacement(n) == pytest.approx(published, abs=0.5 * digit), n


def test_cook_membrane_fine_mesh_within_one_percent():
    """The brief: 23.96 (the converged value, Zienkiewicz & Taylor) within 1 %
    on a fine mesh. Q4 is stiff (shear locking of the skewed cells), so the
    values rise monotonically towards it; 64 x 64 gives 23.92 (-0.2 %)."""
    previous = 0.0
    for n in (8, 16, 32, 64):
        value = cook_tip_displacement(n)
        assert value > previous
        previous = value
    assert previous == pytest.approx(COOK_REFERENCE_TIP_DISPLACEMENT, rel=1e-2)
    assert previous < COOK_REFERENCE_TIP_DISPLACEMENT  # from below: conforming and stiff


def test_cantilever_tip_deflection_converges_to_timoshenko_goodier():
    """Tip deflection of a 10 x 2 cantilever (nu = 0.3, plane stress) against
    the elasticity solution P L^3/(3EI) + (4 + 5 nu) P D^2 L/(24 E I) = 0.51375
    (Euler–Bernoulli alone: 0.5). Halving the element size must divide the
    error by about 4 (second-order convergence of the bilinear element in
    displacement; accepted: a factor > 3.5), and the 160 x 32 mesh must be
    within 0.2 % (it gives -0.14 %)."""
    beam = TimoshenkoGoodierCantilever()
    exact = beam.tip_deflection()
    assert exact == pytest.approx(0.51375, rel=1e-12)
    assert beam.euler_bernoulli_tip_deflection() == pytest.approx(0.5, rel=1e-12)
    errors = [abs(beam.fe_tip_deflection(10 * k, 2 * k) - exact) / exact for k in (2, 4, 8, 16)]
    for coarse, fine in zip(errors, errors[1:]):
        assert coarse / fine > 3.5, errors
    assert errors[-1] < 2e-3, errors
