"""The camera side of the table: frames in, recognised cards and their zones out.

Detection and classification are pure functions on numpy arrays; from the project, only
``engine.cards`` is imported here.
"""
