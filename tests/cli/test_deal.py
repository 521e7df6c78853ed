"""``croupier deal`` as a user runs it (design.md, contract 3)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_croupier

GAMES = {"poley": (4, 5, 2), "shelem": (4, 12, 4), "fifty-six": (6, 8, 0), "bid-whist": (4, 12, 6), "nap": (4, 5, 32)}


def deal(*args: str):
    done = run_croupier("deal", "--sim", "--speed", "1000", "--json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_deals_with_faults_and_the_host_agrees_with_the_machine(game):
    seats, per_seat, rest = GAMES[game]
    result = deal("--game", game, "--seed", "3", "--faults", "corrupt=0.002,reset-after=4,jam-at=6,unreadable-at=2")
    assert result["status"] == "complete", result
    assert [len(h) for h in result["hands"]] == [per_seat] * seats and len(result["rest"]) == rest
    assert result["machine"]["hands"] == result["hands"] and result["machine"]["rest"] == result["rest"]
    assert result["machine"]["reject"] == []
    assert result["stats"]["resets"] == 1 and result["stats"]["faults"] >= 3
    assert {"retransmissions", "resets", "faults"} <= set(result["stats"])


def test_the_same_seed_loads_the_same_stack_but_the_deal_is_secret():
    first = deal("--game", "poley", "--seed", "9")
    second = deal("--game", "poley", "--seed", "9")
    # The hopper order is the seed's; where the cards go comes from the system's CSPRNG.
    assert first["hands"] != second["hands"]


@pytest.mark.parametrize(
    ("fault", "words"),
    [
        ("missing=9H", "the 9 of hearts (9H) is missing"),
        ("extra=QS", "two queens of spades (QS)"),
        ("foreign=2C", "the 2 of clubs (2C) does not belong in the Poley pack"),
    ],
)
def test_a_wrong_pack_voids_the_deal_and_names_the_card(fault, words):
    result = deal("--game", "poley", "--seed", "1", "--faults", fault)
    assert result["status"] == "void"
    assert words in result["message"]
    assert result["machine"]["hands"] == result["hands"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--faults", "jam-at=x"], "jam-at=x"),
        (["--faults", "wobble=3"], "unknown fault 'wobble'"),
        (["--faults", "missing=2C"], "missing=2C"),
        (["--faults", "corrupt=2"], "between 0 and 0.5"),
        (["--game", "canasta"], "unknown game"),
        (["--speed", "0"], "--speed"),
        (["--players", "7", "--game", "nap"], "not 7"),
    ],
)
def test_bad_options_exit_2_with_one_line(args, words):
    done = run_croupier("deal", "--sim", *args)
    assert done.returncode == 2
    assert words in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "Traceback" not in done.stderr


def test_sim_or_port_is_required():
    done = run_croupier("deal", "--game", "poley")
    assert done.returncode == 2 and "--sim or --port" in done.stderr


def test_a_readable_report_without_json():
    done = run_croupier("deal", "--sim", "--game", "shelem", "--speed", "1000", "--faults", "jam-at=3")
    assert done.returncode == 0, done.stderr
    assert "Deal complete" in done.stdout and "jam at the exit" in done.stdout and "rest" in done.stdout


def test_a_predetermined_deal_from_a_pbn_file(tmp_path):
    # Shelem deals 12 cards a seat: the four cards no PBN hand lists are the widow.
    pbn = tmp_path / "board.pbn"
    pbn.write_text('[Board "1"]\n[Deal "E:AKQJ.T98.765.43 T98.765.432.AKQ 765.432.AKQJ.T9 432.AKQJ.T98.76"]\n')
    result = deal("--game", "shelem", "--deal-file", str(pbn), "--faults", "jam-at=5,double-feed-at=9")
    assert result["status"] == "complete", result
    assert sorted(result["hands"][1]) == sorted(
        ["AS", "KS", "QS", "JS", "TH", "9H", "8H", "7D", "6D", "5D", "4C", "3C"]
    )  # East is seat 1
    assert sorted(result["rest"]) == sorted(["2C", "JC", "8C", "5C"])
    assert result["machine"]["hands"] == result["hands"]


def test_a_full_bridge_deal_does_not_fit_shelem_and_says_so(tmp_path):
    pbn = tmp_path / "board.pbn"
    pbn.write_text('[Deal "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"]\n')
    done = run_croupier("deal", "--sim", "--game", "shelem", "--deal-file", str(pbn))
    assert done.returncode == 2 and "predetermined deal has (13, 13, 13, 13, 0)" in done.stderr, done.stderr


def test_a_predetermined_deal_from_a_table_log(tmp_path):
    from engine.cards import STANDARD_52

    codes = [str(c) for c in STANDARD_52]
    log = {
        "format": "croupier-table-log",
        "version": 1,
        "game": "shelem",
        "events": [
            {
                "type": "deal",
                "dealer": 0,
                "hands": [codes[i * 12 : i * 12 + 12] for i in range(4)],
                "rest": codes[48:],
            }
        ],
    }
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    result = deal("--game", "shelem", "--deal-file", str(path), "--seed", "2", "--faults", "reset-after=9")
    assert result["status"] == "complete"
    assert [sorted(h) for h in result["hands"]] == [sorted(codes[i * 12 : i * 12 + 12]) for i in range(4)]
    assert sorted(result["rest"]) == sorted(codes[48:])


# --- the engine's shape for every seat count (Nap: six-handed, the dealer sits out) -------------


def test_every_game_and_seat_count_is_planned_as_the_engine_deals_it():
    from controller.dealing import plan_for
    from engine.games import GAMES as ENGINE_GAMES
    from engine.match import Match

    for game in ENGINE_GAMES.values():
        for seats in game.seat_counts:
            plan = plan_for(game, seats)
            match = Match(game, game.options(None, seats), seats)
            shape = game.deal_shape(seats, match.options, 0)
            assert (plan.seats, plan.rest) == (shape.per_seat, shape.rest), (game.name, seats)


def referee_accepts(game: str, players: int, options: dict, result: dict) -> None:
    """The engine takes the deal as dealt: a table log of it replays without a complaint."""
    from engine.log import referee_text

    log = {
        "format": "croupier-table-log",
        "version": 1,
        "game": game,
        "players": players,
        "options": options,
        "events": [{"type": "deal", "dealer": 0, "hands": result["hands"], "rest": result["rest"]}],
    }
    referee_text(json.dumps(log))


@pytest.mark.parametrize(
    ("players", "options", "shape"),
    [
        (6, {}, ([0, 5, 5, 5, 5, 5], 27)),  # rules.md 5.2: with six players the dealer deals himself none
        (5, {}, ([5] * 5, 27)),
        (2, {}, ([5, 5], 42)),
    ],
)
def test_nap_deals_the_engines_shape_for_its_seat_count(players, options, shape):
    result = deal("--game", "nap", "--players", str(players), "--seed", "4", "--faults", "jam-at=3")
    assert result["status"] == "complete", result
    assert ([len(h) for h in result["hands"]], len(result["rest"])) == shape
    assert result["machine"]["hands"] == result["hands"] and result["machine"]["rest"] == result["rest"]
    referee_accepts("nap", players, options, result)


def nap_log(players: int, options: dict, dealer: int, sizes: list[int]) -> dict:
    from engine.cards import STANDARD_52

    codes = [str(c) for c in STANDARD_52]
    hands, start = [], 0
    for size in sizes:
        hands.append(codes[start : start + size])
        start += size
    deal_event = {"type": "deal", "dealer": dealer, "hands": hands, "rest": codes[start:]}
    return {
        "format": "croupier-table-log",
        "version": 1,
        "game": "nap",
        "players": players,
        "options": options,
        "events": [deal_event],
    }


@pytest.mark.parametrize(
    ("players", "options", "dealer", "sizes"),
    [
        (6, {}, 0, [0, 5, 5, 5, 5, 5]),
        (6, {}, 3, [5, 5, 5, 0, 5, 5]),  # the seat that sits out is the deal's dealer
        (6, {"dealer-sits-out": False}, 2, [5] * 6),  # the log's own options shape its deal
        (5, {"dealer-sits-out": True}, 1, [5, 0, 5, 5, 5]),
    ],
)
def test_a_predetermined_nap_deal_of_any_valid_shape_is_followed(tmp_path, players, options, dealer, sizes):
    log = nap_log(players, options, dealer, sizes)
    path = tmp_path / "nap.json"
    path.write_text(json.dumps(log))
    result = deal("--game", "nap", "--players", str(players), "--deal-file", str(path), "--seed", "5")
    assert result["status"] == "complete", result
    expected = log["events"][0]
    assert [sorted(h) for h in result["hands"]] == [sorted(h) for h in expected["hands"]]
    assert sorted(result["rest"]) == sorted(expected["rest"])


def test_a_deal_file_for_other_seats_says_how_many(tmp_path):
    path = tmp_path / "nap.json"
    path.write_text(json.dumps(nap_log(6, {}, 0, [0, 5, 5, 5, 5, 5])))
    done = run_croupier("deal", "--sim", "--game", "nap", "--deal-file", str(path))
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert "a log of 6 players, not 4 (give --players 6)" in done.stderr
