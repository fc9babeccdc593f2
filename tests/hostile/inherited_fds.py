"""Writes a pickle that would run code into every descriptor it holds open for writing.

A forked worker that still held a multiprocessing pool's pipes could make the grader unpickle
this (and run os.makedirs as root); it must hold no descriptor of the grader's.
"""
import fcntl
import os
import pickle
import struct


class Payload:
    def __reduce__(self):
        return (os.makedirs, ("@@MARKER@@",))


_data = pickle.dumps(Payload())
_frame = struct.pack("!i", len(_data)) + _data
OPEN = []
for _fd in range(3, 1024):
    try:
        _flags = fcntl.fcntl(_fd, fcntl.F_GETFL)
    except OSError:
        continue
    OPEN.append(_fd)
    if _flags & os.O_ACCMODE in (os.O_WRONLY, os.O_RDWR):
        try:
            fcntl.fcntl(_fd, fcntl.F_SETFL, _flags | os.O_NONBLOCK)
            os.write(_fd, _frame)
        except OSError:
            pass
print("open descriptors above 2:", OPEN)
