//! Fuzzes spec strings: any text goes through `Spec::parse`; what parses prints back to a
//! spec that parses the same, and is looked up in the registry: the first line as a game
//! (built only when small: every registered game's sizes are bounded), the second as an
//! agent built for it. The memory tabula counts as available is capped low
//! (`TABULA_MEMORY_MB`), so a table or tree beyond it must be refused with an error, never
//! allocated. Specs that name files (`gdl`, `learned`, `model=`, `weights=`) are left out:
//! the fuzzer must not read the machine's files.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tabula_core::{Game, Spec};
use tabula_registry::{AgentFactory, GameVisitor, with_game};

struct BuildAgent<'a>(&'a str);

impl GameVisitor for BuildAgent<'_> {
    type Output = ();
    fn visit<G: Game>(self, game: G, agents: &dyn AgentFactory<G>) {
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        if let Ok(agent) = agents.build_str(self.0) {
            // Whatever was built fits in the memory allowed.
            assert!(agent.memory_bound() <= 8 << 20, "{}: {}", self.0, agent.memory_bound());
            let again = agents.build_str(&agent.name());
            assert!(again.is_ok(), "{} does not build again: {:?}", agent.name(), again.err());
        }
    }
}

fn touches_files(spec: &Spec) -> bool {
    matches!(spec.name.as_str(), "gdl" | "learned")
        || spec.params.iter().any(|(k, _)| matches!(k.as_str(), "file" | "model" | "weights"))
}

fuzz_target!(|data: &[u8]| {
    // SAFETY: set once per input before any thread of this process reads the environment;
    // the fuzzer runs inputs on one thread.
    unsafe { std::env::set_var("TABULA_MEMORY_MB", "8") };
    let text = String::from_utf8_lossy(data);
    let (game_text, agent_text) = text.split_once('\n').unwrap_or((&text, "random"));
    for t in [game_text, agent_text] {
        if let Ok(spec) = Spec::parse(t) {
            let printed = spec.to_string();
            assert_eq!(Spec::parse(&printed).as_ref(), Ok(&spec), "{printed}");
        }
    }
    let (Ok(game), Ok(agent)) = (Spec::parse(game_text), Spec::parse(agent_text)) else { return };
    if touches_files(&game) || touches_files(&agent) || agent.name == "gtp" {
        return;
    }
    let _ = with_game(game_text, BuildAgent(agent_text));
});
