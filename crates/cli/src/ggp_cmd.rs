//! `tabula ggp` and `tabula ggp-match`: a general game playing player served over HTTP, and a
//! game manager that runs a match between such players.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Args;
use tabula_core::Spec;
use tabula_ggp::{ErrorKind, MatchConfig, Player, PlayerConfig, Reasoner};

/// Arguments of `tabula ggp`.
#[derive(Args, Debug)]
pub struct GgpArgs {
    /// Port to listen on.
    #[arg(long, default_value_t = 9147)]
    port: u16,
    /// Address to listen on.
    #[arg(long, default_value = "0.0.0.0")]
    host: String,
    /// The agent: mcts(...), random, paranoid(...), maxn(...).
    #[arg(long, default_value = "mcts")]
    agent: String,
    /// Reasoner: auto (propnet when it compiles in time, else the interpreter), propnet, reference.
    #[arg(long, default_value = "auto")]
    reasoner: String,
    /// Answer at the latest this many milliseconds before a clock runs out.
    #[arg(long, default_value_t = 400)]
    margin_ms: u64,
    /// Do not search on turns where the player has a single legal move.
    #[arg(long)]
    no_ponder: bool,
    /// The name INFO reports.
    #[arg(long, default_value = "tabula")]
    name: String,
    /// Print nothing per message.
    #[arg(long)]
    quiet: bool,
}

/// Runs `tabula ggp`.
pub fn run(args: GgpArgs) -> Result<()> {
    let agent = Spec::parse(&args.agent).context("agent")?;
    let reasoner = match args.reasoner.as_str() {
        "auto" => Reasoner::Auto,
        "propnet" => Reasoner::Propnet,
        "reference" => Reasoner::Reference,
        other => bail!("unknown reasoner '{other}' (expected auto, propnet or reference)"),
    };
    // Check the agent builds before serving.
    tabula_ggp::AgentFactory::build::<tabula_gdl::GdlGame>(&tabula_ggp::StandardAgents, &agent).context("agent")?;
    let mut config = PlayerConfig::new(agent);
    config.reasoner = reasoner;
    config.reply_margin = Duration::from_millis(args.margin_ms);
    config.ponder = !args.no_ponder;
    config.name = args.name;
    config.verbose = !args.quiet;
    let addr: SocketAddr = format!("{}:{}", args.host, args.port).parse().context("address")?;
    eprintln!("tabula ggp: {} on http://{addr}/", config.agent);
    tabula_ggp::serve_blocking(addr, Player::new(config)).with_context(|| format!("serving on {addr}"))
}

/// Arguments of `tabula ggp-match`.
#[derive(Args, Debug)]
pub struct GgpMatchArgs {
    /// The game's rules (.kif).
    game: PathBuf,
    /// One player URL per role, in role order (http://host:port/).
    #[arg(required = true)]
    players: Vec<String>,
    /// Start clock in seconds.
    #[arg(long, default_value_t = 10.0)]
    startclock: f64,
    /// Play clock in seconds.
    #[arg(long, default_value_t = 5.0)]
    playclock: f64,
    /// Where to write the match record (JSON).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Match id (default: `tabula.<game>.<time>`).
    #[arg(long)]
    id: Option<String>,
    /// Seed for the random replacement of bad moves.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Stop the match after this many turns.
    #[arg(long, default_value_t = 1000)]
    max_turns: u32,
}

fn secs(s: f64, what: &str) -> Result<Duration> {
    if !s.is_finite() || !(0.001..=86_400.0).contains(&s) {
        bail!("{what} must be between 0.001 and 86400 seconds");
    }
    Ok(Duration::from_secs_f64(s))
}

/// Runs `tabula ggp-match`.
pub fn run_match(args: GgpMatchArgs) -> Result<()> {
    let mut rules =
        std::fs::read_to_string(&args.game).with_context(|| format!("cannot read {}", args.game.display()))?;
    // A game written in the board-game dialect goes out as standard GDL, which every player reads.
    let exprs = tabula_gdl::kif::parse(&rules).with_context(|| args.game.display().to_string())?;
    if !tabula_gdl::dialect::detect(&exprs).with_context(|| args.game.display().to_string())?.is_standard() {
        let expanded = tabula_gdl::parse_gdl(&rules).with_context(|| args.game.display().to_string())?;
        rules = tabula_gdl::dialect::to_kif(&expanded);
    }
    let stem = args.game.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "game".into());
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let id = args.id.unwrap_or_else(|| format!("tabula.{stem}.{now}"));
    let mut config = MatchConfig::new(id, secs(args.startclock, "startclock")?, secs(args.playclock, "playclock")?);
    config.seed = args.seed;
    config.max_turns = args.max_turns;
    let record = tabula_ggp::run_match_blocking(&rules, &args.players, &config)?;
    for (i, role) in record.roles.iter().enumerate() {
        let slowest = record.turns.iter().map(|t| t.ms[i]).max().unwrap_or(0);
        let errors = record.errors.iter().filter(|e| e.role == *role).count();
        println!(
            "{role:>12}  goal {:>3}  errors {errors}  slowest answer {slowest} ms  {}",
            record.goals.get(i).copied().unwrap_or(0),
            record.players[i]
        );
    }
    println!(
        "{} turns, {}; late {}, illegal {}, unreadable {}, no answer {}, not ready {}",
        record.turns.len(),
        if record.completed { "completed" } else { "stopped at the turn limit" },
        record.count(ErrorKind::Late),
        record.count(ErrorKind::Illegal),
        record.count(ErrorKind::Unreadable),
        record.count(ErrorKind::NoAnswer),
        record.count(ErrorKind::NotReady),
    );
    if let Some(out) = &args.out {
        std::fs::write(out, record.to_json() + "\n").with_context(|| format!("cannot write {}", out.display()))?;
    }
    Ok(())
}
