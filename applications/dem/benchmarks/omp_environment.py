"""The OpenMP environment of a benchmark's worker process: its thread count and
wait policy (what sleeping threads do between parallel loops).

passive: threads sleep at once at the end of each parallel loop and are woken
for the next; active: they spin; default: the
variable unset, as a user runs, where the OpenMP runtime (libgomp) spins a
while and then sleeps. The benchmarks time the default, what a user gets;
on the packed bed default and passive measured alike within the host's noise
(one process alternating 1 and 2 threads).
"""
import os

WAIT_POLICIES = ("default", "passive", "active")


def AddWaitPolicyArgument(parser):
    parser.add_argument("--wait-policy", choices=WAIT_POLICIES, default="default",
                        help="OMP_WAIT_POLICY of the timed runs: default (unset, as a user "
                             "runs: spin a while, then sleep), passive (sleep at once) or "
                             "active (spin)")


def ThreadEnvironment(threads, wait_policy="default"):
    """os.environ with OMP_NUM_THREADS=threads and OMP_WAIT_POLICY as asked."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    env.pop("OMP_WAIT_POLICY", None)
    if wait_policy != "default":
        env["OMP_WAIT_POLICY"] = wait_policy
    return env
