"""The bonds of the continuum strategy as ParaView files: one legacy VTK
polydata file per output step, each bond a line between its spheres' centres
with its state (0 intact, 2 broken in shear, 4 broken in tension), sigma
(F_n / A, compression positive) and tau (|F_t| / A) as cell data, so that
cracks show as the broken lines. Kratos writes its bonds as contact elements
when ContactMeshOption is on; the DEM stage adds this output then, with VTK
output on (post_vtk_option).

Files: <output_path>/<prefix>_<k>.vtk, k = 1, 2, ... at the schedule's steps,
and <prefix>.pvd listing them with their times.
"""
import os

import numpy as np

import tessera
from tessera.output import OutputSchedule, ScheduledOutputProcess


class _BondWriter:
    def __init__(self, strategy, model_part, output_path, prefix):
        self.strategy = strategy
        self.model_part = model_part
        self.output_path = output_path
        self.prefix = prefix
        self.written = []  # (time, file name)

    def PrintOutput(self):
        os.makedirs(self.output_path, exist_ok=True)
        bonds = self.strategy.BondArrays()
        points = np.asarray(self.strategy.Particles.position, dtype=float)
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
        self.written.append((time, name))
        with open(os.path.join(self.output_path, f"{self.prefix}.pvd"), "w") as f:
            f.write('<?xml version="1.0"?>\n<VTKFile type="Collection" version="0.1">\n'
                    "  <Collection>\n")
            for t, file_name in self.written:
                f.write(f'    <DataSet timestep="{t!r}" file="{file_name}"/>\n')
            f.write("  </Collection>\n</VTKFile>\n")


class BondVtkOutputProcess(ScheduledOutputProcess):
    """Writes the strategy's bonds every `interval` of simulated time."""

    def __init__(self, strategy_provider, model_part, interval, output_path, prefix):
        super().__init__()  # the C++ base must be initialised for the bindings
        self.model_part = model_part
        self.schedule = OutputSchedule(model_part, "time", interval, "BondVtkOutputProcess")
        self._provider = strategy_provider
        self._args = (model_part, output_path, prefix)
        self.writer = None

    def ExecuteBeforeSolutionLoop(self):
        # The strategy exists once the solver is initialised.
        self.writer = _BondWriter(self._provider(), *self._args)
        super().ExecuteBeforeSolutionLoop()
