"""The energy balance of a coupled DE-FE run (thesis §4.4.2, eqs. 4.75-4.81
with stored contact energy and dissipation on the side of the strain
energy: the sign the thesis prints for the contact term in 4.81 would not
give a constant), written to a graph file and plotted at the end.

    E_T = E_kin,FE + E_int,FE + E_grav,FE + E_damp,FE
        + E_kin,DE + E_grav,DE + U_contact + D_DE

* E_kin,FE = Σ ½ M_i |v_i|² with the structure's lumped masses;
* E_int,FE = ∫ w dΩ0, the structure's strain energy
  (tessera.structural.ComputeStrainEnergy);
* E_grav,FE = -Σ M_i g_i · u_i, the potential of the nodal
  VOLUME_ACCELERATION (self-weight: the body-force work, 4.75c, moved to the
  left);
* E_damp,FE = ∫ α Σ M_i |v_i|² dt, what Rayleigh mass damping took
  (accumulated every step);
* E_kin,DE, E_grav,DE, U_contact (normal and tangential springs of every
  sphere-sphere and sphere-wall contact) and D_DE (contact damping,
  friction, rolling and background damping) from the DEM strategy's energy
  bookkeeping (its EnergyCalculationOption is switched on).

Under moreau_jean_strategy (rigid spheres, impulses; no clusters) the DEM
terms are the spheres' kinetic energy (translation and rotation), their
potential -Σ m g·x, no stored contact energy, and as D_DE what the impulses
took each step: the kinetic energy of the spheres and the skin nodes for
their free velocities (v_n + Δt g, ω_n; the nodes' v_n+3/2,free with the
masses of the Delassus operator, m (1 + α Δt/2)) minus that after the
impulses (v⁺, ω⁺; v_n+3/2,free + P/m̃), over the free components. That is
Σ_c -P_c·(U⁺_c + U_c,free)/2 over the contacts: zero for a single e = 1
contact at rest, the impact losses otherwise (Newton's law on the start
velocities: a step's gravity and the nodes' elastic acceleration make it
differ slightly from zero for e = 1). The structure's kinetic energy is
taken at the full-step v, as in the smooth balance (at v_n+3/2, the velocity
of the contact law, E_T oscillated twice as much with the skin's vibration).

With no other loads, E_T stays at its initial value up to the time
discretisation error: a drift shows a time step too large (thesis §4.4.2).
Point loads, pressures and imposed motions of the structure do work that is
not counted.

The file "<name>_coupled_energy.dat" has one row per sample (a header names
the columns), "<name>_coupled_energy.png" plots them (matplotlib).

Distributed runs ("parallel_type": "MPI", distributed_coupling.py): every
rank takes each sample (the terms are collective). The structure's terms are
sums over the rank's elements: the lumped masses of NodalMasses() are the
rank's elements' shares (a shared node's mass split over the ranks that hold
it, its velocity the same bits on each), so Σ over the rank's nodes of
½ m_share |v|², -m_share g·u and α m_share |v|² counts every element's mass
once over the run, and the strain energy is a sum over the rank's elements;
the four are then added over the ranks in rank order (the same bits on every
rank). The Rayleigh work is each rank's running sum, added at the samples.
The DEM's terms are DistributedDem.GlobalEnergies (each sphere and contact
once); a Moreau-Jean run's DEM is replicated, its terms and the impulses'
loss (on the whole skin, whose states and impulses every rank holds)
computed alike on every rank. Rank 0 alone writes the file and the plot. Equal to the serial terms
to rounding (other associations of the same sums).
"""
import os

import numpy as np

import tessera

TERMS = ("fe_kinetic", "fe_strain", "fe_gravity", "fe_damping", "dem_kinetic", "dem_gravity",
         "contact_elastic", "dem_dissipated")


class CoupledEnergyMonitor:
    def __init__(self, stage, path, samples):
        self.stage = stage
        self.path = path
        self.samples = max(1, int(samples))
        self.rows = []
        self.damping_work = 0.0
        # Moreau-Jean: the kinetic energy the impulses took (AddImpactLoss).
        self.nonsmooth = stage.nonsmooth
        self.impact_loss = 0.0
        self.interval = 1
        self._file = None
        # A distributed run: the rank-ordered sums of DistributedCoupling; only
        # rank 0 writes.
        self.distributed = getattr(stage, "distributed", None)
        self.writes_file = self.distributed is None or self.distributed.rank == 0

    def Start(self, end_time, delta_time, start_time, sample=True):
        """The file and the first sample (`sample` False: a continued run
        whose checkpoint brings the samples, Restore)."""
        steps = max(1, int(round((end_time - start_time) / delta_time)))
        self.interval = max(1, steps // self.samples)
        # The explicit solver's mass damping (implicit runs: not counted).
        self.alpha = getattr(self.stage.structural_stage._GetSolver(), "mass_damping", 0.0)
        if self.nonsmooth and len(self.stage.GetDEMStage().GetStrategy().Clusters()) > 0:
            raise tessera.Error("coupling: energy_output with moreau_jean_strategy counts spheres (their "
                                "potential from the rows); this DEM model has Cluster3D clusters")
        if self.writes_file:
            self._file = open(self.path, "w")
            self._file.write("# coupled DE-FE energy balance (J); E_T = the sum of the terms\n")
            self._file.write("# time " + " ".join(TERMS) + " E_T\n")
        if sample:
            self.Sample(force=True)

    def SpheresFreeKineticEnergy(self, h):
        """Moreau-Jean, before the DEM step: the spheres' kinetic energy for
        their free velocities v_n + h g and ω_n (the strategy's
        KineticEnergy, plus what gravity alone adds over the step)."""
        strategy = self.stage.GetDEMStage().GetStrategy()
        rows = strategy.Particles
        m = np.asarray(rows.mass)
        v = np.asarray(rows.velocity)
        g = self._DemGravity()
        gain = 0.5 * float(np.dot(m, np.einsum("ij,ij->i", v + h * g, v + h * g) - np.einsum("ij,ij->i", v, v)))
        return strategy.KineticEnergy() + gain

    def AddImpactLoss(self, spheres_free_energy, node_free, impulse, dv, free_components):
        """Moreau-Jean, after the DEM step: adds the kinetic energy the
        impulses took from the spheres and the skin nodes (module text);
        ½ m̃ (|v_f + dv|² - |v_f|²) = P·v_f + ½ P·dv per free component."""
        strategy = self.stage.GetDEMStage().GetStrategy()
        nodes_gain = float(np.sum(np.where(free_components, impulse * (node_free + 0.5 * dv), 0.0)))
        self.impact_loss += spheres_free_energy - strategy.KineticEnergy() - nodes_gain

    def _DemGravity(self):
        deck = self.stage.GetDEMStage().DEM_parameters
        return np.array([deck[f"Gravity{a}"].GetDouble() for a in "XYZ"])

    def Restore(self, rows, damping_work):
        """A continued run (coupled_checkpoint.py): the samples and the
        damping work of the saved run; the file is written again with them."""
        self.rows = list(rows)
        self.damping_work = damping_work
        if self._file is None:  # a distributed run's rank > 0 writes no file
            return
        self._file.seek(0)
        self._file.truncate()
        self._file.write("# coupled DE-FE energy balance (J); E_T = the sum of the terms\n")
        self._file.write("# time " + " ".join(TERMS) + " E_T\n")
        for row in self.rows:
            self._file.write(" ".join(f"{x:.12g}" for x in row) + "\n")
        self._file.flush()

    def AfterStep(self, step, delta_time):
        """Accumulates the Rayleigh dissipation; samples every `interval` steps."""
        if self.alpha > 0.0:
            v = self.stage.structure.NodalArray(tessera.VELOCITY)
            self.damping_work += self.alpha * float(np.dot(self.stage.NodalMasses(), np.einsum("ij,ij->i", v, v))) \
                * delta_time
        if step % self.interval == 0:
            self.Sample()

    def Terms(self):
        from tessera import _structural
        stage = self.stage
        structure = stage.structure
        masses = stage.NodalMasses()
        v = structure.NodalArray(tessera.VELOCITY)
        u = structure.NodalArray(tessera.DISPLACEMENT)
        g = structure.NodalArray(tessera.VOLUME_ACCELERATION)
        fe = np.array([0.5 * float(np.dot(masses, np.einsum("ij,ij->i", v, v))),
                       _structural.ComputeStrainEnergy(structure),
                       -float(np.dot(masses, np.einsum("ij,ij->i", g, u))),
                       self.damping_work])
        if self.distributed is not None:
            fe = self.distributed.SumOverRanks(fe)  # collective (module text)
        if self.nonsmooth:
            return self._NonsmoothTerms(fe)
        # Distributed: DistributedDem.GlobalEnergies, collective.
        dem = stage.GetDEMStage().GetEnergies()
        return {
            "fe_kinetic": float(fe[0]),
            "fe_strain": float(fe[1]),
            "fe_gravity": float(fe[2]),
            "fe_damping": float(fe[3]),
            "dem_kinetic": dem["kinetic_translational"] + dem["kinetic_rotational"],
            "dem_gravity": dem["gravitational_potential"],
            "contact_elastic": dem["elastic_normal"] + dem["elastic_tangential"],
            "dem_dissipated": (dem["dissipated_damping"] + dem["dissipated_friction"]
                               + dem["dissipated_rolling"] + dem["dissipated_global_damping"]),
        }

    def _NonsmoothTerms(self, fe):
        """Moreau-Jean: the structure's terms `fe` and the DEM's from the
        strategy's rows (a distributed run's DEM is replicated: every rank
        holds them all) and the impulses' loss."""
        strategy = self.stage.GetDEMStage().GetStrategy()
        rows = strategy.Particles
        m = np.asarray(rows.mass)
        x = np.asarray(rows.position)
        return {
            "fe_kinetic": float(fe[0]),
            "fe_strain": float(fe[1]),
            "fe_gravity": float(fe[2]),
            "fe_damping": float(fe[3]),
            "dem_kinetic": strategy.KineticEnergy(),
            "dem_gravity": -float(np.dot(m, x @ self._DemGravity())),
            "contact_elastic": 0.0,
            "dem_dissipated": self.impact_loss,
        }

    def Sample(self, force=False):
        terms = self.Terms()
        total = sum(terms.values())
        self.rows.append((self.stage.time, *(terms[k] for k in TERMS), total))
        if self._file is None:
            return
        self._file.write(" ".join(f"{x:.12g}" for x in self.rows[-1]) + "\n")
        if force:
            self._file.flush()

    def Drift(self):
        """max |E_T - E_T(0)| over the samples, relative to the largest term
        seen (the energy scale of the run)."""
        rows = np.asarray(self.rows)
        scale = np.max(np.abs(rows[:, 1:-1]))
        return float(np.max(np.abs(rows[:, -1] - rows[0, -1])) / scale) if scale > 0.0 else 0.0

    def Finish(self, plot=True):
        if self._file is None:
            return None
        self._file.close()
        self._file = None
        if not plot:
            return None
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("coupling: matplotlib is not installed; the energy plot was not drawn "
                  f"({self.path} holds the numbers)")
            return None
        rows = np.asarray(self.rows)
        figure, axis = plt.subplots(figsize=(8, 4.5))
        for k, name in enumerate(TERMS):
            if np.any(rows[:, k + 1] != 0.0):
                axis.plot(rows[:, 0], rows[:, k + 1], lw=1, label=name)
        axis.plot(rows[:, 0], rows[:, -1], color="k", lw=2, label="E_T (sum)")
        axis.set_xlabel("t (s)")
        axis.set_ylabel("energy (J)")
        axis.set_title(f"coupled energy balance: E_T drift {100 * self.Drift():.3g} % of the largest term")
        axis.legend(fontsize=8, ncol=2)
        figure.tight_layout()
        png = os.path.splitext(self.path)[0] + ".png"
        figure.savefig(png, dpi=100)
        plt.close(figure)
        return png
