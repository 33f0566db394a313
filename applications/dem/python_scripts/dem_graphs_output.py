"""DEMGraphsOutput: the time series of Kratos' <problem_name>_Graphs folder, as
plain text columns (docs/file_formats.md, "DEM graphs").

- <problem_name>_energy.dat with EnergyCalculationOption: time and the energies
  of strategy.GetEnergies() (kinetic, gravitational, elastic, dissipated, total).
- <problem_name>_<IDENTIFIER>_force_graph.grf for every RigidFacePart sub model
  part whose SubModelPartData sets FORCE_INTEGRATION_GROUP (Kratos' flag for
  force graphs, Kratos' file name; the part's name without IDENTIFIER): time,
  the total force the particles exert on that wall and its moment about the
  part's ROTATION_CENTER (wall_resultants.WallForceAndMoment, the sums Kratos
  makes of the wall nodes' CONTACT_FORCES), Kratos' header and column order.
Written every GraphExportFreq of simulated time (Kratos' key), after the step.
In a distributed run every rank reduces the energies (stage.GetEnergies()) and
rank 0 alone writes them.
"""
import os

import tessera
from tessera.output import OutputSchedule

from .wall_resultants import WallForceAndMoment

ENERGY_COLUMNS = ("kinetic_translational", "kinetic_rotational", "gravitational_potential",
                  "elastic_normal", "elastic_tangential", "dissipated_damping",
                  "dissipated_friction", "dissipated_rolling", "dissipated_global_damping",
                  "total")


FORCE_GRAPH_COLUMNS = ("#time", "total_force[0]", "total_force[1]", "total_force[2]",
                      "total_moment[0]", "total_moment[1]", "total_moment[2]")


def ForceGraphFileName(problem_name, part):
    """Kratos' name of the force graph of a wall part: <problem>_<IDENTIFIER>_force_graph.grf."""
    identifier = part.GetValue(tessera.IDENTIFIER) if part.Has(tessera.IDENTIFIER) else part.Name
    return f"{problem_name}_{identifier}_force_graph.grf"


def ForceIntegrationGroups(walls):
    """The wall sub model parts flagged for force graphs."""
    return [part for part in walls.SubModelParts
            if part.Has(tessera.FORCE_INTEGRATION_GROUP)
            and part.GetValue(tessera.FORCE_INTEGRATION_GROUP)]


class DEMGraphsOutput(tessera.Process):
    def __init__(self, stage, energy, force_groups, interval):
        super().__init__()
        self.stage = stage
        self.energy = energy
        self.force_groups = force_groups
        spheres = stage.model.GetModelPart("SpheresPart")
        self.schedule = OutputSchedule(spheres, "time", interval,
                                       f"{stage.DEM_parameters.Origin()}: GraphExportFreq")
        self.folder = stage.OutputPath(f"{stage.problem_name}_Graphs")
        self.files = {}
        communicator = getattr(stage, "communicator", None)
        self.writes = communicator is None or communicator.Rank() == 0

    def ExecuteBeforeSolutionLoop(self):
        self.schedule.Restart()
        if not self.writes:
            self._Write()  # the collective reductions of the initial state
            return
        os.makedirs(self.folder, exist_ok=True)
        if self.energy:
            self._Open("energy", f"{self.stage.problem_name}_energy.dat",
                       "# time " + " ".join(ENERGY_COLUMNS) + "  (J)")
        names = {}
        for part in self.force_groups:
            name = ForceGraphFileName(self.stage.problem_name, part)
            if name in names:
                raise tessera.Error(f"RigidFacePart.{part.Name} and RigidFacePart.{names[name]}: "
                                    f"both FORCE_INTEGRATION_GROUP parts write {name} (give them "
                                    "different IDENTIFIERs)")
            names[name] = part.Name
            # Kratos' header: right-aligned column names (time 12 wide, values 13).
            self._Open(part.Name, name, " ".join(
                [FORCE_GRAPH_COLUMNS[0].rjust(12)] + [c.rjust(13) for c in FORCE_GRAPH_COLUMNS[1:]]))
        self._Write()  # the initial state

    def _Open(self, key, name, header):
        stream = open(os.path.join(self.folder, name), "w")
        stream.write(header + "\n")
        self.files[key] = stream

    def IsOutputStep(self):
        return self.schedule.IsOutputStep()

    # A continued run (tessera.checkpoint) writes at the times the
    # uninterrupted one would; its files start afresh.
    def GetCheckpointState(self):
        return {"next_output": self.schedule.next_output}

    def SetCheckpointState(self, state):
        self.schedule.next_output = state["next_output"]

    def PrintOutput(self):
        self._Write()
        self.schedule.ScheduleNext()

    def _Write(self):
        time = self.stage.spheres_model_part.ProcessInfo[tessera.TIME]
        # Every rank reduces (collective); rank 0 writes.
        energies = self.stage.GetEnergies() if self.energy else None
        if not self.writes:
            return
        if self.energy:
            self.files["energy"].write(
                f"{time:.9e} " + " ".join(f"{energies[k]:.12e}" for k in ENERGY_COLUMNS) + "\n")
        for part in self.force_groups:
            force, moment = WallForceAndMoment(part)
            # Kratos' layout with more digits (it writes %.6g).
            self.files[part.Name].write(
                f"{time:.9e}".rjust(12) + " "
                + " ".join(f"{value:.12e}".rjust(13) for value in (*force, *moment)) + "\n")
        for stream in self.files.values():
            stream.flush()

    def ExecuteFinalize(self):
        for stream in self.files.values():
            stream.close()
        self.files = {}
