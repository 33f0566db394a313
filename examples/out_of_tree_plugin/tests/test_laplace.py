"""Tests of the out-of-tree `laplace` application, run against an installed Tessera.

The linear triangle reproduces any linear temperature field exactly (patch
test), so with T = a + b x + c y imposed on the boundary the interior nodes
must come out as the same linear function to round-off (1e-12 relative: only
the solve's round-off separates them).
"""
import numpy as np
import pytest

import tessera


def make_square(model, n):
    """Unit square, n x n cells, two counter-clockwise triangles per cell."""
    mp = model.CreateModelPart("Plate")
    mp.AddNodalSolutionStepVariable(tessera.TEMPERATURE)
    node_id = lambda i, j: 1 + i + j * (n + 1)
    for j in range(n + 1):
        for i in range(n + 1):
            mp.CreateNewNode(node_id(i, j), i / n, j / n, 0.0)
    props = mp.GetProperties(1)
    props.SetValue(tessera.CONDUCTIVITY, 2.5)
    eid = 1
    for j in range(n):
        for i in range(n):
            a, b, c, d = node_id(i, j), node_id(i + 1, j), node_id(i + 1, j + 1), node_id(i, j + 1)
            for tri in ((a, b, c), (a, c, d)):
                mp.CreateNewElement("LaplacianElement2D3N", eid, list(tri), props)
                eid += 1
    return mp


def assemble_and_solve(mp, boundary_value):
    """Assembles K T = f from the elements' local systems and solves with Dirichlet data."""
    info = mp.ProcessInfo
    for k, node in enumerate(mp.Nodes):
        node.AddDof(tessera.TEMPERATURE)
        node.GetDof(tessera.TEMPERATURE).EquationId = k
    n = mp.NumberOfNodes()
    K = np.zeros((n, n))
    f = np.zeros(n)
    for element in mp.Elements:
        element.Check(info)
        lhs, rhs = element.CalculateLocalSystem(info)
        ids = element.EquationIdVector(info)
        K[np.ix_(ids, ids)] += lhs
        f[ids] += rhs
    coords = mp.NodalCoordinates()
    on_boundary = np.isclose(coords[:, 0] % 1.0, 0.0) | np.isclose(coords[:, 1] % 1.0, 0.0)
    T = np.zeros(n)
    T[on_boundary] = boundary_value(coords[on_boundary])
    free = ~on_boundary
    # Residual form: f already holds -K T0 with T0 = 0, so solve K_ff T_f = f_f - K_fb T_b.
    T[free] = np.linalg.solve(K[np.ix_(free, free)], f[free] - K[np.ix_(free, on_boundary)] @ T[on_boundary])
    mp.NodalArray(tessera.TEMPERATURE)[:] = T
    return coords, T


def test_application_registers_element_and_variable():
    import tessera.laplace as laplace

    assert "laplace" in tessera.Registry.Applications()
    assert tessera.Registry.HasElement("LaplacianElement2D3N")
    assert tessera.Registry.ApplicationOf("LaplacianElement2D3N") == "laplace"
    assert laplace.LAPLACE_SOURCE.Name() == "LAPLACE_SOURCE"
    assert tessera.LAPLACE_SOURCE is laplace.LAPLACE_SOURCE


def test_linear_patch_is_exact():
    import tessera.laplace  # noqa: F401

    model = tessera.Model()
    mp = make_square(model, 6)
    exact = lambda xy: 1.0 + 2.0 * xy[:, 0] - 3.0 * xy[:, 1]
    coords, T = assemble_and_solve(mp, exact)
    np.testing.assert_allclose(T, exact(coords), rtol=1e-12, atol=1e-12)
    # The view wrote through to the nodes.
    node = mp.GetNode(1 + 3 + 3 * 7)
    assert node.GetSolutionStepValue(tessera.TEMPERATURE) == pytest.approx(1.0 + 2.0 * 0.5 - 3.0 * 0.5)


def test_uniform_source_converges_to_series_solution():
    """-k ΔT = Q on the unit square with T = 0 on the edges: the centre value is
    (Q/k) * 0.0736713532..., from the double Fourier sine series of the Poisson
    problem (summed below). Linear triangles converge at second order in the
    mesh size; at n = 32 the nodal error is well below the 0.5 % asserted."""
    import tessera.laplace as laplace

    model = tessera.Model()
    n = 32
    mp = make_square(model, n)
    for element in mp.Elements:
        element.SetValue(laplace.LAPLACE_SOURCE, 10.0)
    coords, T = assemble_and_solve(mp, lambda xy: np.zeros(len(xy)))
    centre = np.argmin(np.hypot(coords[:, 0] - 0.5, coords[:, 1] - 0.5))
    # Series: T(1/2,1/2) = (16 Q / (k π⁴)) Σ_{m,n odd} (-1)^((m+n)/2 - 1) / (m n (m² + n²))
    series = 0.0
    for m in range(1, 400, 2):
        for k in range(1, 400, 2):
            series += (-1) ** ((m + k) // 2 - 1) / (m * k * (m * m + k * k))
    expected = 16.0 * 10.0 / (2.5 * np.pi**4) * series
    assert T[centre] == pytest.approx(expected, rel=5e-3)


def test_check_rejects_missing_conductivity():
    import tessera.laplace  # noqa: F401

    model = tessera.Model()
    mp = model.CreateModelPart("Bad")
    mp.AddNodalSolutionStepVariable(tessera.TEMPERATURE)
    for i, (x, y) in enumerate([(0, 0), (1, 0), (0, 1)], start=1):
        mp.CreateNewNode(i, x, y, 0.0)
    element = mp.CreateNewElement("LaplacianElement2D3N", 1, [1, 2, 3], mp.GetProperties(4))
    with pytest.raises(RuntimeError, match="CONDUCTIVITY"):
        element.Check(mp.ProcessInfo)
