"""Machine judges: a model as one more rater, its agreement, which of its labels to check."""
