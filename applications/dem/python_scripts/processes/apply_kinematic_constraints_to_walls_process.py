"""ApplyKinematicConstraintsToWallsProcess (Kratos' DEM
"processes.apply_kinematic_constraints_to_walls_process"): the rigid-body
motion of a wall sub model part (RigidFacePart.<name>) from imposed velocity
v(t) and angular velocity w(t) of its centre, with the same settings as
apply_kinematic_constraints_process.

The wall is a rigid body about RIGID_BODY_CENTER_OF_MASS (its SubModelPartData;
the mean of its nodes without it). On every step whose time is in the interval:
- at the start, v and w are evaluated at the step's time (tables, numbers or
  expressions, with x, y, z the centre) and every wall node gets
  VELOCITY = v + w x (x - c) and ANGULAR_VELOCITY = w, which the contacts of the
  step use;
- at the end, as the explicit strategy advances the spheres, the body moves:
  c += v dt and the orientation turns by the rotation vector w dt (exact
  exponential map); the nodes get x = c + R (X0 - c0), DISPLACEMENT = x - X0 and
  the velocity of their new position. The strategy re-reads wall node
  positions and velocities at the start of each step.
Outside the interval the wall keeps its place and its nodes have zero velocity.

Only fully imposed motion is supported: every one of the six components must
be "constrained". A FREE_BODY_MOTION wall that this process moves follows the
process only; without the process it moves freely under the contact forces
(walls/free_rigid_wall.h).
"""
import numpy as np

import tessera
from tessera.processes import SettingsError

from . import (DemProcess, PointNodes, ReadComponents, ReadConstrained, SampleTimes,
               ValidateKinematicSettings)


def Factory(settings, model):
    if not isinstance(settings, tessera.Parameters):
        raise TypeError("expected a tessera.Parameters with the process settings")
    return ApplyKinematicConstraintsToWallsProcess(model, settings["Parameters"])


def RotationMatrix(rotation_vector):
    """exp([phi]x) by Rodrigues' formula."""
    angle = float(np.linalg.norm(rotation_vector))
    if angle < 1e-300:
        return np.eye(3)
    k = rotation_vector / angle
    cross = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + np.sin(angle) * cross + (1.0 - np.cos(angle)) * cross @ cross


class ApplyKinematicConstraintsToWallsProcess(DemProcess):
    def __init__(self, model, settings):
        ValidateKinematicSettings(settings)
        super().__init__(model, settings)
        if self.model_part.GetRootModelPart().Name != "RigidFacePart":
            raise SettingsError(settings["model_part_name"], f"{self.model_part.FullName()} is not a wall "
                                "model part (RigidFacePart.<name>); for spheres use "
                                "apply_kinematic_constraints_process")
        self.sources = []
        for group in ("velocity_constraints_settings", "angular_velocity_constraints_settings"):
            constrained = ReadConstrained(settings[group])
            if not all(constrained):
                raise SettingsError(settings[group]["constrained"], "walls move only with fully imposed "
                                    "motion: every component must be constrained (free rigid-body motion "
                                    "of walls under contact forces is not supported yet)")
            self.sources.append(ReadComponents(settings[group], self.model_part))
        self.reference = None  # X0 - c0 per node, set in ExecuteInitialize

    def ExecuteInitialize(self):
        if self.model_part.NumberOfNodes() == 0:
            raise tessera.Error(f"{self.label}: the wall model part {self.model_part.FullName()} has no nodes")
        positions = np.array(self.nodes.Coordinates(), dtype=float)
        part = self.model_part
        if part.Has(tessera.RIGID_BODY_CENTER_OF_MASS):
            self.centre = np.array(part.GetValue(tessera.RIGID_BODY_CENTER_OF_MASS), dtype=float)
        else:
            self.centre = positions.mean(axis=0)
        self.initial_centre = self.centre.copy()
        self.initial_positions = np.array(self.nodes.InitialCoordinates(), dtype=float)
        self.reference = positions - self.centre
        self.rotation = np.eye(3)
        self.velocity = np.zeros(3)
        self.angular_velocity = np.zeros(3)

    def _Imposed(self, time):
        point = PointNodes(self.centre, self.initial_centre)
        return [np.array([float(np.ravel(c.Evaluate(time, point))[0]) for c in group])
                for group in self.sources]

    def _WriteNodes(self):
        arms = self.reference @ self.rotation.T
        positions = self.centre + arms
        self.nodes.Set(tessera.VELOCITY, self.velocity + np.cross(self.angular_velocity, arms))
        self.nodes.Set(tessera.ANGULAR_VELOCITY, np.tile(self.angular_velocity, (len(positions), 1)))
        return positions

    def ExecuteInitializeSolutionStep(self):
        if self.interval.IsInInterval(self._Time()):
            self.velocity, self.angular_velocity = self._Imposed(self._Time())
        else:
            self.velocity, self.angular_velocity = np.zeros(3), np.zeros(3)
        self._WriteNodes()

    def ExecuteFinalizeSolutionStep(self):
        dt = float(self.model_part.ProcessInfo[tessera.DELTA_TIME])
        self.centre = self.centre + dt * self.velocity
        self.rotation = RotationMatrix(dt * self.angular_velocity) @ self.rotation
        positions = self._WriteNodes()
        self.nodes.Set(tessera.DISPLACEMENT, positions - self.initial_positions)
        # a zero-copy view of the root's coordinates
        coordinates = self.model_part.GetRootModelPart().NodalCoordinates()
        indices = self.nodes.Indices()
        if indices is None:
            coordinates[...] = positions
        else:
            coordinates[indices] = positions

    def MaximumImposedSpeed(self, begin, end):
        """The largest node speed |v| + |w| max|x - c| imposed in [begin, end]."""
        reach = float(np.max(np.linalg.norm(self.reference, axis=1))) if self.reference is not None else 0.0
        speed = 0.0
        for time in SampleTimes(self.interval, begin, end):
            velocity, angular = self._Imposed(float(time))
            speed = max(speed, float(np.linalg.norm(velocity) + np.linalg.norm(angular) * reach))
        return speed
