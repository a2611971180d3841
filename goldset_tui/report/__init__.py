"""The engineer's report: the stratified table, its closure, holes, and how it is written."""
