"""Pass `multi-to-devidx`: the multi level to the SPMD level. multi_to_devidx.py holds the
rule table (its docstring), the rule list and the pass; the rules by family are in
placement_rules.py, copy_rules.py, sharded_rules.py and generic_rules.py, over the lowering
state of lowering_state.py; allreduce.py has the fetch schedules of an allreduce,
spmd_builder.py the SPMD views (`global`, `local`, `clean`)."""
