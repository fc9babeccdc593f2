# snippet: at import, up to 200 forks, each sleeping at most 30 s; failures to fork are ignored.
import os as _os
import time as _time

_forked = 0
for _ in range(200):
    try:
        if _os.fork() == 0:
            _time.sleep(30)
            _os._exit(0)
        _forked += 1
    except OSError as _error:
        print(f"fork refused after {_forked} children: {_error}")
        break
