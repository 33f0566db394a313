"""Kratos' DEM continuum benchmarks with the DEM_Dempack bond law, run from
their decks unchanged (../shared/kratos_cases; README of each case):

- benchmark 20 (compression) and 22 (tension with damage): two spheres of
  radius 1 bonded at touch, pushed / pulled at 0.1 m/s. Reference: the
  closed form of the README (k_n = E π min(R)² / d_0 = 1.5708e9 N/m; bm22
  elastic to σ_t A = 3.14159e6 N at δ = 2e-3 m, linear softening to zero at
  (1 + DAMAGE_FACTOR) δ = 3.6e-3 m, 0 after), as the .dat files print it
  (F at t_n = k_n v (t_n - Δt)). Checked over the whole curves (Kratos checks
  only the first 1000 lines): every sample within the reference's printing
  precision (6 significant digits: 6 N), the normalised L1 error below 1e-5
  (Kratos' gate is 5e-2).
- benchmark 27: UCS of a 52-sphere cylinder between rigid platens closing at
  0.1 m/s. Reference: the top platen's ELASTIC_FORCES_Y series of Kratos
  (reference_rigid_graph_benchmark27.dat, every 5e-4 s), with Kratos' linear
  contact springs for the platens (LinearContactStiffness "kratos"). Kratos'
  DEM_Dempack as its source has it: the bonds its first search makes (each
  sphere searching with R + SearchTolerance: gaps up to 2 × 0.01 m, 203
  bonds), the section π min(R)² unweighted, normal dashpot 2 (1 - e)
  sqrt(m* k_n) and none in shear, and the lever arms of Kratos' continuum
  particle (BondLeverArms "kratos": the torques about R_i - (L - d) / 2, the
  slip at R_i - (R_i + R_j - d) / 2). Gated as Kratos gates it: the
  normalised L1 error of the platen force below 5 % (DEM_benchmarks_class.py,
  ApplyErrorTolerance) over Kratos' whole series to 0.05 s, and, as the
  case's README recommends, the peak within 5 % at 0.0295 s to one graph
  interval, then the brittle drop within 2 ms. The same checks with Kratos'
  broken bonds (BrokenBonds "kratos") are not met (expected to fail,
  strict: docs/validation.md).
"""
import os

import numpy as np
import pytest

import tessera

CASES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "..", "shared", "kratos_cases")
needs_cases = pytest.mark.skipif(not os.path.isdir(CASES), reason="shared/kratos_cases not present")


def RunTwoSpheres(number):
    from tessera.dem import DEMAnalysisStage
    parameters = tessera.Parameters.FromFile("ProjectParametersDEMCONT.json")
    parameters["problem_name"].SetString(f"benchmark{number}")
    parameters["FinalTime"].SetDouble(0.01 if number == 20 else 0.05)
    samples = []

    class Stage(DEMAnalysisStage):
        def FinalizeSolutionStep(self):
            super().FinalizeSolutionStep()
            bonds = self.GetStrategy().BondArrays()
            # ELASTIC_FORCES_X of node 141 (the second sphere, +x of the first):
            # the bond's normal force, compression positive.
            samples.append((self.time, float(bonds["normal_force"][0]), int(bonds["state"][0])))

    Stage(tessera.Model(), parameters).Run()
    return np.array(samples)


@needs_cases
@pytest.mark.parametrize("number", [20, 22])
def test_kratos_benchmarks_20_and_22_two_dempack_spheres_follow_the_closed_form(in_copy, number):
    in_copy("benchmark20_22_dempack_two_spheres")
    samples = RunTwoSpheres(number)
    reference = np.loadtxt(f"reference_graph_benchmark{number}.dat")
    count = min(len(samples), len(reference))
    assert count >= (999 if number == 20 else 4990)
    force, ref = samples[:count, 1], reference[:count, 1]
    np.testing.assert_allclose(samples[:count, 0], reference[:count, 0], rtol=1e-9)
    # The reference prints 6 significant digits: at most 5 N off for these
    # forces (measured 4.99 N); the L1 error measured 1.3e-6 and 1.1e-6.
    assert np.max(np.abs(force - ref)) <= 6.0
    l1 = np.sum(np.abs(force - ref)) / np.sum(np.abs(ref))
    assert l1 < 1e-5, l1
    if number == 22:
        assert np.min(force) == pytest.approx(-3.14159e6, rel=1e-5)  # σ_t A
        broken = np.nonzero(samples[:, 2])[0][0]
        assert samples[broken, 2] == 4  # tension failure
        assert (force[broken:] == 0.0).all()
        # Failure at u^f = 3.6e-3 m, which the opening 0.1 (t - Δt) reaches at the
        # sample t = 0.03601 s (README); the force is 0 there already (D = 1), the
        # state may flip one step later by the round-off of the opening.
        assert samples[broken, 0] == pytest.approx(0.03601, abs=1.01e-5)


@needs_cases
@pytest.mark.parametrize("broken", [
    "frictional",
    # Kratos' broken bonds as its DEM_Dempack source has them (the shear force
    # kept, turned with the pair, in tension too while the spheres stay
    # neighbours): the specimen fails late, peak 377,926 N at 0.032 s, L1
    # 31.4 % over the whole series (docs/validation.md): Kratos' gate is not
    # met. Strict: the test reports when it passes.
    pytest.param("kratos", marks=pytest.mark.xfail(
        strict=True, raises=AssertionError, reason="BrokenBonds kratos: L1 31 % over Kratos' series, the failure late")),
])
def test_kratos_benchmark_27_ucs_of_52_dempack_spheres(in_copy, broken):
    from tessera.dem import DEMAnalysisStage
    in_copy("benchmark27_ucs_dempack_52spheres")
    parameters = tessera.Parameters.FromFile("ProjectParametersUCS.json")
    parameters["problem_name"].SetString("benchmark27")
    # Kratos' whole series, to 0.05 s, as DEM_benchmarks_class.py gates it.
    parameters["FinalTime"].SetDouble(0.05)
    parameters.AddString("BrokenBonds", broken)
    # The deck leaves PoissonEffectOption and ShearStrainParallelToBondOption
    # at Kratos' default true; Tessera refuses them for the continuum strategy
    # (docs/user_guide.md). Switching them off changes nothing here: in Kratos
    # they are DEM_KDEM's terms (DEM_Dempack keeps the continuum law's empty
    # AddPoissonContribution and never calls the shear-strain term).
    for key in ("PoissonEffectOption", "ShearStrainParallelToBondOption"):
        parameters.AddBool(key, False)
    # Kratos' springs of its linear contact law (platen contacts; Tessera's key).
    parameters.AddString("LinearContactStiffness", "kratos")
    # Kratos' lever arms (Tessera's key): with the contact point on the line of
    # centres the specimen failed 3 ms late, 18 % high (L1 35.7 %).
    parameters.AddString("BondLeverArms", "kratos")
    reference = np.loadtxt("reference_rigid_graph_benchmark27.dat")
    samples, made = [], []

    class Stage(DEMAnalysisStage):
        def FinalizeSolutionStep(self):
            super().FinalizeSolutionStep()
            step = self.GetStrategy().StepCount()
            if step == 1:  # the bonds made (the bounding box may remove debris later)
                made.append(self.GetStrategy().NumberOfBonds())
            if step % 1000 == 0:  # every 5e-4 s, the runner's graph interval
                top = self.rigid_face_model_part.GetSubModelPart("1")
                force = sum(node.GetSolutionStepValue(tessera.ELASTIC_FORCES_Y) for node in top.Nodes)
                samples.append((self.time, force))

    stage = Stage(tessera.Model(), parameters)
    stage.Run()
    samples = np.array(samples)
    np.savetxt("tessera_rigid_graph_benchmark27.dat", samples)
    count = len(samples)
    assert count == len(reference)
    np.testing.assert_allclose(samples[:, 0], reference[:count, 0], rtol=1e-6)
    force, ref = np.abs(samples[:, 1]), np.abs(reference[:count, 1])
    peak = int(np.argmax(force))
    l1 = np.sum(np.abs(force - ref)) / np.sum(ref)
    elastic = (samples[:, 0] > 0.0172) & (samples[:, 0] < 0.0292)
    worst = np.max(np.abs(force[elastic] / ref[elastic] - 1.0))
    print("bonds", made[0], "peak", force[peak], "at", samples[peak, 0],
          "L1", l1, "elastic", worst)
    # Kratos bonds the 203 pairs whose gaps are below 2 SearchTolerance
    # (190 below one tolerance: the slope was 8 % low).
    assert made == [203]
    touch = samples[np.nonzero(force > 0.0)[0][0], 0]
    assert touch == pytest.approx(0.0095, abs=1e-9)
    # The elastic curve from 0.0175 s (after the touch's transient) to 0.029 s
    # (the last sample before Kratos' bonds fail), 24 samples: within 1 % of
    # Kratos' (measured 0.73 %; 0.45 % with the arms on the line of centres,
    # 8 % low with the old bond range and weighted sections).
    assert np.count_nonzero(elastic) == 24
    assert worst < 1e-2
    # The failure (README of the case, checks b and c): Kratos peaks at
    # 320,360 N at 0.0295 s and falls below 10 % of it within 2 ms (1.5 ms).
    # Measured: 320,274 N at 0.0295 s; 77,066 N 1.5 ms later, 14,991 N (below
    # 10 %) 2 ms later.
    assert force[peak] == pytest.approx(320360.0, rel=0.05)
    assert abs(samples[peak, 0] - 0.0295) <= 5e-4 + 1e-9
    after = (samples[:, 0] > samples[peak, 0]) & (samples[:, 0] <= samples[peak, 0] + 2e-3 + 1e-9)
    assert force[after].min() < 0.1 * force[peak]
    # Kratos' gate (DEM_benchmarks_class.py): L1 below 5 % over all 100
    # samples to 0.05 s. Measured with the frictional broken bonds 2.1 %: the
    # debris carries nothing from 0.032 s, as in Kratos, once a broken bond
    # whose spheres parted touches only where they touch (BrokenBonds; the
    # bonds that kept pushing at their rest length, across gaps of up to
    # 2 cm, left 6-26 kN on the platens to 0.039 s: 7.6 %).
    assert l1 < 0.05
