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

With no other loads, E_T stays at its initial value up to the time
discretisation error: a drift shows a time step too large (thesis §4.4.2).
Point loads, pressures and imposed motions of the structure do work that is
not counted.

The file "<name>_coupled_energy.dat" has one row per sample (a header names
the columns), "<name>_coupled_energy.png" plots them (matplotlib).
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
        self.interval = 1
        self._file = None

    def Start(self, end_time, delta_time, start_time):
        steps = max(1, int(round((end_time - start_time) / delta_time)))
        self.interval = max(1, steps // self.samples)
        # The explicit solver's mass damping (implicit runs: not counted).
        self.alpha = getattr(self.stage.structural_stage._GetSolver(), "mass_damping", 0.0)
        self._file = open(self.path, "w")
        self._file.write("# coupled DE-FE energy balance (J); E_T = the sum of the terms\n")
        self._file.write("# time " + " ".join(TERMS) + " E_T\n")
        self.Sample(force=True)

    def Restore(self, rows, damping_work):
        """A continued run (coupled_checkpoint.py): the samples and the
        damping work of the saved run; the file is written again with them."""
        self.rows = list(rows)
        self.damping_work = damping_work
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
        dem = stage.GetDEMStage().GetStrategy().GetEnergies()
        return {
            "fe_kinetic": 0.5 * float(np.dot(masses, np.einsum("ij,ij->i", v, v))),
            "fe_strain": _structural.ComputeStrainEnergy(structure),
            "fe_gravity": -float(np.dot(masses, np.einsum("ij,ij->i", g, u))),
            "fe_damping": self.damping_work,
            "dem_kinetic": dem["kinetic_translational"] + dem["kinetic_rotational"],
            "dem_gravity": dem["gravitational_potential"],
            "contact_elastic": dem["elastic_normal"] + dem["elastic_tangential"],
            "dem_dissipated": (dem["dissipated_damping"] + dem["dissipated_friction"]
                               + dem["dissipated_rolling"] + dem["dissipated_global_damping"]),
        }

    def Sample(self, force=False):
        terms = self.Terms()
        total = sum(terms.values())
        self.rows.append((self.stage.time, *(terms[k] for k in TERMS), total))
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
