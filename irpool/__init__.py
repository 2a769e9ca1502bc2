"""irpool: validate and run the pooling layers of OpenVINO IR files; run ONNX pooling nodes on the same core."""
from .errors import IRError
from .core import PoolSpec, output_shape, pool

__all__ = ["IRError", "PoolSpec", "output_shape", "pool"]
__version__ = "0.1.0"
