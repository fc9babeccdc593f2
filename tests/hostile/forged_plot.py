# snippet: the worker's plot reader is replaced: plot_attention's description claims 100,000
# columns and 1,000 labelled ticks (hours of grader work if unbounded), and a figure PNG past the cap.
import sys as _sys


def _forged_plot_call(target, args, kwargs):
    image = {"array": torch.zeros(1, 100_000, dtype=torch.float64), "extent": [0.0, 100_000.0, 1.0, 0.0], "origin": "upper", "clim": [0.0, 1.0], "cmap": "Blues", "colorbar": True}
    axes = {
        "images": [image], "meshes": [],
        "xticks": [i + 0.5 for i in range(1000)], "xticklabels": [f"t{i}" for i in range(1000)],
        "yticks": [0.5], "yticklabels": ["a"], "xlabel": "query", "ylabel": "key", "title": "probe heatmap",
        "xlim": [0.0, 100_000.0], "ylim": [1.0, 0.0],
    }
    png = torch.zeros(5 << 20, dtype=torch.uint8)
    png[:24] = torch.tensor(list(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01"), dtype=torch.uint8)  # a PNG's header (a picture of another format is refused before anything is read)
    return {"returned": "Axes", "axes": [axes], "target": 0, "png": png, "colorbars": 1, "given_axes": 0, "figures": 1}


_sys.modules["autograder.grading.worker.plotdata"].plot_call = _forged_plot_call
