# snippet: honest. At import, every warning becomes an error (warnings.simplefilter("error")), as a strict student sets for their own code; the grader's own work in the worker (matplotlib, torch) may warn. Expected: A 32/32, E 10/10, no flag.
import warnings

warnings.simplefilter("error")
