"""From the query log to the golden set (issue 7, seeds 000 and 004).

``normalise`` reads a log and counts distinct queries, ``rules`` holds the replaceable query-shape
rules, ``classify`` labels the distinct queries, ``sample`` draws the stratified set, ``plan`` does
the sample-size arithmetic, ``manifest`` writes the TOML beside the sample, ``spotcheck`` folds a
labeller's hand checks of the classifier into agreement, confusion and seed 000's verdict.
No Textual here.
"""
