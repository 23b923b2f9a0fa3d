"""Statistics core: pure numpy/scipy, no Inspect imports (checked by a test)."""
