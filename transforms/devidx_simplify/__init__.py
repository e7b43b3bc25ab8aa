"""Pass `devidx-simplify`: the SPMD level to itself (devidx_simplify.py, the pass; one file per
family of rules, each with its rule table: invalid_rules.py, invalid_windows.py,
index_folding.py, pad_shrink_folding.py, algebra_folding.py)."""
