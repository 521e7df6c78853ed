"""Card play shared by the simulated players of trick games: simple, legal, not random.

Leading, a player plays his strongest card; following, he wins the trick as cheaply as he
can unless his partner is already winning it, and otherwise plays his weakest card. Cards
are compared with the contract's own :class:`~engine.tricks.TrickRules`.
"""

from __future__ import annotations

from engine.actions import Action, Play
from engine.hand import Hand
from engine.tricks import TrickRules


def choose_play(hand: Hand, seat: int, rules: TrickRules | None) -> Action:
    legal = hand.legal_actions()
    plays = [a for a in legal if isinstance(a, Play)]
    if rules is None or len(plays) <= 1:
        return legal[0]
    strength = rules.strength
    trump = rules.trump_mask

    def weight(p: Play) -> int:  # trumps above every other card
        i = p.card.index
        return strength[i] + (100 if trump >> i & 1 else 0)

    trick = [c.index for _, c in hand.current_trick]
    if not trick:
        return max(plays, key=weight)
    seats = [s for s, _ in hand.current_trick]
    winning = seats[rules.winner(trick)]
    if hand.team_of(winning) == hand.team_of(seat):
        return min(plays, key=weight)
    winners = [p for p in plays if rules.winner([*trick, p.card.index]) == len(trick)]
    return min(winners, key=weight) if winners else min(plays, key=weight)
