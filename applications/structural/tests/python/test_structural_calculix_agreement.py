"""The CalculiX benchmark's two writers describe the same problem: on a small
block, Tessera's deck and CalculiX's .inp give the same tip displacement. Both
use the fully integrated trilinear hexahedron, so they agree up to the solvers'
tolerances and CalculiX's 7 printed digits: 1e-6 relative. Skipped where ccx
is not installed (`make benchmark-deps`)."""
import os
import shutil
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
import calculix_static_benchmark as bench  # noqa: E402


@pytest.mark.skipif(shutil.which("ccx") is None, reason="CalculiX (ccx) is not installed")
def test_tessera_and_calculix_agree_on_the_benchmark_block(tmp_path):
    result = subprocess.run(
        [sys.executable, bench.__file__, "--elements", "12", "3", "2", "--threads", "1",
         "--workdir", str(tmp_path / "run"), "--ccx-solvers", "SPOOLES", "--tolerance", "1e-6"],
        capture_output=True, text=True, env=dict(os.environ))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "agree within 1e-06" in result.stdout


def test_block_mesh_is_consistent():
    nodes, hexes, clamped, forces, tip = bench.block_mesh(4, 2, 2, (4.0, 2.0, 1.0))
    assert len(nodes) == 5 * 3 * 3 and len(hexes) == 16 and len(clamped) == 9
    assert sum(forces.values()) == pytest.approx(bench.LOAD, rel=1e-14)  # the resultant
    coordinates = {n: (x, y, z) for n, x, y, z in nodes}
    assert coordinates[tip] == pytest.approx((4.0, 1.0, 0.5))
    assert all(coordinates[n][0] == 0.0 for n in clamped)
