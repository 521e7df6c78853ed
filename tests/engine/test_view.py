"""What is public at the table: sweeps of random hands, every game, no hidden card shown."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.actions import Play
from engine.cards import Card
from engine.games import get_game
from engine.hand import Phase
from engine.log import ActionEvent, DealEvent, Event, Referee, UndoEvent, event_to_json
from engine.view import public_event, public_state
from tests.leaks import assert_no_leak, card_codes, hidden_cards

TABLES: list[tuple[str, int | None, dict[str, Any]]] = [
    ("poley", None, {}),
    ("poley", None, {"revoke": "penalise"}),
    ("shelem", None, {}),
    ("shelem", None, {"buried-pile": "last-trick"}),
    ("fifty-six", None, {"thani": True}),
    ("bid-whist", None, {}),
    ("bid-whist", None, {"revoke": "reject"}),
    ("nap", 4, {}),
    ("nap", 6, {}),
]


def new_referee(game: str, players: int | None, options: dict[str, Any]) -> Referee:
    chosen = get_game(game)
    seats = players or chosen.default_players()
    return Referee(chosen, seats, chosen.options(options, seats))


def random_deal(referee: Referee, rng: random.Random, dealer: int | None) -> DealEvent:
    match = referee.match
    pack = list(match.game.pack)
    rng.shuffle(pack)
    shape = match.game.deal_shape(match.players, match.options, dealer if dealer is not None else match.next_dealer())  # type: ignore[arg-type]
    hands, at = [], 0
    for size in shape.per_seat:
        hands.append(tuple(pack[at : at + size]))
        at += size
    return DealEvent(tuple(hands), tuple(pack[at:]), dealer)


def next_event(referee: Referee, rng: random.Random) -> Event:
    """A random legal action, now and then an undo or (in play) a card that breaks a rule."""
    hand = referee.match.current
    assert hand is not None and hand.to_act is not None
    if hand.moves and rng.random() < 0.08:
        return UndoEvent()
    legal = hand.legal_actions()
    if hand.phase is Phase.PLAY and rng.random() < 0.1:
        wrong = [c for c in hand.holding(hand.to_act) if Play(c) not in legal]
        if wrong:
            return ActionEvent(hand.to_act, Play(rng.choice(wrong)))
    return ActionEvent(hand.to_act, legal[rng.randrange(len(legal))])


def play_hand_in_public(referee: Referee, rng: random.Random, dealer: int | None) -> None:
    """Play one hand, checking the public state and every public event as it goes."""
    game = referee.match.game.name
    deal = random_deal(referee, rng, dealer)
    index = sum(len(h.moves) + 1 for h in referee.match.hands) + 100  # any index will do
    seen: set[str] = set()
    event: Event = deal
    while True:
        violation = referee.apply(event, index)
        index += 1
        hand = referee.match.current
        assert hand is not None
        raw = event_to_json(event)
        if raw["type"] == "play":
            seen.add(raw["card"])  # put on the mat: seen, even when the referee refuses it
        if hand.is_over():
            break
        if hand.phase is Phase.JOKER_SWAP:  # the table asks aloud for this joker's holder
            seen.add(str(hand.legal_actions()[0].joker))  # type: ignore[union-attr]
        hidden = hidden_cards(hand, seen)
        applied = violation is None or raw["type"] == "play"
        assert_no_leak(public_event(game, raw, applied=applied), hidden, f"{game} event {raw['type']}")
        state = public_state(referee)
        assert len(state.pop("history")) == len(referee.match.hands) - 1  # ended hands: all public
        assert_no_leak(state, hidden, f"{game} state after {raw['type']}")
        event = next_event(referee, rng)
    record = public_state(referee)["hand"]["record"]
    assert record["hands"] == [[str(c) for c in cards] for cards in deal.hands]
    assert record["rest"] == [str(c) for c in deal.rest]


@pytest.mark.parametrize(("game", "players", "options"), TABLES)
def test_no_hidden_card_is_public_before_the_hand_ends(game, players, options):
    for seed in range(12):
        rng = random.Random(seed)
        referee = new_referee(game, players, options)
        for number in range(2):
            if referee.match.standing.over:
                break
            play_hand_in_public(referee, rng, dealer=seed % referee.match.players if number == 0 else None)


def test_a_deal_shows_only_how_many_cards_each_seat_got():
    event = {"type": "deal", "dealer": 1, "hands": [["AS", "KS"], ["QS", "JS"]], "rest": ["TS"]}
    shown = public_event("nap", event)
    assert shown == {"type": "deal", "dealer": 1, "cards_per_seat": [2, 2], "rest_count": 1}


def test_a_discard_shows_how_many_and_a_swap_never_the_card_taken():
    assert public_event("shelem", {"type": "discard", "seat": 2, "cards": ["AS", "TS", "5S", "2C"]}) == {
        "type": "discard",
        "seat": 2,
        "count": 4,
    }
    swap = {"type": "joker-swap", "seat": 1, "joker": "BJ", "card": "AS"}
    assert card_codes(public_event("bid-whist", swap)) == {"BJ"}
    assert card_codes(public_event("bid-whist", swap, applied=False)) == set()
    declined = public_event("bid-whist", {**swap, "card": None})
    assert declined == {"type": "joker-swap", "seat": None, "joker": None, "took_card": False}


def test_an_event_the_game_does_not_have_is_refused():
    with pytest.raises(ValueError, match="discard"):
        public_event("poley", {"type": "discard", "seat": 0, "cards": []})


def test_the_legal_actions_name_calls_but_never_cards():
    referee = new_referee("bid-whist", None, {})
    referee.apply(random_deal(referee, random.Random(3), 0), 0)
    legal = public_state(referee)["hand"]["legal"]
    assert legal["type"] == "call" and "4high" in legal["calls"]
    for i, call in enumerate(["pass", "pass", "4no"]):
        referee.apply(ActionEvent((1 + i) % 4, get_game("bid-whist").parse_call(call, referee.match.options)), i + 1)
    hand = referee.match.current
    assert hand is not None
    legal = public_state(referee)["hand"]["legal"]
    assert legal["seat"] == 0 and legal["calls"][:2] == ["pass", "5high"]  # above the standing 4no


def test_shelem_points_leave_out_the_buried_pile_until_the_hand_ends():
    rng = random.Random(5)
    referee = new_referee("shelem", None, {})
    referee.apply(random_deal(referee, rng, 0), 0)
    hand = referee.match.current
    assert hand is not None
    index = 1
    while hand.phase is not Phase.PLAY:
        legal = hand.legal_actions()
        referee.apply(ActionEvent(hand.to_act, legal[rng.randrange(len(legal))]), index)  # type: ignore[arg-type]
        index += 1
    state = public_state(referee)["hand"]
    assert state["points"] == [0, 0]  # nothing played yet, whatever was buried
    assert sum(state["tricks_won"]) == 1  # the pile is a trick: that much is known


def test_cards_are_found_as_words_not_inside_words():
    assert card_codes({"call": "2H", "message": "seat 1 PASSES; 5S is not hearts", "x": ["as", "KD"]}) == {"5S", "KD"}
    assert Card.from_str("TH")  # the codes scanned are the engine's own
