"""SGF game records as Python objects, read and written by tabula's SGF library.

    >>> from tabula import sgf
    >>> [tree] = sgf.parse("(;GM[1]SZ[9];B[ee];W[gc](;B[cg])(;B[gg]))")
    >>> tree["SZ"]
    ['9']
    >>> [node.get("B") or node.get("W") for node in tree.main_line()][1:]
    ['ee', 'gc', 'cg']
    >>> len(tree.children[0].children[0].children)   # two variations after W[gc]
    2
    >>> sgf.write(tree)
    '(;GM[1]SZ[9]\\n;B[ee]\\n;W[gc]\\n(;B[cg])\\n(;B[gg]))\\n'

A tree is its root ``Node``; each node has ``properties`` (identifier to list of values,
as decoded text: escapes removed, a composed value such as ``LB``'s written ``aa:label``)
and ``children`` (the first is the main line). Reading is lenient by default, as most
programs are: deviations are repaired and listed by ``parse_with_warnings``;
``strict=True`` refuses them. Bytes are decoded by the file's ``CA`` property or a
detected charset. ``State.to_sgf`` (``tabula.sgf.record``) writes a game of Go, Othello or
Amazons played in Python.
"""

from __future__ import annotations

import os
from typing import Dict, Iterator, List, Optional, Sequence, Tuple, Union

from . import _tabula

__all__ = ["Node", "parse", "parse_with_warnings", "read", "write", "write_file", "record"]


class Node:
    """One SGF node: its properties and its children (the first is the main line)."""

    __slots__ = ("properties", "children", "parent")

    def __init__(self, properties: Optional[Dict[str, List[str]]] = None, children: Optional[List["Node"]] = None):
        self.properties: Dict[str, List[str]] = dict(properties or {})
        self.children: List[Node] = []
        self.parent: Optional[Node] = None
        for child in children or []:
            self.append(child)

    def append(self, child: "Node") -> "Node":
        """Adds `child` as the last child (a variation after the main line) and returns it."""
        child.parent = self
        self.children.append(child)
        return child

    def add_child(self, properties: Optional[Dict[str, List[str]]] = None) -> "Node":
        """A new child with these properties, added last."""
        return self.append(Node(properties))

    def get(self, ident: str, default: Optional[str] = None) -> Optional[str]:
        """The first value of property `ident`, or `default`."""
        values = self.properties.get(ident)
        return values[0] if values else default

    def __getitem__(self, ident: str) -> List[str]:
        return self.properties[ident]

    def __setitem__(self, ident: str, values: Union[str, Sequence[str]]) -> None:
        self.properties[ident] = [values] if isinstance(values, str) else list(values)

    def __contains__(self, ident: str) -> bool:
        return ident in self.properties

    def main_line(self) -> Iterator["Node"]:
        """This node, its first child, that child's first child... to the end."""
        node: Optional[Node] = self
        while node is not None:
            yield node
            node = node.children[0] if node.children else None

    def nodes(self) -> Iterator["Node"]:
        """Every node of the subtree, depth first, main line first."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Node):
            return NotImplemented
        return _flat(self) == _flat(other)

    def __repr__(self) -> str:
        props = "".join(f"{k}[{']['.join(v)}]" for k, v in self.properties.items())
        return f"<sgf.Node ;{props} children={len(self.children)}>"


def _tree(flat: List[Tuple[int, List[Tuple[str, List[str]]]]]) -> Node:
    nodes: List[Node] = []
    for parent, props in flat:
        node = Node(dict(props))
        if parent >= 0:
            nodes[parent].append(node)
        nodes.append(node)
    return nodes[0]


def _flat(root: Node) -> List[Tuple[int, List[Tuple[str, List[str]]]]]:
    out = []
    index: Dict[int, int] = {}
    for node in root.nodes():
        parent = -1 if node is root or node.parent is None else index[id(node.parent)]
        index[id(node)] = len(out)
        out.append((parent, [(k, list(v)) for k, v in node.properties.items()]))
    return out


def parse_with_warnings(data: Union[str, bytes], strict: bool = False) -> Tuple[List[Node], List[str]]:
    """The trees of an SGF collection and the deviations found in it."""
    trees, warnings = _tabula.sgf_parse(data, strict)
    return [_tree(t) for t in trees], warnings


def parse(data: Union[str, bytes], strict: bool = False) -> List[Node]:
    """The trees of an SGF collection (raises ValueError when it cannot be read)."""
    return parse_with_warnings(data, strict)[0]


def read(path: Union[str, os.PathLike], strict: bool = False) -> List[Node]:
    """The trees of an SGF file (raises OSError when it cannot be opened)."""
    with open(path, "rb") as f:
        return parse(f.read(), strict)


def write(trees: Union[Node, Sequence[Node]]) -> str:
    """SGF text for one tree or a collection (raises ValueError for a bad identifier)."""
    if isinstance(trees, Node):
        trees = [trees]
    return _tabula.sgf_write([_flat(t) for t in trees])


def write_file(path: Union[str, os.PathLike], trees: Union[Node, Sequence[Node]]) -> None:
    """Writes one tree or a collection to `path` as UTF-8 SGF."""
    text = write(trees)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def record(state: "_tabula.State", players: Optional[Sequence[str]] = None, resigned: Optional[int] = None) -> str:
    """The SGF record of the game that led to `state` (Go, Othello or Amazons): `players`
    names the seats, `resigned` the seat that resigned, if one did."""
    return _tabula.state_to_sgf(state, list(players) if players is not None else None, resigned)
