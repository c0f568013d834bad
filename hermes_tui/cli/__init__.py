"""Command-line verbs of `hermes`."""
