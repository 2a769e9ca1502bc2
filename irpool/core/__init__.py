"""The one pooling core: a PoolSpec, its shape arithmetic, and its execution. Front ends only translate."""
from . import tuning
from .pool import default_threads, pool
from .workspace import release_workspaces
from .shape import AxisPlan, axis_names, output_shape, plan, resolve_pads
from .spec import PoolSpec

__all__ = ["PoolSpec", "AxisPlan", "axis_names", "output_shape", "plan", "resolve_pads", "pool",
           "default_threads", "release_workspaces", "tuning"]
from .adaptive import adaptive_bins, adaptive_pool  # noqa: E402

__all__ += ["adaptive_bins", "adaptive_pool"]
