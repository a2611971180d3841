"""The terminal UI: thin Textual screens over the core. Only this package imports Textual."""
