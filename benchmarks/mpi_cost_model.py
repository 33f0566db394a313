"""The cost of distributed runs past this machine: message sizes of real
decompositions, and a model of the step time at 64-1,024 ranks.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/mpi_cost_model.py \
        [--mesh 128 64 64] [--ranks 2 4 8 ... 1024] [--json FILE]

Only two cores are here, so scaling past them is a model, and this script
writes down its inputs. Two parts:

* Structural FEM, explicit central differences (the distributed solver of
  kernel/solving/explicit_central_differences.h): a box of hexahedra split by
  tessera.PartitionMesh (METIS, as `mpirun` runs do) into P parts. Each step a
  rank exchanges with every neighbour part the residual of the nodes they
  share (InterfaceSum: 3 doubles per shared node, each way). The neighbour
  lists and shared node counts are computed from the partition exactly as
  DistributeModelPart gives them to InterfaceSum (checked against it for
  small P). Strong scaling: the whole mesh over P ranks. Weak scaling: the
  elements per rank of the mesh at the smallest P held, P growing (the mesh
  cut to P times that many elements).
* DEM, spatial decomposition by recursive coordinate bisection on particle
  counts (issue 42's design): P boxes of equal particle count over a
  uniform packing; each rank receives every step the ghosts within one search
  distance of its box from the neighbour boxes. Ghost counts are the packing
  density times the shell's volume (exact in expectation; checked against
  random particles for small P). Pairs across a boundary are either computed
  on both ranks (extra work: 2R / 4h particle-steps per ghost, h the layer's
  thickness) or once, the force sent back (`--boundary-pairs`).

The step time of a rank is modelled as compute plus communication, with no
overlap of the two (pessimistic):

    t_step = W / throughput + sum over neighbours (alpha + bytes / bandwidth)
             + reductions * alpha * ceil(log2 P)

efficiency = (W / throughput) / t_step for the busiest rank. The
per-core throughputs default to the single-core measurements in
docs/performance.md; alpha and bandwidth default to an InfiniBand HDR100
class network (1.5 us, 12.5 GB/s per link) and are options, since no such
network is here.
"""
import argparse
import itertools
import json
import math
import os
import sys
import tempfile

import numpy as np

# ---------------------------------------------------------------------------
# Structural: METIS partitions of a box of hexahedra


def hex_box(nx, ny, nz):
    """Node coordinates (N, 3) and hexahedra (E, 8), ids from 1, x fastest."""
    ix, iy, iz = np.meshgrid(np.arange(nx + 1), np.arange(ny + 1), np.arange(nz + 1), indexing="ij")
    coords = np.stack([ix.ravel("F"), iy.ravel("F"), iz.ravel("F")], axis=1).astype(float)

    def nid(i, j, k):
        return 1 + i + (nx + 1) * (j + (ny + 1) * k)

    ei, ej, ek = np.meshgrid(np.arange(nx), np.arange(ny), np.arange(nz), indexing="ij")
    ei, ej, ek = ei.ravel("F"), ej.ravel("F"), ek.ravel("F")
    corners = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
    hexes = np.stack([nid(ei + a, ej + b, ek + c) for a, b, c in corners], axis=1)
    return coords, hexes


def read_box(tessera, folder, nx, ny, nz):
    """The box as a model part, through an .mdpa (the fast reader)."""
    coords, hexes = hex_box(nx, ny, nz)
    path = os.path.join(folder, f"box_{nx}_{ny}_{nz}")
    with open(path + ".mdpa", "w") as f:
        f.write("Begin Properties 1\nEnd Properties\n\nBegin Nodes\n")
        ids = np.arange(1, len(coords) + 1)
        np.savetxt(f, np.column_stack([ids, coords]), fmt="%d %.1f %.1f %.1f")
        f.write("End Nodes\n\nBegin Elements Element3D8N\n")
        np.savetxt(f, np.column_stack([np.arange(1, len(hexes) + 1), np.ones(len(hexes), int), hexes]),
                   fmt="%d")
        f.write("End Elements\n")
    model = tessera.Model()
    mp = model.CreateModelPart("Box")
    tessera.ModelPartIO(path, tessera.IO.READ | tessera.IO.MESH_ONLY).ReadModelPart(mp)
    return mp, hexes


def shared_nodes_per_part(partition, hexes):
    """Per part: {neighbour: number of shared nodes}, the lists InterfaceSum
    gets (a node is shared by the parts of all its elements)."""
    element_part = np.asarray(partition["element_part"])
    order = np.argsort(np.asarray(partition["element_ids"]))
    element_part = element_part[order]  # by element id = row of hexes + 1
    pairs = np.unique(np.stack([hexes.ravel(), np.repeat(element_part, hexes.shape[1])], axis=1), axis=0)
    node, part = pairs[:, 0], pairs[:, 1]
    starts = np.flatnonzero(np.r_[True, node[1:] != node[:-1]])
    counts = np.diff(np.r_[starts, len(node)])
    shared = [dict() for _ in range(partition["parts"])]
    for c in range(2, counts.max() + 1):
        groups = part[starts[counts == c][:, None] + np.arange(c)]
        for a, b in itertools.permutations(range(c), 2):
            keys, n = np.unique(np.stack([groups[:, a], groups[:, b]], axis=1), axis=0, return_counts=True)
            for (p, q), m in zip(keys, n):
                shared[p][q] = shared[p].get(q, 0) + int(m)
    return shared


def check_against_distribute(tessera, folder, parts=3):
    """The reconstruction above equals what DistributeModelPart hands to
    InterfaceSum, on a small box (every part)."""
    nx, ny, nz = 8, 6, 5
    for rank in range(parts):
        mp, hexes = read_box(tessera, folder, nx, ny, nz)
        partition = tessera.PartitionMesh(mp, parts)
        expected = shared_nodes_per_part(partition, hexes)[rank]
        local = tessera.DistributeModelPart(mp, parts, rank)
        got = {q: len(nodes) for q, nodes in zip(local.neighbours, local.shared_nodes)}
        if got != expected:
            raise SystemExit(f"shared-node reconstruction differs from DistributeModelPart on rank {rank}: "
                             f"{got} against {expected}")


def structural_rows(tessera, mp, hexes, ranks, args):
    rows = []
    for p in ranks:
        if p > len(hexes):
            continue
        partition = tessera.PartitionMesh(mp, p)
        shared = shared_nodes_per_part(partition, hexes)
        elements = np.bincount(np.asarray(partition["element_part"]), minlength=p)
        send = np.array([sum(s.values()) for s in shared]) * 3 * 8  # bytes of residual per step
        neighbours = np.array([len(s) for s in shared])
        busiest = int(np.argmax(elements / args.fe_throughput
                                + neighbours * args.alpha + send / args.bandwidth))
        compute = elements[busiest] / args.fe_throughput
        comm = neighbours[busiest] * args.alpha + send[busiest] / args.bandwidth
        rows.append(dict(ranks=p, elements_per_rank=int(elements.max()), neighbours_max=int(neighbours.max()),
                         neighbours_mean=float(neighbours.mean()), bytes_max=int(send.max()),
                         bytes_mean=float(send.mean()), compute_s=compute, comm_s=comm,
                         efficiency=compute / (compute + comm)))
    return rows


# ---------------------------------------------------------------------------
# DEM: recursive coordinate bisection of a uniform packing


def rcb_boxes(lo, hi, parts):
    """Boxes of equal particle count over a uniform density: split the
    longest side in proportion to the part counts, recursively."""
    if parts == 1:
        return [(np.array(lo, float), np.array(hi, float))]
    axis = int(np.argmax(np.subtract(hi, lo)))
    left = parts // 2
    cut = lo[axis] + (hi[axis] - lo[axis]) * left / parts
    hi_left, lo_right = list(hi), list(lo)
    hi_left[axis], lo_right[axis] = cut, cut
    return rcb_boxes(lo, hi_left, left) + rcb_boxes(lo_right, hi, parts - left)


def overlap_volume(a_lo, a_hi, b_lo, b_hi):
    return float(np.prod(np.clip(np.minimum(a_hi, b_hi) - np.maximum(a_lo, b_lo), 0.0, None)))


def dem_ghosts(boxes, h, density):
    """Per box: {neighbour: expected ghosts it sends}, the particles of the
    neighbour's box within h of this box."""
    out = []
    for i, (lo, hi) in enumerate(boxes):
        ghosts = {}
        for j, (lo_j, hi_j) in enumerate(boxes):
            if j == i:
                continue
            v = overlap_volume(lo - h, hi + h, lo_j, hi_j)
            if v > 0.0:
                ghosts[j] = density * v
        out.append(ghosts)
    return out


def check_ghosts_by_sampling(rng, parts=8, particles=400_000, h=0.05):
    """The expected ghost counts against random particles (3 sigma)."""
    lo, hi = np.zeros(3), np.array([2.0, 1.0, 0.5])
    x = lo + rng.random((particles, 3)) * (hi - lo)
    boxes = rcb_boxes(lo, hi, parts)
    expected = dem_ghosts(boxes, h, particles / np.prod(hi - lo))
    for i, (b_lo, b_hi) in enumerate(boxes):
        inside = np.all((x >= b_lo) & (x < b_hi), axis=1)
        near = np.all((x >= b_lo - h) & (x < b_hi + h), axis=1)
        counted, model = int(np.count_nonzero(near & ~inside)), sum(expected[i].values())
        if abs(counted - model) > 3 * math.sqrt(model) + 1:
            raise SystemExit(f"DEM ghost model: box {i} counts {counted} ghosts against {model:.0f} expected")


def dem_rows(ranks, args):
    volume_per_particle = 4.0 / 3.0 * math.pi * args.radius ** 3 / args.packing
    density = 1.0 / volume_per_particle
    h = 1.05 * (2.0 * args.radius + args.skin)  # the layer applications/dem/parallel keeps
    # A ghost at depth s < 2R into the layer has (1 - s / 2R) / 2 of its
    # neighbours across the boundary; over the layer that is 2R / (4 h) of a
    # particle's pairs. Computed on both sides, each rank does half of those
    # pairs again: 2R / (4 h) particle-steps per ghost.
    ghost_work = 2.0 * args.radius / (4.0 * h) if args.boundary_pairs == "both" else 0.0
    reverse_bytes = 48.0 if args.boundary_pairs == "once" else 0.0
    rows = []
    for p in ranks:
        # Weak scaling: P times the particles in a bed of aspect 2 : 2 : 1.
        volume = p * args.particles_per_rank * volume_per_particle
        side = (volume / 4.0) ** (1.0 / 3.0)
        hi = np.array([2 * side, 2 * side, side])
        boxes = rcb_boxes(np.zeros(3), hi, p)
        ghosts = dem_ghosts(boxes, h, density)
        count = np.array([sum(g.values()) for g in ghosts])
        neighbours = np.array([len(g) for g in ghosts])
        # A migration's partners: the boxes within three layers (NeighbourBoxes).
        partners = [sum(1 for j, (lo_j, hi_j) in enumerate(boxes)
                        if j != i and np.all(lo - 3 * h < hi_j) and np.all(lo_j < hi + 3 * h))
                    for i, (lo, hi) in enumerate(boxes)]
        received = count * (args.ghost_bytes + reverse_bytes)
        busiest = int(np.argmax(neighbours * args.alpha + received / args.bandwidth
                                + count * ghost_work / args.dem_throughput))
        compute = args.particles_per_rank / args.dem_throughput
        # The pairs with ghosts computed again on this rank (newton off), as
        # particle-steps of extra work.
        extra = count[busiest] * ghost_work / args.dem_throughput
        comm = (neighbours[busiest] * args.alpha + received[busiest] / args.bandwidth
                + args.reductions * args.alpha * math.ceil(math.log2(p)))
        rows.append(dict(ranks=p, particles_per_rank=args.particles_per_rank,
                         ghosts_max=float(count.max()), ghost_fraction=float(count.max()) / args.particles_per_rank,
                         neighbours_max=int(neighbours.max()), partners_max=max(partners),
                         bytes_max=float(received.max()), compute_s=compute, ghost_work_s=extra, comm_s=comm,
                         efficiency=compute / (compute + extra + comm)))
    return rows


# ---------------------------------------------------------------------------


def print_table(title, rows, columns):
    print(f"\n{title}\n")
    print("| " + " | ".join(name for name, _ in columns) + " |")
    print("|" + "---|" * len(columns))
    for r in rows:
        print("| " + " | ".join(fmt(r) for _, fmt in columns) + " |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mesh", type=int, nargs=3, default=[128, 64, 64], metavar=("NX", "NY", "NZ"),
                        help="hexahedra of the strong-scaling box (default 128 64 64: 524,288 elements)")
    parser.add_argument("--ranks", type=int, nargs="+", default=[2, 4, 8, 16, 32, 64, 128, 256, 512, 1024])
    parser.add_argument("--weak-elements", type=int, default=4096,
                        help="hexahedra per rank of the FE weak-scaling series (default 4096)")
    parser.add_argument("--fe-throughput", type=float, default=1.19e6,
                        help="Hex8 element updates per second per core (docs/performance.md: 1.19 M)")
    parser.add_argument("--particles-per-rank", type=int, default=20_000)
    parser.add_argument("--dem-throughput", type=float, default=4.0e6,
                        help="particle-steps per second per core (default 4 M, between the settling "
                             "benchmark's 7.7 M and the packed bed's 2 M on a loaded core)")
    parser.add_argument("--radius", type=float, default=0.005)
    parser.add_argument("--packing", type=float, default=0.6)
    parser.add_argument("--skin", type=float, default=0.001, help="search skin added to 2R (m)")
    parser.add_argument("--ghost-bytes", type=float, default=240.0,
                        help="bytes per ghost and step (applications/dem/parallel refreshes 30 doubles)")
    parser.add_argument("--boundary-pairs", choices=["both", "once"], default="both",
                        help="pairs across a boundary computed on both ranks (extra work, no reverse "
                             "message) or once, the force and torque (48 bytes) sent back to the owner")
    parser.add_argument("--only", choices=["fe", "dem"], help="one of the two parts")
    parser.add_argument("--reductions", type=int, default=1, help="global reductions per DEM step")
    parser.add_argument("--alpha", type=float, default=1.5e-6, help="message latency (s)")
    parser.add_argument("--bandwidth", type=float, default=12.5e9, help="link bandwidth (bytes/s)")
    parser.add_argument("--json", help="write the tables here")
    args = parser.parse_args()

    out = {"assumptions": {k: v for k, v in vars(args).items() if k != "json"}}
    us = lambda key: (lambda r: f"{1e6 * r[key]:.1f}")  # noqa: E731
    if args.only != "dem":
        import tessera

        nx, ny, nz = args.mesh
        with tempfile.TemporaryDirectory() as folder:
            check_against_distribute(tessera, folder)
            mp, hexes = read_box(tessera, folder, nx, ny, nz)
            out["fe_strong"] = structural_rows(tessera, mp, hexes, args.ranks, args)
            del mp
            weak = []
            for p in [r for r in args.ranks if r * args.weak_elements <= len(hexes)]:
                # A box of p * weak_elements hexahedra in the big one's proportions.
                cells = p * args.weak_elements
                scale = (cells / (nx * ny * nz)) ** (1.0 / 3.0)
                wx, wy = max(1, round(nx * scale)), max(1, round(ny * scale))
                wz = max(1, round(cells / (wx * wy)))
                m, h = read_box(tessera, folder, wx, wy, wz)
                weak += structural_rows(tessera, m, h, [p], args)
            out["fe_weak"] = weak
        print_table(f"FE strong scaling: {nx} x {ny} x {nz} hexahedra ({nx * ny * nz:,}), METIS",
                    out["fe_strong"], [
            ("ranks", lambda r: str(r["ranks"])), ("elements/rank", lambda r: f"{r['elements_per_rank']:,}"),
            ("neighbours max (mean)", lambda r: f"{r['neighbours_max']} ({r['neighbours_mean']:.1f})"),
            ("bytes/step max", lambda r: f"{r['bytes_max']:,}"), ("compute µs", us("compute_s")),
            ("comm µs", us("comm_s")), ("efficiency", lambda r: f"{r['efficiency']:.3f}")])
        print_table(f"FE weak scaling: about {args.weak_elements:,} hexahedra per rank, METIS", out["fe_weak"], [
            ("ranks", lambda r: str(r["ranks"])), ("elements/rank", lambda r: f"{r['elements_per_rank']:,}"),
            ("neighbours max", lambda r: str(r["neighbours_max"])),
            ("bytes/step max", lambda r: f"{r['bytes_max']:,}"), ("efficiency", lambda r: f"{r['efficiency']:.3f}")])
    if args.only != "fe":
        check_ghosts_by_sampling(np.random.default_rng(1))
        out["dem_weak"] = dem_rows(args.ranks, args)
        print_table(f"DEM weak scaling: {args.particles_per_rank:,} spheres per rank, RCB, ghost layer "
                    f"{1.05e3 * (2 * args.radius + args.skin):.1f} mm", out["dem_weak"], [
            ("ranks", lambda r: str(r["ranks"])),
            ("ghosts max (fraction)", lambda r: f"{r['ghosts_max']:,.0f} ({r['ghost_fraction']:.2f})"),
            ("neighbours max", lambda r: str(r["neighbours_max"])),
            ("migration partners max", lambda r: str(r["partners_max"])),
            ("bytes/step max", lambda r: f"{r['bytes_max']:,.0f}"), ("compute µs", us("compute_s")),
            ("ghost pairs µs", us("ghost_work_s")), ("comm µs", us("comm_s")),
            ("efficiency", lambda r: f"{r['efficiency']:.3f}")])
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
