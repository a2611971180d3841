"""Pooling: the union of each compared system's top k, extending a pool, near-duplicates."""
