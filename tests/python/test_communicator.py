"""The kernel's Communicator (kernel/parallel/communicator.h) from Python:
the serial one in this process, and the MPI one on 3 ranks under mpirun
(reductions in ascending rank order, broadcast, variable-length gather,
neighbour exchange), skipped where the build has no MPI or there is no
mpirun."""
import os
import re
import subprocess
import sys

import pytest

import tessera
from tessera.parallel import MpiSkipReason, MpirunCommand, MpirunEnvironment

CHECK_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "communicator_mpi_check.py")


def test_a_process_not_started_by_mpirun_gets_the_serial_communicator():
    if tessera.LaunchedByMPI():
        pytest.skip("the test suite itself runs under mpirun")
    c = tessera.DefaultCommunicator()
    assert (c.Rank(), c.Size(), c.IsDistributed()) == (0, 1, False)
    assert c.SumAll(0.1) == 0.1 and c.SumAllInt(3) == 3 and c.MinAll(2.0) == 2.0
    assert c.GatherDoubles([1.0, 2.0]) == [[1.0, 2.0]]
    assert c.BroadcastString("text") == "text"
    assert c.Exchange([], []) == []
    with pytest.raises(tessera.Error, match="neighbour"):
        c.Exchange([1], [[1.0]])
    with pytest.raises(tessera.Error, match="root rank 1"):
        c.GatherDoubles([1.0], 1)


@pytest.mark.skipif(MpiSkipReason() is not None, reason=str(MpiSkipReason()))
@pytest.mark.parametrize("ranks", [3, 4])
def test_mpi_communicator_on_several_ranks(ranks):
    result = subprocess.run(MpirunCommand(ranks, sys.executable, CHECK_SCRIPT),
                            env=MpirunEnvironment(), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    # mpirun forwards the ranks' lines as they come: they may run together
    reports = sorted(re.findall(r"rank (\d+) ok of (\d+)", result.stdout))
    assert reports == sorted((str(r), str(ranks)) for r in range(ranks)), result.stdout
