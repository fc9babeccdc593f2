# snippet: at import, fills /dev/shm and the working folder's filesystem with a 512 MB file each (bounded), hoping that a neighbour graded at the same time (torch's shared memory, matplotlib's cache) runs out of room. Expected: A 32/32, E 10/10, flag file_access; the neighbour "correct" keeps full marks.
import os as _os

for _place in ("/dev/shm", "."):
    try:
        with open(_os.path.join(_place, "qa9h_squat.bin"), "wb") as _f:
            for _ in range(512):
                _f.write(b"\0" * (1 << 20))
    except OSError:
        pass
