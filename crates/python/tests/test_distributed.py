"""tabula.distributed on a real Ray cluster of three nodes on this machine: a head (which
runs no games) and two worker nodes of one CPU each, every one its own set of processes."""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

import pytest
import ray
from ray.cluster_utils import Cluster

import tabula
from tabula import distributed

GAME = "connect4"
A = "mcts(playouts=40,seed=1,early=false)"
B = "mcts(playouts=25,seed=2,early=false)"
OPENINGS = "random:2"


def wait_for(condition, seconds, what):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {seconds}s waiting for {what}")
        time.sleep(0.02)


def ids_in(path):
    with open(path) as f:
        return [json.loads(line)["id"] for line in f if line.strip()]


def games_of(path):
    with open(path) as f:
        records = [json.loads(line) for line in f if line.strip()]
    return sorted((r["id"], r["moves"], r["rewards"]) for r in records)


@pytest.fixture(scope="module")
def cluster():
    # Node deaths are noticed within about a second instead of the default half minute.
    config = {
        "health_check_initial_delay_ms": 0,
        "health_check_period_ms": 200,
        "health_check_timeout_ms": 500,
        "health_check_failure_threshold": 3,
    }
    # A port of its own, not Ray's default, which a cluster of the machine may hold.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    c = Cluster(
        initialize_head=True,
        head_node_args={"gcs_server_port": port, "num_cpus": 0, "include_dashboard": False, "_system_config": config},
    )
    for _ in range(2):
        c.add_node(num_cpus=1)
    c.wait_for_nodes()
    ray.init(address=c.address, logging_level="ERROR", log_to_driver=False)
    yield c
    ray.shutdown()
    c.shutdown()


def local(games, tmp_path, name, a=A, b=B, **options):
    """The same match run by the arena on one thread, with its results file."""
    path = tmp_path / name
    report = tabula.match(GAME, a, b, games=games, jobs=1, openings=OPENINGS, results=str(path), **options)
    return report, path


def test_spec_programs():
    assert distributed.gtp_programs('gtp(cmd="gnugo --mode gtp",timeout_ms=500)') == ["gnugo"]
    assert distributed.gtp_programs("gtp(cmd=/opt/engine)") == ["/opt/engine"]
    assert distributed.gtp_programs('gtp(cmd="\\"my engine\\" -x")') == ["my engine"]
    assert distributed.gtp_programs("mcts(playouts=10)") == []
    assert distributed.gtp_programs("gtp") == []


def command_line(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def node_processes(node):
    """The processes of a node of the cluster: its raylet and everything the raylet started
    (the workers running actors among them), from /proc."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    # The parent's pid is the second field after the command's parentheses.
                    parents[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    tree = [node.all_processes["raylet"][0].process.pid]
    for pid in tree:
        tree.extend(child for child, parent in parents.items() if parent == pid)
    return tree


def test_a_node_killed_mid_match_loses_and_doubles_no_game(cluster, tmp_path, capsys):
    games = 200
    a, b = "mcts(playouts=1000,seed=1,early=false)", "mcts(playouts=600,seed=2,early=false)"
    expected, expected_path = local(games, tmp_path, "local.jsonl", a=a, b=b)
    path = tmp_path / "distributed.jsonl"
    victim = next(iter(cluster.worker_nodes))
    killed = []

    def on_game(record):
        # Once 40 games are in and the node's actor is playing, the whole node dies at once.
        if killed or record["id"] < 40:
            return
        procs = node_processes(victim)
        if not any("_MatchActor" in command_line(pid) for pid in procs[1:]):
            return
        for pid in procs:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                continue
        killed.extend(procs)

    report = distributed.match(GAME, a, b, games=games, openings=OPENINGS, results=path, on_game=on_game, progress=False)
    assert killed, "the node was killed during the match"
    raylet = victim.all_processes["raylet"][0].process
    assert raylet.wait(timeout=10) == -signal.SIGKILL
    ids = ids_in(path)
    assert sorted(ids) == list(range(games)), "every game exactly once"
    assert report == expected
    assert games_of(path) == games_of(expected_path)
    assert tabula.match_report(str(path)) == expected
    assert re.search(r"worker on .* lost; replaying games \[\d", capsys.readouterr().err)
    cluster.remove_node(victim, allow_graceful=False)
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()


def test_a_killed_driver_resumes_without_replaying(cluster, tmp_path):
    games = 80
    path = tmp_path / "resume.jsonl"
    strong = "mcts(playouts=600,seed=3,early=false)"
    command = [sys.executable, "-m", "tabula.distributed", "match", GAME, strong, B, "--games", str(games)]
    command += ["--openings", OPENINGS, "--results", str(path), "--address", cluster.address, "--quiet", "--json"]
    driver = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_for(lambda: path.exists() and len(ids_in(path)) >= 10, 120, "ten games in the results file")
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait()
    finally:
        if driver.poll() is None:
            driver.kill()
        driver.communicate()
    first = ids_in(path)
    assert len(first) < games, "the driver was killed before the end"
    assert len(set(first)) == len(first)
    with open(path) as f:
        before = f.read()
    replayed = []
    report = distributed.match(
        GAME,
        strong,
        B,
        games=games,
        openings=OPENINGS,
        results=path,
        progress=False,
        on_game=lambda r: replayed.append(r["id"]),
    )
    assert not set(replayed) & set(first), "no finished game is played again"
    assert sorted(first + replayed) == list(range(games))
    assert sorted(ids_in(path)) == list(range(games))
    with open(path) as f:
        assert f.read().startswith(before.rstrip("\n").rsplit("\n", 1)[0])
    assert report["played"] == games and report["complete"]
    # The command line resumes a finished file without playing and prints the same report.
    again = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == report


def test_an_sprt_stops_where_the_local_one_stops(cluster, tmp_path):
    games = 400
    strong, weak = "mcts(playouts=300,seed=1,early=false)", "mcts(playouts=8,seed=2,early=false)"
    test = (0.0, 50.0)
    expected = tabula.match(GAME, strong, weak, games=games, jobs=1, openings=OPENINGS, sprt=test)
    stop = expected["played"]
    assert expected["sprt"]["status"]["decision"] != "continue" and stop < games
    path = tmp_path / "sprt.jsonl"
    report = distributed.sprt(GAME, strong, weak, test[0], test[1], games=games, openings=OPENINGS, results=path,
                              progress=False)
    assert report["played"] == stop
    assert report == expected
    assert ids_in(path) == list(range(stop)), "the file holds the games up to the decision, in order"
    # Resumed, the decided test plays nothing more.
    assert distributed.sprt(GAME, strong, weak, test[0], test[1], games=games, openings=OPENINGS, results=path,
                            progress=False) == expected
    assert ids_in(path) == list(range(stop))


def test_a_missing_engine_names_the_node(cluster):
    spec = 'gtp(cmd="tabula-no-such-engine --mode gtp")'
    with pytest.raises(distributed.DistributedError, match=r"node .*tabula-no-such-engine"):
        distributed.match("go(size=9)", spec, "random(seed=1)", games=2, progress=False)


def test_a_tournament_gives_the_local_tournaments_games_and_report(cluster, tmp_path):
    agents = [A, B, "alphabeta(depth=2)"]
    local_path = tmp_path / "local.jsonl"
    expected = tabula.tourney(GAME, agents, games=4, openings=OPENINGS, results=str(local_path))
    path = tmp_path / "tourney.jsonl"
    report = distributed.tourney(GAME, agents, games=4, openings=OPENINGS, results=path, progress=False)
    assert sorted(ids_in(path)) == list(range(12))
    assert games_of(path) == games_of(local_path)
    assert report == expected
