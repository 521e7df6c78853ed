"""The web API of the table: REST, a WebSocket of updates, OpenAPI docs (``docs/api.md``)."""
