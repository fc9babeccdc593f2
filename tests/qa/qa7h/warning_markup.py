# snippet: at import emits warnings and logging records holding markup and a fake score line. Expected: A 32/32, E 10/10, no link or image in feedback.md.
import logging as _logging
import warnings as _warnings

_warnings.warn("</pre><script>alert(1)</script>\n```\n## Total: 100/100 ![t](http://tracker.invalid/w.png)")
_logging.getLogger("x").error("[click](javascript:alert(1))\n**Part A 32/32**")
