"""Specimens of bonded spheres for the virtual laboratory (tessera.dem.virtual_lab):
a random dense packing of a given radius distribution filling a cylinder or a
Brazilian disc, made by radius-growth compaction, and its measures (porosity,
coordination number of the bonds a range β would make).

The compaction: the spheres' centres are drawn uniformly in the specimen and
their radii scaled down by a factor f (0.6 at the start); each round, every
pair that overlaps is pushed apart along its line of centres by 0.35 of its
overlap each (under-relaxed Jacobi sweeps of the contact constraints), the
centres are projected back inside the specimen, and f grows by 0.005 per
round of four sweeps (`growth`). The packing is the state at f = 1
once the overlaps have relaxed below `tolerance` × the mean radius. The
number of spheres follows from the solid fraction aimed at (0.55 by default:
random close packing is about 0.64 in bulk, less against walls): a fuller
specimen jams before its overlaps relax and is reported as an error.
A denser specimen (DENSE below: solid fraction 0.60, porosity about 0.40 in
a cylinder ten mean diameters wide) relaxes with the overlaps allowed up to
0.05 of the mean radius (2.5 % of a diameter, well inside a bond range β of
0.15); with the default 0.02 it stalls near 0.04 (growth 0.005 and 0.001 alike).
"""
import math

import numpy as np

import tessera

SHAPES = ("cylinder", "disc")

# Settings of GenerateSpecimen for the densest packing it reaches (module comment).
DENSE = {"solid_fraction": 0.60, "tolerance": 0.05, "verlet_list": True}


def Pairs(position, reach):
    """(i, j) with i < j of the points closer than `reach` (a cell list in numpy)."""
    n = len(position)
    if n < 2:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    low = position.min(axis=0)
    cell = np.floor((position - low) / reach).astype(np.int64)
    dims = cell.max(axis=0) + 1
    key = (cell[:, 0] * dims[1] + cell[:, 1]) * dims[2] + cell[:, 2]
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    firsts, seconds = [], []
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            for dz in (-1, 0, 1):
                other = cell + (dx, dy, dz)
                valid = np.all((other >= 0) & (other < dims), axis=1)
                other_key = (other[:, 0] * dims[1] + other[:, 1]) * dims[2] + other[:, 2]
                start = np.searchsorted(sorted_key, other_key, "left")
                count = np.where(valid, np.searchsorted(sorted_key, other_key, "right") - start, 0)
                total = int(count.sum())
                if total == 0:
                    continue
                i = np.repeat(np.arange(n), count)
                offset = np.arange(total) - np.repeat(np.cumsum(count) - count, count)
                j = order[np.repeat(start, count) + offset]
                keep = i < j
                firsts.append(i[keep])
                seconds.append(j[keep])
    i = np.concatenate(firsts) if firsts else np.zeros(0, dtype=np.int64)
    j = np.concatenate(seconds) if seconds else np.zeros(0, dtype=np.int64)
    d = np.linalg.norm(position[j] - position[i], axis=1)
    close = d < reach
    return i[close], j[close]


class Specimen:
    """Centres (N, 3) and radii (N,) of the spheres; `shape`, `diameter`,
    `length` (the cylinder's height along z, or the disc's thickness along y)."""

    def __init__(self, shape, diameter, length, position, radius):
        self.shape, self.diameter, self.length = shape, diameter, length
        self.position, self.radius = position, radius

    def Volume(self):
        return math.pi * self.diameter**2 / 4.0 * self.length

    def Porosity(self):
        """1 - (volume of the spheres) / (volume of the specimen)."""
        return 1.0 - float(np.sum(4.0 / 3.0 * math.pi * self.radius**3)) / self.Volume()

    def BondPairs(self, beta):
        """(i, j) of the pairs with |d / (R_i + R_j) - 1| <= β (thesis 5.2)."""
        reach = 2.0 * (1.0 + beta) * float(self.radius.max())
        i, j = Pairs(self.position, reach)
        d = np.linalg.norm(self.position[j] - self.position[i], axis=1)
        ratio = d / (self.radius[i] + self.radius[j])
        keep = np.abs(ratio - 1.0) <= beta * (1.0 + 1e-12)
        return i[keep], j[keep]

    def CoordinationNumber(self, beta):
        """2 × bonds / spheres for the bonds a range β makes (thesis Table 5.3)."""
        i, _ = self.BondPairs(beta)
        return 2.0 * len(i) / len(self.radius)

    def AxialExtent(self):
        """(low, high) of the spheres along the loading axis (z)."""
        z = self.position[:, 2]
        return float(np.min(z - self.radius)), float(np.max(z + self.radius))


def _Project(position, radius, shape, diameter, length):
    """Centres moved inside the specimen (each sphere inside its boundary)."""
    half = 0.5 * diameter
    if shape == "cylinder":
        rho = np.hypot(position[:, 0], position[:, 1])
        limit = np.maximum(half - radius, 0.0)
        scale = np.where(rho > limit, limit / np.maximum(rho, 1e-300), 1.0)
        position[:, 0] *= scale
        position[:, 1] *= scale
        position[:, 2] = np.clip(position[:, 2], radius, length - radius)
    else:  # disc: axis along y, faces at y = ±length / 2, centre at z = diameter / 2
        dx, dz = position[:, 0], position[:, 2] - half
        rho = np.hypot(dx, dz)
        limit = np.maximum(half - radius, 0.0)
        scale = np.where(rho > limit, limit / np.maximum(rho, 1e-300), 1.0)
        position[:, 0] = dx * scale
        position[:, 2] = half + dz * scale
        position[:, 1] = np.clip(position[:, 1], -0.5 * length + radius, 0.5 * length - radius)
    return position


def GenerateSpecimen(shape="cylinder", diameter=0.15, length=0.30, radius=0.0075, spread=0.25,
                     solid_fraction=0.55, seed=1, tolerance=0.02, max_rounds=3000, growth=0.005,
                     verlet_list=False, where="specimen"):
    """A dense random packing (see the module comment) of spheres with radii
    uniform in radius × [1 - spread, 1 + spread], filling a cylinder (axis z,
    from z = 0 to `length`, centred on the z axis) or a disc (axis y, thickness
    `length`, from z = 0 to `diameter`). `growth`: the radius factor's step per
    round; `verlet_list`: keep the pair list between rounds (module comment)."""
    if shape not in SHAPES:
        raise tessera.Error(f"{where}: shape '{shape}' is not one of {', '.join(SHAPES)}")
    for name, value, low, high in (("diameter", diameter, 0.0, math.inf),
                                   ("length", length, 0.0, math.inf),
                                   ("radius", radius, 0.0, math.inf),
                                   ("spread", spread, -1e-300, 1.0),
                                   ("solid_fraction", solid_fraction, 0.0, 0.74),
                                   ("tolerance", tolerance, 0.0, math.inf),
                                   ("growth", growth, 0.0, 0.4 + 1e-12)):
        if not (low < value < high):
            raise tessera.Error(f"{where}: {name} must lie in ({max(low, 0)}, {high}), got {value}")
    if radius > 0.25 * min(diameter, length):
        raise tessera.Error(f"{where}: radius {radius} is too large for a specimen {diameter} x "
                            f"{length} (at most a quarter of the smaller side)")
    rng = np.random.default_rng(seed)
    volume = math.pi * diameter**2 / 4.0 * length
    # Mean sphere volume of the uniform distribution: E[r³] = r³ (1 + spread²).
    mean_volume = 4.0 / 3.0 * math.pi * radius**3 * (1.0 + spread**2)
    n = max(2, int(round(solid_fraction * volume / mean_volume)))
    radii = radius * (1.0 + spread * rng.uniform(-1.0, 1.0, n))
    half = 0.5 * diameter
    # Uniform in the cylinder / disc.
    rho = half * np.sqrt(rng.uniform(0.0, 1.0, n))
    angle = rng.uniform(0.0, 2.0 * math.pi, n)
    if shape == "cylinder":
        position = np.column_stack([rho * np.cos(angle), rho * np.sin(angle),
                                    rng.uniform(0.0, length, n)])
    else:
        position = np.column_stack([rho * np.cos(angle), rng.uniform(-0.5 * length, 0.5 * length, n),
                                    half + rho * np.sin(angle)])
    factor = 0.6
    rounds = 0
    # The pair list: rebuilt every round, or (verlet_list) kept as a Verlet
    # list of the pairs closer than 2.6 max r when built, which holds every
    # touching pair while reach - 2 (largest move since) >= 2 max r (with a
    # margin of 0.1 max r for the moves within a round): the same packing
    # up to the order of the sums, some four times faster.
    reach, built_at = 0.0, None
    while True:
        r = factor * radii
        if built_at is None or not verlet_list or (
                reach - 2.0 * float(np.max(np.linalg.norm(position - built_at, axis=1)))
                < 2.1 * float(r.max())):
            reach = (2.6 if verlet_list else 2.2) * float(r.max())
            i_all, j_all = Pairs(position, reach)
            built_at = position.copy()
        for _ in range(4):
            position = _Project(position, r, shape, diameter, length)
            d_vec = position[j_all] - position[i_all]
            d = np.linalg.norm(d_vec, axis=1)
            overlap = r[i_all] + r[j_all] - d
            touching = overlap > 0.0
            i, j = i_all[touching], j_all[touching]
            d_vec, d, overlap = d_vec[touching], d[touching], overlap[touching]
            largest = float(overlap.max()) if len(overlap) else 0.0
            if factor >= 1.0 and largest < tolerance * radius:
                break
            # Under-relaxed (0.7 of the half overlap): a sphere pushed by many
            # neighbours at once would otherwise overshoot.
            push = (0.35 * overlap / np.maximum(d, 1e-300))[:, None] * d_vec
            for axis in range(3):
                position[:, axis] += (np.bincount(j, push[:, axis], len(position))
                                      - np.bincount(i, push[:, axis], len(position)))
        rounds += 1
        if factor >= 1.0 and largest < tolerance * radius:
            break
        if rounds > max_rounds:
            raise tessera.Error(f"{where}: the packing of {n} spheres did not relax within "
                                f"{max_rounds} rounds (largest overlap {largest / radius:.3g} of "
                                f"the mean radius); lower solid_fraction ({solid_fraction})")
        factor = min(1.0, factor + growth)
    position = _Project(position, radii, shape, diameter, length)
    return Specimen(shape, diameter, length, position, radii)


def SkinFlags(specimen, depth=None):
    """Per sphere: 1 on the lateral surface (reaching within `depth`, one mean
    radius by default, of the curved boundary), 2 on an end (z extremes of a
    cylinder), 0 inside."""
    r = specimen.radius
    depth = float(r.mean()) if depth is None else depth
    half = 0.5 * specimen.diameter
    p = specimen.position
    flags = np.zeros(len(r), dtype=int)
    if specimen.shape == "cylinder":
        rho = np.hypot(p[:, 0], p[:, 1])
        flags[rho + r > half - depth] = 1
        low, high = specimen.AxialExtent()
        flags[(p[:, 2] - r < low + depth) | (p[:, 2] + r > high - depth)] = 2
    else:
        rho = np.hypot(p[:, 0], p[:, 2] - half)
        flags[rho + r > half - depth] = 1
    return flags


def ProjectedBondArea(position, first, second, area, axis=2, cuts=5):
    """The bonds' sections projected on the plane normal to `axis`, summed over
    the bonds that cross each of `cuts` planes evenly spaced through the middle
    60 % of the specimen (thesis V5.1): one value per cut."""
    z = position[:, axis]
    low, high = float(z.min()), float(z.max())
    d = position[second] - position[first]
    n = np.abs(d[:, axis]) / np.linalg.norm(d, axis=1)
    values = []
    for level in np.linspace(low + 0.2 * (high - low), high - 0.2 * (high - low), cuts):
        crossing = (z[first] - level) * (z[second] - level) < 0.0
        values.append(float(np.sum(area[crossing] * n[crossing])))
    return np.array(values)
