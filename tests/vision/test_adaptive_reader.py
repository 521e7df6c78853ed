"""The table's own deck style: learned from the generic reader's sure reads on one sequence of
cards, it reads another sequence of the same deck better, and never reports a wrong card."""

from __future__ import annotations

import pytest

from benchmarks.vision_faces import FaceScore, seen_faces
from vision.adaptive import AdaptiveReader
from vision.decks import deck_available, deck_faces
from vision.reader import GenericReader


@pytest.fixture(scope="module")
def anglo():
    if not deck_available("aisleriot:anglo"):
        pytest.skip("aisleriot:anglo is not installed")
    return deck_faces("aisleriot:anglo")


def test_learns_on_one_sequence_and_reads_another_better_without_a_wrong_card(anglo):
    generic = GenericReader()
    adaptive = AdaptiveReader(generic)
    for _, seen in seen_faces(anglo, 1, seed=100):  # the table at play: learning as it reads
        adaptive.read(seen)
    assert adaptive.learned_reads > 30
    adaptive.learning = False
    plain, learned = FaceScore(), FaceScore()
    for truth, seen in seen_faces(anglo, 1, seed=21):  # other views of the deck, not learned from
        plain.add(truth, generic.read(seen))
        learned.add(truth, adaptive.read(seen))
    assert learned.wrong == 0, learned.confusions
    assert learned.correct > plain.correct, (learned, plain)


def test_an_unlearned_table_reads_as_the_generic_reader(anglo):
    generic = GenericReader()
    adaptive = AdaptiveReader(generic)
    adaptive.learning = False
    for _, seen in list(seen_faces(anglo, 1, seed=3))[:20]:
        assert adaptive.read(seen) == generic.read(seen)
