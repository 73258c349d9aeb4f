#!/usr/bin/env python3
"""Summarises a `tabula match --results FILE` JSON-lines file: per player wins, losses, draws,
how games ended, and the time each player actually spent per move (mean, 95th percentile,
maximum) — the check that a match "at equal time per move" really was.

Usage: match_summary.py RESULTS.jsonl
"""

import collections
import json
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: match_summary.py RESULTS.jsonl")
    games = 0
    score = collections.defaultdict(lambda: [0, 0, 0])  # name -> wins, losses, draws
    endings = collections.Counter()
    times = collections.defaultdict(list)
    plies = []
    with open(sys.argv[1]) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            r = json.loads(line)
            games += 1
            players, rewards = r["players"], r["rewards"]
            endings[r["termination"]["kind"]] += 1
            plies.append(len(r["moves"]))
            # Keyed by participant, so two agents with the same name stay apart.
            keys = [f"#{part} {name}" for part, name in zip(r["participants"], players)]
            for seat, name in enumerate(keys):
                mine, others = rewards[seat], [x for i, x in enumerate(rewards) if i != seat]
                best_other = max(others) if others else 0.0
                k = 0 if mine > best_other else 1 if mine < best_other else 2
                score[name][k] += 1
            for st in r.get("stats", []):
                times[keys[st["seat"]]].append(st["millis"])
    print(f"{games} games, {sum(plies) / max(games, 1):.1f} plies on average; endings: {dict(endings)}")
    for name, (w, l, d) in score.items():
        t = sorted(times[name])
        if t:
            mean = sum(t) / len(t)
            p95 = t[min(len(t) - 1, int(0.95 * len(t)))]
            timing = f"{len(t)} moves, {mean:.0f} ms mean, {p95} ms p95, {t[-1]} ms max"
        else:
            timing = "no timing"
        print(f"  {name}: +{w} -{l} ={d}; {timing}")


if __name__ == "__main__":
    main()
