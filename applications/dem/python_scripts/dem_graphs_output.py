"""DEMGraphsOutput: the time series of Kratos' <problem_name>_Graphs folder, as
plain text columns (docs/file_formats.md, "DEM graphs").

- <problem_name>_energy.dat with EnergyCalculationOption: time and the energies
  of strategy.GetEnergies() (kinetic, gravitational, elastic, dissipated, total).
- <sub_model_part>_force_graph.dat for every RigidFacePart sub model part whose
  SubModelPartData sets FORCE_INTEGRATION_GROUP (Kratos' flag for force graphs):
  time and the total force the particles exert on that wall (sum of the wall
  nodes' CONTACT_FORCES).
Written every GraphExportFreq of simulated time (Kratos' key), after the step.
"""
import os

import tessera
from tessera.output import OutputSchedule

ENERGY_COLUMNS = ("kinetic_translational", "kinetic_rotational", "gravitational_potential",
                  "elastic_normal", "elastic_tangential", "dissipated_damping",
                  "dissipated_friction", "dissipated_rolling", "dissipated_global_damping",
                  "total")


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
        self.folder = f"{stage.problem_name}_Graphs"
        self.files = {}

    def ExecuteBeforeSolutionLoop(self):
        os.makedirs(self.folder, exist_ok=True)
        if self.energy:
            self._Open("energy", f"{self.stage.problem_name}_energy.dat",
                       "# time " + " ".join(ENERGY_COLUMNS) + "  (J)")
        for part in self.force_groups:
            self._Open(part.Name, f"{part.Name}_force_graph.dat",
                       f"# time Fx Fy Fz  (N, total force of the particles on "
                       f"RigidFacePart.{part.Name})")
        self.schedule.Restart()
        self._Write()  # the initial state

    def _Open(self, key, name, header):
        stream = open(os.path.join(self.folder, name), "w")
        stream.write(header + "\n")
        self.files[key] = stream

    def IsOutputStep(self):
        return self.schedule.IsOutputStep()

    def PrintOutput(self):
        self._Write()
        self.schedule.ScheduleNext()

    def _Write(self):
        time = self.stage.spheres_model_part.ProcessInfo[tessera.TIME]
        if self.energy:
            energies = self.stage.GetStrategy().GetEnergies()
            self.files["energy"].write(
                f"{time:.9e} " + " ".join(f"{energies[k]:.12e}" for k in ENERGY_COLUMNS) + "\n")
        for part in self.force_groups:
            total = [0.0, 0.0, 0.0]
            for node in part.Nodes:
                force = node.GetSolutionStepValue(tessera.CONTACT_FORCES)
                for k in range(3):
                    total[k] += force[k]
            self.files[part.Name].write(f"{time:.9e} " + " ".join(f"{f:.12e}" for f in total)
                                        + "\n")
        for stream in self.files.values():
            stream.flush()

    def ExecuteFinalize(self):
        for stream in self.files.values():
            stream.close()
        self.files = {}
