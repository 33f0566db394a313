"""The bonds of the continuum strategy as ParaView files: one legacy VTK
polydata file per output step, each bond a line between its spheres' centres
with its state (0 intact, 2 broken in shear, 4 broken in tension), sigma
(F_n / A, compression positive) and tau (|F_t| / A) as cell data, so that
cracks show as the broken lines. Kratos writes its bonds as contact elements
when ContactMeshOption is on; the DEM stage adds this output then, with VTK
output on (post_vtk_option).

Files: <output_path>/<prefix>_<k>.vtk, k = 1, 2, ... at the schedule's steps,
and <prefix>.pvd listing them with their times. The points carry their
sphere's element id (point data element_id), so that a bond can be told by
its spheres' ids.

A distributed run ("parallel_type": "MPI") writes the same one file per step,
on rank 0 (MergedBonds): each rank holds its owned spheres' bonds and its
ghosts' (a bond between ghosts, or an owned sphere's bond twice across a rank
cut), so each bond is sent by the owner of its sphere with the smaller
element id (which holds it, among its rows' bonds or parked ones: an owned
sphere holds all its bonds, DistributedDem::CheckOwnedBonds), the points are the owned spheres of all
ranks in element id order. One file rather than per-rank pieces (as the
spheres' .pvtu): a bond between two ranks' spheres would need both pieces'
points, and the serial run's single file stays what ParaView opens.
"""
import os

import numpy as np

import tessera
from tessera.output import OutputSchedule, ScheduledOutputProcess


def SerialBonds(strategy):
    """(element ids, points, bonds) of the strategy's rows: the points in row
    order, bonds the dict of BondArrays with first and second rows."""
    ids = np.asarray(strategy.Particles.element_id, dtype=np.int64)
    return ids, np.asarray(strategy.Particles.position, dtype=float), strategy.BondArrays()


def MergedBonds(strategy, distributed, communicator):
    """SerialBonds of the whole distributed run on rank 0 (None elsewhere;
    collective): every owned sphere once, in element id order, and each bond
    once, from the owner of its sphere with the smaller element id, sorted by
    its spheres' ids (in the sending rank's row order: first, second)."""
    rows = np.asarray(strategy.Particles.element_id, dtype=np.int64)
    owned = np.isin(rows, np.asarray(distributed.OwnedElementIds(), dtype=np.int64))
    positions = np.asarray(strategy.Particles.position, dtype=float)
    bonds = strategy.BondArrays()
    first, second = (np.asarray(bonds[k], dtype=np.int64) for k in ("first", "second"))
    mine = owned[np.where(rows[first] < rows[second], first, second)]
    # The parked bonds (their partner on no row here) of the owned spheres
    # with the smaller id: the owned one is the first where first_owned.
    parked = distributed.ParkedBonds()
    p_first, p_second = (np.asarray(parked[k], dtype=np.int64) for k in ("first_element", "second_element"))
    p_owned = np.where(np.asarray(parked["first_owned"], dtype=bool), p_first, p_second)
    p_mine = p_owned == np.minimum(p_first, p_second)
    ints = np.concatenate([[owned.sum(), mine.sum() + p_mine.sum()], rows[owned], rows[first[mine]], p_first[p_mine],
                           rows[second[mine]], p_second[p_mine],
                           np.asarray(bonds["state"], dtype=np.int64)[mine],
                           np.asarray(parked["state"], dtype=np.int64)[p_mine]])
    doubles = np.concatenate([positions[owned].ravel()] + [
        np.concatenate([np.asarray(bonds[k], dtype=float)[mine], np.asarray(parked[k], dtype=float)[p_mine]])
        for k in ("sigma", "tau", "normal_force")])
    ints = communicator.GatherInts(ints.tolist(), 0)
    doubles = communicator.GatherDoubles(doubles.tolist(), 0)
    if communicator.Rank() != 0:
        return None
    ids, points, pairs, states, values = [], [], [], [], []
    for rank_ints, rank_doubles in zip(ints, doubles):
        i, d = np.asarray(rank_ints, dtype=np.int64), np.asarray(rank_doubles, dtype=float)
        spheres, count = int(i[0]), int(i[1])
        ids.append(i[2:2 + spheres])
        points.append(d[:3 * spheres].reshape(spheres, 3))
        i = i[2 + spheres:]
        pairs.append(np.column_stack([i[:count], i[count:2 * count]]))
        states.append(i[2 * count:3 * count])
        values.append(d[3 * spheres:].reshape(3, count).T)
    ids, points = np.concatenate(ids), np.concatenate(points)
    order = np.argsort(ids, kind="stable")
    ids, points = ids[order], points[order]
    pairs, states, values = np.concatenate(pairs), np.concatenate(states), np.concatenate(values)
    order = np.lexsort((pairs[:, 1], pairs[:, 0]))
    pairs, states, values = pairs[order], states[order], values[order]
    merged = {"first": np.searchsorted(ids, pairs[:, 0]), "second": np.searchsorted(ids, pairs[:, 1]),
              "state": states}
    for k, name in enumerate(("sigma", "tau", "normal_force")):
        merged[name] = values[:, k]
    return ids, points, merged


class _BondWriter:
    def __init__(self, collect, model_part, output_path, prefix):
        self.collect = collect  # () -> (element ids, points, bonds), or None: not written here
        self.model_part = model_part
        self.output_path = output_path
        self.prefix = prefix
        self.written = []  # (time, file name)

    def PrintOutput(self):
        collected = self.collect()
        if collected is None:
            return
        ids, points, bonds = collected
        os.makedirs(self.output_path, exist_ok=True)
        first, second = bonds["first"], bonds["second"]
        time = float(self.model_part.ProcessInfo[tessera.TIME])
        name = f"{self.prefix}_{len(self.written) + 1}.vtk"
        with open(os.path.join(self.output_path, name), "w") as f:
            f.write(f"# vtk DataFile Version 3.0\nTessera bonds, time {time!r}\nASCII\n"
                    "DATASET POLYDATA\n")
            f.write(f"POINTS {len(points)} double\n")
            np.savetxt(f, points, fmt="%.17g")
            f.write(f"LINES {len(first)} {3 * len(first)}\n")
            np.savetxt(f, np.column_stack([np.full(len(first), 2), first, second]), fmt="%d")
            f.write(f"CELL_DATA {len(first)}\n")
            f.write("SCALARS state int 1\nLOOKUP_TABLE default\n")
            np.savetxt(f, bonds["state"].astype(int), fmt="%d")
            for field in ("sigma", "tau", "normal_force"):
                f.write(f"SCALARS {field} double 1\nLOOKUP_TABLE default\n")
                np.savetxt(f, bonds[field], fmt="%.17g")
            f.write(f"POINT_DATA {len(points)}\nSCALARS element_id int 1\nLOOKUP_TABLE default\n")
            np.savetxt(f, ids, fmt="%d")
        self.written.append((time, name))
        with open(os.path.join(self.output_path, f"{self.prefix}.pvd"), "w") as f:
            f.write('<?xml version="1.0"?>\n<VTKFile type="Collection" version="0.1">\n'
                    "  <Collection>\n")
            for t, file_name in self.written:
                f.write(f'    <DataSet timestep="{t!r}" file="{file_name}"/>\n')
            f.write("  </Collection>\n</VTKFile>\n")


class BondVtkOutputProcess(ScheduledOutputProcess):
    """Writes the strategy's bonds every `interval` of simulated time;
    distributed: () -> (DistributedDem, communicator) of a distributed run
    (rank 0 writes the merged bonds), None in a serial run."""

    def __init__(self, strategy_provider, model_part, interval, output_path, prefix,
                 distributed=None):
        super().__init__()  # the C++ base must be initialised for the bindings
        self.model_part = model_part
        self.schedule = OutputSchedule(model_part, "time", interval, "BondVtkOutputProcess")
        self._provider = strategy_provider
        self._args = (model_part, output_path, prefix)
        self._distributed = distributed
        self.writer = None

    def ExecuteBeforeSolutionLoop(self):
        # The strategy (and DistributedDem) exist once the solver is initialised.
        strategy = self._provider()
        if self._distributed is None:
            collect = lambda: SerialBonds(strategy)  # noqa: E731
        else:
            collect = lambda: MergedBonds(strategy, *self._distributed())  # noqa: E731
        self.writer = _BondWriter(collect, *self._args)
        super().ExecuteBeforeSolutionLoop()
