"""hermes_tui: a terminal app and CLI for Hermes Agent session history."""

__version__ = "0.1.0"
