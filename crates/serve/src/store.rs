//! The state file (`tabula serve --state FILE`): every game kept in SQLite, so that a server
//! started again on the same file serves the same games under the same ids.
//!
//! One row per game holds its record as JSON (spec, seats, pasted rules, clock, the tree with
//! its comments, the current node, a resignation or a loss on time, a pause of the clocks,
//! and at a simultaneous turn the moves chosen so far with the time each chooser had used),
//! rewritten whole in one statement (a transaction of its own) after each change. Reading it
//! back replays every move by the rules: a row that no longer replays is skipped with a
//! warning and left in the file.
//!
//! The file is in WAL mode with `synchronous=NORMAL`: a change is in the file once its
//! statement returns, so a server that crashes or is killed loses nothing; only a crash of
//! the whole machine can lose the last changes before SQLite's next checkpoint, and never
//! the file's consistency. Waiting for the disk after every move (`FULL`) would put an
//! `fsync` into each move's handling.

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{Connection, params};
use serde_json::{Value, json};

use crate::clock::{Overtime, TimeControl};
use crate::live::{Pause, lock};
use crate::tree::{Item, Tree};

/// The open state file.
pub struct Store {
    conn: Mutex<Connection>,
}

/// A game as the file keeps it.
pub struct Saved {
    pub spec: String,
    pub players: Vec<String>,
    pub kif: Option<String>,
    pub control: Option<TimeControl>,
    /// Each seat's time left at the start of the turn, under a clock.
    pub left: Option<Vec<Duration>>,
    /// Each seat's overtime at the start of the turn, under byo-yomi or Canadian overtime.
    pub overtime: Option<Vec<Overtime>>,
    pub resigned: Option<usize>,
    pub flagged: Option<usize>,
    /// Why the clocks were paused, if they were.
    pub paused: Option<Pause>,
    pub current: usize,
    pub root_comment: String,
    pub items: Vec<Item>,
    /// At a simultaneous turn, each seat's move chosen so far (empty when none is).
    pub joint: Vec<Option<String>>,
    /// Under a clock at a simultaneous turn, the time each seat that has chosen had used.
    pub chosen: Vec<Option<Duration>>,
}

impl Saved {
    /// The record as stored.
    pub fn to_json(&self) -> Value {
        let nodes: Vec<Value> = self.items.iter().map(|i| json!([i.parent, i.mv, i.comment])).collect();
        json!({
            "spec": self.spec,
            "players": self.players,
            "kif": self.kif,
            "clock": self.control.map(TimeControl::to_json),
            "left_ms": self.left.as_ref().map(|l| l.iter().map(|d| d.as_millis() as u64).collect::<Vec<_>>()),
            "overtime": self.overtime.as_ref().map(|o| o.iter().map(|o| json!([o.used_up, o.count, o.period.as_millis() as u64])).collect::<Vec<_>>()),
            "resigned": self.resigned,
            "flagged": self.flagged,
            "paused": self.paused.map(Pause::name),
            "current": self.current,
            "comment": self.root_comment,
            "nodes": nodes,
            "joint": self.joint,
            "chosen_ms": self.chosen.iter().map(|c| c.map(|d| d.as_millis() as u64)).collect::<Vec<_>>(),
        })
    }

    /// Reads a stored record; a field of the wrong kind is the error.
    pub fn from_json(v: &Value) -> Result<Saved, String> {
        let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string).ok_or(format!("{k} is missing"));
        let seat = |k: &str| v.get(k).and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok());
        let players = v
            .get("players")
            .and_then(Value::as_array)
            .ok_or("players is missing")?
            .iter()
            .map(|p| p.as_str().map(str::to_string).ok_or("a player is not a string"))
            .collect::<Result<Vec<_>, _>>()?;
        let nodes = v.get("nodes").and_then(Value::as_array).ok_or("nodes is missing")?;
        let mut items = Vec::with_capacity(nodes.len().min(crate::tree::MAX_NODES));
        for n in nodes {
            let (Some(parent), Some(mv), Some(comment)) = (
                n.get(0).and_then(Value::as_u64).and_then(|p| usize::try_from(p).ok()),
                n.get(1).and_then(Value::as_str),
                n.get(2).and_then(Value::as_str),
            ) else {
                return Err("a node is not [parent, move, comment]".into());
            };
            items.push(Item { parent, mv: mv.to_string(), comment: comment.to_string() });
        }
        let left = v
            .get("left_ms")
            .and_then(Value::as_array)
            .map(|l| l.iter().map(|ms| Duration::from_millis(ms.as_u64().unwrap_or_default())).collect::<Vec<_>>());
        // Written before overtime was kept: absent, and the overtime starts afresh.
        let overtime = match v.get("overtime") {
            None | Some(Value::Null) => None,
            Some(list) => Some(
                list.as_array()
                    .ok_or("overtime is not a list")?
                    .iter()
                    .map(|o| {
                        match (
                            o.get(0).and_then(Value::as_bool),
                            o.get(1).and_then(Value::as_u64),
                            o.get(2).and_then(Value::as_u64),
                        ) {
                            (Some(used_up), Some(count), Some(ms)) => Ok(Overtime {
                                used_up,
                                count: u32::try_from(count).unwrap_or(u32::MAX),
                                period: Duration::from_millis(ms),
                            }),
                            _ => Err("an overtime is not [used up, count, period_ms]".to_string()),
                        }
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
        };
        // Written before a simultaneous turn's choices were kept: absent, and none is.
        let list = |k: &str| match v.get(k) {
            None | Some(Value::Null) => Ok(&[][..]),
            Some(Value::Array(l)) if l.len() <= players.len() => Ok(l.as_slice()),
            Some(_) => Err(format!("{k} is not a list with at most one entry per player")),
        };
        let joint = list("joint")?
            .iter()
            .map(|m| match m {
                Value::Null => Ok(None),
                Value::String(m) => Ok(Some(m.clone())),
                _ => Err("a chosen move is not a string".to_string()),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let chosen = list("chosen_ms")?
            .iter()
            .map(|ms| match ms {
                Value::Null => Ok(None),
                _ => ms.as_u64().map(|ms| Some(Duration::from_millis(ms))).ok_or("a chosen time is not milliseconds"),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let paused = match v.get("paused") {
            None | Some(Value::Null) => None,
            Some(p) => Some(p.as_str().and_then(Pause::from_name).ok_or("paused is not asked or away")?),
        };
        Ok(Saved {
            spec: text("spec")?,
            players,
            kif: v.get("kif").and_then(Value::as_str).map(str::to_string),
            control: TimeControl::from_json(v.get("clock").unwrap_or(&Value::Null))?,
            left,
            overtime,
            resigned: seat("resigned"),
            flagged: seat("flagged"),
            paused,
            current: seat("current").unwrap_or_default(),
            root_comment: v.get("comment").and_then(Value::as_str).unwrap_or_default().to_string(),
            items,
            joint,
            chosen,
        })
    }

    /// The tree the record holds, replayed from `start` by the rules.
    pub fn tree(&self, start: &tabula_registry::any::AnyGame) -> Result<Tree, String> {
        let mut tree = Tree::build(start, &self.root_comment, &self.items)?;
        if self.current >= tree.len() {
            return Err(format!("the current node {} is not in the tree", self.current));
        }
        tree.cur = self.current;
        Ok(tree)
    }
}

impl Store {
    /// Opens (or creates) the state file.
    pub fn open(path: &Path) -> Result<Store, String> {
        let conn = Connection::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        conn.execute_batch(
            "PRAGMA journal_mode=WAL;
             PRAGMA synchronous=NORMAL;
             CREATE TABLE IF NOT EXISTS games (
                 id TEXT PRIMARY KEY,
                 record TEXT NOT NULL,
                 saved_at INTEGER NOT NULL
             );",
        )
        .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Store { conn: Mutex::new(conn) })
    }

    /// Closes the file for good: its write-ahead log is written back into it and removed,
    /// so that the file alone holds every game. Writes after this go nowhere (the server is
    /// stopping).
    pub fn close(&self) -> Result<(), String> {
        let mut conn = lock(&self.conn);
        let spare = Connection::open_in_memory().map_err(|e| e.to_string())?;
        let file = std::mem::replace(&mut *conn, spare);
        file.close().map_err(|(_, e)| e.to_string())
    }

    /// Every stored game: its id and record text, in the order the ids were given.
    pub fn games(&self) -> Result<Vec<(String, String)>, String> {
        let conn = lock(&self.conn);
        let mut stmt =
            conn.prepare("SELECT id, record FROM games ORDER BY length(id), id").map_err(|e| e.to_string())?;
        let rows =
            stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))).map_err(|e| e.to_string())?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| e.to_string())
    }

    /// Removes game `id`'s row; `saved` is set past every stamp first, under the same lock
    /// as [`Store::save`], so that no write still under way puts the row back.
    pub fn delete(&self, id: &str, saved: &std::sync::atomic::AtomicU64) -> Result<(), String> {
        let conn = lock(&self.conn);
        saved.store(u64::MAX, std::sync::atomic::Ordering::SeqCst);
        conn.execute("DELETE FROM games WHERE id = ?1", params![id]).map_err(|e| e.to_string())?;
        Ok(())
    }

    /// Writes game `id`'s record if `stamp` is newer than the one `saved` holds (two
    /// writers of one game never put an older record over a newer one).
    pub fn save(
        &self,
        id: &str,
        stamp: u64,
        saved: &std::sync::atomic::AtomicU64,
        record: &Value,
    ) -> Result<(), String> {
        use std::sync::atomic::Ordering;
        let conn = lock(&self.conn);
        if saved.load(Ordering::SeqCst) >= stamp {
            return Ok(());
        }
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
        conn.prepare_cached(
            "INSERT INTO games (id, record, saved_at) VALUES (?1, ?2, ?3)
             ON CONFLICT(id) DO UPDATE SET record = excluded.record, saved_at = excluded.saved_at",
        )
        .and_then(|mut stmt| stmt.execute(params![id, record.to_string(), now]))
        .map_err(|e| e.to_string())?;
        saved.store(stamp, Ordering::SeqCst);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(extra: Value) -> Value {
        let mut v = json!({"spec": "gdl(game=simultaneousRace)", "players": ["human", "human"], "nodes": []});
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        v
    }

    #[test]
    fn a_simultaneous_turns_choices_and_a_pause_are_read_back_and_checked() {
        // Written before the choices were kept: none is.
        let old = Saved::from_json(&record(json!({}))).unwrap();
        assert!(old.joint.is_empty() && old.chosen.is_empty());
        let saved = Saved::from_json(&record(json!({"joint": ["(run 2)", null], "chosen_ms": [2000, null]}))).unwrap();
        assert_eq!(saved.joint, vec![Some("(run 2)".to_string()), None]);
        assert_eq!(saved.chosen, vec![Some(Duration::from_secs(2)), None]);
        let again = Saved::from_json(&saved.to_json()).unwrap();
        assert_eq!((again.joint, again.chosen), (saved.joint, saved.chosen));
        assert_eq!(again.paused, None);
        let paused = Saved::from_json(&record(json!({"paused": "asked"}))).unwrap();
        assert_eq!(paused.paused, Some(Pause::Asked));
        assert_eq!(Saved::from_json(&paused.to_json()).unwrap().paused, Some(Pause::Asked));
        for (bad, why) in [
            (json!({"joint": "(run 2)"}), "joint is not a list"),
            (json!({"joint": [null, null, "(run 1)"]}), "joint is not a list"),
            (json!({"joint": [3]}), "a chosen move is not a string"),
            (json!({"chosen_ms": [-1]}), "a chosen time is not milliseconds"),
            (json!({"paused": "later"}), "paused is not asked or away"),
        ] {
            let e = Saved::from_json(&record(bad.clone())).err().unwrap_or_else(|| panic!("{bad} was read"));
            assert!(e.starts_with(why), "{bad}: {e}");
        }
    }
}
