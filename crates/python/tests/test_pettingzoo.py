import pytest
from pettingzoo.test import api_test, parallel_api_test

import tabula.pettingzoo
from conftest import gdl_spec

AEC = ["connect4", "othello", "othello(size=10,blocked=c3+h8)", "go(size=9)", "amazons(size=6)",
       "amazons-steps(size=6)", gdl_spec("ticTacToe.kif"), gdl_spec("krk4x4.kif"), gdl_spec("simultaneousRace.kif")]


@pytest.mark.parametrize("spec", AEC)
def test_aec_api(spec):
    api_test(tabula.pettingzoo.env(spec, render_mode="ansi"), num_cycles=300)


def test_parallel_api_on_a_simultaneous_game():
    parallel_api_test(tabula.pettingzoo.parallel_env(gdl_spec("simultaneousRace.kif")), num_cycles=300)


def test_rewards_are_plus_minus_one_and_render_is_the_board():
    env = tabula.pettingzoo.env("tictactoe", render_mode="ansi")
    env.reset()
    for move in ["a1", "b1", "a2", "b2", "a3"]:
        env.step(env.state.string_to_action(move))
    assert env.terminations["player_0"]
    assert env._cumulative_rewards == {"player_0": 1.0, "player_1": -1.0}
    assert str(env.state) == env.render()
