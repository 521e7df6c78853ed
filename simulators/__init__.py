"""Simulated hardware and players, so the whole table runs on a laptop (``croupier sim``)."""
