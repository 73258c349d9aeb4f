"""Self-play training on a real local Ray cluster (head plus worker nodes as separate
processes): the learner's node is killed with SIGKILL mid-run, a new learner resumes from
the checkpoint, and the run ends exactly where a run that never failed ends."""

import os
import signal

import pytest
import ray
from ray.cluster_utils import Cluster

import tabula
from tabula.distributed import train as dtrain

GAME = "amazons(size=5)"
# Evaluations (every 1,000 moves, some 65 games) stay out of the way: checkpoints fall due
# every 20 games only.
SETTINGS = dict(preset="td-leaf", seed=3, epsilon=0.1, eval_games=2, eval_every=1000)


def sequential(out, games, k):
    """The same run without Ray: blocks of ``k`` games, each played with the weights at the
    start of its block, applied in order."""
    generator = tabula.EpisodeGenerator(GAME, **SETTINGS)
    learner = tabula.Learner(out, GAME, **SETTINGS)
    while learner.games < games:
        start, weights = learner.games, learner.weights
        learner.apply([generator.play(weights, g) for g in range(start, min(start + k, games))])
    return learner


def test_the_bindings_check_their_input(tmp_path):
    generator = tabula.EpisodeGenerator(GAME, **SETTINGS)
    episode = generator.play([0.0] * generator.features, 0)
    assert isinstance(episode, bytes) and episode == generator.play([0.0] * generator.features, 0)
    learner = tabula.Learner(tmp_path, GAME, **SETTINGS)
    with pytest.raises(ValueError, match="game order"):
        learner.apply([generator.play(learner.weights, 1)])
    with pytest.raises(ValueError, match="episode"):
        learner.apply([episode[:-3]])
    with pytest.raises(ValueError):
        generator.play([0.0], 0)
    with pytest.raises(ValueError, match="preset"):
        tabula.EpisodeGenerator(GAME, preset="nope")
    with pytest.raises(ValueError, match="linear evaluator"):
        tabula.Learner(tmp_path, "connect4")
    learner.apply([episode])
    assert learner.games == 1 and learner.step > 0
    learner.save()
    again = tabula.load_checkpoint(tmp_path / "checkpoint.json")
    assert again["games"] == 1 and again["weights"] == learner.weights
    # Other settings do not resume this run's checkpoint.
    with pytest.raises(ValueError, match="other settings"):
        tabula.Learner(tmp_path, GAME, **dict(SETTINGS, seed=4))


def test_the_command_line_refuses_bad_settings_and_other_runs(tmp_path, capsys):
    assert dtrain.main([GAME, "--out", str(tmp_path), "--games", "10", "--preset", "nope"]) == 2
    assert "preset 'nope'" in capsys.readouterr().err
    learner = tabula.Learner(tmp_path, GAME, **SETTINGS)
    learner.save()
    # A checkpoint of other settings is refused as `tabula train` refuses it.
    assert dtrain.main([GAME, "--out", str(tmp_path), "--games", "10", "--seed", "9"]) == 2
    assert "other settings" in capsys.readouterr().err
    with pytest.raises(ValueError, match="games"):
        dtrain.train(GAME, tmp_path, 0)


def test_a_training_run_survives_the_death_of_its_learners_node(tmp_path):
    games, k = 48, 8
    cluster = Cluster(
        initialize_head=True,
        head_node_args={
            "num_cpus": 2,
            "include_dashboard": False,
            # Notice a dead node within about a second rather than the default ~15 s.
            "_system_config": {"health_check_period_ms": 300, "health_check_failure_threshold": 3},
        },
    )
    try:
        learner_node = cluster.add_node(num_cpus=0, resources={"learner": 1})
        ray.init(address=cluster.address)
        cluster.wait_for_nodes()
        killed = {}

        def on_block(state):
            # After the first checkpoint (due at game 20, written at the end of the block,
            # 24) and one more block, kill the learner's node: games 24..31 are lost with it.
            if not killed and state["games"] == 32:
                checkpoint = tabula.load_checkpoint(tmp_path / "run" / "checkpoint.json")
                killed["checkpoint"] = checkpoint["games"]
                os.kill(state["pid"], signal.SIGKILL)
                cluster.remove_node(learner_node, allow_graceful=False)
                # A replacement node offering the learner's resource joins (as an autoscaler
                # would add one); the new learner waits for it.
                cluster.add_node(num_cpus=0, resources={"learner": 1})

        result = dtrain.train(
            GAME,
            tmp_path / "run",
            games,
            workers=2,
            sync_every=k,
            progress=False,
            learner_resources={"learner": 1},
            on_block=on_block,
            learner_wait_s=60,
            **SETTINGS,
        )
    finally:
        ray.shutdown()
        cluster.shutdown()

    assert killed["checkpoint"] == 24
    assert result["resumed_at"] == [0, 24], "one new learner, from the checkpoint"
    assert result["games"] == games
    saved = tabula.load_checkpoint(tmp_path / "run" / "checkpoint.json")
    assert saved["games"] == games and saved["weights"] == result["weights"]
    assert all(w == w and abs(w) < 1e6 for w in saved["weights"]) and any(w != 0 for w in saved["weights"])
    for name in ("weights.json", "curve.csv", "curve.svg", "weights.csv", "weights.svg"):
        assert (tmp_path / "run" / name).is_file(), name
    # Every game counted once, every update as a run that never failed makes it.
    same = sequential(tmp_path / "seq", games, k)
    assert (same.games, same.step, same.weights) == (saved["games"], saved["step"], saved["weights"])
    # The checkpoint resumes as `tabula train`'s does: a learner with the same settings takes it.
    resumed = tabula.Learner(tmp_path / "run", GAME, **SETTINGS)
    assert resumed.games == games and resumed.weights == saved["weights"]
