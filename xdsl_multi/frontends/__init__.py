"""Importers from real clients into the multi level, built on `xm.Builder` (DESIGN.md, layer
frontends/): `xdsl_multi.frontends.tinygrad` (SPEC §8) first.

Nothing else in the package imports this one, and `import xdsl_multi` does not load it: a front
end imports its client (tinygrad) only when it is itself imported.
"""
