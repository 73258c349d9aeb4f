#!/usr/bin/env python3
"""GTP front end for the gamazons command-line engine, so `tabula match` can play it.

gamazons (a C alpha-beta Amazons engine with a transposition table) has no GTP mode: its
command-line build alternates between a human side, read from stdin as `d1-d7-g7`, and the
engine side, printed as `BLACK selected: 1) a7-d4-a7, val = 27`. This adapter speaks the
subset of GTP that tabula's GTP client sends for Amazons (the Quarry conventions:
`list_games`, `set_game Amazons`, `boardsize 10`, `clear_board`, `play white D1-D7-G7`,
`genmove black`) and drives one engine process per game.

The engine side is fixed by the first `play` or `genmove` of a game: the engine plays the
colour that is asked to `genmove`. Both possible processes are started at `clear_board` and
the unused one is dropped, so the engine's start-up (it allocates its transposition table)
is not charged to its first move. Standard 10x10 only (the engine's board size is compiled in).

Usage: gamazons_gtp.py PATH/TO/amazons [SECONDS_PER_MOVE]
"""

import os
import re
import subprocess
import sys

SELECTED = re.compile(rb"(WHITE|BLACK) selected: \d+\) ([a-j]\d+)-([a-j]\d+)-([a-j]\d+)")


class Engine:
    """One gamazons process, the engine playing `color`. Its output is unbuffered (`stdbuf`),
    so a move is answered when it is made and the search is timed by `genmove`."""

    def __init__(self, path, seconds, color):
        human = "2" if color == "white" else "1"
        self.proc = subprocess.Popen(
            ["stdbuf", "-o0", path, "-p", human, "-t", str(seconds)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.color = color
        self.buf = b""

    def _read_until(self, *patterns):
        """Reads output until one of the byte patterns appears; returns (index, match text)."""
        while True:
            for i, p in enumerate(patterns):
                m = p.search(self.buf) if hasattr(p, "search") else None
                if m is None and isinstance(p, bytes) and p in self.buf:
                    end = self.buf.index(p) + len(p)
                    text, self.buf = self.buf[:end], self.buf[end:]
                    return i, text
                if m is not None:
                    # Wait for the end of the line so the whole move is there.
                    if b"\n" not in self.buf[m.end():]:
                        break
                    self.buf = self.buf[m.end():]
                    return i, m
            chunk = os.read(self.proc.stdout.fileno(), 4096)
            if not chunk:
                raise RuntimeError("engine exited")
            self.buf += chunk

    def play(self, move):
        """Sends the human side's move; raises ValueError if the engine refuses it."""
        self._read_until(b"Move> ")
        self.proc.stdin.write(move.lower().encode() + b"\n")
        self.proc.stdin.flush()
        # Either a new prompt (refused) or the engine's reply starts being computed.
        i, _ = self._read_until(b"Error in move!", b"is not a legal move", b"\n    A B C D E F G H I J\n\n")
        if i < 2:
            raise ValueError("illegal move")

    def genmove(self):
        _, m = self._read_until(SELECTED)
        return "-".join(g.decode().upper() for g in m.groups()[1:])

    def close(self):
        try:
            self.proc.kill()
            self.proc.wait(timeout=5)
        except Exception:
            pass


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: gamazons_gtp.py PATH/TO/amazons [SECONDS_PER_MOVE]")
    path = sys.argv[1]
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    engine = None
    spare = {}  # colour -> a started engine playing it, before the game fixes the side
    history = []  # moves of the current game, (colour, move)

    def start(colour):
        nonlocal spare
        chosen = spare.pop(colour, None) or Engine(path, seconds, colour)
        for other in spare.values():
            other.close()
        spare = {}
        return chosen
    commands = [
        "protocol_version", "name", "version", "known_command", "list_commands", "list_games",
        "set_game", "boardsize", "clear_board", "play", "genmove", "time_settings", "quit",
    ]

    def reply(ok, text, cid):
        sys.stdout.write(f"{'=' if ok else '?'}{cid} {text}".rstrip() + "\n\n")
        sys.stdout.flush()

    for line in sys.stdin:
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        cid = ""
        if words[0].isdigit():
            cid, words = words[0], words[1:]
        if not words:
            continue
        cmd, args = words[0].lower(), words[1:]
        try:
            if cmd == "protocol_version":
                reply(True, "2", cid)
            elif cmd == "name":
                reply(True, "gamazons", cid)
            elif cmd == "version":
                reply(True, "0.83", cid)
            elif cmd == "known_command":
                reply(True, "true" if args and args[0] in commands else "false", cid)
            elif cmd == "list_commands":
                reply(True, "\n".join(commands), cid)
            elif cmd == "list_games":
                reply(True, "Amazons", cid)
            elif cmd == "set_game":
                ok = bool(args) and args[0].lower() == "amazons"
                reply(ok, "" if ok else "unsupported game", cid)
            elif cmd == "boardsize":
                ok = args == ["10"]
                reply(ok, "" if ok else "unacceptable size", cid)
            elif cmd == "clear_board":
                if engine:
                    engine.close()
                for other in spare.values():
                    other.close()
                engine, history = None, []
                spare = {c: Engine(path, seconds, c) for c in ("white", "black")}
                reply(True, "", cid)
            elif cmd == "time_settings":
                reply(True, "", cid)
            elif cmd == "play":
                color, move = args[0].lower(), args[1]
                color = "white" if color.startswith("w") else "black"
                if engine is None:
                    engine = start("black" if color == "white" else "white")
                if color == engine.color:
                    raise ValueError("the engine plays this colour")
                engine.play(move.replace("/", "-").replace("x", "-"))
                history.append((color, move))
                reply(True, "", cid)
            elif cmd == "genmove":
                color = "white" if args[0].lower().startswith("w") else "black"
                if engine is None:
                    if history:
                        raise ValueError("the engine must play from the first move")
                    engine = start(color)
                if color != engine.color:
                    raise ValueError("the engine plays the other colour")
                move = engine.genmove()
                history.append((color, move))
                reply(True, move, cid)
            elif cmd == "quit":
                reply(True, "", cid)
                break
            else:
                reply(False, "unknown command", cid)
        except (ValueError, IndexError) as e:
            reply(False, str(e) or "syntax error", cid)
        except RuntimeError as e:
            reply(False, str(e), cid)
    if engine:
        engine.close()
    for other in spare.values():
        other.close()


if __name__ == "__main__":
    main()
