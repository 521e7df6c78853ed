"""The club service (``croupier club serve``): the tables' events from the broker into PostgreSQL,
re-refereed with the engine, shown on one page with standings and rounds (docs/club.md).

A second composition root beside ``controller/``: it imports ``engine/`` and its own broker and
database adapters, never the table's devices, and the table never imports it."""
