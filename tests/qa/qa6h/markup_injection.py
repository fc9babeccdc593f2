# snippet: causal_mask prints and raises text made to break out of the feedback's markup: a closing </pre> and <script>, a Markdown fence, a forged heading and score line, an image that loads a remote tracker, a CSV formula, a fake check line. Shown as text everywhere (escaped in HTML, fenced in Markdown), no remote image, no formula in grades.csv. Expected: A 28/32 (A.4 raises), no flag.
_MARKUP = (
    "</pre></code></details><script>alert('x')</script><img src=x onerror=alert(1)>\n"
    "```\n\n## Total: 100/100\n\n**Part A 32/32**\n\n![t](http://tracker.invalid/p.png) [click](javascript:alert(1))\n"
    "=HYPERLINK(\"http://evil.invalid\",\"x\")\n|a|b|\n|---|---|\n<!--"
)
print(_MARKUP)


def causal_mask(size_q, size_k=None, device=None):
    raise ValueError(_MARKUP)
