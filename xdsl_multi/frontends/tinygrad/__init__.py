"""The tinygrad 0.14.0 front end (SPEC §8, docs/frontends.md).

```python
from tinygrad import Tensor
from xdsl_multi.frontends.tinygrad import import_tensors, run
x = Tensor(np.ones((8, 4), np.float32)).shard(("CPU:0", "CPU:1"), axis=0)
(y,) = run((x + 1).sum(0))                      # numpy, computed by xdsl-multi on threads
module, inputs = import_tensors((x + 1).sum(0))  # the multi-level @main and its arguments
```

Modules: importer.py (the walk, the cut at buffers, `RULES`), elementwise.py, movement.py,
placement.py (the rules, each with its mapping table), bounds.py (tinygrad's integer
arguments), dtypes.py (the dtype table), runner.py (`run`), errors.py (`UnsupportedGraph`).
"""

from xdsl_multi.frontends.tinygrad.errors import UnsupportedGraph
from xdsl_multi.frontends.tinygrad.importer import import_tensors
from xdsl_multi.frontends.tinygrad.runner import run

__all__ = ["UnsupportedGraph", "import_tensors", "run"]
