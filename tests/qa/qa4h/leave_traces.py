# snippet: at import, tries to leave state for the next submissions: files in /tmp, /dev/shm, $HOME and the matplotlib/torch caches, an abstract unix socket listening for 20 s (a thread), environment variables, torch's default dtype and seed. Each worker has its own scratch, namespaces and process. Expected: A 29/32 (the thread hides code from the trace: both traced rules 0); qa4h_read_traces keeps 32/32.
import os as _os
import socket as _socket
import threading as _threading
import time as _time

for _folder in ("/tmp", "/dev/shm", _os.environ.get("HOME", "/tmp"), _os.path.expanduser("~/.cache/torch"), _os.path.expanduser("~/.config/matplotlib")):
    try:
        _os.makedirs(_folder, exist_ok=True)
        with open(_os.path.join(_folder, "qa4h_trace"), "w") as _handle:
            _handle.write("left behind")
    except OSError:
        pass
_os.environ["QA4H_TRACE"] = "1"
_os.environ["OMP_NUM_THREADS"] = "64"


def _listen():
    try:
        server = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        server.bind("\0qa4h_trace")
        server.listen(1)
        server.settimeout(20)
        server.accept()
    except OSError:
        pass


_threading.Thread(target=_listen, daemon=True).start()
_time.sleep(0.2)
