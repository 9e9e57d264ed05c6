"""One local multi-node Ray cluster per test process (`ray.cluster_utils.Cluster`), shared by
the tests that need one: a head node that runs no task and worker nodes with a processor each,
all on this machine. Started on first use (about 6 s), shut down when the process exits.

    from _ray_cluster import local_cluster, MISSING
    cluster = local_cluster()          # starts it once; later calls return the same one
    cluster.address                    # what `ray.init(address=...)` and `--ray` take
    node = cluster.add_node(env_vars={"X": "1"})   # one more worker node, for a test to remove
    cluster.remove_node(node)

A test that changes the cluster puts it back as it found it (adds its own node to remove).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal

try:
    import ray  # noqa: F401 (only whether it is there)
    from ray.cluster_utils import Cluster
except ImportError as e:  # the tests that need it say so rather than pass in silence
    MISSING = f"{e.name} is not installed: pip install ray"
else:
    MISSING = None

#: Worker nodes the shared cluster starts with.
NODES = 3

_cluster = None


class LocalCluster:
    """A started cluster: its address and its nodes."""

    def __init__(self, nodes: int, cpus_per_node: int):
        self._cluster = Cluster(
            initialize_head=True,
            # The head runs no task: removing a worker node is then what losing a machine is.
            # Nodes are checked every half second, not every few: on loopback a lost node is
            # noticed in about 2 s, not 15.
            head_node_args={"num_cpus": 0, "include_dashboard": False, "_system_config": {
                "health_check_period_ms": 500, "health_check_failure_threshold": 3}},
        )
        self.cpus_per_node = cpus_per_node
        self.nodes = [self.add_node() for _ in range(nodes)]
        self._cluster.wait_for_nodes()

    @property
    def address(self) -> str:
        return self._cluster.address

    def add_node(self, **node_args):
        """One more worker node (`num_cpus` the cluster's unless given), once it is up."""
        node_args.setdefault("num_cpus", self.cpus_per_node)
        node = self._cluster.add_node(**node_args)
        self._cluster.wait_for_nodes()
        return node

    def remove_node(self, node) -> None:
        """Kills every process of the node at once, as a machine that dies does: Ray's own
        (not gracefully) and everything they started (its workers, and what those run), which
        would otherwise go on a moment after their node is gone."""
        below = descendants([p.process.pid for processes in node.all_processes.values()
                             for p in processes])
        self._cluster.remove_node(node, allow_graceful=False)
        for pid in below:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if node in self.nodes:
            self.nodes.remove(node)

    def shutdown(self) -> None:
        self._cluster.shutdown()


def descendants(roots: list[int]) -> list[int]:
    """Every process below `roots` (from /proc: each process's parent)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                # The parent is the field after the name, which is in parentheses.
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry))
    found, todo = [], list(roots)
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def local_cluster(cpus_per_node: int = 1) -> LocalCluster:
    """The process's shared cluster, started on first use with `NODES` worker nodes."""
    global _cluster
    if MISSING:
        raise RuntimeError(MISSING)
    if _cluster is None:
        # No token prompts or usage reports from a test cluster on loopback.
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        _cluster = LocalCluster(NODES, cpus_per_node)
        atexit.register(_cluster.shutdown)
    return _cluster
