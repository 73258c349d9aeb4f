//! The arena settles a disputed end of a Go game as Go servers do (the KGS cleanup phase):
//! GNU Go passes with a dead black stone inside its area, the board as it stands gives the
//! game to Black, GNU Go's `final_score` to White; play resumes, GNU Go is asked for
//! `kgs-genmove_cleanup`, captures the stone, and the next end is White's by the rules'
//! own count. Under Tromp-Taylor rules, where the board as it stands is the count, the
//! same game ends at the first two passes.
//!
//! GNU Go must be installed (`scripts/install-test-tools.sh`); the test fails without it.
//! `TABULA_GNUGO` may name the binary.

mod common;

use common::gnugo_path;
use std::time::Duration;

use tabula_arena::{GameRules, Openings, Termination, play_game};
use tabula_core::{Agent, AgentError, Choice, Game, GameKind, Limits, Player, RecordView, Report};
use tabula_go::{Color, Go, GoKind, Move, RuleSet, Rules};
use tabula_gtp::GtpAgent;

/// Black's side: passes whenever it is to move.
struct Passer;

impl Agent<Go> for Passer {
    fn name(&self) -> String {
        "passer".into()
    }

    fn choose(&mut self, _: &Go, _: Player, _: &Limits, _: Report<'_, Move>) -> Result<Choice<Move>, AgentError> {
        Ok(Choice::new(Move::Pass))
    }
}

/// Walls on columns C (Black) and D (White) of a 7x7 board, then a lone black stone at F4
/// in White's area: GNU Go answers F3 and passes after Black's pass, the stone still on
/// the board.
const OPENING: &str = "C1 D1 C2 D2 C3 D3 C4 D4 C5 D5 C6 D6 C7 D7 F4";

fn play(rule_set: RuleSet) -> tabula_arena::PlayedGame<Go> {
    let mut rules = Rules::new(rule_set);
    rules.komi = 0.5;
    let start = Go::new(7, rules);
    let opening = Openings::List(vec![OPENING.into()]).opening(&start, 0).expect("opening");
    let cmd = format!("{} --mode gtp --level 10 --chinese-rules", gnugo_path().display());
    let mut agents: Vec<Box<dyn Agent<Go>>> =
        vec![Box::new(Passer), Box::new(GtpAgent::<Go>::new(&cmd, Duration::from_secs(60)))];
    play_game(&start, &opening, &mut agents, &Limits::time(Duration::from_secs(5)), &GameRules::default())
        .expect("the game is played")
}

fn stone_at(g: &Go, text: &str) -> Option<Color> {
    let Ok(Move::Play(p)) = g.parse_move(text) else { panic!("{text} is a point") };
    g.board().color_at(p)
}

#[test]
fn a_disputed_end_is_played_out_and_the_dead_stone_captured() {
    let game = play(RuleSet::Chinese);
    assert_eq!(game.termination, Termination::Normal, "{game:?}");
    let first_end = game.moves.windows(2).position(|w| w.iter().all(|m| m.eq_ignore_ascii_case("pass")));
    let first_end = first_end.expect("two passes in a row") + 2;
    assert!(game.moves.len() > first_end + 2, "play went on after the first end: {:?}", game.moves);
    assert_eq!(stone_at(&game.state, "F4"), None, "the dead stone was captured: {}", game.state);
    assert!(game.state.in_cleanup());
    assert_eq!(game.state.score().winner(), Some(Color::White), "{}", game.state);
    assert_eq!(game.rewards, vec![0.0, 1.0]);
    let resumed = game.resumed.as_ref().expect("play resumed after the first end");
    assert_eq!(resumed.after, first_end, "play resumed after the first two passes");
    assert!(resumed.disputes.iter().any(|d| d.starts_with("seat 2:")), "GNU Go disputed the first end: {resumed:?}");
    assert!(game.disputes.is_empty(), "nobody disputes the second end: {:?}", game.disputes);
    // The SGF record holds the whole game, the moves after the first two passes included.
    let players = ["passer".to_string(), "gnugo".to_string()];
    let view = RecordView {
        game: &game.state.spec(),
        id: 0,
        players: &players,
        moves: &game.moves,
        ending: tabula_core::Ending::Rules,
    };
    let write = GoKind::INFO.sgf.expect("Go writes SGF");
    let sgf = write(&view).expect("the record of a game played out in the cleanup phase");
    assert_eq!(sgf.matches(";B[").count() + sgf.matches(";W[").count(), game.moves.len(), "{sgf}");
    assert!(sgf.contains("RE[W+"), "{sgf}");
}

#[test]
fn tromp_taylor_counts_the_first_end_as_it_stands() {
    let game = play(RuleSet::TrompTaylor);
    assert_eq!(game.moves.len(), 18, "the opening, F3 and two passes: {:?}", game.moves);
    assert_eq!(stone_at(&game.state, "F4"), Some(Color::Black));
    assert!(!game.state.in_cleanup());
    assert_eq!(game.rewards, vec![1.0, 0.0], "the stone counts for Black: {}", game.state);
    assert_eq!(game.disputes.len(), 1, "GNU Go's count differs: {:?}", game.disputes);
    assert!(game.resumed.is_none(), "Tromp-Taylor does not play a disputed end out");
}
