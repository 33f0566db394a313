"""ParticleCreatorDestructor: spheres made by a script, as Kratos' DEM scripts
make them (`stage.creator_destructor.CreateSphericParticle(...)`).

A sphere is a node carrying RADIUS (and zero VELOCITY and ANGULAR_VELOCITY)
and an element on it, both with the next free id of the model part's root
(Kratos numbers the node and the element alike). Made before Initialize it is
one of the deck's spheres; made between steps it joins the run at the next
step (ExplicitSolverStrategy.AdoptElementsAddedToTheModelPart), which is where
a material the run did not start with is an error naming the element.
"""
import numbers

import tessera


class ParticleCreatorDestructor:
    """Kratos' creator's CreateSphericParticle overloads:

    CreateSphericParticle(model_part, coordinates, properties, radius,
                          element_name="SphericParticle3D")
    CreateSphericParticle(model_part, id, coordinates, properties, radius,
                          element_name="SphericParticle3D")

    Returns the element. Destruction is the bounding box's (the strategy
    deletes spheres itself)."""

    def __init__(self):
        self._next_id = {}  # root model part name -> the next free id

    def CreateSphericParticle(self, model_part, *arguments):
        if arguments and isinstance(arguments[0], numbers.Integral):  # (numpy ints too)
            particle_id, arguments = int(arguments[0]), arguments[1:]
        else:
            particle_id = None
        if len(arguments) not in (3, 4):
            raise TypeError("CreateSphericParticle(model_part, [id,] coordinates, properties, "
                            "radius[, element_name])")
        coordinates, properties, radius = arguments[:3]
        element_name = arguments[3] if len(arguments) == 4 else "SphericParticle3D"
        if not radius > 0.0:
            raise tessera.Error(f"CreateSphericParticle: the radius must be > 0, got {radius}")
        root = model_part.GetRootModelPart()
        if particle_id is None:
            particle_id = self._NextId(root)
        elif root.HasNode(particle_id) or root.HasElement(particle_id):
            raise tessera.Error(f"CreateSphericParticle: id {particle_id} is taken in "
                                f"{root.Name} (a node or an element has it)")
        self._next_id[root.Name] = max(self._next_id.get(root.Name, 0), particle_id + 1)
        x, y, z = (float(c) for c in coordinates)
        node = model_part.CreateNewNode(particle_id, x, y, z)
        node.SetSolutionStepValue(tessera.RADIUS, float(radius))
        for variable in (tessera.VELOCITY, tessera.ANGULAR_VELOCITY):
            node.SetSolutionStepValue(variable, [0.0, 0.0, 0.0])
        return model_part.CreateNewElement(element_name, particle_id, [particle_id], properties)

    def _NextId(self, root):
        # One scan of the root's ids per root, then counted on.
        name = root.Name
        if name not in self._next_id:
            largest = 0
            for node in root.Nodes:
                largest = max(largest, node.Id)
            for element in root.Elements:
                largest = max(largest, element.Id)
            self._next_id[name] = largest + 1
        particle_id = self._next_id[name]
        while root.HasNode(particle_id) or root.HasElement(particle_id):
            particle_id += 1  # ids the script took itself since
        return particle_id
