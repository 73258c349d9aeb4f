#!/usr/bin/env python3
"""Differential check and side-by-side timing of `tabula db` against Kombilo's libkombilo.

Both programs index the same SGF collection; then the same queries — whole-board positions,
corner, side and anywhere patterns (with and without colour swap and don't-care points),
and players — go to both, and the games each one finds are
compared. Run through scripts/bench/kombilo_compare.sh, which installs Kombilo from PyPI into
a private virtual environment and builds tabula.

What is compared. Kombilo reports, per game, one hit per placement of the pattern: the first
move at which that placement matched. tabula reports every move at which the pattern
appears (again). So the comparison is per game: the set of games with a hit, and for each
such game the earliest hit move. Games only one side indexes (board sizes other than 19,
games tabula flags as duplicates or rejects) are taken out of both sides and counted apart.

Usage: kombilo_compare.py --tabula BIN --collection DIR --work DIR [--queries N] [--seed S]
"""

import argparse
import collections
import glob
import concurrent.futures
import json
import multiprocessing
import os
import random
import resource
import sqlite3
import statistics
import subprocess
import sys
import tarfile
import time

from kombilo import libkombilo as lk

SIZE = 19
SYMS = 8


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------- indexing


def sgf_members(collection):
    """(archive name, member name, text) for every .sgf file in the collection's archives, in
    a fixed order; plain .sgf files under the directory too."""
    for path in sorted(glob.glob(os.path.join(collection, "**", "*"), recursive=True)):
        if path.endswith((".tar.gz", ".tgz", ".tar")):
            with tarfile.open(path) as tar:
                for m in tar:
                    if m.isfile() and m.name.lower().endswith(".sgf"):
                        data = tar.extractfile(m).read()
                        yield os.path.basename(path), m.name, data.decode("latin-1")
        elif path.lower().endswith(".sgf"):
            with open(path, "rb") as f:
                yield os.path.dirname(path), os.path.basename(path), f.read().decode("latin-1")


def build_kombilo(collection, dbfile):
    for old in glob.glob(dbfile[:-1] + "*"):
        os.remove(old)
    pop = lk.ProcessOptions()
    pop.rootNodeTags = "PW,PB,RE,DT,EV,KM,HA,SZ"
    pop.sgfInDB = False
    pop.professional_tag = 0
    pop.processVariations = False
    pop.algos = lk.ALGO_FINALPOS | lk.ALGO_MOVELIST | lk.ALGO_HASH_FULL | lk.ALGO_HASH_CORNER
    gl = lk.GameList(dbfile, "", "[[path]]|[[filename]]|[[pos]]", pop, SIZE, 5000)
    start = time.perf_counter()
    gl.start_processing()
    n = 0
    for archive, member, text in sgf_members(collection):
        gl.process(text, archive, member, lk.vectorGL(), "", 0)
        n += 1
        if n % 5000 == 0:
            log(f"  kombilo: {n} files")
    gl.finalize_processing()
    return time.perf_counter() - start, n


def open_kombilo(dbfile):
    return lk.GameList(dbfile, "", "[[path]]|[[filename]]|[[pos]]", None, SIZE, 5000)


def import_tabula(tabula, collection, dbfile):
    for old in glob.glob(dbfile + "*"):
        os.remove(old)
    start = time.perf_counter()
    subprocess.run([tabula, "db", "import", collection, "--db", dbfile, "--quiet"], check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


# ----------------------------------------------------------------------------- positions


class Board:
    """Stones after each move of a stored game, with captures (a Go board small enough to
    be obviously right: flood-fill liberties)."""

    def __init__(self, setup):
        self.g = {}
        for p in setup:
            self.g[p] = "X"

    def play(self, color, p):
        if p is None:
            return
        me, other = ("X", "O") if color == "B" else ("O", "X")
        self.g[p] = me
        for q in neighbours(p):
            if self.g.get(q) == other and not self.liberties(q):
                for s in self.group(q):
                    del self.g[s]
        if not self.liberties(p):
            for s in self.group(p):
                del self.g[s]

    def group(self, p):
        c = self.g[p]
        seen, todo = {p}, [p]
        while todo:
            for q in neighbours(todo.pop()):
                if q not in seen and self.g.get(q) == c:
                    seen.add(q)
                    todo.append(q)
        return seen

    def liberties(self, p):
        return any(q not in self.g for s in self.group(p) for q in neighbours(s))

    def at(self, x, y):
        return self.g.get((x, y), ".")


def neighbours(p):
    x, y = p
    for q in ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)):
        if 0 <= q[0] < SIZE and 0 <= q[1] < SIZE:
            yield q


def unpack_moves(blob):
    out = []
    for i in range(0, len(blob or b"") - 1, 2):
        a, b = blob[i], blob[i + 1]
        color = "W" if a & 0x80 else "B"
        x = a & 0x7F
        out.append((color, None if x == 127 else (x, b)))
    return out


def unpack_points(blob):
    return [(blob[i], blob[i + 1]) for i in range(0, len(blob or b"") - 1, 2)]


def transform(s, x, y, n):
    """The 8 symmetries of an n x n square."""
    if s & 4:
        x, y = y, x
    if s & 1:
        x = n - 1 - x
    if s & 2:
        y = n - 1 - y
    return x, y


# ----------------------------------------------------------------------------- queries


def make_queries(tdb, rng, per_kind):
    games = tdb.execute(
        "SELECT id, source, moves, setup FROM games WHERE status = 'ok' AND size = 19 AND move_count >= 80"
    ).fetchall()
    queries = []

    def board_at(game, n):
        _, _, moves, setup = game
        b = Board(unpack_points(setup))
        mv = unpack_moves(moves)
        for c, p in mv[:n]:
            b.play(c, p)
        return b, mv

    def region(b, x0, y0, w, h, sym, wild):
        rows = []
        for j in range(h):
            row = ""
            for i in range(w):
                x, y = transform(sym, x0 + i, y0 + j, SIZE)
                row += "?" if rng.random() < wild else b.at(x, y)
            rows.append(row)
        return rows

    # Whole-board positions early in games (many hits) and later (few).
    for k in range(per_kind):
        g = rng.choice(games)
        n = rng.choice([rng.randint(1, 8), rng.randint(9, 30), rng.randint(31, 120)])
        b, _ = board_at(g, n)
        rows = ["".join(b.at(x, y) for x in range(SIZE)) for y in range(SIZE)]
        queries.append({"kind": "position", "rows": rows, "swap": True, "game": g[0], "move": n})
    # Corner patterns: the corner region of a real position, seen from one of the 4 corners.
    for k in range(per_kind):
        g = rng.choice(games)
        n = rng.randint(6, 60)
        b, _ = board_at(g, n)
        w, h = rng.randint(4, 9), rng.randint(4, 9)
        rows = region(b, 0, 0, w, h, rng.randrange(SYMS), 0.15 if k % 3 == 2 else 0.0)
        if not any(c in "XO" for r in rows for c in r):
            rows[rng.randrange(h)] = "X" + rows[0][1:]
        queries.append({"kind": "corner", "rows": rows, "swap": k % 2 == 0})
    # Side patterns: a strip on an edge.
    for k in range(per_kind * 10):
        if sum(q["kind"] == "side" for q in queries) >= per_kind:
            break
        g = rng.choice(games)
        n = rng.randint(20, 120)
        b, mv = board_at(g, n)
        w, h = rng.randint(4, 8), rng.randint(3, 5)
        x0 = rng.randint(0, SIZE - w)
        rows = region(b, x0, 0, w, h, rng.randrange(SYMS), 0.15 if k % 3 == 2 else 0.0)
        if sum(c in "XO" for r in rows for c in r) < 2:
            continue
        queries.append({"kind": "side", "rows": rows, "swap": k % 2 == 0})
    # Anywhere: 2x2, 3x3 and 4x4 around a move just played.
    for k in range(per_kind * 10):
        if sum(q["kind"] == "anywhere" for q in queries) >= per_kind:
            break
        g = rng.choice(games)
        n = rng.randint(10, 150)
        b, mv = board_at(g, n)
        p = mv[n - 1][1] if n - 1 < len(mv) else None
        if p is None:
            continue
        s = (2, 3, 3, 4)[k % 4]
        x0 = min(max(p[0] - s // 2, 0), SIZE - s)
        y0 = min(max(p[1] - s // 2, 0), SIZE - s)
        rows = region(b, x0, y0, s, s, 0, 0.2 if k % 5 == 4 else 0.0)
        if sum(c in "XO" for r in rows for c in r) < 2:
            continue
        queries.append({"kind": "anywhere", "rows": rows, "swap": k % 2 == 0})
    # Sequences: 3 or 4 consecutive moves of a game inside a corner region.
    for k in range(per_kind * 3):
        if sum(q["kind"] == "sequence" for q in queries) >= per_kind:
            break
        g = rng.choice(games)
        _, mv = board_at(g, 0)
        n = rng.randint(0, 40)
        length = 3 + k % 2
        # The region: a 9x9 or 10x10 corner holding the moves.
        side = 9 + k % 2
        seq = mv[n:n + length]
        if len(seq) < length or any(p is None for _, p in seq):
            continue
        corners = [(0, 0), (SIZE - side, 0), (0, SIZE - side), (SIZE - side, SIZE - side)]
        fits = [c for c in corners
                if all(c[0] <= p[0] < c[0] + side and c[1] <= p[1] < c[1] + side for _, p in seq)]
        if not fits:
            continue
        queries.append({"kind": "sequence", "moves": seq, "region": fits[0], "side": side,
                        "swap": k % 2 == 0})
    # Players.
    names = [r[0] for r in tdb.execute(
        "SELECT black FROM games WHERE status = 'ok' AND size = 19 AND black IS NOT NULL "
        "AND black NOT LIKE '%''%' GROUP BY black COLLATE NOCASE ORDER BY black")]
    for name in rng.sample(names, min(per_kind, len(names))):
        queries.append({"kind": "player", "name": name})
    return queries


# ----------------------------------------------------------------------------- running


def kombilo_pattern(q):
    """The lk.Pattern for a query: its anchor rectangle spelled out so that anywhere means
    anywhere (Kombilo's own CENTER_PATTERN keeps off the edges, SIDE_N_PATTERN off the corners)."""
    kind = q["kind"]
    rows = q.get("rows", [""])
    h, w = len(rows), len(rows[0])
    ipos = "".join(c if c != "?" else "*" for r in rows for c in r)
    last_x, last_y = SIZE - w, SIZE - h
    if kind in ("position", "corner"):
        return lk.Pattern(0, 0, 0, 0, SIZE, w, h, ipos)
    if kind == "side":
        return lk.Pattern(0, last_x, 0, 0, SIZE, w, h, ipos)
    if kind == "anywhere":
        return lk.Pattern(0, last_x, 0, last_y, SIZE, w, h, ipos)
    if kind == "sequence":
        side = q["side"]
        x0, y0 = q["region"]
        cont = lk.vectorMNC()
        for c, (x, y) in q["moves"]:
            cont.push_back(lk.MoveNC(x - x0, y - y0, "X" if c == "B" else "O"))
        return lk.Pattern(x0, x0, y0, y0, SIZE, side, side, "*" * side * side, cont)
    raise ValueError(kind)


_worker_gl = None


def _worker_open(dbfile, memory_limit):
    global _worker_gl
    # A search that needs more than this fails in the worker instead of starving the machine.
    resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    _worker_gl = open_kombilo(dbfile)


def _worker_ready():
    """Returns once the worker has opened the database (its initializer has run)."""
    return _worker_gl is not None


def _worker_run(q):
    return run_kombilo(_worker_gl, q, lambda info: info)


def run_kombilo(gl, q, key_of):
    """(seconds, {game key: earliest hit move})."""
    gl.reset()
    start = time.perf_counter()
    if q["kind"] == "player":
        name = q["name"].replace("'", "''")
        gl.gisearch(f"PB = '{name}' COLLATE NOCASE OR PW = '{name}' COLLATE NOCASE")
    else:
        so = lk.SearchOptions(0 if q["swap"] else 1, 0, 10000)
        so.searchInVariations = False
        gl.search(kombilo_pattern(q), so)
    elapsed = time.perf_counter() - start
    found = {}
    for i in range(gl.size()):
        # Entry i of the current list is entry `at` of all games, which the accessors index.
        at = gl.get_currentList_entry(i)[1]
        key = key_of(gl.get_gameInfoStr(at))
        if q["kind"] == "player":
            found[key] = 0
            continue
        moves = []
        for item in gl.get_resultsStr(at).split(","):
            digits = ""
            for ch in item.strip():
                if not ch.isdigit():
                    break
                digits += ch
            if digits:
                moves.append(int(digits))
        found[key] = min(moves) if moves else -1
    return elapsed, found


def tabula_request(q, work):
    """The search as a `tabula db query` request (the fields of `tabula db search`)."""
    limit = 1000000 if q["kind"] == "player" else 0
    req = {"limit": limit}
    if q["kind"] == "position":
        # Through the position index: the game's SGF file and the move number.
        req.update(sgf=os.path.join(work, "query.sgf"), move=q["move"], size=19)
    elif q["kind"] in ("corner", "side", "anywhere"):
        req.update(pattern=q["rows"], anchor=q["kind"], size=19)
    elif q["kind"] == "sequence":
        x0, y0 = q["region"]
        side = q["side"]
        req.update(sequence=" ".join(f"{c}[{chr(97 + x)}{chr(97 + y)}]" for c, (x, y) in q["moves"]),
                   region=[x0, y0, x0 + side - 1, y0 + side - 1], size=19)
    elif q["kind"] == "player":
        req.update(player=q["name"], size=19)
    if q.get("swap") and q["kind"] != "position":
        req["swap_colors"] = True
    return req


class TabulaQuery:
    """One long-lived `tabula db query` process: the games are loaded into memory once, as
    Kombilo's GameList holds its own, and each search is one request line and one answer."""

    def __init__(self, tabula, dbfile):
        start = time.perf_counter()
        self.proc = subprocess.Popen([tabula, "db", "query", "--db", dbfile], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # The process reports its load on stderr before it reads the first request.
        self.load_line = self.proc.stderr.readline().strip()
        self.load_seconds = time.perf_counter() - start

    def run(self, req):
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"tabula db query ended: {self.proc.stderr.read()}")
        return json.loads(line)


def run_tabula(tabula, dbfile, q, work, server=None):
    """(seconds, {game: earliest hit move}, games); through `server` when given, else one
    `tabula db search` process reading the database for this search alone."""
    req = tabula_request(q, work)
    if server is not None:
        result = server.run(req)
        if "error" in result:
            raise RuntimeError(f"tabula failed on {q}: {result['error']}")
    else:
        args = [tabula, "db", "search", "--db", dbfile, "--json", "--limit", str(req.pop("limit"))]
        stdin = None
        if "pattern" in req:
            args += ["--pattern", "-", "--anchor", req["anchor"]]
            stdin = "\n".join(req["pattern"])
        if "sgf" in req:
            args += ["--sgf", req["sgf"], "--move", str(req["move"])]
        if "sequence" in req:
            args += ["--sequence", req["sequence"], "--region", ",".join(map(str, req["region"]))]
        if "player" in req:
            args += ["--player", req["player"]]
        args += ["--size", "19"]
        if req.get("swap_colors"):
            args.append("--swap-colors")
        out = subprocess.run(args, input=stdin, capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(f"tabula failed on {q}: {out.stderr}")
        result = json.loads(out.stdout)
    found = {}
    if q["kind"] == "player":
        for g in result["listed"]:
            found[g["id"]] = 0
    else:
        for h in result["hits"]:
            g, m = h["game"], h["move"]
            found[g] = min(found.get(g, m), m)
    return result["time_ms"] / 1000.0, found, result.get("games")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tabula", required=True)
    ap.add_argument("--collection", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--queries", type=int, default=30, help="queries of each kind")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--reuse", action="store_true", help="keep both databases if present")
    ap.add_argument("--kombilo-memory-gib", type=int, default=12,
                    help="address-space limit of Kombilo's worker process")
    # Sequences are not in the default set: Kombilo searches a sequence as a continuation of
    # an initial pattern, and with an all-don't-care region (which is what tabula's sequence
    # search means) every node starts a new candidate and libkombilo runs out of memory.
    ap.add_argument("--kinds", default="position,corner,side,anywhere,player",
                    help="the kinds of query to run, comma-separated (also: sequence)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs of each query by each program, taking turns; the best time of each "
                         "is reported")
    ap.add_argument("--one-shot", action="store_true",
                    help="run each tabula search as its own `tabula db search` process, reading the "
                         "database for that search, instead of one `tabula db query` process that "
                         "holds the games in memory")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    kdb = os.path.join(args.work, "kombilo.db")
    tdbf = os.path.join(args.work, "tabula.db")

    if not (args.reuse and os.path.exists(tdbf)):
        log("tabula: importing ...")
        t_import = import_tabula(args.tabula, args.collection, tdbf)
        print(f"tabula import: {t_import:.1f} s")
    if not (args.reuse and os.path.exists(kdb)):
        log("kombilo: building its database ...")
        k_import, files = build_kombilo(args.collection, kdb)
        print(f"Kombilo import: {k_import:.1f} s over {files} files")

    tdb = sqlite3.connect(tdbf)
    by_source = {}
    status = {}
    for gid, source, idx, st, size in tdb.execute("SELECT id, source, idx, status, size FROM games"):
        # tabula names a source inside an archive "DIR/ARCHIVE:MEMBER", a plain file by its path.
        if ":" in source:
            arch, member = source.split(":", 1)
            key = (os.path.basename(arch), member, idx)
        else:
            key = (os.path.dirname(source), os.path.basename(source), idx)
        by_source[key] = gid
        status[gid] = (st, size)

    def key_of(info):
        path, fn, pos = info.split("|")[:3]
        return by_source.get((path, fn, int(pos or 0)), ("unknown", path, fn, pos))

    start = time.perf_counter()
    gl = open_kombilo(kdb)
    print(f"Kombilo: database opened and loaded into memory in {time.perf_counter() - start:.1f} s")
    server = None
    if not args.one_shot:
        server = TabulaQuery(args.tabula, tdbf)
        print(f"tabula db query: {server.load_line} (process ready after {server.load_seconds:.1f} s)")
    log(f"kombilo: {gl.size_all()} games; tabula: {sum(1 for s in status.values() if s == ('ok', 19))} "
        f"19x19 games")
    rng = random.Random(args.seed)
    kinds = set(args.kinds.split(","))
    queries = [q for q in make_queries(tdb, rng, args.queries) if q["kind"] in kinds]
    key_by_id = {gid: key for key, gid in by_source.items()}
    sgf_of = extract_sgfs(args.collection, {key_by_id[q["game"]][:2] for q in queries if q["kind"] == "position"})
    per_kind = collections.defaultdict(lambda: {"n": 0, "agree": 0, "k": [], "t": [], "games": 0,
                                                "apart": 0})
    disagreements = []
    del gl
    # libkombilo keeps memory from every search (gigabytes after a few dozen anywhere
    # searches on this collection, and deleting the GameList does not return it), so its
    # searches run in a worker process that is replaced every few queries.
    memory_limit = args.kombilo_memory_gib << 30
    # libkombilo's OpenMP threads otherwise spin for a while after each search, taking the
    # cores from the tabula search that is timed next; sleeping threads change nothing in
    # Kombilo's own times.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

    # A replaced worker opens Kombilo's database again, which takes both cores for a while:
    # it is replaced here, between two queries, and waited for, so that it never runs beside
    # a timed tabula search.
    def new_pool():
        pool = concurrent.futures.ProcessPoolExecutor(
            1, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_open,
            initargs=(kdb, memory_limit))
        pool.submit(_worker_ready).result()
        return pool

    pool = new_pool()
    searches = 0
    kombilo_failed = []
    for i, q in enumerate(queries):
        if q["kind"] == "position":
            with open(os.path.join(args.work, "query.sgf"), "wb") as f:
                f.write(sgf_of[key_by_id[q["game"]][:2]])
        # The two programs take turns, so that each run follows the other program's and
        # starts with caches holding the other's data; the best time of each is kept (this
        # 2-core machine is shared, and a search now and then loses a core for a while).
        kt = tt = None
        by_info = tfound = None
        for _ in range(args.repeat):
            if searches == 3:
                pool.shutdown(wait=True)
                pool = new_pool()
                searches = 0
            searches += 1
            try:
                k, info = pool.submit(_worker_run, q).result()
            except concurrent.futures.process.BrokenProcessPool:
                log(f"{i + 1}/{len(queries)} {q['kind']}: Kombilo's worker died (memory limit "
                    f"{args.kombilo_memory_gib} GiB); not compared")
                kombilo_failed.append(q)
                pool = new_pool()
                searches = 0
                by_info = None
                break
            t, found, _ = run_tabula(args.tabula, tdbf, q, args.work, server)
            kt = k if kt is None else min(kt, k)
            tt = t if tt is None else min(tt, t)
            if by_info is None:
                by_info, tfound = info, found
            elif (info, found) != (by_info, tfound):
                raise RuntimeError(f"a second run of {q} found other games")
        if by_info is None:
            continue
        kfound = {}
        for info, move in by_info.items():
            key = key_of(info)
            kfound[key] = min(kfound.get(key, move), move)
        # Games only one side indexes are set apart.
        apart = 0
        for key in list(kfound):
            if not isinstance(key, int) or status.get(key) != ("ok", 19):
                del kfound[key]
                apart += 1
        labels = [q["kind"]]
        if q["kind"] == "anywhere":
            labels.append(f"anywhere {len(q['rows'][0])}x{len(q['rows'])} (of the above)")
        for label in labels:
            s = per_kind[label]
            s["n"] += 1
            s["k"].append(kt)
            s["t"].append(tt)
            s["games"] += len(tfound)
            s["apart"] += apart
            s["agree"] += kfound == tfound
        if kfound != tfound:
            only_k = sorted(set(kfound) - set(tfound))
            only_t = sorted(set(tfound) - set(kfound))
            moved = sorted(g for g in set(kfound) & set(tfound) if kfound[g] != tfound[g])
            disagreements.append({"query": q, "only_kombilo": only_k[:10], "only_tabula": only_t[:10],
                                  "first_hit_differs": [(g, kfound[g], tfound[g]) for g in moved[:10]],
                                  "counts": [len(only_k), len(only_t), len(moved)]})
        log(f"{i + 1}/{len(queries)} {q['kind']}: kombilo {len(kfound)} games {kt * 1000:.1f} ms, "
            f"tabula {len(tfound)} games {tt * 1000:.1f} ms{'' if kfound == tfound else '  DIFFERENT'}")

    pool.shutdown(wait=True)
    print("| kind | queries | equal results | games found (tabula) | Kombilo median | tabula median | "
          "speed-up (median of ratios) |")
    print("|---|---|---|---|---|---|---|")
    for kind, s in per_kind.items():
        ratios = [k / t for k, t in zip(s["k"], s["t"]) if t > 0]
        print(f"| {kind} | {s['n']} | {s['agree']} | {s['games']} | {statistics.median(s['k']) * 1000:.1f} ms | "
              f"{statistics.median(s['t']) * 1000:.1f} ms | {statistics.median(ratios):.1f}x |")
    for q in kombilo_failed:
        print(f"\nKombilo failed (worker out of memory) on this {q['kind']} query, not compared: {q}")
    with open(os.path.join(args.work, "disagreements.json"), "w") as f:
        json.dump(disagreements, f, indent=1)
    apart = sum(s["apart"] for label, s in per_kind.items() if "(of the above)" not in label)
    print(f"\nGames set apart (hits Kombilo found in games tabula flags as duplicates, rejects or "
          f"sizes differently): {apart}")
    print(f"{len(disagreements)} queries with different results; details in "
          f"{os.path.join(args.work, 'disagreements.json')}")
    sys.exit(1 if disagreements else 0)


def extract_sgfs(collection, wanted):
    """{(archive, member): SGF bytes} for the wanted (archive, member) pairs, one pass per
    archive."""
    out = {}
    archives = {a for a, _ in wanted}
    for path in sorted(glob.glob(os.path.join(collection, "**", "*"), recursive=True)):
        name = os.path.basename(path)
        if name not in archives:
            continue
        with tarfile.open(path) as tar:
            for m in tar:
                if (name, m.name) in wanted:
                    out[(name, m.name)] = tar.extractfile(m).read()
    return out


if __name__ == "__main__":
    main()
