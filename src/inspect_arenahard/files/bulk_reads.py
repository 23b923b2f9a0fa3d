"""Reading many files into objects that all live on: no full garbage collections meanwhile.

CPython's collector rescans every object it tracks each time the objects that survived its
younger passes grow by a quarter. A reader that builds tens of thousands of records that are all
kept (sample scores of 60 logs) sets that off again and again, each pass longer than the last,
for no garbage: on 60 logs × 500 samples those passes are a fifth of the read. Young passes
still run, so cycles made and dropped during the read (an exception's traceback) are freed as
before; the full passes resume when the last reader is done.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_NEVER = 1 << 30
"""A threshold for full collections that a read never reaches."""

_lock = threading.Lock()
_readers = 0
_saved = 0


@contextmanager
def full_collections_paused() -> Iterator[None]:
    """No full (oldest-generation) collection while the block runs; nested and concurrent uses
    restore the caller's threshold when the last one ends."""
    global _readers, _saved
    with _lock:
        if _readers == 0:
            young, middle, _saved = gc.get_threshold()
            gc.set_threshold(young, middle, _NEVER)
        _readers += 1
    try:
        yield
    finally:
        with _lock:
            _readers -= 1
            if _readers == 0:
                young, middle, _ = gc.get_threshold()
                gc.set_threshold(young, middle, _saved)
