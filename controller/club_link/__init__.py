"""The table's side of the club (docs/club-protocol.md): what it publishes, its outbox, its publisher."""
