"""Time integration by Kratos' scheme names (applications/dem/strategies).

Source: the thesis' benchmark B2.1 (§2.6.3, Figs. 2.10-2.12): a particle thrown
up at v0 = 1 m/s under g = -10 m/s², Δt = 0.02 s, 10 steps to t = 0.2 s. The
velocity is exact for every scheme (constant acceleration): v(0.2) = -1. The
position is exact for Taylor_Scheme and Velocity_Verlet, y(0.2) = 0, and off by
exactly +0.02 (Forward_Euler) and -0.02 (Symplectic_Euler). Checked to 1e-14.
Energy: an undamped, frictionless elastic collision conserves kinetic plus
contact elastic energy; Velocity Verlet keeps the total within 1e-4 of the
initial at every step at 200 steps per contact, and the kinetic energy after
separation within 1e-5 (Hertz energy, thesis eqs. A.15-A.16).
"""

import numpy as np
import pytest

import tessera

from dem_test_utilities import (Material, Relate, Run, Settings, Sphere, SphereUnderMoment,
                                SpheresPart)


def Dem():
    from tessera import _dem
    return _dem


EXPECTED_HEIGHT = {"Forward_Euler": 0.02, "Symplectic_Euler": -0.02, "Taylor_Scheme": 0.0,
                   "Velocity_Verlet": 0.0}


@pytest.mark.parametrize("scheme", sorted(EXPECTED_HEIGHT))
def test_parabolic_flight_is_what_each_scheme_gives_exactly(scheme):
    model = tessera.Model()
    spheres = SpheresPart(model)
    material = Material(spheres, 1, density=1000.0)
    Sphere(spheres, 1, (0.0, 0.0, 0.0), 0.01, material, velocity=(0.0, 1.0, 0.0))
    strategy = Dem().ExplicitSolverStrategy(spheres, None, Settings(0.02, scheme, (0.0, -10.0, 0.0)))
    strategy.Initialize()
    Run(strategy, 10, 0.02)
    strategy.WriteToNodes()
    node = spheres.GetNode(1)
    assert node.Y == pytest.approx(EXPECTED_HEIGHT[scheme], abs=1e-14)
    assert node.GetSolutionStepValue(tessera.VELOCITY_Y) == pytest.approx(-1.0, abs=1e-14)
    assert node.GetSolutionStepValue(tessera.DISPLACEMENT_Y) == pytest.approx(
        EXPECTED_HEIGHT[scheme], abs=1e-14)
    assert node.GetSolutionStepValue(tessera.TOTAL_FORCES_Y) == pytest.approx(
        -10.0 * strategy.Particles.mass[0], rel=1e-15)


def test_a_fixed_velocity_component_is_kept_not_integrated():
    model = tessera.Model()
    spheres = SpheresPart(model)
    material = Material(spheres, 1, density=1000.0)
    Sphere(spheres, 1, (0.0, 0.0, 0.0), 0.01, material, velocity=(2.0, 1.0, 0.0))
    node = spheres.GetNode(1)
    node.AddDof(tessera.VELOCITY_X)
    node.Fix(tessera.VELOCITY_X)
    strategy = Dem().ExplicitSolverStrategy(spheres, None,
                                            Settings(0.01, "Symplectic_Euler", (-10.0, -10.0, 0.0)))
    strategy.Initialize()
    Run(strategy, 10, 0.01)
    strategy.WriteToNodes()
    assert node.GetSolutionStepValue(tessera.VELOCITY_X) == 2.0
    assert node.X == pytest.approx(0.2, abs=1e-14)
    assert node.GetSolutionStepValue(tessera.VELOCITY_Y) == pytest.approx(0.0, abs=1e-14)


def ElasticPair(scheme, law="DEM_D_Hertz_viscous_Coulomb"):
    """Two spheres of different size and material meeting off-centre, e = 1,
    no friction, no gravity."""
    model = tessera.Model()
    spheres = SpheresPart(model)
    a = Material(spheres, 1, density=2800.0, young=4.8e10, poisson=0.2)
    b = Material(spheres, 2, density=7800.0, young=2.1e11, poisson=0.3)
    Relate(a, b, restitution=1.0, static_friction=0.0, law=law)
    Sphere(spheres, 1, (-0.0101, 0.004, 0.0), 0.01, a, velocity=(3.0, 0.0, 0.0))
    Sphere(spheres, 2, (0.008, 0.0, 0.0), 0.008, b, velocity=(-1.0, 0.5, 0.0))
    return model, spheres


@pytest.mark.parametrize("law", ["DEM_D_Hertz_viscous_Coulomb", "DEM_D_Linear_viscous_Coulomb"])
def test_an_undamped_frictionless_elastic_collision_conserves_energy(law):
    # Kinetic + the contact's elastic energy (which the strategy derives from
    # the contact's history: NormalElasticEnergy) stays the initial kinetic
    # energy through the contact, for both laws.
    _, spheres = ElasticPair("Velocity_Verlet", law)
    dem = Dem()
    probe = dem.ExplicitSolverStrategy(spheres, None, Settings(1.0))
    probe.Initialize()
    contact_time = probe.EstimateTimeStep(4.0).contact_time
    dt = contact_time / 200
    strategy = dem.ExplicitSolverStrategy(spheres, None, Settings(dt))
    strategy.Initialize()
    initial = strategy.KineticEnergy()
    worst = 0.0
    touched = []

    def check(time):
        nonlocal worst
        total = strategy.KineticEnergy() + strategy.ContactElasticEnergy()
        worst = max(worst, abs(total - initial) / initial)
        touched.append(strategy.NumberOfParticleContacts())

    Run(strategy, 3000, dt, check)
    assert max(touched) == 1 and touched[-1] == 0  # they met and parted
    assert worst < 1e-4
    assert strategy.KineticEnergy() == pytest.approx(initial, rel=1e-5)
    # Momentum is conserved to round-off (action = reaction).
    p = strategy.Particles
    momentum = (p.mass[:, None] * p.velocity).sum(axis=0)
    np.testing.assert_allclose(momentum, p.mass[0] * np.array([3.0, 0, 0]) +
                               p.mass[1] * np.array([-1.0, 0.5, 0]), rtol=0, atol=1e-14)
    # Frictionless contact: normal forces only, so no spin.
    np.testing.assert_allclose(p.angular_velocity, 0.0, atol=1e-12)


def test_torque_of_a_frictional_contact_spins_the_spheres_by_direct_integration():
    # A sphere sliding along another's side with friction: equal and opposite
    # angular momenta about the contact... the total angular momentum about the
    # origin is conserved (no external torque), which checks the lever arms and
    # the rotation update together.
    model = tessera.Model()
    spheres = SpheresPart(model)
    a = Material(spheres, 1, density=2800.0, young=4.8e10, poisson=0.2)
    Relate(a, a, restitution=0.8, static_friction=0.3, dynamic_friction=0.25)
    Sphere(spheres, 1, (-0.0105, 0.006, 0.0), 0.01, a, velocity=(3.0, 0.0, 0.0))
    Sphere(spheres, 2, (0.0105, 0.0, 0.0), 0.01, a, velocity=(-3.0, 0.0, 0.0))
    dem = Dem()
    strategy = dem.ExplicitSolverStrategy(spheres, None, Settings(1e-7, "Symplectic_Euler"))
    strategy.Initialize()

    def angular_momentum():
        p = strategy.Particles
        spin = (p.inertia[:, None] * p.angular_velocity).sum(axis=0)
        orbital = np.cross(p.position, p.mass[:, None] * p.velocity).sum(axis=0)
        return spin + orbital

    before = angular_momentum()
    Run(strategy, 8000, 1e-7)
    after = angular_momentum()
    assert np.abs(strategy.Particles.angular_velocity[:, 2]).min() > 1.0  # they spin
    # Symplectic Euler: positions use the new velocities, so L drifts by O(Δt);
    # relative to the spin built up it stays small.
    spin = abs(strategy.Particles.inertia[0] * strategy.Particles.angular_velocity[0][2])
    assert np.abs(after - before).max() < 1e-3 * spin


def test_global_damping_takes_its_fraction_of_the_unbalanced_force():
    # Thesis eq. 5.18: F_damp = -α |F| v/|v|. Falling along gravity with α = 0.2
    # the sphere accelerates at (1 - α) g once it moves (v0 > 0 down).
    model = tessera.Model()
    spheres = SpheresPart(model)
    material = Material(spheres, 1, density=1000.0)
    Sphere(spheres, 1, (0.0, 0.0, 0.0), 0.01, material, velocity=(0.0, 0.0, -1.0))
    settings = Settings(1e-3, "Symplectic_Euler", (0.0, 0.0, -10.0))
    settings.global_damping = 0.2
    strategy = Dem().ExplicitSolverStrategy(spheres, None, settings)
    strategy.Initialize()
    Run(strategy, 100, 1e-3)
    assert strategy.Particles.velocity[0][2] == pytest.approx(-1.0 - 0.8 * 10.0 * 0.1, rel=1e-12)


def test_per_component_global_damping_acts_on_each_component_alone():
    # Kratos' form: F_k *= 1 - α sign(F_k v_k). A sphere thrown at (1, 0, 2) m/s
    # under g = 10, α = 0.2: no force along x, so v_x stays; while rising
    # gravity opposes v_z (a_z = -(1 + α) g), while falling it drives it
    # (a_z = -(1 - α) g). The vector form (thesis 5.18) brakes v_x as well.
    def Throw(form):
        model = tessera.Model()
        spheres = SpheresPart(model)
        Sphere(spheres, 1, (0.0, 0.0, 0.0), 0.01, Material(spheres, 1, density=1000.0),
               velocity=(1.0, 0.0, 2.0))
        settings = Settings(1e-3, "Symplectic_Euler", (0.0, 0.0, -10.0))
        settings.global_damping = 0.2
        settings.global_damping_form = form
        strategy = Dem().ExplicitSolverStrategy(spheres, None, settings)
        strategy.Initialize()
        trace = []
        Run(strategy, 400, 1e-3, lambda time: trace.append(list(strategy.Particles.velocity[0])))
        return np.array(trace)

    v = Throw("per_component")
    assert np.all(v[:, 0] == 1.0)
    # Rising for 2 / 12 s (166 steps), falling after it.
    np.testing.assert_allclose(v[:160, 2], 2.0 - 12.0 * 1e-3 * np.arange(1, 161), rtol=1e-12)
    np.testing.assert_allclose(np.diff(v[200:, 2]), -8.0 * 1e-3, rtol=1e-9)
    assert Throw("vector")[-1][0] < 0.99


def test_rotation_option_off_keeps_angular_velocities():
    model = tessera.Model()
    spheres = SpheresPart(model)
    a = Material(spheres, 1, density=2800.0, young=4.8e10, poisson=0.2)
    Relate(a, a, restitution=0.8, static_friction=0.3)
    Sphere(spheres, 1, (-0.0105, 0.006, 0.0), 0.01, a, velocity=(3.0, 0.0, 0.0),
           angular_velocity=(0.0, 0.0, 5.0))
    Sphere(spheres, 2, (0.0105, 0.0, 0.0), 0.01, a, velocity=(-3.0, 0.0, 0.0))
    settings = Settings(1e-7, "Symplectic_Euler")
    settings.rotation = False
    strategy = Dem().ExplicitSolverStrategy(spheres, None, settings)
    strategy.Initialize()
    Run(strategy, 8000, 1e-7)
    np.testing.assert_array_equal(strategy.Particles.angular_velocity, [[0, 0, 5.0], [0, 0, 0]])
    assert strategy.Particles.velocity[0][0] < 0.0  # they did collide


@pytest.mark.parametrize("translation,rotation,angle_steps", [
    ("Forward_Euler", "Direct_Integration", lambda n: n * (n - 1) / 2),
    ("Forward_Euler", "Runge_Kutta", lambda n: n * (n + 1) / 2),
    ("Symplectic_Euler", "Quaternion_Integration", lambda n: n * (n + 1) / 2),
    ("Velocity_Verlet", "Direct_Integration", lambda n: n * n / 2),
    ("Velocity_Verlet", "Quaternion_Integration", lambda n: n * (n + 1) / 2),
])
def test_rotational_schemes_turn_a_sphere_under_a_constant_moment(translation, rotation,
                                                                  angle_steps):
    """A free sphere under a constant applied moment M (angular acceleration
    a = M / I), n steps: every scheme gives ω = n a Δt exactly. The rotation
    angle is a Δt² times n(n-1)/2 (Forward Euler), n(n+1)/2 (symplectic: Kratos'
    Quaternion_Integration and Runge_Kutta reduce to it for a sphere, whatever
    the translational scheme) or n²/2 (Velocity Verlet); rel 1e-12."""
    from tessera import _dem
    moment = np.array([1e-6, -2e-6, 3e-6])
    _, spheres = SphereUnderMoment(moment)
    settings = Settings(1e-3, translation)
    settings.rotational_scheme = rotation
    strategy = _dem.ExplicitSolverStrategy(spheres, None, settings)
    strategy.Initialize()
    n, dt = 40, 1e-3
    Run(strategy, n, dt)
    strategy.WriteToNodes()
    alpha = moment / strategy.Particles.inertia[0]
    node = spheres.GetNode(1)
    np.testing.assert_allclose(node.GetSolutionStepValue(tessera.ANGULAR_VELOCITY), n * alpha * dt,
                               rtol=1e-12)
    np.testing.assert_allclose(node.GetSolutionStepValue(tessera.PARTICLE_ROTATION_ANGLE),
                               angle_steps(n) * alpha * dt * dt, rtol=1e-12)


# ------------------------------------------------- the relative displacement
def FrictionalPile(scheme, fixed_bystander=False, steps=150):
    """The contact-batch tests' pile (600 spheres, Hertz, friction 0.4, random
    velocities of 1 m/s: contacts stick, slide and unload) run for `steps`
    steps; with `fixed_bystander` a sphere far from the others has its
    VELOCITY_X fixed, which makes the pair loop keep the increment form."""
    from dem_test_utilities import Pile
    model, spheres, walls = Pile(600, spacing=0.0125)
    if fixed_bystander:
        grain = next(iter(spheres.Elements)).GetProperties()
        Sphere(spheres, 1000, (5.0, 5.0, 5.0), 0.005, grain, velocity=(0.1, 0.0, 0.0))
        node = spheres.GetNode(1000)
        node.AddDof(tessera.VELOCITY_X)
        node.Fix(tessera.VELOCITY_X)
    settings = Settings(2e-5, scheme, (0, 0, -9.81), search_frequency=7, tolerance=0.001)
    strategy = Dem().ExplicitSolverStrategy(spheres, walls, settings)
    strategy.Initialize()
    assert not strategy.RelativeDisplacementIsVelocityStep()  # no increment made yet
    Run(strategy, steps, 2e-5)
    return strategy


def test_symplectic_euler_takes_the_velocity_form_only_where_the_increments_are_the_velocities():
    """Symplectic Euler makes Δx = v Δt and Δθ = ω Δt with the velocities the
    next forces see, so the pair loop may take a contact's relative
    displacement as its relative velocity times Δt, as under Velocity Verlet.
    Not where a row moved otherwise: a fixed velocity dof (a process may impose
    a new velocity before the forces), glued or cluster rows, rows inserted
    since the last integration; nor for Forward_Euler and Taylor_Scheme, whose
    increments use the velocity before the kick."""
    assert FrictionalPile("Symplectic_Euler", steps=1).RelativeDisplacementIsVelocityStep()
    assert FrictionalPile("Velocity_Verlet", steps=1).RelativeDisplacementIsVelocityStep()
    for scheme in ("Forward_Euler", "Taylor_Scheme"):
        assert not FrictionalPile(scheme, steps=3).RelativeDisplacementIsVelocityStep()
    assert not FrictionalPile("Symplectic_Euler", fixed_bystander=True,
                              steps=3).RelativeDisplacementIsVelocityStep()


def test_symplectic_euler_velocity_form_gives_the_increment_forms_motion():
    """The two forms are the same number written two ways, (Δx_j - Δx_i) -
    (a_j Δθ_j + a_i Δθ_i) × n against ((v_j - v_i) - (a_j ω_j + a_i ω_i) × n) Δt:
    150 steps of the frictional pile with each (the increment form forced by a
    fixed sphere far away) end within round-off of each other. Measured: the
    largest difference 1.2e-17 m in position (of 0.075 m), 9.6e-15 m/s in
    velocity (of 2.9 m/s), 1.7e-12 rad/s in spin (of 389 rad/s); asserted
    1e-14 m, 1e-11 m/s and 1e-9 rad/s."""
    velocity_form = FrictionalPile("Symplectic_Euler")
    increment_form = FrictionalPile("Symplectic_Euler", fixed_bystander=True)
    assert velocity_form.RelativeDisplacementIsVelocityStep()
    assert not increment_form.RelativeDisplacementIsVelocityStep()
    assert velocity_form.NumberOfParticleContacts() > 50
    a, b = velocity_form.Particles, increment_form.Particles
    n = len(a.radius)
    # Different paths ran (the last bits differ), and they agree to round-off.
    assert not np.array_equal(a.velocity[:n], b.velocity[:n])
    assert np.abs(a.position[:n] - b.position[:n]).max() < 1e-14
    assert np.abs(a.velocity[:n] - b.velocity[:n]).max() < 1e-11
    assert np.abs(a.angular_velocity[:n] - b.angular_velocity[:n]).max() < 1e-9
