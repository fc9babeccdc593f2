# snippet: causal_mask raises an exception whose class is made at run time with a name holding a newline, HTML, a Markdown heading and a terminal escape (type(name, bases, dict)). Its name is cut to 100 characters and shown as text. Expected: A 28/32 (A.4's checks fail), no flag.
def causal_mask(size_q, size_k=None, device=None):
    kind = type("Oops\n## Total: 100/100 <b>x</b> \x1b[2J ![t](http://tracker.invalid/p.png)" + "x" * 500, (Exception,), {})
    raise kind("no mask today")
