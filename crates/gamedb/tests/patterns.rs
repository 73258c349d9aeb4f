//! Local pattern search against a brute-force check: every game replayed with the Go rules
//! crate, every position compared with every orientation and placement of the pattern.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::{extract, positions_of};
use tabula_gamedb::hash::apply;
use tabula_gamedb::{
    Anchor, Cell, Database, Filter, ImportOptions, Pattern, PatternQuery, Position, SequenceQuery, import,
};
use tabula_sgf::Color;

const GAMES: usize = 120;

/// A placed pattern: absolute points with the wanted colour (None: empty).
type Placed = Vec<((u8, u8), Option<Color>)>;

/// The absolute cells of each orientation and placement of the query on a 19x19 board.
fn placements(q: &PatternQuery) -> Vec<Placed> {
    let n = q.size;
    let p = &q.pattern;
    let tops: Vec<(u8, u8)> = match q.anchor {
        Anchor::Anywhere => (0..=n - p.height).flat_map(|y| (0..=n - p.width).map(move |x| (x, y))).collect(),
        Anchor::Corner => vec![(0, 0)],
        Anchor::Side => (0..=n - p.width).map(|x| (x, 0)).collect(),
        Anchor::At(x, y) => vec![(x, y)],
    };
    let mut out = Vec::new();
    for swap in [false, true] {
        if swap && !q.swap_colors {
            continue;
        }
        for s in 0..8 {
            for &(tx, ty) in &tops {
                let mut cells = Vec::new();
                for cy in 0..p.height {
                    for cx in 0..p.width {
                        let want = match p.cells[cy as usize * p.width as usize + cx as usize] {
                            Cell::Any => continue,
                            Cell::Empty => None,
                            Cell::Black => Some(if swap { Color::White } else { Color::Black }),
                            Cell::White => Some(if swap { Color::Black } else { Color::White }),
                        };
                        cells.push((apply(s, n, (tx + cx, ty + cy)), want));
                    }
                }
                out.push(cells);
            }
        }
    }
    out
}

fn matched(pos: &Position, cells: &[((u8, u8), Option<Color>)], board: &mut [Option<Color>]) -> bool {
    let n = pos.size as usize;
    board.iter_mut().for_each(|b| *b = None);
    for &(c, (x, y)) in &pos.stones {
        board[y as usize * n + x as usize] = Some(c);
    }
    cells.iter().all(|&((x, y), want)| board[y as usize * n + x as usize] == want)
}

/// The hits by brute force: moves at which some placement matches that did not match at the
/// move before (or matches in the start position).
fn brute_force(games: &[(i64, Vec<Position>)], q: &PatternQuery) -> BTreeSet<(i64, u32)> {
    let all = placements(q);
    let mut hits = BTreeSet::new();
    let mut board = vec![None; 19 * 19];
    for (id, positions) in games {
        let mut before = vec![false; all.len()];
        for (k, pos) in positions.iter().enumerate() {
            let now: Vec<bool> = all.iter().map(|cells| matched(pos, cells, &mut board)).collect();
            if now.iter().zip(&before).any(|(n, b)| *n && !*b) {
                hits.insert((*id, k as u32));
            }
            before = now;
        }
    }
    hits
}

#[test]
fn pattern_search_matches_brute_force() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let input = tmp.path().join("sgf");
    std::fs::create_dir(&input).expect("mkdir");
    let files = extract(&input, GAMES);
    let db_path = tmp.path().join("games.db");
    let options = ImportOptions { batch_size: 50, progress: false, max_batches: None, ..ImportOptions::default() };
    import(std::slice::from_ref(&input), &db_path, &options).expect("import");
    let db = Database::open(&db_path).expect("open");
    let mut games: Vec<(i64, Vec<Position>)> = Vec::new();
    {
        let mut stmt = db
            .connection()
            .prepare("SELECT id, source FROM games WHERE status = 'ok' AND size = 19 ORDER BY id")
            .unwrap();
        let rows: Vec<(i64, String)> =
            stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().collect::<Result<_, _>>().unwrap();
        for (id, source) in rows {
            let bytes = &files.iter().find(|(n, _)| source.ends_with(n.as_str())).expect("source file").1;
            let tree = &tabula_sgf::parse_lenient(bytes).expect("parse").games[0];
            let ab: Vec<(u8, u8)> = tree.root().setup().black.iter().map(|p| (p.x, p.y)).collect();
            games.push((id, positions_of(&db.game_moves(id).expect("moves"), &ab)));
        }
    }
    assert!(games.len() > GAMES / 2, "{} games", games.len());
    let query = |diagram: &str, anchor: Anchor, swap_colors: bool| PatternQuery {
        pattern: Pattern::parse(diagram).expect("diagram"),
        anchor,
        swap_colors,
        size: 19,
    };
    let queries = [
        // A star point in an otherwise empty corner.
        query("....\n....\n....\n...X", Anchor::Corner, true),
        query("....\n....\n....\n...X", Anchor::Corner, false),
        // The 3-3 point under a 4-4 stone of the other colour.
        query("?????\n?....\n?.X..\n?..O.\n?....", Anchor::Corner, true),
        // A crosscut, anywhere.
        query("XO\nOX", Anchor::Anywhere, false),
        // A hane at the head of two stones, anywhere, either colour.
        query("?O?\nXXO\n...", Anchor::Anywhere, true),
        // A second-line stone under a third-line stone of the other colour, on an edge.
        query("...\n.O.\n.X.", Anchor::Side, true),
        // An empty 3x3 at the 4-4 point area and a fixed place.
        query("...\n.X.\n...", Anchor::At(2, 2), true),
        // Larger than 32 points (matched by counting cells, not by a 64-bit code): the 3-3
        // invasion in an otherwise empty 7x7 corner, and a lone third-line stone on a side.
        query(".......\n.......\n..O....\n...X...\n.......\n.......\n.......", Anchor::Corner, true),
        query(".........\n.........\n....X....\n.........", Anchor::Side, false),
        // Not square: two shapes of window, along the rows and along the columns.
        query("X.X", Anchor::Anywhere, true),
        // Five stones or more: each game follows only the windows where they could all fit.
        query("XXO\n.XO", Anchor::Anywhere, true),
    ];
    let memory = db.memory_index(19).expect("load");
    assert_eq!(memory.len(), games.len());
    let mut nonempty = 0;
    for q in &queries {
        let found = db.search_pattern(q, &Filter::default()).expect("search");
        let got: BTreeSet<(i64, u32)> = found.hits.iter().map(|h| (h.game, h.move_number)).collect();
        assert_eq!(got.len(), found.hits.len(), "duplicate hits for {q:?}");
        let want = brute_force(&games, q);
        assert_eq!(got, want, "{q:?}");
        let continued: u32 = found.continuations.iter().map(|c| c.count).sum();
        assert_eq!(continued + found.no_continuation, found.hits.len() as u32, "{q:?}");
        for c in &found.continuations {
            let (x, y) = c.point.expect("a point");
            assert!(x < q.pattern.width && y < q.pattern.height, "{c:?} outside {q:?}");
            assert!(c.black_wins + c.white_wins <= c.count);
        }
        if !want.is_empty() {
            nonempty += 1;
        }
        // The games held in memory give the same answer as a search reading the database.
        let held = memory.search_pattern(&db, q, &Filter::default()).expect("memory");
        assert_eq!((&held.hits, &held.continuations), (&found.hits, &found.continuations), "{q:?}");
        assert_eq!(held.no_continuation, found.no_continuation, "{q:?}");
        assert_eq!(held.games_searched as usize, memory.len());
        // The same with the instructions of every x86-64 processor only (the search uses AVX2
        // where the processor has it).
        tabula_gamedb::set_portable_search(true);
        let portable = memory.search_pattern(&db, q, &Filter::default()).expect("memory");
        tabula_gamedb::set_portable_search(false);
        assert_eq!((&portable.hits, &portable.continuations), (&found.hits, &found.continuations), "{q:?}");
    }
    assert!(nonempty >= 10, "the queries should find something in {} games", games.len());
    let five = queries.last().expect("queries");
    assert!(!brute_force(&games, five).is_empty(), "the five-stone pattern should be found: {five:?}");

    // Swapping colours can only add hits; a metadata filter restricts them.
    let plain = db.search_pattern(&queries[1], &Filter::default()).unwrap();
    let swapped = db.search_pattern(&queries[0], &Filter::default()).unwrap();
    assert!(swapped.hits.len() >= plain.hits.len());
    let white_wins = Filter { winner: Some(tabula_gamedb::WinnerFilter::White), ..Filter::default() };
    let some = db.search_pattern(&queries[0], &white_wins).unwrap();
    assert!(some.hits.len() < swapped.hits.len());
    let held = memory.search_pattern(&db, &queries[0], &white_wins).unwrap();
    assert_eq!((&held.hits, &held.continuations), (&some.hits, &some.continuations));
    assert!(memory.search_pattern(&db, &PatternQuery { size: 13, ..queries[0].clone() }, &white_wins).is_err());

    // Whole-board positions: the next moves and results read from memory are those read from
    // the games' rows.
    let mut position_hits = 0;
    for (_, positions) in games.iter().step_by(7) {
        for k in [0, 3, 12, 40] {
            let Some(pos) = positions.get(k) else { continue };
            for filter in [&Filter::default(), &white_wins] {
                let want = db.search_position(pos, filter).expect("search");
                assert_eq!(memory.search_position(&db, pos, filter).expect("memory"), want, "move {k}");
                position_hits += want.hits.len();
            }
        }
    }
    assert!(position_hits > 100, "{position_hits} position hits");

    // The pattern database: every move's canonical 3x3 neighbourhood, counted, equals the
    // same count taken from the independent replay.
    let counts = db.pattern_counts(19, 3, &|_| {}).expect("counts");
    let mut want: std::collections::HashMap<String, u64> = std::collections::HashMap::new();
    for (id, positions) in &games {
        for (k, (color, point)) in db.game_moves(*id).unwrap().into_iter().enumerate() {
            let Some(p) = point else { continue };
            *want.entry(canonical_square(&positions[k], p, color, 3)).or_insert(0) += 1;
        }
    }
    let got: std::collections::HashMap<String, u64> = counts.counts.iter().cloned().collect();
    assert_eq!(got, want);
    assert_eq!(counts.moves, want.values().sum::<u64>());
    assert!(counts.counts.windows(2).all(|w| w[0].1 >= w[1].1), "most frequent first");
    assert!(db.pattern_counts(19, 4, &|_| {}).is_err());

    // The hit games exported as one SGF collection read back with the same moves, and
    // importing the export finds every game a duplicate of the original.
    let ids: Vec<i64> = some.hits.iter().map(|h| h.game).collect();
    let sgf = db.export_sgf(&ids).unwrap();
    let collection = tabula_sgf::parse_lenient(sgf.as_bytes()).expect("the export reads back");
    let mut distinct = ids.clone();
    distinct.dedup();
    assert_eq!(collection.games.len(), distinct.len());
    let export_dir = tmp.path().join("export");
    std::fs::create_dir(&export_dir).unwrap();
    std::fs::write(export_dir.join("hits.sgf"), &sgf).unwrap();
    let again = tmp.path().join("again.db");
    let summary = import(&[export_dir], &again, &options).expect("import the export");
    assert_eq!(summary.imported as usize, distinct.len());
    let again = Database::open(&again).unwrap();
    for (k, &id) in distinct.iter().enumerate() {
        assert_eq!(again.game_moves(k as i64 + 1).unwrap(), db.game_moves(id).unwrap(), "game {id}");
    }
}

/// The `side` x `side` square around `p` in `pos` from `mover`'s view (X own, O other, .
/// empty, # off the board), the least of its 8 symmetric forms.
fn canonical_square(pos: &Position, p: (u8, u8), mover: Color, side: i32) -> String {
    let n = pos.size as i32;
    let at = |x: i32, y: i32| -> u8 {
        if x < 0 || y < 0 || x >= n || y >= n {
            return b'#';
        }
        match pos.stones.iter().find(|&&(_, q)| q == (x as u8, y as u8)) {
            None => b'.',
            Some(&(c, _)) if c == mover => b'X',
            Some(_) => b'O',
        }
    };
    let r = side / 2;
    (0..8)
        .map(|s| {
            let mut out = Vec::new();
            for j in -r..=r {
                for i in -r..=r {
                    let (mut a, mut b) = (i, j);
                    if s & 4 != 0 {
                        std::mem::swap(&mut a, &mut b);
                    }
                    if s & 1 != 0 {
                        a = -a;
                    }
                    if s & 2 != 0 {
                        b = -b;
                    }
                    out.push(at(p.0 as i32 + a, p.1 as i32 + b));
                }
            }
            String::from_utf8(out).unwrap()
        })
        .min()
        .unwrap()
}

/// A move: its colour and point.
type NextMove = (Color, (u8, u8));

#[test]
fn sequence_search_matches_brute_force() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let input = tmp.path().join("sgf");
    std::fs::create_dir(&input).expect("mkdir");
    extract(&input, GAMES);
    let db_path = tmp.path().join("games.db");
    let options = ImportOptions { batch_size: 50, progress: false, max_batches: None, ..ImportOptions::default() };
    import(std::slice::from_ref(&input), &db_path, &options).expect("import");
    let db = Database::open(&db_path).expect("open");
    let ids: Vec<i64> = {
        let mut stmt = db.connection().prepare("SELECT id FROM games WHERE status = 'ok' AND size = 19").unwrap();
        stmt.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
    };
    let games: Vec<(i64, Vec<tabula_gamedb::record::StoredMove>)> =
        ids.iter().map(|&id| (id, db.game_moves(id).unwrap())).collect();
    // Queries cut from real games: the first moves of game 1 inside its upper-right corner,
    // and three moves from the middle of another game on the whole board.
    let corner = (10u8, 0u8, 18u8, 8u8);
    let inside = |&&(_, p): &&(Color, Option<(u8, u8)>)| {
        p.is_some_and(|(x, y)| x >= corner.0 && x <= corner.2 && y >= corner.1 && y <= corner.3)
    };
    let first: Vec<(Color, (u8, u8))> =
        games[0].1.iter().filter(inside).take(4).map(|&(c, p)| (c, p.unwrap())).collect();
    let middle: Vec<(Color, (u8, u8))> =
        games[3].1.iter().skip(30).filter_map(|&(c, p)| p.map(|p| (c, p))).take(3).collect();
    let queries = [
        SequenceQuery { moves: first.clone(), region: Some(corner), swap_colors: true, size: 19 },
        SequenceQuery { moves: first[..2].to_vec(), region: Some(corner), swap_colors: false, size: 19 },
        SequenceQuery { moves: middle, region: None, swap_colors: false, size: 19 },
    ];
    for q in &queries {
        let found = db.search_sequence(q, &Filter::default()).unwrap();
        let got: BTreeSet<(i64, u32)> = found.hits.iter().map(|h| (h.game, h.move_number)).collect();
        // Brute force: turn every game (not the query) by each symmetry and colour swap.
        let region = q.region.unwrap_or((0, 0, 18, 18));
        let mut want = BTreeSet::new();
        // Per hit, the next move in the region, in the query's frame (the first turn found).
        let mut next: BTreeMap<(i64, u32), Option<NextMove>> = BTreeMap::new();
        for (id, moves) in &games {
            for swap in [false, true] {
                if swap && !q.swap_colors {
                    continue;
                }
                for s in 0..8u8 {
                    let turned: Vec<(usize, Color, (u8, u8))> = moves
                        .iter()
                        .enumerate()
                        .filter_map(|(i, &(c, p))| {
                            let p = tabula_gamedb::hash::apply_inverse(s, 19, p?);
                            let inside = p.0 >= region.0 && p.0 <= region.2 && p.1 >= region.1 && p.1 <= region.3;
                            inside.then_some((i, if swap { c.opponent() } else { c }, p))
                        })
                        .collect();
                    let k = q.moves.len();
                    for (at, w) in turned.windows(k).enumerate() {
                        if w.iter().map(|&(_, c, p)| (c, p)).eq(q.moves.iter().copied()) {
                            want.insert((*id, w[0].0 as u32));
                            next.entry((*id, w[0].0 as u32)).or_insert(turned.get(at + k).map(|&(_, c, p)| (c, p)));
                        }
                    }
                }
            }
        }
        assert_eq!(got, want, "{q:?}");
        assert!(!want.is_empty(), "the query was cut from a game: {q:?}");
        // Continuations: the next moves counted up to the symmetries that leave the query as it is.
        let same = |s: u8| {
            let turn = |p| apply(s, 19, p);
            let (a, b) = (turn((region.0, region.1)), turn((region.2, region.3)));
            q.moves.iter().map(|&(c, p)| (c, turn(p))).eq(q.moves.iter().copied())
                && (a.0.min(b.0), a.1.min(b.1), a.0.max(b.0), a.1.max(b.1)) == region
        };
        let stabilizer: Vec<u8> = (0..8).filter(|&s| same(s)).collect();
        let canon = |p: (u8, u8)| stabilizer.iter().map(|&s| apply(s, 19, p)).min_by_key(|&(x, y)| (y, x)).unwrap();
        // Keyed by (black, point): colours have no order.
        let mut want_next: BTreeMap<(bool, (u8, u8)), u32> = BTreeMap::new();
        for (c, p) in next.values().flatten() {
            *want_next.entry((*c == Color::Black, canon(*p))).or_insert(0) += 1;
        }
        let got_next: BTreeMap<(bool, (u8, u8)), u32> =
            found.continuations.iter().map(|c| ((c.color == Color::Black, c.point.unwrap()), c.count)).collect();
        assert_eq!(got_next, want_next, "{q:?}");
        assert_eq!(found.no_continuation as usize, next.values().filter(|n| n.is_none()).count(), "{q:?}");
        assert!(found.continuations.windows(2).all(|w| w[0].count >= w[1].count), "most played first");
    }
    assert_eq!(
        SequenceQuery::parse_moves("B[dd] ;W[fc]B[cf]").unwrap(),
        vec![(Color::Black, (3, 3)), (Color::White, (5, 2)), (Color::Black, (2, 5))]
    );
    for bad in ["", "B[d]", "X[dd]", "B[dd", "B[DD]"] {
        assert!(SequenceQuery::parse_moves(bad).is_err(), "{bad:?}");
    }
    let outside =
        SequenceQuery { moves: vec![(Color::Black, (3, 3))], region: Some(corner), swap_colors: false, size: 19 };
    assert!(db.search_sequence(&outside, &Filter::default()).is_err());
}

#[test]
fn bad_queries_are_errors() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let input = tmp.path().join("sgf");
    std::fs::create_dir(&input).expect("mkdir");
    extract(&input, 3);
    let db_path = tmp.path().join("games.db");
    let options = ImportOptions { batch_size: 50, progress: false, max_batches: None, ..ImportOptions::default() };
    import(std::slice::from_ref(&input), &db_path, &options).expect("import");
    let db = Database::open(&db_path).expect("open");
    let p = Pattern::parse("X..\n...").unwrap();
    let at = |x, y| PatternQuery { pattern: p.clone(), anchor: Anchor::At(x, y), swap_colors: false, size: 19 };
    assert!(db.search_pattern(&at(17, 0), &Filter::default()).is_err(), "does not fit");
    assert!(db.search_pattern(&at(16, 17), &Filter::default()).is_ok());
    let tiny = PatternQuery { size: 1, ..at(0, 0) };
    assert!(db.search_pattern(&tiny, &Filter::default()).is_err());
}
