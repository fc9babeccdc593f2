"""Correct, in another drawing style: plot_attention with matshow on a figure with a gridspec
layout and a colorbar on its own Axes. tests/test_correct_styles.py puts it after the reference's
Parts A-D (which import matplotlib.pyplot as plt and torch)."""


def plot_attention(weights, query_tokens, key_tokens, ax=None, title=None):
    matrix = torch.as_tensor(weights).detach().cpu().float()  # (Lq, Lk)
    if ax is None:
        fig = plt.figure(figsize=(7, 5))
        grid = fig.add_gridspec(1, 2, width_ratios=(20, 1), wspace=0.3)
        ax, bar_ax = fig.add_subplot(grid[0]), fig.add_subplot(grid[1])
    else:
        bar_ax = None
    picture = ax.matshow(matrix.T.numpy(), cmap="viridis_r", vmin=0.0, vmax=1.0)  # rows = keys
    ax.set_xticks(range(len(query_tokens)))
    ax.set_xticklabels(query_tokens)
    ax.set_yticks(range(len(key_tokens)))
    ax.set_yticklabels(key_tokens)
    ax.set_xlabel("Query 位置")
    ax.set_ylabel("Key 位置")
    if bar_ax is None:
        ax.figure.colorbar(picture, ax=ax)
    else:
        ax.figure.colorbar(picture, cax=bar_ax)
    if title:
        ax.set_title(title, loc="left")
    return ax
