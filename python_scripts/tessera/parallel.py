"""Distributed runs seen from the scripts: which communicator a deck's
"problem_data.parallel_type" asks for, which solvers run distributed, and the
helpers that gather a distributed result on rank 0.

"OpenMP" (the default) is one process, threads inside it; "MPI" is one
process per rank started by mpirun, each holding its piece of the mesh (the
kernel's DistributeModelPart), in a build with MPI (tessera.MPIBuilt()).
Python talks to MPI only through the kernel's Communicator (not mpi4py), so
the scripts and the kernel share one MPI initialisation.
"""
import tessera

PARALLEL_TYPES = ("OpenMP", "MPI")


def RunCommunicator(parallel_type, origin="problem_data"):
    """The communicator for `parallel_type`, or a tessera.Error naming the key
    when the run cannot be what the deck asks for."""
    key = f"{origin}: key 'problem_data.parallel_type'"
    if parallel_type not in PARALLEL_TYPES:
        raise tessera.Error(f"{key} is '{parallel_type}'; expected \"OpenMP\" or \"MPI\"")
    if parallel_type == "MPI":
        if not tessera.MPIBuilt():
            raise tessera.Error(f"{key} is \"MPI\", but this build of Tessera has no MPI (build it "
                                "with libopenmpi-dev installed, -DTESSERA_WITH_MPI=ON)")
        if not tessera.LaunchedByMPI():
            raise tessera.Error(f"{key} is \"MPI\", but this is a serial run: start it with "
                                "mpirun -np N python3 -m tessera run FOLDER, or set \"OpenMP\"")
        communicator = tessera.DefaultCommunicator()
        InstallAbortOnError(communicator)
        return communicator
    if tessera.MPIBuilt() and tessera.LaunchedByMPI():
        communicator = tessera.DefaultCommunicator()
        if communicator.Size() > 1:
            # Every rank would run the whole problem and write the same files.
            raise tessera.Error(f"{key} is \"OpenMP\", but mpirun started {communicator.Size()} "
                                "ranks; set \"MPI\" to distribute the run, or start one process")
    return tessera.SerialCommunicator()


def CheckDistributedSolver(solver, origin="problem_data"):
    """A solver runs distributed only where it says so (SUPPORTS_MPI)."""
    if not getattr(solver, "SUPPORTS_MPI", False):
        raise tessera.Error(f"{origin}: key 'problem_data.parallel_type' is \"MPI\", but "
                            f"{type(solver).__name__} does not run distributed; in this build the "
                            "structural solvers (explicit; static and implicit dynamic with PETSc) "
                            "and the DEM sphere strategy do")


def GatherNodalArray(communicator, model_part, node_ids, values, root=0):
    """(ids, values) of the nodes `node_ids` of every rank (values: one row
    per node, (n, k) or (n,)), gathered on
    `root` and sorted by id: ids an int array, values an (n, k) float array;
    (None, None) on the other ranks. Each rank passes the nodes it owns, so
    every node appears once."""
    import numpy as np

    node_ids = [int(i) for i in node_ids]
    values = np.asarray(values, dtype=float)
    if values.ndim == 1:
        values = values.reshape(-1, 1)
    if values.shape[0] != len(node_ids):
        raise tessera.Error(f"GatherNodalArray of model part '{model_part.Name}': {values.shape[0]} rows "
                            f"of values for {len(node_ids)} nodes")
    width = values.shape[1]  # (n, k) arrays keep k when a rank has no node
    all_ids = communicator.GatherInts(node_ids, root)
    all_values = communicator.GatherDoubles(values.ravel().tolist(), root)
    if communicator.Rank() != root:
        return None, None
    ids = np.concatenate([np.asarray(i, dtype=np.int64) for i in all_ids])
    data = np.concatenate([np.asarray(v, dtype=float).reshape(-1, width) for v in all_values])
    order = np.argsort(ids, kind="stable")
    if len(np.unique(ids)) != len(ids):
        raise tessera.Error(f"GatherNodalArray of model part '{model_part.Name}': a node came from "
                            "more than one rank")
    return ids[order], data[order]


# Which nodes this rank owns, per root model part of a distributed run: the
# solver that splits a model part declares it (the structure its METIS piece's
# owned nodes, the DEM its owned spheres), and the processes that write one
# result for the whole run (json_output_process) gather each node from its
# owner only. Keyed by the root model part's name: one distributed run per
# process.
_NODE_OWNERSHIP = {}


def SetNodeOwnership(model_part, owned_node_ids):
    """Declares the nodes of `model_part`'s root that this rank owns:
    `owned_node_ids()` returns their ids, called at each use (spheres change
    owner between steps)."""
    _NODE_OWNERSHIP[model_part.GetRootModelPart().Name] = owned_node_ids


def DistributedCommunicator():
    """The run's communicator when this process is one of several MPI ranks,
    else None (a serial run, or one rank)."""
    if tessera.MPIBuilt() and tessera.LaunchedByMPI():
        communicator = tessera.DefaultCommunicator()
        if communicator.Size() > 1:
            return communicator
    return None


def OwnedNodeIds(model_part, what):
    """The ids of the nodes of `model_part` this rank owns in a distributed
    run; an error naming `what` (the process asking) when no solver declared
    the ownership of its root model part."""
    root = model_part.GetRootModelPart().Name
    provider = _NODE_OWNERSHIP.get(root)
    if provider is None:
        raise tessera.Error(f"{what}: model part '{model_part.FullName()}' of a distributed "
                            "(\"parallel_type\": \"MPI\") run has no declared owner per node (the "
                            "structure's and the DEM spheres' model parts have); write its results "
                            "piece by piece (vtk_output_process, hdf5_output_process) or, for the "
                            "DEM's walls, with the DEM deck's post options")
    import numpy as np
    ids = np.asarray(model_part.NodeIds(), dtype=np.int64)
    return ids[np.isin(ids, np.asarray(provider(), dtype=np.int64))]


def MpirunCommand(ranks, *command):
    """The argument list that starts `command` on `ranks` ranks with Debian's
    OpenMPI mpirun, allowing more ranks than cores (--oversubscribe) and a
    root user (containers, CI); None where there is no mpirun."""
    import shutil

    mpirun = shutil.which("mpirun")
    if mpirun is None:
        return None
    return [mpirun, "--oversubscribe", "--allow-run-as-root", "-np", str(ranks), *command]


def RunPython(arguments, ranks=None, timeout=300):
    """Runs `python3 *arguments` in a fresh process: on `ranks` ranks through
    MpirunCommand and MpirunEnvironment, or alone with one OpenMP thread when
    ranks is None. Raises tessera.Error with the process' output when it
    fails; returns its standard output."""
    import os
    import subprocess
    import sys

    command = [sys.executable, *[str(a) for a in arguments]]
    environment = dict(os.environ, OMP_NUM_THREADS="1")
    if ranks:
        command, environment = MpirunCommand(ranks, *command), MpirunEnvironment()
    result = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        raise tessera.Error(f"{' '.join(command)} failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    return result.stdout


def MpiSkipReason():
    """Why MPI tests cannot run here (None when they can)."""
    import shutil

    if not tessera.MPIBuilt():
        return "this build of Tessera has no MPI (TESSERA_WITH_MPI is OFF: libopenmpi-dev missing)"
    if shutil.which("mpirun") is None:
        return "mpirun not found (Debian: openmpi-bin)"
    return None


def MpirunEnvironment():
    """The environment for MpirunCommand: OpenMPI's run-as-root consent, one
    OpenMP thread per rank (ranks share the cores), and a vader shared-memory
    transport that works in containers without CMA."""
    import os

    environment = dict(os.environ)
    environment.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                        "OMP_NUM_THREADS": "1", "OMPI_MCA_btl_vader_single_copy_mechanism": "none",
                        "OMPI_MCA_rmaps_base_oversubscribe": "1"})
    return environment


def InstallAbortOnError(communicator):
    """In a run of several ranks, an exception that nothing catches prints its
    traceback with the rank and ends every rank (MPI_Abort): the other ranks
    would otherwise wait for this one in their next exchange, forever."""
    import sys
    import traceback

    if communicator.Size() < 2 or getattr(sys.excepthook, "_tessera_abort", False):
        return
    previous = sys.excepthook

    def abort(kind, value, trace):
        sys.stderr.write(f"tessera: uncaught error on rank {communicator.Rank()}:\n")
        traceback.print_exception(kind, value, trace)
        sys.stderr.flush()
        communicator.Abort(1)
        previous(kind, value, trace)

    abort._tessera_abort = True
    sys.excepthook = abort
