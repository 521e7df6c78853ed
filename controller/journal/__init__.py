"""What keeps the journal (``controller/store.py``) honest: its hash chain, the record of what
was acknowledged, the check made before it is opened, the copy kept at each hand's end, and
the salvage of a damaged journal (``croupier journal check`` and ``recover``)."""
