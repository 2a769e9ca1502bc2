"""Make the tests' own helpers (reference.py, irbuild.py) importable as plain modules."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
