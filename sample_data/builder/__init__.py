"""Pieces of the sample-data build, one stage per module; `sample_data/build.py` runs them."""
