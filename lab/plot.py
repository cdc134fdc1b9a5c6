"""Draws a `strata lab` report (its --json output) as a PNG a reader can read: a ladder as
bars (one bar per variant, the reference's level as a dashed line), a sweep as lines (one
per series); axes with units, a legend, the device in the title.

    python3 lab/plot.py REPORT.json OUT.png

`strata lab NAME --plot OUT.png` runs this same file (compiled into the binary) with
python3; it needs only matplotlib."""
import json
import sys


def draw(report, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plot = report["plot"]
    series = plot["series"]
    fig, ax = plt.subplots(figsize=(10, 5.5))
    if plot["kind"] == "bars":
        names = []
        for s in series:
            for x in s["x"]:
                if x not in names:
                    names.append(x)
        width = 0.8 / max(1, len(series))
        for k, s in enumerate(series):
            pos = [names.index(x) + (k - (len(series) - 1) / 2) * width for x in s["x"]]
            bars = ax.bar(pos, s["y"], width=width, label=s["label"])
            ax.bar_label(bars, fmt="%.3g", fontsize=7, padding=2)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    else:
        for s in series:
            ax.plot(s["x"], s["y"], marker="o", markersize=3, label=s["label"])
        ax.grid(True, alpha=0.3)
    for ref in plot.get("references", []):
        ax.axhline(ref["y"], color="0.3", linestyle="--", linewidth=1)
        ax.annotate(ref["label"], (0.995, ref["y"]), xycoords=("axes fraction", "data"),
                    ha="right", va="bottom", fontsize=8, color="0.3")
    if plot.get("logy"):
        ax.set_yscale("log")
    ax.set_xlabel(plot.get("xlabel", ""))
    ax.set_ylabel(plot.get("ylabel", ""))
    title = plot.get("title") or report.get("title", "")
    if report.get("device"):
        title += f"\n{report['device']}"
    ax.set_title(title, fontsize=11)
    if len(series) > 1 or plot["kind"] == "lines":
        ax.legend(fontsize=8)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: plot.py REPORT.json OUT.png")
    with open(argv[1]) as f:
        draw(json.load(f), argv[2])


if __name__ == "__main__":
    main(sys.argv)
