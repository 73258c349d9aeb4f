//! A game's tree of moves: the main line and its variations, each node with an optional
//! comment.
//!
//! Nodes live in one vector (node 0 is the start, every other node's parent comes before
//! it), so nothing here recurses: a 10,000-move line is walked by loops. The position at a
//! node is not stored (a game's clone per node would cost far more than replaying); it is
//! rebuilt by replaying the moves from the start, and [`Tree::build`], which checks a whole
//! tree from a file or the state file, keeps a game every [`STRIDE`] plies of the line it
//! walks so that each variation is replayed from close by.

use serde_json::{Value, json};
use tabula_core::Turn;
use tabula_registry::any::AnyGame;

/// Most nodes of a game's tree (the start included).
pub const MAX_NODES: usize = 10_000;

/// The start of the error for a move past [`MAX_NODES`].
pub const FULL: &str = "the game tree holds its most nodes";

/// Most bytes of one node's comment.
pub const MAX_COMMENT: usize = 8 * 1024;

/// Most bytes of all of a game's comments together.
pub const MAX_COMMENTS: usize = 1024 * 1024;

/// Plies between two games kept by [`Tree::build`] along the line it walks.
const STRIDE: usize = 128;

/// One node: the move that led to it (none for the start), who played it, the cells it
/// touched, its children in the order they were added (the first is the main line), and
/// its comment.
#[derive(Clone, Debug, Default)]
pub struct Node {
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    pub mv: String,
    pub player: Option<usize>,
    pub path: Vec<usize>,
    pub comment: String,
}

/// A node as stored or read from a file: its parent (before it), its move in the game's
/// notation, and its comment.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub parent: usize,
    pub mv: String,
    pub comment: String,
}

/// The tree and the node on the board.
#[derive(Clone, Debug)]
pub struct Tree {
    nodes: Vec<Node>,
    /// The node on the board.
    pub cur: usize,
    comments: usize,
}

impl Default for Tree {
    fn default() -> Tree {
        Tree::new()
    }
}

/// Plays a node's move in `game`: one player's move, or a simultaneous turn's moves, one per
/// player, kept as a JSON list of their texts (no GDL move begins with `[`). A move after an
/// end the rules settle by playing on resumes the game ([`AnyGame::replay_move`]: a record of
/// a Go game played out in the cleanup phase).
pub fn replay(game: &mut AnyGame, mv: &str) -> Result<(), String> {
    if mv.starts_with('[') {
        let joint: Vec<String> = serde_json::from_str(mv).map_err(|e| format!("a joint move: {e}"))?;
        let texts: Vec<&str> = joint.iter().map(String::as_str).collect();
        game.play_joint_moves(&texts).map_err(|e| e.to_string())
    } else {
        game.replay_move(mv).map_err(|e| e.to_string())
    }
}

/// Plays one move per player at a simultaneous turn of `game`: the node's text (see
/// [`replay`]), its player (the number of players: every one) and no cells.
pub fn step_joint(game: &mut AnyGame, joint: &[String]) -> Result<(String, usize, Vec<usize>), String> {
    if game.turn() != Turn::Simultaneous {
        return Err("this is not a simultaneous turn".into());
    }
    let text = serde_json::to_string(joint).map_err(|e| e.to_string())?;
    let mut next = game.clone();
    replay(&mut next, &text)?;
    let n = game.num_players();
    *game = next;
    Ok((text, n, Vec::new()))
}

/// Plays `mv` for the player to move in `game`: the move as the game writes it, its player and
/// the cells it touched (a stored simultaneous turn, a JSON list, is replayed as one).
pub fn step(game: &mut AnyGame, mv: &str) -> Result<(String, usize, Vec<usize>), String> {
    if mv.starts_with('[') {
        let joint: Vec<String> = serde_json::from_str(mv).map_err(|e| format!("a joint move: {e}"))?;
        return step_joint(game, &joint);
    }
    let Turn::Player(p) = game.turn() else {
        return Err(match game.turn() {
            Turn::Over => "the game is over".to_string(),
            _ => "simultaneous turns are not played here yet".to_string(),
        });
    };
    let before = game.cells();
    let mut next = game.clone();
    next.play_move(mv).map_err(|e| e.to_string())?;
    let path = match (before, next.cells()) {
        (Some(b), Some(a)) => crate::live::path(&b, &a, p.index()),
        _ => Vec::new(),
    };
    let text = next.history().last().and_then(|p| p.first()).cloned().unwrap_or_default();
    *game = next;
    Ok((text, p.index(), path))
}

impl Tree {
    /// A tree holding only the start.
    pub fn new() -> Tree {
        Tree { nodes: vec![Node::default()], cur: 0, comments: 0 }
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn node(&self, n: usize) -> Option<&Node> {
        self.nodes.get(n)
    }

    /// The node on the board.
    pub fn current(&self) -> &Node {
        &self.nodes[self.cur]
    }

    /// The nodes from the start to `n`, both included.
    pub fn line(&self, n: usize) -> Vec<usize> {
        let mut out = vec![n];
        let mut at = n;
        while let Some(p) = self.nodes.get(at).and_then(|node| node.parent) {
            out.push(p);
            at = p;
        }
        out.reverse();
        out
    }

    /// The main line: the start and each first child.
    pub fn main_line(&self) -> Vec<usize> {
        let mut out = vec![0];
        let mut at = 0;
        while let Some(&c) = self.nodes[at].children.first() {
            out.push(c);
            at = c;
        }
        out
    }

    /// The child of `n` reached by `mv` (as the game writes it), if there is one.
    pub fn child_with(&self, n: usize, mv: &str) -> Option<usize> {
        self.nodes.get(n)?.children.iter().copied().find(|&c| self.nodes[c].mv == mv)
    }

    /// Adds a child of `parent`; refused past [`MAX_NODES`].
    pub fn add(&mut self, parent: usize, mv: String, player: usize, path: Vec<usize>) -> Result<usize, String> {
        if self.nodes.len() >= MAX_NODES {
            return Err(format!("{FULL} ({MAX_NODES})"));
        }
        if parent >= self.nodes.len() {
            return Err(format!("there is no node {parent}"));
        }
        let id = self.nodes.len();
        self.nodes.push(Node {
            parent: Some(parent),
            children: Vec::new(),
            mv,
            player: Some(player),
            path,
            comment: String::new(),
        });
        self.nodes[parent].children.push(id);
        Ok(id)
    }

    /// Drops every node after `n` (for a tree that is one line: a game with a clock).
    pub fn truncate_line(&mut self, n: usize) {
        if n < self.nodes.len() {
            self.nodes.truncate(n + 1);
            for node in &mut self.nodes {
                node.children.retain(|&c| c <= n);
            }
            self.comments = self.nodes.iter().map(|n| n.comment.len()).sum();
            self.cur = self.cur.min(n);
        }
    }

    /// Removes node `n` and every node after it (its variations included), keeping the
    /// order of the others, and returns where each old node went (`None`: removed). The
    /// node on the board, if removed, becomes `n`'s parent. The start cannot be removed.
    pub fn remove(&mut self, n: usize) -> Result<Vec<Option<usize>>, String> {
        let parent = match self.nodes.get(n) {
            None => return Err(format!("there is no node {n}")),
            Some(Node { parent: None, .. }) => return Err("the start cannot be removed".into()),
            Some(Node { parent: Some(p), .. }) => *p,
        };
        // Parents come first, so one pass in order finds every node below `n`.
        let mut gone = vec![false; self.nodes.len()];
        gone[n] = true;
        for i in n + 1..self.nodes.len() {
            gone[i] = self.nodes[i].parent.is_some_and(|p| gone[p]);
        }
        let mut map = vec![None; self.nodes.len()];
        let mut next = 0;
        for (i, slot) in map.iter_mut().enumerate() {
            if !gone[i] {
                *slot = Some(next);
                next += 1;
            }
        }
        let old = std::mem::take(&mut self.nodes);
        self.nodes = old
            .into_iter()
            .enumerate()
            .filter(|&(i, _)| !gone[i])
            .map(|(_, mut node)| {
                node.parent = node.parent.and_then(|p| map[p]);
                node.children = node.children.iter().filter_map(|&c| map[c]).collect();
                node
            })
            .collect();
        self.comments = self.nodes.iter().map(|n| n.comment.len()).sum();
        self.cur = map[self.cur].or(map[parent]).unwrap_or(0);
        Ok(map)
    }

    /// Sets node `n`'s comment (empty: none), within [`MAX_COMMENT`] and [`MAX_COMMENTS`].
    pub fn set_comment(&mut self, n: usize, text: &str) -> Result<(), String> {
        if text.len() > MAX_COMMENT {
            return Err(format!("a comment holds at most {MAX_COMMENT} bytes"));
        }
        let old = self.nodes.get(n).ok_or_else(|| format!("there is no node {n}"))?.comment.len();
        let total = self.comments - old + text.len();
        if total > MAX_COMMENTS {
            return Err(format!("a game's comments hold at most {MAX_COMMENTS} bytes"));
        }
        self.nodes[n].comment = text.to_string();
        self.comments = total;
        Ok(())
    }

    /// The game at node `n`, replayed from `start`.
    pub fn game_at(&self, start: &AnyGame, n: usize) -> Result<AnyGame, String> {
        if n >= self.nodes.len() {
            return Err(format!("there is no node {n}"));
        }
        let mut game = start.clone();
        for &id in &self.line(n)[1..] {
            replay(&mut game, &self.nodes[id].mv).map_err(|e| format!("node {id}: {e}"))?;
        }
        Ok(game)
    }

    /// The nodes as stored: the start's comment, then every other node as an [`Item`].
    pub fn items(&self) -> (String, Vec<Item>) {
        let items = self.nodes[1..]
            .iter()
            .map(|n| Item { parent: n.parent.unwrap_or_default(), mv: n.mv.clone(), comment: n.comment.clone() })
            .collect();
        (self.nodes[0].comment.clone(), items)
    }

    /// Builds a tree from `start`, the start's comment and `items` (node `i + 1` is
    /// `items[i]`), playing every move by the rules; the first that cannot be played, a
    /// parent that does not come first, or a tree past the caps, is the error.
    pub fn build(start: &AnyGame, root_comment: &str, items: &[Item]) -> Result<Tree, String> {
        if items.len() >= MAX_NODES {
            return Err(format!("the tree has more than {MAX_NODES} nodes"));
        }
        let mut tree = Tree::new();
        tree.set_comment(0, root_comment)?;
        // Games along the line last walked: `kept[k]` is the game at its node of depth
        // k * STRIDE, with that node's id.
        let mut kept: Vec<(usize, AnyGame)> = vec![(0, start.clone())];
        let mut depth = vec![0usize];
        let mut last: (usize, AnyGame) = (0, start.clone());
        for (i, item) in items.iter().enumerate() {
            let id = i + 1;
            let p = item.parent;
            if p >= id {
                return Err(format!("node {id}'s parent {p} does not come before it"));
            }
            let mut game = if last.0 == p {
                last.1
            } else {
                // Back to the deepest kept game on the parent's line, then forward.
                let line = tree.line(p);
                let valid =
                    kept.iter().enumerate().take_while(|(k, (node, _))| line.get(k * STRIDE) == Some(node)).count();
                kept.truncate(valid.max(1));
                let from = (kept.len() - 1) * STRIDE;
                let mut g = kept[kept.len() - 1].1.clone();
                for (d, &n) in line.iter().enumerate().skip(from + 1) {
                    replay(&mut g, &tree.nodes[n].mv).map_err(|e| format!("node {n}: {e}"))?;
                    if d % STRIDE == 0 {
                        kept.push((n, g.clone()));
                    }
                }
                g
            };
            let (mv, player, path) =
                step(&mut game, &item.mv).map_err(|e| format!("move {} ({}): {e}", depth[p] + 1, item.mv))?;
            tree.add(p, mv, player, path)?;
            tree.set_comment(id, &item.comment)?;
            let d = depth[p] + 1;
            depth.push(d);
            if d % STRIDE == 0 {
                kept.truncate(d / STRIDE);
                if kept.len() == d / STRIDE {
                    kept.push((id, game.clone()));
                }
            }
            last = (id, game);
        }
        Ok(tree)
    }

    /// The tree for the page: per node `[parent, move, player, has a comment]` (the start's
    /// parent, move and player are null), the current node and its comment.
    pub fn json(&self) -> Value {
        let nodes: Vec<Value> = self
            .nodes
            .iter()
            .map(|n| {
                json!([
                    n.parent,
                    if n.parent.is_some() { Some(&n.mv) } else { None },
                    n.player,
                    u8::from(!n.comment.is_empty())
                ])
            })
            .collect();
        json!({"nodes": nodes, "current": self.cur, "comment": self.current().comment})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_registry::any::load;

    #[test]
    fn a_deep_line_with_side_branches_is_built_and_replayed() {
        let start = load("go(size=19)").unwrap();
        // A main line of 300 moves, with a side branch every 50 plies.
        let mut items = Vec::new();
        let mut game = start.clone();
        let mut parents = vec![0usize];
        for _ in 0..300 {
            let Turn::Player(p) = game.turn() else { panic!("over") };
            let legal = game.legal_moves(p.index());
            let mv = legal[legal.len() / 2].clone();
            game.play_move(&mv).unwrap();
            items.push(Item { parent: *parents.last().unwrap(), mv, comment: String::new() });
            parents.push(items.len());
        }
        for d in (50..300).step_by(50) {
            items.push(Item { parent: parents[d], mv: "pass".into(), comment: format!("branch at {d}") });
        }
        let tree = Tree::build(&start, "start", &items).unwrap();
        assert_eq!(tree.len(), items.len() + 1);
        assert_eq!(tree.node(0).unwrap().comment, "start");
        let last = tree.len() - 1;
        let g = tree.game_at(&start, last).unwrap();
        assert_eq!(g.history().len(), 251);
        assert_eq!(tree.line(last).len(), 252);
        assert_eq!(tree.node(last).unwrap().comment, "branch at 250");
        assert_eq!(tree.main_line().len(), 301);
        // An item whose move the rules refuse names it.
        let mut bad = items.clone();
        bad.push(Item { parent: 0, mv: "Z99".into(), comment: String::new() });
        assert!(Tree::build(&start, "", &bad).unwrap_err().contains("move 1 (Z99)"));
        let forward = vec![Item { parent: 1, mv: "pass".into(), comment: String::new() }];
        assert!(Tree::build(&start, "", &forward).unwrap_err().contains("does not come before"));
    }

    #[test]
    fn removing_a_node_takes_its_variations_and_keeps_the_rest_in_order() {
        // 0 - 1 - 2 - 3        main line
        //      \- 4 - 5       a variation at 1, with a comment on 5
        //          \- 6       a variation of the variation
        //  \- 7               a second first move
        let mut tree = Tree::new();
        for (parent, mv) in [(0, "a"), (1, "b"), (2, "c"), (1, "d"), (4, "e"), (4, "f"), (0, "g")] {
            tree.add(parent, mv.into(), 0, Vec::new()).unwrap();
        }
        tree.set_comment(5, "deep").unwrap();
        tree.set_comment(3, "kept").unwrap();
        tree.cur = 6;
        let map = tree.remove(4).unwrap();
        assert_eq!(map, [Some(0), Some(1), Some(2), Some(3), None, None, None, Some(4)]);
        assert_eq!(tree.len(), 5);
        assert_eq!(tree.cur, 1, "the board goes to the removed node's parent");
        assert_eq!(tree.node(1).unwrap().children, [2]);
        assert_eq!(tree.node(0).unwrap().children, [1, 4]);
        assert_eq!(tree.node(4).unwrap().mv, "g");
        assert_eq!(tree.node(4).unwrap().parent, Some(0));
        assert_eq!(tree.comments, "kept".len(), "the removed comment no longer counts");
        // The node on the board, when not removed, keeps its place under its new number.
        tree.cur = 4;
        tree.remove(2).unwrap();
        assert_eq!((tree.len(), tree.cur), (3, 2));
        assert_eq!(tree.main_line(), [0, 1]);
        assert!(tree.remove(0).unwrap_err().contains("start"));
        assert!(tree.remove(3).unwrap_err().contains("no node 3"));
    }

    #[test]
    fn comments_and_nodes_are_capped() {
        let mut tree = Tree::new();
        assert!(tree.set_comment(0, &"x".repeat(MAX_COMMENT + 1)).is_err());
        assert!(tree.set_comment(1, "x").is_err());
        tree.set_comment(0, "hello").unwrap();
        for _ in 1..MAX_NODES {
            tree.add(0, "pass".into(), 0, Vec::new()).unwrap();
        }
        assert!(tree.add(0, "pass".into(), 0, Vec::new()).unwrap_err().contains("most nodes"));
    }
}
