"""anqi's Ray dispatcher: the part of `anqi tournament --ray` that talks to the cluster.

The runner (the driver, in Rust) starts this with the Python of `[tournament.ray] python` and
keeps everything that makes the event: the schedule, the master seed, the records file, the
standings, the SPRT, the pages. This process only hands units of work to Ray and passes back
what they say, one JSON object per line each way:

  runner -> here   {"op": "event", ...}     once, first: the cluster and what every unit shares
                   {"op": "unit", "unit": K, "games": [...]}
                   {"op": "avoid", "node_id": ID}   no more units on that node
                   {"op": "cancel"}                 cancel every unit in flight
                   end of input                     cancel everything and exit
  here -> runner   {"kind": "ready", "cpus": C, "nodes": N, "ray": VERSION}
                   {"kind": "cpus", "cpus": C, "nodes": N}        when the cluster changes
                   {"kind": "line", "unit": K, "node": NAME, "node_id": ID, "line": TEXT}
                   {"kind": "done", "unit": K}
                   {"kind": "failed", "unit": K, "why": TEXT}     Ray gave the unit up
                   {"kind": "cancelled"}
                   {"kind": "error", "why": TEXT}                 this process cannot go on

A unit runs as a Ray task (a generator: each line the unit's `anqi tournament-unit` writes is
passed on as it comes, so records stream back as games end). The task runs the runner's own
`anqi` program, shipped once through Ray's object store and kept on each node under its digest.
It never sees the master seed: a unit carries its games' own seeds only.
"""

import hashlib
import json
import os
import queue
import sys
import threading
import time

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy


def say(kind, **fields):
    sys.stdout.write(json.dumps({"kind": kind, **fields}) + "\n")
    sys.stdout.flush()


def run_unit(unit_text, binary, digest):
    """Runs on a node: the unit's games by `anqi tournament-unit`, each line passed on as it
    comes, with the node that played it."""
    import ctypes  # noqa: PLC0415 (in the task, on the node)
    import signal  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import tempfile  # noqa: PLC0415

    node_id = ray.get_runtime_context().get_node_id()
    node = f"{ray.util.get_node_ip_address()} node {node_id[:8]}"
    program = os.path.join(tempfile.gettempdir(), f"anqi-ray-{digest[:16]}", "anqi")
    if not os.access(program, os.X_OK):
        # First unit on this node: the program from the object store, written whole under a
        # temporary name, then linked in place unless another unit was first. Never replaced:
        # a running anqi starts its engines' keepers from its own file.
        os.makedirs(os.path.dirname(program), exist_ok=True)
        part = f"{program}.{os.getpid()}.part"
        with open(part, "wb") as f:
            f.write(ray.get(binary[0]))
        os.chmod(part, 0o755)
        try:
            os.link(part, program)
        except FileExistsError:
            pass
        os.unlink(part)
    unit = json.loads(unit_text)
    unit["node"] = node

    def die_with_task():
        # The unit's anqi goes when this worker does (a node lost, a unit cancelled): SIGTERM,
        # on which it stops its engines.
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG

    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([program, "tournament-unit"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=err, text=True,
                                preexec_fn=die_with_task)
        proc.stdin.write(json.dumps(unit))
        proc.stdin.close()
        for line in proc.stdout:
            yield node_id, node, line.rstrip("\n")
        status = proc.wait()
        if status != 0:
            err.seek(0)
            tail = err.read()[-2000:].decode(errors="replace").strip()
            why = f"anqi tournament-unit exited with status {status} on {node}: {tail}"
            yield node_id, node, json.dumps({"kind": "error", "why": why})


class Dispatcher:
    def __init__(self, event):
        self.event = event
        self.common = event["common"]
        with open(event["binary"], "rb") as f:
            program = f.read()
        self.digest = hashlib.sha256(program).hexdigest()
        self.binary = [ray.put(program)]
        self.task = ray.remote(run_unit)
        self.options = {
            "num_cpus": event["cpus_per_unit"],
            "resources": event["resources"] or None,
            "max_retries": event["max_retries"],
            "retry_exceptions": False,
        }
        self.running = {}  # generator -> unit number
        self.placed = {}  # unit number -> node id it was pinned to, if any
        self.avoid = set()
        self.cpus = None

    def cluster(self):
        nodes = [n for n in ray.nodes() if n["Alive"] and n["NodeID"] not in self.avoid]
        cpus = sum(n["Resources"].get("CPU", 0) for n in nodes)
        return cpus, nodes

    def tell_cpus(self, kind="cpus"):
        cpus, nodes = self.cluster()
        if kind == "ready" or cpus != self.cpus:
            self.cpus = cpus
            say(kind, cpus=cpus, nodes=len(nodes), ray=ray.__version__)

    def submit(self, unit, games):
        text = json.dumps({**self.common, "games": games})
        options = dict(self.options)
        if self.avoid:
            # Ray cannot be told to leave a node out: pin the unit to the least busy other one.
            _, nodes = self.cluster()
            nodes = [n for n in nodes if n["Resources"].get("CPU", 0) > 0]
            if not nodes:
                say("failed", unit=unit, why="no node is left that the event may use")
                return
            busy = {}
            for node_id in self.placed.values():
                busy[node_id] = busy.get(node_id, 0) + 1
            node_id = min(nodes, key=lambda n: busy.get(n["NodeID"], 0))["NodeID"]
            self.placed[unit] = node_id
            options["scheduling_strategy"] = NodeAffinitySchedulingStrategy(node_id, soft=False)
        task = self.task.options(**options)
        self.running[task.remote(text, self.binary, self.digest)] = unit

    def finish(self, gen):
        unit = self.running.pop(gen)
        self.placed.pop(unit, None)
        return unit

    def drain(self, gen):
        """Passes on every line `gen` has ready; finishes it when it is over."""
        unit = self.running[gen]
        while True:
            ready, _ = ray.wait([gen], num_returns=1, timeout=0)
            if not ready:
                return
            try:
                ref = next(gen)
            except StopIteration:
                self.finish(gen)
                say("done", unit=unit)
                return
            try:
                node_id, node, line = ray.get(ref)
            except Exception as e:  # noqa: BLE001 (whatever Ray says, the runner is told)
                self.finish(gen)
                say("failed", unit=unit, why=f"{type(e).__name__}: {e}".strip()[:2000])
                return
            say("line", unit=unit, node=node, node_id=node_id, line=line)

    def cancel(self):
        for gen in list(self.running):
            self.drain(gen)
        for gen in list(self.running):
            ray.cancel(gen, force=True)
            self.finish(gen)
        say("cancelled")


def read_commands(commands):
    for line in sys.stdin:
        if line.strip():
            commands.put(json.loads(line))
    commands.put(None)


def main():
    event = json.loads(sys.stdin.readline())
    try:
        ray.init(address=event["address"], include_dashboard=False, log_to_driver=False,
                 configure_logging=False)
    except Exception as e:  # noqa: BLE001
        why = f"cannot reach the Ray cluster at {event['address']}: {e}"
        if "RAY_AUTH_MODE" not in os.environ:
            # Ray 2.60's `ray start` turns token authentication on when a token is kept in
            # ~/.ray/auth_token, and a driver presents the token only when told to. Not
            # guessed here: a driver that asks a cluster without it for a token is refused.
            why += (". If the cluster uses token authentication, run anqi with "
                    "RAY_AUTH_MODE=token (TOURNAMENTS.md, Past one machine: Ray)")
        say("error", why=why)
        return 1
    try:
        here = Dispatcher(event)
    except OSError as e:
        say("error", why=f"cannot read the anqi program {event['binary']}: {e}")
        return 1
    here.tell_cpus("ready")
    commands = queue.Queue()
    threading.Thread(target=read_commands, args=(commands,), daemon=True).start()
    checked = time.monotonic()
    while True:
        try:
            command = commands.get(timeout=0.05 if here.running else 0.5)
        except queue.Empty:
            command = ...
        if command is None:
            break
        if command is not ...:
            op = command["op"]
            if op == "unit":
                here.submit(command["unit"], command["games"])
            elif op == "avoid":
                here.avoid.add(command["node_id"])
            elif op == "cancel":
                here.cancel()
            continue
        if here.running:
            ready, _ = ray.wait(list(here.running), num_returns=1, timeout=0.05)
            for gen in ready:
                here.drain(gen)
        if time.monotonic() - checked > 2:
            checked = time.monotonic()
            here.tell_cpus()
    for gen in list(here.running):
        ray.cancel(gen, force=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
