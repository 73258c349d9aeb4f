"""Matches, SPRTs and tournaments over a Ray cluster: one 2-core machine plays a few
hundred games an hour, and testing an engine change takes thousands.

``match`` and ``sprt`` farm the games of one match out to Ray actors, each holding one
``tabula.MatchWorker`` (its engines are built once per actor, not per game) that plays games
by their number in the match's schedule — pairing, colours and opening fixed by the number,
and seeded agents reseeded by it — so a game is the same wherever and whenever it is played.
The driver hands out game numbers, appends each finished game to the results file in the
format ``tabula match --results`` writes and resumes from, skips the games already in the
file on start, counts each game once, and replays the games of an actor that died (with
its node) on a fresh actor. The report and the SPRT's decision come from tabula's own Rust
statistics (``tabula.MatchTally``), so they equal what ``tabula match`` gives for the same
games. See docs/DISTRIBUTED.md.

An SPRT decides on the games numbered 0, 1, 2, ... in order (the longest run of numbers
without a gap), exactly as ``tabula match --sprt ... --jobs 1`` does, so it stops at the
same game count. Its results file holds that run only: a game finished out of order waits in
the driver until the games before it are in, and games past the decision are dropped.

``tourney`` spreads a tournament the same way (``tabula.MatchWorker.tournament``), without
an SPRT. Self-play training over the cluster is the submodule ``tabula.distributed.train``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
import time
from collections import deque
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import tabula

__all__ = ["DistributedError", "gtp_programs", "match", "sprt", "tourney"]

#: Games handed to one actor at a time: one playing and one waiting, so that an actor never
#: idles while its last result travels back and the next number travels out.
IN_FLIGHT = 2

#: Most actors replaced in one run (per worker wanted) before the run gives up: a cluster
#: losing actors that fast has a problem no replay mends.
MAX_REPLACEMENTS_PER_WORKER = 20


class DistributedError(RuntimeError):
    """A distributed run could not go on (an actor could not start, a game failed)."""


_SPEC_NAME = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(\(.*\))?\s*$", re.S)


def _spec_value(params: str, key: str) -> Optional[str]:
    """The value of `key` in a spec's parameter text (without the parentheses): a plain
    word up to the next comma, or a double-quoted string with ``\\"`` and ``\\\\``."""
    i, n = 0, len(params)
    while i < n:
        while i < n and params[i] in " \t,":
            i += 1
        start = i
        while i < n and params[i] not in "=,":
            i += 1
        name = params[start:i].strip()
        if i < n and params[i] == "=":
            i += 1
        while i < n and params[i] in " \t":
            i += 1
        if i < n and params[i] == '"':
            i += 1
            out = []
            while i < n and params[i] != '"':
                if params[i] == "\\" and i + 1 < n:
                    i += 1
                out.append(params[i])
                i += 1
            i += 1
            value = "".join(out)
        else:
            depth, start = 0, i
            while i < n and (params[i] != "," or depth > 0):
                depth += {"(": 1, ")": -1}.get(params[i], 0)
                i += 1
            value = params[start:i].strip()
        if name == key:
            return value
    return None


def gtp_programs(spec: str) -> List[str]:
    """The programs an agent spec runs: the first word of ``gtp(cmd=...)``'s command, none
    for tabula's own agents."""
    m = _SPEC_NAME.match(spec)
    if not m or m.group(1) != "gtp" or not m.group(2):
        return []
    cmd = _spec_value(m.group(2)[1:-1], "cmd")
    if not cmd:
        return []
    try:
        words = shlex.split(cmd)
    except ValueError:
        words = cmd.split()
    return words[:1]


def _ray():
    try:
        import ray
    except ImportError as e:  # pragma: no cover - ray is in the test requirements
        raise ImportError("tabula.distributed needs Ray: pip install ray") from e
    return ray


def _worker(args: Dict[str, Any]) -> Any:
    """The ``tabula.MatchWorker`` of a match (``a`` and ``b`` in `args`) or a tournament
    (``agents``)."""
    if "agents" in args:
        return tabula.MatchWorker.tournament(**args)
    return tabula.MatchWorker(**args)


def _specs(args: Dict[str, Any]) -> List[str]:
    return list(args["agents"]) if "agents" in args else [args["a"], args["b"]]


class _MatchActor:
    """One worker: a ``tabula.MatchWorker`` built once, playing games by number."""

    def __init__(self, args: Dict[str, Any]):
        ray = _ray()
        self.node = f"{ray.util.get_node_ip_address()} (node {ray.get_runtime_context().get_node_id()})"
        for spec in _specs(args):
            for program in gtp_programs(spec):
                if shutil.which(program) is None:
                    raise DistributedError(
                        f"node {self.node}: the GTP engine command '{program}' of agent '{spec}' is not found"
                    )
        self.worker = _worker(args)

    def where(self) -> str:
        return self.node

    def play(self, game_id: int) -> str:
        return self.worker.play_line(game_id)


class _TourneyTally:
    """What ``tabula.MatchTally`` gives a match, for a tournament: the records, and the
    report of ``tabula.tourney_report`` at the end."""

    def __init__(self, players: int):
        self.players = players
        self.lines: List[str] = []
        self.decided = False

    @property
    def played(self) -> int:
        return len(self.lines)

    def add_line(self, line: str) -> bool:
        record = json.loads(line)
        if not all(isinstance(p, int) and 0 <= p < self.players for p in record.get("participants", [None])):
            return False
        self.lines.append(line)
        return True

    def progress_line(self) -> str:
        return f"{self.played} games"

    def report(self) -> Dict[str, Any]:
        return tabula.tourney_report([json.loads(line) for line in self.lines], self.players)

    def report_text(self, format: str = "json") -> str:
        if format != "json":
            raise ValueError("a distributed tournament's report is printed as JSON")
        return json.dumps(self.report(), indent=2)


def _read_results(path: str, games: int) -> Dict[int, str]:
    """The games already in a results file, by number. A last line cut short by an
    interruption is removed from the file (as ``tabula match`` does); a damaged line
    elsewhere, a number outside the match or a game recorded twice is an error."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return {}
    complete = data.rfind(b"\n") + 1
    done: Dict[int, str] = {}
    lines = data[:complete].decode("utf-8", "replace").splitlines()
    tail = data[complete:]
    if tail:
        try:
            json.loads(tail.decode("utf-8"))
            lines.append(tail.decode("utf-8"))
            with open(path, "ab") as f:
                f.write(b"\n")
        except (ValueError, UnicodeDecodeError):
            with open(path, "r+b") as f:
                f.truncate(complete)
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            game_id = json.loads(line)["id"]
        except (ValueError, KeyError, TypeError) as e:
            raise DistributedError(f"{path}: line {number} is not a game record: {e}") from None
        if not isinstance(game_id, int) or not 0 <= game_id < games:
            raise DistributedError(f"{path}: line {number}: game {game_id!r} is not one of the match's 0..{games}")
        if game_id in done:
            raise DistributedError(f"{path}: line {number}: game {game_id} is recorded twice")
        done[game_id] = line
    return done


class _Progress:
    """A line on stderr every `every` games (and at the end)."""

    def __init__(self, on: bool, every: int, total: int):
        self.on, self.every, self.total = on, max(1, every), total
        self.start = time.monotonic()
        self.last = 0

    def show(self, tally: Any, force: bool = False) -> None:
        played = tally.played
        if not self.on or (played - self.last < self.every and not force):
            return
        self.last = played
        minutes = (time.monotonic() - self.start) / 60
        print(f"[{played}/{self.total} {minutes:.1f} min] {tally.progress_line()}", file=sys.stderr, flush=True)


def _run(
    args: Dict[str, Any],
    results: Optional[str],
    address: Optional[str],
    workers: Optional[int],
    sprt: Optional[Tuple[float, float]],
    progress: bool,
    progress_every: int,
    on_game: Optional[Callable[[Dict[str, Any]], None]],
) -> Any:
    ray = _ray()
    # Checks every setting and spec here, before any actor starts.
    games = _worker(args).games
    if "agents" in args:
        tally: Any = _TourneyTally(len(args["agents"]))
    else:
        tally = tabula.MatchTally(games, sprt)
    done = _read_results(results, games) if results else {}
    # With an SPRT only the run of games without a gap from 0 counts; later games wait.
    waiting: Dict[int, str] = {}
    prefix = 0

    def add(game_id: int, line: str) -> None:
        if not tally.add_line(line):
            raise DistributedError(f"game {game_id} of {results} is not a game of this match (other seats)")

    def count(game_id: int, line: str) -> None:
        nonlocal prefix
        if sprt is None:
            add(game_id, line)
            return
        waiting[game_id] = line
        while prefix in waiting and not tally.decided:
            add(prefix, waiting.pop(prefix))
            prefix += 1

    for game_id in sorted(done):
        count(game_id, done[game_id])
    in_file = set(done)
    pending = deque(i for i in range(games) if i not in done)
    out = open(results, "a", encoding="utf-8") if results else None
    bar = _Progress(progress, progress_every, games)

    def finish(game_id: int, line: str) -> None:
        if game_id in done:
            return
        done[game_id] = line
        if sprt is None:
            if out:
                out.write(line + "\n")
                out.flush()
            count(game_id, line)
        else:
            before = prefix
            count(game_id, line)
            if out:
                for i in range(before, prefix):
                    if i not in in_file:
                        out.write(done[i] + "\n")
                        in_file.add(i)
                out.flush()
        if on_game is not None:
            on_game(json.loads(line))
        bar.show(tally)

    if not ray.is_initialized():
        ray.init(address=address, logging_level="ERROR", log_to_driver=False)
    if workers is None:
        workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
    actor_class = ray.remote(num_cpus=1, max_restarts=0, max_task_retries=0)(_MatchActor)
    actors: List[Any] = []
    # Per slot: where its actor runs once it answered (None while it starts), and the ref
    # of that first answer.
    nodes_of: List[Optional[str]] = []
    starting: Dict[Any, int] = {}
    inflight: Dict[Any, Tuple[int, int]] = {}  # object ref -> (actor slot, game id)
    load = [0] * workers
    replaced = 0
    budget = MAX_REPLACEMENTS_PER_WORKER * workers

    def start(slot: int) -> None:
        actor = actor_class.remote(args)
        if slot < len(actors):
            actors[slot], nodes_of[slot] = actor, None
        else:
            actors.append(actor)
            nodes_of.append(None)
        starting[actor.where.remote()] = slot

    def replace(slot: int, error: Exception) -> None:
        nonlocal replaced
        if getattr(error, "actor_init_failed", False):
            raise DistributedError(f"a worker could not start: {error}") from None
        replaced += 1
        if replaced > budget:
            raise DistributedError(f"{replaced} workers lost, the last with: {error}") from None
        ray.kill(actors[slot], no_restart=True)
        mine = [ref for ref, (s, _) in inflight.items() if s == slot]
        lost = sorted(inflight.pop(ref)[1] for ref in mine)
        for ref in [ref for ref, s in starting.items() if s == slot]:
            del starting[ref]
        load[slot] = 0
        lost = [i for i in lost if i not in done]
        pending.extendleft(reversed(lost))
        where = nodes_of[slot] or "a node"
        print(f"tabula.distributed: worker on {where} lost; replaying games {lost}", file=sys.stderr, flush=True)
        start(slot)

    def more() -> bool:
        return bool(pending) and not tally.decided

    try:
        for slot in range(workers):
            start(slot)
        # Once an SPRT decides, the games still in flight are past the decision: not awaited.
        while (inflight and not tally.decided) or more():
            for slot in range(workers):
                while nodes_of[slot] is not None and load[slot] < IN_FLIGHT and more():
                    game_id = pending.popleft()
                    if game_id in done:
                        continue
                    inflight[actors[slot].play.remote(game_id)] = (slot, game_id)
                    load[slot] += 1
            if not inflight and not starting:
                break
            ready, _ = ray.wait(list(inflight) + list(starting), num_returns=1)
            for ref in ready:
                if ref in starting:
                    slot = starting.pop(ref)
                    try:
                        nodes_of[slot] = ray.get(ref)
                    except ray.exceptions.RayActorError as e:
                        replace(slot, e)
                    continue
                if ref not in inflight:
                    continue
                slot, game_id = inflight[ref]
                try:
                    line = ray.get(ref)
                except ray.exceptions.RayActorError as e:
                    replace(slot, e)
                    continue
                except ray.exceptions.RayTaskError as e:
                    raise DistributedError(f"game {game_id} failed: {e}") from None
                del inflight[ref]
                load[slot] -= 1
                finish(game_id, line)
    finally:
        for actor in actors:
            ray.kill(actor, no_restart=True)
        if out:
            out.close()
    bar.show(tally, force=True)
    return tally


def match(
    game: str,
    a: str,
    b: str,
    games: int = 10,
    openings: Optional[str] = None,
    seed: int = 1,
    time_ms: Optional[int] = None,
    nodes: Optional[int] = None,
    depth: Optional[int] = None,
    max_plies: Optional[int] = None,
    results: Optional[str] = None,
    address: Optional[str] = None,
    workers: Optional[int] = None,
    sprt: Optional[Tuple[float, float]] = None,
    progress: bool = True,
    progress_every: int = 10,
    on_game: Optional[Callable[[Dict[str, Any]], None]] = None,
) -> Dict[str, Any]:
    """A match of `game` between agents `a` and `b` (specs) played by Ray actors.

    The settings are those of ``tabula.match`` (``games``, ``openings`` such as
    ``"random:4"``, ``seed``, ``time_ms`` / ``nodes`` / ``depth`` per move, ``max_plies``);
    ``results`` is the JSON-lines results file (resumed from when it exists);
    ``address`` the cluster's (``None``: the ``RAY_ADDRESS`` variable, else a Ray started
    here; an already initialised Ray is used as it is); ``workers`` the actors (default: one
    per CPU of the cluster); ``sprt=(elo0, elo1)`` stops once the test decides (see the
    module's documentation); ``progress`` prints a line on stderr every ``progress_every``
    games; ``on_game(record)`` is called with each finished game. Returns the report as a
    dict, the same as ``tabula.match`` returns (and ``tabula match --json`` prints) for the
    same games.
    """
    if not 1 <= games <= 1_000_000:
        raise ValueError(f"games {games} is out of range: 1..=1000000")
    if workers is not None and not 1 <= workers <= 100_000:
        raise ValueError(f"workers {workers} is out of range: 1..=100000")
    results = os.fspath(results) if results is not None else None
    args = dict(
        game=game,
        a=a,
        b=b,
        games=games,
        time_ms=time_ms,
        nodes=nodes,
        depth=depth,
        openings=openings,
        seed=seed,
        max_plies=max_plies,
    )
    tally = _run(args, results, address, workers, sprt, progress, progress_every, on_game)
    return tally.report()


def sprt(
    game: str,
    a: str,
    b: str,
    elo0: float,
    elo1: float,
    games: int = 20_000,
    **options: Any,
) -> Dict[str, Any]:
    """An SPRT of `a` against `b` with hypotheses ``elo0`` and ``elo1`` (alpha = beta =
    0.05), playing up to `games` games on the cluster: ``match(..., sprt=(elo0, elo1))``.
    It stops at the same game count as ``tabula match --sprt elo0,elo1 --jobs 1`` on the
    same games; the report's ``sprt.status.decision`` says which hypothesis was accepted."""
    return match(game, a, b, games=games, sprt=(elo0, elo1), **options)


def tourney(
    game: str,
    agents: Sequence[str],
    games: int = 2,
    gauntlet: bool = False,
    openings: Optional[str] = None,
    seed: int = 1,
    time_ms: Optional[int] = None,
    nodes: Optional[int] = None,
    depth: Optional[int] = None,
    max_plies: Optional[int] = None,
    results: Optional[str] = None,
    address: Optional[str] = None,
    workers: Optional[int] = None,
    progress: bool = True,
    progress_every: int = 10,
    on_game: Optional[Callable[[Dict[str, Any]], None]] = None,
) -> Dict[str, Any]:
    """A tournament of `game` between `agents` (specs) played by Ray actors: a round robin,
    or with ``gauntlet=True`` the first agent against each other, ``games`` games per
    pairing. The other settings are those of ``match``. Returns the report as a dict, the
    same as ``tabula.tourney`` returns for the same games."""
    if workers is not None and not 1 <= workers <= 100_000:
        raise ValueError(f"workers {workers} is out of range: 1..=100000")
    results = os.fspath(results) if results is not None else None
    args = dict(
        game=game,
        agents=list(agents),
        games=games,
        gauntlet=gauntlet,
        time_ms=time_ms,
        nodes=nodes,
        depth=depth,
        openings=openings,
        seed=seed,
        max_plies=max_plies,
    )
    return _run(args, results, address, workers, None, progress, progress_every, on_game).report()
