"""Kratos' structural patch-test decks (sm_patch_tests) run unchanged, on a
copy of the case folder, through the same path as `tessera run`, and give the
values the case README states.

Each deck carries its own check_scalar_to_nodes_process (assertAlmostEqual with
places = 3, the Kratos test's tolerance), so a wrong value already fails the
run; the tests also compare the values with the analytic solutions more
tightly, with each tolerance's source stated."""
import os
import subprocess
import sys

import pytest

import tessera
import tessera.structural  # noqa: F401
from tessera.project import Project

SHEAR = "patch_test/small_disp/patch_test_2D_shear_tri_parameters.json"
TENSION = "patch_test/total_lagrangian/patch_test_3D_tension_hexa_parameters.json"


def run(folder, parameters):
    project = Project(folder, parameters)
    stage = project.Run()
    return project.model, stage


def test_2d_small_displacement_shear_patch(case_copy):
    folder = case_copy("sm_patch_tests")
    model, stage = run(folder, SHEAR)
    # README: u_y = gamma x with gamma = tau / G = 2.6e-3 (G = 1000 / 2.6), u_x = 0:
    # 7.8e-3 on the x = 3 edge (nodes 6, 8).
    edge = model.GetModelPart("Structure.LineLoad2D_Load_on_lines_Auto4")
    assert sorted(n.Id for n in edge.Nodes) == [6, 8]
    gamma = 1.0 / (1000.0 / (2.0 * 1.3))
    for node in model.GetModelPart("Structure").Nodes:
        u = node.GetSolutionStepValue(tessera.DISPLACEMENT)
        # Linear triangles reproduce a linear field exactly; what is left is the
        # follower effect of the line loads on the moved mesh (move_mesh_flag,
        # as Kratos): O(gamma^2) = 7e-6 relative, so 1e-7 absolute on u.
        assert u[1] == pytest.approx(gamma * node.X0, abs=1e-7), node.Id
        assert u[0] == pytest.approx(0.0, abs=1e-7), node.Id
    for node in edge.Nodes:
        assert round(abs(node.GetSolutionStepValue(tessera.DISPLACEMENT_Y) - 7.8e-3), 3) == 0
    # one Newton iteration: the problem is linear up to the follower effect,
    # which is below the residual tolerance (relative 1e-4)
    assert stage._GetSolver().GetSolutionStrategy().GetIterationNumber() == 1


def test_3d_total_lagrangian_tension_hexa_patch(case_copy):
    folder = case_copy("sm_patch_tests")
    model, stage = run(folder, TENSION)
    face = model.GetModelPart("Structure.SurfaceLoad3D_Load_on_surfaces_Auto1")
    assert sorted(n.Id for n in face.Nodes) == [1, 5, 6, 12]
    # README: (1 - nu^2) / E * sigma * L = 0.91 / 1000 * 3 = 2.73e-3, 3 decimals.
    for node in face.Nodes:
        u_x = node.GetSolutionStepValue(tessera.DISPLACEMENT_X)
        assert round(abs(u_x - 2.73e-3), 3) == 0
        # Closer: the finite-strain response differs from the small-strain value
        # by O(strain) = 1e-3 relative (plus the follower surface load on the
        # grown face), so within 0.5 % of it.
        assert u_x == pytest.approx(2.73e-3, rel=5e-3)
    # The supports (x = 3) carry the load: sum of REACTION_X = -SURFACE_LOAD x
    # the loaded face's current area (9 at rest; it grows by the lateral
    # Poisson expansion, u_y = -1.17e-3 over 3, so within 0.1 %).
    support = [7, 13, 14, 16]
    root = model.GetModelPart("Structure")
    total = sum(root.GetNode(i).GetSolutionStepValue(tessera.REACTION_X) for i in support)
    assert total == pytest.approx(-9.0, rel=1e-3)
    iterations = stage._GetSolver().GetSolutionStrategy().GetIterationNumber()
    assert 1 <= iterations <= 3  # Newton on an almost linear problem


def test_tessera_run_command_on_both_decks(case_copy):
    folder = case_copy("sm_patch_tests")
    for deck in (SHEAR, TENSION):
        result = subprocess.run([sys.executable, "-m", "tessera", "run", folder, "--parameters", deck, "--quiet"],
                                capture_output=True, text=True, env=os.environ.copy(), timeout=120)
        assert result.returncode == 0, result.stdout + result.stderr


def test_a_wrong_value_fails_the_deck_check(case_copy):
    """The deck's own check process is what `tessera run` trusts: prove it bites
    by editing the copy's expected value (7.0e-3: off by 8e-4, which 3 places see)."""
    folder = case_copy("sm_patch_tests")
    path = os.path.join(folder, SHEAR)
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text.replace('"7.8E-03"', '"7.0E-03"'))
    with pytest.raises(Exception, match="DISPLACEMENT_Y"):
        run(folder, SHEAR)


def _edit(folder, deck, old, new):
    path = os.path.join(folder, deck)
    with open(path) as f:
        text = f.read()
    assert old in text, old
    with open(path, "w") as f:
        f.write(text.replace(old, new))


def test_shear_deck_linear_analysis_with_an_iterative_solver(case_copy):
    """The same deck as a linear analysis solved by cg: one solve, same values
    (cg to relative residual 1e-12 on 12 dofs: far below the 1e-7 of the
    follower effect that separates the two runs)."""
    folder = case_copy("sm_patch_tests")
    _edit(folder, SHEAR, '"analysis_type"                      : "non_linear"',
          '"analysis_type": "linear", "linear_solver_settings": {"solver_type": "cg", "tolerance": 1e-12}')
    model, stage = run(folder, SHEAR)
    assert stage._GetSolver().GetSolutionStrategy().GetIterationNumber() == 1
    for node in model.GetModelPart("Structure.LineLoad2D_Load_on_lines_Auto4").Nodes:
        assert node.GetSolutionStepValue(tessera.DISPLACEMENT_Y) == pytest.approx(7.8e-3, abs=1e-7)


@pytest.mark.parametrize("old,new,message", [
    ('"line_search"                        : false', '"line_search": true', r"line_search.*does not provide"),
    ('"convergence_criterion"              : "residual_criterion"', '"convergence_criterion": "energy"',
     r"convergence_criterion.*'energy'.*residual_criterion"),
    ('"solver_type"                        : "Static"', '"solver_type": "eigen_value"',
     r"solver_type.*'eigen_value'.*\"Static\" and \"Dynamic\" problems only"),
    ('"max_iteration"                      : 10', '"max_iteration": 10, "max_iterations": 3',
     r"max_iterations.*did you mean 'max_iteration'"),
])
def test_unsupported_or_mistyped_solver_settings_are_named(case_copy, old, new, message):
    folder = case_copy("sm_patch_tests")
    _edit(folder, SHEAR, old, new)
    with pytest.raises(tessera.Error, match=message):
        run(folder, SHEAR)


def test_results_do_not_depend_on_the_thread_count(case_copy):
    """Coloured assembly: the whole run, residuals and Newton path included, is
    bitwise the same for 1 and 2 threads."""
    folder = case_copy("sm_patch_tests")
    saved = tessera.GetParallelThreads()
    results = []
    try:
        for threads in (1, 2):
            tessera.SetParallelThreads(threads)
            model, _ = run(folder, TENSION)
            results.append([tuple(n.GetSolutionStepValue(tessera.DISPLACEMENT)) +
                            tuple(n.GetSolutionStepValue(tessera.REACTION))
                            for n in model.GetModelPart("Structure").Nodes])
    finally:
        tessera.SetParallelThreads(saved)
    assert results[0] == results[1]
