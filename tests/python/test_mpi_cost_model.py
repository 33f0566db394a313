"""benchmarks/mpi_cost_model.py: the communication model's geometry. The
shared-node lists it derives from a METIS partition must be the ones
DistributeModelPart gives InterfaceSum, and its ghost counts must be the
packing density times the ghost shell's volume."""
import importlib.util
import math
import os
import tempfile

import numpy as np
import tessera

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "mpi_cost_model", os.path.join(HERE, "..", "..", "benchmarks", "mpi_cost_model.py"))
model = importlib.util.module_from_spec(spec)
spec.loader.exec_module(model)


def test_shared_nodes_are_those_distribute_model_part_hands_to_interface_sum():
    with tempfile.TemporaryDirectory() as folder:
        model.check_against_distribute(tessera, folder, parts=3)  # raises on a difference


def test_two_parts_of_a_bed_exchange_one_face_layer_of_ghosts():
    # A 2 x 2 x 1 box cut in two across x: each half receives the particles
    # within h of the cut, density * h * (2 x 1) (geometry, exact).
    boxes = model.rcb_boxes(np.zeros(3), np.array([2.0, 2.0, 1.0]), 2)
    assert [b[1][0] for b in boxes] == [1.0, 2.0]
    ghosts = model.dem_ghosts(boxes, 0.1, 1000.0)
    assert [sorted(g) for g in ghosts] == [[1], [0]]
    assert all(math.isclose(g[1 - i], 200.0, rel_tol=1e-12) for i, g in enumerate(ghosts))


def test_rcb_boxes_hold_equal_volumes_for_any_part_count():
    for parts in (3, 5, 12):
        boxes = model.rcb_boxes(np.zeros(3), np.array([2.0, 1.0, 0.5]), parts)
        volumes = [np.prod(hi - lo) for lo, hi in boxes]
        assert len(boxes) == parts
        np.testing.assert_allclose(volumes, 1.0 / parts, rtol=1e-12)


def test_expected_ghosts_match_random_particles():
    model.check_ghosts_by_sampling(np.random.default_rng(3), parts=6, particles=100_000, h=0.05)
