# snippet: the picture shows the key tokens in reverse order; the Axes reports its tick labels in the right order
_drawn_plot_attention = plot_attention


class _Label:
    """A drawn tick label (its box, its font) that reports another token."""

    def __init__(self, drawn, token):
        self._drawn, self._token = drawn, token

    def get_text(self):
        return self._token

    def __getattr__(self, name):
        return getattr(self._drawn, name)


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    ax = _drawn_plot_attention(weights, query_tokens, list(key_tokens)[::-1], ax=ax, title=title)
    drawn, drawn_major = ax.get_yticklabels, ax.yaxis.get_majorticklabels  # whichever the grader reads
    ax.get_yticklabels = lambda *args, **kwargs: [_Label(text, token) for text, token in zip(drawn(*args, **kwargs), key_tokens)]
    ax.yaxis.get_majorticklabels = lambda *args, **kwargs: [_Label(text, token) for text, token in zip(drawn_major(*args, **kwargs), key_tokens)]
    return ax
