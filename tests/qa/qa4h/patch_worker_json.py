# snippet: at import, json.dumps (which the worker's wire format uses) is replaced by one that returns 2 MiB of '[': every reply after the import is undecodable. Expected: A 0/32, "invalid reply"; the grader and the batch go on.
import json as _json

_json.dumps = lambda *args, **kwargs: "[" * (2 << 20)
