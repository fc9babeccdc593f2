# snippet: at import, lowers its own CPU-time limit to 3 s (soft and hard): the worker is killed by the kernel part-way through grading, restarted, killed again. Expected: A at most 32/32, E at most 10/10, flag resource_limit at most, the batch goes on.
import resource as _resource

_resource.setrlimit(_resource.RLIMIT_CPU, (3, 3))
