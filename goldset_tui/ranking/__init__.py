"""System-ranking effects: do two sets of labels rank the systems the same way."""
