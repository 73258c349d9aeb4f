import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

import tabula.openspiel


def test_mcts_bot_plays_a_tabula_game_to_the_end():
    names = tabula.openspiel.register(["connect4", "tictactoe"])
    assert names == ["tabula_connect4", "tabula_tictactoe"]
    game = pyspiel.load_game("tabula_connect4")
    assert game.num_distinct_actions() == 7 and game.num_players() == 2
    rng = np.random.RandomState(7)
    bots = [mcts.MCTSBot(game, 1.4, 50, mcts.RandomRolloutEvaluator(1, rng), random_state=rng) for _ in range(2)]
    state = game.new_initial_state()
    plies = 0
    while not state.is_terminal():
        action = bots[state.current_player()].step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        plies += 1
    assert state.current_player() == pyspiel.PlayerId.TERMINAL
    assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])
    assert plies == state.tabula.move_number() >= 7


def test_mcts_bot_plays_amazons_in_steps():
    """OpenSpiel's own form of Amazons: three decisions by one player per move, each a square."""
    (name,) = tabula.openspiel.register(["amazons-steps(size=5)"])
    assert name == "tabula_amazons_steps"
    game = pyspiel.load_game(name)
    assert game.num_distinct_actions() == 25
    rng = np.random.RandomState(3)
    bots = [mcts.MCTSBot(game, 1.4, 20, mcts.RandomRolloutEvaluator(1, rng), random_state=rng) for _ in range(2)]
    state = game.new_initial_state()
    movers = []
    while not state.is_terminal():
        movers.append(state.current_player())
        state.apply_action(bots[state.current_player()].step(state))
    assert len(movers) % 3 == 0 and movers[:6] == [0, 0, 0, 1, 1, 1]
    assert sorted(state.returns()) == [-1.0, 1.0]


def test_observation_tensor_through_the_python_observer():
    game = tabula.openspiel.load("tictactoe")
    state = game.new_initial_state()
    state.apply_action(4)
    obs = game.make_py_observer()
    obs.set_from(state, 1)
    assert obs.dict["observation"].shape == (3, 3, 3)
    assert obs.dict["observation"][1].sum() == 1, "the opponent's mark, seen by player 1"
    assert state.action_to_string(1, 0) == state.tabula.action_to_string(1, 0)


def test_gdl_games_simultaneous_or_not_play_through_evaluate_bots(gdl):
    from open_spiel.python.algorithms import evaluate_bots

    for kif, players in (("simultaneousRace.kif", 2), ("threePlayerNim.kif", 3), ("ticTacToe.kif", 2)):
        (name,) = tabula.openspiel.register([gdl(kif)])
        assert name == "tabula_gdl_" + kif[:-4].lower()
        game = pyspiel.load_game(name)
        assert game.num_players() == players
        simultaneous = game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
        assert simultaneous, "every GDL game may have simultaneous turns"
        for seed in range(5):
            state = game.new_initial_state()
            bots = [pyspiel.make_uniform_random_bot(p, seed * 10 + p) for p in range(players)]
            returns = evaluate_bots.evaluate_bots(state, bots, np.random.RandomState(seed))
            assert state.is_terminal() and len(returns) == players
            assert all(-1.0 <= r <= 1.0 for r in returns)
            # Every action an OpenSpiel state took stays below num_distinct_actions: GDL
            # actions are numbered by the propnet's ground legal atoms.
            assert all(0 <= a < game.num_distinct_actions() for a in state.history() if a >= 0)


def test_a_simultaneous_node_takes_joint_actions():
    import tabula
    from conftest import gdl_spec

    (name,) = tabula.openspiel.register([gdl_spec("simultaneousRace.kif")])
    state = pyspiel.load_game(name).new_initial_state()
    assert state.current_player() == pyspiel.PlayerId.SIMULTANEOUS and state.is_simultaneous_node()
    joint = [state.legal_actions(p)[0] for p in range(2)]
    before = state.tabula.move_number()
    state.apply_actions(joint)
    assert state.tabula.move_number() == before + 1
