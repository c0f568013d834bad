"""The Textual app: shell, screens and widgets."""
