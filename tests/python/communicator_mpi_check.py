"""Run under mpirun by test_communicator.py: exercises the kernel's MPI
communicator on every rank and prints one line "rank R ok ..." per rank, or
raises (a non-zero exit)."""
import tessera


def main():
    c = tessera.DefaultCommunicator()
    rank, size = c.Rank(), c.Size()
    assert c.IsDistributed() and size >= 3, (c.IsDistributed(), size)
    # Ascending rank order: (1e16 + 1) + (-1e16) = 0 in doubles (1e16 + 1 rounds
    # to 1e16), where (1e16 - 1e16) + 1 = 1; extra ranks add 0.
    values = [1e16, 1.0, -1e16] + [0.0] * (size - 3)
    total = c.SumAll(values[rank])
    assert total == 0.0, total
    assert c.SumAllInt(rank + 1) == size * (size + 1) // 2
    assert c.MinAll(float(rank) - 0.5) == -0.5 and c.MaxAll(float(rank)) == size - 1
    assert c.MinAllInt(rank + 7) == 7 and c.MaxAllInt(rank + 7) == size + 6
    # Element-wise, one collective: negatives, infinities, the smallest
    # subnormal and values one ulp apart keep their order.
    assert c.SumAllInts([rank, -1, 2 ** 40]) == [size * (size - 1) // 2, -size, size * 2 ** 40]
    tiny, inf = 5e-324, float("inf")
    mine = [float(rank) - 1.5, -1e300 * (rank + 1), tiny * rank, 1.0 + rank * 2.220446049250313e-16,
            -inf if rank == 1 else -2.0]
    assert c.MinAllDoubles(mine) == [-1.5, -1e300 * size, 0.0, 1.0, -inf]
    assert c.MaxAllDoubles(mine) == [size - 2.5, -1e300, tiny * (size - 1),
                                     1.0 + (size - 1) * 2.220446049250313e-16, -2.0]
    assert c.BroadcastString("from one" if rank == 1 else "", 1) == "from one"
    assert c.BroadcastDoubles([2.5] * 4 if rank == 0 else [], 0) == [2.5] * 4
    # Variable-length gather: rank r sends r + 1 values r.
    gathered = c.GatherDoubles([float(rank)] * (rank + 1), 0)
    if rank == 0:
        assert gathered == [[float(r)] * (r + 1) for r in range(size)], gathered
    else:
        assert gathered == []
    # Point-to-point with both ring neighbours, buffers of different lengths.
    left, right = (rank - 1) % size, (rank + 1) % size
    neighbours = sorted({left, right})
    send = [[float(rank)] * (q + 1) for q in neighbours]
    received = c.Exchange(neighbours, send)
    for q, buffer in zip(neighbours, received):
        assert buffer == [float(q)] * (rank + 1), (q, buffer)
    c.Barrier()
    print(f"rank {rank} ok of {size}", flush=True)


if __name__ == "__main__":
    main()
