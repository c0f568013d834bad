"""Widgets of the app (they draw; screens own state and call the store)."""
