"""``python -m tabula.distributed match GAME A B ...``: a match or SPRT on a Ray cluster
from the command line, printing the report ``tabula match`` prints for the same games."""

import argparse
import os
import sys
from typing import List, Optional

from . import DistributedError, _run


def _elo_pair(text: str):
    try:
        e0, e1 = (float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError("--sprt takes ELO0,ELO1") from None
    return e0, e1


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tabula.distributed", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    m = commands.add_parser("match", help="a match (or an SPRT with --sprt) between two agents")
    m.add_argument("game", help="game spec, e.g. connect4")
    m.add_argument("agent_a", help="first agent spec (the one whose strength is measured)")
    m.add_argument("agent_b", help="second agent spec")
    m.add_argument("--games", type=int, default=10, help="games to play; colours alternate")
    m.add_argument("--sprt", type=_elo_pair, help="stop once an SPRT of ELO0,ELO1 decides")
    m.add_argument("--openings", help="random:N or a file with one opening per line")
    m.add_argument("--seed", type=int, default=1, help="seed for random openings")
    m.add_argument("--time-ms", type=int, help="time per move in milliseconds")
    m.add_argument("--nodes", type=int, help="nodes or playouts per move")
    m.add_argument("--depth", type=int, help="search depth per move")
    m.add_argument("--max-plies", type=int, help="score a game as a draw after this many plies")
    m.add_argument("--results", help="results file (JSON lines), resumed from when it exists")
    m.add_argument("--address", default=os.environ.get("RAY_ADDRESS"), help="the Ray cluster (default: RAY_ADDRESS)")
    m.add_argument("--workers", type=int, help="actors playing games (default: one per CPU of the cluster)")
    m.add_argument("--progress-every", type=int, default=10, help="a progress line every N games")
    m.add_argument("--quiet", action="store_true", help="no progress lines")
    out = m.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the report as JSON")
    out.add_argument("--csv", action="store_true", help="print the report as CSV")
    args = parser.parse_args(argv)
    if not 1 <= args.games <= 1_000_000:
        parser.error("--games is out of range: 1..=1000000")
    try:
        game_args = dict(
            game=args.game,
            a=args.agent_a,
            b=args.agent_b,
            games=args.games,
            time_ms=args.time_ms,
            nodes=args.nodes,
            depth=args.depth,
            openings=args.openings,
            seed=args.seed,
            max_plies=args.max_plies,
        )
        tally = _run(
            game_args, args.results, args.address, args.workers, args.sprt, not args.quiet, args.progress_every, None
        )
    except (DistributedError, ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(tally.report_text("json" if args.json else "csv" if args.csv else "table"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
