"""Kratos dem_benchmarks_2019 basic benchmark 12: rolling friction (Wensrich).
A sphere (R 0.0026, ρ 1, E 2.6e7, ROLLING_FRICTION 0.2) launched at
VELOCITY_X 0.15 on one RigidFace3D4N quad under gravity, Forward_Euler with
Δt 5e-7 s; the legacy deck runs unchanged with Kratos' driver settings
(problem_name benchmark12, ProjectParametersROLLFR.json, 0.1 s; README of
the case).

Reference: Kratos' series paper_data/benchmark12_graph.dat, ANGULAR_VELOCITY_Z
every 1e-4 s (200 steps). The driver's criterion: Σ|DEM − ref| / Σ|ref| < 5 %
over the first 1000 samples (measured 1.87 %). Once the sphere rolls
(t ≥ 0.01 s) the spin decays linearly to zero; there we also check the
samples to 0.05 rad/s (measured ≤ 0.036 on values of 3.4–35.8 rad/s) and that
the sphere stays at rest once the reference reaches zero (t ≥ 0.078 s).
"""
import numpy as np

import tessera


def test_kratos_basic_benchmark_12_rolling_friction(in_copy):
    from tessera.dem import DEMAnalysisStage
    in_copy("dem_benchmarks_2019/basic_benchmarks")
    parameters = tessera.Parameters.FromFile("ProjectParametersROLLFR.json")
    parameters["problem_name"].SetString("benchmark12")
    parameters["FinalTime"].SetDouble(0.1)
    spin = []

    class Stage(DEMAnalysisStage):
        def FinalizeSolutionStep(self):
            super().FinalizeSolutionStep()
            if self.GetStrategy().StepCount() % 200 == 0:  # every 1e-4 s, the driver's sampling
                (node,) = list(self.spheres_model_part.Nodes)
                spin.append(node.GetSolutionStepValue(tessera.ANGULAR_VELOCITY)[2])

    Stage(tessera.Model(), parameters).Run()
    reference = np.loadtxt("paper_data/benchmark12_graph.dat")[:1000, 1]
    spin = np.array(spin[:1000])
    assert len(spin) == 1000
    assert np.abs(spin - reference).sum() / np.abs(reference).sum() < 0.05
    rolling = slice(100, 760)
    np.testing.assert_allclose(spin[rolling], reference[rolling], rtol=0, atol=0.05)
    assert np.all(reference[780:] == 0.0) and np.all(np.abs(spin[780:]) < 1e-6)
