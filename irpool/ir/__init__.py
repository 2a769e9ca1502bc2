"""OpenVINO IR front end: parse, check declared dims, explain, run."""
from .check import Finding, Report, check
from .explain import explain
from .parse import Layer, Net, parse
from .run import Program, load, run

__all__ = ["Finding", "Report", "check", "explain", "parse", "run", "load", "Program", "Layer", "Net"]
