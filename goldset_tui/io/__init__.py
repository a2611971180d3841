"""Readers and writers for the files goldset works with, with all input validation.

Nothing here imports Textual.
"""
