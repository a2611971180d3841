"""Adjudication: one consensus grade per disputed pair, the decisions kept in the store."""
