"""The Croupier rules engine: cards, the shared trick core, the five games, the table log.

Pure Python with no I/O, no clock and no randomness it is not given.
"""
