"""irpool: validate and run the pooling layers of OpenVINO IR files; run ONNX pooling nodes on the same core."""
from .errors import IRError
from .core import PoolSpec, output_shape, pool
from .frontend import check, explain, fix, load, run
from .ir.run.program import Program
from .report import Finding, Report
from .version import __version__

__all__ = ["__version__", "IRError", "Finding", "Report", "check", "explain", "fix", "run", "load", "Program", "PoolSpec", "output_shape", "pool"]


def __getattr__(name):
    """`irpool.onnx` after a bare `import irpool`, imported on first use (it never imports onnx itself)."""
    if name == "onnx":
        import importlib
        return importlib.import_module(".onnx", __name__)
    raise AttributeError(f"module 'irpool' has no attribute {name!r}")
