# snippet: causal_mask raises on a line whose trailing comment holds markup (a closing </pre>, a script, a Markdown image and heading): the frame's source line is shown as text. Expected: A 28/32, E 10/10, no link or image in feedback.md.
def causal_mask(size_q, size_k=None, device=None):
    raise ValueError("no")  # </pre><script>alert(1)</script> ![t](http://tracker.invalid/p.png) \n## Total: 100/100
