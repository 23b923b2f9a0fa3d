"""Arena-Hard-Auto, BenchBuilder and judge meta-evaluation for Inspect AI."""

__version__ = "0.1.0"
