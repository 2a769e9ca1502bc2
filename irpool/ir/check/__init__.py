"""The checker: the passes over a net (passes.py), its state (state.py) and the rooms that write it, each
pooling layer judged into a record (judge.py) and the record into findings."""
