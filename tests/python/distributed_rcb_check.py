"""Run under mpirun by test_mpi_dem.py (or in one process): on every rank,
the boxes of tessera._dem.DistributedRecursiveCoordinateBisection of each
rank's share of a point set must be those of RecursiveCoordinateBisection
of the whole set, bit for bit. The sets: uniform points (with weights too),
a lattice full of equal coordinates at negative and positive positions, a
set smaller than the parts (empty sets to cut), and a set all on one rank.
Prints "rank R ok" per rank, or raises (a non-zero exit)."""
import numpy as np

import tessera
from tessera import _dem


def Sets():
    rng = np.random.default_rng(11)
    uniform = rng.uniform(0.0, 1.0, size=(3000, 3)) * [4.0, 2.0, 1.0]
    g = np.arange(-6, 7) * 0.25
    lattice = np.array(np.meshgrid(g, g[:5], g[:3], indexing="ij")).reshape(3, -1).T
    lattice = np.concatenate([lattice, lattice[::7]])  # duplicated points too
    few = rng.uniform(-1.0, 1.0, size=(5, 3))
    return [("uniform", uniform, None), ("weighted", uniform, [1.0, 3.0, 0.5, 2.0, 1.0, 1.0, 0.7]),
            ("lattice", lattice, None), ("few", few, None), ("one rank", uniform[:400], "rank 0")]


def main():
    c = tessera.DefaultCommunicator()
    rank, size = c.Rank(), c.Size()
    rng = np.random.default_rng(3)
    for name, points, option in Sets():
        # Each point's rank, drawn alike on every rank (rank 1 gets none of
        # the lattice: a rank without points); "rank 0": all on rank 0.
        owner = rng.integers(0, size, size=len(points))
        if name == "lattice" and size > 2:
            owner[owner == 1] = 0
        if option == "rank 0":
            owner[:] = 0
        weights = option if isinstance(option, list) else None
        for parts in (1, 2, 3, 4, 7):
            w = weights[:parts] if weights else []
            whole = _dem.RecursiveCoordinateBisection(points.tolist(), list(range(len(points))), parts, w)
            mine = points[owner == rank].tolist()
            spread = _dem.DistributedRecursiveCoordinateBisection(mine, parts, w, c)
            assert spread == whole, (name, parts, rank, spread, whole)
    c.Barrier()
    print(f"rank {rank} ok of {size}", flush=True)


if __name__ == "__main__":
    main()
