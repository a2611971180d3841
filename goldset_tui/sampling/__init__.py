"""From the query log to the golden set (docs/sampling.md; the reasoning in docs/background.md).

``normalise`` reads a log and counts distinct queries, ``rules`` holds the replaceable query-shape
rules, ``classify`` labels the distinct queries, ``sample`` draws the stratified set (with query
ids and the files ``goldset report`` reads), ``inclusion`` gives each sampled query's chance of
being drawn, ``plan`` does the sample-size arithmetic (finite population, weighted headline,
detectable difference), ``manifest`` writes the TOML beside a sample or a labels file,
``spotcheck`` folds a labeller's hand checks of the classifier into agreement and confusion, and
``verdict`` says, stratum by stratum, whether the classifier's errors matter.
No Textual here.
"""
