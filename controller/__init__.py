"""The composition root: settings, the table controller, the store and the command line."""
