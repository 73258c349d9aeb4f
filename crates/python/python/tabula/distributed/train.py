"""Self-play training of a linear evaluator spread over a Ray cluster.

``train(game, out, games=...)`` runs ``tabula train``'s temporal-difference learning with the
games played by worker actors (each builds its ``tabula.EpisodeGenerator`` once) and the
updates made by one learner actor (a ``tabula.Learner`` keeping ``out/checkpoint.json``, the
file ``tabula train`` keeps).

Why in blocks: the run goes in blocks of ``sync_every`` (K) games. Every game of a block is
played with the learner's weights at the start of the block — so a game's weights are up to
K - 1 games old, where ``tabula train`` updates after every move — and the learner applies
the block's episodes in game order as they arrive. Checkpoints fall due every 20 games and
at every evaluation, as in ``tabula train``, and are written at the end of the block.
Because a block depends only on the weights at its start, which a checkpoint holds, the run
is a function of its settings, K and the checkpoint it started from:

* if the learner's actor or node dies, a new learner resumes from the last checkpoint, the
  games after it are played again by number, and the run ends with the same weights, step
  count and games, each counted once, as a run that never failed;
* the number of workers, which worker plays a game and the order episodes arrive in change
  nothing;
* a worker that dies is restarted by Ray and its games retried.

The checkpoint is ``tabula train``'s: ``tabula train GAME --out DIR`` with the same settings
continues a distributed run (online, from then on), and ``train()`` continues one of
``tabula train`` (in blocks from where it stopped). The folder ``out`` must be readable and
writable by the learner wherever it runs — a shared filesystem on a real cluster, or pin the
learner (``learner_resources``) to nodes that share one.

    python -m tabula.distributed.train "amazons(size=6)" --out run --games 2000 \\
        --workers 8 --sync-every 16 --address auto
"""

import argparse
import os
import sys
import time
from typing import Any, Callable, Dict, List, Optional

#: The ``tabula train`` settings ``train()`` passes on (``None`` keeps the preset's).
SETTINGS = (
    "eval",
    "init",
    "opponent",
    "eval_opponent",
    "moves",
    "alpha",
    "halve_every",
    "lambda_",
    "epsilon",
    "eval_every",
    "eval_games",
)


def _ray():
    try:
        import ray
    except ImportError as e:  # pragma: no cover - ray is a test requirement
        raise ImportError("tabula.distributed needs Ray: pip install 'ray==2.60.0'") from e
    return ray


def _actors(ray):
    """The worker and learner actor classes (defined once Ray is imported)."""
    global _WORKER, _LEARNER
    if _WORKER is not None:
        return _WORKER, _LEARNER

    class Worker:
        """Plays games with given weights; its generator is built once."""

        def __init__(self, game: str, settings: Dict[str, Any]):
            import tabula

            self.generator = tabula.EpisodeGenerator(game, **settings)

        def play(self, weights: List[float], first: int, count: int) -> List[bytes]:
            return [self.generator.play(weights, g) for g in range(first, first + count)]

    class LearnerActor:
        """Applies episodes in game order and checkpoints at the ends of blocks."""

        def __init__(self, out: str, game: str, settings: Dict[str, Any]):
            import tabula

            self.learner = tabula.Learner(out, game, **settings)
            self.due = False

        def state(self) -> Dict[str, Any]:
            import os

            lr = self.learner
            return {"games": lr.games, "step": lr.step, "done": lr.done, "weights": lr.weights, "pid": os.getpid()}

        def apply(self, episodes: List[bytes], block_end: bool) -> Dict[str, Any]:
            self.due |= self.learner.apply(episodes)
            if block_end and self.due:
                self.learner.save()
                self.due = False
            return self.state()

        def finish(self) -> Dict[str, Any]:
            self.learner.save()
            self.learner.write_results()
            return self.state()

    _WORKER = ray.remote(Worker)
    _LEARNER = ray.remote(LearnerActor)
    return _WORKER, _LEARNER


_WORKER = None
_LEARNER = None


def train(
    game: str,
    out: str,
    games: int,
    workers: int = 2,
    sync_every: int = 8,
    address: Optional[str] = None,
    preset: str = "document-td0",
    seed: int = 1,
    progress: bool = True,
    learner_resources: Optional[Dict[str, float]] = None,
    on_block: Optional[Callable[[Dict[str, Any]], None]] = None,
    learner_wait_s: float = 600.0,
    **settings: Any,
) -> Dict[str, Any]:
    """Trains on ``game`` for ``games`` games (fewer if the schedule's ``moves`` come first)
    in the folder ``out``, resuming its checkpoint, with ``workers`` worker actors and weights
    shared every ``sync_every`` games; see the module's documentation for what is guaranteed.

    ``address`` is the cluster's (``"auto"``, ``"ray://host:10001"``; ``None``: the Ray
    already initialised in this process, else a local one). ``settings`` are those of
    ``tabula train`` (``SETTINGS``; ``opponent`` defaults to ``"self"``). The learner actor
    asks for ``learner_resources`` (e.g. ``{"learner": 1}`` to place it). ``on_block`` hears
    the state after every block. A learner that has not started after ``learner_wait_s``
    seconds (no node offers its resources) ends the run with ``TimeoutError``; the checkpoint
    stays for a later resume. Returns the final state: ``games``, ``step``, ``weights``,
    ``resumed_at`` (the game counts each new learner started from), ``out``.
    """
    unknown = set(settings) - set(SETTINGS)
    if unknown:
        raise TypeError(f"unknown settings: {', '.join(sorted(unknown))}")
    if not 1 <= games <= 100_000_000:
        raise ValueError(f"games {games} is out of range: 1..=100000000")
    if not 1 <= workers <= 10_000:
        raise ValueError(f"workers {workers} is out of range: 1..=10000")
    if not 1 <= sync_every <= 1_000_000:
        raise ValueError(f"sync_every {sync_every} is out of range: 1..=1000000")
    import tabula

    ray = _ray()
    settings = {k: v for k, v in settings.items() if v is not None}
    settings.update(preset=preset, seed=seed)
    out = os.path.abspath(os.fspath(out))
    # The settings are checked here, before any actor starts, and so is a checkpoint this
    # machine can see (one of other settings is refused with the trainer's message).
    tabula.EpisodeGenerator(game, **settings)
    if os.path.exists(os.path.join(out, "checkpoint.json")):
        tabula.Learner(out, game, **settings)
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False)
    Worker, LearnerActor = _actors(ray)
    pool = [
        Worker.options(num_cpus=1, max_restarts=-1, max_task_retries=-1).remote(game, settings)
        for _ in range(workers)
    ]

    def new_learner():
        return LearnerActor.options(num_cpus=0, max_restarts=0, resources=learner_resources or {}).remote(
            out, game, settings
        )

    def first_state(actor):
        try:
            return ray.get(actor.state.remote(), timeout=learner_wait_s)
        except ray.exceptions.GetTimeoutError:
            ray.kill(actor)
            raise TimeoutError(
                f"the learner did not start within {learner_wait_s} s: does a node offer {learner_resources}?"
            ) from None

    learner = new_learner()
    try:
        state = first_state(learner)
        resumed_at = [state["games"]]
        started, first = time.monotonic(), state["games"]
        while True:
            try:
                if state["games"] >= games or state["done"]:
                    state = ray.get(learner.finish.remote())
                    break
                start = state["games"]
                end = min(start + sync_every, games)
                state = _block(ray, pool, learner, ray.put(state["weights"]), start, end)
            except ray.exceptions.RayActorError:
                if _alive(ray, learner):
                    raise  # a worker's failure Ray could not retry
                # The learner (or its node) died: a new one resumes from the checkpoint and
                # the games after it are played again.
                ray.kill(learner, no_restart=True)
                learner = new_learner()
                state = first_state(learner)
                resumed_at.append(state["games"])
                continue
            if on_block is not None:
                on_block(dict(state, resumed_at=list(resumed_at)))
            if progress:
                rate = (state["games"] - first) / max(time.monotonic() - started, 1e-9) * 60
                print(
                    f"\rgames {state['games']}/{games}, moves {state['step']}, {rate:.0f} games/min",
                    end="",
                    file=sys.stderr,
                    flush=True,
                )
    finally:
        for actor in pool + [learner]:
            ray.kill(actor)
    if progress:
        print(file=sys.stderr)
    return {
        "games": state["games"],
        "step": state["step"],
        "weights": state["weights"],
        "resumed_at": resumed_at,
        "out": out,
    }


def _alive(ray, actor) -> bool:
    try:
        ray.get(actor.state.remote())
        return True
    except ray.exceptions.RayActorError:
        return False


def _block(ray, pool, learner, weights, start: int, end: int) -> Dict[str, Any]:
    """Plays games ``start..end`` on the workers with ``weights`` and has the learner apply
    them in order; returns the learner's state. Games go out in runs of consecutive numbers,
    about four per worker and block, so that a task's overhead is shared by several games;
    each worker has at most two runs queued, so that a fast worker takes more of them."""
    size = max(1, -(-(end - start) // (4 * len(pool))))
    todo = [(g, min(size, end - g)) for g in range(start, end, size)]
    todo.reverse()
    pending: Dict[Any, Any] = {}
    load = {i: 0 for i in range(len(pool))}
    done: Dict[int, bytes] = {}
    next_game = start
    last = None

    def submit():
        for i in sorted(load, key=load.get):
            while todo and load[i] < 2:
                first, count = todo.pop()
                pending[pool[i].play.remote(weights, first, count)] = (first, i)
                load[i] += 1

    submit()
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        for ref in ready:
            first, i = pending.pop(ref)
            load[i] -= 1
            for offset, episode in enumerate(ray.get(ref)):
                done[first + offset] = episode
        submit()
        batch = []
        while next_game in done:
            batch.append(done.pop(next_game))
            next_game += 1
        if batch:
            last = learner.apply.remote(batch, next_game == end)
    return ray.get(last)


def main(argv: Optional[List[str]] = None) -> int:
    """``python -m tabula.distributed.train GAME --out DIR --games N [--address ADDR] ...``"""
    p = argparse.ArgumentParser(prog="python -m tabula.distributed.train", description=__doc__.split("\n\n")[0])
    p.add_argument("game", help="the game, e.g. 'amazons(size=6)'")
    p.add_argument("--out", required=True, help="the run's folder (its checkpoint is resumed)")
    p.add_argument("--games", type=int, required=True, help="games to train for in all")
    p.add_argument("--address", default=None, help="the Ray cluster's address (default: a local Ray)")
    p.add_argument("--workers", type=int, default=2, help="worker actors playing games")
    p.add_argument("--sync-every", type=int, default=8, help="games per block: workers get new weights this often")
    p.add_argument("--preset", default="document-td0", help="document-td0, td-lambda or td-leaf")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--eval", default=None, help="the game's linear evaluator (default: its first)")
    p.add_argument("--init", default=None, help="zeros, ones or hand")
    p.add_argument("--opponent", default=None, help="self (default), random or alphabeta:DEPTH")
    p.add_argument("--eval-opponent", default=None, help="random (default) or alphabeta:DEPTH")
    p.add_argument("--moves", type=int, default=None, help="learner moves (overrides the preset)")
    p.add_argument("--alpha", type=float, default=None)
    p.add_argument("--halve-every", type=int, default=None)
    p.add_argument("--lambda", dest="lambda_", type=float, default=None)
    p.add_argument("--epsilon", type=float, default=None)
    p.add_argument("--eval-every", type=int, default=None)
    p.add_argument("--eval-games", type=int, default=None)
    p.add_argument("--quiet", action="store_true", help="no progress line")
    a = p.parse_args(argv)
    settings = {k: getattr(a, k) for k in SETTINGS}
    try:
        result = train(
            a.game,
            a.out,
            a.games,
            workers=a.workers,
            sync_every=a.sync_every,
            address=a.address,
            preset=a.preset,
            seed=a.seed,
            progress=not a.quiet,
            **settings,
        )
    except (ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"done after {result['step']} moves in {result['games']} games; results in {result['out']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
